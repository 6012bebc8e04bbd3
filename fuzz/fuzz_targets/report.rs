//! Arbitrary bytes -> UTF-8 -> `report_file::open_report`, whole and with every sample left out (the page's
//! path for a report over its size limit): errors are fine, panics are not. An accepted report's envelope
//! holds what the parser checked.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::report::run(bytes));
