//! What a run keeps of each arm's chain: memory bounded independently of the budget.
//!
//! Each arm's chain writes its thinned samples, as it makes them, into the arm's stores ([`ArmSink`]: each store
//! is a [`Sink`]), and no other copy of them is held:
//! - [`Moments`]: running mean and variance per coordinate (Welford), for the chosen arm's posterior summary;
//!   the same update, in the same order, as [`super::tuning::column_moments`] on all samples;
//! - [`RoundKeep`]: the samples of the current round that the score uses. With an iteration or gradient
//!   budget the number of samples a round will keep is known before it starts, so exactly the rows
//!   [`super::metric::thin_rows`] would select (at most `max_samples`) are kept and `scoring: "round"` gives
//!   the same scores as keeping every sample; with a seconds budget an evenly thinned [`StrideBuffer`];
//! - [`StrideBuffer`]: an evenly thinned buffer of the whole chain (every `stride`-th sample, the stride
//!   doubling whenever `2 K` rows are held, K = [`chain_cap`]: max(`max_samples`, 500) for `scoring: "chain"`,
//!   500 otherwise, fewer in a large model), for `scoring: "chain"` and the report's samples. Pruned arms
//!   drop it.
//!
//! Bound per arm: `d (2 K + 2 max_samples) + 2 d` floats. The `mnist-bnn` preset (d = 79,510, max_samples 50,
//! thin 10): K = 26, so 152 rows = 97 MB per arm, 1.35 GB for its 14 arms at once (the config's memory estimate,
//! [`super::TuneConfig::memory_estimate`], still counts a slice of `ceil(S / thin)` rows more, `S` =
//! [`sub_iters`]: the sampler's output buffer that the sink replaced).
//!
//! In a large model the report buffers of all arms share one cap, [`RUN_CHAIN_FLOATS`] (K <= that / (arms d)),
//! and a buffer's capacity never exceeds its `2 K` rows (it grows by exact reservations, not by doubling), so
//! the bound is in bytes whatever the arm count. The `pmf` preset (d = 52,500, 18 arms): K = 35 (39
//! per arm before the shared cap). See docs/mnist-bnn.md ("Memory").

use crate::sampler::Sink;

/// Iterations per call of the sampler inside a chunk (between two looks at the clock and the cancel flag; a
/// slice keeps at most `ceil(SUB_ITERS / thin)` rows).
pub const SUB_ITERS: u64 = 4096;
/// Floats one slice's kept rows may take in a large model ([`sub_iters`]), and the floats of the chain buffer
/// below which it keeps the report's 500 samples ([`chain_cap`]).
pub const SCRATCH_FLOATS: usize = 1 << 20;
/// Floats of one arm's report buffer (`K` rows of `d`) above which `K` shrinks towards `max_samples`.
pub const CHAIN_FLOATS: usize = 1 << 21;
/// Floats of the report buffers' `K` rows of all arms of a run together (256 MiB; the buffers hold at most
/// twice that): `K <= RUN_CHAIN_FLOATS / (arms d)`. Sized so that no preset other than the PMF ones changes
/// (`mnist-bnn`: 14 arms x 79,510, K = 26 from [`CHAIN_FLOATS`] already); `pmf`: 18 x 52,500, K = 35.
pub const RUN_CHAIN_FLOATS: usize = 1 << 25;

/// Iterations per sampler call for dimension `d` and thinning `thin`: [`SUB_ITERS`], fewer in a large model
/// (the MNIST network, d ~ 80,000) so that a slice keeps at most about [`SCRATCH_FLOATS`] floats (at least
/// one kept row). Slicing never changes the chain.
pub fn sub_iters(d: usize, thin: usize) -> u64 {
    let thin = thin.max(1) as u64;
    let rows = (SCRATCH_FLOATS / d.max(1)).max(1) as u64;
    SUB_ITERS.min(rows.saturating_mul(thin))
}

/// `K` of the chain buffer (it holds at most `2 K` rows):
/// `max(max_samples, min(report, CHAIN_FLOATS / d, RUN_CHAIN_FLOATS / (arms d)))`, at least 2, so the report's
/// samples shrink in a large model or a run with many arms but the score's `max_samples` are always kept (the
/// driver passes `max_samples = 0` when the score uses the round's samples only: the buffer then serves the
/// report).
pub fn chain_cap(d: usize, max_samples: usize, report: usize, arms: usize) -> usize {
    let d = d.max(1);
    max_samples.max(report.min(CHAIN_FLOATS / d).min(RUN_CHAIN_FLOATS / arms.max(1).saturating_mul(d)).max(2))
}

/// Running per-coordinate mean and sum of squared deviations (Welford 1962).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Moments {
    pub n: usize,
    #[serde(with = "crate::exact::floats")]
    pub mean: Vec<f64>,
    #[serde(with = "crate::exact::floats")]
    pub m2: Vec<f64>,
}

impl Moments {
    pub fn new(d: usize) -> Self {
        Self { n: 0, mean: vec![0.0; d], m2: vec![0.0; d] }
    }

    pub fn push(&mut self, row: &[f64]) {
        self.n += 1;
        let k = self.n as f64;
        for ((&x, mean), m2) in row.iter().zip(&mut self.mean).zip(&mut self.m2) {
            let delta = x - *mean;
            *mean += delta / k;
            *m2 += delta * (x - *mean);
        }
    }

    /// Sample standard deviations (n - 1 denominator; 0 for fewer than two samples).
    pub fn std(&self) -> Vec<f64> {
        self.m2.iter().map(|v| if self.n > 1 { (v / (self.n - 1) as f64).sqrt() } else { 0.0 }).collect()
    }

    pub fn floats(&self) -> usize {
        self.mean.len() + self.m2.len()
    }
}

impl Sink for Moments {
    fn push(&mut self, draw: &[f64]) {
        Moments::push(self, draw);
    }
}

/// Every `stride`-th row of a stream (rows 0, stride, 2 stride, ...), at most `2 cap` rows: when full, every
/// other row is dropped and the stride doubles.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct StrideBuffer {
    d: usize,
    cap: usize,
    stride: u64,
    seen: u64,
    #[serde(with = "crate::exact::reserved")]
    pub rows: Vec<f64>,
}

/// A copy with the same reserved capacity: the floats a store holds count its capacity (a run's
/// `kept_floats_max`), so a checkpoint's copy must grow exactly as the original.
impl Clone for StrideBuffer {
    fn clone(&self) -> Self {
        let mut rows = Vec::with_capacity(self.rows.capacity());
        rows.extend_from_slice(&self.rows);
        Self { d: self.d, cap: self.cap, stride: self.stride, seen: self.seen, rows }
    }
}

impl StrideBuffer {
    pub fn new(d: usize, cap: usize) -> Self {
        Self { d, cap: cap.max(1), stride: 1, seen: 0, rows: Vec::new() }
    }

    pub fn push(&mut self, row: &[f64]) {
        if self.seen.is_multiple_of(self.stride) {
            if self.rows.len() + self.d > self.rows.capacity() {
                // Grow by doubling but never past the `2 cap` rows the buffer can hold (a plain `extend` could
                // leave almost twice that reserved: 4 cap rows per arm).
                let full = 2 * self.cap * self.d;
                let want = (2 * self.rows.capacity()).max(self.d).min(full).max(self.rows.len() + self.d);
                self.rows.reserve_exact(want - self.rows.len());
            }
            self.rows.extend_from_slice(row);
            if self.rows.len() / self.d >= 2 * self.cap {
                let d = self.d;
                let n = self.rows.len() / d;
                let mut w = 0;
                for i in (0..n).step_by(2) {
                    self.rows.copy_within(i * d..(i + 1) * d, w * d);
                    w += 1;
                }
                self.rows.truncate(w * d);
                self.stride *= 2;
            }
        }
        self.seen += 1;
    }

    pub fn len(&self) -> usize {
        self.rows.len() / self.d
    }
    /// Floats reserved (at most `2 cap d`).
    pub fn floats(&self) -> usize {
        self.rows.capacity()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// Rows seen (kept or not).
    pub fn seen(&self) -> u64 {
        self.seen
    }
    /// True when this (saved) buffer holds rows of `d` floats and its counters are consistent.
    pub fn fits(&self, d: usize) -> bool {
        self.d == d && d > 0 && self.cap >= 1 && self.stride >= 1 && self.rows.len().is_multiple_of(d)
    }
    /// Frees the rows (the stream position is kept).
    pub fn clear(&mut self) {
        self.rows = Vec::new();
    }
}

impl Sink for StrideBuffer {
    fn push(&mut self, draw: &[f64]) {
        StrideBuffer::push(self, draw);
    }
}

/// The samples of one round that its score uses.
#[derive(Debug, Clone)]
pub enum RoundKeep {
    /// Exactly the rows `thin_rows(all rows, d, max)` keeps, for a round known to keep `n` rows.
    Exact { d: usize, n: usize, max: usize, next: usize, seen: usize, rows: Vec<f64> },
    /// The round's length is not known in advance (seconds budget): an evenly thinned buffer.
    Stride(StrideBuffer),
}

/// Row index of the `k`-th row `thin_rows` keeps out of `n` (when `n > max`).
fn thin_index(n: usize, max: usize, k: usize) -> usize {
    n - 1 - ((max - 1 - k) * n) / max
}

impl RoundKeep {
    /// A store for a round that keeps `n` rows (`None`: unknown) of which the score uses at most `max`.
    pub fn new(d: usize, n: Option<usize>, max: usize) -> Self {
        match n {
            Some(n) => RoundKeep::Exact { d, n, max, next: 0, seen: 0, rows: Vec::with_capacity(n.min(max) * d) },
            None => RoundKeep::Stride(StrideBuffer::new(d, max)),
        }
    }

    pub fn push(&mut self, row: &[f64]) {
        match self {
            RoundKeep::Exact { n, max, next, seen, rows, .. } => {
                let keep = if *n <= *max { *seen < *n } else { *next < *max && *seen == thin_index(*n, *max, *next) };
                if keep {
                    rows.extend_from_slice(row);
                    *next += 1;
                }
                *seen += 1;
            }
            RoundKeep::Stride(b) => b.push(row),
        }
    }

    /// Rows seen this round.
    pub fn seen(&self) -> usize {
        match self {
            RoundKeep::Exact { seen, .. } => *seen,
            RoundKeep::Stride(b) => b.seen() as usize,
        }
    }

    /// The kept rows, and whether the round kept exactly the predicted number of rows (always true for
    /// `Stride`).
    pub fn finish(self) -> (Vec<f64>, bool) {
        match self {
            RoundKeep::Exact { n, seen, rows, .. } => (rows, n == seen),
            RoundKeep::Stride(b) => (b.rows, true),
        }
    }

    pub fn floats(&self) -> usize {
        match self {
            RoundKeep::Exact { rows, .. } => rows.capacity(),
            RoundKeep::Stride(b) => b.floats(),
        }
    }
}

impl Sink for RoundKeep {
    fn push(&mut self, draw: &[f64]) {
        RoundKeep::push(self, draw);
    }
}

/// One arm's stores as the sink its chain writes into: every thinned sample goes, in chain order, to the
/// drill-down draws (indexed by the samples kept before it, `moments.n`), the running moments, the chain buffer
/// and the round's store. The stores stay the arm's own; this borrows them for one call of
/// [`crate::sampler::Chain::run`].
pub struct ArmSink<'a> {
    pub moments: &'a mut Moments,
    pub chain: &'a mut StrideBuffer,
    pub round: &'a mut RoundKeep,
    pub draws: Option<&'a mut DrawKeep>,
}

impl Sink for ArmSink<'_> {
    fn push(&mut self, draw: &[f64]) {
        if let Some(k) = self.draws.as_deref_mut() {
            k.push(self.moments.n, draw);
        }
        self.moments.push(draw);
        self.chain.push(draw);
        self.round.push(draw);
    }
}

impl ArmSink<'_> {
    /// Floats the stores hold (reserved).
    pub fn floats(&self) -> usize {
        self.moments.floats()
            + self.chain.floats()
            + self.round.floats()
            + self.draws.as_ref().map_or(0, |k| k.floats())
    }
}

/// The number of rows a round of the driver keeps for a chain at `(grad_evals, iters)` = `(g0, i0)`: the
/// driver's chunk goals (`CHUNKS` chunks, goal `round(budget * (c + 1) / CHUNKS)`) replayed with the sampler's
/// cost per iteration. `None` for a seconds budget.
pub fn round_rows(
    unit: super::config::BudgetUnit,
    budget: f64,
    chunks: usize,
    g0: u64,
    i0: u64,
    per_iter: u64,
    thin: u64,
) -> Option<usize> {
    use super::config::BudgetUnit;
    let per_iter = per_iter.max(1);
    let thin = thin.max(1);
    let mut it = i0;
    match unit {
        BudgetUnit::Seconds => return None,
        BudgetUnit::GradEvals => {
            let mut cur = g0;
            for c in 0..chunks {
                let goal = g0 + (budget * (c + 1) as f64 / chunks as f64).round() as u64;
                if goal > cur {
                    let k = (goal - cur).div_ceil(per_iter);
                    cur += k * per_iter;
                    it += k;
                }
            }
        }
        BudgetUnit::Iterations => {
            for c in 0..chunks {
                let goal = i0 + (budget * (c + 1) as f64 / chunks as f64).round() as u64;
                if goal > it {
                    it = goal;
                }
            }
        }
    }
    Some((it / thin - i0 / thin) as usize)
}

/// The display coordinates of the drill-down draws: theta_1 and theta_2 (theta_1 only when d = 1), the first
/// coordinates the page's posterior view shows (its trace menu opens on theta_1; the 2-D density is over both).
pub fn draw_coords(d: usize) -> Vec<usize> {
    (0..d.min(2)).collect()
}

/// An arm's drill-down view (the report's [`super::report::ArmDraws`]): the display coordinates of its last
/// round's samples, each with its index among the arm's thinned samples, in a [`StrideBuffer`] of rows
/// `(index, theta_1, theta_2)` with `K = arm_draws` (so at most `2 K` rows, `6 arm_draws` floats, whatever the
/// budget), reset when the arm starts a round, and evenly thinned to at most `arm_draws` rows by
/// [`super::metric::thin_rows`] for the report. Fed in chain order on the arm's own thread: the same for any
/// thread count.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DrawKeep {
    coords: Vec<usize>,
    max: usize,
    pub round: usize,
    buf: StrideBuffer,
}

impl DrawKeep {
    pub fn new(d: usize, max: usize, round: usize) -> Self {
        let coords = draw_coords(d);
        Self { buf: StrideBuffer::new(coords.len() + 1, max), coords, max, round }
    }

    /// Starts a new round (drops the previous round's draws).
    pub fn restart(&mut self, round: usize) {
        self.round = round;
        self.buf = StrideBuffer::new(self.coords.len() + 1, self.max);
    }

    /// One thinned sample of the chain, the `index`-th it kept.
    pub fn push(&mut self, index: usize, row: &[f64]) {
        let mut r = [index as f64, 0.0, 0.0];
        for (k, &j) in self.coords.iter().enumerate() {
            r[k + 1] = row[j];
        }
        self.buf.push(&r[..self.coords.len() + 1]);
    }

    pub fn floats(&self) -> usize {
        self.buf.floats()
    }

    /// True when this (saved) store was made for a chain of dimension `d` keeping `max` draws.
    pub fn fits(&self, d: usize, max: usize) -> bool {
        self.coords == draw_coords(d) && self.max == max && self.buf.fits(self.coords.len() + 1)
    }

    /// The report's view: at most `max` evenly spaced rows, those with a non-finite value left out.
    pub fn finish(&self) -> super::report::ArmDraws {
        let w = self.coords.len() + 1;
        let rows = super::metric::thin_rows(&self.buf.rows, w, self.max);
        let mut index = Vec::new();
        let mut values = Vec::new();
        for r in rows.chunks_exact(w).filter(|r| r[1..].iter().all(|v| v.is_finite())) {
            index.push(r[0] as u64);
            values.extend_from_slice(&r[1..]);
        }
        super::report::ArmDraws { coords: self.coords.clone(), round: self.round, index, values }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::sgmcmc::metric::thin_rows;

    #[test]
    fn exact_round_keep_equals_thin_rows() {
        for d in [1usize, 3] {
            for n in [0usize, 1, 2, 5, 7, 10, 11, 99, 100, 101, 1000, 1234] {
                for max in [2usize, 3, 10, 100, 1000] {
                    let all: Vec<f64> = (0..n * d).map(|v| v as f64).collect();
                    let mut k = RoundKeep::new(d, Some(n), max);
                    for row in all.chunks_exact(d) {
                        k.push(row);
                    }
                    let (rows, exact) = k.finish();
                    assert!(exact);
                    assert_eq!(rows, thin_rows(&all, d, max), "n = {n}, max = {max}, d = {d}");
                }
            }
        }
    }

    #[test]
    fn stride_buffer_is_even_and_bounded() {
        let mut b = StrideBuffer::new(2, 10);
        for i in 0..10_000u64 {
            b.push(&[i as f64, 0.0]);
            assert!(b.len() < 20);
            assert!(b.floats() <= 2 * 10 * 2, "capacity {} rows", b.floats() / 2);
        }
        assert!(b.len() >= 10);
        let firsts: Vec<f64> = b.rows.chunks_exact(2).map(|r| r[0]).collect();
        let step = firsts[1] - firsts[0];
        assert!(firsts.windows(2).all(|w| w[1] - w[0] == step), "evenly spaced: {firsts:?}");
        assert_eq!(firsts[0], 0.0);
    }

    #[test]
    fn draw_keep_is_bounded_and_indexed() {
        for n in [0usize, 1, 5, 150, 199, 200, 201, 10_000] {
            let mut k = DrawKeep::new(3, 100, 2);
            for i in 0..n {
                k.push(i + 7, &[i as f64, -(i as f64), 0.5]);
                assert!(k.floats() <= 6 * 100);
            }
            let v = k.finish();
            assert_eq!(v.coords, vec![0, 1]);
            assert_eq!(v.round, 2);
            assert_eq!(v.index.len(), n.min(100), "n = {n}");
            for (r, &ix) in v.values.chunks_exact(2).zip(&v.index) {
                assert_eq!(r, &[ix as f64 - 7.0, -(ix as f64 - 7.0)]);
            }
            assert!(v.index.windows(2).all(|w| w[0] < w[1]));
        }
        let mut one = DrawKeep::new(1, 10, 0);
        one.push(0, &[f64::NAN]);
        one.push(1, &[2.0]);
        let v = one.finish();
        assert_eq!((v.coords, v.index, v.values), (vec![0], vec![1], vec![2.0]));
    }

    #[test]
    fn arm_sink_stores_what_the_kept_rows_give() {
        // A chain writing into the arm's stores leaves them as the rows it keeps in a Vec would, fed in order.
        use crate::sampler::{BatchSize, Budget, Chain, SamplerKind, SamplerParams};
        let target = crate::model::Gaussian::isotropic(vec![0.5; 3], 1.0).unwrap();
        let params = SamplerParams::new(SamplerKind::Sgld, 0.05, BatchSize::Fraction(1.0)).validate(1).unwrap();
        let chain = || Chain::new(&target, params.clone(), vec![0.0; 3], None, crate::rng::stream(5, 1)).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let stores =
            || (Moments::new(3), StrideBuffer::new(3, 20), RoundKeep::new(3, Some(333), 50), DrawKeep::new(3, 10, 0));
        let mut all = Vec::new();
        chain().run(&target, Budget::Iterations(1000), 3, &mut all, &stop);
        let (mut m, mut c, mut r, mut k) = stores();
        for row in all.chunks_exact(3) {
            k.push(m.n, row);
            m.push(row);
            c.push(row);
            r.push(row);
        }
        let (mut m2, mut c2, mut r2, mut k2) = stores();
        let mut sink = ArmSink { moments: &mut m2, chain: &mut c2, round: &mut r2, draws: Some(&mut k2) };
        let st = chain().run(&target, Budget::Iterations(1000), 3, &mut sink, &stop);
        assert!(sink.floats() >= 3 * (20 + 50) + 6);
        assert_eq!((st.kept, all.len()), (333, 999));
        assert_eq!((m2.n, &m2.mean, &m2.m2), (m.n, &m.mean, &m.m2));
        assert_eq!((c2.seen(), &c2.rows), (c.seen(), &c.rows));
        assert_eq!(r2.finish(), r.finish());
        assert_eq!(k2.finish(), k.finish());
        assert!(k.finish().index.len() == 10 && m.mean.iter().all(|v| v.is_finite()));
    }

    #[test]
    fn moments_match_column_moments() {
        let x: Vec<f64> = (0..300).map(|v| ((v * 37) % 101) as f64 * 0.01).collect();
        let mut m = Moments::new(3);
        for row in x.chunks_exact(3) {
            m.push(row);
        }
        let (mean, std) = crate::experiments::sgmcmc::tuning::column_moments(&x, 3);
        assert_eq!(m.mean, mean);
        assert_eq!(m.std(), std);
    }
}
