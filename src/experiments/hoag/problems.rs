//! The two bilevel problems of Pedregosa (ICML 2016), Section 4:
//!
//! - L2-regularised logistic regression (their eq. 4): inner `h(x, λ) = (1/n) Σ log(1 + exp(-b_i a_iᵀx))
//!   + (e^λ / 2) |x|²` on the train set, outer `f(x) = (1/m) Σ log(1 + exp(-b_j a_jᵀx))` on the test set.
//! - Kernel ridge regression with an RBF kernel (their eq. 5), hyperparameters `λ = (log width, log
//!   regularisation)`: `K_ij = exp(-e^{λ_1} |a_i - a_j|²)`, inner `h(c, λ) = ½ cᵀ(K + e^{λ_2} I)c - bᵀc`
//!   (minimiser `c = (K + e^{λ_2} I)^{-1} b`), outer `f = (1/2m) |b_test - K_test c|²`.
//!
//! Targets of the ridge problem are centred by the train mean; the logistic model has no intercept
//! (standardise the features). "test" is the held-out set of the outer problem and "validation" the third
//! set used only to report generalisation, as in the paper.
//!
//! Cost unit: one pass over the train data (a gradient, a Hessian-vector product, a kernel matrix-vector
//! product, or building a kernel matrix). It is deterministic, unlike seconds.

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

use super::solvers::{conjugate_gradient, dot, lbfgs, SolveInfo};
use crate::math::{exp, ln, ln_1p};
use std::cell::{Cell, RefCell};

/// One data split: `n x p` row-major features and targets.
#[derive(Debug, Clone, Default)]
pub struct Split {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub n: usize,
}

/// A bilevel problem: a family of inner problems indexed by the hyperparameters.
pub trait Bilevel: Send + Sync {
    /// Number of hyperparameters `s`.
    fn n_hyper(&self) -> usize;
    /// Dimension of the inner variable.
    fn n_inner(&self) -> usize;
    /// Names of the hyperparameters (for charts).
    fn hyper_names(&self) -> Vec<String>;
    /// The inner problem at hyperparameters `lam` (caches what depends on `lam` only).
    fn at(&self, lam: &[f64]) -> Box<dyn InnerAt + '_>;
    /// Starting hyperparameters of the gradient methods when the config gives none (all 0 by default).
    fn default_init(&self) -> Vec<f64> {
        vec![0.0; self.n_hyper()]
    }
    /// The Lipschitz constant `C` of the outer loss `g` in the inner variable, computed from the data (Pedregosa
    /// 2016, Sec. 3 "Adaptive step size", eq. 3: "C is the Lipschitz constant of g (for loss functions such as
    /// logistic or least squares this can easily be computed from the data)"), when `g` has a global one.
    /// `None` when it has none (a squared loss is quadratic in the inner variable, so its gradient is unbounded):
    /// the step rule then uses the local constant `‖∇_1 g(x_k)‖` at the current iterate.
    fn outer_lipschitz(&self) -> Option<f64> {
        None
    }
    /// The factors that turn this problem's losses into the paper's summed ones ([`SumScale`]); the identity for
    /// a problem that has no mean form (a problem you built keeps its own scale under `loss_scale: "sum"`).
    fn sum_scale(&self) -> SumScale {
        SumScale::IDENTITY
    }
}

/// From tunelab's mean losses to the paper's sums (Pedregosa 2016, eq. 4-5): the inner objective times `inner`, the
/// outer loss times `outer`, and λ on the paper's scale `λ_paper = λ + shift`. Logistic regression: `n · h(x, λ) =
/// Σ_i ψ(b_i a_iᵀx) + (n e^λ / 2) ‖x‖²`, eq. 4's inner objective with `e^{λ_paper} = n e^λ / 2`, so `inner = n`,
/// `shift = ln(n / 2)`, and `outer = m` (eq. 4's outer sum over the m test rows). Kernel ridge: the inner problem
/// is eq. 5's implicit equation already and the outer `(1/2m) ‖b − K_test c‖²` times `2m` is eq. 5's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SumScale {
    pub inner: f64,
    pub outer: f64,
    pub shift: f64,
}

impl SumScale {
    pub const IDENTITY: SumScale = SumScale { inner: 1.0, outer: 1.0, shift: 0.0 };
}

/// A problem with the paper's summed losses ([`SumScale`]) over one with tunelab's mean losses: every derivative
/// is the mean problem's times its factor, and λ is shifted to the paper's scale, so the box, the start and the
/// landscape are the paper's. The validation loss stays the mean one (it is reported, not optimised).
pub struct Summed<'a> {
    pr: &'a dyn Bilevel,
    s: SumScale,
}

impl<'a> Summed<'a> {
    /// `pr` with the paper's summed losses (its [`Bilevel::sum_scale`]).
    pub fn new(pr: &'a dyn Bilevel) -> Self {
        Summed { pr, s: pr.sum_scale() }
    }
}

impl Bilevel for Summed<'_> {
    fn n_hyper(&self) -> usize {
        self.pr.n_hyper()
    }
    fn n_inner(&self) -> usize {
        self.pr.n_inner()
    }
    fn hyper_names(&self) -> Vec<String> {
        self.pr.hyper_names()
    }
    fn at(&self, lam: &[f64]) -> Box<dyn InnerAt + '_> {
        let mean_lam: Vec<f64> = lam.iter().map(|l| l - self.s.shift).collect();
        Box::new(SummedAt { at: self.pr.at(&mean_lam), s: self.s })
    }
    fn default_init(&self) -> Vec<f64> {
        self.pr.default_init().iter().map(|l| l + self.s.shift).collect()
    }
    fn outer_lipschitz(&self) -> Option<f64> {
        self.pr.outer_lipschitz().map(|c| c * self.s.outer)
    }
}

struct SummedAt<'a> {
    at: Box<dyn InnerAt + 'a>,
    s: SumScale,
}

impl InnerAt for SummedAt<'_> {
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64 {
        let v = self.at.value_grad(x, g);
        g.iter_mut().for_each(|v| *v *= self.s.inner);
        v * self.s.inner
    }
    fn hvp(&self, x: &[f64], v: &[f64], out: &mut [f64]) {
        self.at.hvp(x, v, out);
        out.iter_mut().for_each(|v| *v *= self.s.inner);
    }
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]) {
        // d/dλ_paper = d/dλ: the shift does not change derivatives in λ.
        self.at.cross_t(x, q, out);
        out.iter_mut().for_each(|v| *v *= self.s.inner);
    }
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64 {
        let f = self.at.outer_grad(x, gx, glam);
        gx.iter_mut().chain(glam.iter_mut()).for_each(|v| *v *= self.s.outer);
        f * self.s.outer
    }
    fn outer(&self, x: &[f64]) -> f64 {
        self.at.outer(x) * self.s.outer
    }
    fn validation(&self, x: &[f64]) -> f64 {
        self.at.validation(x)
    }
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> SolveInfo {
        // |∇h_sum| <= tol is |∇h_mean| <= tol / inner; the iterates are the mean problem's.
        self.at.solve(x, tol / self.s.inner, max_iter)
    }
    fn lipschitz(&self) -> f64 {
        self.at.lipschitz() * self.s.inner
    }
    fn strong_convexity(&self) -> f64 {
        self.at.strong_convexity() * self.s.inner
    }
    fn cost(&self) -> u64 {
        self.at.cost()
    }
    fn linear(&self) -> bool {
        self.at.linear()
    }
}

/// The inner problem at fixed hyperparameters, with the derivatives HOAG needs. Every method counts its
/// cost in [`InnerAt::cost`].
pub trait InnerAt {
    /// Inner objective `h(x, λ)`; writes `∇_1 h` into `g`.
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64;
    /// `out = ∇²_1 h(x, λ) v`.
    fn hvp(&self, x: &[f64], v: &[f64], out: &mut [f64]);
    /// `out = (∇²_{12} h(x, λ))ᵀ q` (length `s`): the derivative of `⟨∇_1 h(x, λ), q⟩` in `λ`.
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]);
    /// Outer loss `f(x, λ)` with `∇_1 f` into `gx` and `∇_2 f` into `glam`.
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64;
    /// Outer loss only.
    fn outer(&self, x: &[f64]) -> f64;
    /// Loss of the same kind on the validation set.
    fn validation(&self, x: &[f64]) -> f64;
    /// Solve the inner problem from the warm start `x` until `|∇_1 h| <= tol` (L-BFGS or CG).
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> SolveInfo;
    /// An upper bound on the Lipschitz constant of `∇_1 h` (for unrolled gradient descent).
    fn lipschitz(&self) -> f64;
    /// A strong-convexity constant `μ(λ)` of `h(·, λ)` (a lower bound on the Hessian's eigenvalues): HOAG's
    /// inner stopping rule `|∇_1 h| <= μ(λ) ε_k` then guarantees `|x - x(λ)| <= ε_k` (Pedregosa 2016, Sec. 3).
    fn strong_convexity(&self) -> f64;
    /// Cost units spent so far on this object.
    fn cost(&self) -> u64;
    /// Whether `∇_1 h(x, λ) = A(λ) x - b` with `b` independent of `λ` and [`InnerAt::solve`] is conjugate
    /// gradient (iterative differentiation then unrolls CG; otherwise L-BFGS).
    fn linear(&self) -> bool {
        false
    }
}

#[inline]
fn log1pexp_neg(z: f64) -> f64 {
    // log(1 + exp(-z)), stable
    if z > 0.0 {
        ln_1p(exp(-z))
    } else {
        -z + ln_1p(exp(z))
    }
}

#[inline]
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + exp(-t))
    } else {
        let e = exp(t);
        e / (1.0 + e)
    }
}

fn matvec(x: &[f64], n: usize, p: usize, v: &[f64], out: &mut [f64]) {
    for i in 0..n {
        out[i] = dot(&x[i * p..(i + 1) * p], v);
    }
}

/// Row access of a logistic-regression split with labels ±1: dense rows ([`Split`]) or CSR rows
/// (`super::sparse`). The losses, gradients and Hessian-vector products below are written once over it.
pub(crate) trait LogisticRows {
    /// Number of rows.
    fn len(&self) -> usize;
    /// Label of row `i` (±1).
    fn label(&self, i: usize) -> f64;
    /// `a_iᵀ w`.
    fn dot_row(&self, i: usize, w: &[f64]) -> f64;
    /// `g += c a_i`.
    fn axpy_row(&self, i: usize, c: f64, g: &mut [f64]);
}

/// A dense split's rows (`n x p` row-major).
pub(crate) struct DenseRows<'a> {
    s: &'a Split,
    p: usize,
}

impl LogisticRows for DenseRows<'_> {
    fn len(&self) -> usize {
        self.s.n
    }
    fn label(&self, i: usize) -> f64 {
        self.s.y[i]
    }
    fn dot_row(&self, i: usize, w: &[f64]) -> f64 {
        dot(&self.s.x[i * self.p..(i + 1) * self.p], w)
    }
    fn axpy_row(&self, i: usize, c: f64, g: &mut [f64]) {
        let a = &self.s.x[i * self.p..(i + 1) * self.p];
        for j in 0..self.p {
            g[j] += c * a[j];
        }
    }
}

/// `sqrt(λ_max(AᵀA) / n)` of the rows of `s` (`p` columns) by 100 power iterations from the all-ones vector: the
/// Lipschitz constant of the mean logistic loss `(1/n) Σ ψ(b_i a_iᵀw)` in `w`, since `|ψ'| <= 1` gives
/// `‖∇‖ = ‖Aᵀu‖ / n <= σ_max(A) ‖u‖ / n <= σ_max(A) / sqrt(n)` for `|u_i| <= 1`.
pub(crate) fn mean_logistic_lipschitz(s: &impl LogisticRows, p: usize) -> f64 {
    let n = s.len();
    if n == 0 || p == 0 {
        return 0.0;
    }
    let mut v = vec![1.0 / (p as f64).sqrt(); p];
    let mut lam_max = 0.0;
    for _ in 0..100 {
        let mut w = vec![0.0; p];
        for i in 0..n {
            let a = s.dot_row(i, &v);
            s.axpy_row(i, a, &mut w);
        }
        let nw = dot(&w, &w).sqrt();
        if !(nw > 0.0) {
            break;
        }
        lam_max = nw;
        v.iter_mut().zip(&w).for_each(|(vi, wi)| *vi = wi / nw);
    }
    (lam_max / n as f64).sqrt()
}

/// Mean logistic loss `(1/n) Σ log(1 + exp(-b_i a_iᵀw))` with labels in {-1, +1}.
fn logistic_loss(s: &impl LogisticRows, w: &[f64]) -> f64 {
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    let mut tot = 0.0;
    for i in 0..n {
        tot += log1pexp_neg(s.label(i) * s.dot_row(i, w));
    }
    tot / n as f64
}

/// Mean logistic loss of `s` at `w` (labels ±1); its gradient is added to `g`.
fn add_logistic_grad(s: &impl LogisticRows, w: &[f64], g: &mut [f64]) -> f64 {
    let inv_n = 1.0 / s.len() as f64;
    let mut val = 0.0;
    for i in 0..s.len() {
        let m = s.label(i) * s.dot_row(i, w);
        val += inv_n * log1pexp_neg(m);
        s.axpy_row(i, -s.label(i) * sigmoid(-m) * inv_n, g);
    }
    val
}

/// An L2-regularised logistic regression of Pedregosa (2016, eq. 4; one penalty per feature as in
/// Appendix B): the dense [`LogisticBilevel`] and the sparse `super::sparse::SparseLogisticBilevel`, which
/// differ only in how rows are stored. Both are [`Bilevel`] through this trait.
pub(crate) trait L2Logistic: Send + Sync {
    type Rows<'a>: LogisticRows
    where
        Self: 'a;
    /// Number of features.
    fn p(&self) -> usize;
    /// One penalty per feature (`s = p`) or one in all.
    fn per_feature(&self) -> bool;
    fn train(&self) -> Self::Rows<'_>;
    fn test(&self) -> Self::Rows<'_>;
    fn validation(&self) -> Self::Rows<'_>;
    /// An upper bound on the logistic term's Hessian norm.
    fn data_lipschitz(&self) -> f64;
}

impl L2Logistic for LogisticBilevel {
    type Rows<'a> = DenseRows<'a>;
    fn p(&self) -> usize {
        self.p
    }
    fn per_feature(&self) -> bool {
        self.per_feature
    }
    fn train(&self) -> DenseRows<'_> {
        DenseRows { s: &self.train, p: self.p }
    }
    fn test(&self) -> DenseRows<'_> {
        DenseRows { s: &self.test, p: self.p }
    }
    fn validation(&self) -> DenseRows<'_> {
        DenseRows { s: &self.validation, p: self.p }
    }
    fn data_lipschitz(&self) -> f64 {
        0.25 * self.spec
    }
}

/// L2-regularised logistic regression (Pedregosa 2016, eq. 4). Labels are mapped to {-1, +1}. With
/// `per_feature` one penalty per feature (`s = p`, Appendix B): the penalty is `½ Σ_j e^{λ_j} x_j²`.
#[derive(Debug, Clone)]
pub struct LogisticBilevel {
    pub p: usize,
    pub per_feature: bool,
    pub train: Split,
    pub test: Split,
    pub validation: Split,
    /// Largest eigenvalue of `AᵀA / n` (power iteration), for the Lipschitz bound.
    spec: f64,
}

impl LogisticBilevel {
    /// Builds the problem; labels must already be ±1.
    pub fn new(p: usize, train: Split, test: Split, validation: Split) -> Self {
        // Power iteration for |A|² / n.
        let n = train.n;
        let mut v = vec![1.0 / (p as f64).sqrt(); p];
        let mut av = vec![0.0; n];
        let mut spec = 0.0;
        for _ in 0..50 {
            matvec(&train.x, n, p, &v, &mut av);
            let mut w = vec![0.0; p];
            for i in 0..n {
                for j in 0..p {
                    w[j] += train.x[i * p + j] * av[i];
                }
            }
            let nw = dot(&w, &w).sqrt();
            if nw == 0.0 {
                break;
            }
            spec = nw / n.max(1) as f64;
            for j in 0..p {
                v[j] = w[j] / nw;
            }
        }
        LogisticBilevel { p, per_feature: false, train, test, validation, spec }
    }

    /// The same problem with one penalty per feature.
    pub fn per_feature(mut self) -> Self {
        self.per_feature = true;
        self
    }
}

struct LogisticAt<'a, T: L2Logistic> {
    pr: &'a T,
    /// `e^{λ_j}` per feature (all equal with one hyperparameter).
    reg: Vec<f64>,
    cost: Cell<u64>,
}

impl<T: L2Logistic> LogisticAt<'_, T> {
    fn bump(&self) {
        self.cost.set(self.cost.get() + 1);
    }
}

impl<T: L2Logistic> Bilevel for T {
    fn n_hyper(&self) -> usize {
        if self.per_feature() {
            self.p()
        } else {
            1
        }
    }
    fn n_inner(&self) -> usize {
        self.p()
    }
    fn hyper_names(&self) -> Vec<String> {
        if self.per_feature() {
            (0..self.p()).map(|j| format!("log regularisation {j}")).collect()
        } else {
            vec!["log regularisation".into()]
        }
    }
    /// Sec. 3 "Initialization": "The initialization of regularization parameters is set to 0" on the paper's
    /// scale, whose inner objective is `Σ_i ψ(b_i a_iᵀx) + e^λ ‖x‖²` (eq. 4). tunelab's is that divided by `n`
    /// with the penalty `(e^λ / 2) ‖x‖²`, so the paper's λ = 0 is `λ = ln(2 / n)` here.
    fn default_init(&self) -> Vec<f64> {
        let n = self.train().len().max(1) as f64;
        vec![ln(2.0 / n); self.n_hyper()]
    }
    fn outer_lipschitz(&self) -> Option<f64> {
        Some(mean_logistic_lipschitz(&self.test(), self.p()))
    }
    fn sum_scale(&self) -> SumScale {
        let n = self.train().len().max(1) as f64;
        SumScale { inner: n, outer: self.test().len().max(1) as f64, shift: ln(n / 2.0) }
    }
    fn at(&self, lam: &[f64]) -> Box<dyn InnerAt + '_> {
        let reg = if self.per_feature() { lam.iter().map(|l| exp(*l)).collect() } else { vec![exp(lam[0]); self.p()] };
        Box::new(LogisticAt { pr: self, reg, cost: Cell::new(0) })
    }
}

impl<T: L2Logistic> InnerAt for LogisticAt<'_, T> {
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64 {
        self.bump();
        let mut pen = 0.0;
        for j in 0..self.pr.p() {
            g[j] = self.reg[j] * x[j];
            pen += 0.5 * self.reg[j] * x[j] * x[j];
        }
        pen + add_logistic_grad(&self.pr.train(), x, g)
    }
    fn hvp(&self, x: &[f64], v: &[f64], out: &mut [f64]) {
        self.bump();
        let tr = self.pr.train();
        let inv_n = 1.0 / tr.len() as f64;
        for j in 0..self.pr.p() {
            out[j] = self.reg[j] * v[j];
        }
        for i in 0..tr.len() {
            let s = sigmoid(-tr.label(i) * tr.dot_row(i, x));
            tr.axpy_row(i, s * (1.0 - s) * tr.dot_row(i, v) * inv_n, out);
        }
    }
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]) {
        // ∂/∂λ_j of (… + e^{λ_j} x_j) = e^{λ_j} x_j
        if self.pr.per_feature() {
            for j in 0..self.pr.p() {
                out[j] = self.reg[j] * x[j] * q[j];
            }
        } else {
            out[0] = self.reg[0] * dot(x, q);
        }
    }
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64 {
        self.bump();
        gx.iter_mut().for_each(|v| *v = 0.0);
        glam.iter_mut().for_each(|v| *v = 0.0);
        add_logistic_grad(&self.pr.test(), x, gx)
    }
    fn outer(&self, x: &[f64]) -> f64 {
        logistic_loss(&self.pr.test(), x)
    }
    fn validation(&self, x: &[f64]) -> f64 {
        logistic_loss(&self.pr.validation(), x)
    }
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> SolveInfo {
        lbfgs(|w, g| self.value_grad(w, g), x, tol, max_iter, 10)
    }
    fn lipschitz(&self) -> f64 {
        self.pr.data_lipschitz() + self.reg.iter().cloned().fold(0.0, f64::max)
    }
    fn strong_convexity(&self) -> f64 {
        // The logistic term is convex; the penalty's Hessian is diag(e^{λ_j}).
        self.reg.iter().cloned().fold(f64::INFINITY, f64::min)
    }
    fn cost(&self) -> u64 {
        self.cost.get()
    }
}

/// Kernel ridge regression with an RBF kernel (Pedregosa 2016, eq. 5); two hyperparameters.
#[derive(Debug, Clone)]
pub struct KernelRidgeBilevel {
    pub p: usize,
    pub train: Split,
    pub test: Split,
    pub validation: Split,
    /// Squared distances train-train (n x n), test-train (m x n), validation-train.
    d_tr: Vec<f64>,
    d_te: Vec<f64>,
    d_va: Vec<f64>,
}

fn sq_dists(a: &Split, b: &Split, p: usize) -> Vec<f64> {
    let mut d = vec![0.0; a.n * b.n];
    for i in 0..a.n {
        let ai = &a.x[i * p..(i + 1) * p];
        for j in 0..b.n {
            let bj = &b.x[j * p..(j + 1) * p];
            d[i * b.n + j] = ai.iter().zip(bj).map(|(u, v)| (u - v) * (u - v)).sum();
        }
    }
    d
}

impl KernelRidgeBilevel {
    /// Builds the problem; targets are centred by the train mean.
    pub fn new(p: usize, mut train: Split, mut test: Split, mut validation: Split) -> Self {
        let mean = train.y.iter().sum::<f64>() / train.n.max(1) as f64;
        for s in [&mut train, &mut test, &mut validation] {
            s.y.iter_mut().for_each(|v| *v -= mean);
        }
        let d_tr = sq_dists(&train, &train, p);
        let d_te = sq_dists(&test, &train, p);
        let d_va = sq_dists(&validation, &train, p);
        KernelRidgeBilevel { p, train, test, validation, d_tr, d_te, d_va }
    }

    /// The median heuristic for the RBF width: `-log median_{i<j} |a_i - a_j|²` over the train set (the
    /// gradient methods' start with an explicit `init`; the default is the paper's `-log(n_feat)`).
    pub fn median_log_width(&self) -> f64 {
        let n = self.train.n;
        let mut d: Vec<f64> =
            (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).map(|(i, j)| self.d_tr[i * n + j]).collect();
        if d.is_empty() {
            return 0.0;
        }
        let mid = d.len() / 2;
        d.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
        let m = d[mid];
        if m > 0.0 && m.is_finite() {
            -ln(m)
        } else {
            0.0
        }
    }
}

struct RidgeAt<'a> {
    pr: &'a KernelRidgeBilevel,
    gamma: f64,
    reg: f64,
    k: Vec<f64>,
    k_te: Vec<f64>,
    cost: Cell<u64>,
    r: RefCell<Vec<f64>>,
}

impl Bilevel for KernelRidgeBilevel {
    fn n_hyper(&self) -> usize {
        2
    }
    fn n_inner(&self) -> usize {
        self.train.n
    }
    fn hyper_names(&self) -> Vec<String> {
        vec!["log kernel width".into(), "log regularisation".into()]
    }
    /// Sec. 3 "Initialization": "regularization parameters is set to 0 and the width of an RBF kernel is initialized
    /// to −log(n_feat)". (The median heuristic `median_log_width` is reachable as an explicit `init`.)
    fn default_init(&self) -> Vec<f64> {
        vec![-ln(self.p.max(1) as f64), 0.0]
    }
    fn sum_scale(&self) -> SumScale {
        // The inner problem is eq. 5's implicit equation; the outer (1/2m) |b - K_test c|² times 2m is eq. 5's.
        SumScale { inner: 1.0, outer: 2.0 * self.test.n.max(1) as f64, shift: 0.0 }
    }
    fn at(&self, lam: &[f64]) -> Box<dyn InnerAt + '_> {
        let gamma = exp(lam[0]);
        let k = self.d_tr.iter().map(|d| exp(-gamma * d)).collect();
        let k_te = self.d_te.iter().map(|d| exp(-gamma * d)).collect();
        Box::new(RidgeAt {
            pr: self,
            gamma,
            reg: exp(lam[1]),
            k,
            k_te,
            cost: Cell::new(2),
            r: RefCell::new(vec![0.0; self.test.n.max(self.validation.n)]),
        })
    }
}

impl RidgeAt<'_> {
    fn bump(&self) {
        self.cost.set(self.cost.get() + 1);
    }
    /// out = (K + reg I) v
    fn apply(&self, v: &[f64], out: &mut [f64]) {
        self.bump();
        let n = self.pr.train.n;
        for i in 0..n {
            out[i] = dot(&self.k[i * n..(i + 1) * n], v) + self.reg * v[i];
        }
    }
}

impl InnerAt for RidgeAt<'_> {
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64 {
        self.apply(x, g);
        let b = &self.pr.train.y;
        let val = 0.5 * dot(x, g) - dot(b, x);
        g.iter_mut().zip(b).for_each(|(gi, bi)| *gi -= bi);
        val
    }
    fn hvp(&self, _x: &[f64], v: &[f64], out: &mut [f64]) {
        self.apply(v, out);
    }
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]) {
        self.bump();
        let n = self.pr.train.n;
        // d/dλ1 of K c = -γ (D∘K) c; d/dλ2 of reg c = reg c
        let mut s = 0.0;
        for i in 0..n {
            let row_k = &self.k[i * n..(i + 1) * n];
            let row_d = &self.pr.d_tr[i * n..(i + 1) * n];
            let mut t = 0.0;
            for j in 0..n {
                t += row_d[j] * row_k[j] * x[j];
            }
            s += q[i] * t;
        }
        out[0] = -self.gamma * s;
        out[1] = self.reg * dot(x, q);
    }
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64 {
        self.bump();
        let n = self.pr.train.n;
        let te = &self.pr.test;
        let m = te.n;
        let mut r = self.r.borrow_mut();
        let mut val = 0.0;
        for i in 0..m {
            r[i] = te.y[i] - dot(&self.k_te[i * n..(i + 1) * n], x);
            val += r[i] * r[i];
        }
        let inv_m = 1.0 / m as f64;
        gx.iter_mut().for_each(|v| *v = 0.0);
        let mut dl = 0.0;
        for i in 0..m {
            let row_k = &self.k_te[i * n..(i + 1) * n];
            let row_d = &self.pr.d_te[i * n..(i + 1) * n];
            let mut t = 0.0;
            for j in 0..n {
                gx[j] -= inv_m * r[i] * row_k[j];
                t += row_d[j] * row_k[j] * x[j];
            }
            dl += r[i] * t;
        }
        // f = 1/(2m) |r|², ∂r/∂λ1 = +γ (D∘K) c
        glam[0] = inv_m * self.gamma * dl;
        glam[1] = 0.0;
        0.5 * inv_m * val
    }
    fn outer(&self, x: &[f64]) -> f64 {
        let n = self.pr.train.n;
        let te = &self.pr.test;
        let mut val = 0.0;
        for i in 0..te.n {
            let r = te.y[i] - dot(&self.k_te[i * n..(i + 1) * n], x);
            val += r * r;
        }
        0.5 * val / te.n as f64
    }
    fn validation(&self, x: &[f64]) -> f64 {
        let n = self.pr.train.n;
        let va = &self.pr.validation;
        let mut val = 0.0;
        for i in 0..va.n {
            let row = &self.pr.d_va[i * n..(i + 1) * n];
            let pred: f64 = row.iter().zip(x).map(|(d, c)| exp(-self.gamma * d) * c).sum();
            let r = va.y[i] - pred;
            val += r * r;
        }
        0.5 * val / va.n as f64
    }
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> SolveInfo {
        let b = self.pr.train.y.clone();
        conjugate_gradient(|v, out| self.apply(v, out), &b, x, tol, max_iter)
    }
    fn lipschitz(&self) -> f64 {
        let n = self.pr.train.n;
        // Gershgorin: the largest row sum of the positive kernel matrix bounds its top eigenvalue.
        let mut mx: f64 = 0.0;
        for i in 0..n {
            mx = mx.max(self.k[i * n..(i + 1) * n].iter().sum());
        }
        mx + self.reg
    }
    fn strong_convexity(&self) -> f64 {
        // K is positive semi-definite, so K + e^{λ_2} I has eigenvalues >= e^{λ_2}.
        self.reg
    }
    fn linear(&self) -> bool {
        true
    }
    fn cost(&self) -> u64 {
        self.cost.get()
    }
}
