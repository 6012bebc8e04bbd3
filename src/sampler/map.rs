//! MAP estimation by L-BFGS with full-data gradients (the centring value of the control variates).

use crate::error::{Error, Result};
use crate::model::Target;
use crate::optim::{lbfgs, GradNorm, LbfgsOptions, LbfgsStop};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// Options of [`find_map`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MapOptions {
    /// Maximum L-BFGS iterations (default 1000).
    pub max_iters: usize,
    /// Converged when `max_i |grad_i| <= grad_tol * (1 + |log density|)` (default 1e-9).
    pub grad_tol: f64,
    /// Also converged when an iteration changes the log density by at most
    /// `f_tol * max(1, |log density|)` (default 1e-13).
    pub f_tol: f64,
    /// Number of correction pairs kept (default 10).
    pub history: usize,
}

impl Default for MapOptions {
    fn default() -> Self {
        Self { max_iters: 1000, grad_tol: 1e-9, f_tol: 1e-13, history: 10 }
    }
}

/// Result of [`find_map`]. Non-convergence is a state (`converged == false`), not an error: `theta` is
/// then the best point found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapResult {
    /// The (approximate) maximiser of the log posterior.
    pub theta: Vec<f64>,
    /// L-BFGS iterations done.
    pub iters: usize,
    /// Data points touched by full-data gradients (N per gradient; function values cost as much again).
    pub grad_evals: u64,
    /// Whether a convergence criterion was met.
    pub converged: bool,
    /// `max_i |grad_i log p(theta | data)|` at `theta`.
    pub grad_norm: f64,
    /// Log posterior density (up to a constant) at `theta`.
    pub log_density: f64,
}

/// Maximises `target.log_density` from `start` with the shared L-BFGS ([`crate::optim::lbfgs`]: Nocedal &
/// Wright 2006, Algorithm 7.4 / 7.5, backtracking Armijo line search), using full-data gradients.
/// `rng` is not used by L-BFGS (the search is deterministic); it is part of the signature so stochastic
/// optimisers can share it.
///
/// Errors: a start of the wrong length, non-finite entries, or a non-finite density or gradient at the
/// start (`Error::Numerical`).
pub fn find_map(target: &dyn Target, start: &[f64], opts: &MapOptions, _rng: &mut Rng) -> Result<MapResult> {
    let d = target.dim();
    if start.len() != d {
        return Err(Error::config(format!("MAP start has length {}, the target has dimension {d}", start.len())));
    }
    if start.iter().any(|v| !v.is_finite()) {
        return Err(Error::config("MAP start has non-finite entries"));
    }
    if opts.history == 0 || !(opts.grad_tol >= 0.0) || !(opts.f_tol >= 0.0) {
        return Err(Error::config("MAP options need history >= 1 and non-negative tolerances"));
    }
    let n = target.n_data() as u64;
    // Minimise f = -log p, gradient -grad log p.
    let negative = |x: &[f64], g: &mut [f64]| -> f64 {
        target.grad_log_density(x, g);
        g.iter_mut().for_each(|v| *v = -*v);
        -target.log_density(x)
    };
    let lopts = LbfgsOptions {
        max_iters: opts.max_iters,
        memory: opts.history,
        gtol: opts.grad_tol,
        gtol_relative: true,
        norm: GradNorm::Max,
        ftol: opts.f_tol,
        max_backtracks: 60,
        first_step_floor: 1.0,
    };
    let mut x = start.to_vec();
    let r = lbfgs(negative, &mut x, None, &lopts);
    if r.stop == LbfgsStop::NonFiniteStart {
        return Err(Error::numerical("log density or its gradient is not finite at the MAP start point"));
    }
    Ok(MapResult {
        theta: x,
        iters: r.iters,
        grad_evals: n * r.evals as u64,
        converged: r.converged(),
        grad_norm: r.grad_norm,
        log_density: -r.f,
    })
}
