//! MNIST for hosts that cannot read files (the page's worker): which configs need the digits
//! (`ExperimentConfig::needs_mnist`), and that an installed copy (`data::mnist::install`) is what every
//! MNIST data source then reads.

use std::sync::atomic::AtomicBool;
use tunelab::data::mnist::{self, Mnist, PIXELS};
use tunelab::experiments::{ExperimentConfig, Inputs, Kind, Status};

const KINDS: [Kind; 7] =
    [Kind::Tune, Kind::Compare, Kind::Bandit, Kind::Hoag, Kind::LrSchedule, Kind::StepSize, Kind::Tvo];

#[test]
fn every_preset_says_whether_it_needs_mnist() {
    let mut seen_true = 0;
    for kind in KINDS {
        for name in ExperimentConfig::preset_names(kind) {
            let cfg = ExperimentConfig::preset(kind, name).unwrap();
            assert_eq!(cfg.needs_mnist(), name.contains("mnist"), "{kind:?} preset {name}");
            seen_true += cfg.needs_mnist() as usize;
        }
    }
    // tune, compare (mnist-bnn), bandit (mlp-mnist), tvo (mnist).
    assert!(seen_true >= 4, "{seen_true}");
    // Presets outside the page's menus and data sources set by hand.
    assert!(ExperimentConfig::preset(Kind::LrSchedule, "mnist").unwrap().needs_mnist());
    // The multi-task warm start reads binary MNIST tasks while its `data` names another source.
    let multitask = ExperimentConfig::preset(Kind::LrSchedule, "mnist-multitask").unwrap();
    assert!(multitask.needs_mnist());
    if let ExperimentConfig::LrSchedule(mut c) = multitask {
        assert!(!matches!(c.data, tunelab::experiments::lr_schedule::LrData::Mnist { .. }), "the case this checks");
        c.multitask = None;
        assert!(!ExperimentConfig::LrSchedule(c).needs_mnist());
    }
    let hoag = ExperimentConfig::from_json(
        r#"{"kind": "hoag", "problem": "logreg", "data": {"source": "mnist", "classes": [4, 9], "per_class": 20, "pool": 4}}"#,
        None,
    )
    .unwrap();
    assert!(hoag.needs_mnist());
    let digits =
        ExperimentConfig::from_json(r#"{"kind": "hoag", "problem": "logreg", "data": {"source": "digits"}}"#, None)
            .unwrap();
    assert!(!digits.needs_mnist());
}

/// Ten small digit files, `per` images each; image i of digit k has every pixel (k + i) / 20.
fn tiny(per: usize) -> Vec<String> {
    (0..10)
        .map(|k| {
            let vals: Vec<String> =
                (0..per).flat_map(|i| std::iter::repeat_n(format!("{}", (k + i) as f64 / 20.0), PIXELS)).collect();
            format!("{{\"data\": [{}]}}", vals.join(","))
        })
        .collect()
}

#[test]
fn the_installed_copy_is_what_every_data_source_reads() {
    let texts = tiny(5);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let m = Mnist::from_digit_texts(&refs).unwrap();
    assert!(mnist::install(m.clone()));
    assert!(mnist::installed());
    // The first copy stays.
    assert!(!mnist::install(Mnist { images: vec![0.0; PIXELS], labels: vec![0] }));
    let loaded = Mnist::load().unwrap();
    assert_eq!(*loaded, m);
    assert_eq!(loaded.len(), 50);
    // A HOAG problem on the installed copy: digit 4 against 9, 5 images each (not the npm package's 1,000).
    let cfg = ExperimentConfig::from_json(
        r#"{"kind": "hoag", "problem": "logreg", "data": {"source": "mnist", "classes": [4, 9], "per_class": 100, "pool": 28}}"#,
        None,
    )
    .unwrap();
    let report = cfg.check().unwrap().run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(report.status, Status::Complete);
    assert!(report.result.is_some());
    let ds = loaded.dataset(&[4, 9], Some(100), 28).unwrap();
    assert_eq!((ds.n, ds.p), (10, 1));
    let want: Vec<f64> = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13].iter().map(|v| *v as f64 / 20.0).collect();
    // A 28 x 28 block mean of 784 equal values: equal up to the sum's rounding.
    assert!(ds.x.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-13), "{:?}", ds.x);
}
