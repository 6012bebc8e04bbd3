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

/// Where a stream is: its key, stream id and word position. A run's checkpoint saves every RNG as this, and
/// [`RngState::restore`] continues the stream at the next word it would have drawn, bit for bit (the same on
/// `ChaCha8Rng` and on the wasm SIMD generator, whose positions agree).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RngState {
    /// The 256-bit key, as 64 hex digits.
    pub key: String,
    pub stream: u64,
    /// Position in 32-bit words: (high, low) 64-bit halves of the 68-bit counter.
    pub word_pos: [u64; 2],
}

impl RngState {
    pub fn of(r: &Rng) -> Self {
        let pos = r.get_word_pos();
        RngState {
            key: r.get_seed().iter().map(|b| format!("{b:02x}")).collect(),
            stream: r.get_stream(),
            word_pos: [(pos >> 64) as u64, pos as u64],
        }
    }

    /// The generator at this position; an error if the key is not 64 hex digits.
    pub fn restore(&self) -> crate::Result<Rng> {
        let bad = || crate::Error::config("a saved RNG key must be 64 hex digits");
        if self.key.len() != 64 || !self.key.is_ascii() {
            return Err(bad());
        }
        let mut key = [0u8; 32];
        for (i, b) in key.iter_mut().enumerate() {
            *b = u8::from_str_radix(&self.key[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        let mut r = Rng::from_seed(key);
        r.set_stream(self.stream);
        r.set_word_pos(((self.word_pos[0] as u128) << 64) | self.word_pos[1] as u128);
        Ok(r)
    }
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

    #[test]
    fn a_saved_stream_continues_where_it_stopped() {
        let mut r = substream(11, 5, 2);
        // An odd number of u32 draws leaves the position inside a block.
        let _: Vec<u32> = (0..37).map(|_| r.random()).collect();
        let saved = RngState::of(&r);
        let mut back = saved.restore().unwrap();
        let a: Vec<u64> = (0..20).map(|_| r.random()).collect();
        let b: Vec<u64> = (0..20).map(|_| back.random()).collect();
        assert_eq!(a, b);
        assert!(RngState { key: "zz".into(), ..saved }.restore().is_err());
    }
}
