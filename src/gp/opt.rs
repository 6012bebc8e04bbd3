//! Box-constrained minimisation for GP hyperparameters and acquisition functions: the shared projected
//! L-BFGS of [`crate::optim`] with this module's defaults (short history, few iterations, max-norm
//! projected-gradient tolerance). Robust to `f = +inf` (the step is shortened).

use crate::optim::{lbfgs, GradNorm, LbfgsStop};

/// Options of [`lbfgs_box`].
#[derive(Debug, Clone, Copy)]
pub struct LbfgsOptions {
    /// Maximum iterations.
    pub max_iters: usize,
    /// History length.
    pub memory: usize,
    /// Stop when the projected gradient's max-norm is below this.
    pub gtol: f64,
    /// Stop when the relative decrease of f is below this.
    pub ftol: f64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        LbfgsOptions { max_iters: 60, memory: 6, gtol: 1e-6, ftol: 1e-10 }
    }
}

/// Minimises `f` (which writes its gradient into the second argument and returns the value) over the box
/// `[lo, hi]` from `x0`. Returns the best point and value found (value `+inf` if `f` was never finite).
pub fn lbfgs_box(
    f: &mut dyn FnMut(&[f64], &mut [f64]) -> f64,
    mut x: Vec<f64>,
    lo: &[f64],
    hi: &[f64],
    opts: &LbfgsOptions,
) -> (Vec<f64>, f64) {
    let o = crate::optim::LbfgsOptions {
        max_iters: opts.max_iters,
        memory: opts.memory,
        gtol: opts.gtol,
        gtol_relative: false,
        norm: GradNorm::Max,
        ftol: opts.ftol,
        max_backtracks: 30,
        first_step_floor: 0.0,
    };
    let r = lbfgs(f, &mut x, Some((lo, hi)), &o);
    let ok = r.stop != LbfgsStop::NonFiniteStart && r.f.is_finite();
    (x, if ok { r.f } else { f64::INFINITY })
}
