//! Arbitrary bytes -> UTF-8 -> `ExperimentConfig::from_json` (no kind and every kind) -> `check` -> what the
//! front ends ask of a checked config (summary, data request): errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::config::run(bytes));
