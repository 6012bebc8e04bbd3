//! Multivariate Gaussian target N(mu, Sigma), given by its precision matrix P = Sigma^{-1}.

use super::Target;
use crate::error::{Error, Result};
use nalgebra::{DMatrix, DVector};

/// Exact Gaussian target `N(mean, cov)`; data-free (`n_data() == 1`).
#[derive(Debug, Clone)]
pub struct Gaussian {
    mean: Vec<f64>,
    cov: Vec<f64>,
    prec: Vec<f64>,
    d: usize,
}

impl Gaussian {
    /// Validates that `cov` (row-major d x d) is symmetric positive definite.
    pub fn new(mean: Vec<f64>, cov: Vec<f64>) -> Result<Self> {
        let d = mean.len();
        if d == 0 {
            return Err(Error::config("Gaussian target needs a mean of length >= 1"));
        }
        if cov.len() != d * d {
            return Err(Error::config(format!(
                "Gaussian covariance must have {} entries (d x d), got {}",
                d * d,
                cov.len()
            )));
        }
        if mean.iter().chain(cov.iter()).any(|v| !v.is_finite()) {
            return Err(Error::config("Gaussian mean and covariance must be finite"));
        }
        let m = DMatrix::from_row_slice(d, d, &cov);
        if (&m - m.transpose()).abs().max() > 1e-10 * (1.0 + m.abs().max()) {
            return Err(Error::config("Gaussian covariance must be symmetric"));
        }
        let chol =
            m.clone().cholesky().ok_or_else(|| Error::config("Gaussian covariance must be positive definite"))?;
        let prec = chol.inverse();
        Ok(Self { mean, cov, prec: prec.transpose().as_slice().to_vec(), d })
    }

    /// Isotropic Gaussian `N(mean, s^2 I)`.
    pub fn isotropic(mean: Vec<f64>, sd: f64) -> Result<Self> {
        let d = mean.len();
        if !(sd > 0.0) || !sd.is_finite() {
            return Err(Error::config("Gaussian standard deviation must be positive"));
        }
        let mut cov = vec![0.0; d * d];
        for i in 0..d {
            cov[i * d + i] = sd * sd;
        }
        Self::new(mean, cov)
    }

    /// Zero-mean Gaussian with unit variances and correlation `rho` between every pair of coordinates
    /// (positive definite iff `-1/(d-1) < rho < 1`). In 2-D: `[[1, rho], [rho, 1]]`.
    pub fn correlated(d: usize, rho: f64) -> Result<Self> {
        Self::with_mean_correlated(vec![0.0; d], rho)
    }

    /// Like [`Gaussian::correlated`] with a given mean.
    pub fn with_mean_correlated(mean: Vec<f64>, rho: f64) -> Result<Self> {
        let d = mean.len();
        if d == 0 {
            return Err(Error::config("Gaussian target needs d >= 1"));
        }
        let lower = if d > 1 { -1.0 / (d as f64 - 1.0) } else { f64::NEG_INFINITY };
        if !(rho < 1.0 && rho > lower) {
            return Err(Error::config(format!(
                "Gaussian correlation rho must lie in ({lower}, 1) for d = {d}, got {rho}"
            )));
        }
        let mut cov = vec![rho; d * d];
        for i in 0..d {
            cov[i * d + i] = 1.0;
        }
        Self::new(mean, cov)
    }

    /// Mean vector.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }
    /// Covariance, row-major d x d.
    pub fn cov(&self) -> &[f64] {
        &self.cov
    }

    fn quad(&self, theta: &[f64]) -> f64 {
        let d = self.d;
        let mut q = 0.0;
        for i in 0..d {
            let ri = theta[i] - self.mean[i];
            let row = &self.prec[i * d..(i + 1) * d];
            let mut s = 0.0;
            for j in 0..d {
                s += row[j] * (theta[j] - self.mean[j]);
            }
            q += ri * s;
        }
        q
    }
}

impl Target for Gaussian {
    fn dim(&self) -> usize {
        self.d
    }
    dataless_target!();
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        // grad log N(theta; mu, Sigma) = -P (theta - mu)
        let d = self.d;
        for (i, o) in out[..d].iter_mut().enumerate() {
            let row = &self.prec[i * d..(i + 1) * d];
            let mut s = 0.0;
            for j in 0..d {
                s += row[j] * (theta[j] - self.mean[j]);
            }
            *o -= s;
        }
    }
    fn log_lik_point(&self, theta: &[f64], _i: usize) -> f64 {
        -0.5 * self.quad(theta)
    }

    fn exact_moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        Some((self.mean.clone(), self.cov.clone()))
    }
    fn name(&self) -> String {
        format!("gaussian (d = {})", self.d)
    }
}

/// Convenience for tests: a Gaussian's exact covariance as an nalgebra matrix.
pub fn cov_matrix(g: &Gaussian) -> DMatrix<f64> {
    DMatrix::from_row_slice(g.d, g.d, &g.cov)
}

/// Convenience for tests: a Gaussian's mean as an nalgebra vector.
pub fn mean_vector(g: &Gaussian) -> DVector<f64> {
    DVector::from_row_slice(&g.mean)
}
