//! Finite-set Stein discrepancy (FSSD; Jitkrittum, Xu, Szabo, Fukumizu & Gretton 2017, "A linear-time
//! kernel goodness-of-fit test").
//!
//! With test locations `v_1..v_J` and `xi(x, v) = k(x, v) grad log p(x) + grad_x k(x, v)` (their eq. 2),
//! the feature of a sample is `tau(x) = (xi(x, v_1), ..., xi(x, v_J)) / sqrt(dJ)` and
//! `FSSD^2 = |E tau(x)|^2` (their eq. 3). Estimates from `n` samples: the V-statistic
//! `|(1/n) sum_i tau_i|^2` and the U-statistic `(1/(n(n-1))) sum_{i != j} tau_i . tau_j` (their eq. 4).
//! Both cost O(n J d) time and O(J d) memory.

use crate::error::{Error, Result};
use crate::math::{exp, powf};
use crate::stein::imq::check_c_beta;
use crate::stein::ksd::check_samples_scores;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

mod opt;
pub use opt::*;

/// Kernel of the FSSD features.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FssdKernel {
    /// `k(x, v) = exp(-|x - v|^2 / (2 sigma2))`.
    Gauss { sigma2: f64 },
    /// `k(x, v) = (c^2 + |x - v|^2)^beta`, `beta` in (-1, 0).
    Imq { c: f64, beta: f64 },
}

impl FssdKernel {
    /// Checks the kernel parameters.
    pub fn validate(&self) -> Result<()> {
        match *self {
            FssdKernel::Gauss { sigma2 } => {
                if !(sigma2 > 0.0 && sigma2.is_finite()) {
                    return Err(Error::config(format!(
                        "Gaussian kernel width sigma2 must be a positive finite number, got {sigma2}"
                    )));
                }
                Ok(())
            }
            FssdKernel::Imq { c, beta } => check_c_beta(c, beta),
        }
    }

    /// Writes `xi(x, v)` into `out` (length d).
    #[inline]
    fn xi(&self, x: &[f64], s: &[f64], v: &[f64], out: &mut [f64]) {
        let d = x.len();
        let mut r2 = 0.0;
        for k in 0..d {
            let u = x[k] - v[k];
            r2 += u * u;
        }
        match *self {
            FssdKernel::Gauss { sigma2 } => {
                let kv = exp(-r2 / (2.0 * sigma2));
                for k in 0..d {
                    out[k] = kv * (s[k] - (x[k] - v[k]) / sigma2);
                }
            }
            FssdKernel::Imq { c, beta } => {
                let q = c * c + r2;
                let kb = powf(q, beta);
                let g = 2.0 * beta * kb / q;
                for k in 0..d {
                    out[k] = kb * s[k] + g * (x[k] - v[k]);
                }
            }
        }
    }

    /// `out += J^T w` where `J = d xi(x, v) / d v` (d x d); see the derivation in [`fssd_power`].
    #[inline]
    fn add_vjp(&self, x: &[f64], s: &[f64], v: &[f64], w: &[f64], out: &mut [f64]) {
        let d = x.len();
        let (r2, uw, sw) = vjp_sums(x, s, v, w);
        match *self {
            FssdKernel::Gauss { sigma2 } => {
                // xi = k g, g = s - u/sigma2: J = (k/sigma2) (g u^T + I), J^T w = (k/sigma2)(u (g.w) + w)
                let kv = exp(-r2 / (2.0 * sigma2));
                let gw = sw - uw / sigma2;
                let f = kv / sigma2;
                for k in 0..d {
                    out[k] += f * ((x[k] - v[k]) * gw + w[k]);
                }
            }
            FssdKernel::Imq { c, beta } => {
                // J = -2b q^(b-1) (s u^T + I) - 4b(b-1) q^(b-2) u u^T
                let q = c * c + r2;
                let b1 = powf(q, beta - 1.0);
                let b2 = b1 / q;
                let a = -2.0 * beta * b1;
                let bb = -4.0 * beta * (beta - 1.0) * b2;
                for k in 0..d {
                    let u = x[k] - v[k];
                    out[k] += a * (u * sw + w[k]) + bb * u * uw;
                }
            }
        }
    }
}

impl FssdKernel {
    /// `sum_k w_k d xi_k(x, v) / d sigma2` for the Gaussian kernel (0 for IMQ, whose width is not optimised):
    /// with `u = x - v`, `r2 = |u|^2`, `kv = exp(-r2 / (2 sigma2))`, `xi_k = kv (s_k - u_k / sigma2)`,
    /// `d xi_k / d sigma2 = kv r2 / (2 sigma2^2) (s_k - u_k / sigma2) + kv u_k / sigma2^2`.
    #[inline]
    fn width_vjp(&self, x: &[f64], s: &[f64], v: &[f64], w: &[f64]) -> f64 {
        let FssdKernel::Gauss { sigma2 } = *self else { return 0.0 };
        let (r2, uw, sw) = vjp_sums(x, s, v, w);
        let kv = exp(-r2 / (2.0 * sigma2));
        kv / (sigma2 * sigma2) * (0.5 * r2 * (sw - uw / sigma2) + uw)
    }
}

/// FSSD estimates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FssdValue {
    /// V-statistic `|(1/n) sum_i tau_i|^2` (>= 0).
    pub fssd_sq: f64,
    /// U-statistic (unbiased, can be negative).
    pub fssd_sq_u: f64,
    /// Number of test locations.
    pub j: usize,
}

/// Rows per parallel task (fixed: the result does not depend on the thread count).
const ROWS: usize = 128;

fn check_locations(locations: &[f64], d: usize) -> Result<usize> {
    if locations.is_empty() || !locations.len().is_multiple_of(d) {
        return Err(Error::data(format!(
            "test locations have {} values; need J >= 1 rows of d = {d} values",
            locations.len()
        )));
    }
    if let Some(p) = locations.iter().position(|v| !v.is_finite()) {
        return Err(Error::data(format!("locations: non-finite value at row {}, column {}", p / d + 1, p % d + 1)));
    }
    Ok(locations.len() / d)
}

/// Feature sums over rows: `(sum_i tau_i, sum_i |tau_i|^2)`, with `tau` scaled by `1/sqrt(dJ)`.
fn feature_sums(x: &[f64], s: &[f64], d: usize, v: &[f64], kernel: &FssdKernel) -> (Vec<f64>, f64) {
    let n = x.len() / d;
    let jd = v.len();
    let scale = 1.0 / (jd as f64).sqrt();
    let parts: Vec<(Vec<f64>, f64)> = (0..n.div_ceil(ROWS))
        .into_par_iter()
        .map(|t| {
            let mut sum = vec![0.0; jd];
            let mut sq = 0.0;
            let mut buf = vec![0.0; d];
            for i in t * ROWS..((t + 1) * ROWS).min(n) {
                let (xi, si) = (&x[i * d..(i + 1) * d], &s[i * d..(i + 1) * d]);
                for (vj, sj) in v.chunks_exact(d).zip(sum.chunks_exact_mut(d)) {
                    kernel.xi(xi, si, vj, &mut buf);
                    for k in 0..d {
                        let tv = buf[k] * scale;
                        sj[k] += tv;
                        sq += tv * tv;
                    }
                }
            }
            (sum, sq)
        })
        .collect();
    add_parts(parts, jd)
}

fn stats_from_sums(sum: &[f64], sq: f64, n: usize, j: usize) -> FssdValue {
    let nf = n as f64;
    let s2: f64 = sum.iter().map(|v| v * v).sum();
    FssdValue { fssd_sq: s2 / (nf * nf), fssd_sq_u: (s2 - sq) / (nf * (nf - 1.0)), j }
}

/// FSSD^2 of `samples` (n x d) with scores (n x d) at the `J` test `locations` (J x d), V- and
/// U-statistics (Jitkrittum et al. 2017, eqs. 3-4). O(n J d) time, O(J d) memory, deterministic.
pub fn fssd(samples: &[f64], scores: &[f64], d: usize, locations: &[f64], kernel: &FssdKernel) -> Result<FssdValue> {
    kernel.validate()?;
    let n = check_samples_scores(samples, scores, d, 2)?;
    let j = check_locations(locations, d)?;
    let (sum, sq) = feature_sums(samples, scores, d, locations, kernel);
    let v = stats_from_sums(&sum, sq, n, j);
    if !(v.fssd_sq.is_finite() && v.fssd_sq_u.is_finite()) {
        return Err(Error::numerical("FSSD is not finite; are the scores very large?"));
    }
    Ok(v)
}

/// The power criterion of Jitkrittum et al. 2017 (Sec. 3, "maximising test power"):
/// `FSSD^2_U / sqrt(sigma_H1^2 + reg)` with `sigma_H1^2 = 4 mu^T Sigma mu`, `mu = mean tau_i`,
/// `Sigma` the (1/n) covariance of `tau_i` (their Thm. 2), and its gradient with respect to the
/// locations (row-major J x d).
///
/// Gradient: with `a_i = mu.tau_i`, `F = |mu|^2`, `S = mean a_i^2 - F^2`, `w = mean a_i tau_i`,
/// `D = sqrt(4S + reg)`: `dL/dtau_k = 2(n mu - tau_k)/(n(n-1)D) - 4U/(nD^3) (w + a_k mu - 2F mu)`,
/// chained through `d tau_kj / d v_j = J(x_k, v_j)/sqrt(dJ)`.
pub fn fssd_power(
    samples: &[f64],
    scores: &[f64],
    d: usize,
    locations: &[f64],
    kernel: &FssdKernel,
    reg: f64,
) -> Result<(f64, Vec<f64>)> {
    kernel.validate()?;
    let n = check_samples_scores(samples, scores, d, 2)?;
    let j = check_locations(locations, d)?;
    if !(reg >= 0.0 && reg.is_finite()) {
        return Err(Error::config(format!("power-criterion regulariser must be >= 0, got {reg}")));
    }
    let (obj, grad, _) = power_grads(samples, scores, d, locations, kernel, reg, n, j);
    Ok((obj, grad))
}

/// The power criterion and its gradient with respect to the locations, and its derivative with respect to the
/// Gaussian width `sigma2` (0 for the IMQ kernel).
#[allow(clippy::too_many_arguments)]
fn power_grads(
    x: &[f64],
    s: &[f64],
    d: usize,
    v: &[f64],
    kernel: &FssdKernel,
    reg: f64,
    n: usize,
    j: usize,
) -> (f64, Vec<f64>, f64) {
    let jd = j * d;
    let nf = n as f64;
    let scale = 1.0 / (jd as f64).sqrt();
    let (sum, sq) = feature_sums(x, s, d, v, kernel);
    let u = stats_from_sums(&sum, sq, n, j).fssd_sq_u;
    let mu: Vec<f64> = sum.iter().map(|v| v / nf).collect();
    let f: f64 = mu.iter().map(|v| v * v).sum();
    // pass 2: sum a_i^2 and sum a_i tau_i
    let tau_row = |i: usize, out: &mut [f64], buf: &mut [f64]| {
        let (xi, si) = (&x[i * d..(i + 1) * d], &s[i * d..(i + 1) * d]);
        for (vj, oj) in v.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
            kernel.xi(xi, si, vj, buf);
            for k in 0..d {
                oj[k] = buf[k] * scale;
            }
        }
    };
    let parts: Vec<(f64, Vec<f64>)> = (0..n.div_ceil(ROWS))
        .into_par_iter()
        .map(|t| {
            let mut tau = vec![0.0; jd];
            let mut buf = vec![0.0; d];
            let mut a2 = 0.0;
            let mut w = vec![0.0; jd];
            for i in t * ROWS..((t + 1) * ROWS).min(n) {
                tau_row(i, &mut tau, &mut buf);
                let a: f64 = tau.iter().zip(&mu).map(|(p, q)| p * q).sum();
                a2 += a * a;
                w.iter_mut().zip(&tau).for_each(|(wv, tv)| *wv += a * tv);
            }
            (a2, w)
        })
        .collect();
    let mut a2 = 0.0;
    let mut w = vec![0.0; jd];
    for (p, q) in parts {
        a2 += p;
        w.iter_mut().zip(&q).for_each(|(a, b)| *a += b);
    }
    w.iter_mut().for_each(|v| *v /= nf);
    let var = (a2 / nf - f * f).max(0.0);
    let dd = (4.0 * var + reg).sqrt();
    let obj = u / dd;
    // pass 3: gradient
    let cu = 2.0 / (nf * (nf - 1.0) * dd);
    let cs = 4.0 * u / (nf * dd * dd * dd);
    let parts: Vec<(Vec<f64>, f64)> = (0..n.div_ceil(ROWS))
        .into_par_iter()
        .map(|t| {
            let mut tau = vec![0.0; jd];
            let mut buf = vec![0.0; d];
            let mut g = vec![0.0; jd];
            let mut grad = vec![0.0; jd];
            let mut gw = 0.0;
            for i in t * ROWS..((t + 1) * ROWS).min(n) {
                tau_row(i, &mut tau, &mut buf);
                let a: f64 = tau.iter().zip(&mu).map(|(p, q)| p * q).sum();
                for m in 0..jd {
                    g[m] = scale * (cu * (nf * mu[m] - tau[m]) - cs * (w[m] + (a - 2.0 * f) * mu[m]));
                }
                let (xi, si) = (&x[i * d..(i + 1) * d], &s[i * d..(i + 1) * d]);
                for ((vj, gj), oj) in v.chunks_exact(d).zip(g.chunks_exact(d)).zip(grad.chunks_exact_mut(d)) {
                    kernel.add_vjp(xi, si, vj, gj, oj);
                    gw += kernel.width_vjp(xi, si, vj, gj);
                }
            }
            (grad, gw)
        })
        .collect();
    let (grad, gw) = add_parts(parts, jd);
    (obj, grad, gw)
}

/// Adds up per-thread partial results `(vector of length jd, scalar)` in their (fixed) order, so the total does
/// not depend on the number of threads.
fn add_parts(parts: Vec<(Vec<f64>, f64)>, jd: usize) -> (Vec<f64>, f64) {
    let mut sum = vec![0.0; jd];
    let mut sc = 0.0;
    for (p, q) in parts {
        sum.iter_mut().zip(&p).for_each(|(a, b)| *a += b);
        sc += q;
    }
    (sum, sc)
}

/// The three sums a vector-Jacobian product of the feature map needs, with `u = x - v`:
/// `(|u|^2, u . w, s . w)`.
#[inline]
fn vjp_sums(x: &[f64], s: &[f64], v: &[f64], w: &[f64]) -> (f64, f64, f64) {
    let (mut r2, mut uw, mut sw) = (0.0, 0.0, 0.0);
    for k in 0..x.len() {
        let u = x[k] - v[k];
        r2 += u * u;
        uw += u * w[k];
        sw += s[k] * w[k];
    }
    (r2, uw, sw)
}
