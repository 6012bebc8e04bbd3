#!/usr/bin/env bash
# Regenerates this repository's versions of the TVO schedule tables (Masrani et al. 2019; GP-UCB schedule of
# Nguyen et al. 2020, Figure 4), each with the script beside this one (read its header for settings and time):
#   figure4      digits, d in {2, 5, 10}, 3 seeds (figure4.sh, table.mjs): docs/tvo-table.md (minutes)
#   mnist        MNIST, one seed, d = 5 (mnist.sh, mnist-table.mjs): docs/tvo-mnist-table.md (about 20 min)
#   mnist-seeds  MNIST reduced, d in {2, 5, 10}, 3 seeds (mnist-seeds.sh): docs/tvo-mnist-seeds-table.md (about 30 min)
#   page         the TVO panel's preset times in headless Chromium (page-time.mjs; needs scripts/dev/build-wasm.sh)
# Usage: bash scripts/reproduce/tvo/run.sh [figure4] [mnist] [mnist-seeds] [page]   (default: all)
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
    *) echo "unknown part '$part' (figure4, mnist, mnist-seeds, page)" >&2; exit 2 ;;
  esac
done
