//! FSSD-opt (Jitkrittum et al. 2017, sec. 3): the test locations and Gaussian width chosen to maximise the
//! test power proxy `FSSD^2 / sigma_H1` by gradient ascent on a training split.

use super::*;
use crate::error::{Error, Result};
use crate::math::{exp, ln};
use crate::rng::Rng;
use crate::stein::ksd::check_samples_scores;
use rand::RngExt;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

/// The power criterion [`fssd_power`] for a Gaussian kernel and its derivative with respect to the width
/// `sigma2` (for tests and for [`fssd_opt_fit`]).
pub fn fssd_power_width(
    samples: &[f64],
    scores: &[f64],
    d: usize,
    locations: &[f64],
    sigma2: f64,
    reg: f64,
) -> Result<(f64, f64)> {
    let kernel = FssdKernel::Gauss { sigma2 };
    kernel.validate()?;
    let n = check_samples_scores(samples, scores, d, 2)?;
    let j = check_locations(locations, d)?;
    let (obj, _, gw) = power_grads(samples, scores, d, locations, &kernel, reg, n, j);
    Ok((obj, gw))
}

/// Options of [`fssd_opt`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FssdOptOptions {
    /// Gradient-ascent (Adam) steps.
    pub steps: usize,
    /// Adam step size, in units of each coordinate's sample standard deviation.
    pub learning_rate: f64,
    /// Regulariser of the power criterion `FSSD^2_U / sqrt(sigma_H1^2 + reg)` (1e-2 as in the
    /// authors' `optimize_locs_widths`, wittawatj/kernel-gof `kgof/goftest.py`).
    pub reg: f64,
    /// Fraction of the samples (a random subset) used to optimise the locations; the returned FSSD is
    /// computed on the others, so it is not biased by the optimisation (the authors' protocol).
    /// `0` optimises and evaluates on all samples (biased upward; for pictures, not for tests).
    pub train_fraction: f64,
}

impl Default for FssdOptOptions {
    fn default() -> Self {
        Self { steps: 100, learning_rate: 0.05, reg: 1e-2, train_fraction: 0.5 }
    }
}

/// FSSD-opt (Jitkrittum et al. 2017, Sec. 3): draw `j` locations from a Gaussian fitted to the
/// (training) samples, then maximise the power criterion [`fssd_power`] over the locations by Adam
/// (Kingma & Ba 2015) within the box `[min - sd/2, max + sd/2]` of each coordinate (as the authors'
/// bounds); the best locations seen are kept. Returns the FSSD on the held-out samples (see
/// [`FssdOptOptions::train_fraction`]) and the locations (J x d).
#[allow(clippy::too_many_arguments)]
pub fn fssd_opt(
    samples: &[f64],
    scores: &[f64],
    d: usize,
    j: usize,
    kernel: &FssdKernel,
    opts: &FssdOptOptions,
    rng: &mut Rng,
) -> Result<(FssdValue, Vec<f64>)> {
    kernel.validate()?;
    let n = check_samples_scores(samples, scores, d, 2)?;
    if j == 0 {
        return Err(Error::config("FSSD-opt needs at least one test location (J >= 1)"));
    }
    if !(opts.train_fraction >= 0.0 && opts.train_fraction < 1.0) {
        return Err(Error::config(format!("train_fraction must lie in [0, 1), got {}", opts.train_fraction)));
    }
    if !(opts.learning_rate > 0.0 && opts.learning_rate.is_finite()) {
        return Err(Error::config(format!("learning_rate must be positive, got {}", opts.learning_rate)));
    }
    if !(opts.reg >= 0.0 && opts.reg.is_finite()) {
        return Err(Error::config(format!("reg must be >= 0, got {}", opts.reg)));
    }
    // split
    let (xtr, str_, xte, ste) = if opts.train_fraction == 0.0 {
        (samples.to_vec(), scores.to_vec(), samples.to_vec(), scores.to_vec())
    } else {
        let ntr = (opts.train_fraction * n as f64).round() as usize;
        if ntr < 2 || n - ntr < 2 {
            return Err(Error::data(format!(
                "{n} samples are too few to split with train_fraction {} (each part needs >= 2)",
                opts.train_fraction
            )));
        }
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let k = rng.random_range(0..=i);
            perm.swap(i, k);
        }
        let gather = |idx: &[usize], m: &[f64]| {
            idx.iter().flat_map(|&i| m[i * d..(i + 1) * d].iter().copied()).collect::<Vec<f64>>()
        };
        (
            gather(&perm[..ntr], samples),
            gather(&perm[..ntr], scores),
            gather(&perm[ntr..], samples),
            gather(&perm[ntr..], scores),
        )
    };
    let ntr = xtr.len() / d;
    let (sd, lo, hi, mut v) = draw_locations(&xtr, d, j, rng)?;
    // Adam ascent (Kingma & Ba 2015), each location's coordinate in units of its sd.
    let mut adam = crate::optim::Adam::new(j * d);
    let mut best = (f64::NEG_INFINITY, v.clone());
    for step in 1..=opts.steps + 1 {
        let (obj, grad, _) = power_grads(&xtr, &str_, d, &v, kernel, opts.reg, ntr, j);
        if obj.is_finite() && obj > best.0 {
            best = (obj, v.clone());
        }
        if step > opts.steps || !grad.iter().all(|g| g.is_finite()) {
            break;
        }
        // gradient in units of the coordinate's sd
        let g: Vec<f64> = grad.iter().enumerate().map(|(m, g)| g * sd[m % d]).collect();
        adam.step(
            &g,
            |m| opts.learning_rate * sd[m % d],
            |m, u| {
                let a = m % d;
                v[m] = (v[m] + u).clamp(lo[a], hi[a]);
            },
        );
    }
    let locations = best.1;
    let val = fssd(&xte, &ste, d, &locations, kernel)?;
    Ok((val, locations))
}

/// Test locations and Gaussian width fitted by [`fssd_opt_fit`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FssdFit {
    /// J x d, row-major.
    pub locations: Vec<f64>,
    /// Width of the Gaussian kernel `exp(-|x - v|^2 / (2 sigma2))`.
    pub sigma2: f64,
    /// Power criterion at the initial locations and width (median heuristic).
    pub power_start: f64,
    /// Power criterion at the returned locations and width (the best seen; >= `power_start`).
    pub power_end: f64,
    /// Rows the fit used.
    pub n: usize,
}

/// Dimension above which [`fssd_opt_fit`] draws its locations from the samples' low-rank covariance instead
/// of a dense d x d Cholesky factor (3 d^2 floats: 403 MB at 4,096).
pub const FIT_DENSE_MAX_D: usize = 4096;

fn sample_box(samples: &[f64], d: usize, sd: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut lo = vec![f64::INFINITY; d];
    let mut hi = vec![f64::NEG_INFINITY; d];
    for row in samples.chunks_exact(d) {
        for a in 0..d {
            lo[a] = lo[a].min(row[a]);
            hi[a] = hi[a].max(row[a]);
        }
    }
    for a in 0..d {
        lo[a] -= 0.5 * sd[a];
        hi[a] += 0.5 * sd[a];
    }
    (lo, hi)
}

/// FSSD-opt's fit as in the MAMBA paper (Coullon et al. 2023, sec. 2.2.2 and app. B.1.3, following
/// Jitkrittum et al. 2017, sec. 3): `j` locations drawn from a Gaussian fitted to `samples`, the width
/// started at the median squared pairwise distance, then locations and `log sigma2` moved together by Adam
/// (Kingma & Ba 2015) to maximise the power criterion `FSSD^2_U / sqrt(sigma_H1^2 + reg)` on these samples.
/// Locations stay in the box of [`fssd_opt`]; `log sigma2` within a factor 100 of its start. Used on a MAMBA
/// round's pooled samples so that every arm of the round is scored at the same locations and width.
pub fn fssd_opt_fit(
    samples: &[f64],
    scores: &[f64],
    d: usize,
    j: usize,
    opts: &FssdOptOptions,
    rng: &mut Rng,
) -> Result<FssdFit> {
    let n = check_samples_scores(samples, scores, d, 2)?;
    if j == 0 {
        return Err(Error::config("FSSD-opt needs at least one test location (J >= 1)"));
    }
    if !(opts.learning_rate > 0.0 && opts.learning_rate.is_finite()) {
        return Err(Error::config(format!("learning_rate must be positive, got {}", opts.learning_rate)));
    }
    if !(opts.reg >= 0.0 && opts.reg.is_finite()) {
        return Err(Error::config(format!("reg must be >= 0, got {}", opts.reg)));
    }
    let (sd, lo, hi, v) = draw_locations(samples, d, j, rng)?;
    fssd_opt_fit_from(samples, scores, d, j, opts, n, &sd, &lo, &hi, v)
}

/// FSSD-opt's initial locations (Jitkrittum et al. 2017, sec. 3; the MAMBA paper's app. B.1.3): `j` draws from
/// the Gaussian `N(mean, cov + 1e-6 diag(cov))` fitted to `samples`, each coordinate clamped to the box
/// `[min - sd/2, max + sd/2]` (see [`sample_box`]). A dense d x d covariance and its Cholesky factor (3 d^2
/// floats, O(n d^2 + d^3) time) only in small dimension; above [`FIT_DENSE_MAX_D`] the same Gaussian is drawn
/// from the centred samples (low rank, O(n d) time, O(d) extra memory; d = 52,500 asked for 22 GB).
/// Returns `(sd, lo, hi, locations)`, the locations J x d row-major. Shared by [`fssd_opt`] and [`fssd_opt_fit`].
#[allow(clippy::type_complexity)]
fn draw_locations(
    samples: &[f64],
    d: usize,
    j: usize,
    rng: &mut Rng,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>)> {
    let n = samples.len() / d;
    let mut mean = vec![0.0; d];
    for row in samples.chunks_exact(d) {
        mean.iter_mut().zip(row).for_each(|(m, v)| *m += v / n as f64);
    }
    // A dense d x d covariance and its Cholesky factor (3 d^2 floats, O(n d^2 + d^3) time) only in small
    // dimension; above FIT_DENSE_MAX_D the same Gaussian N(mean, cov + 1e-6 diag(cov)) is drawn from the
    // centred samples (low rank, O(n d) time, O(d) extra memory; d = 52,500 asked for 22 GB).
    if d > FIT_DENSE_MAX_D {
        let nf = (n - 1) as f64;
        let mut var = vec![0.0; d];
        for row in samples.chunks_exact(d) {
            for a in 0..d {
                var[a] += (row[a] - mean[a]) * (row[a] - mean[a]) / nf;
            }
        }
        let sd: Vec<f64> = var.iter().map(|v| v.sqrt()).collect();
        if sd.iter().any(|v| !v.is_finite() || *v <= 0.0) {
            return Err(Error::numerical(
                "a coordinate of the samples does not vary: cannot fit a Gaussian for the locations",
            ));
        }
        let (lo, hi) = sample_box(samples, d, &sd);
        let mut v = vec![0.0; j * d];
        let mut zn = vec![0.0; n];
        let scale = 1.0 / nf.sqrt();
        let jitter = 1e-6f64.sqrt();
        for vj in v.chunks_exact_mut(d) {
            // x = mean + C^T z_n / sqrt(n - 1) + sqrt(1e-6) sd * z_d has covariance cov + 1e-6 diag(cov).
            zn.iter_mut().for_each(|zk| *zk = rng.sample(StandardNormal));
            vj.copy_from_slice(&mean);
            for (row, zk) in samples.chunks_exact(d).zip(&zn) {
                for a in 0..d {
                    vj[a] += scale * zk * (row[a] - mean[a]);
                }
            }
            for a in 0..d {
                let e: f64 = rng.sample(StandardNormal);
                vj[a] = (vj[a] + jitter * sd[a] * e).clamp(lo[a], hi[a]);
            }
        }
        return Ok((sd, lo, hi, v));
    }
    let mut cov = nalgebra::DMatrix::<f64>::zeros(d, d);
    for row in samples.chunks_exact(d) {
        for a in 0..d {
            for b in 0..=a {
                cov[(a, b)] += (row[a] - mean[a]) * (row[b] - mean[b]) / (n - 1) as f64;
            }
        }
    }
    for a in 0..d {
        for b in 0..a {
            cov[(b, a)] = cov[(a, b)];
        }
    }
    let sd: Vec<f64> = (0..d).map(|a| cov[(a, a)].sqrt()).collect();
    if sd.iter().any(|v| !v.is_finite() || *v <= 0.0) {
        return Err(Error::numerical(
            "a coordinate of the samples does not vary: cannot fit a Gaussian for the locations",
        ));
    }
    let mut reg_cov = cov.clone();
    for a in 0..d {
        reg_cov[(a, a)] += 1e-6 * cov[(a, a)];
    }
    let chol_l = match reg_cov.cholesky() {
        Some(c) => c.l(),
        None => nalgebra::DMatrix::from_fn(d, d, |a, b| if a == b { sd[a] } else { 0.0 }),
    };
    let (lo, hi) = sample_box(samples, d, &sd);
    let mut v = vec![0.0; j * d];
    let mut z = vec![0.0; d];
    for vj in v.chunks_exact_mut(d) {
        z.iter_mut().for_each(|zk| *zk = rng.sample(StandardNormal));
        for a in 0..d {
            vj[a] = (mean[a] + (0..=a).map(|b| chol_l[(a, b)] * z[b]).sum::<f64>()).clamp(lo[a], hi[a]);
        }
    }
    Ok((sd, lo, hi, v))
}

/// The width start and Adam steps of [`fssd_opt_fit`] from drawn locations `v`.
#[allow(clippy::too_many_arguments)]
fn fssd_opt_fit_from(
    samples: &[f64],
    scores: &[f64],
    d: usize,
    j: usize,
    opts: &FssdOptOptions,
    n: usize,
    sd: &[f64],
    lo: &[f64],
    hi: &[f64],
    mut v: Vec<f64>,
) -> Result<FssdFit> {
    // Median heuristic on at most 200 evenly spaced rows.
    let step = n.div_ceil(200).max(1);
    let rows: Vec<&[f64]> = samples.chunks_exact(d).step_by(step).collect();
    let mut dist = Vec::with_capacity(rows.len() * rows.len() / 2);
    for a in 0..rows.len() {
        for b in 0..a {
            dist.push(rows[a].iter().zip(rows[b]).map(|(p, q)| (p - q) * (p - q)).sum::<f64>());
        }
    }
    let med = if dist.is_empty() {
        1.0
    } else {
        let mid = dist.len() / 2;
        dist.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
        dist[mid].max(1e-300)
    };
    let (lw_lo, lw_hi) = (ln(med) - ln(100f64), ln(med) + ln(100f64));
    let mut lw = ln(med);
    let jd = j * d;
    let mut adam = crate::optim::Adam::new(jd + 1);
    let mut start = f64::NAN;
    let mut best = (f64::NEG_INFINITY, v.clone(), lw);
    for step in 1..=opts.steps + 1 {
        let sigma2 = exp(lw);
        let (obj, grad, gw) = power_grads(samples, scores, d, &v, &FssdKernel::Gauss { sigma2 }, opts.reg, n, j);
        if step == 1 {
            start = obj;
        }
        if obj.is_finite() && obj > best.0 {
            best = (obj, v.clone(), lw);
        }
        if step > opts.steps || !grad.iter().all(|g| g.is_finite()) || !gw.is_finite() {
            break;
        }
        // locations in units of each coordinate's sd, the width in log units
        let g: Vec<f64> = (0..=jd).map(|m| if m < jd { grad[m] * sd[m % d] } else { gw * sigma2 }).collect();
        adam.step(
            &g,
            |_| opts.learning_rate,
            |m, upd| {
                if m < jd {
                    let a = m % d;
                    v[m] = (v[m] + sd[a] * upd).clamp(lo[a], hi[a]);
                } else {
                    lw = (lw + upd).clamp(lw_lo, lw_hi);
                }
            },
        );
    }
    if !best.0.is_finite() {
        return Err(Error::numerical("the FSSD power criterion is not finite at any location tried"));
    }
    Ok(FssdFit { locations: best.1, sigma2: exp(best.2), power_start: start, power_end: best.0, n })
}
