//! A focused test of each fix of a crash the fuzz targets (fuzz/, scripts/dev/fuzz.sh) found; the crash inputs
//! themselves (tests/data/fuzz/TARGET/) are replayed through the targets' bodies by fuzz_replay.rs.

use tunelab::data::{parse_csv, CsvOptions, Dataset};
use tunelab::experiments::{ExperimentConfig, Inputs, Kind};
use tunelab::Error;

/// Fuzzing (csv, 2026-11-23): a label of 6.077...e77 made `Dataset::n_classes` overflow (`max as usize + 1`:
/// a panic in debug builds, 0 classes in release builds).
#[test]
fn a_huge_label_does_not_overflow_the_class_count() {
    let text = format!("a,y\n1,0\n2,{}\n", "7".repeat(80));
    let ds = parse_csv(&text, &CsvOptions::default()).unwrap();
    assert_eq!(ds.n_classes(), usize::MAX);
    let ds = parse_csv("a,y\n1,1e300\n2,0\n", &CsvOptions::default()).unwrap();
    assert_eq!(ds.n_classes(), usize::MAX);
    assert!(ds.check_class_labels(10).is_err());
}

/// Found with the fix above: the learning-rate classifiers took `max label + 1` classes without a bound, so a
/// label of 1e9 asked for a billion-class softmax; now refused like the BNN's (at most 1,000 classes).
#[test]
fn learning_rate_classifiers_refuse_absurd_class_counts() {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::LrSchedule, "digits").unwrap()).unwrap();
    v["data"] = serde_json::json!({"source": "upload"});
    let checked = ExperimentConfig::from_json(&v.to_string(), None).unwrap().check().unwrap();
    let n = 20;
    let y: Vec<f64> = (0..n).map(|i| if i == 3 { 1e9 } else { (i % 2) as f64 }).collect();
    let ds = Dataset::new((0..n).map(|i| i as f64).collect(), y, 1, None, "y").unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    match checked.run(Inputs { data: Some(ds), ..Default::default() }, &mut |_| {}, &stop) {
        Err(Error::Data(m)) => assert!(m.contains("at most 1000 classes") && m.contains("1000000000"), "{m}"),
        other => panic!("expected a data error, got {:?}", other.map(|r| r.status)),
    }
}
