#!/usr/bin/env bash
# The Python section of scripts/dev/test.sh: builds the tunelab wheel (maturin, abi3, Cargo profile dev, which is
# the test profile: opt-level 2 with debug assertions, reusing what `cargo test` compiled in target/debug; see
# Cargo.toml), installs it into the test
# venv made by scripts/dev/setup.sh, and runs the pytest suite of crates/python/tests (bits equal to the CLI,
# errors, GIL, KeyboardInterrupt (two SIGINTs), ask/tell, data forms, to_frame, figures (rendered text extents), a
# notebook executed by nbclient, stubs under mypy --strict, checkpoints, and a
# local Ray cluster: a head and two worker nodes on 127.0.0.1; the notebook widget in nbclient and in a JupyterLab
# server driven by Chromium).
# A failure to build or install prints "python: 0 passed, 1 failed" so the closing count sees it.
set -uo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
WHEELS="$TARGET/wheels"
# VENV, VIRTUAL_ENV, PATH (the venv first) and the PyO3 variables maturin sets (shared with test.sh's doc tests).
. scripts/dev/pyo3-env.sh

fail() { echo "python: $1"; echo "python: 0 passed, 1 failed"; exit 1; }
# Usage: test-python.sh [build|test|all] (default all). `build` only makes the wheel (scripts/dev/test.sh starts it
# early, beside the native tests); `test` installs the wheel already in $WHEELS (or builds it) and runs pytest.
MODE="${1:-all}"

if [ "$MODE" != test ] || ! ls "$WHEELS"/tunelab-*.whl >/dev/null 2>&1; then
  rm -f "$WHEELS"/tunelab-*.whl
  # The notebook widget's front end ships in the wheel (tunelab/_widget/): the single-threaded wasm (in target/,
  # where the wasm and browser sections reuse it; skipped when up to date) and the page bundled by esbuild.
  CARGO_TARGET_DIR="${TUNELAB_WASM_TARGET:-$PWD/target}" bash scripts/dev/build-wasm.sh single 2>&1 \
    | grep -Ev '^\s*(Compiling|Downloaded|Downloading)' || true
  node scripts/dev/build-widget.mjs || fail "the widget bundle failed (scripts/dev/build-widget.mjs)"
  MATURIN_LOG=$(mktemp)
  maturin build --profile dev -m crates/python/Cargo.toml -o "$WHEELS" >"$MATURIN_LOG" 2>&1 || true
  grep -Ev '^\s*(Compiling|Downloaded|Downloading)' "$MATURIN_LOG" || true
  # After scripts/dev/test.sh's cargo test, the wheel should compile only PyO3, numpy and the bindings; the core
  # among them means the features of the two builds drifted apart (crates/python/Cargo.toml, the last block).
  built=$(grep -Eo '^\s*Compiling [^ ]+' "$MATURIN_LOG" | awk '{print $2}' | sort | tr '\n' ' ')
  echo "python: the wheel's build compiled $(echo "$built" | wc -w) crates: ${built:-none}"
  if [ -n "${TUNELAB_CLI:-}" ] && echo " $built" | grep -q ' tunelab '; then
    echo "python: WARNING: the wheel compiled the core again: its features differ from cargo test's (see crates/python/Cargo.toml)"
  fi
  rm -f "$MATURIN_LOG"
fi
wheel=$(ls "$WHEELS"/tunelab-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || fail "maturin build failed"
[ "$MODE" = build ] && { echo "python: wheel built: $wheel"; exit 0; }
pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel" || fail "pip install of $wheel failed"

# The CLI the tests compare bits with: the native section's copy (scripts/dev/test.sh sets TUNELAB_CLI), else the
# debug build brought up to date here (an existing binary may be older than the sources the wheel was built from).
if [ -z "${TUNELAB_CLI:-}" ]; then
  cargo build -q -p tunelab-cli || fail "cargo build -p tunelab-cli failed"
  export TUNELAB_CLI="$TARGET/debug/tunelab"
fi

cd crates/python/tests
# --durations: the slowest tests, so a slower run shows where its time went.
timeout "${PYTEST_TIMEOUT:-600}" python -m pytest -q -p no:cacheprovider --durations=15 .
