//! The GP trace model of Picheny, Dutordoir, Artemev & Durrande (2020, Sec. 2): a NARX(1) model of an
//! optimiser's trace over intervals with piecewise-constant learning rates,
//! `y(T_k + τ) = Y_k + η(f(Y_k, x_k), τ)`, `f ~ GP` over (current trace value, log10 learning rate).
//!
//! Links `η` (τ in interval units, `Y_{k+1} = y(T_{k+1})`):
//! - `linear`: `y = Y_k + f τ` (additive increments, any sign);
//! - `exponential`: `y = Y_k exp(f τ)` (multiplicative; keeps a positive trace positive);
//! - `softplus`: `y = softplus(softplus⁻¹(Y_k) + f τ)` (positive; additive for large values, multiplicative
//!   near 0).
//!
//! This is the labelled fallback of the dynamic tuner (`dynamic.model = "exact-increments"`, or when the
//! chained sparse variational model of `chained.rs` cannot be fitted): `f` is an exact GP regression (Matern
//! 5/2, ARD, type-II ML via `crate::gp`) on the observed per-interval increments `z_k = η⁻¹(Y_k, Y_{k+1})`,
//! with Gaussian noise, i.e. the latent `f` is observed at the interval boundaries only. `Y_0 ~ N(μ_0, σ_0²)`
//! by maximum likelihood. Predictions over several intervals use recursive sampling (their Sec. 2.3): each
//! path draws `f` from the GP predictive (noise included) at its own current value, independently per step.

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

use crate::gp::{BaseKernel, Gp, HyperOptions, Kernel};
use crate::math::{exp, ln, ln_1p, log10};
use crate::rng::Rng;
use crate::{Error, Result};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// The link `η` of the trace model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    Linear,
    #[default]
    Exponential,
    Softplus,
}

/// The form of the sparse variational trace model's links (`dynamic.link_form`; `chained.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LinkForm {
    /// The paper's eqs. 2-3 (Sec. 2.1): `η_lin = φ(f_1) t` with one GP, `η_exp = φ(f_1)(1 - exp[-φ(f_2) t])`,
    /// φ the softplus "to ensure monotonicity", Gaussian noise of constant variance σ². A named option: it
    /// measured worse than `unconstrained` on seeds 6-8 (docs/papers/lr-schedule-bo.md).
    Paper,
    /// tunelab's forms (the default): `f` without softplus (the increment may take either sign), the
    /// exponential rate `exp(g + c)`, and in the linear link a second GP `g` for the log noise variance (a
    /// chained heteroscedastic GP).
    #[default]
    Unconstrained,
}

/// `φ(u) = log(1 + e^u)` (the paper's softplus, Sec. 2.1), overflow-free.
pub(super) fn softplus(u: f64) -> f64 {
    if u > 30.0 {
        u
    } else {
        ln_1p(exp(u))
    }
}

pub(super) fn softplus_inv(y: f64) -> f64 {
    let y = y.max(1e-300);
    if y > 30.0 {
        y
    } else {
        y + ln_1p(-exp(-y))
    }
}

impl Link {
    /// `Y_{k+1}` from `Y_k` and `f` (τ = 1 interval).
    pub fn apply(self, y: f64, f: f64) -> f64 {
        match self {
            Link::Linear => y + f,
            Link::Exponential => y * exp(f.clamp(-700.0, 700.0)),
            Link::Softplus => softplus(softplus_inv(y) + f),
        }
    }
    /// The `f` that maps `Y_k` to `Y_{k+1}` (positive traces required for `exponential` / `softplus`).
    pub fn invert(self, y: f64, y_next: f64) -> f64 {
        match self {
            Link::Linear => y_next - y,
            Link::Exponential => ln(y_next.max(1e-300) / y.max(1e-300)),
            Link::Softplus => softplus_inv(y_next) - softplus_inv(y),
        }
    }
    /// Value at fraction `tau` in [0, 1] of the interval (for charts).
    pub fn at(self, y: f64, f: f64, tau: f64) -> f64 {
        self.apply(y, f * tau)
    }
}

/// One observed interval: trace value at its start, its learning rate, and the value at its end.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub y: f64,
    pub lr: f64,
    pub y_next: f64,
}

/// A prediction band: quantiles 5%, 50%, 95% of the trace at an interval boundary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Band {
    pub lo: f64,
    pub median: f64,
    pub hi: f64,
}

/// The fitted trace model.
#[derive(Debug, Clone)]
pub struct TraceModel {
    gp: Gp,
    link: Link,
    y_shift: f64,
    y_scale: f64,
    z_shift: f64,
    z_scale: f64,
    log_lr: (f64, f64),
    /// ML estimate of the initial value distribution `(mean, variance)`.
    pub y0: (f64, f64),
}

/// Inverse standard normal cdf (Acklam's rational approximation, relative error < 1.2e-9).
pub fn norm_quantile(p: f64) -> f64 {
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.38357751867269e+02,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
    let plow = 0.02425;
    if p < plow {
        let q = (-2.0 * ln(p)).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - plow {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * ln(1.0 - p)).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

/// Mean and (population) standard deviation.
pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
    let var = v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / v.len().max(1) as f64;
    (m, var.sqrt())
}

impl TraceModel {
    /// Fits the model on observed transitions and initial values (`lr_bounds` scale the log10 learning rate
    /// input to [0, 1]). Errors: `Config` with fewer than 2 transitions, `Numerical` if the GP cannot be fitted.
    pub fn fit(obs: &[Transition], y0s: &[f64], link: Link, lr_bounds: [f64; 2], rng: &mut Rng) -> Result<Self> {
        if obs.len() < 2 {
            return Err(Error::config("the trace model needs at least 2 observed intervals"));
        }
        if obs.iter().any(|t| !(t.y.is_finite() && t.y_next.is_finite() && t.lr > 0.0)) {
            return Err(Error::numerical("non-finite trace values given to the trace model"));
        }
        let ys: Vec<f64> = obs.iter().map(|t| t.y).collect();
        let (y_shift, ysd) = mean_sd(&ys);
        let y_scale = if ysd > 1e-12 { ysd } else { 1.0 };
        let zs: Vec<f64> = obs.iter().map(|t| link.invert(t.y, t.y_next)).collect();
        let (z_shift, zsd) = mean_sd(&zs);
        let z_scale = if zsd > 1e-12 { zsd } else { 1.0 };
        let log_lr = (log10(lr_bounds[0]), log10(lr_bounds[1]));
        let span = (log_lr.1 - log_lr.0).max(1e-12);
        let inputs: Vec<Vec<f64>> =
            obs.iter().map(|t| vec![(t.y - y_shift) / y_scale, (log10(t.lr) - log_lr.0) / span]).collect();
        let targets: Vec<f64> = zs.iter().map(|z| (z - z_shift) / z_scale).collect();
        let kernel = Kernel::new(BaseKernel::Matern52, 2, 0.5, 1.0)?;
        let mut gp = Gp::fit(&inputs, &targets, kernel, 0.05)?;
        let opts = HyperOptions {
            length_scale: (0.05, 20.0),
            signal_var: (0.01, 20.0),
            noise_var: Some((1e-4, 2.0)),
            restarts: 1,
            max_iters: 40,
            ..HyperOptions::default()
        };
        gp.optimize_hyperparameters(rng, &opts)?;
        let (m0, s0) = if y0s.is_empty() { (obs[0].y, 0.0) } else { mean_sd(y0s) };
        Ok(TraceModel { gp, link, y_shift, y_scale, z_shift, z_scale, log_lr, y0: (m0, s0 * s0) })
    }

    /// The link used.
    pub fn link(&self) -> Link {
        self.link
    }

    /// Predictive mean and standard deviation of `f` (observation noise included) at `(y, lr)`.
    pub fn predict_f(&self, y: f64, lr: f64) -> (f64, f64) {
        let span = (self.log_lr.1 - self.log_lr.0).max(1e-12);
        let u = [(y - self.y_shift) / self.y_scale, (log10(lr) - self.log_lr.0) / span];
        let (m, v) = self.gp.predict(&u);
        (self.z_shift + self.z_scale * m, self.z_scale * (v + self.gp.noise()).sqrt())
    }

    /// The `alpha`-quantile of `Y_{k+1}` given `Y_k = y` and rate `lr` (the links are increasing in `f`).
    pub fn quantile(&self, y: f64, lr: f64, alpha: f64) -> f64 {
        let (m, s) = self.predict_f(y, lr);
        self.link.apply(y, m + s * norm_quantile(alpha))
    }

    /// One-step band (5%, 50%, 95%) of `Y_{k+1}` given `Y_k = y` and rate `lr`.
    pub fn one_step_band(&self, y: f64, lr: f64) -> Band {
        Band { lo: self.quantile(y, lr, 0.05), median: self.quantile(y, lr, 0.5), hi: self.quantile(y, lr, 0.95) }
    }

    /// Recursive sampling (Sec. 2.3): `samples` paths over the schedule `lrs` from `start` (or from
    /// `Y_0 ~ N(μ_0, σ_0²)` if `None`); returns bands at the boundaries `0..=lrs.len()`.
    pub fn sample_bands(&self, lrs: &[f64], start: Option<f64>, samples: usize, rng: &mut Rng) -> Vec<Band> {
        let s = samples.max(2);
        let mut paths: Vec<f64> = (0..s)
            .map(|_| match start {
                Some(y) => y,
                None => {
                    let e: f64 = StandardNormal.sample(rng);
                    self.y0.0 + self.y0.1.sqrt() * e
                }
            })
            .collect();
        let mut bands = Vec::with_capacity(lrs.len() + 1);
        bands.push(quantile_band(&mut paths.clone()));
        for &lr in lrs {
            for y in paths.iter_mut() {
                let (m, sd) = self.predict_f(*y, lr);
                let e: f64 = StandardNormal.sample(rng);
                *y = self.link.apply(*y, m + sd * e);
                if !y.is_finite() {
                    *y = f64::MAX.sqrt();
                }
            }
            bands.push(quantile_band(&mut paths.clone()));
        }
        bands
    }
}

fn quantile_band(v: &mut [f64]) -> Band {
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |a: f64| {
        let pos = a * (v.len() - 1) as f64;
        let i = pos.floor() as usize;
        let j = (i + 1).min(v.len() - 1);
        v[i] + (pos - i as f64) * (v[j] - v[i])
    };
    Band { lo: q(0.05), median: q(0.5), hi: q(0.95) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_invert() {
        for link in [Link::Linear, Link::Exponential, Link::Softplus] {
            for (y, yn) in [(2.0, 1.5), (0.3, 0.9), (1e-3, 2e-3), (40.0, 35.0)] {
                let f = link.invert(y, yn);
                assert!((link.apply(y, f) - yn).abs() < 1e-9 * yn.max(1.0), "{link:?} {y} {yn}");
                assert!(link.apply(y, f + 0.1) > link.apply(y, f));
            }
        }
    }

    #[test]
    fn normal_quantiles() {
        assert!(norm_quantile(0.5).abs() < 1e-9);
        assert!((norm_quantile(0.975) - 1.959_963_985).abs() < 1e-8);
        assert!((norm_quantile(0.05) + 1.644_853_627).abs() < 1e-8);
    }
}
