//! # tunelab
//!
//! A pure Rust core for seeing, learning and comparing stochastic-gradient MCMC samplers, Stein
//! discrepancies and hyperparameter tuners. The same core runs natively (CLI, benchmarks, tests) and in
//! the browser (WebAssembly, with a rayon pool in web workers). The core has no wasm, CLI or JS types: the
//! bindings are the workspace members `crates/cli` (the `tunelab` binary) and `crates/wasm` (the page's module).
//!
//! Layering (each layer only depends on the ones above it):
//! - [`error`], [`rng`]: typed errors and seeded random streams derived from `(seed, id)`.
//! - [`data`]: CSV parsing and validation, simulators, standardisation, splits (every tuner's data handling).
//! - [`optim`]: the one L-BFGS (optionally box-projected) and conjugate gradient.
//! - [`model`]: posteriors. A [`model::Target`] gives log densities and gradients on slices.
//! - [`sampler`]: SG-MCMC samplers (SGLD, SGHMC, SGNHT and their control-variate versions), a MAP finder
//!   and an exact reference sampler.
//! - [`stein`]: kernel Stein discrepancy (IMQ) and finite-set Stein discrepancy.
//! - [`gp`]: Gaussian-process regression used by the bandit and schedule tuners.
//! - [`tune`]: the tuning framework (config, arms, ask/tell tuners, driver, reports) with MAMBA and baselines.
//! - [`bandit`], [`hoag`], [`lrsched`]: the other tuners and their benchmark problems.
//! - [`experiment`]: the one experiment contract every tuner implements (config checked once, run with an
//!   observer and a stop flag, one report envelope).
//!
//! Algorithms never print or draw: they return values and emit events to an observer.

pub mod error;
pub mod math;
pub mod linalg;
pub mod nn;
pub mod rng;
pub mod data;
pub mod optim;
pub mod model;
pub mod sampler;
pub mod stein;
pub mod gp;
pub mod bandit;
pub mod experiments;
pub mod strict;
pub mod limits;
pub mod benchkit;

pub use error::{Error, Result};
