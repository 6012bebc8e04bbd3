//! Arbitrary bytes -> (n, d, samples, scores, locations) with NaN, infinities, huge and tiny values ->
//! `stein::ksd` with every estimator and kernel scale, and `stein::fssd` / `fssd_power` with both kernels:
//! errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::ksd::run(bytes));
