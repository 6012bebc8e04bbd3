//! Arbitrary bytes -> CSV parsing (data sets with a few option combinations, matrix files): errors are
//! fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::csv::run(bytes));
