//! The shipped data sets for hosts that do not compile them in (the page's worker): every preset of every kind
//! names, in `ExperimentConfig::shipped`, exactly the data sets its run reads (`data::shipped::used` records each
//! read). Its own test binary: the record is process-wide.

use std::sync::atomic::AtomicBool;
use tunelab::data::shipped::{self, Shipped};
use tunelab::experiments::{ExperimentConfig, Inputs, Kind};

const KINDS: [Kind; 7] =
    [Kind::Tune, Kind::Compare, Kind::Bandit, Kind::Hoag, Kind::LrSchedule, Kind::StepSize, Kind::Tvo];

#[test]
fn every_preset_names_the_shipped_data_it_reads() {
    let mut checked = Vec::new();
    for kind in KINDS {
        for name in ExperimentConfig::preset_names(kind) {
            let cfg = ExperimentConfig::preset(kind, name).unwrap();
            let named = cfg.shipped();
            // The MNIST presets read no shipped set (their data source is MNIST) and build a model from 10,000
            // digits before they stop (40 s each in a debug build): tests/mnist_page.rs covers them.
            if cfg.needs_mnist() {
                assert!(named.is_empty(), "{kind:?} preset {name}");
                continue;
            }
            let checked_cfg = cfg.check().unwrap();
            shipped::reset_used();
            // Stopped from the start: each kind loads its data before its first stop check, so the run reads
            // what it would read in full and returns at once.
            let _ = checked_cfg.run(Inputs::default(), &mut |_| {}, &AtomicBool::new(true));
            let used = shipped::used();
            assert_eq!(used, named, "{kind:?} preset {name}: read {used:?}, names {named:?}");
            if !named.is_empty() {
                checked.push(format!("{kind:?}/{name}"));
            }
        }
    }
    assert!(checked.len() >= 8, "{checked:?}");
    // No preset reads the diabetes set: a config does.
    let diabetes = ExperimentConfig::from_json(
        r#"{"kind": "hoag", "problem": "kernel-ridge", "data": {"source": "diabetes"}}"#,
        None,
    )
    .unwrap();
    assert_eq!(diabetes.shipped(), [Shipped::Diabetes]);
    let checked_cfg = diabetes.check().unwrap();
    shipped::reset_used();
    let _ = checked_cfg.run(Inputs::default(), &mut |_| {}, &AtomicBool::new(true));
    assert_eq!(shipped::used(), [Shipped::Diabetes]);
}

#[test]
fn install_checks_the_file_and_its_text() {
    assert_eq!(shipped::install("wine.csv", include_str!("../data/wine.csv").to_string()).unwrap(), Shipped::Wine);
    assert!(shipped::install("iris.csv", "a,y\n1,0\n".into())
        .unwrap_err()
        .to_string()
        .contains("unknown shipped data file iris.csv"));
    assert!(shipped::install("wine.csv", "not a csv".into()).is_err());
    for s in Shipped::ALL {
        assert_eq!(Shipped::from_file(s.file()), Some(s));
        assert!(shipped::installed(s), "natively every set is compiled in");
    }
}
