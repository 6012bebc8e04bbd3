#!/usr/bin/env bash
# Regenerates the HOAG tables of docs/hoag-bench/ (Pedregosa 2016; numbers quoted by the README and
# docs/HOAG-LRSCHED.md) with examples/hoag_bench.rs, seeds 1-10, one file per setting:
#   logreg kernel-ridge diabetes mnist mnist-per-feature lesson   -> docs/hoag-bench/SETTING.md
#   kernel-ridge-diagnosis  (examples/hoag_ridge_diagnose.rs)      -> printed (docs/hoag-bench/kernel-ridge-diagnosis.md
#                                                                     keeps a hand-written first line)
# Usage: bash scripts/reproduce/hoag/run.sh [SETTING ...]   (default: the six settings)
set -euo pipefail
cd "$(dirname "$0")/../../.."
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(logreg kernel-ridge diabetes mnist mnist-per-feature lesson)
cargo build --release -q --examples
for part in "${PARTS[@]}"; do
  echo "== hoag: $part"
  case "$part" in
    kernel-ridge-diagnosis) cargo run --release -q --example hoag_ridge_diagnose -- kernel-ridge ;;
    *) cargo run --release -q --example hoag_bench -- "$part" > "docs/hoag-bench/$part.md.tmp"
       mv "docs/hoag-bench/$part.md.tmp" "docs/hoag-bench/$part.md" ;;
  esac
done
