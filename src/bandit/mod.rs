//! Bandit algorithms, free of configs and reports: time-varying permutation-invariant GP-UCB (Nguyen et al.
//! 2020, [`gpucb`]), top-two Thompson sampling and its dynamic version D-TTTS (Russo 2016; Shang, Kaufmann &
//! Valko 2019, [`ttts`]), successive halving and Hyperband (Karnin et al. 2013; Li et al. 2018, [`halving`]),
//! the halving schedules ([`schedule`]) and the MAMBA tuner (Coullon, South & Nemeth 2023, [`mamba`]), uniform
//! allocation / random search as the floor.
//!
//! - [`asktell`]: the two ask/tell protocols, [`BanditAlgo`] (one pull a round, every bandit algorithm) and
//!   [`Tuner`] (rounds of arms with a budget each: MAMBA, one-shot searches); [`Arm`] and [`ArmSpace`] are the
//!   bandit arms. The experiments that run them on problems live in `crate::experiments::bandit`.

pub mod asktell;
pub mod betabest;
pub mod eta;
pub mod gpucb;
pub mod halving;
pub mod mamba;
pub mod schedule;
pub mod ttts;

use serde::{Deserialize, Serialize};

pub use asktell::{Ask, BanditAlgo, Tuner};
pub use eta::Eta;
pub use gpucb::{GpUcb, GpUcbOptions, Kappa, RandomSearch};
pub use halving::{Halving, HalvingOptions};
pub use ttts::{DTtts, RandomArms, Recommend, Ttts, TttsOptions, Uniform};

/// The arm space of a problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ArmSpace {
    /// Arms are indices `0, 1, 2, ...`; `n_arms = None` means an infinite reservoir (index `k` is the `k`-th arm
    /// drawn from it).
    Discrete { n_arms: Option<usize> },
    /// Arms are points of the box `[lo, hi]`; `ordered` = the arm is a sorted vector (a schedule).
    Continuous { lo: Vec<f64>, hi: Vec<f64>, ordered: bool },
}

impl ArmSpace {
    /// Dimension of a continuous space (0 for discrete).
    pub fn dim(&self) -> usize {
        match self {
            ArmSpace::Continuous { lo, .. } => lo.len(),
            ArmSpace::Discrete { .. } => 0,
        }
    }
}

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
