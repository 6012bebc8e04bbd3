#!/usr/bin/env bash
# Browser tests of the WebAssembly binding layer, for both builds, in headless Debian Chromium.
#   single-threaded: wasm-pack test --headless --chrome --release (crates/wasm/tests/wasm.rs, one test target
#                    with wasm/tuners.rs and wasm/rng_simd128.rs as modules: one release link, not three)
#   threaded:        nightly + build-std + wasm-threads.toml, wasm-bindgen-test-runner (crates/wasm/tests/wasm_threads.rs)
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0
# Built as shipped: without clippy's compiler wrapper (scripts/dev/test.sh sets it for the native builds), which
# compiles with MIR optimisations off for its lints and so makes a different wasm (3,593 against 3,540 KiB raw).
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
NIGHTLY=nightly-2026-05-20
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# Chromedriver leaves profile folders behind: remove the ones that appeared while this script ran. Not when
# TUNELAB_CHROMIUM_TMP_CLEANUP=0: scripts/dev/test.sh runs this beside pytest, whose Chromium (JupyterLab) makes
# folders of the same name at the same time, and removes what the whole run left once every browser is closed.
if [ "${TUNELAB_CHROMIUM_TMP_CLEANUP:-1}" != 0 ]; then
  before=$(mktemp); ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort > "$before" || true
  cleanup() { comm -13 "$before" <(ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort) | xargs -r rm -rf; rm -f "$before"; }
  trap cleanup EXIT
fi

# Both test builds are release builds with the page's flags (the single one: +simd128, scripts/dev/build-wasm.sh):
# the bindings are tested as shipped, and build-wasm.sh after this only links (one compile per flavour, not two).
echo "== wasm tests, single-threaded build (wasm-pack test --headless --chrome --release, +simd128)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
  wasm-pack test --headless --chrome --release crates/wasm --test wasm

# The threaded binding tests need their own compile of everything: cargo's build-std builds a test std (with the
# `test` crate) that the page's build cannot reuse (measured from a fresh clone: every crate compiled twice, 3.5 min
# each). The test command (scripts/dev/test.sh, TUNELAB_WASM_THREADS=0) therefore tests the threaded build as
# shipped, in the browser tests: tests/e2e/runtime.test.mjs and coi.test.mjs (the pool starts, two threads take
# jobs), determinism.test.mjs (threaded reports equal native ones). `npm run test:wasm` still runs these.
if [ "${TUNELAB_WASM_THREADS:-1}" = 0 ]; then
  echo "== wasm tests, threaded build: left to the browser tests of pkg-parallel/ (TUNELAB_WASM_THREADS=0)"
  exit 0
fi
echo "== wasm tests, threaded build ($NIGHTLY, build-std, rayon pool)"
CARGO_TARGET_DIR="${TUNELAB_THREADS_TARGET_DIR:-target-threads}" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo "+$NIGHTLY" test -p tunelab-wasm --release --target wasm32-unknown-unknown --features threads \
    --config wasm-threads.toml --test wasm_threads
