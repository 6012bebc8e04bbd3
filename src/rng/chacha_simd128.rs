//! ChaCha8 for `wasm32` + `simd128`: the same output stream as `rand_chacha::ChaCha8Rng` (rand_chacha 0.10),
//! bit for bit, four blocks at a time in `v128` registers. In wasm, rand_chacha's SIMD library
//! (ppv-lite86) has no backend and runs scalar code (1M `next_u32`: 12.7 ms in node against 1.7 ms native,
//! docs/benchmarks.md).
//!
//! ChaCha (Bernstein 2008, "ChaCha, a variant of Salsa20") with 8 rounds = 4 double rounds; the quarter round is
//! RFC 7539 section 2.1. The 16-word state follows rand_chacha's layout (src/chacha.rs, src/guts.rs):
//!
//! ```text
//! constant  constant  constant  constant      words  0..3  "expand 32-byte k"
//! seed      seed      seed      seed          words  4..7  seed bytes 0..16, little-endian
//! seed      seed      seed      seed          words  8..11 seed bytes 16..32
//! counter   counter   stream    stream        words 12..15 64-bit block counter (lo, hi), 64-bit stream (lo, hi)
//! ```
//!
//! and rand_core's `BlockRng` buffering: a 64-word buffer = 4 blocks (counters c..c+3, 64-bit wrapping, no carry
//! into the stream words), refilled when empty; `next_u64` = lo | hi << 32 across a refill, `fill_bytes` drops the
//! unused bytes of its last word; `set_word_pos` / `set_stream` / `get_word_pos` as in rand_chacha.
//! The tests (crates/wasm/tests/wasm/rng_simd128.rs) compare every output with `rand_chacha::ChaCha8Rng`.

use core::arch::wasm32::*;
use core::convert::Infallible;
use core::fmt;
use rand::{SeedableRng, TryCryptoRng, TryRng};

/// Words in the buffer: rand_chacha's `BUF_BLOCKS` (4) blocks of `BLOCK_WORDS` (16).
const BUF: usize = 64;
/// Blocks per refill.
const BUF_BLOCKS: u64 = 4;
/// Words per ChaCha block.
const BLOCK_WORDS: u128 = 16;
/// ChaCha8: 8 rounds = 4 double rounds (a column round and a diagonal round each).
const DOUBLE_ROUNDS: usize = 4;
/// "expand 32-byte k" (Bernstein 2008; RFC 7539 section 2.3).
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// ChaCha8 with rand_chacha's `ChaCha8Rng` stream, four blocks per refill in simd128.
#[derive(Clone)]
pub struct ChaCha8Simd128 {
    /// State words 4..11 (the seed, little-endian).
    key: [u32; 8],
    /// Block counter of the next block to generate (state words 12, 13).
    ctr: u64,
    /// Stream id (state words 14, 15).
    stream: u64,
    /// Output of the last refill: block `ctr - 4` in words 0..16, ..., block `ctr - 1` in words 48..64.
    buf: [u32; BUF],
    /// Next word to read from `buf`; `BUF` = empty (BlockRng's index: 1..=64 once used).
    index: usize,
}

/// Rotate each 32-bit lane left by 16: a byte shuffle (b2 b3 b0 b1 per little-endian word).
#[inline(always)]
fn rotl16(v: v128) -> v128 {
    i8x16_shuffle::<2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13>(v, v)
}
/// Rotate each 32-bit lane left by 8: a byte shuffle (b3 b0 b1 b2 per little-endian word).
#[inline(always)]
fn rotl8(v: v128) -> v128 {
    i8x16_shuffle::<3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14>(v, v)
}
/// Rotate each 32-bit lane left by `N` (12 and 7: not byte multiples) with two shifts.
#[inline(always)]
fn rotl<const N: u32>(v: v128) -> v128 {
    v128_or(i32x4_shl(v, N), u32x4_shr(v, 32 - N))
}

/// The quarter round of RFC 7539 section 2.1 on state words a, b, c, d, one lane per block.
macro_rules! qr {
    ($x:ident, $a:literal, $b:literal, $c:literal, $d:literal) => {
        $x[$a] = i32x4_add($x[$a], $x[$b]);
        $x[$d] = rotl16(v128_xor($x[$d], $x[$a]));
        $x[$c] = i32x4_add($x[$c], $x[$d]);
        $x[$b] = rotl::<12>(v128_xor($x[$b], $x[$c]));
        $x[$a] = i32x4_add($x[$a], $x[$b]);
        $x[$d] = rotl8(v128_xor($x[$d], $x[$a]));
        $x[$c] = i32x4_add($x[$c], $x[$d]);
        $x[$b] = rotl::<7>(v128_xor($x[$b], $x[$c]));
    };
}

/// Transpose four vectors of words i..i+3 (lane j = block j) and store block j's words at `out[16 j + i..]`.
#[inline(always)]
fn store4(out: &mut [u32; BUF], i: usize, a: v128, b: v128, c: v128, d: v128) {
    let t0 = i32x4_shuffle::<0, 4, 1, 5>(a, b); // a0 b0 a1 b1
    let t1 = i32x4_shuffle::<2, 6, 3, 7>(a, b); // a2 b2 a3 b3
    let t2 = i32x4_shuffle::<0, 4, 1, 5>(c, d); // c0 d0 c1 d1
    let t3 = i32x4_shuffle::<2, 6, 3, 7>(c, d); // c2 d2 c3 d3
    let rows = [
        i64x2_shuffle::<0, 2>(t0, t2), // block 0: a0 b0 c0 d0
        i64x2_shuffle::<1, 3>(t0, t2), // block 1
        i64x2_shuffle::<0, 2>(t1, t3), // block 2
        i64x2_shuffle::<1, 3>(t1, t3), // block 3
    ];
    for (j, r) in rows.into_iter().enumerate() {
        let dst: &mut [u32] = &mut out[16 * j + i..16 * j + i + 4];
        // SAFETY: `dst` is 4 in-bounds u32 = 16 bytes; wasm's v128.store allows any alignment.
        unsafe { v128_store(dst.as_mut_ptr() as *mut v128, r) }
    }
}

/// Blocks `ctr..ctr+4` (64-bit wrapping counters, as rand_chacha's `d0123`) of stream `stream` into `out`,
/// block after block, each in state-word order: what rand_chacha's `refill_wide` writes.
#[inline(never)]
fn refill4(key: &[u32; 8], ctr: u64, stream: u64, out: &mut [u32; BUF]) {
    let c = [ctr, ctr.wrapping_add(1), ctr.wrapping_add(2), ctr.wrapping_add(3)];
    let init: [v128; 16] = [
        u32x4_splat(SIGMA[0]),
        u32x4_splat(SIGMA[1]),
        u32x4_splat(SIGMA[2]),
        u32x4_splat(SIGMA[3]),
        u32x4_splat(key[0]),
        u32x4_splat(key[1]),
        u32x4_splat(key[2]),
        u32x4_splat(key[3]),
        u32x4_splat(key[4]),
        u32x4_splat(key[5]),
        u32x4_splat(key[6]),
        u32x4_splat(key[7]),
        u32x4(c[0] as u32, c[1] as u32, c[2] as u32, c[3] as u32),
        u32x4((c[0] >> 32) as u32, (c[1] >> 32) as u32, (c[2] >> 32) as u32, (c[3] >> 32) as u32),
        u32x4_splat(stream as u32),
        u32x4_splat((stream >> 32) as u32),
    ];
    let mut x = init;
    for _ in 0..DOUBLE_ROUNDS {
        // Column round, then diagonal round (Bernstein 2008; RFC 7539 section 2.3).
        qr!(x, 0, 4, 8, 12);
        qr!(x, 1, 5, 9, 13);
        qr!(x, 2, 6, 10, 14);
        qr!(x, 3, 7, 11, 15);
        qr!(x, 0, 5, 10, 15);
        qr!(x, 1, 6, 11, 12);
        qr!(x, 2, 7, 8, 13);
        qr!(x, 3, 4, 9, 14);
    }
    // Add the input state (Bernstein 2008; RFC 7539 section 2.3).
    for (xi, ii) in x.iter_mut().zip(init) {
        *xi = i32x4_add(*xi, ii);
    }
    store4(out, 0, x[0], x[1], x[2], x[3]);
    store4(out, 4, x[4], x[5], x[6], x[7]);
    store4(out, 8, x[8], x[9], x[10], x[11]);
    store4(out, 12, x[12], x[13], x[14], x[15]);
}

impl ChaCha8Simd128 {
    /// rand_chacha's `generate`: four blocks from the counter, counter += 4.
    #[inline]
    fn generate(&mut self) {
        refill4(&self.key, self.ctr, self.stream, &mut self.buf);
        self.ctr = self.ctr.wrapping_add(BUF_BLOCKS);
    }

    /// BlockRng's `word_offset`: 0 when the buffer is empty.
    #[inline]
    fn word_offset(&self) -> usize {
        if self.index >= BUF {
            0
        } else {
            self.index
        }
    }

    /// Offset from the start of the stream in 32-bit words (rand_chacha's `get_word_pos`).
    pub fn get_word_pos(&self) -> u128 {
        let mut block = self.ctr;
        if self.word_offset() != 0 {
            block = block.wrapping_sub(BUF_BLOCKS);
        }
        u128::from(block) * BLOCK_WORDS + self.word_offset() as u128
    }

    /// Seek to a word offset (rand_chacha's `set_word_pos`: the upper 60 bits of the 68-bit offset are ignored).
    pub fn set_word_pos(&mut self, word_offset: u128) {
        self.ctr = (word_offset / BLOCK_WORDS) as u64;
        // BlockRng::reset_and_skip
        let n = (word_offset % BLOCK_WORDS) as usize;
        if n == 0 {
            self.index = BUF;
        } else {
            self.generate();
            self.index = n;
        }
    }

    /// Set the stream id (rand_chacha's `set_stream`: a partly read buffer is regenerated at the same word
    /// position in the new stream).
    pub fn set_stream(&mut self, stream: u64) {
        self.stream = stream;
        if self.word_offset() != 0 {
            let wp = self.get_word_pos();
            self.set_word_pos(wp);
        }
    }

    /// The stream id.
    pub fn get_stream(&self) -> u64 {
        self.stream
    }

    /// The seed.
    pub fn get_seed(&self) -> [u8; 32] {
        let mut s = [0u8; 32];
        for (chunk, k) in s.chunks_exact_mut(4).zip(self.key) {
            chunk.copy_from_slice(&k.to_le_bytes());
        }
        s
    }
}

impl SeedableRng for ChaCha8Simd128 {
    type Seed = [u8; 32];

    /// Counter and stream 0, empty buffer (rand_chacha's `from_seed`; `seed_from_u64` is rand_core's default,
    /// as for `ChaCha8Rng`).
    fn from_seed(seed: [u8; 32]) -> Self {
        let mut key = [0u32; 8];
        for (k, chunk) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        ChaCha8Simd128 { key, ctr: 0, stream: 0, buf: [0; BUF], index: BUF }
    }
}

impl TryRng for ChaCha8Simd128 {
    type Error = Infallible;

    /// BlockRng::next_word.
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        if self.index >= BUF {
            self.generate();
            self.index = 0;
        }
        let v = self.buf[self.index];
        self.index += 1;
        Ok(v)
    }

    /// BlockRng::next_u64_from_u32: two consecutive words, low first, across a refill.
    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let i = self.index;
        let (lo, hi);
        if i < BUF - 1 {
            lo = self.buf[i];
            hi = self.buf[i + 1];
            self.index = i + 2;
        } else if i == BUF - 1 {
            lo = self.buf[BUF - 1];
            self.generate();
            hi = self.buf[0];
            self.index = 1;
        } else {
            self.generate();
            lo = self.buf[0];
            hi = self.buf[1];
            self.index = 2;
        }
        Ok((u64::from(hi) << 32) | u64::from(lo))
    }

    /// BlockRng::fill_bytes: little-endian words; the rest of a partly used last word is dropped.
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
        let mut read = 0;
        while read < dest.len() {
            if self.index >= BUF {
                self.generate();
                self.index = 0;
            }
            let words = &self.buf[self.index..];
            let mut chunks = dest[read..].chunks_exact_mut(4);
            let mut n = 0;
            for (chunk, w) in chunks.by_ref().zip(words) {
                chunk.copy_from_slice(&w.to_le_bytes());
                n += 1;
            }
            self.index += n;
            read += 4 * n;
            if self.index < BUF {
                let rest = chunks.into_remainder();
                if !rest.is_empty() {
                    let k = rest.len();
                    rest.copy_from_slice(&self.buf[self.index].to_le_bytes()[..k]);
                    self.index += 1;
                }
                break;
            }
        }
        Ok(())
    }
}

impl TryCryptoRng for ChaCha8Simd128 {}

/// Equal when every later output is equal (seed, stream and word position), as `ChaCha8Rng`'s `PartialEq`.
impl PartialEq for ChaCha8Simd128 {
    fn eq(&self, rhs: &Self) -> bool {
        self.key == rhs.key && self.stream == rhs.stream && self.get_word_pos() == rhs.get_word_pos()
    }
}
impl Eq for ChaCha8Simd128 {}

/// Does not show the state, as rand_chacha's.
impl fmt::Debug for ChaCha8Simd128 {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("ChaCha8Simd128 { .. }")
    }
}
