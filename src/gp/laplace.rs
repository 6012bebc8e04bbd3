//! Binary GP classification by the Laplace approximation (Rasmussen & Williams 2006, Algorithm 3.1 for the
//! mode, Algorithm 3.2 for the prediction (mean eq. 3.21), and the probit approximation of the predictive
//! probability, eq. 3.25 with MacKay's `κ = (1 + π σ² / 8)^{-1/2}`), logistic likelihood, constant prior mean.

use nalgebra::{DMatrix, DVector};

use super::{cholesky_jitter, Kernel};
use crate::math::logistic as sigmoid;
use crate::{Error, Result};

/// A fitted Laplace GP classifier.
#[derive(Debug, Clone)]
pub struct LaplaceClassifier {
    kernel: Kernel,
    xs: Vec<Vec<f64>>,
    mean: f64,
    /// `∇ log p(y|f̂)` at the mode and `W½`, and the Cholesky factor of `B = I + W½ K W½`.
    grad: DVector<f64>,
    sw: DVector<f64>,
    lb: DMatrix<f64>,
}

impl LaplaceClassifier {
    /// Finds the mode of `p(f | y)` by Newton's method (R&W Algorithm 3.1, at most 50 steps, stopping when no
    /// latent value moves by `1e-8`) for labels `t` in {0, 1} at inputs `xs`, prior `f ~ GP(mean, k)`.
    /// Errors: `Numerical` if `B` cannot be factorised.
    pub fn fit(kernel: Kernel, xs: Vec<Vec<f64>>, t: &[f64], mean: f64) -> Result<Self> {
        let nn = xs.len();
        let k = DMatrix::from_fn(nn, nn, |i, j| kernel.eval(&xs[i], &xs[j]));
        let tv = DVector::from_column_slice(t);
        let mut grad = DVector::zeros(nn);
        let mut swf = DVector::zeros(nn);
        let mut f = DVector::zeros(nn); // f - mean
        for _ in 0..50 {
            let pi = f.map(|v| sigmoid(v + mean));
            let w = pi.map(|p| p * (1.0 - p));
            let sw = w.map(|v| v.sqrt());
            let g = &tv - &pi;
            let bm = DMatrix::identity(nn, nn) + DMatrix::from_fn(nn, nn, |i, j| sw[i] * k[(i, j)] * sw[j]);
            let (l, _) = cholesky_jitter(&bm, 1e-6)?;
            // Algorithm 3.1, lines 5-8: b = W f + ∇ log p(y|f), a = b - W½ L⁻ᵀ L⁻¹ W½ K b, f = K a
            let b = w.component_mul(&f) + &g;
            let kb = &k * &b;
            let swkb = sw.component_mul(&kb);
            let y1 = l.solve_lower_triangular(&swkb).ok_or_else(|| Error::numerical("classifier solve"))?;
            let y2 = l.transpose().solve_upper_triangular(&y1).ok_or_else(|| Error::numerical("classifier solve"))?;
            let a = &b - sw.component_mul(&y2);
            let fnew = &k * &a;
            let change = (&fnew - &f).amax();
            f = fnew;
            grad = &tv - f.map(|v| sigmoid(v + mean));
            swf = f.map(|v| {
                let p = sigmoid(v + mean);
                (p * (1.0 - p)).sqrt()
            });
            if change < 1e-8 {
                break;
            }
        }
        let bm = DMatrix::identity(nn, nn) + DMatrix::from_fn(nn, nn, |i, j| swf[i] * k[(i, j)] * swf[j]);
        let lb = cholesky_jitter(&bm, 1e-6)?.0;
        Ok(LaplaceClassifier { kernel, xs, mean, grad, sw: swf, lb })
    }

    /// Predictive probability of label 1 at `x`: mean `m + k_*ᵀ ∇ log p(y|f̂)` (R&W eq. 3.21), variance
    /// `k(x, x) - vᵀv`, `v = L⁻¹ W½ k_*` (Algorithm 3.2), then `σ(κ μ)` (eq. 3.25, probit approximation).
    pub fn prob(&self, x: &[f64]) -> f64 {
        let ks = DVector::from_fn(self.xs.len(), |i, _| self.kernel.eval(&self.xs[i], x));
        let mu = self.mean + ks.dot(&self.grad);
        let v = self.lb.solve_lower_triangular(&self.sw.component_mul(&ks)).unwrap_or_else(|| DVector::zeros(ks.len()));
        let var = (self.kernel.eval(x, x) - v.dot(&v)).max(0.0);
        sigmoid(mu / (1.0 + std::f64::consts::PI * var / 8.0).sqrt())
    }
}
