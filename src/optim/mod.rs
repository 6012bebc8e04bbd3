//! Shared smooth optimisation: one L-BFGS, optionally confined to a box, conjugate gradient and Adam.
//!
//! - [`lbfgs`]: limited-memory BFGS, two-loop recursion (Nocedal & Wright 2006, Algorithm 7.4 / 7.5), with a
//!   backtracking Armijo line search (c1 = 1e-4). With bounds it is the simple *projected* variant
//!   (Bertsekas 1982; Kelley 1999, §5.5), not the Cauchy-point / subspace-minimisation scheme of
//!   Byrd, Lu, Nocedal & Zhu (1995): variables held at a bound by the gradient are frozen for the
//!   quasi-Newton step, and the Armijo test is made on the projected path `P(x + t d)` with the
//!   decrease predicted by `g · (P(x + t d) - x)`. Without bounds it is plain L-BFGS.
//!   Used by the MAP finder ([`crate::sampler::find_map`]), HOAG's inner solver ([`crate::experiments::hoag::lbfgs`]),
//!   GP hyperparameters and GP-UCB's acquisition ([`crate::gp`]).
//! - [`conjugate_gradient`] (Hestenes & Stiefel 1952) for symmetric positive-definite systems given by a
//!   matrix-vector product (HOAG's hypergradient systems).
//! - [`Adam`] (Kingma & Ba 2015): the TVO's VAE, the learning-rate tasks and the lr-schedule trace model.

// Index loops mirror the equations.
#![allow(clippy::needless_range_loop)]

pub mod adam;
pub use adam::Adam;

/// Outcome of an iterative solve (CG, or L-BFGS seen as a solver of `grad h = 0`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolveInfo {
    /// Iterations performed.
    pub iters: usize,
    /// Operator applications (CG) or function+gradient evaluations (L-BFGS).
    pub evals: usize,
    /// Final residual norm (CG: `|A x - b|`; L-BFGS: the gradient norm of its options).
    pub residual: f64,
    /// Whether the tolerance was reached within the iteration limit.
    pub converged: bool,
}

/// Which norm measures the (projected) gradient in the stopping test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GradNorm {
    /// Euclidean norm.
    L2,
    /// Max-norm `max_i |g_i|`.
    Max,
}

/// Options of [`lbfgs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LbfgsOptions {
    /// Maximum iterations (default 100).
    pub max_iters: usize,
    /// Correction pairs kept (default 10; at least 1 is used).
    pub memory: usize,
    /// Gradient tolerance: converged when `|P g| <= gtol` (or `gtol * (1 + |f|)` with `gtol_relative`).
    pub gtol: f64,
    /// Scale `gtol` by `1 + |f|` (default false: absolute).
    pub gtol_relative: bool,
    /// Norm of the stopping test (default [`GradNorm::Max`]).
    pub norm: GradNorm,
    /// Also converged when an accepted step changes `f` by at most `ftol * max(1, |f_old|, |f_new|)`;
    /// 0 disables the test (default 1e-10).
    pub ftol: f64,
    /// Step halvings tried by the line search before it gives up (default 40).
    pub max_backtracks: usize,
    /// Steepest-descent steps (the first iteration, restarts) have length `|g| / max(|g|, floor)`:
    /// 0 gives unit Euclidean length, 1 caps the length at 1 (default 0).
    pub first_step_floor: f64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        LbfgsOptions {
            max_iters: 100,
            memory: 10,
            gtol: 1e-6,
            gtol_relative: false,
            norm: GradNorm::Max,
            ftol: 1e-10,
            max_backtracks: 40,
            first_step_floor: 0.0,
        }
    }
}

/// Why [`lbfgs`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LbfgsStop {
    /// The gradient or the function-change test was met.
    Converged,
    /// `max_iters` reached.
    MaxIters,
    /// Even a steepest-descent step found no decrease (or an accepted step did not decrease `f`).
    NoProgress,
    /// `f` or its gradient is not finite at the start point: nothing was done.
    NonFiniteStart,
}

/// Result of [`lbfgs`]; the point itself is left in the caller's `x`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LbfgsReport {
    /// `f` at the returned point (as evaluated there, possibly non-finite with `NonFiniteStart`).
    pub f: f64,
    /// Projected-gradient norm (the options' norm) at the returned point.
    pub grad_norm: f64,
    /// Iterations done (line-search failures that restart from steepest descent count).
    pub iters: usize,
    /// Function+gradient evaluations.
    pub evals: usize,
    /// Why it stopped.
    pub stop: LbfgsStop,
}

impl LbfgsReport {
    /// Whether a convergence test was met.
    pub fn converged(&self) -> bool {
        self.stop == LbfgsStop::Converged
    }
}

pub(crate) use crate::linalg::{axpy, dot, norm};

/// Box `[lo, hi]` (or none): `at_lower` / `at_upper` tell which bounds hold a coordinate.
#[derive(Clone, Copy)]
struct Bounds<'a>(Option<(&'a [f64], &'a [f64])>);

impl Bounds<'_> {
    fn project(&self, x: &mut [f64]) {
        if let Some((lo, hi)) = self.0 {
            for ((v, a), b) in x.iter_mut().zip(lo).zip(hi) {
                *v = v.clamp(*a, *b);
            }
        }
    }
    /// Whether moving along `dir_i` from `x_i` leaves the box at once.
    fn blocked(&self, x: &[f64], i: usize, dir_i: f64) -> bool {
        match self.0 {
            Some((lo, hi)) => (x[i] <= lo[i] && dir_i < 0.0) || (x[i] >= hi[i] && dir_i > 0.0),
            None => false,
        }
    }
    /// Projected gradient: components the bounds hold (`-g` points out of the box) are zeroed.
    fn free_grad(&self, x: &[f64], g: &[f64], out: &mut [f64]) {
        for i in 0..g.len() {
            out[i] = if self.blocked(x, i, -g[i]) { 0.0 } else { g[i] };
        }
    }
}

fn grad_norm(v: &[f64], which: GradNorm) -> f64 {
    match which {
        GradNorm::L2 => norm(v),
        GradNorm::Max => v.iter().fold(0.0f64, |a, b| a.max(b.abs())),
    }
}

/// Backtracking Armijo line search (Nocedal & Wright 2006, Alg. 3.1 with c1 = 1e-4, halving from t = 1) along
/// `d` from `x`, each trial point passed through `project` (a box projection, or nothing) and the sufficient
/// decrease measured on the projected step. On success `xn`, `gn` hold the accepted point and its gradient and
/// the result is `Some((t, f(xn)))`; `None` when `max_backtracks` halvings found no finite sufficient decrease.
/// The second value counts the evaluations of `fg`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn armijo_backtrack(
    x: &[f64],
    d: &[f64],
    f: f64,
    g: &[f64],
    xn: &mut [f64],
    gn: &mut [f64],
    max_backtracks: usize,
    mut project: impl FnMut(&mut [f64]),
    mut fg: impl FnMut(&[f64], &mut [f64]) -> f64,
) -> (Option<(f64, f64)>, usize) {
    let mut t = 1.0;
    for tried in 1..=max_backtracks {
        for i in 0..x.len() {
            xn[i] = x[i] + t * d[i];
        }
        project(xn);
        let fnew = fg(xn, gn);
        let pred: f64 = (0..x.len()).map(|i| g[i] * (xn[i] - x[i])).sum();
        if fnew.is_finite() && gn.iter().all(|v| v.is_finite()) && fnew <= f + 1e-4 * pred.min(0.0) {
            return (Some((t, fnew)), tried);
        }
        t *= 0.5;
    }
    (None, max_backtracks)
}

/// Minimises the smooth `fg(x, grad) -> f` (which writes the gradient) from the start in `x`, optionally
/// over the box `bounds = (lo, hi)` (the start is projected into it first); `x` holds the best point on
/// return. Non-finite values met during the line search shorten the step. See the module doc for the
/// algorithm.
pub fn lbfgs(
    mut fg: impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &mut [f64],
    bounds: Option<(&[f64], &[f64])>,
    opts: &LbfgsOptions,
) -> LbfgsReport {
    let n = x.len();
    let m = opts.memory.max(1);
    let bx = Bounds(bounds);
    bx.project(x);
    let finite = |f: f64, g: &[f64]| f.is_finite() && g.iter().all(|v| v.is_finite());
    let mut g = vec![0.0; n];
    let mut pg = vec![0.0; n];
    let mut f = fg(x, &mut g);
    let mut evals = 1;
    let pg_norm = |x: &[f64], g: &[f64], pg: &mut [f64]| {
        bx.free_grad(x, g, pg);
        grad_norm(pg, opts.norm)
    };
    let mut gnorm = pg_norm(x, &g, &mut pg);
    if !finite(f, &g) {
        return LbfgsReport { f, grad_norm: gnorm, iters: 0, evals, stop: LbfgsStop::NonFiniteStart };
    }
    let gtol = |f: f64| if opts.gtol_relative { opts.gtol * (1.0 + f.abs()) } else { opts.gtol };
    let mut s_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut y_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut rho: Vec<f64> = Vec::with_capacity(m);
    let mut alpha = vec![0.0; m];
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    // Steepest descent on the free variables, of length |pg| / max(|pg|, floor).
    let steepest = |pg: &[f64], d: &mut [f64]| {
        let sc = 1.0 / norm(pg).max(opts.first_step_floor).max(1e-300);
        for (di, gi) in d.iter_mut().zip(pg) {
            *di = -sc * gi;
        }
    };
    let mut stop = if gnorm <= gtol(f) { LbfgsStop::Converged } else { LbfgsStop::MaxIters };
    let mut iters = 0;
    while stop == LbfgsStop::MaxIters && iters < opts.max_iters {
        iters += 1;
        // Two-loop recursion on the free variables: d = -H pg.
        let k = s_hist.len();
        if k == 0 {
            steepest(&pg, &mut d);
        } else {
            d.copy_from_slice(&pg);
            for j in (0..k).rev() {
                alpha[j] = rho[j] * dot(&s_hist[j], &d);
                axpy(-alpha[j], &y_hist[j], &mut d);
            }
            let gamma = dot(&s_hist[k - 1], &y_hist[k - 1]) / dot(&y_hist[k - 1], &y_hist[k - 1]);
            d.iter_mut().for_each(|v| *v *= gamma);
            for j in 0..k {
                let b = rho[j] * dot(&y_hist[j], &d);
                axpy(alpha[j] - b, &s_hist[j], &mut d);
            }
            for i in 0..n {
                // held variables stay put; others may not leave the box at once
                d[i] = if bx.blocked(x, i, -g[i]) || bx.blocked(x, i, -d[i]) { 0.0 } else { -d[i] };
            }
            if !(dot(&g, &d) < 0.0) {
                // Not a descent direction (numerical trouble): restart from steepest descent.
                s_hist.clear();
                y_hist.clear();
                rho.clear();
                steepest(&pg, &mut d);
            }
        }
        if !(dot(&g, &d) < 0.0) {
            stop = LbfgsStop::NoProgress; // the projected gradient vanishes on the free variables
            break;
        }
        // Backtracking Armijo search on the projected path.
        let (step, tried) =
            armijo_backtrack(x, &d, f, &g, &mut xn, &mut gn, opts.max_backtracks, |v| bx.project(v), &mut fg);
        evals += tried;
        let Some((_, fnew)) = step else {
            if s_hist.is_empty() {
                stop = LbfgsStop::NoProgress; // even steepest descent cannot decrease f
                break;
            }
            s_hist.clear();
            y_hist.clear();
            rho.clear();
            continue;
        };
        let (mut sy, mut ss, mut yy) = (0.0, 0.0, 0.0);
        for i in 0..n {
            let (s, y) = (xn[i] - x[i], gn[i] - g[i]);
            sy += s * y;
            ss += s * s;
            yy += y * y;
        }
        if sy > 1e-12 * (ss * yy).sqrt() && sy > 0.0 {
            let (mut s, mut y) = if s_hist.len() == m {
                rho.remove(0);
                (s_hist.remove(0), y_hist.remove(0))
            } else {
                (vec![0.0; n], vec![0.0; n])
            };
            for i in 0..n {
                s[i] = xn[i] - x[i];
                y[i] = gn[i] - g[i];
            }
            s_hist.push(s);
            y_hist.push(y);
            rho.push(1.0 / sy);
        }
        let fold = f;
        x.copy_from_slice(&xn);
        g.copy_from_slice(&gn);
        f = fnew;
        gnorm = pg_norm(x, &g, &mut pg);
        if gnorm <= gtol(f) || (opts.ftol > 0.0 && (fold - f).abs() <= opts.ftol * fold.abs().max(f.abs()).max(1.0)) {
            stop = LbfgsStop::Converged;
        } else if !(f < fold) {
            stop = LbfgsStop::NoProgress;
        }
    }
    LbfgsReport { f, grad_norm: gnorm, iters, evals, stop }
}

/// Conjugate gradient for `A x = b`, `A` symmetric positive definite given by `apply(v, out)` (`out = A v`).
/// `x` holds the warm start on entry and the solution on exit; stops when `|A x - b| <= tol`.
pub fn conjugate_gradient(
    mut apply: impl FnMut(&[f64], &mut [f64]),
    b: &[f64],
    x: &mut [f64],
    tol: f64,
    max_iter: usize,
) -> SolveInfo {
    let n = b.len();
    let mut r = vec![0.0; n];
    let mut ap = vec![0.0; n];
    apply(x, &mut ap);
    let mut evals = 1;
    for i in 0..n {
        r[i] = b[i] - ap[i];
    }
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let mut iters = 0;
    while rr.sqrt() > tol && iters < max_iter {
        apply(&p, &mut ap);
        evals += 1;
        let pap = dot(&p, &ap);
        if !(pap > 0.0) || !pap.is_finite() {
            break; // not positive definite along p (or numerical breakdown): report non-convergence
        }
        let alpha = rr / pap;
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rr_new = dot(&r, &r);
        let beta = rr_new / rr;
        rr = rr_new;
        for i in 0..n {
            p[i] = r[i] + beta * p[i];
        }
        iters += 1;
        // Recompute the true residual periodically to avoid drift.
        if iters % 50 == 0 {
            apply(x, &mut ap);
            evals += 1;
            for i in 0..n {
                r[i] = b[i] - ap[i];
            }
            rr = dot(&r, &r);
        }
    }
    let residual = rr.sqrt();
    SolveInfo { iters, evals, residual, converged: residual <= tol }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rosenbrock(x: &[f64], g: &mut [f64]) -> f64 {
        let (a, b) = (x[0], x[1]);
        g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
        g[1] = 200.0 * (b - a * a);
        (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
    }

    #[test]
    fn rosenbrock_free_and_with_an_active_bound() {
        let opts = LbfgsOptions { max_iters: 500, memory: 6, ..Default::default() };
        let mut x = vec![-1.2, 1.0];
        let r = lbfgs(rosenbrock, &mut x, Some((&[-5.0, -5.0], &[5.0, 5.0])), &opts);
        assert!((x[0] - 1.0).abs() < 1e-4 && (x[1] - 1.0).abs() < 1e-4, "{x:?} {r:?}");
        // bound active at a = 0.5: the minimiser on the box is (0.5, 0.25)
        let mut x = vec![-1.2, 1.0];
        lbfgs(rosenbrock, &mut x, Some((&[-5.0, -5.0], &[0.5, 5.0])), &opts);
        assert!((x[0] - 0.5).abs() < 1e-6 && (x[1] - 0.25).abs() < 1e-4, "{x:?}");
        // unbounded, relative L2 tolerance
        let opts = LbfgsOptions {
            gtol: 1e-10,
            gtol_relative: true,
            norm: GradNorm::L2,
            ftol: 0.0,
            max_iters: 1000,
            ..Default::default()
        };
        let mut x = vec![-1.2, 1.0];
        let r = lbfgs(rosenbrock, &mut x, None, &opts);
        assert!(r.converged() && (x[0] - 1.0).abs() < 1e-8, "{x:?} {r:?}");
    }

    #[test]
    fn non_finite_start_does_nothing() {
        let mut x = vec![1.0];
        let r = lbfgs(
            |_, g| {
                g[0] = 0.0;
                f64::INFINITY
            },
            &mut x,
            None,
            &LbfgsOptions::default(),
        );
        assert_eq!((r.stop, r.iters, x[0]), (LbfgsStop::NonFiniteStart, 0, 1.0));
    }
}
