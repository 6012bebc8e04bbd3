//! The core's integration tests: ONE test crate (one build, one link, one process), grouped by layer and kind.
//! `cargo test --test core` runs them all; a module path filters, e.g. `cargo test --test core numerics::stein`.
//!
//! Two tests are crates of their own because each needs a process to itself:
//! - tests/soak.rs reads the process's resident memory (/proc/self/statm) over 1,000 runs and bounds its growth;
//!   the other tests, running on the harness's threads, would allocate and free in the same process meanwhile.
//! - tests/mnist_page.rs installs the process-wide MNIST copy (`data::mnist::install`, a `OnceLock`: the first
//!   copy stays); here every later MNIST test (data_sets, mnist_bnn, pmf, ...) would then read its 50 fake digits,
//!   and its own `install` would fail once another test had installed or loaded first.

#[path = "../common/mod.rs"]
mod common;

/// Numerics below the experiments: Stein discrepancies, GP, samplers, targets, the libm rule, property tests, data.
mod numerics {
    mod data;
    mod data_sets;
    mod gp;
    mod math_calls;
    mod nn_pins;
    mod properties;
    mod samplers;
    mod stein;
    mod stein_kernel;
    mod svm;
    mod targets;
}

/// The experiment contract and every kind: tune (MAMBA), compare (the MAMBA paper's models), bandit, HOAG,
/// learning-rate schedules, TVO.
mod experiments {
    mod arm_draws;
    mod bandit;
    mod bandit_merge;
    mod bandit_real;
    mod compare;
    mod cost;
    mod experiment;
    mod hoag;
    mod hoag_sparse;
    mod kinds_file;
    mod lrsched;
    mod lrsched_golden;
    mod lrsched_links;
    mod lrsched_multitask;
    mod mamba_page;
    mod mnist_bnn;
    mod pmf;
    pub mod report_file;
    mod resume;
    mod sgmcmc_reservoir;
    mod strict_config;
    mod tune;
    mod tvo;
}

/// Stated limits, the fuzz targets' seed corpora and every crash they found.
mod robustness {
    mod fuzz_regressions;
    mod fuzz_replay;
    mod fuzz_seeds;
    /// The fuzz targets' bodies, the same file the cargo-fuzz targets call (fuzz/src/lib.rs).
    #[path = "../../../fuzz/src/lib.rs"]
    mod fuzz_targets;
    mod limits;
}
