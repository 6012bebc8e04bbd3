//! The Stein kernel of a run: one fixed object, built from information the run has before any
//! arm is scored, used for every arm and every round.
//!
//! Three kernels, named by `metric.kernel` (serde, kebab-case):
//! - `"run"` (the default): every coordinate is divided by the posterior standard deviation of the Laplace
//!   approximation at the MAP (`x / sd`, scores carried along by the chain rule, `s * sd`), and the IMQ kernel
//!   with `c` (default 1) and `beta` (default -1/2) is applied on that scale, U-statistic by default, plus the
//!   moment term [`moment_sq`] (weight `moment`, default [`DEFAULT_MOMENT`]), so that a cloud far wider than
//!   the posterior cannot score near zero when the scores are bounded (logistic regression). The
//!   preconditioner comes from the Hessian of `-log p` at the MAP by central differences of full-data
//!   gradients: the full Hessian (inverted, marginal variances) for d <= [`FULL_HESSIAN_MAX_DIM`], otherwise
//!   its diagonal estimated from [`DIAG_PROBES`] Rademacher probes (conditional variances `1 / H_kk`).
//! - `"per-arm"`: the scaling named by `scale` applied to each arm's own samples (the old default:
//!   `median-precond` standardises by the arm's own spread and sets `c` by its own median distance), U-statistic.
//! - `"plain"`: the plain KSD: fixed `c = 1`, `beta = -1/2`, V-statistic (SGMCMCJax `imq_KSD`; the paper's text,
//!   sec. 2.2.1, names the IMQ kernel with c > 0, beta in (-1, 0) but not the c, beta or estimator it used).
//!
//! A config that sets `scale` but no `kernel` keeps its old meaning (`per-arm`).
//! Why `run` is the default: `tests/core/numerics/stein_kernel.rs` (a Gaussian posterior with sd 0.03, exact, too wide,
//! stuck, oscillating and under-dispersed sample sets at n = 50, 300, 1000 and d = 2, 10, 100).

use super::config::MetricKind;
use crate::error::{Error, Result};
use crate::linalg::gemm;
use crate::model::{full_scores, Target};
use crate::rng;
use crate::stein::{self, Estimator, KernelScale, KsdOptions, KsdValue};
use rand::RngExt;
use serde::{Deserialize, Serialize};

pub use super::config::KsdKernel;

/// Up to this dimension the preconditioner inverts the full finite-difference Hessian.
pub const FULL_HESSIAN_MAX_DIM: usize = 200;
/// Rademacher probes for the Hessian diagonal above [`FULL_HESSIAN_MAX_DIM`].
pub const DIAG_PROBES: usize = 64;
/// Stream id of the probes.
const STREAM_PROBES: u64 = (1 << 40) + 5;

/// The kernel that scored every arm of a run (recorded in the report).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunKernel {
    pub kind: KsdKernel,
    /// Per-coordinate lengths the samples are divided by (`run` only; empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precond_sd: Vec<f64>,
    /// `laplace-hessian` (inverse of the full Hessian) or `laplace-diagonal` (probed diagonal), `run` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precond_source: Option<String>,
    /// Smallest, median and largest entry of `precond_sd` (`run` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precond_summary: Option<[f64; 3]>,
    /// IMQ scale: on the preconditioned scale for `run`; for `per-arm` a multiplier of the heuristic length.
    pub c: f64,
    pub beta: f64,
    /// Scaling applied inside the KSD (`fixed` for `run` and `plain`).
    pub scale: KernelScale,
    pub estimator: Estimator,
    /// Gradient evaluations (data points touched) spent building the preconditioner.
    pub grad_evals: u64,
    /// Weight of the moment (linear-kernel) term added to the IMQ KSD^2 (`run` only; 0 = off). See
    /// [`moment_sq`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub moment: f64,
    /// Centre of the moment term (the MAP), in the original coordinates; not written to reports.
    #[serde(default, skip_serializing)]
    pub center: Vec<f64>,
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// Default weight of the moment term of the `run` kernel (chosen on seeds 1000-1004 of
/// `tests/core/numerics/stein_kernel.rs`, `choose_kernel_by_evidence`).
pub const DEFAULT_MOMENT: f64 = 1.0;

/// The kernel a KSD metric names, before the preconditioner is known.
pub fn kernel_kind(kind: &MetricKind) -> Option<KsdKernel> {
    KsdSettings::of(kind).map(|s| s.kernel_kind())
}

/// The settings of a KSD metric (the fields of [`MetricKind::Ksd`]), defaults not filled in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KsdSettings {
    pub kernel: Option<KsdKernel>,
    pub scale: Option<KernelScale>,
    pub estimator: Option<Estimator>,
    pub c: Option<f64>,
    pub beta: Option<f64>,
    pub moment: Option<f64>,
}

impl KsdSettings {
    /// The settings of a KSD metric (`None` for other metrics).
    pub fn of(kind: &MetricKind) -> Option<KsdSettings> {
        match *kind {
            MetricKind::Ksd { kernel, scale, estimator, c, beta, moment } => {
                Some(KsdSettings { kernel, scale, estimator, c, beta, moment })
            }
            _ => None,
        }
    }

    /// The kernel named: `kernel`, else `per-arm` when `scale` is set (its old meaning), else `run`.
    pub fn kernel_kind(&self) -> KsdKernel {
        match (self.kernel, self.scale) {
            (Some(k), _) => k,
            (None, Some(_)) => KsdKernel::PerArm,
            (None, None) => KsdKernel::Run,
        }
    }

    /// Checks the values a config gives (the moment weight, the IMQ `c` and `beta`); the config's check calls
    /// it, so a built kernel never meets a bad value.
    pub fn check(&self) -> Result<()> {
        let moment = self.moment.unwrap_or(DEFAULT_MOMENT);
        if !(moment.is_finite() && moment >= 0.0) {
            return Err(Error::config(format!("the KSD moment weight must be finite and >= 0, got {moment}")));
        }
        stein::KsdOptions { c: self.c.unwrap_or(1.0), beta: self.beta.unwrap_or(-0.5), ..Default::default() }.validate()
    }
}

impl RunKernel {
    /// The kernel of a KSD metric on `target` with MAP `map` (`None` for other metrics).
    pub fn for_metric(kind: &MetricKind, target: &dyn Target, map: &[f64]) -> Result<Option<RunKernel>> {
        KsdSettings::of(kind).map(|s| Self::for_ksd(&s, target, map)).transpose()
    }

    /// The kernel a KSD metric's settings name, on `target` with MAP `map`.
    pub fn for_ksd(s: &KsdSettings, target: &dyn Target, map: &[f64]) -> Result<RunKernel> {
        s.check()?;
        let k = s.kernel_kind();
        let (scale, estimator) = (s.scale, s.estimator);
        let moment = s.moment.unwrap_or(DEFAULT_MOMENT);
        let c = s.c.unwrap_or(1.0);
        let beta = s.beta.unwrap_or(-0.5);
        Ok(match k {
            KsdKernel::Run => {
                let (sd, source, grad_evals) = laplace_sd(target, map)?;
                Self::with_precond(sd, source, c, beta, estimator.unwrap_or(Estimator::U), grad_evals)
                    .with_moment(moment, map.to_vec())
            }
            KsdKernel::PerArm => {
                let def = KsdOptions::default();
                RunKernel {
                    kind: k,
                    precond_sd: vec![],
                    precond_source: None,
                    precond_summary: None,
                    c,
                    beta,
                    scale: scale.unwrap_or(def.scale),
                    estimator: estimator.unwrap_or(def.estimator),
                    grad_evals: 0,
                    moment: 0.0,
                    center: vec![],
                }
            }
            KsdKernel::Plain => RunKernel {
                kind: k,
                precond_sd: vec![],
                precond_source: None,
                precond_summary: None,
                c,
                beta,
                scale: scale.unwrap_or(KernelScale::Fixed),
                estimator: estimator.unwrap_or(Estimator::V),
                grad_evals: 0,
                moment: 0.0,
                center: vec![],
            },
        })
    }

    /// A `run` kernel with a given preconditioner (for example the true posterior sd in tests).
    pub fn with_precond(
        sd: Vec<f64>,
        source: &str,
        c: f64,
        beta: f64,
        estimator: Estimator,
        grad_evals: u64,
    ) -> RunKernel {
        let mut sorted = sd.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let summary = (!sorted.is_empty()).then(|| [sorted[0], sorted[sorted.len() / 2], sorted[sorted.len() - 1]]);
        RunKernel {
            kind: KsdKernel::Run,
            precond_sd: sd,
            precond_source: Some(source.to_string()),
            precond_summary: summary,
            c,
            beta,
            scale: KernelScale::Fixed,
            estimator,
            grad_evals,
            moment: 0.0,
            center: vec![],
        }
    }

    /// The same kernel with the moment term of weight `moment` centred at `center` (original coordinates;
    /// the MAP in a run). `moment = 0` or an empty centre turns it off.
    pub fn with_moment(mut self, moment: f64, center: Vec<f64>) -> RunKernel {
        self.moment = if center.is_empty() { 0.0 } else { moment };
        self.center = center;
        self
    }

    /// The options handed to [`stein::ksd`] (after preconditioning, for `run`).
    pub fn ksd_options(&self) -> KsdOptions {
        KsdOptions { c: self.c, beta: self.beta, scale: self.scale, estimator: self.estimator }
    }

    /// KSD of `samples` with scores `scores` (row-major, `d` columns) under this kernel.
    pub fn ksd(&self, samples: &[f64], scores: &[f64], d: usize) -> Result<KsdValue> {
        if self.kind != KsdKernel::Run {
            return stein::ksd(samples, scores, d, &self.ksd_options());
        }
        if self.precond_sd.len() != d {
            return Err(Error::config(format!(
                "the run kernel has {} coordinates, the samples {d}",
                self.precond_sd.len()
            )));
        }
        let mut z = Vec::with_capacity(samples.len());
        let mut sz = Vec::with_capacity(scores.len());
        for (row, srow) in samples.chunks_exact(d).zip(scores.chunks_exact(d)) {
            for k in 0..d {
                z.push(row[k] / self.precond_sd[k]);
                // chain rule: grad_z log p(sd * z) = sd * grad_x log p(x)
                sz.push(srow[k] * self.precond_sd[k]);
            }
        }
        let mut v = stein::ksd(&z, &sz, d, &self.ksd_options())?;
        if self.moment > 0.0 && self.center.len() == d {
            let cz: Vec<f64> = self.center.iter().zip(&self.precond_sd).map(|(m, s)| m / s).collect();
            let m = moment_sq(&z, &sz, &cz, d, self.estimator);
            v.ksd_sq += self.moment * m;
            if !v.ksd_sq.is_finite() {
                return Err(Error::numerical(format!("the KSD moment term is not finite ({m})")));
            }
            v.ksd = v.ksd_sq.signum() * v.ksd_sq.abs().sqrt();
        }
        Ok(v)
    }

    /// KSD of `samples` of `target` with full-data scores.
    pub fn ksd_target(&self, target: &dyn Target, samples: &[f64]) -> Result<KsdValue> {
        let d = target.dim();
        let scores = full_scores(target, samples);
        self.ksd(samples, &scores, d)
    }

    /// The score MAMBA ranks by: `sqrt(|KSD^2|)` (see [`super::metric::score`]).
    pub fn rank_value(v: &KsdValue) -> f64 {
        v.ksd_sq.abs().sqrt()
    }
}

/// Up to this dimension [`moment_sq`] forms `sum_i s_i u_i^T` with plain loops; above it, with GEMM.
pub const MOMENT_LOOP_MAX_DIM: usize = 128;

/// The moment term of the `run` kernel: the KSD^2 of the linear kernel `k(x, y) = (x - m).(y - m) / d` on the
/// preconditioned scale, divided by nothing else. Its Stein kernel is `<A(x), A(y)>_F / d` with
/// `A(x) = s(x) (x - m)^T + I` (Langevin Stein operator applied to the linear test functions `f(x) = W (x - m)`,
/// Liu, Lee & Jordan 2016 eq. 8 with a linear kernel), so `KSD^2 = |E_q[s(x) (x - m)^T] + I|_F^2 / d`, which
/// is zero under p (integration by parts: `E_p[s(x) (x - m)^T] = -I`). It is a second-moment check in the
/// spirit of moment-controlling Stein kernels (Kanagawa, Barp, Gretton & Mackey 2022, cited from memory): the
/// IMQ part alone decays with distance, so a cloud thousands of posterior sds wide with bounded scores (the
/// logistic regression far from the mode) scores near zero under it, while here `A` grows with the distance.
/// `z`, `s` are the preconditioned samples and scores (row-major `n x d`), `m` the preconditioned centre.
/// U-statistic `sum_{i != j} <A_i, A_j> / (n (n - 1) d)` computed as `(|sum A_i|^2 - sum |A_i|^2) / ...` in
/// O(n d^2) (d <= n: loops up to [`MOMENT_LOOP_MAX_DIM`], GEMM above) or O(n^2 d) (Gram matrices by GEMM);
/// V adds the diagonal; `linear` uses pairs (2i, 2i + 1).
pub fn moment_sq(z: &[f64], s: &[f64], m: &[f64], d: usize, estimator: Estimator) -> f64 {
    let n = z.len() / d;
    if n < 2 {
        return f64::NAN;
    }
    let u: Vec<f64> = z.chunks_exact(d).flat_map(|r| r.iter().zip(m).map(|(a, b)| a - b)).collect();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    // <A_i, A_j> = (s_i.s_j)(u_i.u_j) + s_i.u_i + s_j.u_j + d
    let su: Vec<f64> = s.chunks_exact(d).zip(u.chunks_exact(d)).map(|(a, b)| dot(a, b)).collect();
    let df = d as f64;
    let (nf, sum_su) = (n as f64, su.iter().sum::<f64>());
    if estimator == Estimator::Linear {
        let pairs = n / 2;
        let mut acc = 0.0;
        for p in 0..pairs {
            let (a, b) = (2 * p, 2 * p + 1);
            let ss = dot(&s[a * d..a * d + d], &s[b * d..b * d + d]);
            let uu = dot(&u[a * d..a * d + d], &u[b * d..b * d + d]);
            acc += ss * uu + su[a] + su[b] + df;
        }
        return acc / (pairs as f64 * df);
    }
    // |sum_i s_i u_i^T|_F^2 = sum_{i,j} (s_i.s_j)(u_i.u_j)
    let full = if d <= MOMENT_LOOP_MAX_DIM {
        // Plain loops in a fixed order (no FMA kernels), so native and wasm builds agree bit for bit.
        let mut w = vec![0.0; d * d];
        for (si, ui) in s.chunks_exact(d).zip(u.chunks_exact(d)) {
            for (a, sa) in si.iter().enumerate() {
                let row = &mut w[a * d..a * d + d];
                for (wb, ub) in row.iter_mut().zip(ui) {
                    *wb += sa * ub;
                }
            }
        }
        w.iter().map(|v| v * v).sum::<f64>()
    } else if d <= n {
        let mut w = vec![0.0; d * d];
        // W = S^T U (d x d): A = S^T (rows stride 1, cols stride d), B = U (n x d row-major).
        gemm(d, n, d, 1.0, s, 1, d, &u, d, 1, 0.0, &mut w, d, 1);
        w.iter().map(|v| v * v).sum::<f64>()
    } else {
        let mut gss = vec![0.0; n * n];
        let mut guu = vec![0.0; n * n];
        gemm(n, d, n, 1.0, s, d, 1, s, 1, d, 0.0, &mut gss, n, 1);
        gemm(n, d, n, 1.0, &u, d, 1, &u, 1, d, 0.0, &mut guu, n, 1);
        gss.iter().zip(&guu).map(|(a, b)| a * b).sum::<f64>()
    };
    // |sum_i A_i|^2 = |W|^2 + 2 n tr W + n^2 d, tr W = sum_i s_i.u_i
    let total = full + 2.0 * nf * sum_su + nf * nf * df;
    match estimator {
        Estimator::V => total / (nf * nf * df),
        _ => {
            let diag: f64 = s
                .chunks_exact(d)
                .zip(u.chunks_exact(d))
                .zip(&su)
                .map(|((a, b), c)| dot(a, a) * dot(b, b) + 2.0 * c + df)
                .sum();
            (total - diag) / (nf * (nf - 1.0) * df)
        }
    }
}

/// Posterior standard deviations of the Laplace approximation at `map`: `(sd, source, gradient evaluations)`.
pub fn laplace_sd(target: &dyn Target, map: &[f64]) -> Result<(Vec<f64>, &'static str, u64)> {
    let d = target.dim();
    if map.len() != d {
        return Err(Error::config(format!("the MAP has {} coordinates, the target {d}", map.len())));
    }
    let per_grad = target.n_data().max(1) as u64;
    let eps: Vec<f64> = map.iter().map(|m| 1e-4 * m.abs().max(1.0)).collect();
    let mut gp = vec![0.0; d];
    let mut gm = vec![0.0; d];
    let mut theta = map.to_vec();
    let mut var = vec![f64::NAN; d];
    let source;
    let evals;
    if d <= FULL_HESSIAN_MAX_DIM {
        // H = -d grad / d theta, column by column.
        let mut h = nalgebra::DMatrix::<f64>::zeros(d, d);
        for k in 0..d {
            theta[k] = map[k] + eps[k];
            target.grad_log_density(&theta, &mut gp);
            theta[k] = map[k] - eps[k];
            target.grad_log_density(&theta, &mut gm);
            theta[k] = map[k];
            for j in 0..d {
                h[(j, k)] = -(gp[j] - gm[j]) / (2.0 * eps[k]);
            }
        }
        let hs = (&h + h.transpose()) * 0.5;
        evals = 2 * d as u64 * per_grad;
        match hs.clone().cholesky() {
            Some(ch) => {
                let inv = ch.inverse();
                for k in 0..d {
                    var[k] = inv[(k, k)];
                }
                source = "laplace-hessian";
            }
            None => {
                for k in 0..d {
                    var[k] = 1.0 / hs[(k, k)];
                }
                source = "laplace-diagonal";
            }
        }
    } else {
        // Bekas, Kokiopoulou & Saad (2007): diag(H) ~ mean over probes v of v .* (H v).
        let mut r = rng::stream(0, STREAM_PROBES);
        let mut diag = vec![0.0; d];
        let e = 1e-4 * map.iter().fold(1.0f64, |a, m| a.max(m.abs()));
        for _ in 0..DIAG_PROBES {
            let v: Vec<f64> = (0..d).map(|_| if r.random::<bool>() { 1.0 } else { -1.0 }).collect();
            for k in 0..d {
                theta[k] = map[k] + e * v[k];
            }
            target.grad_log_density(&theta, &mut gp);
            for k in 0..d {
                theta[k] = map[k] - e * v[k];
            }
            target.grad_log_density(&theta, &mut gm);
            for k in 0..d {
                diag[k] += v[k] * (-(gp[k] - gm[k]) / (2.0 * e)) / DIAG_PROBES as f64;
            }
        }
        evals = 2 * DIAG_PROBES as u64 * per_grad;
        for k in 0..d {
            var[k] = 1.0 / diag[k];
        }
        source = "laplace-diagonal";
    }
    // Coordinates with a non-positive or non-finite curvature take the median of the others.
    let mut good: Vec<f64> = var.iter().copied().filter(|v| v.is_finite() && *v > 0.0).collect();
    good.sort_by(|a, b| a.total_cmp(b));
    let fallback = if good.is_empty() { 1.0 } else { good[good.len() / 2] };
    let sd = var.iter().map(|&v| if v.is_finite() && v > 0.0 { v.sqrt() } else { fallback.sqrt() }).collect();
    Ok((sd, source, evals))
}
