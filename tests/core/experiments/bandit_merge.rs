//! The repeats of a bandit comparison as separate runs (`repeat_range`) merged into the full run's report, bit
//! for bit (the Ray split of issue 18 relies on it).
use crate::common::contract;
use std::sync::atomic::AtomicBool;
use tunelab::experiments::bandit::BanditExperiment;

use tunelab::bandit::TttsOptions;
use tunelab::experiments::bandit::{merge_reports, AlgoSpec, BanditConfig, BanditReport, ProblemSpec};
use tunelab::Error;

fn config() -> BanditConfig {
    BanditConfig {
        problem: ProblemSpec::Reservoir { a: 1.0, b: 3.0, shift: 0.0, scale: 1.0 },
        algorithms: vec![
            AlgoSpec::DTtts(TttsOptions::default()),
            AlgoSpec::Ttts(TttsOptions { arms: Some(10), ..Default::default() }),
            AlgoSpec::SuccessiveHalving(Default::default()),
            AlgoSpec::Hyperband(Default::default()),
        ],
        rounds: 150,
        repeats: 5,
        seed: 21,
        checkpoints: Some(10),
        band: 1.96,
        repeat_range: None,
    }
}

fn strip(mut r: BanditReport) -> BanditReport {
    r.seconds = 0.0;
    for a in r.algorithms.iter_mut() {
        a.compute.seconds.iter_mut().for_each(|s| *s = 0.0);
    }
    r
}

fn part(lo: usize, hi: usize) -> BanditReport {
    let cfg = BanditConfig { repeat_range: Some((lo, hi)), ..config() };
    contract::run::<BanditExperiment>(cfg.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap()
}

#[test]
fn parts_of_the_repeats_merge_into_the_full_run() {
    let full =
        strip(contract::run::<BanditExperiment>(config().clone(), None, |_| {}, &AtomicBool::new(false)).unwrap());
    let (a, b, c) = (part(0, 2), part(2, 3), part(3, 5));
    // a part holds its own repeats only, with their raw curves
    assert_eq!(a.algorithms[0].recommended.iter().map(|r| r.repeat).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(c.algorithms[0].per_repeat.as_ref().unwrap().first, 3);
    assert!(full.algorithms[0].per_repeat.is_none());
    // in any order: the same report (bits) as the full run, its JSON included
    let merged = strip(merge_reports(&[c.clone(), a.clone(), b.clone()]).unwrap());
    assert_eq!(merged, full);
    assert_eq!(serde_json::to_string(&merged).unwrap(), serde_json::to_string(&full).unwrap());
    // a part's repeat r is repeat r of the full run (same streams)
    assert_eq!(c.algorithms[1].recommended[0], full.algorithms[1].recommended[3]);
    // missing, overlapping and foreign parts are errors that say so
    let msg = |parts: &[BanditReport]| match merge_reports(parts) {
        Err(Error::Config(m)) => m,
        other => panic!("expected an error, got {other:?}"),
    };
    assert!(msg(&[a.clone(), c.clone()]).contains("missing"));
    assert!(msg(&[a.clone(), b.clone()]).contains("cover repeats 0..3 of 5"));
    assert!(msg(&[a.clone(), a.clone(), b.clone(), c.clone()]).contains("overlap"));
    assert!(msg(std::slice::from_ref(&full)).contains("repeat_range"));
    let mut other = part(2, 3);
    other.config.seed += 1;
    assert!(msg(&[a, other, c]).contains("different configs"));
    assert!(msg(&[]).contains("no reports"));
    // a bad range is a config error
    for r in [(2, 2), (0, 6), (3, 1)] {
        let cfg = BanditConfig { repeat_range: Some(r), ..config() };
        assert!(matches!(cfg.validate(), Err(Error::Config(m)) if m.contains("repeat_range")));
    }
    // the config's JSON names the range, and a full config does not mention it
    let text = serde_json::to_string(&BanditConfig { repeat_range: Some((1, 3)), ..config() }).unwrap();
    assert!(text.contains(r#""repeat_range":[1,3]"#), "{text}");
    assert!(!serde_json::to_string(&config()).unwrap().contains("repeat_range"));
}
