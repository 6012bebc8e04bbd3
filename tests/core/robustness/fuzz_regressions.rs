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

/// The tune preset `demo` with `edit` applied to its JSON, parsed and checked.
fn checked_demo(edit: impl FnOnce(&mut serde_json::Value)) -> tunelab::Result<()> {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    edit(&mut v);
    ExperimentConfig::from_json(&v.to_string(), Some(Kind::Tune))?.check().map(|_| ())
}

/// Seeded replay (config, 2026-11-29): an MNIST source with `per_class` near 2e18 overflowed `10 * per_class` in
/// the data-shape estimate (a release build wrapped it, so the limit check read a wrong size).
#[test]
fn a_huge_mnist_class_count_is_a_limit_error_not_an_overflow() {
    let r = checked_demo(|v| {
        v["data"] = serde_json::json!({"source": "mnist", "per_class": 2_090_071_992_547_409_930u64, "pool": 1});
        v["model"] = serde_json::json!({"kind": "bnn", "hidden": 100});
    });
    assert!(r.is_ok() || matches!(r, Err(Error::Config(_))), "{r:?}");
}

/// Seeded replay (config, 2026-11-29): a huge `thin` or dimension overflowed the chain-slicing arithmetic.
#[test]
fn chain_slicing_saturates_for_huge_thinning_and_dimensions() {
    use tunelab::experiments::sgmcmc::samples::{chain_cap, sub_iters, SUB_ITERS};
    assert_eq!(sub_iters(1, usize::MAX), SUB_ITERS);
    assert!(chain_cap(usize::MAX, 0, 100, usize::MAX) >= 2);
    assert!(chain_cap(3, 0, 100, usize::MAX) >= 2);
}

/// Seeded replay (config, 2026-11-29): a `log10_step` range of about 1e19 values overflowed `k + 1` in its own
/// error message.
#[test]
fn an_absurd_step_range_is_refused_with_its_size() {
    let r = checked_demo(|v| v["arms"]["log10_step"] = serde_json::json!({"from": -1e300, "to": 1e300, "by": 1.0}));
    match r {
        Err(Error::Config(m)) => assert!(m.contains("log10_step range gives") && m.contains("at most 10,000"), "{m}"),
        other => panic!("expected a config error, got {other:?}"),
    }
}

/// Seeded replay (lesson, 2026-11-29): a step's text starting with " ##" was trimmed to "##" when parsed, so the
/// lesson written back by `to_markdown` had an empty heading and did not parse.
#[test]
fn a_step_text_keeps_its_first_lines_indentation_through_a_round_trip() {
    let text = "---\ntitle: T\nkind: tune\npreset: demo\n---\n## A\n ##\nmore text\n## B\nend\n";
    let lesson = tunelab::lesson::parse("t.md", text).unwrap();
    let again = tunelab::lesson::parse("t.md", &lesson.to_markdown()).unwrap();
    assert_eq!(again.to_markdown(), lesson.to_markdown());
    assert_eq!(again.steps.len(), 2);
    assert!(again.steps[0].text.starts_with(" ##"), "{:?}", again.steps[0].text);
}
