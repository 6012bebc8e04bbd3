//! The wasm RNG (`tunelab::rng::Rng` = `ChaCha8Simd128`, src/rng/chacha_simd128.rs) against
//! `rand_chacha::ChaCha8Rng`: every output equal, for many seeds and streams, every way of drawing (next_u32,
//! next_u64 across refills, fill_bytes of odd lengths, seeking, set_stream mid-buffer, rand's distributions), and
//! across the 32-bit and 64-bit block counter boundaries. Single-threaded build, +simd128 (scripts/dev/test-wasm.sh); part of the `wasm` test target.

use rand::seq::SliceRandom;
use rand::{Rng as _, RngExt, SeedableRng};
use rand_distr::{Distribution, Exp1, Gamma, StandardNormal};
use tunelab::rng::{ChaCha8Rng, ChaCha8Simd128};
use wasm_bindgen_test::*;

const SEEDS: [u64; 8] = [0, 1, 2, 7, 42, 0xDEAD_BEEF, 1 << 63, u64::MAX];
const STREAMS: [u64; 7] = [0, 1, 3, 1000, 1 << 32, (1 << 32) - 1, u64::MAX];

fn pair(seed: u64, stream: u64) -> (ChaCha8Simd128, ChaCha8Rng) {
    let mut a = ChaCha8Simd128::seed_from_u64(seed);
    let mut b = ChaCha8Rng::seed_from_u64(seed);
    a.set_stream(stream);
    b.set_stream(stream);
    (a, b)
}

/// Position, stream and seed agree.
fn same_state(a: &ChaCha8Simd128, b: &ChaCha8Rng, what: &str) {
    assert_eq!(a.get_word_pos(), b.get_word_pos(), "word pos, {what}");
    assert_eq!(a.get_stream(), b.get_stream(), "stream, {what}");
    assert_eq!(a.get_seed(), b.get_seed(), "seed, {what}");
}

#[wasm_bindgen_test]
fn tunelab_rng_is_the_simd128_chacha() {
    // The type the crate draws from in this build, and its stream constructors.
    let mut a: tunelab::rng::Rng = tunelab::rng::stream(5, 9);
    let (_, mut b) = pair(5, 9);
    for _ in 0..200 {
        assert_eq!(a.next_u32(), b.next_u32());
    }
    let mut a = tunelab::rng::substream(5, 9, 3);
    let mut z = 5u64 ^ 3u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let (_, mut b) = pair(z ^ (z >> 31), 9);
    for _ in 0..200 {
        assert_eq!(a.next_u64(), b.next_u64());
    }
}

#[wasm_bindgen_test]
fn next_u32_and_next_u64_sequences_are_rand_chachas() {
    for seed in SEEDS.into_iter().chain(100..140) {
        for stream in STREAMS {
            let (mut a, mut b) = pair(seed, stream);
            // 5 refills of 4 blocks.
            for i in 0..320 {
                assert_eq!(a.next_u32(), b.next_u32(), "seed {seed} stream {stream} word {i}");
            }
            // Odd word offsets: every next_u64 pair straddles the 64-word buffer once per refill.
            for skip in 0..3 {
                for _ in 0..skip {
                    assert_eq!(a.next_u32(), b.next_u32());
                }
                for i in 0..200 {
                    assert_eq!(a.next_u64(), b.next_u64(), "seed {seed} stream {stream} skip {skip} u64 {i}");
                }
                same_state(&a, &b, "after next_u64");
            }
        }
    }
}

#[wasm_bindgen_test]
fn fill_bytes_of_every_length_up_to_300_matches() {
    for seed in SEEDS {
        for stream in [0, 1, u64::MAX] {
            let (mut a, mut b) = pair(seed, stream);
            for len in 0..=300 {
                let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
                a.fill_bytes(&mut x);
                b.fill_bytes(&mut y);
                assert_eq!(x, y, "seed {seed} stream {stream} len {len}");
                same_state(&a, &b, "after fill_bytes");
                // A word after each fill: the dropped bytes of a partly used word are dropped in both.
                assert_eq!(a.next_u32(), b.next_u32());
            }
        }
    }
}

#[wasm_bindgen_test]
fn the_block_counter_carries_across_2_pow_32_and_wraps_at_2_pow_64() {
    let blocks: [u64; 6] = [(1 << 32) - 5, (1 << 32) - 1, 1 << 32, (1 << 33) - 3, u64::MAX - 6, u64::MAX];
    for seed in [0, 3, u64::MAX] {
        for stream in [0, 1 << 32, u64::MAX] {
            for block in blocks {
                for k in [0u128, 1, 5, 15] {
                    let (mut a, mut b) = pair(seed, stream);
                    let wp = u128::from(block) * 16 + k;
                    a.set_word_pos(wp);
                    b.set_word_pos(wp);
                    same_state(&a, &b, "after set_word_pos");
                    for i in 0..400 {
                        assert_eq!(a.next_u32(), b.next_u32(), "block {block} +{k} word {i}");
                    }
                    for i in 0..100 {
                        assert_eq!(a.next_u64(), b.next_u64(), "block {block} +{k} u64 {i}");
                    }
                    same_state(&a, &b, "after the counter boundary");
                }
            }
        }
    }
    // Word positions beyond 68 bits: the high bits are ignored by both.
    let (mut a, mut b) = pair(11, 2);
    let wp = (7u128 << 70) + (123 << 4) + 9;
    a.set_word_pos(wp);
    b.set_word_pos(wp);
    same_state(&a, &b, "68-bit wrap");
    for _ in 0..100 {
        assert_eq!(a.next_u32(), b.next_u32());
    }
}

/// A random mix of every operation, with `set_stream`, `set_word_pos` and `clone` mid-buffer; each output and
/// the word position compared after every step.
#[wasm_bindgen_test]
fn random_mixes_of_draws_seeks_and_stream_changes_match() {
    let mut z = 0x1234_5678_9ABC_DEF0u64;
    let mut next = move || {
        z ^= z << 13;
        z ^= z >> 7;
        z ^= z << 17;
        z
    };
    for case in 0..200 {
        let (mut a, mut b) = pair(next(), next() % 5);
        for step in 0..300 {
            let what = format!("case {case} step {step}");
            match next() % 10 {
                0..=2 => assert_eq!(a.next_u32(), b.next_u32(), "{what}"),
                3..=5 => assert_eq!(a.next_u64(), b.next_u64(), "{what}"),
                6 => {
                    let len = (next() % 150) as usize;
                    let (mut x, mut y) = (vec![0u8; len], vec![0u8; len]);
                    a.fill_bytes(&mut x);
                    b.fill_bytes(&mut y);
                    assert_eq!(x, y, "{what}");
                }
                7 => {
                    let s = next() % 4;
                    a.set_stream(s);
                    b.set_stream(s);
                }
                8 => {
                    // Near the current position or anywhere, including a 32-bit counter boundary.
                    let wp = match next() % 3 {
                        0 => a.get_word_pos() + u128::from(next() % 200),
                        1 => (u128::from(u32::MAX) << 4) + u128::from(next() % 100),
                        _ => u128::from(next()) << (next() % 6),
                    };
                    a.set_word_pos(wp);
                    b.set_word_pos(wp);
                }
                _ => {
                    let (mut a2, mut b2) = (a.clone(), b.clone());
                    for _ in 0..70 {
                        assert_eq!(a2.next_u32(), b2.next_u32(), "{what} clone");
                    }
                }
            }
            same_state(&a, &b, &what);
        }
    }
}

/// The draws tunelab makes (uniform floats, ranges, normals, shuffles) and a rejection sampler that consumes a
/// variable number of words.
#[wasm_bindgen_test]
fn rand_and_rand_distr_draws_match() {
    for seed in SEEDS {
        for stream in [0, 1, 17, u64::MAX] {
            let (mut a, mut b) = pair(seed, stream);
            for i in 0..2000u32 {
                assert_eq!(a.random::<f64>().to_bits(), b.random::<f64>().to_bits(), "f64 {i}");
                assert_eq!(a.random::<f32>().to_bits(), b.random::<f32>().to_bits(), "f32 {i}");
                assert_eq!(a.random::<bool>(), b.random::<bool>(), "bool {i}");
                let hi = 1 + (i as usize % 977);
                assert_eq!(a.random_range(0..hi), b.random_range(0..hi), "usize range {i}");
                assert_eq!(a.random_range(i..=u32::MAX), b.random_range(i..=u32::MAX), "u32 range {i}");
                assert_eq!(a.random_range(-1.5..2.5f64).to_bits(), b.random_range(-1.5..2.5f64).to_bits());
                let (x, y): (f64, f64) = (StandardNormal.sample(&mut a), StandardNormal.sample(&mut b));
                assert_eq!(x.to_bits(), y.to_bits(), "normal {i}");
                let (x, y): (f64, f64) = (Exp1.sample(&mut a), Exp1.sample(&mut b));
                assert_eq!(x.to_bits(), y.to_bits(), "exp {i}");
            }
            let g = Gamma::<f64>::new(0.7, 2.0).unwrap();
            for i in 0..500 {
                assert_eq!(g.sample(&mut a).to_bits(), g.sample(&mut b).to_bits(), "gamma {i}");
            }
            let (mut u, mut v): (Vec<u32>, Vec<u32>) = ((0..1000).collect(), (0..1000).collect());
            u.shuffle(&mut a);
            v.shuffle(&mut b);
            assert_eq!(u, v);
            let (p, q) = (rand::seq::index::sample(&mut a, 10_000, 100), rand::seq::index::sample(&mut b, 10_000, 100));
            assert_eq!(p.into_vec(), q.into_vec());
            same_state(&a, &b, "after the distributions");
        }
    }
}
