use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
// tunelab's simd128 ChaCha8 (src/rng/chacha_simd128.rs, rand_chacha's stream bit for bit), wasm only.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[path = "../../../../../src/rng/chacha_simd128.rs"]
#[allow(dead_code)]
mod chacha_simd128;
fn stream() -> ChaCha8Rng { let mut r = ChaCha8Rng::seed_from_u64(1); r.set_stream(0); r }
/// 0: 1e6 random_range draws (the rng-range part); 1: 1e6 next_u32 (block function + buffer); 2: 1e6 widening
/// range reductions on a cheap xorshift (the range sampling without ChaCha); wasm only: 3 and 4 = 0 and 1 with
/// tunelab's ChaCha8Simd128 (same checksums = same draws)
#[no_mangle]
pub extern "C" fn rb_run(v: u32) -> f64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if v == 3 || v == 4 {
        let mut rng = chacha_simd128::ChaCha8Simd128::seed_from_u64(1);
        rng.set_stream(0);
        return draws(&mut rng, v - 3);
    }
    draws(&mut stream(), v)
}
fn draws<R: Rng>(rng: &mut R, v: u32) -> f64 {
    let mut acc = 0u64;
    match v {
        0 => for i in 0..1_000_000u32 { acc = acc.wrapping_add(rng.random_range(i % 100..10_000u32) as u64); },
        1 => for _ in 0..1_000_000u32 { acc = acc.wrapping_add(rng.next_u32() as u64); },
        _ => { let mut z = 88172645463325252u64; for i in 0..1_000_000u32 {
            z ^= z << 13; z ^= z >> 7; z ^= z << 17;
            let lo = i % 100; let span = 10_000 - lo;
            acc = acc.wrapping_add((lo + (((z as u32) as u64 * span as u64) >> 32) as u32) as u64);
        } }
    }
    acc as f64
}
