//! Exact GP regression over (input, task) pairs with a product kernel (zero prior mean; inputs and targets
//! standardised by the caller), used by the multi-task warm start of the learning-rate schedule kind
//! (Picheny, Dutordoir, Artemev & Durrande 2020, Sec. 4, where tasks enter the kernel as `k_Y k_x k_Ω`).
//!
//! - Input kernel `k_u`: the Matern 5/2 ARD kernel of [`Kernel`] (`BaseKernel::Matern52`, Rasmussen & Williams
//!   2006, eq. 4.17) over two inputs. (This module had its own copy; [`Kernel::eval_canon`] performs the same
//!   floating-point operations in the same order, `sqrt 5` included, so the values are the same bits.)
//! - Task kernel `k_task(t, t') = e_tᵀ e_t'` with the embedding `e_t = (√ρ, √(1-ρ) 1_t)`, i.e.
//!   `k_task = ρ + (1 - ρ) δ_{tt'}`: the coregionalisation matrix `B = ρ 11ᵀ + (1 - ρ) I` of an intrinsic
//!   coregionalisation model (Álvarez, Rosasco & Lawrence 2012), PSD for ρ in [0, 1], equal to `k_u` within a
//!   task.
//! - [`MultiTaskGp`]: Cholesky of `K + σ² I` (R&W Algorithm 2.1), batch predictive mean and covariance, type-II
//!   ML by coordinate search over grids.
//!
//! Why not [`super::Gp`]: its inputs are plain vectors (no task index), it factorises with jitter up to
//! `1e-4` x mean diagonal (here `1e-6`), solves `Lᵀ α = L⁻¹ y` with `tr_solve_lower_triangular` (dot products;
//! here back substitution on `Lᵀ`, axpy order), and has no batch posterior covariance. The two solves differ
//! in the last bits: with `Gp`'s form the hashes of tests/lrsched_golden.rs (`multitask gp`, `multitask run`)
//! change, so this form is kept to keep every recorded report bit for bit.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::{cholesky_jitter, BaseKernel, Kernel};
use crate::math::ln;
use crate::{Error, Result};

/// An input of the multi-task GP: two coordinates and the task index.
pub type TaskPoint = ([f64; 2], usize);

/// Hyperparameters of the multi-task GP (inputs and targets standardised by the caller).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MtHyper {
    /// Length scales of `k_u` over the two inputs.
    pub ls: [f64; 2],
    pub signal_var: f64,
    pub noise_var: f64,
    /// Task correlation ρ of the embedding `e_t = (√ρ, √(1-ρ) 1_t)`.
    pub rho: f64,
}

impl Default for MtHyper {
    fn default() -> Self {
        MtHyper { ls: [1.2, 0.2], signal_var: 1.0, noise_var: 0.03, rho: 0.8 }
    }
}

impl MtHyper {
    /// `k_u` as a [`Kernel`]: Matern 5/2 ARD with these length scales and signal variance (not validated, as
    /// before: the grid of [`MultiTaskGp::fit_ml`] holds positive values only).
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

/// `k_u`: Matern 5/2 ARD over the two inputs (R&W eq. 4.17, through [`Kernel::eval_canon`]).
pub fn k_input(h: &MtHyper, a: &[f64; 2], b: &[f64; 2]) -> f64 {
    h.input_kernel().eval_canon(a, b)
}

/// `k_task(t, t') = e_tᵀ e_t' = ρ + (1 - ρ) δ_{tt'}`.
pub fn k_task(rho: f64, t: usize, u: usize) -> f64 {
    if t == u {
        1.0
    } else {
        rho
    }
}

#[inline]
fn k_prod(ku: &Kernel, rho: f64, a: &TaskPoint, b: &TaskPoint) -> f64 {
    ku.eval_canon(&a.0, &b.0) * k_task(rho, a.1, b.1)
}

/// The product kernel `k((u, t), (u', t')) = k_u(u, u') k_task(t, t')` (the task-embedding kernel).
pub fn k_product(h: &MtHyper, a: &TaskPoint, b: &TaskPoint) -> f64 {
    k_prod(&h.input_kernel(), h.rho, a, b)
}

/// Gram matrix of the product kernel.
pub fn gram(h: &MtHyper, pts: &[TaskPoint]) -> DMatrix<f64> {
    cross(h, pts, pts)
}

fn cross(h: &MtHyper, a: &[TaskPoint], b: &[TaskPoint]) -> DMatrix<f64> {
    let ku = h.input_kernel();
    DMatrix::from_fn(a.len(), b.len(), |i, j| k_prod(&ku, h.rho, &a[i], &b[j]))
}

/// An exact GP with the product kernel (zero prior mean on standardised targets).
#[derive(Debug, Clone)]
pub struct MultiTaskGp {
    pub hyper: MtHyper,
    pts: Vec<TaskPoint>,
    chol: DMatrix<f64>,
    alpha: DVector<f64>,
    lml: f64,
}

impl MultiTaskGp {
    /// The data hold more than one task (ρ then matters and is fitted).
    pub fn multi_task(&self) -> bool {
        self.pts.iter().any(|p| p.1 != self.pts[0].1)
    }

    /// Fits with fixed hyperparameters (R&W Algorithm 2.1; log marginal likelihood eq. 2.30). Errors:
    /// `Numerical` when the Gram matrix cannot be factorised.
    pub fn fit(pts: &[TaskPoint], z: &[f64], h: MtHyper) -> Result<Self> {
        if pts.len() != z.len() {
            return Err(Error::config("multi-task GP: inputs and targets differ in length"));
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
            let t = l.solve_lower_triangular(&y).ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?;
            l.transpose()
                .solve_upper_triangular(&t)
                .ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?
        };
        let logdet: f64 = (0..n).map(|i| ln(l[(i, i)])).sum::<f64>() * 2.0;
        let lml = -0.5 * y.dot(&alpha) - 0.5 * logdet - 0.5 * n as f64 * ln(2.0 * std::f64::consts::PI);
        if !lml.is_finite() {
            return Err(Error::numerical("multi-task GP: non-finite marginal likelihood"));
        }
        Ok(MultiTaskGp { hyper: h, pts: pts.to_vec(), chol: l, alpha, lml })
    }

    /// Type-II maximum likelihood over a grid by coordinate search (two sweeps, from [`MtHyper::default`]);
    /// ρ is searched only when the data hold more than one task. The grids suit inputs and targets of unit
    /// spread.
    pub fn fit_ml(pts: &[TaskPoint], z: &[f64]) -> Result<Self> {
        const LS0: [f64; 4] = [0.3, 0.6, 1.2, 2.4];
        const LS1: [f64; 5] = [0.05, 0.1, 0.2, 0.4, 0.8];
        const SV: [f64; 3] = [0.3, 1.0, 3.0];
        const NV: [f64; 5] = [0.003, 0.01, 0.03, 0.1, 0.3];
        const RHO: [f64; 7] = [0.0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99];
        let multi = pts.iter().any(|p| p.1 != pts.first().map_or(0, |q| q.1));
        let mut best = MultiTaskGp::fit(pts, z, MtHyper::default())?;
        for _sweep in 0..2 {
            for coord in 0..5 {
                let values: &[f64] = match coord {
                    0 => &LS0,
                    1 => &LS1,
                    2 => &SV,
                    3 => &NV,
                    _ if multi => &RHO,
                    _ => continue,
                };
                for &v in values {
                    let mut h = best.hyper;
                    match coord {
                        0 => h.ls[0] = v,
                        1 => h.ls[1] = v,
                        2 => h.signal_var = v,
                        3 => h.noise_var = v,
                        _ => h.rho = v,
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
        }
        Ok(best)
    }

    pub fn log_marginal_likelihood(&self) -> f64 {
        self.lml
    }

    /// Posterior means of the latent `f` at `a`.
    pub fn mean(&self, a: &[TaskPoint]) -> Vec<f64> {
        if self.pts.is_empty() {
            return vec![0.0; a.len()];
        }
        let k = cross(&self.hyper, &self.pts, a);
        (k.transpose() * &self.alpha).iter().copied().collect()
    }

    /// Posterior covariance of the latent `f` between `a` and `b`: `k(a, b) - k(a, X) (K + σ² I)⁻¹ k(X, b)`
    /// (R&W eq. 2.24).
    pub fn posterior_cov(&self, a: &[TaskPoint], b: &[TaskPoint]) -> Result<DMatrix<f64>> {
        let prior = cross(&self.hyper, a, b);
        if self.pts.is_empty() {
            return Ok(prior);
        }
        let va = self.whiten(a)?;
        let vb = self.whiten(b)?;
        Ok(prior - va.transpose() * vb)
    }

    fn whiten(&self, a: &[TaskPoint]) -> Result<DMatrix<f64>> {
        let k = cross(&self.hyper, &self.pts, a);
        self.chol.solve_lower_triangular(&k).ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))
    }
}
