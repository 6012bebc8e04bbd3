//! # tunelab
//!
//! A pure Rust core for seeing, learning and comparing stochastic-gradient MCMC samplers, Stein
//! discrepancies and hyperparameter tuners. The same core runs natively (CLI, benchmarks, tests) and in
//! the browser (WebAssembly, with a rayon pool in web workers; see [`wasm`]).
//!
//! Layering (each layer only depends on the ones above it):
//! - [`error`], [`rng`]: typed errors and seeded random streams derived from `(seed, id)`.
//! - [`data`]: CSV parsing and validation, simulators, standardisation, splits.
//! - [`target`]: posteriors. A [`target::Target`] gives log densities and gradients on slices.
//! - [`sampler`]: SG-MCMC samplers (SGLD, SGHMC, SGNHT and their control-variate versions), a MAP finder
//!   and an exact reference sampler.
//! - [`stein`]: kernel Stein discrepancy (IMQ) and finite-set Stein discrepancy.
//! - [`gp`]: Gaussian-process regression used by the bandit and schedule tuners.
//! - [`tune`]: the tuning framework (config, arms, ask/tell tuners, driver, reports) with MAMBA and baselines.
//! - [`bandit`], [`hoag`], [`lrsched`]: the other tuners and their benchmark problems.
//!
//! Algorithms never print or draw: they return values and emit events to an observer.

pub mod error;
pub mod rng;
pub mod data;
pub mod target;
pub mod sampler;
pub mod stein;
pub mod gp;
pub mod tune;
pub mod bandit;
pub mod hoag;
pub mod lrsched;
pub mod benchkit;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_tuners;

pub use error::{Error, Result};
