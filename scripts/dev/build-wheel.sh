#!/usr/bin/env bash
# Writes an installable wheel of the Python package (tunelab, abi3: one wheel for CPython 3.9 and later on this
# platform) into dist/wheels/, for a course's or a lab's own package index: `pip install dist/wheels/tunelab-*.whl`
# or copy it to the index. `npm run build` runs it after the static site (scripts/dev/build-dist.mjs empties dist/
# first). It uses the release profile (thin LTO: the fastest code; a cold build takes minutes on 2 cores, most of
# it compiling the Rust dependencies once). Needs maturin: the test venv has it (scripts/dev/setup.sh), or
# `pip install 'maturin>=1.16,<2'`.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${TUNELAB_VENV:-$HOME/.cache/tunelab/venv}"
[ -x "$VENV/bin/maturin" ] && export PATH="$VENV/bin:$PATH"
OUT="${DIST_DIR:-$PWD/dist}/wheels"
if ! command -v maturin >/dev/null; then
  echo "build-wheel: maturin is missing (bash scripts/dev/setup.sh makes the venv with it, or pip install maturin)" >&2
  exit 1
fi
mkdir -p "$OUT"
start=$(date +%s)
maturin build --release --quiet -m crates/python/Cargo.toml -o "$OUT"
echo "build-wheel: wrote $(ls "$OUT"/tunelab-*.whl | tail -1) in $(( $(date +%s) - start )) s"
