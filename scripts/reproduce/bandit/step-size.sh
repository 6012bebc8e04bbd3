#!/usr/bin/env bash
# GP-UCB choosing an SG-MCMC step size window by window against fixed steps: the `sgld-step` preset (seed 1; one run
# each, well under a second). Prints the CLI's table and copies the report, slimmed (scripts/reproduce/bandit/slim.py),
# to docs/results/step-size/sgld-step.json (STEP_KEEP=DIR elsewhere), from which scripts/reproduce/doc_tables.py
# generates the `step-size:sgld-step` table of docs/bandit.md.
# Usage: bash scripts/reproduce/bandit/step-size.sh   (HEAVY=/work/heavy runs the cargo command through a slot wrapper)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${HEAVY:-} cargo run --release -p tunelab-cli --quiet --"
OUT="${STEP_OUT:-target/step-size}"
KEEP="${STEP_KEEP:-docs/results/step-size}"
mkdir -p "$OUT"
$BIN step-size --preset sgld-step --out "$OUT/sgld-step.json"
python3 scripts/reproduce/bandit/slim.py "$KEEP" "$OUT/sgld-step.json"
echo "slim report in $KEEP/sgld-step.json"
