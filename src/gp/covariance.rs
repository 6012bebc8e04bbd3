//! Covariance functions for [`super::Gp`].
//!
//! A [`Kernel`] is a stationary base kernel on the *spatial* coordinates (squared exponential or
//! Matern-5/2, per-dimension length scales, signal variance), optionally
//! - multiplied by the temporal kernel `k_T(t, t') = (1 - omega)^(|t - t'| / 2)` of Bogunovic, Scarlett &
//!   Cevher (2016, "Time-varying Gaussian process bandit optimization", eq. 4): then every input vector has
//!   one extra, *last* coordinate, the time `t`;
//! - made permutation invariant, `k(b, b') = k_S(sort(b), sort(b'))` (Nguyen, Masrani, Brekelmans, Osborne &
//!   Wood 2020, "Gaussian process bandit optimization of the thermodynamic variational objective", sec. 4.2):
//!   the spatial coordinates are sorted ascending before the base kernel sees them (the time is not sorted).
//!
//! Hyperparameters are exposed in log space for optimisation, in this order:
//! `[ln l_1, ..., ln l_d, ln sf2, (logit omega if temporal)]`.

use serde::{Deserialize, Serialize};

use crate::math::{exp, ln};
use crate::{Error, Result};

/// The stationary base kernel on the spatial coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum BaseKernel {
    /// `sf2 exp(-r^2 / 2)`, `r^2 = sum_i (x_i - y_i)^2 / l_i^2` (Rasmussen & Williams 2006, eq. 4.9).
    SquaredExponential,
    /// `sf2 (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)` (Rasmussen & Williams 2006, eq. 4.17, nu = 5/2).
    Matern52,
}

/// A covariance function: base kernel x optional temporal kernel, optionally permutation invariant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kernel {
    /// Base kernel.
    pub base: BaseKernel,
    /// One length scale per spatial dimension (> 0).
    pub length_scales: Vec<f64>,
    /// Signal variance `sf2` (> 0).
    pub signal_var: f64,
    /// Forgetting rate `omega` in (0, 1) of the temporal kernel; `None` = stationary in time.
    pub omega: Option<f64>,
    /// Sort the spatial coordinates before evaluating (permutation-invariant kernel).
    pub permutation_invariant: bool,
}

const SQRT5: f64 = 2.236_067_977_499_79;

use crate::math::logistic as sigmoid;

impl Kernel {
    /// A kernel with `dim` spatial dimensions, all length scales `length_scale`, signal variance `signal_var`,
    /// no temporal factor, not permutation invariant. Errors if `dim == 0` or a value is not positive/finite.
    pub fn new(base: BaseKernel, dim: usize, length_scale: f64, signal_var: f64) -> Result<Self> {
        let k = Kernel {
            base,
            length_scales: vec![length_scale; dim],
            signal_var,
            omega: None,
            permutation_invariant: false,
        };
        k.validate()?;
        Ok(k)
    }

    /// Same kernel times the temporal kernel with forgetting rate `omega` in (0, 1).
    pub fn with_temporal(mut self, omega: f64) -> Result<Self> {
        self.omega = Some(omega);
        self.validate()?;
        Ok(self)
    }

    /// Same kernel, permutation invariant in the spatial coordinates.
    pub fn permutation_invariant(mut self) -> Self {
        self.permutation_invariant = true;
        self
    }

    /// Checks every field; called by [`super::Gp::fit`].
    pub fn validate(&self) -> Result<()> {
        if self.length_scales.is_empty() {
            return Err(Error::config("kernel: at least one spatial dimension is needed"));
        }
        if self.length_scales.iter().any(|l| !(l.is_finite() && *l > 0.0)) {
            return Err(Error::config("kernel: length scales must be positive and finite"));
        }
        if !(self.signal_var.is_finite() && self.signal_var > 0.0) {
            return Err(Error::config("kernel: signal variance must be positive and finite"));
        }
        if let Some(w) = self.omega {
            if !(w > 0.0 && w < 1.0) {
                return Err(Error::config("kernel: temporal forgetting rate omega must be in (0, 1)"));
            }
        }
        Ok(())
    }

    /// Number of spatial dimensions.
    pub fn dim(&self) -> usize {
        self.length_scales.len()
    }

    /// Length of an input vector: spatial dimensions, plus one (the time, last) if temporal.
    pub fn input_dim(&self) -> usize {
        self.dim() + usize::from(self.omega.is_some())
    }

    /// Number of (log-space) hyperparameters.
    pub fn n_params(&self) -> usize {
        self.dim() + 1 + usize::from(self.omega.is_some())
    }

    /// Hyperparameters in log space: `[ln l_1..ln l_d, ln sf2, (logit omega)]`.
    pub fn params(&self) -> Vec<f64> {
        let mut p: Vec<f64> = self.length_scales.iter().map(|l| ln(*l)).collect();
        p.push(ln(self.signal_var));
        if let Some(w) = self.omega {
            p.push(ln(w / (1.0 - w)));
        }
        p
    }

    /// Sets the hyperparameters from log space (inverse of [`Kernel::params`]). `p.len()` must equal
    /// [`Kernel::n_params`].
    pub fn set_params(&mut self, p: &[f64]) {
        let d = self.dim();
        debug_assert_eq!(p.len(), self.n_params());
        for (l, v) in self.length_scales.iter_mut().zip(p) {
            *l = exp(*v);
        }
        self.signal_var = exp(p[d]);
        if self.omega.is_some() {
            // keep omega strictly inside (0, 1) in floating point
            self.omega = Some(sigmoid(p[d + 1]).clamp(1e-12, 1.0 - 1e-12));
        }
    }

    /// The canonical form of an input: spatial part sorted ascending if permutation invariant, time kept.
    /// `perm[i]` (if given) receives the original index of canonical coordinate `i`.
    pub fn canonicalize_into(&self, x: &[f64], out: &mut [f64], perm: Option<&mut [usize]>) {
        out.copy_from_slice(x);
        let d = self.dim();
        if self.permutation_invariant {
            match perm {
                Some(p) => {
                    for (i, v) in p.iter_mut().enumerate().take(d) {
                        *v = i;
                    }
                    p[..d].sort_by(|&a, &b| x[a].total_cmp(&x[b]));
                    for i in 0..d {
                        out[i] = x[p[i]];
                    }
                }
                None => out[..d].sort_by(|a, b| a.total_cmp(b)),
            }
        } else if let Some(p) = perm {
            for (i, v) in p.iter_mut().enumerate().take(d) {
                *v = i;
            }
        }
    }

    /// Canonical form of `x` (see [`Kernel::canonicalize_into`]).
    pub fn canonicalize(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        self.canonicalize_into(x, &mut out, None);
        out
    }

    /// `k(a, b)` for raw (non-canonical) inputs of length [`Kernel::input_dim`].
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        let ca = self.canonicalize(a);
        let cb = self.canonicalize(b);
        self.eval_canon(&ca, &cb)
    }

    /// Scaled squared distance on the spatial part.
    #[inline]
    fn r2(&self, a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for ((x, y), l) in a.iter().zip(b).zip(&self.length_scales) {
            let u = (x - y) / l;
            s += u * u;
        }
        s
    }

    /// Base kernel value from `r^2` and `g(r) = -(1/r) dk/dr` (so `dk/dx_i = -g (x_i - y_i) / l_i^2`).
    #[inline]
    fn base_and_g(&self, r2: f64) -> (f64, f64) {
        let sf2 = self.signal_var;
        match self.base {
            BaseKernel::SquaredExponential => {
                let k = sf2 * exp(-0.5 * r2);
                (k, k)
            }
            BaseKernel::Matern52 => {
                let r = r2.sqrt();
                let e = exp(-SQRT5 * r);
                let k = sf2 * (1.0 + SQRT5 * r + 5.0 / 3.0 * r2) * e;
                // dk/dr = -sf2 (5/3) r (1 + sqrt5 r) e
                let g = sf2 * 5.0 / 3.0 * (1.0 + SQRT5 * r) * e;
                (k, g)
            }
        }
    }

    #[inline]
    fn temporal(&self, a: &[f64], b: &[f64]) -> (f64, f64) {
        match self.omega {
            Some(w) => {
                let d = self.dim();
                let dt = (a[d] - b[d]).abs();
                (exp(0.5 * dt * ln(1.0 - w)), dt)
            }
            None => (1.0, 0.0),
        }
    }

    /// `k(a, b)` for canonical inputs (see [`Kernel::canonicalize_into`]).
    #[inline]
    pub fn eval_canon(&self, a: &[f64], b: &[f64]) -> f64 {
        let (k, _) = self.base_and_g(self.r2(a, b));
        k * self.temporal(a, b).0
    }

    /// Gradient of `k(a, b)` with respect to the log hyperparameters (canonical inputs), written to `out`
    /// (length [`Kernel::n_params`]). Returns `k(a, b)`.
    pub fn grad_params_canon(&self, a: &[f64], b: &[f64], out: &mut [f64]) -> f64 {
        let d = self.dim();
        let r2 = self.r2(a, b);
        let (kb, g) = self.base_and_g(r2);
        let (kt, dt) = self.temporal(a, b);
        // d k / d ln l_i = g (x_i - y_i)^2 / l_i^2
        for i in 0..d {
            let u = (a[i] - b[i]) / self.length_scales[i];
            out[i] = g * u * u * kt;
        }
        out[d] = kb * kt;
        if let Some(w) = self.omega {
            // k_T = exp(dt/2 ln(1 - w)), w = sigmoid(u): d ln(1 - w)/du = -w
            out[d + 1] = kb * kt * 0.5 * dt * (-w);
        }
        kb * kt
    }

    /// Gradient of `k(a, b)` with respect to the *spatial* part of canonical `a`, written to `out[..dim]`.
    /// Returns `k(a, b)`. (The time coordinate is not differentiated: arms are chosen at a fixed time.)
    pub fn grad_x_canon(&self, a: &[f64], b: &[f64], out: &mut [f64]) -> f64 {
        let d = self.dim();
        let (kb, g) = self.base_and_g(self.r2(a, b));
        let (kt, _) = self.temporal(a, b);
        for i in 0..d {
            let l = self.length_scales[i];
            out[i] = -g * kt * (a[i] - b[i]) / (l * l);
        }
        kb * kt
    }

    /// `k(x, x)` (the prior variance; constant for these stationary kernels).
    pub fn prior_var(&self) -> f64 {
        self.signal_var
    }
}
