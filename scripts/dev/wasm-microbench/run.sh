#!/usr/bin/env bash
# Microbenchmarks behind docs/benchmarks.md ("Where the wasm/native ratio goes"): thread CPU time (not wall
# time: the 2-core machine is shared), min and median of REPS calls, natively and in node's V8 (WebAssembly with
# simd128). The crate here is its own workspace (the KSD loop is measured on the core itself: the `ksd-tiles`
# and `ksd-kernel` parts of src/benchkit.rs, `npm run bench`):
#   chacha/     1,000,000 draws of rand_chacha's ChaCha8Rng: v0 `random_range(i % 100..10000)` (the `rng-range`
#               part), v1 `next_u32`, v2 the same range reduction on a xorshift (no ChaCha); in wasm also v3, v4 =
#               v0, v1 with tunelab's ChaCha8Simd128 (src/rng/chacha_simd128.rs; equal checksums = equal draws).
# Usage: scripts/dev/wasm-microbench/run.sh [reps] (default 41). Builds with CARGO_BUILD_JOBS=1 into target/wasm-microbench.
set -euo pipefail
cd "$(dirname "$0")"
REPS="${1:-41}"
T="$(cd ../../.. && pwd)/target/wasm-microbench"
b() { CARGO_BUILD_JOBS=1 nice -n 10 cargo build -q --release "$@"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
(cd chacha
 b --target-dir "$T/chacha"
 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" b --lib --target wasm32-unknown-unknown --target-dir "$T/chacha"
 echo "== chacha, native"; "$T/chacha/release/rbn"
 echo "== chacha, wasm simd128 (node)"; node run.mjs "$T/chacha/wasm32-unknown-unknown/release/rb.wasm")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
