//! The thermodynamic variational objective (Masrani, Le & Wood, NeurIPS 2019) on a small VAE, and GP-UCB
//! choosing its integration schedule while the VAE trains (Nguyen, Masrani, Brekelmans, Osborne & Wood,
//! NeurIPS 2020, Algorithm 1), with the schedules of their section 5 as baselines. See `docs/tvo.md`.

pub mod experiment;
pub mod panel;
pub mod text;
pub use experiment::TvoExperiment;

pub mod config;
pub mod data;
pub mod report;
pub mod run;
pub mod schedules;
pub mod training;
pub mod vae;

pub use config::{TvoConfig, TvoData, TvoMethod, WindowRule, EVAL_POINTS};
pub use data::{binarised_split, load_images, Images};
pub use report::{TvoEvent, TvoReport};
pub use run::run_checked;
pub use schedules::{linear_schedule, log_uniform_schedule, moments_schedule};
pub use training::{evaluate, test_metrics, TestMetrics};
pub use vae::{Likelihood, Vae};
