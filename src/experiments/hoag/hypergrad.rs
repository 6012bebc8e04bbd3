//! Outer losses and hypergradients at one hyperparameter value (implicit differentiation, Pedregosa 2016,
//! eq. 2; and reverse mode through the inner solver's iterations): for tests, custom drivers and charts.

use super::methods::grad_norm_at_zero;
use super::problems::Bilevel;
use super::unroll;
use crate::optim::{conjugate_gradient, norm};

/// Outer loss `f(x(λ))` with the inner problem solved from zero to relative tolerance `tol_rel`.
pub fn outer_loss_at(pr: &dyn Bilevel, lam: &[f64], tol_rel: f64, max_iter: usize) -> f64 {
    let at = pr.at(lam);
    let n = pr.n_inner();
    let mut x = vec![0.0; n];
    at.solve(&mut x, tol_rel * grad_norm_at_zero(at.as_ref(), n), max_iter);
    at.outer(&x)
}

/// The hypergradient `∇_2 f - (∇²_{12} h)ᵀ (∇²_1 h)^{-1} ∇_1 f` at `λ` (Pedregosa 2016, eq. 2) with the inner
/// problem and the Hessian system solved to relative tolerance `tol_rel`; returns `(outer loss, gradient)`.
pub fn hypergradient(pr: &dyn Bilevel, lam: &[f64], tol_rel: f64, max_iter: usize) -> (f64, Vec<f64>) {
    let at = pr.at(lam);
    let (n, s) = (pr.n_inner(), pr.n_hyper());
    let mut x = vec![0.0; n];
    at.solve(&mut x, tol_rel * grad_norm_at_zero(at.as_ref(), n), max_iter);
    let mut g = vec![0.0; n];
    let mut gl = vec![0.0; s];
    let f = at.outer_grad(&x, &mut g, &mut gl);
    let mut q = vec![0.0; n];
    let gn = norm(&g).max(1e-300);
    conjugate_gradient(|v, out| at.hvp(&x, v, out), &g, &mut q, tol_rel * gn, max_iter);
    let mut cross = vec![0.0; s];
    at.cross_t(&x, &q, &mut cross);
    (f, gl.iter().zip(&cross).map(|(a, b)| a - b).collect())
}

/// The hypergradient of iterative differentiation: the outer loss after at most `steps` iterations of the
/// problem's own inner solver from zero (CG or L-BFGS, stopping early when `|∇_1 h| <= tol`), and its exact
/// derivative in `λ` by reverse mode through those iterations; returns `(outer loss, gradient, iterations)`.
pub fn iterdiff_hypergradient(pr: &dyn Bilevel, lam: &[f64], steps: usize, tol: f64) -> (f64, Vec<f64>, usize) {
    let at = pr.at(lam);
    let mut x = vec![0.0; pr.n_inner()];
    let mut g = vec![0.0; pr.n_hyper()];
    let (f, iters) = unroll::unrolled_hypergradient(at.as_ref(), steps, tol, &mut x, &mut g);
    (f, g, iters)
}
