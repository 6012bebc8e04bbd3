#!/usr/bin/env bash
# Runs every test of tunelab: native (cargo test, which also replays the fuzz targets' bodies on their seeds, crash
# inputs and seeded mutants), the Python package, the wasm binding layer in headless Chromium, the page's types,
# the docs (when scripts/dev/docs.sh exists) and the end-to-end browser tests of the page. Installs what is missing
# first. The coverage-guided fuzz runs (libFuzzer, nightly, an instrumented build of 11 min here) are
# `bash scripts/dev/fuzz.sh SECONDS`, not part of this command.
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

# Chromium's temporary folders that this run leaves behind (chromedriver's profiles) are removed at its end.
CHROMIUM_TMP_BEFORE="$(dirname "$LOG")/chromium-tmp-before"
ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort > "$CHROMIUM_TMP_BEFORE" || true

section "setup: scripts/dev/setup.sh (installs what is missing)"
bash scripts/dev/setup.sh

# One build of the native tests: the core's tests are one integration crate (tests/core) plus the three that need
# their own process (tests/soak.rs, tests/mnist_page.rs, tests/shipped_page.rs); the CLI binary built here is the one the python
# and browser sections use (no second build of it).
section "native: cargo fmt --check, cargo test (clippy -D warnings inside the build)"
# Formatting first: a failure stops the run here, naming the command that fixes it. The fuzz crate is its own
# workspace (fuzz/); plain `cargo fmt` there checks its targets only (`--all` would check the core again through
# the path dependency).
if ! cargo fmt --all --check || ! (cd fuzz && cargo fmt --check); then
  echo "scripts/dev/test.sh: the code is not formatted: run \`cargo fmt --all && (cd fuzz && cargo fmt)\` and commit"
  exit 1
fi
# Background jobs run in their own session (setsid, so that a stopped run can end them with their children). With
# the kernel's autogroup scheduling (on here: /proc/sys/kernel/sched_autogroup_enabled = 1) a new session is a new
# group that gets an equal share of the CPU whatever its nice value, and a measured run showed it: the threaded
# BNN e2e test took 179 s beside the fuzz build instead of 85 s. So each job first lowers its own group's weight
# (autogroup nice 19; ignored where there is none).
LOW_PRIORITY='{ echo 19 > /proc/self/autogroup; } 2>/dev/null || true; '
# One background job at the lowest priority, in its own session, started here: the threaded wasm page
# (pkg-parallel/: nightly + build-std, 6 CPU-minutes here; exit status in threads.end), which the browser section
# needs. Through the native section it fills the core that the foreground leaves idle (the core crate's serial
# compile); from the python section on it runs at the foreground's priority (below). It starts before the clippy
# wrapper below is exported: the nightly build must not get stable's clippy-driver.
THREADS_LOG="$(dirname "$LOG")/threads.log"; THREADS_END="$(dirname "$LOG")/threads.end"; rm -f "$THREADS_END"
setsid bash -c "$LOW_PRIORITY"'nice -n 19 bash scripts/dev/build-wasm.sh parallel >"$1" 2>&1; echo $? >"$2"' \
  bg "$THREADS_LOG" "$THREADS_END" </dev/null >/dev/null 2>&1 &
BG_PID=$!
trap 'st=$?; for p in "${BG_PID:-}" "${SOAK_PID:-}"; do [ -z "$p" ] || kill -- "-$p" 2>/dev/null || true; done; if [ -n "${BESIDE_PID:-}" ]; then pkill -P "$BESIDE_PID" 2>/dev/null; kill "$BESIDE_PID" 2>/dev/null; fi; if [ $st -ne 0 ] && [ -z "$TIMES_SHOWN" ]; then s=$SEC_NAME; times_table; echo "scripts/dev/test.sh: stopped in section \"$s\" (exit $st)"; fi' EXIT
# Clippy runs inside the native builds themselves: cargo gives every compile of a workspace crate to
# clippy-driver (RUSTC_WORKSPACE_WRAPPER, what `cargo clippy` sets), which compiles it and adds clippy's lints;
# CLIPPY_ARGS is what `cargo clippy -- -D warnings` passes it, so a lint fails the build that meets it. The
# dependencies are compiled by plain rustc and shared with every other build. A separate `cargo clippy` cost 323
# CPU-seconds from a cold target directory (check-mode copies of every dependency and proc macro); inside the
# builds the lints cost no measurable CPU. The wrapper stays set for every later native cargo command on target/
# (the wheel, the doc tests, the toy kind): it is part of the workspace crates' fingerprints, so a build without it
# would compile them again. clippy-driver compiles with MIR optimisations off (its lints read unoptimised MIR),
# so the native test binaries are not byte for byte what plain rustc makes; the wasm builds unset the wrapper and
# are built as shipped, and the wasm binding is linted by a check build in the wasm section. Not linted: the
# threaded wasm build's code paths (nightly) and the fuzz targets (their own workspace).
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver)
CLIPPY_HINT='scripts/dev/test.sh: the build above failed: a compile error, or a clippy lint (clippy::NAME): fix it, or allow one narrowly with its reason (see [workspace.lints.clippy] in Cargo.toml); `cargo clippy --workspace --all-targets -- -D warnings` shows the lints alone'
# The library's unit tests, the binaries and the integration tests. Not the 13 examples and 4 criterion benches
# (--all-targets would link each at the test profile's opt-level 2): they are compiled (and linted) after the
# wheel, in its environment (below).
# The Python crate is selected too (it has no Rust test: only its dependencies' features join the resolution), so
# the wheel's build in the next section finds every shared crate built with its features and compiles only PyO3,
# numpy and the bindings (crates/python/Cargo.toml, the last block). Every cargo command of this section selects
# the same packages, so none of them resolves features of its own and rebuilds the core. The doc tests run after
# the wheel (python section): `--doc` compiles every selected library, the Python crate's included, and there it
# finds PyO3 compiled by maturin.
NATIVE_PKGS=(--workspace --exclude tunelab-wasm)
if ! cargo test "${NATIVE_PKGS[@]}" --bins --tests --no-run 2>&1 | tee -a "$LOG"; then echo "$CLIPPY_HINT"; exit 1; fi
cargo test "${NATIVE_PKGS[@]}" --bins --tests 2>&1 | tee -a "$LOG"
# The CLI that cargo test has just built: the python and browser sections compare bits with it (a copy outside
# target/, which CI drops below).
if [ -x target/debug/tunelab ]; then
  export TUNELAB_CLI="$(dirname "$LOG")/tunelab"; cp target/debug/tunelab "$TUNELAB_CLI"
fi
# The library soak (tests/soak.rs: 1,000 runs in one process, 45-115 s on one core) is #[ignore]d in the run above: a
# copy of its binary runs it beside the later sections at the lowest priority (its resident-memory readings are its
# own process's); its result line enters the closing count at the end.
SOAK_LOG="$(dirname "$LOG")/soak.log"; SOAK_PID=""
SOAK_BIN=$(cargo test "${NATIVE_PKGS[@]}" --test soak --no-run --message-format=json 2>/dev/null | grep -o '"executable":"[^"]*/soak-[^"]*"' | tail -1 | cut -d'"' -f4)
if [ -n "$SOAK_BIN" ] && cp "$SOAK_BIN" "$(dirname "$LOG")/soak-test"; then
  setsid bash -c "$LOW_PRIORITY"'nice -n 19 "$1" --ignored --nocapture' soak "$(dirname "$LOG")/soak-test" >"$SOAK_LOG" 2>&1 &
  SOAK_PID=$!
else
  echo "soak: 0 passed, 1 failed (no test binary from cargo test --test soak --no-run)" >"$SOAK_LOG"
fi
# The Python package (crates/python: maturin wheel, pytest, a local Ray cluster); pytest's "N passed" /
# "N failed" enter the closing count. A failure here is counted, not fatal, so the other sections still run.
section "python: maturin wheel, then pytest beside the doc tests, examples, toy kind and wasm binding tests"
# From here the threaded page's build runs at the foreground's priority. At nice 19 the wheel, pytest and the job
# beside it left it almost no CPU, so it ended after them and the browser section waited for it (49 s and 103 s
# in two fresh-clone runs) while its serial tail (the core crate's codegen-units = 1 compile, the LTO link,
# wasm-bindgen, wasm-opt) ran alone: vmstat showed 41% of the two cores idle (15fa2bb). Sharing the cores, it
# overlaps that tail with the python section's work.
if [ ! -f "$THREADS_END" ]; then
  { echo 0 > "/proc/$BG_PID/autogroup"; } 2>/dev/null || true
  renice -n 0 -g "$BG_PID" >/dev/null 2>&1 || true
fi
# The wheel is built in target/ with the dev profile, which is the test profile (Cargo.toml): it reuses the
# dependencies cargo test has just compiled. Its build also makes the single-threaded page (pkg/), which the
# notebook widget ships.
bash scripts/dev/test-python.sh build 2>&1 | tee -a "$LOG" || true
# pytest keeps about one core busy (measured: 200 CPU-seconds in 300 s; Ray's nodes and JupyterLab mostly wait),
# so the builds that need the wheel's environment or pkg/ run beside it, one after another, in one job at the
# foreground's priority: the doc tests, the examples and benches, the toy kind, then the wasm binding's tests and
# lint. Their output is printed when pytest ends (each line a count for the closing line). A failure is counted.
#  - The doc tests (native, the same packages as cargo test above) and the examples and benches (compiled and
#    linted, not run) build every selected library, the Python crate's included: so they run in maturin's
#    environment (scripts/dev/pyo3-env.sh and the PyO3 configuration file maturin wrote), where the PyO3 crates
#    the wheel's build compiled are up to date; elsewhere PyO3 would be compiled again (measured: before the
#    wheel, the examples' build compiled pyo3, pyo3-ffi and numpy, and the wheel compiled them once more).
#  - The toy kind (scripts/dev/toy-kind.sh): a new experiment kind is its folder and two registry lines; a copy of
#    the workspace with a toy kind, built where every dependency and PyO3 are up to date (only the copy's three
#    crates compile, linted like the rest).
#  - The wasm binding: wasm-pack test --headless --chrome --release of the single-threaded build (it links what
#    pkg/'s build compiled; the threaded build is tested as shipped by the browser tests), then clippy on its own
#    target (its tests and most of its code are wasm32-only): a check build (60 CPU-seconds) reusing the host
#    half of the release builds (proc macros, build scripts).
wheel_env() { . scripts/dev/pyo3-env.sh; use_wheel_pyo3_config; }
BESIDE_LOG="$(dirname "$LOG")/beside-pytest.log"
(
  (wheel_env; cargo test "${NATIVE_PKGS[@]}" --features tunelab-python/extension-module --doc) 2>&1 \
    || echo "doc tests: 0 passed, 1 failed (cargo test --doc)"
  if (wheel_env; cargo build "${NATIVE_PKGS[@]}" --features tunelab-python/extension-module --examples --benches) 2>&1 \
    | grep -Ev '^\s*Compiling'; then
    echo "clippy: 1 passed, 0 failed (-D warnings, in the builds of the tests, binaries, wheel, examples and benches)"
  else
    echo "clippy: 0 passed, 1 failed (the examples' and benches' build above)"; echo "$CLIPPY_HINT"
  fi
  bash scripts/dev/toy-kind.sh 2>&1 || true
  if [ -f scripts/dev/test-wasm.sh ]; then
    TUNELAB_WASM_THREADS=0 TUNELAB_CHROMIUM_TMP_CLEANUP=0 bash scripts/dev/test-wasm.sh 2>&1 \
      || echo "wasm: 0 passed, 1 failed (scripts/dev/test-wasm.sh)"
    if CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
      cargo clippy -p tunelab-wasm --target wasm32-unknown-unknown --all-targets --release -- -D warnings 2>&1 \
      | grep -Ev '^\s*(Checking|Compiling)'; then
      echo "clippy (wasm32): 1 passed, 0 failed"
    else
      echo "clippy (wasm32): 0 passed, 1 failed (cargo clippy -p tunelab-wasm --target wasm32-unknown-unknown --all-targets --release -- -D warnings)"
    fi
  fi
) </dev/null >"$BESIDE_LOG" 2>&1 &
BESIDE_PID=$!
bash scripts/dev/test-python.sh test 2>&1 | tee -a "$LOG" || true
BESIDE_W0=$(date +%s.%N)
wait "$BESIDE_PID" || true
BESIDE_PID=""
echo "[python] waited $(elapsed "$BESIDE_W0") s after pytest for the doc tests, examples, toy kind and wasm binding tests:"
grep -Ev '^\s*(Compiling|Checking|Downloaded|Downloading)' "$BESIDE_LOG" | tee -a "$LOG"
# Nothing reads the native build directory after this (the CLI is copied above). target/release,
# target/wasm32-unknown-unknown/release and target-threads/ stay: the browser section links the page from them.
drop target/debug target/wheels

section "page: typecheck www/ (tsc, JSDoc types)"
npm run typecheck --silent 2>&1 | tee -a "$LOG"

# The docs (book build and link check; scripts/dev/docs.sh). A failure is counted, not fatal.
if [ -f scripts/dev/docs.sh ]; then
  section "docs: scripts/dev/docs.sh"
  bash scripts/dev/docs.sh 2>&1 | tee -a "$LOG" || echo "docs: 0 passed, 1 failed (scripts/dev/docs.sh)" | tee -a "$LOG"
fi

# Every generated table of the docs against the committed raw report it comes from (no experiment re-runs; under
# a second): scripts/reproduce/doc_tables.py --check regenerates each block and fails naming the ones that differ;
# --self-test checks that a changed digit in a generated table and in a quoted figure is caught.
section "docs-consistency: generated tables against their committed raw reports (scripts/reproduce/doc_tables.py)"
if python3 scripts/reproduce/doc_tables.py --check 2>&1 | tee -a "$LOG" &&
  python3 scripts/reproduce/doc_tables.py --self-test 2>&1 | tee -a "$LOG"; then
  echo "doc tables: 1 passed, 0 failed" | tee -a "$LOG"
else
  echo "doc tables: 0 passed, 1 failed (python3 scripts/reproduce/doc_tables.py --check)" | tee -a "$LOG"
fi

if [ -d tests/e2e ]; then
  # The wasm page once (scripts/dev/build-wasm.sh skips a flavour whose inputs did not change, and links the
  # release builds the wasm section's tests made); the tests serve the repository itself (dist.test.mjs builds
  # its own dist/ copy), so no `npm run build` / second build here. A failing test is counted, not fatal.
  # The same run holds the other engines' suites (tests/e2e/firefox.test.mjs: firefox-esr over WebDriver BiDi;
  # tests/e2e/webkit.test.mjs: WebKitGTK under Xvfb) and the axe-core suite (tests/e2e/a11y.test.mjs); their
  # counts are node's, in the closing line like the rest.
  section "browser: build the wasm page, end-to-end tests in Chromium, Firefox ESR and WebKitGTK, axe-core"
  # The threaded page from the background job (started after the format check, at the foreground's priority
  # since the python section); then build-wasm.sh finds both flavours up to date, or builds what that job could
  # not (its log is printed).
  THREADS_W0=$(date +%s.%N)
  while [ ! -f "$THREADS_END" ] && kill -0 "$BG_PID" 2>/dev/null; do sleep 2; done
  echo "[browser] waited $(elapsed "$THREADS_W0") s for the threaded page's background build (exit $(cat "$THREADS_END" 2>/dev/null || echo '?'))" | tee -a "$LOG"
  grep -Ev '^\s*(Compiling|Downloaded|Downloading)' "$THREADS_LOG" | tee -a "$LOG"
  bash scripts/dev/build-wasm.sh 2>&1 | tee -a "$LOG"
  # One test file at a time. Two at a time (5ccfb73) failed two tests whose page-side steps raced a loaded machine
  # (a Stop that landed after a small comparison had finished; a click on the lesson's arm picker while the
  # lesson's status line moved it; both tests now wait for the state they act on). With one at a time the section
  # took 667 s for 0f68244, and the tests leave a quarter to a third of the two cores idle (vmstat: 26% and 35% idle
  # in two runs), yet with a lint build beside them (620a549, nice 19) the section took 922 s against 667 s.
  node --test --test-concurrency=1 tests/e2e/ 2>&1 | tee -a "$LOG" || true
fi

section "background: the soak (after cargo test); waiting for it"
BG_WAIT_T0=$(date +%s.%N)
[ -z "${BG_PID:-}" ] || wait "$BG_PID" || true
BG_PID=""
[ -z "${SOAK_PID:-}" ] || wait "$SOAK_PID" || true
SOAK_PID=""
cat "$SOAK_LOG" | tee -a "$LOG"
grep -Eq '^test result: ' "$SOAK_LOG" || echo "soak: 0 passed, 1 failed (no result line)" | tee -a "$LOG"
echo "[background] waited $(elapsed "$BG_WAIT_T0") s at the end for the soak"

comm -13 "$CHROMIUM_TMP_BEFORE" <(ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort) | xargs -r rm -rf

# One closing line over every runner: cargo's "N passed; M failed", wasm-bindgen-test's and node's counts.
passed=$(grep -Eo '[0-9]+ passed' "$LOG" | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed' "$LOG" | awk '{s+=$1} END {print s+0}')
node_pass=$(grep -Eo '^# pass [0-9]+' "$LOG" | awk '{s+=$3} END {print s+0}')
node_fail=$(grep -Eo '^# fail [0-9]+' "$LOG" | awk '{s+=$3} END {print s+0}')
times_table
echo
echo "tunelab: $((passed + node_pass)) passed, $((failed + node_fail)) failed"
[ $((failed + node_fail)) -eq 0 ]
