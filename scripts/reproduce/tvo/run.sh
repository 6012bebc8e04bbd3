#!/usr/bin/env bash
# Regenerates this repository's versions of the TVO schedule tables (Masrani et al. 2019; GP-UCB schedule of
# Nguyen et al. 2020, Figure 4), each with the script beside this one (read its header for settings and time):
#   figure4      digits, d in {2, 5, 10}, 3 seeds (figure4.sh, table.mjs): docs/tvo-table.md (minutes)
#   mnist        MNIST, one seed, d = 5 (mnist.sh, mnist-table.mjs): docs/tvo-mnist-table.md (about 20 min)
#   mnist-seeds  MNIST reduced, d in {2, 5, 10}, 3 seeds (mnist-seeds.sh): docs/tvo-mnist-seeds-table.md (about 30 min)
#   page         the TVO panel's preset times in headless Chromium (page-time.mjs; needs scripts/dev/build-wasm.sh)
# Not in the default (long):
#   long-d10     digits, d = 10 for 120 epochs (long-d10.sh): docs/tvo.md
#   mnist-paper  the paper's VAE and data (mnist-paper.sh): seeds 1001 and 1002 side by side on one thread each, then 1000:
#                docs/tvo-mnist-paper-table.md, -seed-1001.md, -seed-1002.md, -seeds.md (about 30 min per seed)
#   mnist-paper-box  GP-UCB alone in the box [0.01, 0.99] on those seeds (mnist-paper-box.sh, after mnist-paper):
#                docs/tvo-mnist-paper-box.md (about 6 min per seed)
# Usage: bash scripts/reproduce/tvo/run.sh [figure4] [mnist] [mnist-seeds] [page] [long-d10] [mnist-paper]
#   [mnist-paper-box]   (default: the first four)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=scripts/reproduce/tvo
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(figure4 mnist mnist-seeds page)
for part in "${PARTS[@]}"; do
  echo "== tvo: $part"
  case "$part" in
    figure4) bash $HERE/figure4.sh ;;
    mnist) bash $HERE/mnist.sh ;;
    mnist-seeds) bash $HERE/mnist-seeds.sh ;;
    page) node $HERE/page-time.mjs ;;
    long-d10) bash $HERE/long-d10.sh ;;
    mnist-paper)
      # seeds 1001 and 1002 side by side (each writes its own table), then 1000, whose table comes last
      SEED=1001 THREADS=1 TVO_OUT=target/tvo-mnist-paper-1001 bash $HERE/mnist-paper.sh > /dev/null &
      pid=$!
      SEED=1002 THREADS=1 TVO_OUT=target/tvo-mnist-paper-1002 bash $HERE/mnist-paper.sh > /dev/null
      wait "$pid"
      SEED=1000 THREADS=2 bash $HERE/mnist-paper.sh ;;
    mnist-paper-box) bash $HERE/mnist-paper-box.sh ;;
    *) echo "unknown part '$part' (figure4, mnist, mnist-seeds, page, long-d10, mnist-paper, mnist-paper-box)" >&2; exit 2 ;;
  esac
done
