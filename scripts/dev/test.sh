#!/usr/bin/env bash
# Runs every test of tunelab: native (cargo test), the wasm binding layer in headless Chromium (single-threaded
# and threaded builds), and the end-to-end browser tests of the page. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0
bash scripts/dev/setup.sh

LOG=$(mktemp -d)/test.log
section() { printf '\n\033[1;34m== %s ==\033[0m\n' "$*"; disk; }
# CI machines have little disk (a run ran out of it in the wasm section): say what is free at every section, and
# under CI=true drop each section's build directory once no later section reads it.
disk() { df -h . | awk 'NR==2 {print "[disk] " $4 " free"}'; }
drop() { if [ "${CI:-}" = true ]; then rm -rf "$@"; fi; }
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

section "native: cargo test"
cargo test --all-targets 2>&1 | tee -a "$LOG"
cargo test --doc 2>&1 | tee -a "$LOG"
# The CLI that cargo test has just built: the python and browser sections compare bits with it (a copy outside
# target/, which CI drops below).
if [ -x target/debug/tunelab ]; then
  export TUNELAB_CLI="$(dirname "$LOG")/tunelab"; cp target/debug/tunelab "$TUNELAB_CLI"
fi

# The Python package (crates/python: maturin wheel, pytest, a local Ray cluster); pytest's "N passed" /
# "N failed" enter the closing count. A failure here is counted, not fatal, so the other sections still run.
section "python: maturin wheel, pytest (bindings, ask/tell, local Ray cluster)"
bash scripts/dev/test-python.sh 2>&1 | tee -a "$LOG" || true
# Every fuzz target for a short budget (FUZZ_SECONDS, default 20 s each); one line per target, counted below.
# Long runs: scripts/dev/fuzz.sh SECONDS (README, "Fuzzing").
section "fuzz: cargo-fuzz targets, ${FUZZ_SECONDS:-20} s each"
bash scripts/dev/fuzz.sh "${FUZZ_SECONDS:-20}" 2>&1 | tee -a "$LOG" || true
# Nothing reads the native build directories after this (the CLI is copied above).
drop fuzz/target target/debug target/release

if [ -f scripts/dev/test-wasm.sh ]; then
  section "wasm: wasm-pack test --headless --chrome (single-threaded and threaded)"
  bash scripts/dev/test-wasm.sh 2>&1 | tee -a "$LOG"
  drop target/wasm32-unknown-unknown/debug
fi


section "page: typecheck www/ (tsc, JSDoc types)"
npm run typecheck --silent 2>&1 | tee -a "$LOG"

if [ -d tests/e2e ]; then
  section "browser: build the page and run the end-to-end tests in Chromium"
  npm run build --silent 2>&1 | tee -a "$LOG"
  npm run test:e2e --silent 2>&1 | tee -a "$LOG"
fi

# One closing line over every runner: cargo's "N passed; M failed", wasm-bindgen-test's and node's counts, and
# one per fuzz target.
passed=$(grep -Eo '[0-9]+ passed' "$LOG" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$LOG" | awk '{s+=$1} END {print s+0}')
node_pass=$(grep -Eo '^# pass [0-9]+' "$LOG" | awk '{s+=$3} END {print s+0}')
node_fail=$(grep -Eo '^# fail [0-9]+' "$LOG" | awk '{s+=$3} END {print s+0}')
# Fuzz targets: one "fuzz target NAME: passed|failed" line each (scripts/dev/fuzz.sh).
fuzz_pass=$(grep -Ec '^fuzz target [a-z0-9_-]+: passed' "$LOG" || true)
fuzz_fail=$(grep -Ec '^fuzz target [a-z0-9_-]+: failed' "$LOG" || true)
if [ $((fuzz_pass + fuzz_fail)) -eq 0 ]; then fuzz_fail=1; echo "fuzz: no target reported (scripts/dev/fuzz.sh failed early)"; fi
node_pass=$((node_pass + fuzz_pass))
node_fail=$((node_fail + fuzz_fail))
echo
echo "tunelab: $((passed + node_pass)) passed, $((failed + node_fail)) failed"
[ $((failed + node_fail)) -eq 0 ]
