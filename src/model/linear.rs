//! Bayesian linear regression with known noise variance and Gaussian prior: the exact-posterior
//! benchmark for samplers. `y_i = x_i . theta + e_i`, `e_i ~ N(0, noise_var)`, `theta ~ N(0, prior_var I)`.
//! Posterior (e.g. Bishop 2006, eq. 3.53-3.54): precision `L = X^T X / noise_var + I / prior_var`,
//! mean `L^{-1} X^T y / noise_var`, covariance `L^{-1}`.

use super::Target;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::{axpy, dot4};
use nalgebra::{DMatrix, DVector};
use std::sync::Arc;

/// Bayesian linear regression (no intercept: add a constant column for one).
#[derive(Debug, Clone)]
pub struct LinearRegression {
    data: Arc<Dataset>,
    noise_var: f64,
    prior_var: f64,
    /// `X^T X` (p x p, row-major) and `X^T y`: the full-data gradient is `(X^T y - X^T X theta) / noise_var`.
    xtx: Vec<f64>,
    xty: Vec<f64>,
    post_mean: Vec<f64>,
    post_cov: Vec<f64>,
}

impl LinearRegression {
    /// Validates the variances and computes the exact posterior (Cholesky of the posterior precision).
    pub fn new(data: Arc<Dataset>, noise_var: f64, prior_var: f64) -> Result<Self> {
        for (name, v) in [("noise_var", noise_var), ("prior_var", prior_var)] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(Error::config(format!("linear regression: {name} must be positive and finite, got {v}")));
            }
        }
        let (n, p) = (data.n, data.p);
        if n == 0 || p == 0 {
            return Err(Error::data("linear regression needs at least one row and one feature"));
        }
        let mut xtx = vec![0.0; p * p];
        let mut xty = vec![0.0; p];
        for i in 0..n {
            let row = data.row(i);
            axpy(data.y[i], row, &mut xty);
            for a in 0..p {
                axpy(row[a], row, &mut xtx[a * p..(a + 1) * p]);
            }
        }
        let mut prec = DMatrix::from_row_slice(p, p, &xtx) / noise_var;
        for a in 0..p {
            prec[(a, a)] += 1.0 / prior_var;
        }
        let chol = prec
            .cholesky()
            .ok_or_else(|| Error::numerical("linear regression: posterior precision is not positive definite"))?;
        let mean = chol.solve(&(DVector::from_row_slice(&xty) / noise_var));
        let cov = chol.inverse();
        if mean.iter().chain(cov.iter()).any(|v| !v.is_finite()) {
            return Err(Error::numerical("linear regression: the exact posterior is not finite (features too large?)"));
        }
        Ok(Self {
            data,
            noise_var,
            prior_var,
            xtx,
            xty,
            post_mean: mean.as_slice().to_vec(),
            post_cov: cov.transpose().as_slice().to_vec(),
        })
    }

    /// The data set.
    pub fn data(&self) -> &Arc<Dataset> {
        &self.data
    }
    /// Known noise variance.
    pub fn noise_var(&self) -> f64 {
        self.noise_var
    }
    /// Prior variance.
    pub fn prior_var(&self) -> f64 {
        self.prior_var
    }
}

impl Target for LinearRegression {
    fn dim(&self) -> usize {
        self.data.p
    }
    fn n_data(&self) -> usize {
        self.data.n
    }
    fn log_prior(&self, theta: &[f64]) -> f64 {
        -0.5 * dot4(theta, theta) / self.prior_var
    }
    fn add_grad_log_prior(&self, theta: &[f64], out: &mut [f64]) {
        axpy(-1.0 / self.prior_var, theta, out);
    }
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        let s = 1.0 / self.noise_var;
        for &i in idx {
            let row = self.data.row(i);
            let r = (self.data.y[i] - dot4(row, theta)) * s;
            axpy(r, row, out);
        }
    }
    /// Uses the precomputed sufficient statistics: O(p^2) instead of O(N p).
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let p = self.data.p;
        let s = 1.0 / self.noise_var;
        for ((o, xty), row) in out.iter_mut().zip(&self.xty).zip(self.xtx.chunks_exact(p)) {
            *o += (xty - dot4(row, theta)) * s;
        }
    }
    fn log_lik_point(&self, theta: &[f64], i: usize) -> f64 {
        let r = self.data.y[i] - dot4(self.data.row(i), theta);
        -0.5 * r * r / self.noise_var
    }
    fn exact_moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        Some((self.post_mean.clone(), self.post_cov.clone()))
    }
    fn name(&self) -> String {
        format!("linear regression (N = {}, d = {})", self.data.n, self.data.p)
    }
}
