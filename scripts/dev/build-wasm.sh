#!/usr/bin/env bash
# Builds the two WebAssembly flavours of tunelab for the page:
#   pkg/           single-threaded (stable Rust)            -> used when the page is not cross-origin isolated
#   pkg-parallel/  rayon thread pool (nightly + build-std)  -> used when crossOriginIsolated is true
# Usage: scripts/dev/build-wasm.sh [single|parallel|all] (default all). Set FORCE=1 to rebuild anyway, KEEP_NAMES=1
# to keep the function names (the wasm `name` section) for profiling (with FORCE=1 when the pkg is up to date).
# Skips a flavour whose inputs (src/, crates/wasm/, Cargo.*, wasm-threads.toml, this script) did not change since
# its last build. The binding crate is crates/wasm (package tunelab-wasm); the module keeps the name `tunelab`.
set -euo pipefail
cd "$(dirname "$0")/../.."
export RUSTUP_AUTO_INSTALL=0
NIGHTLY=nightly-2026-05-20
WHICH="${1:-all}"
TARGET_SINGLE="${CARGO_TARGET_DIR:-target}"
TARGET_THREADS="${TUNELAB_THREADS_TARGET_DIR:-target-threads}"
# The single-threaded build's flags; scripts/dev/test-wasm.sh builds its tests with the same ones.
SIMD_RUSTFLAGS="-C target-feature=+simd128"

log() { printf '\033[1;32m[build-wasm]\033[0m %s\n' "$*" >&2; }

inputs_hash() {
  { find src crates/wasm/src -type f -print0 | sort -z | xargs -0 sha256sum; sha256sum Cargo.toml crates/wasm/Cargo.toml Cargo.lock wasm-threads.toml scripts/dev/build-wasm.sh; } \
    | sha256sum | cut -d' ' -f1
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
  # Debian bookworm's binaryen (108) predates wasm-bindgen's externref table and breaks it
  # ("WebAssembly.Table.set(): Argument 1 is invalid"): use wasm-opt only from version 116 on.
  local wo_ver=0
  command -v wasm-opt >/dev/null 2>&1 && wo_ver=$(wasm-opt --version | grep -oE '[0-9]+' | head -1)
  if [ "$wo_ver" -ge 116 ]; then
    local feats=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int --enable-sign-ext --enable-reference-types --enable-multivalue)
    [ "$out" = pkg-parallel ] && feats+=(--enable-threads)
    wasm-opt -Oz "${feats[@]}" "$out.tmp/tunelab_bg.wasm" -o "$out.tmp/tunelab_bg.opt.wasm"
    mv "$out.tmp/tunelab_bg.opt.wasm" "$out.tmp/tunelab_bg.wasm"
  else
    log "wasm-opt missing or older than 116 (found: ${wo_ver}): skipping size optimisation"
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
