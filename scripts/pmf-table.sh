#!/usr/bin/env bash
# The paper's Table 2 (section 4.2, appendix B.2) on SIMULATED ratings of MovieLens-100K's shape: the pmf
# comparison (every tuner of `tunelab compare`) for the six samplers, seed 0, written to docs/pmf-results.md
# with the JSON reports in docs/pmf/. Pass RATINGS=path/to/u.data to run on a real ratings file instead.
# Usage: bash scripts/pmf-table.sh [path/to/tunelab]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-${CARGO_TARGET_DIR:-target}/release/tunelab}"
OUT=docs/pmf
mkdir -p "$OUT"
EXTRA=()
if [ -n "${RATINGS:-}" ]; then EXTRA=(--ratings "$RATINGS"); fi
for s in sgld sgld-cv sghmc sghmc-cv sgnht sgnht-cv; do
  echo "== $s" >&2
  "$BIN" compare --preset pmf --sampler "$s" --seed 0 "${EXTRA[@]}" --out "$OUT/$s.json" > "$OUT/$s.txt"
done
python3 scripts/slim-report.py "$OUT"/*.json
python3 scripts/pmf-table.py "$OUT" > docs/pmf-results.md
cat docs/pmf-results.md
