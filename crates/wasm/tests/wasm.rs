//! Browser tests of the binding layer (crates/wasm/src/lib.rs), single-threaded build:
//! `wasm-pack test --headless --chrome . --test wasm` (see scripts/dev/test-wasm.sh). One test target with the
//! tuner kinds' tests and the RNG's in modules: each test target is a whole-program release link (thin LTO, one
//! codegen unit), so three targets cost three.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/tuners.rs"]
mod tuners;

#[cfg(target_feature = "simd128")]
#[path = "wasm/rng_simd128.rs"]
mod rng_simd128;

fn js_error(v: JsValue) -> js_sys::Error {
    v.dyn_into::<js_sys::Error>().expect("a JS Error object")
}

#[wasm_bindgen_test]
fn every_core_error_becomes_a_js_error_with_its_message_and_kind() {
    for (kind, name, prefix) in [
        ("data", "DataError", "data error: "),
        ("config", "ConfigError", "invalid configuration: "),
        ("numerical", "NumericalError", "numerical failure: "),
        ("io", "IoError", "I/O error: "),
    ] {
        let e = js_error(tunelab_wasm::error_for_test(kind, "row 3, column \"x2\": not a number").unwrap_err());
        assert_eq!(String::from(e.name()), name);
        assert_eq!(String::from(e.message()), format!("{prefix}row 3, column \"x2\": not a number"));
    }
    let e = js_error(tunelab_wasm::to_js_error(tunelab::Error::Cancelled));
    assert_eq!(String::from(e.name()), "CancelledError");
    assert_eq!(String::from(e.message()), "cancelled");
}

#[wasm_bindgen_test]
fn version_and_single_threaded_flavour() {
    assert_eq!(tunelab_wasm::version(), env!("CARGO_PKG_VERSION"));
    assert!(!tunelab_wasm::threads_supported());
    assert_eq!(tunelab_wasm::num_threads(), 1);
    // Without threads rayon runs every job on the calling thread: one distinct index at most.
    let ids = tunelab_wasm::probe_threads(16);
    assert_eq!(ids.len(), 16);
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
}

fn json(s: &str) -> JsValue {
    js_sys::JSON::parse(s).expect("valid JSON")
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).expect("property")
}

const TINY: &str = r#"{"kind":"tune","data":{"source":"none","test_fraction":0},"model":{"kind":"gaussian","d":2},
  "sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-3,"to":-1,"by":1},"batch":[1]},
  "tuner":{"kind":"mamba","eta":3},"budget":{"iterations":600},"metric":{"kind":"ksd","max_samples":100},
  "thin":2,"start":"zero","seed":5}"#;

#[wasm_bindgen_test]
fn a_tiny_tune_run_returns_a_report_events_and_samples_as_a_float64array() {
    let events = js_sys::Array::new();
    let push = {
        let events = events.clone();
        wasm_bindgen::closure::Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
            events.push(&e);
        })
    };
    let f: &js_sys::Function = push.as_ref().unchecked_ref();
    let out = tunelab_wasm::run(json(TINY), None, f).expect("run");
    let envelope = get(&out, "report");
    assert_eq!(get(&envelope, "kind").as_string().as_deref(), Some("tune"));
    assert_eq!(get(&envelope, "status").as_string().as_deref(), Some("complete"));
    let report = get(&envelope, "result");
    assert_eq!(js_sys::Array::from(&get(&report, "arms")).length(), 3);
    let best = get(&report, "best");
    let dim = get(&out, "dim").as_f64().unwrap() as u32;
    assert_eq!(dim, 2);
    // The samples left the report and crossed as a typed array of whole rows.
    assert!(
        get(&best, "samples").is_undefined()
            || get(&best, "samples").is_null()
            || js_sys::Array::from(&get(&best, "samples")).length() == 0
    );
    let samples: js_sys::Float64Array = get(&out, "samples").dyn_into().expect("Float64Array");
    assert!(samples.length() >= 2 * dim && samples.length().is_multiple_of(dim));
    assert!(samples.to_vec().iter().all(|v| v.is_finite()));
    let mean = js_sys::Array::from(&get(&get(&best, "posterior"), "mean"));
    assert_eq!(mean.length(), 2);
    // The one event vocabulary: `started`, then `progress` with done <= total and the tune detail, `finished`.
    let types: Vec<String> = events.iter().map(|e| get(&e, "type").as_string().unwrap()).collect();
    assert_eq!(types.first().map(String::as_str), Some("started"));
    assert_eq!(types.last().map(String::as_str), Some("finished"));
    let details: Vec<String> = events
        .iter()
        .filter(|e| get(e, "type").as_string().as_deref() == Some("progress"))
        .map(|e| {
            let (done, total) = (get(&e, "done").as_f64().unwrap(), get(&e, "total").as_f64().unwrap());
            assert!(done <= total + 1e-9 && total > 0.0, "{done} of {total}");
            get(&get(&e, "detail"), "type").as_string().unwrap()
        })
        .collect();
    assert!(details.iter().any(|t| t == "arm-scored"));
    assert!(details.iter().any(|t| t == "round-finished"));
    // The summary of `started` is what `check` returns: 3 arms, MAMBA's rounds.
    let summary = get(&events.get(0), "summary");
    assert_eq!(get(&summary, "arm_count").as_f64(), Some(3.0));
}

#[wasm_bindgen_test]
fn run_returns_the_cores_warnings_about_unscaled_features_and_the_grid_edge() {
    let noop = js_sys::Function::new_no_args("");
    // features of size ~500 with standardize off: the same text the CLI prints on stderr
    let mut csv = String::from("a,b,y\n");
    for i in 0..120 {
        let (u, v) = (((i * 37) % 101) as f64 / 50.0 - 1.0, ((i * 53) % 97) as f64 / 48.0 - 1.0);
        csv += &format!("{},{},{}\n", 500.0 + 80.0 * u, v, if u + 0.5 * v > 0.0 { 1 } else { 0 });
    }
    let cfg = |standardize: bool| {
        format!(
            r#"{{"kind":"tune","data":{{"source":"upload","label":"y","standardize":{standardize},"test_fraction":0.2}},
            "model":{{"kind":"logistic"}},"sampler":{{"kind":"sgld"}},
            "arms":{{"log10_step":{{"from":-4,"to":-2,"by":1}},"batch":[0.3]}},"tuner":{{"kind":"mamba","eta":3}},
            "budget":{{"grad_evals":6000}},"metric":{{"kind":"ksd","max_samples":60}},"thin":2,"seed":3}}"#
        )
    };
    let texts = |out: &JsValue| -> Vec<String> {
        js_sys::Array::from(&get(out, "warnings")).iter().map(|w| w.as_string().expect("a string")).collect()
    };
    let raw = texts(&tunelab_wasm::run(json(&cfg(false)), Some(csv.clone()), &noop).expect("run"));
    assert!(raw[0].starts_with("the features look unscaled (feature 'a' has mean "), "{raw:?}");
    let scaled = texts(&tunelab_wasm::run(json(&cfg(true)), Some(csv), &noop).expect("run"));
    assert!(scaled.iter().all(|w| !w.contains("unscaled")), "{scaled:?}");
    // every warning of a complete run is one the core's advice gives for its report (here: none or a grid edge)
    assert!(scaled.iter().all(|w| w.contains("of the grid")), "{scaled:?}");
}

#[wasm_bindgen_test]
fn a_truthy_observer_stops_the_run_and_a_throwing_observer_rethrows() {
    let stop =
        js_sys::Function::new_with_args("e", "return e.type === 'progress' && e.detail.type === 'round-started';");
    let out = tunelab_wasm::run(json(TINY), None, &stop).expect("a stopped run is a result");
    let envelope = get(&out, "report");
    assert_eq!(get(&envelope, "status").as_string().as_deref(), Some("stopped"));
    assert!(get(&envelope, "result").is_null());
    assert!(js_sys::Array::from(&get(&envelope, "reached")).length() >= 1);
    let throws = js_sys::Function::new_with_args("e", "if (e.type === 'started') throw new TypeError('observer bug');");
    let e = js_error(tunelab_wasm::run(json(TINY), None, &throws).unwrap_err());
    assert_eq!(String::from(e.name()), "TypeError");
    assert_eq!(String::from(e.message()), "observer bug");
}

#[wasm_bindgen_test]
fn check_returns_the_normalised_config_and_what_the_core_computed() {
    let c = tunelab_wasm::check(json(TINY)).expect("check");
    assert_eq!(get(&c, "kind").as_string().as_deref(), Some("tune"));
    let summary = get(&c, "summary");
    assert_eq!(get(&summary, "arm_count").as_f64(), Some(3.0));
    // A descending step range is what the core accepts: the page takes the grid from here.
    let desc = TINY.replace(r#""from":-3,"to":-1"#, r#""from":-1,"to":-3"#);
    let c = tunelab_wasm::check(json(&desc)).expect("descending range");
    let arms = js_sys::Array::from(&get(&get(&c, "summary"), "arms"));
    assert_eq!(arms.length(), 3);
    assert!((get(&arms.get(0), "step").as_f64().unwrap() - 0.1).abs() < 1e-12);
    // Presets of every kind come with their kind.
    for (kind, name) in [
        ("tune", "demo"),
        ("bandit", "beta-reservoir"),
        ("hoag", "logreg"),
        ("lr-schedule", "digits"),
        ("step-size", "sgld-step"),
        ("compare", "demo"),
    ] {
        let p = tunelab_wasm::preset(kind, name).expect(name);
        assert_eq!(get(&p, "kind").as_string().as_deref(), Some(kind));
        tunelab_wasm::check(p).expect(name);
    }
    let e = js_error(tunelab_wasm::preset("nope", "x").unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    let e = js_error(tunelab_wasm::check(json(r#"{"rounds":3}"#)).unwrap_err());
    assert!(String::from(e.message()).contains("kind"));
    // a misspelt field is refused with its path and the right name (src/strict.rs)
    let e = js_error(tunelab_wasm::check(json(&TINY.replace(r#""eta":3"#, r#""etta":3"#))).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(
        String::from(e.message()).contains("`tuner.etta`: unknown field; did you mean `eta`?"),
        "{}",
        String::from(e.message())
    );
}

#[wasm_bindgen_test]
fn bad_configs_and_bad_csv_become_errors_with_the_core_message() {
    let noop = js_sys::Function::new_no_args("");
    let bad = TINY.replace(r#""eta":3"#, r#""eta":1"#);
    let e = js_error(tunelab_wasm::run(json(&bad), None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("eta >= 2"), "{}", String::from(e.message()));
    let e = js_error(tunelab_wasm::run(json(r#"{"kind":"tune","model":{"kind":"nope"}}"#), None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    let e = js_error(tunelab_wasm::csv_preview("x,y\n1,0\n2\n", None, false, JsValue::UNDEFINED, 5).unwrap_err());
    assert_eq!(String::from(e.name()), "DataError");
    assert!(String::from(e.message()).contains("line 3"));
    let logistic = json(r#"{"kind":"logistic"}"#);
    let e = js_error(tunelab_wasm::csv_preview("x,y\n1,0\n2,3\n", None, false, logistic, 5).unwrap_err());
    assert!(String::from(e.message()).contains("not 0 or 1"), "{}", String::from(e.message()));
}

#[wasm_bindgen_test]
fn csv_preview_and_density_grid_cross_as_plain_objects_and_typed_arrays() {
    let p = tunelab_wasm::csv_preview("a,b,y\n1,2,0\n3,4,1\n5,6,1\n", None, false, JsValue::UNDEFINED, 2).unwrap();
    assert_eq!(get(&p, "n").as_f64(), Some(3.0));
    assert_eq!(get(&p, "p").as_f64(), Some(2.0));
    assert_eq!(js_sys::JSON::stringify(&get(&p, "columns")).unwrap(), r#"["a","b","y"]"#);
    assert_eq!(js_sys::JSON::stringify(&get(&p, "rows")).unwrap(), "[[1,2,0],[3,4,1]]");
    assert_eq!(js_sys::JSON::stringify(&get(&p, "label_values")).unwrap(), "[0,1]");
    let g = tunelab_wasm::density_grid(json(r#"{"kind":"gaussian","d":2,"rho":0}"#), &[-1.0, -1.0, 1.0, 1.0], 5, 4)
        .unwrap();
    let z: js_sys::Float64Array = get(&g, "z").dyn_into().unwrap();
    assert_eq!(z.length(), 20);
    // Standard normal: the log density is highest at the grid point nearest the origin.
    let zs = z.to_vec();
    let bounds: Vec<f64> = serde_wasm_bindgen::from_value(get(&g, "bounds")).unwrap();
    let expect = [-1.3, 1.3, -1.3, 1.3];
    assert!(bounds.iter().zip(expect).all(|(a, b)| (a - b).abs() < 1e-12), "{bounds:?}");
    let imax = zs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
    assert_eq!(imax % 5, 2); // middle column x = 0
}

/// Every object key of `v` at every depth: (path of its object, key); array steps are `[i]`.
fn keys(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, child) in o {
                out.push((path.clone(), k.clone()));
                path.push(k.clone());
                keys(child, path, out);
                path.pop();
            }
        }
        serde_json::Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(format!("[{i}]"));
                keys(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `a.b[0].c`, as the errors show paths.
fn dotted(path: &[String]) -> String {
    let mut s = String::new();
    for p in path {
        if !(p.starts_with('[') || s.is_empty()) {
            s.push('.');
        }
        s.push_str(p);
    }
    s
}

/// The worker's `check` (strict configs): every field of every preset of every kind, misspelt by one
/// letter (a middle letter dropped, or doubled for short keys), is refused as a ConfigError naming its JSON path and
/// the field it was probably meant to be. The same walk as the core's test (tests/core/experiments/strict_config.rs)
/// and the CLI's and Python's, here through the binding the page calls.
#[wasm_bindgen_test]
fn every_field_of_every_preset_misspelt_is_refused_by_check_with_its_path_and_name() {
    use tunelab::experiments::{ExperimentConfig, Kind};
    let mut checked = 0;
    let mut failures = Vec::new();
    for kind in Kind::ALL {
        for name in ExperimentConfig::preset_names(kind) {
            let v = serde_json::to_value(ExperimentConfig::preset(kind, name).unwrap()).unwrap();
            let mut all = Vec::new();
            keys(&v, &mut Vec::new(), &mut all);
            for (parent, key) in all {
                let mut c: Vec<char> = key.chars().collect();
                if c.len() >= 3 {
                    c.remove(c.len() / 2);
                } else {
                    c.insert(c.len() / 2, c[c.len() / 2]);
                }
                let typo: String = c.into_iter().collect();
                let mut bad = v.clone();
                let mut obj = &mut bad;
                for p in &parent {
                    obj = match p.strip_prefix('[') {
                        Some(i) => &mut obj[i.trim_end_matches(']').parse::<usize>().unwrap()],
                        None => &mut obj[p.as_str()],
                    };
                }
                let obj = obj.as_object_mut().unwrap();
                if obj.contains_key(&typo) {
                    continue; // another field of the same object
                }
                let value = obj.remove(&key).unwrap();
                obj.insert(typo.clone(), value);
                let path = dotted(&[parent.clone(), vec![typo.clone()]].concat());
                checked += 1;
                match tunelab_wasm::check(json(&bad.to_string())) {
                    Ok(_) => failures.push(format!("{kind:?}/{name}: `{path}` accepted")),
                    Err(e) => {
                        let e = js_error(e);
                        let (n, m) = (String::from(e.name()), String::from(e.message()));
                        if n != "ConfigError"
                            || !m.contains(&format!("`{path}`"))
                            || !m.contains(&format!("did you mean `{key}`"))
                        {
                            failures.push(format!("{kind:?}/{name}: `{path}` (for `{key}`): {n}: {m}"));
                        }
                    }
                }
            }
        }
    }
    assert!(checked >= 400, "{checked} misspellings");
    assert!(failures.is_empty(), "{} of {checked} misspellings:\n{}", failures.len(), failures.join("\n"));
}

/// The KSD pair loop in this build (2 lanes per register block, against 4 natively) gives the
/// native build's bits: the same inputs (integer arithmetic only) and pinned numbers as `ksd_bits_are_pinned` in
/// tests/core/numerics/stein.rs, which checks them natively.
#[wasm_bindgen_test]
fn ksd_bits_equal_the_native_build() {
    use tunelab::stein::{ksd, Estimator, KernelScale, KsdOptions};
    fn lcg_samples(n: usize, d: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (z >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        };
        let x: Vec<f64> = (0..n * d).map(|_| next()).collect();
        let s: Vec<f64> = x.iter().map(|v| -0.7 * v + 0.1 * next()).collect();
        (x, s)
    }
    let mut got = Vec::new();
    for (n, d, seed) in [(37usize, 3usize, 1u64), (130, 10, 2), (203, 7, 3)] {
        let (x, s) = lcg_samples(n, d, seed);
        let fixed = KsdOptions { c: 0.8, beta: -0.3, scale: KernelScale::Fixed, estimator: Estimator::U };
        for opts in [KsdOptions::reference(1.0, -0.5), KsdOptions::default(), fixed] {
            got.push(ksd(&x, &s, d, &opts).unwrap().ksd_sq.to_bits());
        }
    }
    assert_eq!(
        got,
        [
            0x3fc01ea9920753f9,
            0xbfa595950e683662,
            0xbf8e89e78c9a0e00,
            0x3fc01f17b4af957f,
            0xbf7641a71c8cea8d,
            0xbf5b2a449a4c4e3b,
            0x3fadd8148b1e7461,
            0xbf89ad2da6e48f36,
            0xbf65de99f9584428,
        ]
    );
}

/// The lesson parser through the binding: a lesson becomes a plain object with each step's checked config; a
/// broken one a JS `LessonError` whose message is `file:line: message`, with `line` and `nearest` alongside; a
/// step's expect lines are evaluated on a report object.
#[wasm_bindgen_test]
fn lessons_parse_check_and_fail_with_their_line() {
    let text = "---\ntitle: T\nkind: tune\npreset: demo\n---\n## A\n```json Set eta\n{\"tuner\": {\"eta\": 2}}\n```\n```expect\nstatus == complete\nresult.best.step < 1e-4\n```\n";
    let lesson = tunelab_wasm::lesson_check("t.md", text).unwrap();
    assert_eq!(get(&lesson, "title").as_string().as_deref(), Some("T"));
    let configs: js_sys::Array = get(&lesson, "configs").dyn_into().unwrap();
    assert_eq!(configs.length(), 1);
    assert_eq!(get(&get(&configs.get(0), "tuner"), "eta").as_f64(), Some(2.0));
    let step: js_sys::Array = get(&lesson, "steps").dyn_into().unwrap();
    assert_eq!(get(&step.get(0), "apply").as_string().as_deref(), Some("Set eta"));

    let broken = text.replace("\"eta\"", "\"etta\"");
    let e = js_error(tunelab_wasm::lesson_check("t.md", &broken).unwrap_err());
    assert_eq!(String::from(e.name()), "LessonError");
    assert_eq!(
        String::from(e.message()),
        "t.md:8: `tuner.etta`: the tune panel has no such field; did you mean `tuner.eta`?"
    );
    assert_eq!(get(&e, "line").as_f64(), Some(8.0));
    assert_eq!(get(&e, "nearest").as_string().as_deref(), Some("tuner.eta"));

    let report = json(r#"{"status": "complete", "result": {"best": {"step": 0.001}}}"#);
    let out: js_sys::Array = tunelab_wasm::lesson_expect("t.md", text, 0, report).unwrap().dyn_into().unwrap();
    assert_eq!(out.length(), 2);
    assert_eq!(get(&out.get(0), "pass").as_bool(), Some(true));
    assert_eq!(get(&out.get(1), "pass").as_bool(), Some(false));
    assert_eq!(get(&out.get(1), "message").as_string().as_deref(), Some("`result.best.step` is 0.001"));
}

/// A report file opened through the binding: the envelope as a plain object, a tune report's chosen samples as
/// a Float64Array (as `run` returns them), the samples left out under a small limit, and a cut file refused as a
/// `ReportError` with its code.
#[wasm_bindgen_test]
fn open_report_reads_a_report_file_as_run_returns_it() {
    let mut v: serde_json::Value = serde_json::from_str(TINY).unwrap();
    let checked = tunelab::experiments::ExperimentConfig::from_value(&mut v, None).unwrap().check().unwrap();
    let report = checked.run(Default::default(), &mut |_| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap();
    let best = match report.result.as_ref() {
        Some(tunelab::experiments::Output::Tune(t)) => t.best.clone().expect("a chosen arm"),
        _ => panic!("a tune report"),
    };
    let text = serde_json::to_string(&report).unwrap();
    let out = tunelab_wasm::open_report(&text, 1 << 30).unwrap();
    assert_eq!(get(&get(&out, "report"), "kind").as_string().as_deref(), Some("tune"));
    let samples: js_sys::Float64Array = get(&out, "samples").dyn_into().unwrap();
    assert_eq!(samples.to_vec(), best.samples);
    assert_eq!(get(&out, "dim").as_f64(), Some(best.dim as f64));
    assert_eq!(js_sys::Array::from(&get(&out, "dropped")).length(), 0);
    let small = tunelab_wasm::open_report(&text, 10).unwrap();
    assert_eq!(get(&small, "samples").dyn_into::<js_sys::Float64Array>().unwrap().length(), 0);
    assert!(js_sys::Array::from(&get(&small, "dropped")).length() >= 1);
    let e = js_error(tunelab_wasm::open_report(&text[..text.len() / 2], 1 << 30).unwrap_err());
    assert_eq!(String::from(e.name()), "ReportError");
    assert_eq!(get(&e, "code").as_string().as_deref(), Some("damaged"));
}
