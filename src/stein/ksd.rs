//! Kernel Stein discrepancy (KSD) with the IMQ kernel and the Langevin Stein operator.
//!
//! Stein kernel (Liu, Lee & Jordan 2016, eq. 8; Gorham & Mackey 2017, eq. 2), with `s = grad log p`:
//! `k0(x,y) = s(x).s(y) k + s(x).grad_y k + s(y).grad_x k + tr(grad_x grad_y k)`, which for
//! `k = (c^2 + r^2)^beta`, `u = x - y`, `r^2 = |u|^2`, `q = c^2 + r^2` is
//! `k0 = s(x).s(y) q^b - 2b (s(x) - s(y)).u q^(b-1) - 2bd q^(b-1) - 4b(b-1) r^2 q^(b-2)`
//! (the same five terms as SGMCMCJax's `k_0_fun`, jeremiecoullon/SGMCMCJax `sgmcmcjax/ksd.py`, and
//! stein-thinning's `vfk0_imq` with a unit preconditioner, wilson-ye-chen/stein_thinning
//! `stein_thinning/kernel.py`).
//!
//! Estimators of `KSD^2 = E_{x,y~q} k0(x,y)`:
//! - V-statistic `(1/n^2) sum_{i,j} k0(x_i,x_j)` (what both references return, as its square root),
//! - U-statistic `(1/(n(n-1))) sum_{i != j} k0(x_i,x_j)` (Liu et al. 2016, eq. 14), unbiased,
//! - linear-time `(1/m) sum_{i<m} k0(x_{2i}, x_{2i+1})`, `m = floor(n/2)` (Liu et al. 2016, Sec. 4.1).
//!
//! Implementation: O(n d) memory (no n x n matrix). The samples and scores are stored transposed
//! (`d x n`, zero padded) so pair sums run over contiguous columns; each parallel task handles a fixed
//! panel of 32 rows against all later columns (symmetry: `sum_{i != j} = 2 sum_{i<j}`), 4 rows x 4 columns
//! at a time natively (wasm with simd128: 2 rows x 2 columns, explicit intrinsics) with the partial sums
//! (`|u|^2`, `(s_i - s_j).u`, `s_i.s_j`) held in registers over the coordinates, then the kernel terms are
//! evaluated for a tile of 64 columns in a vectorised pass (one division and one square root per pair for
//! beta = -1/2; `powf` otherwise). Differences `x_i - x_j` are formed directly (no `|x|^2 + |y|^2 - 2 x.y`
//! expansion), so there is no cancellation. Panel sums are combined in panel order and every sum inside a panel has a fixed
//! order, so the result is bitwise identical for any number of threads. On x86-64 CPUs with AVX2 the
//! same kernel is compiled for 4-wide vectors; no build fuses multiply-adds (WebAssembly has no FMA), so
//! native and wasm builds give the same bits.

use super::imq::{check_c_beta, median_pairwise_distance, KernelScale};
use crate::error::{Error, Result};
use crate::math::powf;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Which estimator of `KSD^2` to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// V-statistic (all pairs, diagonal included): always >= 0, biased upward by `E k0(x,x) / n`.
    V,
    /// U-statistic (pairs `i != j`): unbiased, can be negative.
    U,
    /// Linear-time estimate from disjoint consecutive pairs: unbiased, O(n d) time, noisier.
    Linear,
}

/// Options of [`ksd`].
///
/// `Default` is `c = 1`, `beta = -1/2`, `scale = MedianPrecond`, `estimator = U`, chosen by evidence
/// (`tests/core/numerics/stein.rs`: `kernel_scale_evidence`, `stuck_chain_trap`). On a Gaussian posterior with
/// std 0.02-0.04 in d = 10 (the setting of `examples/kernel_scale.rs`, which checks it on the paper-logreg posterior), 10 seeds:
/// - exact draws vs draws 20% too wide, n = 500: `Fixed` c = 1 does not separate them (ranges overlap,
///   z = 1.3; U: z = -0.4); `Median` V (z = 7.3), `MedianPrecond` V (z = 13.8) and `MedianPrecond` U
///   (z = 8.4) put every wide set above every exact one (`Median` U: z = 4.8, ranges overlap);
/// - a stuck chain (spread 2% of the posterior's) vs exact draws: with c = 1 the stuck chain scores
///   *below* every exact set at n = 50 and 200 (V and U); `MedianPrecond` V is fooled at n = 50 (its
///   diagonal term gives exact draws a floor of about `(d + d/c^2)/n`); `MedianPrecond` U and `Median`
///   rank every stuck chain above every exact set.
///
/// `MedianPrecond` + U passes both and is also unbiased, so arms with different sample counts are
/// compared fairly. Its value can be negative (use `ksd_sq`, or the signed `ksd`, for ranking).
/// With `Median` or `MedianPrecond`, `c` multiplies the heuristic length (keep 1).
/// Use [`KsdOptions::reference`] to reproduce SGMCMCJax / stein-thinning exactly.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct KsdOptions {
    /// IMQ kernel constant c (with a median scale: the factor on the heuristic length).
    pub c: f64,
    /// IMQ kernel exponent beta in (-1, 0).
    pub beta: f64,
    /// How the samples are scaled (`fixed`, `median`, `median-precond`).
    pub scale: KernelScale,
    /// The estimator: `v`, `u` or `linear`.
    pub estimator: Estimator,
}

impl Default for KsdOptions {
    fn default() -> Self {
        Self { c: 1.0, beta: -0.5, scale: KernelScale::MedianPrecond, estimator: Estimator::U }
    }
}

impl KsdOptions {
    /// The plain reference definition: fixed `c`, `beta`, V-statistic (SGMCMCJax `imq_KSD` with c = 1,
    /// beta = -1/2; stein-thinning `ksd` with a unit preconditioner).
    pub fn reference(c: f64, beta: f64) -> Self {
        Self { c, beta, scale: KernelScale::Fixed, estimator: Estimator::V }
    }

    /// Checks `c > 0` and `beta` in (-1, 0).
    pub fn validate(&self) -> Result<()> {
        check_c_beta(self.c, self.beta)
    }
}

/// Result of [`ksd`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KsdValue {
    /// `sign(ksd_sq) * sqrt(|ksd_sq|)`: the usual KSD for the V-statistic; for the U- and linear
    /// estimates (which can be negative) a signed root that keeps their order.
    pub ksd: f64,
    /// The estimate of `KSD^2`.
    pub ksd_sq: f64,
    pub n: usize,
    pub d: usize,
    /// The IMQ scale actually used (after the median heuristic; in standardised units for
    /// `MedianPrecond`).
    pub c: f64,
}

/// Checks shapes and finiteness of a sample matrix and its scores; returns `n`.
pub(crate) fn check_samples_scores(samples: &[f64], scores: &[f64], d: usize, min_n: usize) -> Result<usize> {
    if d == 0 {
        return Err(Error::config("dimension d must be at least 1"));
    }
    if !samples.len().is_multiple_of(d) {
        return Err(Error::data(format!(
            "samples have {} values, not a multiple of the dimension d = {d}",
            samples.len()
        )));
    }
    if scores.len() != samples.len() {
        return Err(Error::data(format!(
            "scores have {} values but samples have {} (one score vector per sample is needed)",
            scores.len(),
            samples.len()
        )));
    }
    let n = samples.len() / d;
    if n < min_n {
        return Err(Error::data(format!("at least {min_n} samples are needed, got {n}")));
    }
    for (name, m) in [("samples", samples), ("scores", scores)] {
        if let Some(p) = m.iter().position(|v| !v.is_finite()) {
            return Err(Error::data(format!(
                "{name}: non-finite value {} at row {}, column {}",
                m[p],
                p / d + 1,
                p % d + 1
            )));
        }
    }
    Ok(n)
}

/// KSD of samples of `target` scored with full-data gradients (computed in parallel by
/// [`crate::model::full_scores`]).
pub fn ksd_target(target: &dyn crate::model::Target, samples: &[f64], opts: &KsdOptions) -> Result<KsdValue> {
    let d = target.dim();
    check_samples_scores(samples, samples, d, 2)?;
    let scores = crate::model::full_scores(target, samples);
    ksd(samples, &scores, d, opts)
}

/// [`ksd_target`] as a score: the KSD of `samples` with full-data scores, `None` when there are fewer than
/// two rows, a sample is not finite, or the KSD cannot be computed or is not finite (the bandit's SG-MCMC
/// problems use this for every run, window and reference draw).
pub fn ksd_target_value(target: &dyn crate::model::Target, samples: &[f64], opts: &KsdOptions) -> Option<f64> {
    if samples.len() < 2 * target.dim() || samples.iter().any(|v| !v.is_finite()) {
        return None;
    }
    ksd_target(target, samples, opts).ok().map(|v| v.ksd).filter(|k| k.is_finite())
}

/// Kernel Stein discrepancy of `samples` (n x d row-major) with scores `grad log p` at the samples
/// (same shape), IMQ kernel, estimator and scaling from `opts`. O(n d) memory, O(n^2 d) time (O(n d)
/// for `Linear`), parallel over row panels with a thread-count-independent result.
pub fn ksd(samples: &[f64], scores: &[f64], d: usize, opts: &KsdOptions) -> Result<KsdValue> {
    opts.validate()?;
    let n = check_samples_scores(samples, scores, d, 2)?;
    let prep = prepare(samples, scores, n, d, opts)?;
    let (x, s) = match &prep.standardised {
        Some((z, sz)) => (z.as_slice(), sz.as_slice()),
        None => (samples, scores),
    };
    let c = prep.c;
    let c2 = c * c;
    let beta = opts.beta;
    let mut ksd_sq = match opts.estimator {
        Estimator::Linear => {
            let m = n / 2;
            let mut acc = 0.0;
            for i in 0..m {
                let (a, b) = (2 * i, 2 * i + 1);
                acc += k0_pair(
                    &x[a * d..a * d + d],
                    &x[b * d..b * d + d],
                    &s[a * d..a * d + d],
                    &s[b * d..b * d + d],
                    c2,
                    beta,
                );
            }
            acc / m as f64
        }
        Estimator::V | Estimator::U if d >= super::gram::GRAM_MIN_DIM => {
            // Large d (the MNIST network): three GEMMs instead of the pair loop (`super::gram`).
            let (off, diag) = super::gram::pair_sums(x, s, n, d, c2, beta);
            match opts.estimator {
                Estimator::U => 2.0 * off / (n as f64 * (n - 1) as f64),
                _ => (2.0 * off + diag) / (n as f64 * n as f64),
            }
        }
        Estimator::V | Estimator::U => {
            let off = offdiag_sum(x, s, n, d, c2, beta);
            match opts.estimator {
                Estimator::U => 2.0 * off / (n as f64 * (n - 1) as f64),
                _ => {
                    let diag = diag_sum(s, n, d, c2, beta);
                    (2.0 * off + diag) / (n as f64 * n as f64)
                }
            }
        }
    };
    if opts.scale != KernelScale::Fixed {
        // (1 + r^2/c^2)^beta = c^(-2 beta) (c^2 + r^2)^beta: unit kernel at r = 0 whatever c is.
        ksd_sq *= powf(c2, -beta);
    }
    if !ksd_sq.is_finite() {
        return Err(Error::numerical(format!("KSD is not finite ({ksd_sq}); are the scores very large?")));
    }
    Ok(KsdValue { ksd: ksd_sq.signum() * ksd_sq.abs().sqrt(), ksd_sq, n, d, c })
}

/// The kernel scale and, for `MedianPrecond`, the standardised samples and scores.
struct Prepared {
    standardised: Option<(Vec<f64>, Vec<f64>)>,
    c: f64,
}

fn prepare(samples: &[f64], scores: &[f64], n: usize, d: usize, opts: &KsdOptions) -> Result<Prepared> {
    let median = |x: &[f64]| {
        let med = median_pairwise_distance(x, n, d);
        if med > 0.0 {
            Ok(opts.c * med)
        } else {
            Err(Error::numerical("all samples coincide (zero median pairwise distance): the kernel scale is undefined"))
        }
    };
    match opts.scale {
        KernelScale::Fixed => Ok(Prepared { standardised: None, c: opts.c }),
        KernelScale::Median => Ok(Prepared { standardised: None, c: median(samples)? }),
        KernelScale::MedianPrecond => {
            let mut mean = vec![0.0; d];
            for row in samples.chunks_exact(d) {
                for (m, v) in mean.iter_mut().zip(row) {
                    *m += v;
                }
            }
            mean.iter_mut().for_each(|m| *m /= n as f64);
            let mut var = vec![0.0; d];
            for row in samples.chunks_exact(d) {
                for k in 0..d {
                    let t = row[k] - mean[k];
                    var[k] += t * t;
                }
            }
            let mut sd = vec![0.0; d];
            for k in 0..d {
                sd[k] = (var[k] / (n - 1) as f64).sqrt();
                if sd[k].is_nan() || sd[k] <= 0.0 {
                    return Err(Error::numerical(format!(
                        "coordinate {} of the samples does not vary: the preconditioner is undefined",
                        k + 1
                    )));
                }
            }
            let mut z = Vec::with_capacity(n * d);
            let mut sz = Vec::with_capacity(n * d);
            for (row, srow) in samples.chunks_exact(d).zip(scores.chunks_exact(d)) {
                for k in 0..d {
                    z.push((row[k] - mean[k]) / sd[k]);
                    // chain rule: grad_z log p(mean + sd * z) = sd * grad_x log p(x)
                    sz.push(srow[k] * sd[k]);
                }
            }
            let c = median(&z)?;
            Ok(Prepared { standardised: Some((z, sz)), c })
        }
    }
}

/// The Langevin Stein kernel `k0(x, y)` for the IMQ kernel with `c2 = c^2` (scalar reference form,
/// used by the linear-time estimate).
pub(crate) fn k0_pair(x: &[f64], y: &[f64], sx: &[f64], sy: &[f64], c2: f64, beta: f64) -> f64 {
    let d = x.len();
    let (mut r2, mut t, mut ss) = (0.0, 0.0, 0.0);
    for k in 0..d {
        let u = x[k] - y[k];
        r2 += u * u;
        t += (sx[k] - sy[k]) * u;
        ss += sx[k] * sy[k];
    }
    k0_from(r2, t, ss, c2, beta, d as f64)
}

#[inline(always)]
fn k0_from(r2: f64, t: f64, ss: f64, c2: f64, beta: f64, d: f64) -> f64 {
    let q = c2 + r2;
    let rq = 1.0 / q;
    let kb = if beta == -0.5 { rq.sqrt() } else { powf(q, beta) };
    let b1 = kb * rq;
    let b2 = b1 * rq;
    let m2b = -2.0 * beta;
    ss * kb + m2b * t * b1 + m2b * d * b1 - 4.0 * beta * (beta - 1.0) * r2 * b2
}

/// `sum_i k0(x_i, x_i) = sum_i |s_i|^2 c^(2b) - 2bd c^(2(b-1))`.
fn diag_sum(s: &[f64], n: usize, d: usize, c2: f64, beta: f64) -> f64 {
    let kb = powf(c2, beta);
    let tr = -2.0 * beta * d as f64 * kb / c2;
    let mut acc = 0.0;
    for row in s.chunks_exact(d) {
        let mut ss = 0.0;
        for v in row {
            ss += v * v;
        }
        acc += ss * kb + tr;
    }
    debug_assert_eq!(s.len(), n * d);
    acc
}

/// Rows handled together (each loaded column is reused R times).
const R: usize = 4;
/// Columns per tile (fixed length so inner loops vectorise without remainder handling).
const CH: usize = 64;
/// Rows per parallel task; fixed, so the summation order does not depend on the thread count.
const PANEL: usize = 32;

/// Samples and scores transposed to `d x np` (zero padded columns).
struct Transposed {
    xt: Vec<f64>,
    st: Vec<f64>,
    np: usize,
}

fn transpose(x: &[f64], s: &[f64], n: usize, d: usize) -> Transposed {
    let np = n.div_ceil(CH) * CH + CH;
    let mut xt = vec![0.0; d * np];
    let mut st = vec![0.0; d * np];
    for i in 0..n {
        for k in 0..d {
            xt[k * np + i] = x[i * d + k];
            st[k * np + i] = s[i * d + k];
        }
    }
    Transposed { xt, st, np }
}

/// `sum_{i<j} k0(x_i, x_j)`.
fn offdiag_sum(x: &[f64], s: &[f64], n: usize, d: usize, c2: f64, beta: f64) -> f64 {
    let tr = transpose(x, s, n, d);
    let npanel = n.div_ceil(PANEL);
    let parts: Vec<f64> = (0..npanel)
        .into_par_iter()
        .map(|p| panel_sum(&tr, n, d, c2, beta, p * PANEL, ((p + 1) * PANEL).min(n)))
        .collect();
    parts.iter().sum()
}

fn panel_sum(tr: &Transposed, n: usize, d: usize, c2: f64, beta: f64, r0: usize, r1: usize) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if x86_has!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { panel_sum_avx2(tr, n, d, c2, beta, r0, r1) };
        }
    }
    panel_sum_impl(tr, n, d, c2, beta, r0, r1)
}

/// 4-wide vectors, the same arithmetic as everywhere else: no fused multiply-add, since WebAssembly has none
/// and a fused product rounds once where `a * b + c` rounds twice (native and wasm builds give the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn panel_sum_avx2(tr: &Transposed, n: usize, d: usize, c2: f64, beta: f64, r0: usize, r1: usize) -> f64 {
    panel_sum_impl(tr, n, d, c2, beta, r0, r1)
}

/// Pair sums of a tile: R rows x CH columns of `|u|^2`, `(s_i - s_j).u`, `s_i.s_j`.
struct Tile {
    r2: [[f64; CH]; R],
    t: [[f64; CH]; R],
    ss: [[f64; CH]; R],
    k0: [f64; CH],
}

#[inline(always)]
fn panel_sum_impl(tr: &Transposed, n: usize, d: usize, c2: f64, beta: f64, r0: usize, r1: usize) -> f64 {
    let mut tile = Tile { r2: [[0.0; CH]; R], t: [[0.0; CH]; R], ss: [[0.0; CH]; R], k0: [0.0; CH] };
    // coordinates of the current R rows, per coordinate k
    let mut xik = vec![[0.0; R]; d];
    let mut sik = vec![[0.0; R]; d];
    let np = tr.np;
    let df = d as f64;
    let mut total = 0.0;
    let mut ib = r0;
    while ib < r1 {
        let rows = (r1 - ib).min(R);
        // absolute row indices (missing rows repeat the first one and are not summed)
        let mut ri = [ib; R];
        for (r, v) in ri.iter_mut().enumerate().take(rows) {
            *v = ib + r;
        }
        for k in 0..d {
            for r in 0..R {
                xik[k][r] = tr.xt[k * np + ri[r]];
                sik[k][r] = tr.st[k * np + ri[r]];
            }
        }
        let mut j0 = ib + 1;
        while j0 < n {
            let len = (n - j0).min(CH);
            tile_sums(&mut tile, tr, d, j0, &xik, &sik);
            #[allow(clippy::needless_range_loop)]
            for r in 0..rows {
                let i = ri[r];
                let start = (i + 1).saturating_sub(j0);
                if start >= len {
                    continue;
                }
                let (r2, t, ss) = (&tile.r2[r], &tile.t[r], &tile.ss[r]);
                if beta == -0.5 {
                    for j in 0..CH {
                        let rq = 1.0 / (c2 + r2[j]);
                        let kb = rq.sqrt();
                        let b1 = kb * rq;
                        tile.k0[j] = ss[j] * kb + t[j] * b1 + df * b1 - 3.0 * r2[j] * (b1 * rq);
                    }
                } else {
                    let m2b = -2.0 * beta;
                    let c4 = -4.0 * beta * (beta - 1.0);
                    for j in 0..CH {
                        let q = c2 + r2[j];
                        let rq = 1.0 / q;
                        let kb = powf(q, beta);
                        let b1 = kb * rq;
                        tile.k0[j] = ss[j] * kb + m2b * t[j] * b1 + m2b * df * b1 + c4 * r2[j] * (b1 * rq);
                    }
                }
                total += sum4(&tile.k0[start..len]);
            }
            j0 += len;
        }
        ib += rows;
    }
    total
}

/// Lanes of the register block of the portable [`tile_sums`]: one AVX2 vector of f64 natively; two (one simd128
/// vector) in a WebAssembly build without simd128 (builds with simd128, the page's, use [`tile_sums_simd128`]).
/// Each pair's sums run over the coordinates in the same order whatever L is, so the result does not depend on it.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const L: usize = if cfg!(target_arch = "wasm32") { 2 } else { 4 };

/// Fills the tile for rows `xik/sik` against columns `j0..j0+CH`: for each group of L columns the
/// 3 x R x L sums stay in registers over the loop on coordinates and are stored once.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn tile_sums(tile: &mut Tile, tr: &Transposed, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    let np = tr.np;
    for g in 0..CH / L {
        let mut r2 = [[0.0; L]; R];
        let mut t = [[0.0; L]; R];
        let mut ss = [[0.0; L]; R];
        let c0 = j0 + g * L;
        for k in 0..d {
            let xj: &[f64; L] = tr.xt[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let sj: &[f64; L] = tr.st[k * np + c0..k * np + c0 + L].try_into().unwrap();
            let (xi, si) = (&xik[k], &sik[k]);
            for r in 0..R {
                for l in 0..L {
                    let u = xi[r] - xj[l];
                    r2[r][l] += u * u;
                    t[r][l] += (si[r] - sj[l]) * u;
                    ss[r][l] += si[r] * sj[l];
                }
            }
        }
        for r in 0..R {
            tile.r2[r][g * L..g * L + L].copy_from_slice(&r2[r]);
            tile.t[r][g * L..g * L + L].copy_from_slice(&t[r]);
            tile.ss[r][g * L..g * L + L].copy_from_slice(&ss[r]);
        }
    }
}

/// [`tile_sums`] with simd128 intrinsics (the page's builds): the same sums in the same order (each pair's three
/// sums over the coordinates `k = 0..d`, one rounding per `-`, `*` and `+`: no fused multiply-add), so the same
/// bits as the native build, but blocked for the WebAssembly engine: 2 rows x 1 vector of 2 columns at a time (6
/// accumulators, 12 live vectors at most, against 3 x 4 x 2 = 24 arrays of f64 in the portable code, which the
/// engine spilled), no bounds checks inside the coordinate loop (checked once above it). Measured on this loop
/// (n = 1,000, d = 10, the `ksd-tiles` part's loop, CPU time, node 20 / V8): 4.3 ms against 15.0 ms
/// for the portable code with L = 2 (11.9 ms with L = 4; 6.5 ms for coordinates-outer accumulation in the tile,
/// 6.7 ms for 2 rows x 2 vectors, 7.1-7.5 ms for 4 rows x 1 vector); native AVX2 (L = 4) 2.6 ms, native SSE2
/// (L = 2) 6.3 ms. See docs/benchmarks.md ("Where the wasm/native ratio goes").
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn tile_sums(tile: &mut Tile, tr: &Transposed, d: usize, j0: usize, xik: &[[f64; R]], sik: &[[f64; R]]) {
    simd128::tile_sums_simd128(tile, tr, d, j0, xik, sik)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// The two halves of the off-diagonal pair loop, apart, for the browser benchmark's "where the time goes"
/// (`crate::benchkit::part_ms`): `tiles` runs only the coordinate sums ([`tile_sums`]) of every tile the pair
/// loop visits; otherwise only the per-pair kernel (one division and one square root per pair, `beta = -1/2`) on
/// as many tiles. Single-threaded; returns a checksum (kept alive by the caller). Not part of the API.
#[doc(hidden)]
pub fn pair_loop_part(x: &[f64], s: &[f64], n: usize, d: usize, c2: f64, tiles: bool) -> f64 {
    let tr = transpose(x, s, n, d);
    // The same code generation as the pair loop (`panel_sum`): AVX2 where the CPU has it.
    #[cfg(target_arch = "x86_64")]
    {
        if x86_has!("avx2") {
            #[target_feature(enable = "avx2")]
            fn avx2(tr: &Transposed, n: usize, d: usize, c2: f64, tiles: bool) -> f64 {
                pair_loop_part_impl(tr, n, d, c2, tiles)
            }
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2(&tr, n, d, c2, tiles) };
        }
    }
    pair_loop_part_impl(&tr, n, d, c2, tiles)
}

#[inline(always)]
fn pair_loop_part_impl(tr: &Transposed, n: usize, d: usize, c2: f64, tiles: bool) -> f64 {
    let mut tile = Tile { r2: [[0.0; CH]; R], t: [[0.0; CH]; R], ss: [[0.0; CH]; R], k0: [0.0; CH] };
    let mut xik = vec![[0.0; R]; d];
    let mut sik = vec![[0.0; R]; d];
    // The k0 half runs on a tile of real sums (the first one).
    tile_sums(&mut tile, tr, d, 1, &xik, &sik);
    let df = d as f64;
    let mut total = 0.0;
    let mut ib = 0;
    while ib < n {
        let rows = (n - ib).min(R);
        for k in 0..d {
            for r in 0..R {
                xik[k][r] = tr.xt[k * tr.np + ib + r.min(rows - 1)];
                sik[k][r] = tr.st[k * tr.np + ib + r.min(rows - 1)];
            }
        }
        let mut j0 = ib + 1;
        while j0 < n {
            let len = (n - j0).min(CH);
            if tiles {
                tile_sums(&mut tile, tr, d, j0, &xik, &sik);
                total += tile.r2[0][0] + tile.t[R - 1][CH - 1];
            } else {
                for r in 0..rows {
                    let (r2, t, ss) = (&tile.r2[r], &tile.t[r], &tile.ss[r]);
                    for j in 0..CH {
                        let rq = 1.0 / (c2 + r2[j] + total * 1e-300);
                        let kb = rq.sqrt();
                        let b1 = kb * rq;
                        tile.k0[j] = ss[j] * kb + t[j] * b1 + df * b1 - 3.0 * r2[j] * (b1 * rq);
                    }
                    total += sum4(&tile.k0[..len]);
                }
            }
            j0 += len;
        }
        ib += rows;
    }
    total
}

/// Sum with four interleaved accumulators (vectorisable, fixed order).
#[inline(always)]
fn sum4(v: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let mut chunks = v.chunks_exact(4);
    for c in &mut chunks {
        acc[0] += c[0];
        acc[1] += c[1];
        acc[2] += c[2];
        acc[3] += c[3];
    }
    let mut tail = 0.0;
    for v in chunks.remainder() {
        tail += v;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}
