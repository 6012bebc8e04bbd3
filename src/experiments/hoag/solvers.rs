//! HOAG's inner solvers, from [`crate::optim`]: conjugate gradient as is, and L-BFGS with an absolute
//! Euclidean gradient tolerance (the inner problem's `|grad h(x)| <= tol`, as HOAG's tolerance sequence
//! requires).

pub use crate::optim::{conjugate_gradient, SolveInfo};
pub(crate) use crate::optim::{dot, norm};
use crate::optim::{GradNorm, LbfgsOptions};

/// L-BFGS minimisation of a smooth function given by `fg(x, grad) -> value`, memory `m`, from the warm
/// start in `x`; stops when `|grad| <= tol` (Euclidean) or after `max_iter` iterations. The first step has
/// unit length. See [`crate::optim::lbfgs`].
pub fn lbfgs(
    fg: impl FnMut(&[f64], &mut [f64]) -> f64,
    x: &mut [f64],
    tol: f64,
    max_iter: usize,
    m: usize,
) -> SolveInfo {
    let opts = LbfgsOptions {
        max_iters: max_iter,
        memory: m,
        gtol: tol,
        gtol_relative: false,
        norm: GradNorm::L2,
        ftol: 0.0,
        max_backtracks: 40,
        first_step_floor: 0.0,
    };
    let r = crate::optim::lbfgs(fg, x, None, &opts);
    SolveInfo { iters: r.iters, evals: r.evals, residual: r.grad_norm, converged: r.grad_norm <= tol }
}
