//! MAP estimation by L-BFGS with full-data gradients (the centring value of the control variates).

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::model::Target;
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
    fn default() -> Self { Self { max_iters: 1000, grad_tol: 1e-9, f_tol: 1e-13, history: 10 } }
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

/// Maximises `target.log_density` from `start` with L-BFGS (Nocedal & Wright 2006, Algorithm 7.4 / 7.5,
/// two-loop recursion) and a backtracking Armijo line search, using full-data gradients.
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
    let mut grad_evals = 0u64;
    // Minimise f = -log p, gradient gf = -grad log p.
    let mut eval = |x: &[f64], g: &mut [f64]| -> f64 {
        grad_evals += n;
        target.grad_log_density(x, g);
        g.iter_mut().for_each(|v| *v = -*v);
        -target.log_density(x)
    };
    let mut x = start.to_vec();
    let mut g = vec![0.0; d];
    let mut f = eval(&x, &mut g);
    if !f.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return Err(Error::numerical("log density or its gradient is not finite at the MAP start point"));
    }
    let m = opts.history;
    let mut s_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut y_hist: Vec<Vec<f64>> = Vec::with_capacity(m);
    let mut rho: Vec<f64> = Vec::with_capacity(m);
    let mut alpha = vec![0.0; m];
    let mut dir = vec![0.0; d];
    let mut xn = vec![0.0; d];
    let mut gn = vec![0.0; d];
    let inf_norm = |v: &[f64]| v.iter().fold(0.0f64, |a, b| a.max(b.abs()));
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut converged = inf_norm(&g) <= opts.grad_tol * (1.0 + f.abs());
    let mut iters = 0;
    while !converged && iters < opts.max_iters {
        iters += 1;
        // Two-loop recursion: dir = -H g.
        dir.copy_from_slice(&g);
        let k = s_hist.len();
        for i in (0..k).rev() {
            alpha[i] = rho[i] * dot(&s_hist[i], &dir);
            for (q, y) in dir.iter_mut().zip(&y_hist[i]) { *q -= alpha[i] * y; }
        }
        let gamma = if k > 0 { dot(&s_hist[k - 1], &y_hist[k - 1]) / dot(&y_hist[k - 1], &y_hist[k - 1]) } else {
            // First step: a unit-infinity-norm move, scaled down if the gradient is small.
            1.0 / inf_norm(&g).max(1.0)
        };
        dir.iter_mut().for_each(|q| *q *= gamma);
        for i in 0..k {
            let b = rho[i] * dot(&y_hist[i], &dir);
            for (q, s) in dir.iter_mut().zip(&s_hist[i]) { *q += s * (alpha[i] - b); }
        }
        dir.iter_mut().for_each(|q| *q = -*q);
        let mut slope = dot(&g, &dir);
        if !(slope < 0.0) {
            // Not a descent direction (numerical trouble): restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho.clear();
            let sc = 1.0 / inf_norm(&g).max(1.0);
            for (q, gi) in dir.iter_mut().zip(&g) { *q = -sc * gi; }
            slope = dot(&g, &dir);
        }
        // Backtracking Armijo line search (c1 = 1e-4).
        let mut t = 1.0;
        let mut accepted = false;
        let mut fnew = f;
        for _ in 0..60 {
            for ((xn, x), p) in xn.iter_mut().zip(&x).zip(&dir) { *xn = x + t * p; }
            fnew = eval(&xn, &mut gn);
            if fnew.is_finite() && gn.iter().all(|v| v.is_finite()) && fnew <= f + 1e-4 * t * slope {
                accepted = true;
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            if s_hist.is_empty() {
                break; // even steepest descent cannot decrease f: stop, not converged
            }
            s_hist.clear();
            y_hist.clear();
            rho.clear();
            continue;
        }
        let s: Vec<f64> = xn.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = gn.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        let fold = f;
        x.copy_from_slice(&xn);
        g.copy_from_slice(&gn);
        f = fnew;
        if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() {
            if s_hist.len() == m {
                s_hist.remove(0);
                y_hist.remove(0);
                rho.remove(0);
            }
            s_hist.push(s);
            y_hist.push(y);
            rho.push(1.0 / sy);
        }
        converged = inf_norm(&g) <= opts.grad_tol * (1.0 + f.abs())
            || (fold - f).abs() <= opts.f_tol * f.abs().max(1.0);
    }
    Ok(MapResult { grad_norm: inf_norm(&g), log_density: -f, theta: x, iters, grad_evals, converged })
}
