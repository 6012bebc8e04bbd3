//! Stein discrepancies: the kernel Stein discrepancy (KSD) with the IMQ kernel, its kernel-scale
//! heuristics, and the finite-set Stein discrepancy (FSSD).
//!
//! All functions take row-major `n x d` sample matrices and the scores `grad log p` at the samples
//! (full-data or stochastic gradients), use O(n d) memory, and return the same bits for any number of
//! rayon threads.

pub mod fssd;
pub mod kernel;
pub mod ksd;

pub use kernel::{median_pairwise_distance, ImqKernel, KernelScale};
pub use fssd::{fssd, fssd_opt, fssd_power, FssdKernel, FssdOptOptions, FssdValue};
pub use ksd::{ksd, Estimator, KsdOptions, KsdValue};
