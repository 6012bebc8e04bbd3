//! # tunelab
//!
//! A pure Rust core for seeing, learning and comparing stochastic-gradient MCMC samplers, Stein
//! discrepancies and hyperparameter tuners. The same core runs natively (CLI, benchmarks, tests) and in
//! the browser (WebAssembly, with a rayon pool in web workers). The core has no wasm, CLI or JS types: the
//! bindings are the workspace members `crates/cli` (the `tunelab` binary) and `crates/wasm` (the page's module).
//!
//! Layering (each layer only depends on the ones above it; `docs/layout.md` has the whole tree):
//! - [`error`], [`rng`], [`strict`], [`limits`]: typed errors, seeded random streams derived from `(seed, id)`,
//!   strict config parsing (unknown fields named by path), memory limits.
//! - [`math`], [`linalg`], [`optim`], [`nn`]: numerics written once (dot / gemm, L-BFGS, CG, Adam, one dense
//!   network module).
//! - [`data`]: CSV / svmlight / ratings parsing and validation, simulators, standardisation, splits.
//! - [`model`]: posteriors. A [`model::Target`] gives log densities and gradients on slices.
//! - [`sampler`]: SG-MCMC samplers (SGLD, SGHMC, SGNHT and their control-variate versions), a MAP finder
//!   and an exact reference sampler.
//! - [`stein`]: kernel Stein discrepancy (IMQ) and finite-set Stein discrepancy.
//! - [`gp`]: Gaussian processes (exact, multi-task, SVGP, Laplace classifier) used by the tuners.
//! - [`bandit`]: the algorithms alone (GP-UCB, TTTS / D-TTTS, successive halving and its schedules, the MAMBA
//!   tuner), free of configs and reports.
//! - [`experiments`]: the one experiment contract and its registry; one folder per kind (tune, compare, bandit,
//!   step-size, hoag, lr-schedule, tvo) with its config, presets, checks, driver and report.
//!
//! Algorithms never print or draw: they return values and emit events to an observer.

/// Serde `default = "..."` functions, one line each: `serde_defaults! { name: f64 = 0.1; }` defines
/// `fn name() -> f64 { 0.1 }` (the config modules' many field defaults, written once as a table).
#[macro_export]
#[doc(hidden)]
macro_rules! serde_defaults {
    ($($vis:vis $name:ident: $t:ty = $v:expr;)*) => {
        $($vis fn $name() -> $t { $v })*
    };
}

/// Whether this x86-64 CPU has all the named SIMD extensions, for the kernels' run-time dispatch to their 256 / 512-bit
/// builds (`x86_has!("avx2", "fma")`). Always false with the `sse-only` feature: a native build then keeps to the
/// 128-bit SSE2 paths, the width of WebAssembly's simd128 (`npm run bench` compares the wasm build with both).
#[cfg(target_arch = "x86_64")]
macro_rules! x86_has {
    ($($f:tt),+) => {
        !cfg!(feature = "sse-only") $(&& std::arch::is_x86_feature_detected!($f))+
    };
}

pub mod bandit;
pub mod benchkit;
pub mod data;
pub mod error;
pub mod exact;
pub mod experiments;
pub mod gp;
pub mod lesson;
pub mod limits;
pub mod linalg;
pub mod math;
pub mod model;
pub mod nn;
pub mod optim;
pub mod report_file;
pub mod rng;
pub mod sampler;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "schema")]
mod schema_doc;
pub mod stein;
pub mod strict;
pub mod svm;

pub use error::{Error, Result};
