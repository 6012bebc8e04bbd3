//! Iterative differentiation through the inner solver itself (Domke 2012; Maclaurin et al. 2015; the
//! baseline of Pedregosa 2016, Sec. 4): the inner problem is solved from `x_0 = 0` by the same solver HOAG
//! uses (conjugate gradient for the quadratic kernel-ridge problem, L-BFGS for logistic regression), every
//! iterate is stored, and the outer loss `f(x_T(λ), λ)` is differentiated in reverse mode through the
//! iterations: `d f(x_T(λ), λ) / dλ = ∇_2 f + Σ_t (∂(iteration t)/∂λ)ᵀ x̄_{t+1}` (the chain rule of Domke 2012,
//! Sec. 4, and Maclaurin et al. 2015, Algorithm 2, applied to CG and L-BFGS instead of gradient descent).
//!
//! Both solvers make discrete choices (the L-BFGS backtracking step `t = 2^-k`, the curvature test on
//! a pair, the number of iterations before the stopping rule holds); these are piecewise constant in `λ`,
//! so the reverse pass treats them as constants and returns the exact derivative of the map `λ -> f(x_T(λ))`
//! wherever they do not switch (checked against finite differences in tests/core/experiments/hoag.rs).
//!
//! The forward passes repeat [`crate::optim::conjugate_gradient`] and [`crate::optim::lbfgs`] (unbounded,
//! Euclidean absolute gradient tolerance, memory 10, Armijo backtracking by halving, first step of unit
//! length) operation for operation; the one difference: the unrolled CG does not recompute the true
//! residual every 50 iterations.

// Index loops mirror the equations.
#![allow(clippy::needless_range_loop)]

use super::problems::InnerAt;
use super::solvers::{dot, norm};
use crate::linalg::axpy;

/// Memory of the inner L-BFGS (as [`super::problems`]' `solve`).
pub(crate) const LBFGS_MEMORY: usize = 10;

/// Iterative differentiation with the solver the problem uses ([`InnerAt::linear`]: CG, otherwise L-BFGS):
/// at most `steps` iterations from zero, stopping early when `|∇_1 h| <= tol`. Leaves `x_T` in `x`, writes
/// `d f(x_T(λ), λ)/dλ` into `grad` and returns `(f(x_T), iterations)`.
pub fn unrolled_hypergradient(
    at: &dyn InnerAt,
    steps: usize,
    tol: f64,
    x: &mut [f64],
    grad: &mut [f64],
) -> (f64, usize) {
    if at.linear() {
        cg(at, steps, tol, x, grad)
    } else {
        lbfgs(at, steps, tol, LBFGS_MEMORY, x, grad)
    }
}

/// Reverse mode through conjugate gradient (Hestenes & Stiefel 1952) on `A(λ) x = b`, `A = ∇²_1 h`,
/// `b = -∇_1 h(0)` independent of λ. Forward: `q_t = A p_t`, `α_t = ρ_t / (p_tᵀq_t)` with `ρ_t = |r_t|²`,
/// `x_{t+1} = x_t + α_t p_t`, `r_{t+1} = r_t - α_t q_t`, `β_t = ρ_{t+1}/ρ_t`, `p_{t+1} = r_{t+1} + β_t p_t`.
/// The adjoint of `q_t = A p_t` gives `p̄_t += A q̄_t` and `λ̄ += q̄_tᵀ (∂A/∂λ) p_t` ([`InnerAt::cross_t`]).
fn cg(at: &dyn InnerAt, steps: usize, tol: f64, x: &mut [f64], grad: &mut [f64]) -> (f64, usize) {
    let n = x.len();
    let s = grad.len();
    x.iter_mut().for_each(|v| *v = 0.0);
    let mut r = vec![0.0; n];
    at.value_grad(x, &mut r);
    r.iter_mut().for_each(|v| *v = -*v); // r_0 = b - A·0 = -∇h(0)
    let mut p = r.clone();
    let mut q = vec![0.0; n];
    let mut rr = dot(&r, &r);
    // Tape: p_t, q_t, r_t (and r_T), α_t, β_t, ρ_t, σ_t.
    let (mut tp, mut tq, mut tr) = (Vec::new(), Vec::new(), vec![r.clone()]);
    let (mut ta, mut tb, mut trho, mut tsig) = (Vec::new(), Vec::new(), vec![rr], Vec::new());
    while rr.sqrt() > tol && tp.len() < steps {
        at.hvp(x, &p, &mut q);
        let pap = dot(&p, &q);
        if !(pap > 0.0) || !pap.is_finite() {
            break;
        }
        let alpha = rr / pap;
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        let rr_new = dot(&r, &r);
        let beta = rr_new / rr;
        tp.push(p.clone());
        tq.push(q.clone());
        tr.push(r.clone());
        ta.push(alpha);
        tb.push(beta);
        tsig.push(pap);
        trho.push(rr_new);
        rr = rr_new;
        for i in 0..n {
            p[i] = r[i] + beta * p[i];
        }
    }
    let t_end = tp.len();
    let mut xb = vec![0.0; n];
    let f = at.outer_grad(x, &mut xb, grad);
    let mut rb = vec![0.0; n]; // r̄_{t+1}
    let mut pb = vec![0.0; n]; // p̄_{t+1}
    let mut qb = vec![0.0; n];
    let mut ap = vec![0.0; n];
    let mut cross = vec![0.0; s];
    for t in (0..t_end).rev() {
        let (pt, qt, rt, rt1) = (&tp[t], &tq[t], &tr[t], &tr[t + 1]);
        let (alpha, beta, rho, rho1, sig) = (ta[t], tb[t], trho[t], trho[t + 1], tsig[t]);
        // p_{t+1} = r_{t+1} + β p_t
        axpy(1.0, &pb, &mut rb);
        let beta_b = dot(&pb, pt);
        pb.iter_mut().for_each(|v| *v *= beta);
        // β = ρ_{t+1} / ρ_t, ρ_{t+1} = |r_{t+1}|²
        let rho1_b = beta_b / rho;
        let mut rho_b = -beta_b * rho1 / (rho * rho);
        axpy(2.0 * rho1_b, rt1, &mut rb);
        // r_{t+1} = r_t - α q_t (r̄_t = r̄_{t+1} from here on), x_{t+1} = x_t + α p_t
        let alpha_b = -dot(&rb, qt) + dot(&xb, pt);
        for i in 0..n {
            qb[i] = -alpha * rb[i];
        }
        axpy(alpha, &xb, &mut pb);
        // α = ρ_t / σ_t, σ_t = p_tᵀ q_t
        rho_b += alpha_b / sig;
        let sig_b = -alpha_b * rho / (sig * sig);
        axpy(sig_b, qt, &mut pb);
        axpy(sig_b, pt, &mut qb);
        // ρ_t = |r_t|²
        axpy(2.0 * rho_b, rt, &mut rb);
        // q_t = A p_t
        at.hvp(x, &qb, &mut ap);
        axpy(1.0, &ap, &mut pb);
        at.cross_t(pt, &qb, &mut cross);
        for i in 0..s {
            grad[i] += cross[i];
        }
    }
    // p_0 = r_0 = b does not depend on λ.
    (f, t_end)
}

/// One accepted L-BFGS iteration on the tape: `x_{j+1} = x_j + α_j d_j`, `d_j` from `g_j` and the pairs
/// `(s_i, y_i) = (x_{i+1} - x_i, g_{i+1} - g_i)` of `window` (oldest first), or steepest descent of unit length.
struct LbfgsStep {
    alpha: f64,
    steepest: bool,
    window: Vec<usize>,
}

/// The two-loop recursion (Nocedal & Wright 2006, Algorithm 7.4) as in [`crate::optim::lbfgs`]:
/// returns `z = H g` (the direction is `-z`) and, for the reverse pass, `(q_k, z_k, a_k, ρ_k, γ)`.
#[allow(clippy::type_complexity)]
fn two_loop(
    g: &[f64],
    ss: &[Vec<f64>],
    ys: &[Vec<f64>],
) -> (Vec<f64>, Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>, Vec<f64>, f64) {
    let k = ss.len();
    let rho: Vec<f64> = (0..k).map(|j| 1.0 / dot(&ss[j], &ys[j])).collect();
    let mut a = vec![0.0; k];
    // qs[j] = q before the j-th subtraction of the first loop (qs[k] = g).
    let mut qs = vec![Vec::new(); k + 1];
    let mut d = g.to_vec();
    qs[k] = d.clone();
    for j in (0..k).rev() {
        a[j] = rho[j] * dot(&ss[j], &d);
        axpy(-a[j], &ys[j], &mut d);
        qs[j] = d.clone();
    }
    let gamma = dot(&ss[k - 1], &ys[k - 1]) / dot(&ys[k - 1], &ys[k - 1]);
    d.iter_mut().for_each(|v| *v *= gamma);
    let mut zs = vec![Vec::new(); k + 1];
    zs[0] = d.clone();
    for j in 0..k {
        let b = rho[j] * dot(&ys[j], &d);
        axpy(a[j] - b, &ss[j], &mut d);
        zs[j + 1] = d.clone();
    }
    (d, qs, zs, a, rho, gamma)
}

/// Reverse mode through L-BFGS (Liu & Nocedal 1989) as [`crate::optim::lbfgs`] runs it without bounds.
/// Tape: every accepted iterate `x_j` and gradient `g_j = ∇_1 h(x_j, λ)`. Going back over the iterations,
/// the adjoint of step `j` goes to `x̄_j`, `ḡ_j` and the pairs of its window; once step `j` is undone `ḡ_j` is
/// complete and is pushed through `g_j = ∇_1 h(x_j, λ)`: `x̄_j += ∇²_1 h ḡ_j`, `λ̄ += (∇²_{12} h)ᵀ ḡ_j`.
fn lbfgs(at: &dyn InnerAt, steps: usize, tol: f64, m: usize, x: &mut [f64], grad: &mut [f64]) -> (f64, usize) {
    let n = x.len();
    let s = grad.len();
    x.iter_mut().for_each(|v| *v = 0.0);
    let mut g = vec![0.0; n];
    let mut f = at.value_grad(x, &mut g);
    let mut xs = vec![x.to_vec()];
    let mut gs = vec![g.clone()];
    let mut tape: Vec<LbfgsStep> = Vec::new();
    let mut window: Vec<usize> = Vec::new();
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    let steepest = |g: &[f64], d: &mut [f64]| {
        let sc = 1.0 / norm(g).max(1e-300);
        for (di, gi) in d.iter_mut().zip(g) {
            *di = -sc * gi;
        }
    };
    let pair = |xs: &[Vec<f64>], gs: &[Vec<f64>], i: usize| -> (Vec<f64>, Vec<f64>) {
        ((0..n).map(|l| xs[i + 1][l] - xs[i][l]).collect(), (0..n).map(|l| gs[i + 1][l] - gs[i][l]).collect())
    };
    let finite = |f: f64, g: &[f64]| f.is_finite() && g.iter().all(|v| v.is_finite());
    if !finite(f, &g) {
        let mut xb = vec![0.0; n];
        return (at.outer_grad(x, &mut xb, grad), 0);
    }
    let mut iters = 0;
    while norm(&g) > tol && iters < steps {
        iters += 1;
        let mut is_steepest = window.is_empty();
        if is_steepest {
            steepest(&g, &mut d);
        } else {
            let (ss, ys): (Vec<_>, Vec<_>) = window.iter().map(|&i| pair(&xs, &gs, i)).unzip();
            let (z, ..) = two_loop(&g, &ss, &ys);
            for i in 0..n {
                d[i] = -z[i];
            }
            if !(dot(&g, &d) < 0.0) {
                window.clear();
                steepest(&g, &mut d);
                is_steepest = true;
            }
        }
        if !(dot(&g, &d) < 0.0) {
            break;
        }
        let (step, _) =
            crate::optim::armijo_backtrack(x, &d, f, &g, &mut xn, &mut gn, 40, |_| {}, |v, gv| at.value_grad(v, gv));
        let Some((t, fnew)) = step else {
            if window.is_empty() {
                break;
            }
            window.clear();
            continue;
        };
        tape.push(LbfgsStep {
            alpha: t,
            steepest: is_steepest,
            window: if is_steepest { Vec::new() } else { window.clone() },
        });
        let (mut sy, mut ss, mut yy) = (0.0, 0.0, 0.0);
        for i in 0..n {
            let (si, yi) = (xn[i] - x[i], gn[i] - g[i]);
            sy += si * yi;
            ss += si * si;
            yy += yi * yi;
        }
        x.copy_from_slice(&xn);
        g.copy_from_slice(&gn);
        xs.push(x.to_vec());
        gs.push(g.clone());
        if sy > 1e-12 * (ss * yy).sqrt() && sy > 0.0 {
            if window.len() == m {
                window.remove(0);
            }
            window.push(xs.len() - 2);
        }
        let fold = f;
        f = fnew;
        if !(f < fold) {
            break;
        }
    }
    // Reverse pass. xb[j], gb[j]: adjoints of x_j, g_j.
    let t_end = tape.len();
    let mut xb = vec![vec![0.0; n]; t_end + 1];
    let mut gb = vec![vec![0.0; n]; t_end + 1];
    let fout = at.outer_grad(x, &mut xb[t_end], grad);
    let mut hv = vec![0.0; n];
    let mut cross = vec![0.0; s];
    for j in (0..t_end).rev() {
        let st = &tape[j];
        // x_{j+1} = x_j + α d_j
        let (head, tail) = xb.split_at_mut(j + 1);
        let next = &tail[0];
        axpy(1.0, next, &mut head[j]);
        let db: Vec<f64> = next.iter().map(|v| st.alpha * v).collect();
        let g_j = &gs[j];
        if st.steepest {
            // d = -g/|g|: ḡ = -(d̄ - (d̄·u) u)/|g|, u = g/|g|
            let gn = norm(g_j).max(1e-300);
            let du = dot(&db, g_j) / gn;
            for i in 0..n {
                gb[j][i] -= (db[i] - du * g_j[i] / gn) / gn;
            }
        } else {
            let (ss, ys): (Vec<_>, Vec<_>) = st.window.iter().map(|&i| pair(&xs, &gs, i)).unzip();
            let k = ss.len();
            let (_, qs, zs, a, rho, gamma) = two_loop(g_j, &ss, &ys);
            let mut sb = vec![vec![0.0; n]; k];
            let mut yb = vec![vec![0.0; n]; k];
            let mut rhob = vec![0.0; k];
            let mut ab = vec![0.0; k];
            // d = -z_k
            let mut zb: Vec<f64> = db.iter().map(|v| -v).collect();
            for jj in (0..k).rev() {
                // z_{jj+1} = z_jj + (a - b) s, b = ρ yᵀ z_jj
                let b = rho[jj] * dot(&ys[jj], &zs[jj]);
                let cb = dot(&zb, &ss[jj]);
                axpy(a[jj] - b, &zb, &mut sb[jj]);
                ab[jj] += cb;
                let bb = -cb;
                rhob[jj] += bb * dot(&ys[jj], &zs[jj]);
                axpy(bb * rho[jj], &zs[jj], &mut yb[jj]);
                axpy(bb * rho[jj], &ys[jj], &mut zb);
            }
            // z_0 = γ q_0, γ = sᵀy / yᵀy of the newest pair
            let gamma_b = dot(&zb, &qs[0]);
            let mut qb: Vec<f64> = zb.iter().map(|v| gamma * v).collect();
            let (sn, yn) = (&ss[k - 1], &ys[k - 1]);
            let (sy, yy) = (dot(sn, yn), dot(yn, yn));
            axpy(gamma_b / yy, yn, &mut sb[k - 1]);
            for i in 0..n {
                yb[k - 1][i] += gamma_b * (sn[i] / yy - 2.0 * sy * yn[i] / (yy * yy));
            }
            for jj in 0..k {
                // q_jj = q_{jj+1} - a y, a = ρ sᵀ q_{jj+1}
                ab[jj] -= dot(&qb, &ys[jj]);
                axpy(-a[jj], &qb, &mut yb[jj]);
                let sq = dot(&ss[jj], &qs[jj + 1]);
                rhob[jj] += ab[jj] * sq;
                axpy(ab[jj] * rho[jj], &qs[jj + 1], &mut sb[jj]);
                let qs_coef = ab[jj] * rho[jj];
                axpy(qs_coef, &ss[jj], &mut qb);
            }
            axpy(1.0, &qb, &mut gb[j]);
            for (jj, &i) in st.window.iter().enumerate() {
                // ρ = 1/(sᵀy)
                let c = -rhob[jj] * rho[jj] * rho[jj];
                axpy(c, &ys[jj], &mut sb[jj]);
                axpy(c, &ss[jj], &mut yb[jj]);
                // s_i = x_{i+1} - x_i, y_i = g_{i+1} - g_i (i < j: both ends are still to be pushed)
                axpy(1.0, &sb[jj], &mut xb[i + 1]);
                axpy(-1.0, &sb[jj], &mut xb[i]);
                axpy(1.0, &yb[jj], &mut gb[i + 1]);
                axpy(-1.0, &yb[jj], &mut gb[i]);
            }
        }
        // ḡ_j is complete: g_j = ∇_1 h(x_j, λ).
        at.hvp(&xs[j], &gb[j], &mut hv);
        axpy(1.0, &hv, &mut xb[j]);
        at.cross_t(&xs[j], &gb[j], &mut cross);
        for i in 0..s {
            grad[i] += cross[i];
        }
    }
    (fout, t_end)
}
