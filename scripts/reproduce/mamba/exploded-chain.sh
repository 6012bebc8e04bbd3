#!/usr/bin/env bash
# Issue 12: why the IMQ-only run kernel scored an exploded SGHMC chain below healthy ones on the paper's
# logistic regression, and what the moment term adds. Simulates N = 10^4 (seed 1), runs three SGHMC chains
# from the MAP with `tunelab sample` (h = 0.1 / batch 8 / L = 10: the arm MAMBA-KSD chose in seeds 1 and 3 of
# scripts/reproduce/mamba/table1.sh; h = 3.2e-5 / batch 800; h = 1e-5 / batch 80), and scores the last 300 thinned samples
# of each with the run kernel's pieces (scripts/reproduce/mamba/exploded-chain.py).
# Usage: scripts/reproduce/mamba/exploded-chain.sh [path/to/tunelab] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${1:-${CARGO_TARGET_DIR:-target}/release/tunelab}"
OUT="${2:-target/exploded-chain}"
mkdir -p "$OUT"
"$BIN" simulate logistic --n 10000 --seed 1 --out "$OUT/data.csv"
run() { "$BIN" sample --data "$OUT/data.csv" --sampler sghmc --step "$1" --batch "$2" --leapfrog 10 --grad-evals "$3" --thin 10 --seed "$4" --out "$OUT/$5.csv" --scores "$OUT/$5.scores.csv"; }
run 0.1 8 2e6 1 exploded
run 3.2e-5 800 2e7 1 wide
run 1e-5 80 2e7 2 twice
python3 scripts/reproduce/mamba/exploded-chain.py "$OUT/data.csv" "$OUT/exploded.csv" "$OUT/wide.csv" "$OUT/twice.csv"
