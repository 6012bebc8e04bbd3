//! Arbitrary bytes -> UTF-8 -> the lesson parser (`tunelab::lesson::parse`) -> each step's config (strict parse)
//! -> the core's check, and a parsed lesson written back (`to_markdown`) parses again: errors are fine, panics
//! and a lesson that does not survive its own round trip are not.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    let Ok(lesson) = tunelab::lesson::parse("fuzz.md", text) else { return };
    let again = lesson.to_markdown();
    if let Err(e) = tunelab::lesson::parse("fuzz.md", &again) {
        panic!("a parsed lesson did not parse again after to_markdown: {e}\n{again}");
    }
    if lesson.configs().is_ok() {
        let _ = lesson.check();
    }
});
