//! Pieces of a whitened sparse variational GP (SVGP; Hensman, Matthews & Ghahramani 2015; Picheny, Dutordoir,
//! Artemev & Durrande 2020, Sec. 2.2, eqs. 4-5), shared by any likelihood: the caller writes the expected
//! log likelihood (e.g. by the Gauss-Hermite rule [`GH_X`], [`GH_W`]) and backpropagates it through
//! [`WhitenedQ::marginal`] with [`WhitenedQ::add_marginal_grad`].
//!
//! Whitened form: `u = f(Z) = L v`, `L Lᵀ = K_ZZ`, prior `v ~ N(0, I)`, `q(v) = N(m, C Cᵀ)` with `C` lower
//! triangular (positive diagonal). Then eq. 4 becomes `q(f(x)) = N(mᵀ b, k(x, x) - bᵀ b + |Cᵀ b|²)` with
//! `b = L⁻¹ k_Z(x)`, and the KL term of eq. 5 is `KL(q(v) || N(0, I)) = ½ (tr C Cᵀ + mᵀ m - M - 2 Σ ln C_ii)`.

// Index loops mirror the equations.
#![allow(clippy::needless_range_loop)]

use nalgebra::{DMatrix, DVector};
use rand_distr::{Distribution, StandardNormal};

use super::{cholesky_jitter, Kernel};
use crate::math::{exp, ln};
// Sequential sum (not the 4-way `linalg::dot4`): the order the recorded results use.
use crate::linalg::dot;
use crate::rng::Rng;
use crate::Result;

/// 7-point Gauss-Hermite rule for `E[h(ξ)]`, `ξ ~ N(0, 1)` (nodes `√2 t_i`, weights `w_i / √π`).
pub const GH_X: [f64; 7] = [
    -3.750_439_717_725_742,
    -2.366_759_410_734_541,
    -1.154_405_394_739_968,
    0.0,
    1.154_405_394_739_968,
    2.366_759_410_734_541,
    3.750_439_717_725_742,
];
/// Weights of [`GH_X`] (they sum to 1).
pub const GH_W: [f64; 7] = [
    5.482_688_559_722_184e-4,
    3.075_712_396_758_652e-2,
    2.401_231_786_050_127e-1,
    4.571_428_571_428_571e-1,
    2.401_231_786_050_127e-1,
    3.075_712_396_758_652e-2,
    5.482_688_559_722_184e-4,
];

/// Inducing inputs chosen among `xs`: the distinct inputs (coordinates within `1e-9`) if there are at most
/// `max(m_max, 2)`, else that many by farthest-point selection (deterministic, from the first distinct input)
/// in the distance scaled by `ls`. Returns them and whether they are all the distinct inputs (then the SVGP is
/// the full variational GP).
pub fn inducing_inputs<const D: usize>(xs: &[[f64; D]], m_max: usize, ls: [f64; D]) -> (Vec<[f64; D]>, bool) {
    let mut distinct: Vec<[f64; D]> = Vec::new();
    for x in xs {
        if !distinct.iter().any(|d| (0..D).all(|i| (d[i] - x[i]).abs() < 1e-9)) {
            distinct.push(*x);
        }
    }
    let m_max = m_max.max(2);
    let full = distinct.len() <= m_max;
    let z: Vec<[f64; D]> = if full {
        distinct.clone()
    } else {
        let d2 = |a: &[f64; D], b: &[f64; D]| {
            let mut s = 0.0;
            for i in 0..D {
                s += ((a[i] - b[i]) / ls[i]).powi(2);
            }
            s
        };
        let mut chosen = vec![distinct[0]];
        let mut mind: Vec<f64> = distinct.iter().map(|d| d2(d, &distinct[0])).collect();
        while chosen.len() < m_max {
            let (j, _) = mind.iter().enumerate().fold((0, -1.0), |a, (i, &v)| if v > a.1 { (i, v) } else { a });
            chosen.push(distinct[j]);
            for (i, d) in distinct.iter().enumerate() {
                mind[i] = mind[i].min(d2(d, &distinct[j]));
            }
        }
        chosen
    };
    (z, full)
}

/// The inducing inputs `Z`, the kernel and the Cholesky factor `L` of `K_ZZ`.
#[derive(Debug, Clone)]
pub struct Inducing<const D: usize> {
    pub kernel: Kernel,
    pub z: Vec<[f64; D]>,
    pub lz: DMatrix<f64>,
}

impl<const D: usize> Inducing<D> {
    /// Factorises `K_ZZ` (jitter up to `max_rel` x mean diagonal, see [`cholesky_jitter`]).
    pub fn new(kernel: Kernel, z: Vec<[f64; D]>, max_rel: f64) -> Result<Self> {
        let mm = z.len();
        let kzz = DMatrix::from_fn(mm, mm, |i, j| kernel.eval(&z[i], &z[j]));
        let (lz, _) = cholesky_jitter(&kzz, max_rel)?;
        Ok(Inducing { kernel, z, lz })
    }

    /// Number of inducing inputs `M`.
    pub fn len(&self) -> usize {
        self.z.len()
    }

    /// True without inducing inputs.
    pub fn is_empty(&self) -> bool {
        self.z.is_empty()
    }

    /// `b = L⁻¹ k_Z(x)` and the residual prior variance `k(x, x) - bᵀ b` (clamped at 0) beyond the inducing
    /// variables.
    pub fn project(&self, x: &[f64; D]) -> (Vec<f64>, f64) {
        let mm = self.z.len();
        let kx = DVector::from_fn(mm, |i, _| self.kernel.eval(&self.z[i], x));
        let b = self.lz.solve_lower_triangular(&kx).unwrap_or_else(|| DVector::zeros(mm));
        let resid = (self.kernel.eval(x, x) - b.dot(&b)).max(0.0);
        (b.iter().copied().collect(), resid)
    }
}

/// The whitened variational distribution `q(v) = N(m, C Cᵀ)` of one latent GP.
#[derive(Debug, Clone)]
pub struct WhitenedQ {
    pub m: DVector<f64>,
    /// Lower triangular, positive diagonal.
    pub c: DMatrix<f64>,
}

impl WhitenedQ {
    /// `m = 0`, `C = c0 I` (size `mm`).
    pub fn new(mm: usize, c0: f64) -> Self {
        WhitenedQ { m: DVector::zeros(mm), c: DMatrix::identity(mm, mm) * c0 }
    }

    /// Number of packed parameters: `m`, then `C` row by row (diagonal in log space, upper triangle 0).
    pub fn n_params(&self) -> usize {
        let mm = self.m.len();
        mm + mm * mm
    }

    /// Marginal `q(f(x)) = N(μ, sd²)` given `b = L⁻¹ k_Z(x)` and the residual variance: returns `(μ, sd, Cᵀ b)`
    /// (`sd² = resid + |Cᵀ b|²`, floored at `1e-12`).
    pub fn marginal(&self, b: &[f64], resid: f64) -> (f64, f64, Vec<f64>) {
        let mm = b.len();
        let mu = dot(self.m.as_slice(), b);
        // ctb = Cᵀ b
        let ctb: Vec<f64> = (0..mm).map(|j| (j..mm).map(|i| self.c[(i, j)] * b[i]).sum()).collect();
        let var = resid + dot(&ctb, &ctb);
        (mu, var.max(1e-12).sqrt(), ctb)
    }

    /// Adds the gradient in `(m, C)` of a term with derivatives `dmu`, `dsd` in the marginal's `(μ, sd)`:
    /// `∂μ/∂m = b`, `∂sd/∂C_ij = b_i (Cᵀb)_j / sd` (lower triangle).
    pub fn add_marginal_grad(
        b: &[f64],
        ctb: &[f64],
        dmu: f64,
        dsd: f64,
        sd: f64,
        gm: &mut [f64],
        gc: &mut DMatrix<f64>,
    ) {
        let mm = b.len();
        for i in 0..mm {
            gm[i] += dmu * b[i];
        }
        let k = dsd / sd;
        for i in 0..mm {
            for j in 0..=i {
                gc[(i, j)] += k * b[i] * ctb[j];
            }
        }
    }

    /// `KL(q(v) || N(0, I)) = ½ (tr C Cᵀ + mᵀm - M - 2 Σ ln C_ii)`; adds its negative gradient in `(m, C)` to
    /// `gm`, `gc` (the ELBO's KL term).
    pub fn kl_add_neg_grad(&self, gm: &mut [f64], gc: &mut DMatrix<f64>) -> f64 {
        let mm = self.m.len();
        let mut tr = 0.0;
        let mut logdet = 0.0;
        for i in 0..mm {
            for j in 0..=i {
                tr += self.c[(i, j)].powi(2);
                gc[(i, j)] -= self.c[(i, j)];
            }
            logdet += ln(self.c[(i, i)]);
            gc[(i, i)] += 1.0 / self.c[(i, i)];
            gm[i] -= self.m[i];
        }
        0.5 * (tr + self.m.dot(&self.m) - mm as f64 - 2.0 * logdet)
    }

    /// Writes the parameters to `t[*k..]` (see [`WhitenedQ::n_params`]) and advances `k`.
    pub fn pack(&self, t: &mut [f64], k: &mut usize) {
        let mm = self.m.len();
        for i in 0..mm {
            t[*k] = self.m[i];
            *k += 1;
        }
        for i in 0..mm {
            for j in 0..mm {
                t[*k] = if i == j {
                    ln(self.c[(i, i)].max(1e-300))
                } else if j < i {
                    self.c[(i, j)]
                } else {
                    0.0
                };
                *k += 1;
            }
        }
    }

    /// Reads the parameters from `t[*k..]` (inverse of [`WhitenedQ::pack`], log diagonal clamped to
    /// `[-30, 5]`) and advances `k`.
    pub fn unpack(&mut self, t: &[f64], k: &mut usize) {
        let mm = self.m.len();
        for i in 0..mm {
            self.m[i] = t[*k];
            *k += 1;
        }
        for i in 0..mm {
            for j in 0..mm {
                self.c[(i, j)] = if i == j {
                    exp(t[*k].clamp(-30.0, 5.0))
                } else if j < i {
                    t[*k]
                } else {
                    0.0
                };
                *k += 1;
            }
        }
    }

    /// Writes the gradient `(gm, gc)` in the packed parameters to `grad[*k..]` (chain rule through the log
    /// diagonal) and advances `k`.
    pub fn pack_grad(&self, gm: &[f64], gc: &DMatrix<f64>, grad: &mut [f64], k: &mut usize) {
        let mm = self.m.len();
        for i in 0..mm {
            grad[*k] = gm[i];
            *k += 1;
        }
        for i in 0..mm {
            for j in 0..mm {
                grad[*k] = if i == j {
                    gc[(i, i)] * self.c[(i, i)]
                } else if j < i {
                    gc[(i, j)]
                } else {
                    0.0
                };
                *k += 1;
            }
        }
    }

    /// One draw `v = m + C ε`, `ε ~ N(0, I)`.
    pub fn sample(&self, rng: &mut Rng) -> DVector<f64> {
        let e = DVector::from_fn(self.m.len(), |_, _| StandardNormal.sample(rng));
        &self.m + &self.c * e
    }
}
