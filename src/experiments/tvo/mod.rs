//! The thermodynamic variational objective (Masrani, Le & Wood, NeurIPS 2019) on a small VAE, and GP-UCB
//! choosing its integration schedule while the VAE trains (Nguyen, Masrani, Brekelmans, Osborne & Wood,
//! NeurIPS 2020, Algorithm 1), with the schedules of their section 5 as baselines. See `docs/tvo.md`.

pub mod experiment;
pub use experiment::TvoExperiment;

pub mod run;
pub mod vae;

pub use run::{run_checked, TvoConfig, TvoData, TvoEvent, TvoMethod, TvoReport};
pub use vae::{Likelihood, Vae};
