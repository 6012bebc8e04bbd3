#!/usr/bin/env bash
# Regenerates the HOAG tables of docs/hoag-bench/ (Pedregosa 2016; numbers quoted by docs/paper-hoag.md and
# docs/HOAG-LRSCHED.md) with examples/hoag_bench.rs, seeds 1-10, one raw report per setting:
#   logreg kernel-ridge diabetes mnist mnist-per-feature lesson   -> docs/results/hoag/SETTING.json, then the
#       generated block `hoag:SETTING` of docs/hoag-bench/SETTING.md from it (scripts/reproduce/doc_tables.py;
#       the block is appended to the page when the page has none yet)
#   SETTING-cap1000   the same setting with the inner cap at 1,000 iterations (the stated variant of the paper's
#       100): docs/results/hoag/SETTING-cap1000.json, block `hoag:SETTING-cap1000` in docs/hoag-bench/SETTING.md
#   SETTING-authors-step  the same setting with the authors' code's step rule (C = 0.25, step x 1/0.95), likewise
#   SETTING-sum-loss  the same setting with the paper's summed losses of eq. 4-5 (loss_scale "sum"), likewise
# SEEDS=N runs seeds 1..N instead of 1..10 (a smaller size; the table's header names the seeds).
#   kernel-ridge-diagnosis  (examples/hoag_ridge_diagnose.rs)      -> printed (docs/hoag-bench/kernel-ridge-diagnosis.md
#                                                                     keeps a hand-written first line)
# The example's own printed table (the same numbers) goes to target/hoag-bench-SETTING.txt.
# Usage: bash scripts/reproduce/hoag/run.sh [SETTING ...]   (default: the six settings)
# On shared machines set HEAVY=/work/bin/heavy: every build and run goes through the slot wrapper one by one.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HEAVY="${HEAVY:-}"
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(logreg kernel-ridge diabetes mnist mnist-per-feature lesson)
$HEAVY cargo build --release -q --example hoag_bench --example hoag_ridge_diagnose
for part in "${PARTS[@]}"; do
  echo "== hoag: $part"
  case "$part" in
    kernel-ridge-diagnosis) $HEAVY cargo run --release -q --example hoag_ridge_diagnose -- kernel-ridge ;;
    *) t0=$(date +%s)
       $HEAVY cargo run --release -q --example hoag_bench -- "$part" 1 "${SEEDS:-10}" > "target/hoag-bench-$part.txt"
       echo "$part: $(( $(date +%s) - t0 )) s" >&2
       base="${part%-cap1000}"; base="${base%-authors-step}"; base="${base%-sum-loss}"
       page="docs/hoag-bench/$base.md"
       if ! grep -q "^<!-- BEGIN generated hoag:$part: " "$page" 2>/dev/null; then
         printf '\n<!-- BEGIN generated hoag:%s: scripts/reproduce/doc_tables.py -->\n<!-- END generated hoag:%s -->\n' \
           "$part" "$part" >> "$page"
       fi
       python3 scripts/reproduce/doc_tables.py "$page" ;;
  esac
done
