//! Arbitrary bytes -> UTF-8 -> the lesson parser (`tunelab::lesson::parse`) -> each step's config (strict parse)
//! -> the core's check, and a parsed lesson written back (`to_markdown`) parses again: errors are fine, panics
//! and a lesson that does not survive its own round trip are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| tunelab_fuzz::lesson::run(bytes));
