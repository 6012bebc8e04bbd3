//! Arbitrary bytes -> svmlight / libsvm parsing into CSR, then what the core does next (the sparse HOAG
//! problem and one hypergradient): errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::svmlight::run(bytes));
