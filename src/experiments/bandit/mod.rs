//! The `bandit` experiment kind: bandit algorithms ([`crate::bandit`]) run with exact regret over seeded repeats
//! on problems whose optimum is known ([`problems`]) and on real tuning problems ([`logreg`], [`hpo`],
//! [`sgmcmc_ksd`]).
//!
//! - [`BanditExperiment`] (the experiment contract): runs a [`BanditConfig`] (JSON, see [`config`]) over seeded repeats in parallel and returns a
//!   [`BanditReport`] (JSON, see [`report`]) with regret curves (mean and band over repeats), recommendations and
//!   chart data; events go to an observer on the calling thread.
//! - [`sgmcmc_ksd`]: D-TTTS and the other discrete tuners choosing SG-MCMC configurations by KSD on the user's data.

pub mod experiment;
pub mod panel;
pub mod text;
pub use experiment::BanditExperiment;

mod charts;
pub mod config;
pub mod hpo;
pub mod logreg;
pub mod problems;
pub mod report;
mod runner;
pub mod sgmcmc_ksd;

pub use config::{AlgoSpec, BanditConfig, ProblemSpec};
pub use problems::{ArmSpace, Problem, TestFn};
pub use report::{AlgoReport, BanditEvent, BanditReport, Curve, PerRepeat, Summary};
pub use runner::merge_reports;
pub(crate) use runner::run_checked;
