//! Stein discrepancies: the kernel Stein discrepancy (KSD) with the IMQ kernel, its kernel-scale
//! heuristics, and the finite-set Stein discrepancy (FSSD).
//!
//! All functions take row-major `n x d` sample matrices and the scores `grad log p` at the samples
//! (full-data or stochastic gradients), use O(n d) memory, and return the same bits for any number of
//! rayon threads.
//!
//! Which KSD to use:
//! - [`KsdOptions::reference`] (fixed IMQ `c = 1`, `beta = -1/2`, V-statistic) reproduces SGMCMCJax's
//!   `imq_KSD` and stein-thinning to rounding error (checked in `tests/core/numerics/stein.rs`); the `tunelab ksd`
//!   CLI computes it by default.
//! - [`KsdOptions::default`] (coordinates standardised by the sample sd, median-distance scale,
//!   U-statistic) is what tuners should rank arms with: on a posterior much narrower than the unit
//!   kernel (`scripts/reproduce/mamba/kernel-scale.sh`, `docs/results/mamba/kernel-scale.md`) the fixed
//!   kernel cannot see a 20% error in the spread and ranks chains that barely move above good ones, while the
//!   default separates both (evidence in the doc of [`KsdOptions`] and in `tests/core/numerics/stein.rs`).

pub mod fssd;
pub mod gram;
pub mod imq;
pub mod ksd;

pub use fssd::{
    fssd, fssd_opt, fssd_opt_fit, fssd_power, fssd_power_width, FssdFit, FssdKernel, FssdOptOptions, FssdValue,
};
pub use imq::{median_pairwise_distance, ImqKernel, KernelScale};
pub use ksd::{ksd, ksd_target, ksd_target_value, Estimator, KsdOptions, KsdValue};
