#!/usr/bin/env bash
# Regenerates this repository's versions of the MAMBA paper's tables (Coullon, South & Nemeth 2023), each with
# the script beside this one (read its header for the settings and the time it takes):
#   table1     Table 1 / Figure 3, logistic regression, N = 10^4, seeds 1-10, both Stein kernels, fresh evaluation
#              (table1.sh, table1.py): reports slimmed into docs/results/mamba/table1/fresh-run/ and fresh-plain/, tables printed
#   pmf        Table 2, PMF on simulated MovieLens-100K-shaped ratings (pmf-table.sh): docs/pmf-results.md, docs/results/mamba/pmf/
#   mnist-bnn  Table 3, the BNN on MNIST at reduced scale (mnist-bnn-table.sh), tanh and the paper's softmax
#              network, each choice evaluated on a fresh 5 R chain from the MAP (EVAL_R=5; the paper's 30 R took
#              hours here): docs/mnist-bnn-results.md, docs/mnist-bnn-softmax-results.md; then MAMBA-KSD on the tanh
#              network with the paper's plain kernel (docs/mnist-bnn-plain-results.md, the bnn-kernels block of
#              docs/mnist-bnn.md)
#   page       the page's reduced versions in headless Chromium (page-presets.mjs; needs scripts/dev/build-wasm.sh)
# Usage: bash scripts/reproduce/mamba/run.sh [table1] [pmf] [mnist-bnn] [page]   (default: all; hours on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=scripts/reproduce/mamba
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(table1 pmf mnist-bnn page)
cargo build --release -q -p tunelab-cli
BIN="${CARGO_TARGET_DIR:-target}/release/tunelab"
for part in "${PARTS[@]}"; do
  echo "== mamba: $part"
  case "$part" in
    table1)
      # both kernels, the fresh evaluation (table1.sh); the older tuning-chain reports in docs/results/mamba/table1/tuning-chain
      # and docs/results/mamba/table1/seed0 are not regenerated (EVAL=tuning-chain table1.sh would)
      bash $HERE/table1.sh 10000 1 10 target/table1-10000
      for k in run plain; do
        mkdir -p docs/results/mamba/table1/fresh-$k
        cp target/table1-10000/fresh-$k/*-seed*.json target/table1-10000/fresh-$k/*-seed*.txt docs/results/mamba/table1/fresh-$k/
        python3 $HERE/slim-report.py --table1 docs/results/mamba/table1/fresh-$k/*-seed*.json
      done
      python3 $HERE/table1.py docs/results/mamba/table1/fresh-plain docs/results/mamba/table1/fresh-run
      ;;
    pmf) bash $HERE/pmf-table.sh "$BIN" ;;
    mnist-bnn)
      for a in tanh softmax; do ACTIVATION=$a EVAL_R="${EVAL_R:-5}" bash $HERE/mnist-bnn-table.sh "$BIN"; done
      EVAL_R="${EVAL_R:-5}" KERNEL=plain TUNERS=MAMBA-KSD OUT_DIR=docs/results/mamba/mnist-bnn-plain \
        DOC_OUT=docs/mnist-bnn-plain-results.md bash $HERE/mnist-bnn-table.sh "$BIN"
      python3 scripts/reproduce/doc_tables.py docs/mnist-bnn.md
      ;;
    page) node $HERE/page-presets.mjs ;;
    *) echo "unknown part '$part' (table1, pmf, mnist-bnn, page)" >&2; exit 2 ;;
  esac
done
