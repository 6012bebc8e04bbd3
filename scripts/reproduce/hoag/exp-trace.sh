#!/usr/bin/env bash
# Why HOAG with exponential tolerances ends at the box's lower edge on `logreg` under the text's protocol
# (docs/hoag-bench/logreg.md): the `logreg` preset at data and run seed SEED (default 2) with HOAG (exponential)
# alone, no reference runs, once with the text's step rule and once with the authors' code's (C = 0.25, step x
# 1/0.95); prints per outer iteration the hyperparameter, the tolerance, the approximate hypergradient's norm, the
# outer loss at the approximate and at an accurate inner solution, and the step length over the hypergradient
# (1/L, the step the rule allowed).
# Usage: bash scripts/reproduce/hoag/exp-trace.sh [SEED] [ITERATIONS=8]   (seconds; HEAVY=/work/bin/heavy on shared machines)
set -euo pipefail
cd "$(dirname "$0")/../../.."
SEED=${1:-2}
N=${2:-8}
HEAVY="${HEAVY:-}"
OUT=${CARGO_TARGET_DIR:-target}/hoag-exp-trace
mkdir -p "$OUT"
$HEAVY cargo build --release -q -p tunelab-cli
BIN=${CARGO_TARGET_DIR:-target}/release/tunelab
for rule in text authors-code; do
  "$BIN" presets --show hoag/logreg | python3 -c '
import json, sys
c = json.load(sys.stdin)
c["methods"] = [{"kind": "hoag", "tolerance": "exponential"}]
c["reference_runs"] = 0
c["data"]["seed"] = int(sys.argv[2])
c["step_rule"] = sys.argv[1]
print(json.dumps(c))' "$rule" "$SEED" > "$OUT/$rule.json"
  $HEAVY "$BIN" hoag --config "$OUT/$rule.json" --seed "$SEED" --out "$OUT/$rule-report.json" > /dev/null
done
python3 - "$OUT" "$N" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
for rule in ("text", "authors-code"):
    m = json.load(open(f"{out}/{rule}-report.json"))["result"]["methods"][0]
    t = m["trace"]
    print(f"step rule {rule}: final lambda {m['final_hyper'][0]:.3f}, rejected steps {m['rejected_steps']}")
    print("| iter | lambda | tolerance | hypergradient norm | outer loss (approximate) | outer loss (accurate) | step / hypergradient to the next |")
    print("|---|---|---|---|---|---|---|")
    for a, b in zip(t[:n], t[1:n + 1]):
        step = abs(b["hyper"][0] - a["hyper"][0]) / a["grad_norm"] if a["grad_norm"] else float("nan")
        print(f"| {a['iter']} | {a['hyper'][0]:.3f} | {a['tolerance']:.3g} | {a['grad_norm']:.2e} | {a['outer_loss']:.5f} | "
              f"{a['best_outer_loss']:.5f} | {step:.3g} |")
    steps = [abs(b["hyper"][0] - a["hyper"][0]) / a["grad_norm"] for a, b in zip(t, t[1:]) if a["grad_norm"]]
    shrank = sum(1 for x, y in zip(steps, steps[1:]) if y < x * 0.999)
    print(f"1/L over the run: first {steps[0]:.3g}, last {steps[-1]:.3g}; it shrank at {shrank} of {len(steps) - 1} "
          f"iterations (a failed step test or a projection onto the box)\n")
PY
