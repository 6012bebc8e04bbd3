#!/usr/bin/env bash
# Regenerates the learning-rate-schedule numbers the README and docs/HOAG-LRSCHED.md quote, each with the script
# beside this one (read its header for settings and time; both print their tables):
#   numbers    every preset at the report seeds 1-5: best constant, best decay, the dynamic tuner (numbers.sh)
#   multitask  the multi-task warm start (Picheny et al. 2020, Sec. 4), seeds 1-6 and 8-11 (multitask.sh)
# Usage: bash scripts/reproduce/lr-schedule/run.sh [numbers] [multitask]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=scripts/reproduce/lr-schedule
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(numbers multitask)
for part in "${PARTS[@]}"; do
  echo "== lr-schedule: $part"
  case "$part" in
    numbers) bash $HERE/numbers.sh ;;
    multitask) bash $HERE/multitask.sh ;;
    *) echo "unknown part '$part' (numbers, multitask)" >&2; exit 2 ;;
  esac
done
