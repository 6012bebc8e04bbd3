//! Stochastic-gradient MCMC samplers (SGLD, SGHMC, SGNHT and their control-variate versions), a MAP
//! finder for the control variates, and an exact Metropolis-adjusted reference sampler.
//!
//! Typical use (one MAMBA arm):
//! ```
//! use std::sync::{atomic::AtomicBool, Arc};
//! use tunelab::sampler::{Budget, Chain, SamplerKind, SamplerParams, BatchSize};
//! use tunelab::target::Gaussian;
//! let target = Gaussian::isotropic(vec![0.0; 2], 1.0).unwrap();
//! let params = SamplerParams::new(SamplerKind::Sgld, 0.05, BatchSize::Fraction(1.0)).validate(1).unwrap();
//! let mut chain = Chain::new(&target, params, vec![0.0; 2], None, tunelab::rng::stream(42, 0)).unwrap();
//! let mut out = Vec::new();
//! let stats = chain.run(&target, Budget::Iterations(100), 10, &mut out, &AtomicBool::new(false));
//! assert_eq!(stats.kept, 10);
//! assert_eq!(out.len(), 20);
//! ```

pub mod params;
pub mod chain;

pub use chain::{Chain, ChainStatus, ControlVariate, RunStats};
pub use params::{BatchSize, Budget, SamplerKind, SamplerParams, ValidSamplerParams};
pub mod map;
pub mod reference;

pub use map::{find_map, MapOptions, MapResult};
pub use reference::{reference_sample, reference_sample_with, RefOptions, RefResult};
