//! Every input the fuzz targets (fuzz/, scripts/dev/fuzz.sh) found a crash with, replayed through what the target
//! does (tests/data/fuzz/TARGET/), plus a focused test of each fix.

use tunelab::data::{parse_csv, read_matrix_csv, CsvOptions, Dataset};
use tunelab::experiments::{ExperimentConfig, Inputs, Kind};
use tunelab::Error;

/// The `csv` target's body.
fn csv_target(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for (label, standardize) in [("y", false), ("y", true), ("label", false), ("", false)] {
        if let Ok(ds) = parse_csv(&text, &CsvOptions { label: label.into(), standardize }) {
            assert_eq!(ds.x.len(), ds.n * ds.p);
            let _ = ds.check_binary_labels();
            let _ = ds.check_class_labels(10);
            let _ = ds.n_classes();
            let _ = ds.to_csv_string();
        }
    }
    if let Some(first) = text.lines().next().and_then(|l| l.split(',').next()) {
        let _ = parse_csv(&text, &CsvOptions { label: first.trim().into(), standardize: true });
    }
    if let Ok((vals, n, d)) = read_matrix_csv(&text) {
        assert_eq!(vals.len(), n * d);
    }
}

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        body(&std::fs::read(entry.path()).unwrap());
        n += 1;
    }
    n
}

#[test]
fn every_csv_crash_found_by_fuzzing_is_fixed() {
    assert!(replay("csv", csv_target) >= 1);
}

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
