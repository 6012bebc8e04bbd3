//! The ask/tell protocols of the algorithms in this module; the runs that drive them (on the round executor:
//! the SG-MCMC tuning run and the bandit run; the step-size and TVO loops) own the budget, the cancel flag and
//! the events.
//!
//! Two protocols, because the two families ask different questions (docs/layout.md, "Two ask/tell traits"):
//! - [`BanditAlgo`]: one arm a round, one reward back (GP-UCB, TTTS, D-TTTS, successive halving, Hyperband,
//!   uniform / random search);
//! - [`Tuner`]: a round of several arms with a budget each, all their scores back, the pruned arms out (MAMBA's
//!   successive halving and the one-shot grid, heuristic and random searches).

use super::schedule::RoundPlan;
use super::{Arm, ArmStat};
use crate::rng::Rng;

/// An ask/tell bandit algorithm. `t` is the 0-based round. The hot path cannot fail: numerical trouble inside
/// an algorithm (a failed GP factorisation) is handled there and counted in [`BanditAlgo::failures`].
pub trait BanditAlgo: Send {
    /// The arm to pull at round `t`.
    fn ask(&mut self, t: usize, rng: &mut Rng) -> Arm;
    /// The reward observed for `arm` (the one just asked for).
    fn tell(&mut self, arm: &Arm, reward: f64);
    /// The arm recommended after `t` rounds (`None` before any information). `rng` is a dedicated stream for
    /// Monte Carlo estimates, so recommending does not change the sequence of pulls.
    fn recommend(&mut self, t: usize, rng: &mut Rng) -> Option<Arm>;
    /// 1-D continuous problems: posterior mean and sd of the reward on `grid` at time `t` (GP-UCB).
    fn posterior_grid(&self, _grid: &[f64], _t: usize) -> Option<(Vec<f64>, Vec<f64>)> {
        None
    }
    /// Discrete problems: per-arm statistics.
    fn arm_stats(&self) -> Vec<ArmStat> {
        Vec::new()
    }
    /// Numerical failures handled internally.
    fn failures(&self) -> usize {
        0
    }
}

/// What a tuner asks the driver to do next.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// Round index (0-based).
    pub round: usize,
    /// Arm ids to run (continuing their chains).
    pub arms: Vec<usize>,
    /// Budget per arm for this round, in the config's unit.
    pub budget: f64,
}

/// An ask/tell tuner over a fixed set of arms (ids `0..m`).
pub trait Tuner: Send {
    /// A short name for reports.
    fn name(&self) -> String;
    /// The planned rounds (for progress bars and the bracket view).
    fn plan(&self) -> Vec<RoundPlan>;
    /// The next round to run, or `None` when finished.
    fn ask(&mut self) -> Option<Ask>;
    /// Scores (lower is better, +inf for diverged arms) of the arms of the last ask; returns the pruned ids.
    fn tell(&mut self, scores: &[(usize, f64)]) -> Vec<usize>;
    /// The recommended arm so far.
    fn best(&self) -> Option<usize>;
}
