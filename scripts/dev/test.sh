#!/usr/bin/env bash
# Runs every test of tunelab: native (cargo test), the Python package, the fuzz targets, the wasm binding layer
# in headless Chromium (single-threaded and threaded builds), the docs (when scripts/dev/docs.sh exists), and the
# end-to-end browser tests of the page. Installs what is missing first.
# Every section prints its wall time when it ends ("[time] NAME: S s"); the table of them and the total come
# just before the closing count line `tunelab: N passed, M failed` (and also when a section stops the run).
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0

LOG=$(mktemp -d)/test.log
T0=$(date +%s.%N); SEC_NAME=""; SEC_T0=""; TIMES=(); TIMES_SHOWN=""
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
section_end() {
  if [ -n "$SEC_NAME" ]; then
    local t; t=$(elapsed "$SEC_T0"); TIMES+=("$(printf '%8s s  %s' "$t" "$SEC_NAME")")
    printf '\033[1;34m[time]\033[0m %s: %s s\n' "$SEC_NAME" "$t"
  fi
  SEC_NAME=""
}
section() { section_end; SEC_NAME="${1%%:*}"; SEC_T0=$(date +%s.%N); printf '\n\033[1;34m== %s ==\033[0m\n' "$*"; disk; }
times_table() {
  [ -z "$TIMES_SHOWN" ] || return 0
  TIMES_SHOWN=1; section_end
  echo; echo "wall time per section:"; local l; for l in "${TIMES[@]}"; do echo "  $l"; done
  printf '%10s s  total\n' "$(elapsed "$T0")"
}
# A failing command of a section without its own count (setup, build, typecheck) ends the run here.
trap 'st=$?; if [ $st -ne 0 ] && [ -z "$TIMES_SHOWN" ]; then s=$SEC_NAME; times_table; echo "scripts/dev/test.sh: stopped in section \"$s\" (exit $st)"; fi' EXIT
# CI machines have little disk (a run ran out of it in the wasm section): say what is free at every section, and
# under CI=true drop each section's build directory once no later section reads it.
disk() { df -h . | awk 'NR==2 {print "[disk] " $4 " free"}'; }
drop() { if [ "${CI:-}" = true ]; then rm -rf "$@"; fi; }
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

section "setup: scripts/dev/setup.sh (installs what is missing)"
bash scripts/dev/setup.sh

# One build of the native tests: the core's tests are one integration crate (tests/core) plus the two that need
# their own process (tests/soak.rs, tests/mnist_page.rs); the CLI binary built here is the one the python,
# fuzz-seed and browser sections use (no second build of it).
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
# Every fuzz target for a short budget (FUZZ_SECONDS, default 10 s each: a smoke run of 5,000-200,000 inputs per
# target on the seed corpora; the long runs are scripts/dev/fuzz.sh SECONDS); one line per target, counted below.
# Long runs: scripts/dev/fuzz.sh SECONDS (README, "Fuzzing"). Its seed corpora come from the native test binary
# built above (cargo test --test core robustness::fuzz_seeds: nothing to rebuild).
section "fuzz: cargo-fuzz targets (opt-level 1 build), ${FUZZ_SECONDS:-10} s each"
FUZZ_BUILD="${FUZZ_BUILD:-dev}" bash scripts/dev/fuzz.sh "${FUZZ_SECONDS:-10}" 2>&1 | tee -a "$LOG" || true
# Nothing reads the native build directories after this (the CLI is copied above).
drop fuzz/target target/debug target/release

if [ -f scripts/dev/test-wasm.sh ]; then
  section "wasm: wasm-pack test --headless --chrome (single-threaded and threaded)"
  bash scripts/dev/test-wasm.sh 2>&1 | tee -a "$LOG"
  # target/wasm32-unknown-unknown/release and target-threads/ stay: the browser section links the page from them.
fi

section "page: typecheck www/ (tsc, JSDoc types)"
npm run typecheck --silent 2>&1 | tee -a "$LOG"

# The docs (book build and link check; scripts/dev/docs.sh). A failure is counted, not fatal.
if [ -f scripts/dev/docs.sh ]; then
  section "docs: scripts/dev/docs.sh"
  bash scripts/dev/docs.sh 2>&1 | tee -a "$LOG" || echo "docs: 0 passed, 1 failed (scripts/dev/docs.sh)" | tee -a "$LOG"
fi

if [ -d tests/e2e ]; then
  # The wasm page once (scripts/dev/build-wasm.sh skips a flavour whose inputs did not change); the tests serve
  # the repository itself (dist.test.mjs builds its own dist/ copy), so no `npm run build` / second build here.
  section "browser: build the wasm page, end-to-end tests in Chromium"
  bash scripts/dev/build-wasm.sh 2>&1 | tee -a "$LOG"
  node --test --test-concurrency=1 tests/e2e/ 2>&1 | tee -a "$LOG"
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
times_table
echo
echo "tunelab: $((passed + node_pass)) passed, $((failed + node_fail)) failed"
[ $((failed + node_fail)) -eq 0 ]
