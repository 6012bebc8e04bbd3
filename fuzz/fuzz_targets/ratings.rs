//! Arbitrary bytes -> ratings CSV parsing (user,item,rating) and the PMF target built on the result: errors are
//! fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::ratings::run(bytes));
