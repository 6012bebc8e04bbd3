//! Stochastic-gradient MCMC samplers (SGLD, SGHMC, SGNHT and their control-variate versions), a MAP
//! finder for the control variates, and an exact Metropolis-adjusted reference sampler.
//!
//! - [`SamplerParams`] (serde, all fields defaulted) is validated once against N into
//!   [`ValidSamplerParams`]; the hot path cannot fail.
//! - A [`Chain`] owns all its state (position, momentum, thermostat, RNG, minibatch permutation), so
//!   [`Chain::run`] can be called repeatedly with budgets ([`Budget`]) and continues exactly where it
//!   stopped; numerical blow-up is the state [`ChainStatus::Diverged`], never a panic.
//! - Gradient evaluations count data points touched: n per plain estimate, 2n with control variates,
//!   N for a full batch; SGHMC does L estimates per iteration.
//! - [`Chain::run`] hands each kept draw to a [`Sink`] (a `Vec<f64>` keeps them all; running moments or a
//!   thinned buffer keep a summary), so memory does not grow with the budget unless the caller wants it to.
//! - [`find_map`] (L-BFGS) gives the centre of a [`ControlVariate`]; [`reference_sample`]
//!   (preconditioned MALA with dual averaging) gives ground truth on small problems.
//!
//! Typical use (one MAMBA arm):
//! ```
//! use std::sync::atomic::AtomicBool;
//! use tunelab::sampler::{Budget, Chain, SamplerKind, SamplerParams, BatchSize};
//! use tunelab::model::Gaussian;
//! let target = Gaussian::isotropic(vec![0.0; 2], 1.0).unwrap();
//! let params = SamplerParams::new(SamplerKind::Sgld, 0.05, BatchSize::Fraction(1.0)).validate(1).unwrap();
//! let mut chain = Chain::new(&target, params, vec![0.0; 2], None, tunelab::rng::stream(42, 0)).unwrap();
//! let mut out = Vec::new();
//! let stats = chain.run(&target, Budget::Iterations(100), 10, &mut out, &AtomicBool::new(false));
//! assert_eq!(stats.kept, 10);
//! assert_eq!(out.len(), 20);
//! ```

pub mod chain;
pub mod map;
pub mod params;
pub mod reference;
pub mod sink;

pub use chain::{Chain, ChainState, ChainStatus, ControlVariate, RunStats};
pub use map::{find_map, MapOptions, MapResult};
pub use params::{BatchSize, Budget, SamplerKind, SamplerParams, ValidSamplerParams};
pub use reference::{reference_sample, reference_sample_observed, reference_sample_stoppable, RefOptions, RefResult};
pub use sink::{Discard, Sink};

/// Where a chain starts (the step-size and SG-MCMC bandit experiments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum StartKind {
    /// The origin (far from the posterior for most models: step sizes matter for the approach).
    Zero,
    /// The MAP.
    Map,
}
