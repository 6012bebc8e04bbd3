//! Bayesian logistic regression, the paper's first model (Coullon, South & Nemeth 2023, App. B.1):
//! `p(y_i = 1 | x_i, theta) = sigmoid(x_i . theta)`, prior `theta ~ N(0, prior_var I)` (default 10).

use super::kernels::{dot, gemm, log_sigmoid, residuals_in_place, residuals_matrix_in_place};
use super::Target;
use crate::data::Dataset;
use crate::error::{Error, Result};
use std::sync::Arc;

/// Rows per block in full-data passes (features of a block stay in L1).
const ROW_BLOCK: usize = 256;
/// Chunk of gathered minibatch rows handled at once.
const BATCH_CHUNK: usize = 128;
/// Samples per tile in [`Target::grad_log_density_many`].
const THETA_TILE: usize = 128;

/// Bayesian logistic regression with labels 0/1 and an isotropic Gaussian prior.
///
/// Parameters: `theta = (w_1..w_p)`, or `(w_1..w_p, b)` with an intercept `b` (last).
#[derive(Debug, Clone)]
pub struct LogisticRegression {
    data: Arc<Dataset>,
    prior_var: f64,
    intercept: bool,
    dim: usize,
}

impl LogisticRegression {
    /// Validates the prior variance (positive, finite) and the labels (0/1).
    pub fn new(data: Arc<Dataset>, prior_var: f64, intercept: bool) -> Result<Self> {
        if !(prior_var > 0.0 && prior_var.is_finite()) {
            return Err(Error::config(format!("logistic regression: prior_var must be positive and finite, got {prior_var}")));
        }
        if data.n == 0 || data.p == 0 {
            return Err(Error::data("logistic regression needs at least one row and one feature"));
        }
        data.check_binary_labels()?;
        let dim = data.p + usize::from(intercept);
        Ok(Self { data, prior_var, intercept, dim })
    }

    /// The data set.
    pub fn data(&self) -> &Arc<Dataset> { &self.data }
    /// Prior variance.
    pub fn prior_var(&self) -> f64 { self.prior_var }
    /// Whether the last parameter is an intercept.
    pub fn has_intercept(&self) -> bool { self.intercept }

    #[inline(always)]
    fn bias(&self, theta: &[f64]) -> f64 { if self.intercept { theta[self.data.p] } else { 0.0 } }

    /// Linear predictor `x_i . w + b`.
    #[inline(always)]
    pub fn linear_predictor(&self, theta: &[f64], i: usize) -> f64 {
        dot(self.data.row(i), &theta[..self.data.p]) + self.bias(theta)
    }
}

impl Target for LogisticRegression {
    fn dim(&self) -> usize { self.dim }
    fn n_data(&self) -> usize { self.data.n }

    fn log_prior(&self, theta: &[f64]) -> f64 {
        -0.5 * theta.iter().map(|t| t * t).sum::<f64>() / self.prior_var
    }

    fn add_grad_log_prior(&self, theta: &[f64], out: &mut [f64]) {
        let s = 1.0 / self.prior_var;
        for (o, t) in out.iter_mut().zip(theta) { *o -= s * t; }
    }

    /// `sum_{i in idx} (y_i - sigmoid(x_i . theta)) x_i`, in chunks: predictors, then vectorised
    /// residuals, then accumulation.
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        let p = self.data.p;
        let (x, y) = (&self.data.x, &self.data.y);
        let w = &theta[..p];
        let b = self.bias(theta);
        let mut z = [0.0f64; BATCH_CHUNK];
        let mut yy = [0.0f64; BATCH_CHUNK];
        let (og, ob) = out.split_at_mut(p);
        for chunk in idx.chunks(BATCH_CHUNK) {
            let m = chunk.len();
            for (k, &i) in chunk.iter().enumerate() {
                z[k] = dot(&x[i * p..i * p + p], w) + b;
                yy[k] = y[i];
            }
            residuals_in_place(&yy[..m], &mut z[..m]);
            for (k, &i) in chunk.iter().enumerate() {
                let r = z[k];
                for (o, v) in og.iter_mut().zip(&x[i * p..i * p + p]) { *o += r * v; }
            }
            if self.intercept { ob[0] += z[..m].iter().sum::<f64>(); }
        }
    }

    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let p = self.data.p;
        let w = &theta[..p];
        let b = self.bias(theta);
        let mut z = [0.0f64; ROW_BLOCK];
        let (og, ob) = out.split_at_mut(p);
        for (xb, yb) in self.data.x.chunks(ROW_BLOCK * p).zip(self.data.y.chunks(ROW_BLOCK)) {
            let m = yb.len();
            for (zk, row) in z.iter_mut().zip(xb.chunks_exact(p)) { *zk = dot(row, w) + b; }
            residuals_in_place(yb, &mut z[..m]);
            for (r, row) in z.iter().zip(xb.chunks_exact(p)) {
                for (o, v) in og.iter_mut().zip(row) { *o += r * v; }
            }
            if self.intercept { ob[0] += z[..m].iter().sum::<f64>(); }
        }
    }

    fn log_lik_point(&self, theta: &[f64], i: usize) -> f64 {
        let z = self.linear_predictor(theta, i);
        // y log s(z) + (1 - y) log s(-z)
        if self.data.y[i] == 1.0 { log_sigmoid(z) } else { log_sigmoid(-z) }
    }

    /// Blocked scoring: for each block of data rows `X_b` and tile of samples `Theta_t`,
    /// `Z = X_b Theta_t^T` (gemm), `R = y - sigmoid(Z)` (vectorised), `G_t += R^T X_b` (gemm).
    fn grad_log_density_many(&self, thetas: &[f64], out: &mut [f64]) {
        let (p, dim) = (self.data.p, self.dim);
        let s_total = thetas.len() / dim;
        let out = &mut out[..s_total * dim];
        out.iter_mut().for_each(|o| *o = 0.0);
        let tile = THETA_TILE.min(s_total.max(1));
        let mut zbuf = vec![0.0f64; ROW_BLOCK * tile];
        for (xb, yb) in self.data.x.chunks(ROW_BLOCK * p).zip(self.data.y.chunks(ROW_BLOCK)) {
            let m = yb.len();
            for t0 in (0..s_total).step_by(tile) {
                let st = tile.min(s_total - t0);
                let th = &thetas[t0 * dim..(t0 + st) * dim];
                let z = &mut zbuf[..m * st];
                // Z (m x st) = X_b (m x p) * W^T (p x st); W^T[j, s] = th[s * dim + j].
                gemm(m, p, st, 1.0, xb, p, 1, th, 1, dim, 0.0, z, st, 1);
                if self.intercept {
                    for row in z.chunks_exact_mut(st) {
                        for (s, v) in row.iter_mut().enumerate() { *v += th[s * dim + p]; }
                    }
                }
                residuals_matrix_in_place(yb, z, st);
                let o = &mut out[t0 * dim..(t0 + st) * dim];
                // G (st x p, row stride dim) += R^T (st x m) * X_b (m x p); R^T[s, i] = z[i * st + s].
                gemm(st, m, p, 1.0, z, 1, st, xb, p, 1, 1.0, o, dim, 1);
                if self.intercept {
                    for row in z.chunks_exact(st) {
                        for (s, v) in row.iter().enumerate() { o[s * dim + p] += v; }
                    }
                }
            }
        }
        for (t, o) in thetas.chunks_exact(dim).zip(out.chunks_exact_mut(dim)) { self.add_grad_log_prior(t, o); }
    }

    fn n_classes(&self) -> usize { 2 }

    fn class_probs(&self, theta: &[f64], i: usize, out: &mut [f64]) {
        let z = self.linear_predictor(theta, i);
        let p1 = super::kernels::sigmoid(z);
        out[0] = super::kernels::sigmoid(-z);
        out[1] = p1;
    }

    fn label(&self, i: usize) -> usize { self.data.y[i] as usize }

    fn name(&self) -> String {
        format!("logistic regression (N = {}, d = {}{})", self.data.n, self.dim, if self.intercept { ", with intercept" } else { "" })
    }
}
