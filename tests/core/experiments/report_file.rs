//! Report files read back (src/report_file.rs): a report of every kind, as `tunelab run --out` writes it, opens
//! with its own numbers; over the size limit it opens without its samples and says what was left out; a damaged
//! file, another kind, a newer format, a config and unknown envelope keys are refused with their own error.

use std::sync::atomic::AtomicBool;
use tunelab::experiments::{ExperimentConfig, Kind, Output, Report};
use tunelab::report_file::{open_report, OpenOptions, ReportError, REPORT_FORMAT};

/// A small config of each kind (a second or less natively).
pub fn small_configs() -> Vec<(Kind, serde_json::Value)> {
    use serde_json::json;
    let patched = |kind: Kind, preset: &str, patch: serde_json::Value| {
        let mut v = serde_json::to_value(ExperimentConfig::preset(kind, preset).unwrap()).unwrap();
        merge(&mut v, &patch);
        (kind, v)
    };
    vec![
        patched(Kind::Tune, "demo", json!({"budget": {"grad_evals": 200000}})),
        patched(
            Kind::Compare,
            "demo",
            json!({"budget": {"grad_evals": 200000}, "reference_samples": 300, "tuners": ["MAMBA-KSD", "heuristic"]}),
        ),
        (
            Kind::Bandit,
            json!({"kind": "bandit", "problem": {"kind": "reservoir", "a": 1, "b": 1}, "algorithms": [{"kind": "d-ttts"}, {"kind": "successive-halving"}], "rounds": 60, "repeats": 2, "seed": 1}),
        ),
        patched(Kind::Hoag, "logreg", json!({"budget": {"cost": 300, "max_iter": 5}, "landscape_points": 9})),
        patched(
            Kind::LrSchedule,
            "noisy-quadratic",
            json!({"dynamic": {"runs": 2, "fit_iters": 50, "candidates": 11, "band_samples": 50}}),
        ),
        patched(Kind::StepSize, "sgld-step", json!({})),
        patched(
            Kind::Tvo,
            "digits",
            json!({"epochs": 2, "window": 1, "repeats": 1, "methods": ["gp-ucb", "linear"], "test_size": 100, "eval_size": 100, "iwae_k": 50, "curve_k": 10}),
        ),
    ]
}

fn merge(base: &mut serde_json::Value, patch: &serde_json::Value) {
    match (base, patch) {
        (serde_json::Value::Object(b), serde_json::Value::Object(p)) => {
            for (k, v) in p {
                match b.get_mut(k) {
                    Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, p) => *b = p.clone(),
    }
}

/// Runs a config and returns its report as the CLI writes it (`--out`: pretty JSON).
pub fn report_text(config: &serde_json::Value) -> (Report, String) {
    let mut v = config.clone();
    let cfg = ExperimentConfig::from_value(&mut v, None).unwrap();
    let checked = cfg.check().unwrap();
    let inputs = match checked.data_request() {
        Some(req) => tunelab::experiments::read_requested_inputs(&req).unwrap(),
        None => Default::default(),
    };
    let report = checked.run(inputs, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let text = serde_json::to_string_pretty(&report).unwrap();
    (report, text)
}

#[test]
fn a_report_of_every_kind_opens_with_its_numbers() {
    for (kind, config) in small_configs() {
        let (report, text) = report_text(&config);
        let opened = open_report(&text, OpenOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
        assert_eq!(opened.kind, kind);
        assert!(opened.dropped.is_empty());
        assert_eq!(opened.bytes, text.len());
        // The envelope is the file's, number for number.
        let written: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(opened.envelope, written, "{}", kind.name());
        assert_eq!(written["format"], REPORT_FORMAT);
        // The result reads back into the kind's own report type, equal to what ran where it is finite.
        let back = Output::from_value(kind, &written["result"]).unwrap();
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(report.result.as_ref().unwrap()).unwrap(),
            "{}",
            kind.name()
        );
    }
}

#[test]
fn over_the_limit_a_report_opens_without_its_samples() {
    let (kind, config) = small_configs().remove(0);
    assert_eq!(kind, Kind::Tune);
    let mut config = config;
    config["arm_draws"] = serde_json::json!(40);
    let (report, text) = report_text(&config);
    let best = report.result.as_ref().map(|r| match r {
        Output::Tune(t) => t.best.clone().unwrap(),
        _ => unreachable!(),
    });
    let samples = best.unwrap().samples.len();
    assert!(samples > 0);
    let opened = open_report(&text, OpenOptions { full_bytes: text.len() - 1 }).unwrap();
    assert_eq!(opened.envelope["result"]["best"]["samples"], serde_json::json!([]));
    assert!(opened.envelope["result"]["arms"].as_array().unwrap().iter().all(|a| a.get("draws").is_none()));
    let paths: Vec<&str> = opened.dropped.iter().map(|d| d.path.as_str()).collect();
    assert!(paths.contains(&"result.best.samples"), "{paths:?}");
    let s = opened.dropped.iter().find(|d| d.path == "result.best.samples").unwrap();
    assert_eq!((s.parts, s.values), (1, samples));
    if let Some(d) = opened.dropped.iter().find(|d| d.path == "result.arms[].draws") {
        assert!(d.parts > 0 && d.values > 0);
    }
    // Everything else is the report's.
    let mut whole: serde_json::Value = serde_json::from_str(&text).unwrap();
    whole["result"]["best"]["samples"] = serde_json::json!([]);
    for a in whole["result"]["arms"].as_array_mut().unwrap() {
        a.as_object_mut().unwrap().remove("draws");
    }
    assert_eq!(opened.envelope, whole);
}

#[test]
fn bad_files_get_their_own_error() {
    let (_, config) = small_configs().remove(2);
    let (_, text) = report_text(&config);
    let code = |t: &str| open_report(t, OpenOptions::default()).err().map(|e| (e.code(), e.to_string()));
    // Cut short, not JSON at all, deeply nested.
    assert_eq!(code(&text[..text.len() / 2]).unwrap().0, "damaged");
    assert_eq!(code("\u{feff}hello").unwrap().0, "damaged");
    assert_eq!(code(&format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))).unwrap().0, "damaged");
    // A config, another document.
    let cfg = serde_json::to_string(&config).unwrap();
    assert_eq!(code(&cfg).unwrap().0, "not-a-report");
    assert_eq!(code("[1, 2]").unwrap().0, "not-a-report");
    let with = |key: &str, value: serde_json::Value| {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v[key] = value;
        serde_json::to_string(&v).unwrap()
    };
    // Another kind, a newer format.
    let (c, msg) = code(&with("kind", "quantum".into())).unwrap();
    assert_eq!(c, "unknown-kind");
    assert!(msg.contains("'quantum'") && msg.contains("bandit"), "{msg}");
    let (c, msg) = code(&with("format", (REPORT_FORMAT + 1).into())).unwrap();
    assert_eq!(c, "newer-format");
    assert!(msg.contains(&format!("format {}", REPORT_FORMAT + 1)), "{msg}");
    // An unknown envelope key, with the nearest name; a result that is not the kind's; a wrong config.
    let (c, msg) = code(&with("reslt", 1.into())).unwrap();
    assert_eq!(c, "invalid");
    assert!(msg.contains("did you mean `result`?"), "{msg}");
    let (c, msg) = code(&with("result", serde_json::json!({"algorithms": "none"}))).unwrap();
    assert_eq!(c, "invalid");
    assert!(msg.contains("`result`"), "{msg}");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["config"]["roundz"] = 3.into();
    let (c, msg) = code(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(c, "invalid");
    assert!(msg.contains("roundz") && msg.contains("rounds"), "{msg}");
    // The kind of the envelope and of its config must agree.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["kind"] = "hoag".into();
    assert_eq!(code(&serde_json::to_string(&v).unwrap()).unwrap().0, "invalid");
    // Too large to read at all.
    let big = " ".repeat(tunelab::report_file::MAX_REPORT_BYTES + 1);
    assert!(matches!(open_report(&big, OpenOptions::default()), Err(ReportError::TooLarge { .. })));
    // "$schema" (an editor's) and Ray's node list are part of an envelope; a report without `format` is format 1.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["$schema"] = "https://example.org/report.schema.json".into();
    v["ray"] = serde_json::json!({"node": "n1"});
    v.as_object_mut().unwrap().remove("format");
    let opened = open_report(&serde_json::to_string(&v).unwrap(), OpenOptions::default()).unwrap();
    assert_eq!(opened.envelope["format"], 1);
}

#[test]
fn a_config_with_its_schema_still_parses_strictly() {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap()).unwrap();
    v["$schema"] = "../schemas/hoag.schema.json".into();
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(
        ExperimentConfig::from_json(&text, None).unwrap(),
        ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap()
    );
    v["$schemaa"] = 1.into();
    assert!(ExperimentConfig::from_json(&serde_json::to_string(&v).unwrap(), None).is_err());
    // Only a top-level string: a misspelt key is pointed at `$schema`, a nested one is an unknown field.
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap()).unwrap();
    v["$schem"] = "hoag.schema.json".into();
    let e = ExperimentConfig::from_json(&serde_json::to_string(&v).unwrap(), None).unwrap_err().to_string();
    assert!(e.contains("`$schem`: unknown field; did you mean `$schema`?"), "{e}");
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap()).unwrap();
    v["budget"]["$schema"] = "hoag.schema.json".into();
    let e = ExperimentConfig::from_json(&serde_json::to_string(&v).unwrap(), None).unwrap_err().to_string();
    assert!(e.contains("`budget.$schema`: unknown field"), "{e}");
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Hoag, "logreg").unwrap()).unwrap();
    v["$schema"] = 1.into();
    let e = ExperimentConfig::from_json(&serde_json::to_string(&v).unwrap(), None).unwrap_err().to_string();
    assert!(e.contains("`$schema`: unknown field"), "{e}");
    // The generic strict parser skips it too.
    let mut v = serde_json::json!({"$schema": "x.schema.json"});
    v["seed"] = 1.into();
    #[derive(serde::Deserialize, serde::Serialize, PartialEq, Debug)]
    struct Small {
        seed: u64,
    }
    assert_eq!(tunelab::strict::from_value::<Small>(&v).unwrap(), Small { seed: 1 });
    v["sed"] = 2.into();
    let e = tunelab::strict::from_value::<Small>(&v).unwrap_err().to_string();
    assert!(e.contains("`sed`: unknown field; did you mean `seed`?"), "{e}");
}

/// A run stopped part-way, written as the CLI (`--out`) and Python write it (its `result` the partial result,
/// marked `"partial": true`), opens as a stopped report; a stopped report's result without that mark is refused.
#[test]
fn a_stopped_report_as_the_front_ends_write_it_opens() {
    use std::sync::atomic::Ordering;
    use tunelab::experiments::Status;
    let (kind, config) = small_configs().remove(0);
    assert_eq!(kind, Kind::Tune);
    let mut v = config.clone();
    let checked = ExperimentConfig::from_value(&mut v, None).unwrap().check().unwrap();
    let inputs = match checked.data_request() {
        Some(req) => tunelab::experiments::read_requested_inputs(&req).unwrap(),
        None => Default::default(),
    };
    let stop = AtomicBool::new(false);
    let mut seen = 0;
    let report = checked
        .run(
            inputs,
            &mut |_| {
                seen += 1;
                if seen == 4 {
                    stop.store(true, Ordering::Relaxed);
                }
            },
            &stop,
        )
        .unwrap();
    assert_eq!(report.status, Status::Stopped);
    let written = tunelab::experiments::partial::report_value(&report).unwrap();
    assert_eq!(written["result"]["partial"], true);
    let opened = open_report(&serde_json::to_string_pretty(&written).unwrap(), OpenOptions::default()).unwrap();
    assert_eq!(opened.status, Status::Stopped);
    assert_eq!(opened.envelope["result"], written["result"]);
    let mut unmarked = written.clone();
    unmarked["result"].as_object_mut().unwrap().remove("partial");
    let err = open_report(&serde_json::to_string(&unmarked).unwrap(), OpenOptions::default()).unwrap_err();
    assert_eq!(err.code(), "invalid");
    assert!(err.to_string().contains("partial"), "{err}");
}
