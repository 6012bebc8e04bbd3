//! Arbitrary bytes -> UTF-8 -> `report_file::open_report`, whole and with every sample left out (the page's
//! path for a report over its size limit): errors are fine, panics are not. An accepted report's envelope
//! holds what the parser checked.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::report_file::{open_report, OpenOptions};

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    for full_bytes in [usize::MAX, 0] {
        if let Ok(r) = open_report(text, OpenOptions { full_bytes }) {
            assert_eq!(r.envelope["kind"].as_str(), Some(r.kind.name()));
            assert!(r.envelope["format"].is_u64());
            if full_bytes == usize::MAX {
                assert!(r.dropped.is_empty());
            }
        }
    }
});
