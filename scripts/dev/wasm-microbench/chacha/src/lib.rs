use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
fn stream() -> ChaCha8Rng { let mut r = ChaCha8Rng::seed_from_u64(1); r.set_stream(0); r }
/// 0: 1e6 random_range draws (the rng-range part); 1: 1e6 next_u32 (block function + buffer); 2: 1e6 widening
/// range reductions on a cheap xorshift (the range sampling without ChaCha)
#[no_mangle]
pub extern "C" fn rb_run(v: u32) -> f64 {
    let mut rng = stream();
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
