//! The Stein kernel of a run (issue 12 §1): one fixed object, built from information the run has before any
//! arm is scored, used for every arm and every round.
//!
//! Three kernels, named by `metric.kernel` (serde, kebab-case):
//! - `"run"` (the default): every coordinate is divided by the posterior standard deviation of the Laplace
//!   approximation at the MAP (`x / sd`, scores carried along by the chain rule, `s * sd`), and the IMQ kernel
//!   with `c` (default 1) and `beta` (default -1/2) is applied on that scale, U-statistic by default. The
//!   preconditioner comes from the Hessian of `-log p` at the MAP by central differences of full-data
//!   gradients: the full Hessian (inverted, marginal variances) for d <= [`FULL_HESSIAN_MAX_DIM`], otherwise
//!   its diagonal estimated from [`DIAG_PROBES`] Rademacher probes (conditional variances `1 / H_kk`).
//! - `"per-arm"`: the scaling named by `scale` applied to each arm's own samples (the old default:
//!   `median-precond` standardises by the arm's own spread and sets `c` by its own median distance), U-statistic.
//! - `"plain"`: the paper's plain KSD: fixed `c = 1`, `beta = -1/2`, V-statistic (SGMCMCJax `imq_KSD`).
//!
//! A config that sets `scale` but no `kernel` keeps its old meaning (`per-arm`).
//! Why `run` is the default: `tests/stein_kernel.rs` (a Gaussian posterior with sd 0.03, exact, too wide,
//! stuck, oscillating and under-dispersed sample sets at n = 50, 300, 1000 and d = 2, 10, 100).

use super::config::MetricKind;
use crate::error::{Error, Result};
use crate::model::{full_scores, Target};
use crate::rng;
use crate::stein::{self, Estimator, KernelScale, KsdOptions, KsdValue};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// Which Stein kernel a KSD metric uses (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KsdKernel {
    /// One kernel for the whole run, preconditioned by the Laplace approximation at the MAP.
    Run,
    /// Each arm's samples scaled by their own statistics (`scale`).
    PerArm,
    /// Fixed c = 1, beta = -1/2, V-statistic: the paper's KSD.
    Plain,
}

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
}

/// The kernel a KSD metric names, before the preconditioner is known.
pub fn kernel_kind(kind: &MetricKind) -> Option<KsdKernel> {
    match kind {
        MetricKind::Ksd { kernel, scale, .. } => Some(match (kernel, scale) {
            (Some(k), _) => *k,
            (None, Some(_)) => KsdKernel::PerArm,
            (None, None) => KsdKernel::Run,
        }),
        _ => None,
    }
}

impl RunKernel {
    /// The kernel of a KSD metric on `target` with MAP `map` (`None` for other metrics).
    pub fn for_metric(kind: &MetricKind, target: &dyn Target, map: &[f64]) -> Result<Option<RunKernel>> {
        let Some(k) = kernel_kind(kind) else { return Ok(None) };
        let MetricKind::Ksd { scale, estimator, c, beta, .. } = kind else { return Ok(None) };
        let c = c.unwrap_or(1.0);
        let beta = beta.unwrap_or(-0.5);
        stein::KsdOptions { c, beta, ..Default::default() }.validate()?;
        Ok(Some(match k {
            KsdKernel::Run => {
                let (sd, source, grad_evals) = laplace_sd(target, map)?;
                Self::with_precond(sd, source, c, beta, estimator.unwrap_or(Estimator::U), grad_evals)
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
            },
        }))
    }

    /// A `run` kernel with a given preconditioner (for example the true posterior sd in tests).
    pub fn with_precond(sd: Vec<f64>, source: &str, c: f64, beta: f64, estimator: Estimator, grad_evals: u64) -> RunKernel {
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
        }
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
            return Err(Error::config(format!("the run kernel has {} coordinates, the samples {d}", self.precond_sd.len())));
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
        stein::ksd(&z, &sz, d, &self.ksd_options())
    }

    /// KSD of `samples` of `target` with full-data scores.
    pub fn ksd_target(&self, target: &dyn Target, samples: &[f64]) -> Result<KsdValue> {
        let d = target.dim();
        let scores = full_scores(target, samples);
        self.ksd(samples, &scores, d)
    }

    /// The score MAMBA ranks by: `sqrt(|KSD^2|)` (see [`super::metric::score`]).
    pub fn rank_value(v: &KsdValue) -> f64 { v.ksd_sq.abs().sqrt() }
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
