#!/usr/bin/env bash
# Builds the two WebAssembly flavours of tunelab for the page:
#   pkg/           single-threaded (stable Rust)            -> used when the page is not cross-origin isolated
#   pkg-parallel/  rayon thread pool (nightly + build-std)  -> used when crossOriginIsolated is true
# Usage: scripts/dev/build-wasm.sh [single|parallel|all] (default all). Set FORCE=1 to rebuild anyway, KEEP_NAMES=1
# to keep the function names (the wasm `name` section) for profiling (with FORCE=1 when the pkg is up to date),
# WASM_OPT=0 to leave out the wasm-opt pass (for measuring what it gains; docs/benchmarks.md).
# Skips a flavour whose inputs (src/, crates/wasm/, Cargo.*, wasm-threads.toml, this script) did not change since
# its last build. The binding crate is crates/wasm (package tunelab-wasm); the module keeps the name `tunelab`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0
# Built as shipped: without clippy's compiler wrapper (scripts/dev/test.sh sets it for the native builds), which
# compiles with MIR optimisations off for its lints and so makes a different wasm (3,593 against 3,540 KiB raw).
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
NIGHTLY=nightly-2026-05-20
WHICH="${1:-all}"
TARGET_SINGLE="${CARGO_TARGET_DIR:-target}"
TARGET_THREADS="${TUNELAB_THREADS_TARGET_DIR:-target-threads}"
# The single-threaded build's flags; scripts/dev/test-wasm.sh builds its tests with the same ones.
SIMD_RUSTFLAGS="-C target-feature=+simd128"

log() { printf '\033[1;32m[build-wasm]\033[0m %s\n' "$*" >&2; }

inputs_hash() {
  { find src crates/wasm/src -type f -print0 | sort -z | xargs -0 sha256sum; sha256sum Cargo.toml crates/wasm/Cargo.toml Cargo.lock wasm-threads.toml scripts/dev/build-wasm.sh; } \
    | sha256sum | cut -d' ' -f1 | sed "s/\$/-opt${WASM_OPT:-1}/"
}

finish() { # $1 = out dir, $2 = wasm from cargo
  local out=$1 wasm=$2
  rm -rf "$out.tmp" && mkdir -p "$out.tmp"
  # The `name` section (function names for stack traces and profiles: 331 / 967 KiB raw, 77-80 KiB gzip, 7% of
  # the download) is left out unless KEEP_NAMES=1 (for profiling the page with function names); a panic's message
  # reaches the page either way.
  local strip=(--remove-name-section --remove-producers-section)
  [ -n "${KEEP_NAMES:-}" ] && strip=()
  wasm-bindgen --target web --no-typescript "${strip[@]}" --out-dir "$out.tmp" --out-name tunelab "$wasm"
  # wasm-opt from the npm package `binaryen` (node_modules/.bin/wasm-opt: binaryen compiled to wasm, installed by
  # npm like any package, so every machine has the same version), else a system one from version 116 on (Debian
  # bookworm's binaryen 108 predates wasm-bindgen's externref table and breaks it: "WebAssembly.Table.set():
  # Argument 1 is invalid"). -O3, not -Oz: the page's work is numeric loops; -Oz and -Os saved only 0.2% more of
  # the gzip size than -O3 (docs/benchmarks.md "wasm-opt", sizes and speeds). The features are the ones rustc emits for
  # wasm32-unknown-unknown (plus simd128 and, for the threaded build, atomics); wasm-opt adds none of its own, and
  # none of its passes reorders floating-point arithmetic (no --fast-math), so reports keep their bits
  # (tests/e2e/determinism.test.mjs compares them with native ones).
  local wo="" wo_ver=0
  if [ "${WASM_OPT:-1}" != 0 ]; then
    if [ -x node_modules/.bin/wasm-opt ]; then wo=node_modules/.bin/wasm-opt
    elif command -v wasm-opt >/dev/null 2>&1; then
      wo_ver=$(wasm-opt --version | grep -oE '[0-9]+' | head -1)
      [ "$wo_ver" -ge 116 ] && wo=wasm-opt
    fi
  fi
  if [ -n "$wo" ]; then
    local feats=(--enable-bulk-memory --enable-bulk-memory-opt --enable-mutable-globals --enable-nontrapping-float-to-int
      --enable-sign-ext --enable-reference-types --enable-multivalue --enable-simd --enable-call-indirect-overlong)
    [ "$out" = pkg-parallel ] && feats+=(--enable-threads)
    local strip_opt=(--strip-debug --strip-producers)
    [ -n "${KEEP_NAMES:-}" ] && strip_opt=(--debuginfo)
    local before; before=$(stat -c %s "$out.tmp/tunelab_bg.wasm")
    "$wo" -O3 "${feats[@]}" "${strip_opt[@]}" "$out.tmp/tunelab_bg.wasm" -o "$out.tmp/tunelab_bg.opt.wasm"
    mv "$out.tmp/tunelab_bg.opt.wasm" "$out.tmp/tunelab_bg.wasm"
    log "wasm-opt -O3 ($("$wo" --version | head -1)): $((before / 1024)) -> $(($(stat -c %s "$out.tmp/tunelab_bg.wasm") / 1024)) KiB raw"
  elif [ "${WASM_OPT:-1}" = 0 ]; then
    log "WASM_OPT=0: no wasm-opt pass"
  else
    log "no wasm-opt (npm install puts binaryen's in node_modules/.bin; a system one is older than 116: ${wo_ver}): skipping the optimisation pass"
  fi
  rm -rf "$out" && mv "$out.tmp" "$out"
  local raw gz
  raw=$(stat -c %s "$out/tunelab_bg.wasm"); gz=$(gzip -9 -c "$out/tunelab_bg.wasm" | wc -c)
  log "$out/tunelab_bg.wasm: $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzip -9"
  if [ "$gz" -gt 1048576 ]; then log "WARNING: $out is over 1 MB compressed"; fi
}

build_single() {
  local h; h=$(inputs_hash)
  if [ -z "${FORCE:-}" ] && [ -f pkg/.inputs ] && [ "$(cat pkg/.inputs)" = "$h" ]; then log "pkg/ up to date"; return; fi
  log "building pkg/ (single-threaded, stable)"
  # 128-bit SIMD: supported wherever wasm threads are (Chrome 91+, Firefox 89+, Safari 16.4+); it vectorises
  # the KSD and gradient loops (measured 1.3-4x faster in Chromium here).
  # The same flags (SIMD_RUSTFLAGS) and release profile as the binding tests (scripts/dev/test-wasm.sh): after them
  # this is a link, not a second compile.
  CARGO_TARGET_DIR="$TARGET_SINGLE" CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$SIMD_RUSTFLAGS" \
    cargo build -p tunelab-wasm --lib --release --target wasm32-unknown-unknown
  finish pkg "$TARGET_SINGLE/wasm32-unknown-unknown/release/tunelab_wasm.wasm"
  echo "$h" > pkg/.inputs
}

build_parallel() {
  local h; h=$(inputs_hash)
  if [ -z "${FORCE:-}" ] && [ -f pkg-parallel/.inputs ] && [ "$(cat pkg-parallel/.inputs)" = "$h" ]; then log "pkg-parallel/ up to date"; return; fi
  log "building pkg-parallel/ (threads, $NIGHTLY + build-std)"
  CARGO_TARGET_DIR="$TARGET_THREADS" cargo "+$NIGHTLY" build -p tunelab-wasm --lib --release --target wasm32-unknown-unknown \
    --features threads --config wasm-threads.toml
  finish pkg-parallel "$TARGET_THREADS/wasm32-unknown-unknown/release/tunelab_wasm.wasm"
  echo "$h" > pkg-parallel/.inputs
}

case "$WHICH" in
  single) build_single ;;
  parallel) build_parallel ;;
  all) build_single; build_parallel ;;
  *) echo "usage: $0 [single|parallel|all]" >&2; exit 2 ;;
esac
