#!/usr/bin/env bash
# The README's bandit GP-UCB numbers (and docs/bandit.md's), re-measured with the current GP-UCB defaults
# (squared-exponential kernel, Theorem 1's kappa with delta = 0.1; src/bandit/gpucb.rs): the `branin` and
# `tvo-schedule` presets (seed 1, as before) and the three drifting test functions of docs/bandit.md (wave1d,
# Branin, Hartmann-3; period 40, 80 rounds, 8 repeats, seed 1). Prints one line per algorithm: final simple
# regret [band] and cumulative regret, and copies the five reports, slimmed (scripts/reproduce/bandit/slim.py), to
# docs/results/bandit/gpucb/ (GPUCB_KEEP=DIR elsewhere), from which scripts/reproduce/doc_tables.py generates the
# `gpucb:all` table of docs/bandit.md.
# GPUCB_SETTINGS=matern runs the same problems with every GP-UCB variant on the Matern-5/2 kernel and a constant
# kappa of 2 (the settings docs/bandit.md's older hand-written numbers were measured with, and the sgld-step
# preset's) and keeps its reports in docs/results/bandit/gpucb-matern/ (the `gpucb:matern` table).
# Usage: CARGO_TARGET_DIR=... bash scripts/reproduce/bandit/gpucb-numbers.sh   (HEAVY=/work/heavy runs each cargo command
# through a slot wrapper)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${HEAVY:-} cargo run --release -p tunelab-cli --quiet --"
SETTINGS="${GPUCB_SETTINGS:-paper}"
case "$SETTINGS" in
  paper) GP='{}'; DEFAULT_KEEP=docs/results/bandit/gpucb ;;
  matern) GP='{"kernel": "matern52", "kappa": {"type": "constant", "value": 2}}'; DEFAULT_KEEP=docs/results/bandit/gpucb-matern ;;
  *) echo "GPUCB_SETTINGS must be paper or matern" >&2; exit 2 ;;
esac
OUT="${GPUCB_OUT:-target/gpucb-bandit-$SETTINGS}"
KEEP="${GPUCB_KEEP:-$DEFAULT_KEEP}"
mkdir -p "$OUT"
# Every GP-UCB variant of a config gets the settings' fields (none for the paper's, the defaults).
with_gp() { python3 -c 'import json, sys
c = json.load(sys.stdin); gp = json.loads(sys.argv[1])
for a in c["algorithms"]:
    if a["kind"].startswith("gp-ucb"):
        a.update(gp)
print(json.dumps(c))' "$GP"; }
for preset in branin tvo-schedule; do
  $BIN presets --show "bandit/$preset" | with_gp > "$OUT/$preset.config.json"
  $BIN bandit --config "$OUT/$preset.config.json" --out "$OUT/$preset.json" > /dev/null
done
algos=$(echo '{"algorithms": [{"kind": "gp-ucb"}, {"kind": "gp-ucb-stationary"}, {"kind": "random"}]}' | with_gp |
  python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["algorithms"]))')
printf '{"kind": "bandit", "problem": {"kind": "function", "function": "wave1d", "noise_sd": 0.02, "drift": 0.1, "period": 40}, "algorithms": %s, "rounds": 80, "repeats": 8, "seed": 1}\n' "$algos" > "$OUT/wave1d-drift.config.json"
$BIN bandit --config "$OUT/wave1d-drift.config.json" --out "$OUT/wave1d-drift.json" > /dev/null
printf '{"kind": "bandit", "problem": {"kind": "function", "function": "branin", "noise_sd": 0.1, "drift": 1.0, "period": 40}, "algorithms": %s, "rounds": 80, "repeats": 8, "seed": 1}\n' "$algos" > "$OUT/branin-drift.config.json"
$BIN bandit --config "$OUT/branin-drift.config.json" --out "$OUT/branin-drift.json" > /dev/null
printf '{"kind": "bandit", "problem": {"kind": "function", "function": "hartmann3", "noise_sd": 0.05, "drift": 0.1, "period": 40}, "algorithms": %s, "rounds": 80, "repeats": 8, "seed": 1}\n' "$algos" > "$OUT/hartmann3-drift.config.json"
$BIN bandit --config "$OUT/hartmann3-drift.config.json" --out "$OUT/hartmann3-drift.json" > /dev/null
node -e '
const fs = require("fs");
const g = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString());
for (const name of ["branin", "tvo-schedule", "wave1d-drift", "branin-drift", "hartmann3-drift"]) {
  const r = JSON.parse(fs.readFileSync(`${process.argv[1]}/${name}.json`, "utf8")).result;
  console.log(`${name} (${r.rounds.at(-1)} rounds, ${r.config?.repeats ?? ""} repeats):`);
  for (const a of r.algorithms) {
    const s = a.final_simple_regret; const c = a.final_cumulative_regret;
    console.log(`  ${a.name}: final simple regret ${g(s.mean)} [${g(s.lo)}, ${g(s.hi)}], cumulative regret ${g(c.mean)} [${g(c.lo)}, ${g(c.hi)}]`);
  }
}' "$OUT"
python3 scripts/reproduce/bandit/slim.py "$KEEP" "$OUT"/{branin,tvo-schedule,wave1d-drift,branin-drift,hartmann3-drift}.json
echo "slim reports in $KEEP"
