//! Bandit tuners with exact regret: time-varying permutation-invariant GP-UCB (Nguyen et al. 2020), top-two
//! Thompson sampling and its dynamic version D-TTTS (Russo 2016; Shang, Kaufmann & Valko 2019), successive
//! halving and Hyperband (Karnin et al. 2013; Li et al. 2018), uniform allocation / random search as the floor,
//! on problems whose optimum is known ([`problems`]) and on real tuning problems ([`logreg`]).
//!
//! - [`BanditAlgo`]: the ask/tell trait every algorithm implements.
//! - [`run`]: runs a [`BanditConfig`] (JSON, see [`config`]) over seeded repeats in parallel and returns a
//!   [`BanditReport`] (JSON, see [`report`]) with regret curves (mean and band over repeats), recommendations and
//!   chart data; events go to an observer on the calling thread.
//! - [`sgmcmc_ksd`]: D-TTTS and the other discrete tuners choosing SG-MCMC configurations by KSD on the user's data.
//! - [`sgmcmc_step::run_step_tuning`]: GP-UCB choosing an SG-MCMC step size window by window, against fixed steps.

pub mod betabest;
mod charts;
pub mod config;
pub mod gpucb;
pub mod halving;
pub mod hpo;
pub mod logreg;
pub mod problems;
pub mod report;
mod runner;
pub mod sgmcmc_ksd;
pub mod sgmcmc_step;
pub mod ttts;

use serde::{Deserialize, Serialize};

pub use config::{AlgoSpec, BanditConfig, ProblemSpec};
pub use gpucb::{GpUcb, GpUcbOptions, Kappa, RandomSearch};
pub use halving::{Halving, HalvingOptions};
pub use problems::{ArmSpace, Problem, TestFn};
pub use report::{AlgoReport, BanditEvent, BanditReport, Curve, PerRepeat, Summary};
pub use runner::{merge_reports, run, run_with_data};
pub(crate) use runner::run_checked;
pub use ttts::{DTtts, RandomArms, Recommend, Ttts, TttsOptions, Uniform};

use crate::rng::Rng;

/// An arm: an index (finite set or reservoir order) or a point of a box. JSON: a number or an array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arm {
    /// Discrete arm.
    Index(usize),
    /// Continuous arm (a sorted vector for schedule problems).
    Point(Vec<f64>),
}

/// Statistics of one discrete arm, for the pulls / posterior chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmStat {
    /// Arm index.
    pub arm: usize,
    /// Times pulled.
    pub pulls: usize,
    /// Mean of the raw rewards (`None` if never pulled).
    pub mean_reward: Option<f64>,
    /// Beta posterior parameters (TTTS, D-TTTS).
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    /// True expected reward (filled by the runner).
    pub true_value: f64,
    /// What the arm is, when the problem can say (filled by the runner; e.g. an SG-MCMC configuration).
    #[serde(default)]
    pub label: Option<String>,
}

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
