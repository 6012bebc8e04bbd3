//! The `tune` kind: MAMBA or a baseline (grid, heuristic, random search) tuning an SG-MCMC sampler on one
//! posterior. The machinery it runs (config, posterior, run kernel, metric, sample stores, driver, report) is
//! the SG-MCMC layer, [`crate::experiments::sgmcmc`], which the compare, bandit and step-size kinds use too;
//! this folder holds the kind's `impl Experiment` and MAMBA's ask/tell form for samplers outside tunelab.
//!
//! MAMBA scores each round on **that round's samples** by default, as the authors' code does: with warm starts
//! from the MAP the chains need no burn-in, and per-round scores keep every arm's score on the same number of
//! iterations' worth of samples within a round. `scoring: "chain"` scores the whole chain instead.

pub mod experiment;
pub mod text;
pub use experiment::TuneExperiment;

pub mod asktell;

// The kind's config, presets, report and entry point, as its users (CLI, Python, tests) name them.
pub use crate::experiments::sgmcmc::config::*;
pub use crate::experiments::sgmcmc::presets;
pub use crate::experiments::sgmcmc::report::*;
pub use crate::experiments::sgmcmc::run_on;
