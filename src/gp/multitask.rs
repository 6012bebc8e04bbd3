//! Exact GP regression over (input, task) pairs with the product kernel of Picheny, Dutordoir, Artemev &
//! Durrande (2020), Sec. 4.1: `k_f[(Y, x, ω), (Y', x', ω')] = k_Y(Y, Y') k_x(x, x') k_Ω(ω, ω')`, with each task
//! embedded at a learnt location `ω → w ∈ R^L` ("a set of L × M parameters to infer"; L = 2 as in their
//! Sec. 4.3). Zero prior mean; inputs and targets standardised by the caller.
//!
//! - `k_Y k_x`: the Matern 5/2 ARD kernel of [`Kernel`] over the two inputs (one ARD Matern is the product of
//!   per-input factors only for the squared exponential; the text's Sec. 4.3 says "a Matérn-5/2 kernel", and we
//!   use the ARD form over `(Y, x)` that the single-task model uses).
//! - `k_Ω(w, w') = exp(-|w - w'|² / 2)`: the text does not contain the kernel over the latent task space; we use
//!   a squared exponential with unit length scale (the locations carry the scale). PSD, 1 on the diagonal, so
//!   with one task the product kernel is exactly the single-task kernel (tested).
//! - [`MultiTaskGp`]: Cholesky of `K + σ² I` (R&W Algorithm 2.1), batch predictive mean and covariance at any
//!   location (a task without data, or a hypothetical new task `w_new`, Sec. 4.4).
//! - Type-II ML: the text optimises the model by gradient ("automatic differentiation", Sec. 2.2) without
//!   listing the hyperparameters; we fit the task locations by gradient ascent on the log marginal likelihood
//!   (analytic gradient, R&W eq. 5.9, checked against finite differences) and the input length scales, signal
//!   and noise variances by coordinate search over grids (tunelab's choice).

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::{cholesky_jitter, BaseKernel, Kernel};
use crate::math::{cos, exp, ln, sin};
use crate::{Error, Result};

/// A training input: two coordinates and the task index (its location is `MtHyper::loc[task]`).
pub type TaskPoint = ([f64; 2], usize);
/// A query: two coordinates and a task location in the latent space (Sec. 4.1's `w`).
pub type LocPoint = ([f64; 2], [f64; 2]);

/// Hyperparameters of the multi-task GP (inputs and targets standardised by the caller).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtHyper {
    /// Length scales of the input kernel over the two inputs.
    pub ls: [f64; 2],
    pub signal_var: f64,
    pub noise_var: f64,
    /// Task locations `w_t ∈ R^2` (Sec. 4.1), one per task.
    pub loc: Vec<[f64; 2]>,
}

impl MtHyper {
    /// Defaults for `m` tasks: locations on a circle of radius 0.5 (pairwise correlations 0.6-0.9 under
    /// `k_Ω`), a deterministic start for the gradient ascent (the text does not contain an initialisation).
    pub fn new(m: usize) -> Self {
        let loc = (0..m)
            .map(|t| {
                let a = 2.0 * std::f64::consts::PI * t as f64 / m.max(1) as f64;
                [0.5 * cos(a), 0.5 * sin(a)]
            })
            .collect();
        MtHyper { ls: [1.2, 0.2], signal_var: 1.0, noise_var: 0.03, loc }
    }

    /// The input kernel as a [`Kernel`]: Matern 5/2 ARD with these length scales and signal variance.
    pub fn input_kernel(&self) -> Kernel {
        Kernel {
            base: BaseKernel::Matern52,
            length_scales: self.ls.to_vec(),
            signal_var: self.signal_var,
            omega: None,
            permutation_invariant: false,
        }
    }
}

/// The input kernel (R&W eq. 4.17, through [`Kernel::eval_canon`]).
pub fn k_input(h: &MtHyper, a: &[f64; 2], b: &[f64; 2]) -> f64 {
    h.input_kernel().eval_canon(a, b)
}

/// `k_Ω(w, w') = exp(-|w - w'|² / 2)` (our choice: the text does not contain this kernel).
pub fn k_task(w: &[f64; 2], v: &[f64; 2]) -> f64 {
    let d0 = w[0] - v[0];
    let d1 = w[1] - v[1];
    exp(-0.5 * (d0 * d0 + d1 * d1))
}

/// The product kernel between two located inputs.
pub fn k_product(h: &MtHyper, a: &LocPoint, b: &LocPoint) -> f64 {
    h.input_kernel().eval_canon(&a.0, &b.0) * k_task(&a.1, &b.1)
}

impl MtHyper {
    /// A training point's located form.
    pub fn located(&self, p: &TaskPoint) -> LocPoint {
        (p.0, self.loc[p.1])
    }
}

/// Gram matrix of the product kernel over training points.
pub fn gram(h: &MtHyper, pts: &[TaskPoint]) -> DMatrix<f64> {
    let a: Vec<LocPoint> = pts.iter().map(|p| h.located(p)).collect();
    cross(h, &a, &a)
}

fn cross(h: &MtHyper, a: &[LocPoint], b: &[LocPoint]) -> DMatrix<f64> {
    let ku = h.input_kernel();
    DMatrix::from_fn(a.len(), b.len(), |i, j| ku.eval_canon(&a[i].0, &b[j].0) * k_task(&a[i].1, &b[j].1))
}

/// An exact GP with the product kernel (zero prior mean on standardised targets).
#[derive(Debug, Clone)]
pub struct MultiTaskGp {
    pub hyper: MtHyper,
    pts: Vec<TaskPoint>,
    z: Vec<f64>,
    chol: DMatrix<f64>,
    alpha: DVector<f64>,
    lml: f64,
}

impl MultiTaskGp {
    /// The data hold more than one task.
    pub fn multi_task(&self) -> bool {
        self.pts.iter().any(|p| p.1 != self.pts[0].1)
    }

    /// Fits with fixed hyperparameters (R&W Algorithm 2.1; log marginal likelihood eq. 2.30). Errors:
    /// `Config` when a task index has no location, `Numerical` when the Gram matrix cannot be factorised.
    pub fn fit(pts: &[TaskPoint], z: &[f64], h: MtHyper) -> Result<Self> {
        if pts.len() != z.len() {
            return Err(Error::config("multi-task GP: inputs and targets differ in length"));
        }
        if pts.iter().any(|p| p.1 >= h.loc.len()) {
            return Err(Error::config("multi-task GP: a task has no location"));
        }
        let n = pts.len();
        let mut k = gram(&h, pts);
        for i in 0..n {
            k[(i, i)] += h.noise_var;
        }
        let (l, _) = cholesky_jitter(&k, 1e-6)?;
        let y = DVector::from_column_slice(z);
        let alpha = if n == 0 {
            DVector::zeros(0)
        } else {
            let t = l
                .solve_lower_triangular(&y)
                .ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?;
            l.transpose()
                .solve_upper_triangular(&t)
                .ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?
        };
        let logdet: f64 = (0..n).map(|i| ln(l[(i, i)])).sum::<f64>() * 2.0;
        let lml = -0.5 * y.dot(&alpha) - 0.5 * logdet - 0.5 * n as f64 * ln(2.0 * std::f64::consts::PI);
        if !lml.is_finite() {
            return Err(Error::numerical("multi-task GP: non-finite marginal likelihood"));
        }
        Ok(MultiTaskGp { hyper: h, pts: pts.to_vec(), z: z.to_vec(), chol: l, alpha, lml })
    }

    /// Gradient of the log marginal likelihood with respect to the task locations (R&W eq. 5.9:
    /// `½ tr((ααᵀ - K⁻¹) ∂K/∂w)`), one `[∂/∂w_t0, ∂/∂w_t1]` per task; zero for tasks without data.
    pub fn lml_grad_loc(&self) -> Vec<[f64; 2]> {
        let n = self.pts.len();
        let mut g = vec![[0.0; 2]; self.hyper.loc.len()];
        if n == 0 {
            return g;
        }
        let linv = self.chol.solve_lower_triangular(&DMatrix::identity(n, n)).unwrap_or_else(|| DMatrix::zeros(n, n));
        let kinv = linv.transpose() * &linv;
        let ku = self.hyper.input_kernel();
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (self.pts[i].1, self.pts[j].1);
                if a == b {
                    continue;
                }
                let (wa, wb) = (self.hyper.loc[a], self.hyper.loc[b]);
                let w = 0.5 * (self.alpha[i] * self.alpha[j] - kinv[(i, j)]);
                let kij = ku.eval_canon(&self.pts[i].0, &self.pts[j].0) * k_task(&wa, &wb);
                // ∂k_Ω(w_a, w_b)/∂w_a = -(w_a - w_b) k_Ω; ∂/∂w_b = +(w_a - w_b) k_Ω.
                for c in 0..2 {
                    let d = -(wa[c] - wb[c]) * kij * w;
                    g[a][c] += d;
                    g[b][c] -= d;
                }
            }
        }
        g
    }

    /// Type-II maximum likelihood from `init`: two rounds of (coordinate search over grids of the input length
    /// scales, signal and noise variances; then `loc_steps` Adam steps of size 0.05 on the task locations when
    /// the data hold more than one task). The grids suit inputs and targets of unit spread.
    pub fn fit_ml(pts: &[TaskPoint], z: &[f64], init: &MtHyper, loc_steps: usize) -> Result<Self> {
        const LS0: [f64; 4] = [0.3, 0.6, 1.2, 2.4];
        const LS1: [f64; 5] = [0.05, 0.1, 0.2, 0.4, 0.8];
        const SV: [f64; 3] = [0.3, 1.0, 3.0];
        const NV: [f64; 5] = [0.003, 0.01, 0.03, 0.1, 0.3];
        let multi = pts.iter().any(|p| p.1 != pts.first().map_or(0, |q| q.1));
        let mut best = MultiTaskGp::fit(pts, z, init.clone())?;
        for _round in 0..2 {
            for coord in 0..4 {
                let values: &[f64] = match coord {
                    0 => &LS0,
                    1 => &LS1,
                    2 => &SV,
                    _ => &NV,
                };
                for &v in values {
                    let mut h = best.hyper.clone();
                    match coord {
                        0 => h.ls[0] = v,
                        1 => h.ls[1] = v,
                        2 => h.signal_var = v,
                        _ => h.noise_var = v,
                    }
                    if h == best.hyper {
                        continue;
                    }
                    if let Ok(g) = MultiTaskGp::fit(pts, z, h) {
                        if g.lml > best.lml + 1e-9 {
                            best = g;
                        }
                    }
                }
            }
            if multi {
                best = best.ascend_locations(loc_steps)?;
            }
        }
        Ok(best)
    }

    /// Adam ascent (β = 0.9, 0.999) on the task locations; keeps the best iterate.
    fn ascend_locations(self, steps: usize) -> Result<Self> {
        let m = self.hyper.loc.len();
        let mut adam = crate::optim::Adam::with_coefficients(2 * m, 0.9, 0.1, 0.999, 0.001);
        let mut cur = self.clone();
        let mut best = self;
        for _ in 1..=steps {
            let g: Vec<f64> = cur.lml_grad_loc().iter().flatten().copied().collect();
            let mut h = cur.hyper.clone();
            adam.step(&g, |_| 0.05, |i, u| h.loc[i / 2][i % 2] += u);
            match MultiTaskGp::fit(&cur.pts, &cur.z, h) {
                Ok(g) => cur = g,
                Err(_) => break,
            }
            if cur.lml > best.lml {
                best = cur.clone();
            }
        }
        Ok(best)
    }

    /// The training inputs and standardised targets.
    pub fn data(&self) -> (&[TaskPoint], &[f64]) {
        (&self.pts, &self.z)
    }

    pub fn log_marginal_likelihood(&self) -> f64 {
        self.lml
    }

    /// The training points with their locations.
    fn located_pts(&self) -> Vec<LocPoint> {
        self.pts.iter().map(|p| self.hyper.located(p)).collect()
    }

    /// Posterior means of the latent `f` at located queries.
    pub fn mean_at(&self, a: &[LocPoint]) -> Vec<f64> {
        if self.pts.is_empty() {
            return vec![0.0; a.len()];
        }
        let k = cross(&self.hyper, &self.located_pts(), a);
        (k.transpose() * &self.alpha).iter().copied().collect()
    }

    /// Posterior means at training-style points (task indices).
    pub fn mean(&self, a: &[TaskPoint]) -> Vec<f64> {
        let q: Vec<LocPoint> = a.iter().map(|p| self.hyper.located(p)).collect();
        self.mean_at(&q)
    }

    /// Posterior covariance of the latent `f` between located queries: `k(a, b) - k(a, X) (K + σ² I)⁻¹ k(X, b)`
    /// (R&W eq. 2.24).
    pub fn posterior_cov_at(&self, a: &[LocPoint], b: &[LocPoint]) -> Result<DMatrix<f64>> {
        let prior = cross(&self.hyper, a, b);
        if self.pts.is_empty() {
            return Ok(prior);
        }
        let x = self.located_pts();
        let wa = self.whiten(&x, a)?;
        let wb = self.whiten(&x, b)?;
        Ok(prior - wa.transpose() * wb)
    }

    /// Posterior covariance at training-style points (task indices).
    pub fn posterior_cov(&self, a: &[TaskPoint], b: &[TaskPoint]) -> Result<DMatrix<f64>> {
        let qa: Vec<LocPoint> = a.iter().map(|p| self.hyper.located(p)).collect();
        let qb: Vec<LocPoint> = b.iter().map(|p| self.hyper.located(p)).collect();
        self.posterior_cov_at(&qa, &qb)
    }

    fn whiten(&self, x: &[LocPoint], a: &[LocPoint]) -> Result<DMatrix<f64>> {
        let k = cross(&self.hyper, x, a);
        self.chol.solve_lower_triangular(&k).ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))
    }
}
