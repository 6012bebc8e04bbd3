//! Seeded random streams. Every random function in tunelab takes an RNG argument; one independent
//! stream is derived per arm / chain / repeat from `(seed, id)` so that results do not depend on the
//! number of threads or on scheduling.

use rand::SeedableRng;
pub use rand_chacha::ChaCha8Rng;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod chacha_simd128;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use chacha_simd128::ChaCha8Simd128;

/// The RNG type used throughout tunelab: `rand_chacha::ChaCha8Rng`, and in wasm with simd128 (both wasm builds,
/// scripts/dev/build-wasm.sh) [`ChaCha8Simd128`], the same stream bit for bit computed four blocks per v128 pass
/// (rand_chacha has no wasm SIMD backend; docs/benchmarks.md).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub type Rng = ChaCha8Rng;
/// The RNG type used throughout tunelab: `rand_chacha::ChaCha8Rng`, and in wasm with simd128 (both wasm builds,
/// scripts/dev/build-wasm.sh) [`ChaCha8Simd128`], the same stream bit for bit computed four blocks per v128 pass
/// (rand_chacha has no wasm SIMD backend; docs/benchmarks.md).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub type Rng = ChaCha8Simd128;

/// The independent stream number `id` of the generator seeded by `seed`.
///
/// ChaCha streams with the same key and different stream ids are independent by construction.
pub fn stream(seed: u64, id: u64) -> Rng {
    let mut r = Rng::seed_from_u64(seed);
    r.set_stream(id);
    r
}

/// Sub-stream `sub` of stream `(seed, id)`: for nested uses (e.g. repeat `r` of arm `a`).
pub fn substream(seed: u64, id: u64, sub: u64) -> Rng {
    // SplitMix64-style mixing of (seed, sub) into a new key, stream id kept.
    let mut z = seed ^ sub.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    stream(z, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, 1);
                move |_| r.random()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, 1);
                move |_| r.random()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = stream(7, 2);
                move |_| r.random()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let d: Vec<u64> = (0..4)
            .map({
                let mut r = substream(7, 1, 3);
                move |_| r.random()
            })
            .collect();
        assert_ne!(a, d);
    }
}
