//! CLI soak (issue "Reliability"): 1,000 small runs in one process through the library API, cycling through
//! every experiment kind, with the resident memory read from /proc/self/statm after runs 1, 500 and 1,000.
//! The bound (README, "Reliability"): resident memory after run 1,000 at most 8 MiB above run 500 (after
//! warm-up the allocator reuses what finished runs freed; a leak of even a few KiB per run would exceed it).
//! This file is its own test binary, so no other test shares the process. Ignored in a plain `cargo test`; run it
//! (and print the readings) with `cargo test --release --test soak -- --ignored --nocapture`.

#[path = "common/small_configs.rs"]
mod small_configs;

use std::sync::atomic::AtomicBool;
use tunelab::experiments::{Inputs, Kind, Status};

const RUNS: usize = 1000;

/// Resident set size in bytes (Linux), None elsewhere.
fn rss() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[test]
#[ignore = "about a minute on one core: scripts/dev/test.sh runs it beside the later sections; by hand: cargo test --test soak -- --ignored --nocapture"]
fn a_thousand_runs_in_one_process_keep_memory_stable() {
    let Some(_) = rss() else {
        eprintln!("no /proc/self/statm: the soak's memory readings need Linux");
        return;
    };
    // The kinds whose small config runs in milliseconds (compare adds a reference run: every 10th cycle).
    let kinds = [Kind::Tune, Kind::Bandit, Kind::Hoag, Kind::LrSchedule, Kind::StepSize, Kind::Tvo];
    let mut readings = Vec::new();
    for i in 1..=RUNS {
        let kind = if i % 50 == 0 { Kind::Compare } else { kinds[i % kinds.len()] };
        let checked = small_configs::small(kind).check().expect("check");
        let stop = AtomicBool::new(false);
        let report = checked.run(Inputs::default(), &mut |_| {}, &stop).expect("run");
        assert_eq!(report.status, Status::Complete, "run {i} ({kind:?})");
        if [1, 500, RUNS].contains(&i) {
            readings.push((i, rss().unwrap()));
        }
    }
    for (i, bytes) in &readings {
        println!("soak: resident memory after run {i}: {:.1} MiB", *bytes as f64 / 1048576.0);
    }
    let (r500, r1000) = (readings[1].1, readings[2].1);
    assert!(
        r1000 <= r500 + 8 * 1024 * 1024,
        "resident memory grew {:.1} MiB between run 500 and run 1000",
        (r1000 as f64 - r500 as f64) / 1048576.0
    );
}
