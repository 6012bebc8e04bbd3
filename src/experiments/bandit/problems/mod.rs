//! Bandit problems with a known optimum, so that regret is exact.
//!
//! - [`Reservoir`]: infinitely many Bernoulli arms whose means are i.i.d. `shift + scale * Beta(a, b)`
//!   (Beta(alpha, 1), Beta(1, beta) and shifted Beta as in Shang, Kaufmann & Valko 2019). Arm `k`'s mean is drawn
//!   from its own stream `(problem seed, k)`, so every algorithm of a repeat sees the same arms (common random
//!   numbers) whatever order it visits them in. The optimum is the top of the support, `shift + scale`.
//! - [`FiniteBernoulli`]: a fixed list of Bernoulli means.
//! - [`TestFunction`]: Branin, Hartmann-3/6, Rosenbrock (negated: every problem is a maximisation) with
//!   Gaussian noise, optionally time-varying: `f_t(x) = f(x + s(t))` with a drift `s(t)` small enough that a global
//!   minimiser of `f` over R^d stays in the box, so the optimum value is the same known constant at every t while
//!   its location moves.
//! - [`TvoSchedule`]: the thermodynamic-variational-objective-like schedule problem (see its docs).
//!
//! The trait and arm helpers are here; the problems are in `bernoulli`, `test_functions` and `tvo`.

mod bernoulli;
mod test_functions;
mod tvo;

pub use bernoulli::{FiniteBernoulli, Reservoir};
pub use test_functions::{TestFn, TestFunction};
pub use tvo::TvoSchedule;

use crate::bandit::Arm;
pub use crate::bandit::ArmSpace;
use crate::rng::Rng;
use crate::{Error, Result};

/// A stochastic reward environment with exactly known arm values.
pub trait Problem: Send {
    /// Short name.
    fn name(&self) -> String;
    /// The arm space.
    fn space(&self) -> ArmSpace;
    /// Whether arm values change with the round (or with the state the algorithm drives).
    fn time_varying(&self) -> bool {
        false
    }
    /// Rewards are in [0, 1] (TTTS binarises them).
    fn unit_rewards(&self) -> bool {
        false
    }
    /// One noisy reward of `arm` at round `t` (0-based); may advance an internal state.
    fn pull(&mut self, arm: &Arm, t: usize, rng: &mut Rng) -> Result<f64>;
    /// Moves the internal state as [`Problem::pull`] of `arm` at round `t` does, without drawing a reward: a
    /// resumed run replays its saved pulls with it. Every problem says what its pulls change (nothing, for
    /// most), so a new one cannot forget.
    fn replay(&mut self, arm: &Arm, t: usize) -> Result<()>;
    /// Expected reward of `arm` at round `t` in the current state.
    fn value(&mut self, arm: &Arm, t: usize) -> f64;
    /// Largest expected reward at round `t` in the current state.
    fn optimum(&mut self, t: usize) -> f64;
    /// A maximiser at round `t`, when cheaply available (charts).
    fn optimal_arm(&mut self, _t: usize) -> Option<Arm> {
        None
    }
    /// Compute units (gradient evaluations, pulls) one pull of `arm` costs.
    fn cost(&self, _arm: &Arm) -> f64 {
        1.0
    }
    /// Name of the compute unit of [`Problem::cost`].
    fn cost_unit(&self) -> &'static str {
        "pulls"
    }
    /// A readable description of a discrete arm (the configuration behind an index), for reports and charts.
    fn describe(&self, _arm: &Arm) -> Option<String> {
        None
    }
}

fn arm_index(arm: &Arm, n: Option<usize>) -> Result<usize> {
    match arm {
        Arm::Index(i) => match n {
            Some(n) if *i >= n => Err(Error::config(format!("arm {i} out of range (problem has {n} arms)"))),
            _ => Ok(*i),
        },
        Arm::Point(_) => Err(Error::config("this problem has discrete arms; got a point")),
    }
}

fn arm_point(arm: &Arm, dim: usize) -> Result<&[f64]> {
    match arm {
        Arm::Point(p) if p.len() == dim => Ok(p),
        Arm::Point(p) => Err(Error::config(format!("arm has {} coordinates, problem needs {dim}", p.len()))),
        Arm::Index(_) => Err(Error::config("this problem has continuous arms; got an index")),
    }
}
