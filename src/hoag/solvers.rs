//! Inner solvers used by HOAG and its baselines: conjugate gradient (Hestenes & Stiefel 1952) for
//! symmetric positive-definite systems given by a matrix-vector product, and L-BFGS (Nocedal 1980;
//! Nocedal & Wright 2006, Algorithm 7.4/7.5) with a backtracking Armijo line search.
//!
//! Both take an absolute tolerance on a residual / gradient norm and report whether it was met.

// Index loops mirror the equations in these numeric kernels; negated comparisons deliberately catch NaN.
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

/// Outcome of an iterative solve.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolveInfo {
    /// Iterations performed.
    pub iters: usize,
    /// Operator applications (CG) or function+gradient evaluations (L-BFGS).
    pub evals: usize,
    /// Final residual norm (CG: `|A x - b|`; L-BFGS: `|grad h(x)|`).
    pub residual: f64,
    /// Whether `residual <= tol` was reached within the iteration limit.
    pub converged: bool,
}

#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[inline]
pub(crate) fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
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

/// L-BFGS minimisation of a smooth function given by `fg(x, grad) -> value`, memory `m`, from the warm
/// start in `x`; stops when `|grad| <= tol`. Backtracking Armijo line search (c1 = 1e-4), first trial
/// step 1 (scaled by `1/|g|` on the first iteration).
pub fn lbfgs(
    mut fg: impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &mut [f64],
    tol: f64,
    max_iter: usize,
    m: usize,
) -> SolveInfo {
    let n = x.len();
    let m = m.max(1);
    let mut g = vec![0.0; n];
    let mut f = fg(x, &mut g);
    let mut evals = 1;
    let mut s_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut y_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut rho_hist: Vec<f64> = Vec::with_capacity(m);
    let mut alpha_buf = vec![0.0; m];
    let mut d = vec![0.0; n];
    let mut x_new = vec![0.0; n];
    let mut g_new = vec![0.0; n];
    let mut iters = 0;
    let mut gnorm = norm(&g);
    while gnorm > tol && iters < max_iter && f.is_finite() {
        // Two-loop recursion: d = -H g.
        d.copy_from_slice(&g);
        let k = s_hist.len();
        for j in (0..k).rev() {
            let a = rho_hist[j] * dot(&s_hist[j], &d);
            alpha_buf[j] = a;
            for i in 0..n {
                d[i] -= a * y_hist[j][i];
            }
        }
        let gamma = if k > 0 {
            dot(&s_hist[k - 1], &y_hist[k - 1]) / dot(&y_hist[k - 1], &y_hist[k - 1])
        } else {
            1.0 / gnorm.max(1e-300)
        };
        for v in d.iter_mut() {
            *v *= gamma;
        }
        for j in 0..k {
            let b = rho_hist[j] * dot(&y_hist[j], &d);
            for i in 0..n {
                d[i] += (alpha_buf[j] - b) * s_hist[j][i];
            }
        }
        for v in d.iter_mut() {
            *v = -*v;
        }
        let mut slope = dot(&g, &d);
        if !(slope < 0.0) {
            // Not a descent direction: restart with steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho_hist.clear();
            for i in 0..n {
                d[i] = -g[i] / gnorm;
            }
            slope = -gnorm;
        }
        let mut step = 1.0;
        let mut f_new;
        let mut ls = 0;
        loop {
            for i in 0..n {
                x_new[i] = x[i] + step * d[i];
            }
            f_new = fg(&x_new, &mut g_new);
            evals += 1;
            if f_new.is_finite() && f_new <= f + 1e-4 * step * slope {
                break;
            }
            step *= 0.5;
            ls += 1;
            if ls >= 40 {
                break;
            }
        }
        if ls >= 40 || f_new >= f {
            break; // line search failed or no decrease: cannot make progress at this precision
        }
        let mut sy = 0.0;
        let mut yy = 0.0;
        for i in 0..n {
            let s = x_new[i] - x[i];
            let y = g_new[i] - g[i];
            sy += s * y;
            yy += y * y;
        }
        if sy > 1e-12 * yy.sqrt() * (step * norm(&d)) && sy > 0.0 {
            let (mut s, mut y) = if s_hist.len() == m {
                rho_hist.remove(0);
                (s_hist.remove(0), y_hist.remove(0))
            } else {
                (vec![0.0; n], vec![0.0; n])
            };
            for i in 0..n {
                s[i] = x_new[i] - x[i];
                y[i] = g_new[i] - g[i];
            }
            s_hist.push(s);
            y_hist.push(y);
            rho_hist.push(1.0 / sy);
        }
        x.copy_from_slice(&x_new);
        g.copy_from_slice(&g_new);
        f = f_new;
        gnorm = norm(&g);
        iters += 1;
    }
    SolveInfo { iters, evals, residual: gnorm, converged: gnorm <= tol }
}
