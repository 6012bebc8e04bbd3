//! The tuning framework: configs, arm grids, ask/tell tuners (MAMBA and the paper's baselines), the driver
//! that runs arms in parallel with budgets, cancellation and progress events, and reports.
//!
//! MAMBA scores each round on **that round's samples** by default, as the authors' code does: with warm starts
//! from the MAP the chains need no burn-in, and per-round scores keep every arm's score on the same number of
//! iterations' worth of samples within a round. `scoring: "chain"` scores the whole chain instead.

pub mod experiment;
pub use experiment::TuneExperiment;

pub mod arms;
pub mod calibration;
mod check;
pub mod asktell;
pub mod config;
pub mod driver;
pub mod keep;
pub mod kernel;
pub mod metric;
pub mod presets;
pub mod posterior;
pub mod report;

pub use arms::{arm_count, grid_arms, Arm};
pub use config::*;
pub use kernel::{KsdKernel, RunKernel};
pub use driver::run_on;
pub use posterior::Posterior;
pub use report::*;
pub use crate::bandit::schedule::{mamba_schedule, RoundPlan};
pub use crate::bandit::mamba::{Ask, Mamba, OneShot, Tuner};
