//! Arbitrary bytes -> UTF-8 -> `ExperimentConfig::from_json` (no kind and every kind) -> `check` -> what the
//! front ends ask of a checked config (summary, data request): errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::experiments::{ExperimentConfig, Kind};

fn exercise(cfg: tunelab::Result<ExperimentConfig>) {
    if let Ok(cfg) = cfg {
        if let Ok(checked) = cfg.check() {
            let _ = checked.summary();
            let _ = checked.data_request();
            let _ = checked.config();
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    exercise(ExperimentConfig::from_json(text, None));
    for kind in Kind::ALL {
        exercise(ExperimentConfig::from_json(text, Some(kind)));
    }
});
