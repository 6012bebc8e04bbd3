//! Two-dimensional non-Gaussian targets for pictures: a banana and a two-mode Gaussian mixture.
//! Both are data-free (`n_data() == 1`; the whole log density is the "likelihood" of the single point)
//! and have normalised log densities, so they can be drawn as contours with [`log_density_grid`].

use super::Target;
use crate::error::{Error, Result};
use crate::math::{exp, ln};
use std::f64::consts::PI;

/// Haario et al.'s twisted Gaussian ("banana"; Haario, Saksman & Tamminen 1999, Sec. 4) in 2-D:
/// `theta_1 ~ N(0, var)`, `theta_2 + b (theta_1^2 - var) ~ N(0, 1)`.
///
/// The twist has unit Jacobian, so the density is normalised and the moments are exact:
/// `E[theta] = (0, 0)`, `Var theta_1 = var`, `Var theta_2 = 1 + 2 b^2 var^2`, `Cov = 0`
/// (since `E[theta_1^3] = 0` and `Var(theta_1^2) = 2 var^2`).
#[derive(Debug, Clone)]
pub struct Banana {
    b: f64,
    var: f64,
}

impl Banana {
    /// `b` (curvature, any finite value) and `var` (> 0, variance of the first coordinate).
    pub fn new(b: f64, var: f64) -> Result<Self> {
        if !b.is_finite() {
            return Err(Error::config(format!("banana: b must be finite, got {b}")));
        }
        if !(var > 0.0 && var.is_finite()) {
            return Err(Error::config(format!("banana: var must be positive and finite, got {var}")));
        }
        Ok(Self { b, var })
    }
    /// Curvature `b`.
    pub fn b(&self) -> f64 {
        self.b
    }
    /// Variance of the first coordinate.
    pub fn var(&self) -> f64 {
        self.var
    }
}

impl Target for Banana {
    fn dim(&self) -> usize {
        2
    }
    dataless_target!();
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let u = theta[1] + self.b * (theta[0] * theta[0] - self.var);
        out[0] += -theta[0] / self.var - 2.0 * self.b * theta[0] * u;
        out[1] += -u;
    }
    fn log_lik_point(&self, theta: &[f64], _i: usize) -> f64 {
        let u = theta[1] + self.b * (theta[0] * theta[0] - self.var);
        -0.5 * theta[0] * theta[0] / self.var - 0.5 * u * u - ln(2.0 * PI) - 0.5 * ln(self.var)
    }
    fn exact_moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let v2 = 1.0 + 2.0 * self.b * self.b * self.var * self.var;
        Some((vec![0.0, 0.0], vec![self.var, 0.0, 0.0, v2]))
    }
    fn name(&self) -> String {
        format!("banana (b = {}, var = {})", self.b, self.var)
    }
}

/// Two-component Gaussian mixture in 2-D: `w N(m1, s1^2 I) + (1 - w) N(m2, s2^2 I)`.
/// Exact moments: mean `w m1 + (1-w) m2`, covariance `w s1^2 I + (1-w) s2^2 I + w (1-w) (m1-m2)(m1-m2)^T`.
#[derive(Debug, Clone)]
pub struct Mixture2d {
    w: f64,
    m: [[f64; 2]; 2],
    s2: [f64; 2],
    /// `log w_k - log(2 pi s_k^2)`: log weight plus normalising constant.
    c: [f64; 2],
}

impl Mixture2d {
    /// `weight` in (0, 1) of the first component, means and standard deviations (> 0).
    pub fn new(weight: f64, mean1: [f64; 2], mean2: [f64; 2], sd1: f64, sd2: f64) -> Result<Self> {
        if !(weight > 0.0 && weight < 1.0) {
            return Err(Error::config(format!("mixture: weight must be in (0, 1), got {weight}")));
        }
        if mean1.iter().chain(&mean2).any(|v| !v.is_finite()) {
            return Err(Error::config("mixture: means must be finite"));
        }
        for sd in [sd1, sd2] {
            if !(sd > 0.0 && sd.is_finite()) {
                return Err(Error::config(format!("mixture: standard deviations must be positive, got {sd}")));
            }
        }
        let s2 = [sd1 * sd1, sd2 * sd2];
        let c = [ln(weight) - ln(2.0 * PI * s2[0]), ln(1.0 - weight) - ln(2.0 * PI * s2[1])];
        Ok(Self { w: weight, m: [mean1, mean2], s2, c })
    }

    /// Component log terms `log w_k + log N(theta; m_k, s_k^2 I)`.
    #[inline]
    #[allow(clippy::needless_range_loop)]
    fn terms(&self, theta: &[f64]) -> [f64; 2] {
        let mut t = [0.0; 2];
        for k in 0..2 {
            let dx = theta[0] - self.m[k][0];
            let dy = theta[1] - self.m[k][1];
            t[k] = self.c[k] - 0.5 * (dx * dx + dy * dy) / self.s2[k];
        }
        t
    }
}

impl Target for Mixture2d {
    fn dim(&self) -> usize {
        2
    }
    dataless_target!();
    /// `grad log p = sum_k r_k (m_k - theta) / s_k^2` with responsibilities `r_k` from a stable softmax.
    #[allow(clippy::needless_range_loop)]
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let t = self.terms(theta);
        let mx = t[0].max(t[1]);
        let e = [exp(t[0] - mx), exp(t[1] - mx)];
        let z = e[0] + e[1];
        for k in 0..2 {
            let r = e[k] / z / self.s2[k];
            out[0] += r * (self.m[k][0] - theta[0]);
            out[1] += r * (self.m[k][1] - theta[1]);
        }
    }
    fn log_lik_point(&self, theta: &[f64], _i: usize) -> f64 {
        let t = self.terms(theta);
        let mx = t[0].max(t[1]);
        mx + ln(exp(t[0] - mx) + exp(t[1] - mx))
    }
    fn exact_moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let w = self.w;
        let mean = [w * self.m[0][0] + (1.0 - w) * self.m[1][0], w * self.m[0][1] + (1.0 - w) * self.m[1][1]];
        let dm = [self.m[0][0] - self.m[1][0], self.m[0][1] - self.m[1][1]];
        let iso = w * self.s2[0] + (1.0 - w) * self.s2[1];
        let ww = w * (1.0 - w);
        let cov = vec![iso + ww * dm[0] * dm[0], ww * dm[0] * dm[1], ww * dm[0] * dm[1], iso + ww * dm[1] * dm[1]];
        Some((mean.to_vec(), cov))
    }
    fn name(&self) -> String {
        "two-mode Gaussian mixture (2-D)".to_string()
    }
}

/// Log density of a 2-D target on a regular grid, for contour plots: `out[iy * nx + ix]` is
/// `log_density((x_ix, y_iy))` with `x_ix = xlim.0 + ix (xlim.1 - xlim.0) / (nx - 1)` (same for y).
pub fn log_density_grid(
    target: &dyn Target,
    xlim: (f64, f64),
    ylim: (f64, f64),
    nx: usize,
    ny: usize,
) -> Result<Vec<f64>> {
    if target.dim() != 2 {
        return Err(Error::config(format!("density grid needs a 2-D target, this one has d = {}", target.dim())));
    }
    if nx < 2 || ny < 2 {
        return Err(Error::config("density grid needs at least 2 points per axis"));
    }
    if ![xlim.0, xlim.1, ylim.0, ylim.1].iter().all(|v| v.is_finite()) || xlim.0 >= xlim.1 || ylim.0 >= ylim.1 {
        return Err(Error::config("density grid limits must be finite with lower < upper"));
    }
    let dx = (xlim.1 - xlim.0) / (nx - 1) as f64;
    let dy = (ylim.1 - ylim.0) / (ny - 1) as f64;
    let mut out = Vec::with_capacity(nx * ny);
    for iy in 0..ny {
        for ix in 0..nx {
            out.push(target.log_density(&[xlim.0 + ix as f64 * dx, ylim.0 + iy as f64 * dy]));
        }
    }
    Ok(out)
}

/// Density on a grid (see [`log_density_grid`]), scaled so that the maximum is 1.
pub fn density_grid(target: &dyn Target, xlim: (f64, f64), ylim: (f64, f64), nx: usize, ny: usize) -> Result<Vec<f64>> {
    let mut g = log_density_grid(target, xlim, ylim, nx, ny)?;
    let mx = g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    g.iter_mut().for_each(|v| *v = exp(*v - mx));
    Ok(g)
}
