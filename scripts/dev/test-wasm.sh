#!/usr/bin/env bash
# Browser tests of the WebAssembly binding layer, for both builds, in headless Debian Chromium.
#   single-threaded: wasm-pack test --headless --chrome --release (crates/wasm/tests/wasm.rs, wasm_tuners.rs)
#   threaded:        nightly + build-std + wasm-threads.toml, wasm-bindgen-test-runner (crates/wasm/tests/wasm_threads.rs)
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0
NIGHTLY=nightly-2026-05-20
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# Chromedriver leaves profile folders behind: remove the ones this script creates.
before=$(mktemp); ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort > "$before" || true
cleanup() { comm -13 "$before" <(ls -d /tmp/org.chromium.Chromium.* 2>/dev/null | sort) | xargs -r rm -rf; rm -f "$before"; }
trap cleanup EXIT

# Both test builds are release builds with the page's flags (the single one: +simd128, scripts/dev/build-wasm.sh):
# the bindings are tested as shipped, and build-wasm.sh after this only links (one compile per flavour, not two).
echo "== wasm tests, single-threaded build (wasm-pack test --headless --chrome --release, +simd128)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
  wasm-pack test --headless --chrome --release crates/wasm --test wasm --test wasm_tuners

echo "== wasm tests, threaded build ($NIGHTLY, build-std, rayon pool)"
CARGO_TARGET_DIR="${TUNELAB_THREADS_TARGET_DIR:-target-threads}" \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo "+$NIGHTLY" test -p tunelab-wasm --release --target wasm32-unknown-unknown --features threads \
    --config wasm-threads.toml --test wasm_threads
