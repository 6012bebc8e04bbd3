#!/usr/bin/env bash
# Microbenchmarks behind docs/benchmarks.md ("Where the wasm/native ratio goes", issue 26): thread CPU time (not wall
# time: the 2-core machine is shared), min and median of REPS calls, natively and in node's V8 (WebAssembly with
# simd128). Each crate here is its own workspace with a copy of the measured loop:
#   ksd-tiles/  the KSD coordinate sums of src/stein/ksd.rs (n = 1,000, d = 10, the `ksd-tiles` part's loop) in
#               several blockings; `chk` is the bits of a checksum over every tile (equal = same sums, same order).
#               native: the portable variants built for SSE2 (x86-64 baseline) and with +avx2 (the AVX2 path).
#   chacha/     1,000,000 draws of rand_chacha's ChaCha8Rng: v0 `random_range(i % 100..10000)` (the `rng-range`
#               part), v1 `next_u32`, v2 the same range reduction on a xorshift (no ChaCha); in wasm also v3, v4 =
#               v0, v1 with tunelab's ChaCha8Simd128 (src/rng/chacha_simd128.rs; equal checksums = equal draws).
# RELAXED=1 also builds ksd-tiles with +relaxed-simd and runs variants 37 (unfused) and 22 (f64x2_relaxed_madd).
# Usage: scripts/dev/wasm-microbench/run.sh [reps] (default 41). Builds with CARGO_BUILD_JOBS=1 into target/wasm-microbench.
set -euo pipefail
cd "$(dirname "$0")"
REPS="${1:-41}"
T="$(cd ../../.. && pwd)/target/wasm-microbench"
b() { CARGO_BUILD_JOBS=1 nice -n 10 cargo build -q --release "$@"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
(cd ksd-tiles
 b --target-dir "$T/kb-sse2"
 RUSTFLAGS="-C target-feature=+avx2" b --target-dir "$T/kb-avx2"
 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" b --lib --target wasm32-unknown-unknown --target-dir "$T/kb-simd128"
 echo "== ksd-tiles, native SSE2"; "$T/kb-sse2/release/kbn" "$REPS" 0,1,7,8
 echo "== ksd-tiles, native AVX2"; "$T/kb-avx2/release/kbn" "$REPS" 0,1,7,8
 echo "== ksd-tiles, wasm simd128 (node)"; node run.mjs "$T/kb-simd128/wasm32-unknown-unknown/release/kb.wasm" "$REPS" 0,1,2,3,7,8,10,11,12,13,17,30,31,32,34
 if [ -n "${RELAXED:-}" ]; then
   CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" b --lib --target wasm32-unknown-unknown --target-dir "$T/kb-relaxed"
   echo "== ksd-tiles, wasm simd128 + relaxed-simd (node --experimental-wasm-relaxed-simd)"
   node --experimental-wasm-relaxed-simd run.mjs "$T/kb-relaxed/wasm32-unknown-unknown/release/kb.wasm" "$REPS" 37,22
 fi)
(cd chacha
 b --target-dir "$T/chacha"
 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" b --lib --target wasm32-unknown-unknown --target-dir "$T/chacha"
 echo "== chacha, native"; "$T/chacha/release/rbn"
 echo "== chacha, wasm simd128 (node)"; node run.mjs "$T/chacha/wasm32-unknown-unknown/release/rb.wasm")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
