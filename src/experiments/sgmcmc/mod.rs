//! The SG-MCMC layer: what every kind that runs SG-MCMC chains on a posterior shares, below the kinds (tune,
//! compare, bandit's `sgmcmc-ksd` problem and step-size import it; it imports no kind).
//!
//! - [`config`]: the run config (data, model, sampler, arm grid, tuner, metric, budget; a leaf of types and
//!   defaults), [`check`] its values, limits and memory estimate, [`presets`] the built-in configs;
//! - [`problem`]: the data a config reads and the [`Posterior`] built from it ([`posterior`]: train / test
//!   targets, MAP, control-variate anchor);
//! - [`arms`]: the sampler settings a tuner chooses among;
//! - [`run_kernel`]: the run's one Stein kernel, fixed before any arm is scored; [`metric`]: scoring samples
//!   (KSD, FSSD, FSSD-opt, test log-loss, test error); [`calibration`]: the posterior predictive's calibration;
//! - [`samples`]: the bounded stores of each arm's chain (moments, the round's scored rows, the thinned chain,
//!   drill-down draws);
//! - [`tuning`]: a tuning run as rounds of the round executor (ask the tuner, run the arms' chains in chunks
//!   within the budget, score, tell; its state between rounds saved and resumed); [`report`] its events and
//!   report; [`plan`]: what a config will run (rounds, cost, summary) before it runs.

pub mod arms;
pub mod calibration;
mod check;
pub mod config;
pub mod metric;
pub mod panel;
pub mod plan;
pub mod posterior;
pub mod presets;
pub mod problem;
pub mod report;
pub mod run_kernel;
pub mod samples;
pub mod text;
pub mod tuning;

pub use crate::bandit::mamba::{Mamba, OneShot};
pub use crate::bandit::schedule::{mamba_schedule, RoundPlan};
pub use crate::bandit::{Ask, Tuner};
pub use arms::{arm_count, grid_arms, Arm};
pub use config::*;
pub use posterior::Posterior;
pub use report::*;
pub use run_kernel::{KsdKernel, RunKernel};
pub use tuning::{run_on, run_tuning, TuningRun, TuningState};
