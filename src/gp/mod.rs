//! Gaussian-process regression on nalgebra (Rasmussen & Williams 2006, Algorithm 2.1).
//!
//! - [`Kernel`]: squared exponential / Matern-5/2 with per-dimension length scales and a signal variance,
//!   optionally times the temporal kernel `(1 - omega)^(|t - t'|/2)` (Bogunovic et al. 2016) and optionally
//!   permutation invariant (`k(sort b, sort b')`, Nguyen et al. 2020 sec. 4.2).
//! - [`Gp::fit`]: Cholesky of `K + noise I` with adaptive jitter ([`cholesky_jitter`]); a matrix that stays
//!   indefinite up to the jitter bound is an [`Error::Numerical`], never a panic.
//! - [`Gp::add_observation`]: rank-one extension of the Cholesky factor, O(n^2) instead of O(n^3).
//! - [`Gp::predict`], [`Gp::predict_with_grad`]: predictive mean and variance of the latent function
//!   (noise not included) and their gradients with respect to the spatial input (acquisition optimisation).
//! - [`Gp::log_marginal_likelihood`], [`Gp::lml_grad`]: type-II ML objective and its analytic gradient in the
//!   log hyperparameters (R&W eq. 5.9), [`Gp::optimize_hyperparameters`]: seeded multi-start projected L-BFGS.
//!
//! Also: [`multitask`] (exact GP over (input, task) pairs, product kernel with learnt task locations),
//! [`svgp`] (whitened sparse variational GP pieces), [`laplace`] (Laplace GP classifier), [`truvar`] (the
//! TRUVAR score, also the variance reduction of a run for eq. 8 of the multi-task tuner). The learning-rate schedule kind builds its trace models on them.
//!
//! The prior mean is zero: standardise the targets yourself (the bandit does) or use [`Gp::set_targets`].
//! Inputs are slices of length [`Kernel::input_dim`] (spatial coordinates, then the time if temporal).

mod covariance;
pub mod laplace;
pub mod multitask;
mod opt;
pub mod svgp;
pub mod truvar;

pub use covariance::{BaseKernel, Kernel};
pub use opt::{lbfgs_box, LbfgsOptions};

use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::math::{exp, ln};
use crate::rng::Rng;
use crate::{Error, Result};

/// Jitter schedule of [`cholesky_jitter`]: first try without jitter, then `jitter = rel * mean(diag)` for
/// `rel` in `1e-10, 1e-9, ..., max_rel` (default `max_rel = 1e-4`).
pub const DEFAULT_MAX_REL_JITTER: f64 = 1e-4;

/// Cholesky factor `L` (lower) of `a + jitter I`, trying `jitter = 0` first and then increasing relative
/// jitter up to `max_rel * mean(diag a)`. Returns `(L, jitter)` or `Error::Numerical` when the matrix has
/// non-finite entries or stays indefinite up to the bound.
pub fn cholesky_jitter(a: &DMatrix<f64>, max_rel: f64) -> Result<(DMatrix<f64>, f64)> {
    let n = a.nrows();
    if a.iter().any(|v| !v.is_finite()) {
        return Err(Error::numerical("GP: covariance matrix has non-finite entries"));
    }
    if n == 0 {
        return Ok((DMatrix::zeros(0, 0), 0.0));
    }
    let scale = (a.diagonal().sum() / n as f64).abs().max(f64::MIN_POSITIVE);
    let mut rel = 0.0;
    loop {
        let jitter = rel * scale;
        let mut m = a.clone();
        for i in 0..n {
            m[(i, i)] += jitter;
        }
        if let Some(c) = nalgebra::Cholesky::new(m) {
            let l = c.unpack();
            if l.iter().all(|v| v.is_finite()) {
                return Ok((l, jitter));
            }
        }
        rel = if rel == 0.0 { 1e-10 } else { rel * 10.0 };
        if rel > max_rel * (1.0 + 1e-9) {
            return Err(Error::numerical(format!(
                "GP: Cholesky factorisation failed even with jitter {:.1e} x mean diagonal",
                max_rel
            )));
        }
    }
}

/// Bounds (in natural units) of the hyperparameter search of [`Gp::optimize_hyperparameters`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HyperOptions {
    /// Length-scale range (same for every dimension).
    pub length_scale: (f64, f64),
    /// Signal-variance range.
    pub signal_var: (f64, f64),
    /// Noise-variance range; `None` keeps the noise fixed.
    pub noise_var: Option<(f64, f64)>,
    /// Range of the temporal forgetting rate omega (used only when the kernel is temporal).
    pub omega: (f64, f64),
    /// Random restarts in addition to the current hyperparameters.
    pub restarts: usize,
    /// L-BFGS iterations per start.
    pub max_iters: usize,
}

impl Default for HyperOptions {
    fn default() -> Self {
        HyperOptions {
            length_scale: (1e-2, 1e2),
            signal_var: (1e-2, 1e2),
            noise_var: Some((1e-6, 1.0)),
            omega: (1e-4, 0.5),
            restarts: 3,
            max_iters: 60,
        }
    }
}

/// A fitted Gaussian process. Build with [`Gp::fit`].
#[derive(Debug, Clone)]
pub struct Gp {
    kernel: Kernel,
    noise: f64,
    max_rel_jitter: f64,
    /// Canonical inputs, row-major `n x input_dim`.
    x: Vec<f64>,
    y: Vec<f64>,
    n: usize,
    /// Lower Cholesky factor of `K + (noise + jitter) I`.
    l: DMatrix<f64>,
    /// `(K + noise I)^{-1} y`.
    alpha: DVector<f64>,
    jitter: f64,
}

impl Gp {
    /// Fits a GP with zero prior mean to `(x_i, y_i)`; each `x_i` has length `kernel.input_dim()`, `noise` is the
    /// observation noise variance (>= 0). Errors: `Config` for bad shapes/values, `Numerical` for a failed
    /// factorisation.
    pub fn fit(x: &[Vec<f64>], y: &[f64], kernel: Kernel, noise: f64) -> Result<Gp> {
        kernel.validate()?;
        if !(noise.is_finite() && noise >= 0.0) {
            return Err(Error::config("GP: noise variance must be finite and >= 0"));
        }
        if x.len() != y.len() {
            return Err(Error::config(format!("GP: {} inputs but {} targets", x.len(), y.len())));
        }
        let dim = kernel.input_dim();
        let mut flat = vec![0.0; x.len() * dim];
        for (i, xi) in x.iter().enumerate() {
            if xi.len() != dim {
                return Err(Error::config(format!(
                    "GP: input {i} has length {} but the kernel expects {dim}",
                    xi.len()
                )));
            }
            kernel.canonicalize_into(xi, &mut flat[i * dim..(i + 1) * dim], None);
        }
        let mut gp = Gp {
            kernel,
            noise,
            max_rel_jitter: DEFAULT_MAX_REL_JITTER,
            x: flat,
            y: y.to_vec(),
            n: x.len(),
            l: DMatrix::zeros(0, 0),
            alpha: DVector::zeros(0),
            jitter: 0.0,
        };
        gp.refactor()?;
        Ok(gp)
    }

    /// Sets the largest relative jitter tried by the factorisation (default [`DEFAULT_MAX_REL_JITTER`]) and
    /// refactors.
    pub fn set_max_rel_jitter(&mut self, max_rel: f64) -> Result<()> {
        self.max_rel_jitter = max_rel;
        self.refactor()
    }

    fn row(&self, i: usize) -> &[f64] {
        let d = self.kernel.input_dim();
        &self.x[i * d..(i + 1) * d]
    }

    fn gram(&self) -> DMatrix<f64> {
        let n = self.n;
        let mut k = DMatrix::zeros(n, n);
        for i in 0..n {
            for j in 0..=i {
                let v = self.kernel.eval_canon(self.row(i), self.row(j));
                k[(i, j)] = v;
                k[(j, i)] = v;
            }
            k[(i, i)] += self.noise;
        }
        k
    }

    /// Recomputes the Cholesky factor and `alpha` from scratch (O(n^3)).
    fn refactor(&mut self) -> Result<()> {
        if self.y.iter().any(|v| !v.is_finite()) || self.x.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("GP: non-finite input or target"));
        }
        let k = self.gram();
        let (l, jitter) = cholesky_jitter(&k, self.max_rel_jitter)?;
        self.l = l;
        self.jitter = jitter;
        self.solve_alpha();
        Ok(())
    }

    fn solve_alpha(&mut self) {
        let y = DVector::from_column_slice(&self.y);
        let z = self.l.solve_lower_triangular(&y).unwrap_or_else(|| DVector::zeros(self.n));
        self.alpha = self.l.tr_solve_lower_triangular(&z).unwrap_or_else(|| DVector::zeros(self.n));
    }

    /// Adds one observation, extending the Cholesky factor by one row (O(n^2)):
    /// `L' = [[L, 0], [l^T, d]]`, `l = L^{-1} k_*`, `d = sqrt(k(x,x) + noise + jitter - l^T l)`.
    /// Falls back to a full refactor (with jitter) when `d^2` is not safely positive.
    pub fn add_observation(&mut self, x: &[f64], y: f64) -> Result<()> {
        let dim = self.kernel.input_dim();
        if x.len() != dim {
            return Err(Error::config(format!("GP: input has length {} but the kernel expects {dim}", x.len())));
        }
        if !y.is_finite() || x.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("GP: non-finite input or target"));
        }
        let mut cx = vec![0.0; dim];
        self.kernel.canonicalize_into(x, &mut cx, None);
        let n = self.n;
        let kstar = DVector::from_fn(n, |i, _| self.kernel.eval_canon(self.row(i), &cx));
        let kxx = self.kernel.eval_canon(&cx, &cx) + self.noise + self.jitter;
        let l = if n > 0 {
            self.l.solve_lower_triangular(&kstar).unwrap_or_else(|| DVector::from_element(n, f64::NAN))
        } else {
            DVector::zeros(0)
        };
        let d2 = kxx - l.dot(&l);
        self.x.extend_from_slice(&cx);
        self.y.push(y);
        self.n += 1;
        if d2.is_finite() && d2 > 1e-12 * kxx.abs().max(f64::MIN_POSITIVE) && l.iter().all(|v| v.is_finite()) {
            let mut big = DMatrix::zeros(n + 1, n + 1);
            big.view_mut((0, 0), (n, n)).copy_from(&self.l);
            for j in 0..n {
                big[(n, j)] = l[j];
            }
            big[(n, n)] = d2.sqrt();
            self.l = big;
            self.solve_alpha();
            Ok(())
        } else {
            self.refactor()
        }
    }

    /// Replaces the targets (same inputs) and recomputes `alpha` in O(n^2); the factor is kept.
    pub fn set_targets(&mut self, y: &[f64]) -> Result<()> {
        if y.len() != self.n {
            return Err(Error::config(format!("GP: {} targets for {} inputs", y.len(), self.n)));
        }
        if y.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("GP: non-finite target"));
        }
        self.y.copy_from_slice(y);
        self.solve_alpha();
        Ok(())
    }

    /// Number of observations.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no observations.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The kernel (with its current hyperparameters).
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// Observation noise variance.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// Jitter added to the diagonal by the last full factorisation.
    pub fn jitter(&self) -> f64 {
        self.jitter
    }

    /// The lower Cholesky factor of `K + (noise + jitter) I`.
    pub fn cholesky_factor(&self) -> &DMatrix<f64> {
        &self.l
    }

    /// Predictive mean and variance of the latent function at `x` (length `input_dim`):
    /// `mu = k_*^T alpha`, `var = k(x,x) - v^T v`, `v = L^{-1} k_*` (R&W Algorithm 2.1). Var is clamped at 0.
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let dim = self.kernel.input_dim();
        let mut cx = vec![0.0; dim];
        self.kernel.canonicalize_into(x, &mut cx, None);
        let prior = self.kernel.eval_canon(&cx, &cx);
        if self.n == 0 {
            return (0.0, prior);
        }
        let kstar = DVector::from_fn(self.n, |i, _| self.kernel.eval_canon(self.row(i), &cx));
        let mean = kstar.dot(&self.alpha);
        let v = self.l.solve_lower_triangular(&kstar).unwrap_or_else(|| DVector::zeros(self.n));
        ((mean), (prior - v.dot(&v)).max(0.0))
    }

    /// Predictive mean and variance with their gradients with respect to the spatial part of `x`
    /// (`dmean`, `dvar` of length `kernel.dim()`): `dmu = sum_j alpha_j dk(x, x_j)/dx`,
    /// `dvar = -2 sum_j (K^{-1} k_*)_j dk(x, x_j)/dx` (the prior variance is constant).
    /// For a permutation-invariant kernel the gradient is that of `x -> f(sort x)`, mapped back to `x`'s order.
    pub fn predict_with_grad(&self, x: &[f64], dmean: &mut [f64], dvar: &mut [f64]) -> (f64, f64) {
        let dim = self.kernel.input_dim();
        let d = self.kernel.dim();
        let mut cx = vec![0.0; dim];
        let mut perm = vec![0usize; dim];
        self.kernel.canonicalize_into(x, &mut cx, Some(&mut perm));
        let prior = self.kernel.eval_canon(&cx, &cx);
        dmean[..d].iter_mut().for_each(|v| *v = 0.0);
        dvar[..d].iter_mut().for_each(|v| *v = 0.0);
        if self.n == 0 {
            return (0.0, prior);
        }
        let n = self.n;
        let mut dk = vec![0.0; n * d];
        let mut kstar = DVector::zeros(n);
        for j in 0..n {
            kstar[j] = self.kernel.grad_x_canon(&cx, self.row(j), &mut dk[j * d..(j + 1) * d]);
        }
        let mean = kstar.dot(&self.alpha);
        let v = self.l.solve_lower_triangular(&kstar).unwrap_or_else(|| DVector::zeros(n));
        let w = self.l.tr_solve_lower_triangular(&v).unwrap_or_else(|| DVector::zeros(n));
        let var = prior - v.dot(&v);
        let mut gm = vec![0.0; d];
        let mut gv = vec![0.0; d];
        for j in 0..n {
            let row = &dk[j * d..(j + 1) * d];
            for i in 0..d {
                gm[i] += self.alpha[j] * row[i];
                gv[i] -= 2.0 * w[j] * row[i];
            }
        }
        for i in 0..d {
            dmean[perm[i]] = gm[i];
            dvar[perm[i]] = if var > 0.0 { gv[i] } else { 0.0 };
        }
        (mean, var.max(0.0))
    }

    /// Log marginal likelihood `-1/2 y^T alpha - sum_i ln L_ii - n/2 ln 2 pi` (R&W eq. 2.30).
    pub fn log_marginal_likelihood(&self) -> f64 {
        let n = self.n as f64;
        let fit = -0.5 * DVector::from_column_slice(&self.y).dot(&self.alpha);
        let logdet: f64 = (0..self.n).map(|i| ln(self.l[(i, i)])).sum();
        fit - logdet - 0.5 * n * ln(2.0 * std::f64::consts::PI)
    }

    /// Hyperparameters in log space: kernel params ([`Kernel::params`]) then `ln noise`.
    pub fn params(&self) -> Vec<f64> {
        let mut p = self.kernel.params();
        p.push(ln(self.noise.max(f64::MIN_POSITIVE)));
        p
    }

    /// Sets the hyperparameters (as [`Gp::params`]) and refactors.
    pub fn set_params(&mut self, p: &[f64]) -> Result<()> {
        let m = self.kernel.n_params();
        if p.len() != m + 1 {
            return Err(Error::config(format!("GP: {} hyperparameters given, {} expected", p.len(), m + 1)));
        }
        if p.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("GP: non-finite hyperparameter"));
        }
        self.kernel.set_params(&p[..m]);
        self.noise = exp(p[m]);
        self.refactor()
    }

    /// Gradient of the log marginal likelihood with respect to [`Gp::params`]:
    /// `d/dtheta_p = 1/2 tr((alpha alpha^T - K^{-1}) dK/dtheta_p)` (R&W eq. 5.9). O(n^3).
    pub fn lml_grad(&self) -> Vec<f64> {
        let n = self.n;
        let m = self.kernel.n_params();
        let mut grad = vec![0.0; m + 1];
        if n == 0 {
            return grad;
        }
        // K^{-1} from the factor
        let kinv = self
            .l
            .solve_lower_triangular(&DMatrix::identity(n, n))
            .map(|li| li.transpose() * li)
            .unwrap_or_else(|| DMatrix::zeros(n, n));
        let mut g = vec![0.0; m];
        for i in 0..n {
            for j in 0..=i {
                self.kernel.grad_params_canon(self.row(i), self.row(j), &mut g);
                let wij = self.alpha[i] * self.alpha[j] - kinv[(i, j)];
                let mult = if i == j { 0.5 } else { 1.0 };
                for p in 0..m {
                    grad[p] += mult * wij * g[p];
                }
            }
        }
        // noise: dK/d ln s2 = s2 I
        let mut tr = 0.0;
        for i in 0..n {
            tr += self.alpha[i] * self.alpha[i] - kinv[(i, i)];
        }
        grad[m] = 0.5 * self.noise * tr;
        grad
    }

    /// Type-II maximum likelihood: maximises the log marginal likelihood over the log hyperparameters
    /// (omega through its logit) by projected L-BFGS inside the box of `opts`, from the current values and
    /// `opts.restarts` uniform random starts (seeded by `rng`). Keeps the best; returns its log marginal
    /// likelihood. A start whose factorisation fails is skipped; if all fail the GP is left unchanged and
    /// `Error::Numerical` returned.
    pub fn optimize_hyperparameters(&mut self, rng: &mut Rng, opts: &HyperOptions) -> Result<f64> {
        let d = self.kernel.dim();
        let m = self.kernel.n_params();
        let temporal = self.kernel.omega.is_some();
        let mut lo = Vec::with_capacity(m + 1);
        let mut hi = Vec::with_capacity(m + 1);
        let bad = |(a, b): (f64, f64)| !(a > 0.0 && b >= a && b.is_finite());
        if bad(opts.length_scale) || bad(opts.signal_var) || opts.noise_var.is_some_and(bad) {
            return Err(Error::config("GP hyperparameter bounds must satisfy 0 < lo <= hi < inf"));
        }
        if !(opts.omega.0 > 0.0 && opts.omega.1 < 1.0 && opts.omega.0 <= opts.omega.1) {
            return Err(Error::config("GP omega bounds must satisfy 0 < lo <= hi < 1"));
        }
        for _ in 0..d {
            lo.push(ln(opts.length_scale.0));
            hi.push(ln(opts.length_scale.1));
        }
        lo.push(ln(opts.signal_var.0));
        hi.push(ln(opts.signal_var.1));
        if temporal {
            let logit = |w: f64| ln(w / (1.0 - w));
            lo.push(logit(opts.omega.0));
            hi.push(logit(opts.omega.1));
        }
        let cur = self.params();
        match opts.noise_var {
            Some((a, b)) => {
                lo.push(ln(a));
                hi.push(ln(b));
            }
            None => {
                lo.push(cur[m]);
                hi.push(cur[m]);
            }
        }
        let mut starts =
            vec![cur.iter().zip(lo.iter().zip(&hi)).map(|(v, (a, b))| v.clamp(*a, *b)).collect::<Vec<_>>()];
        for _ in 0..opts.restarts {
            starts.push(lo.iter().zip(&hi).map(|(a, b)| a + (b - a) * rng.random::<f64>()).collect());
        }
        let mut work = self.clone();
        let mut best: Option<(f64, Vec<f64>)> = None;
        let lopts = LbfgsOptions { max_iters: opts.max_iters, ..LbfgsOptions::default() };
        for s in starts {
            // minimise the negative log marginal likelihood
            let mut f = |p: &[f64], g: &mut [f64]| -> f64 {
                if work.set_params(p).is_err() {
                    return f64::INFINITY;
                }
                let v = work.log_marginal_likelihood();
                let gr = work.lml_grad();
                for (gi, v) in g.iter_mut().zip(gr) {
                    *gi = -v;
                }
                if v.is_finite() {
                    -v
                } else {
                    f64::INFINITY
                }
            };
            let (p, fv) = lbfgs_box(&mut f, s, &lo, &hi, &lopts);
            if fv.is_finite() && best.as_ref().is_none_or(|(b, _)| fv < *b) {
                best = Some((fv, p));
            }
        }
        match best {
            Some((fv, p)) => {
                self.set_params(&p)?;
                Ok(-fv)
            }
            None => {
                // restore (the work copy may have changed nothing in self)
                Err(Error::numerical("GP: hyperparameter optimisation failed from every start"))
            }
        }
    }
}
