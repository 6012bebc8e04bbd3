//! Browser tests of the experiment binding (single-threaded build) for the bandit, HOAG, learning-rate-schedule
//! and step-size kinds: `run`, `check` and `preset` of `crates/wasm` over the one experiment contract.
//! Part of the `wasm` test target (crates/wasm/tests/wasm.rs; scripts/dev/test-wasm.sh).

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn js_error(v: JsValue) -> js_sys::Error {
    v.dyn_into::<js_sys::Error>().expect("a JS Error object")
}

fn json(s: &str) -> JsValue {
    js_sys::JSON::parse(s).expect("valid JSON")
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).expect("property")
}

fn arr(v: &JsValue) -> js_sys::Array {
    js_sys::Array::from(v)
}

fn nums(v: &JsValue) -> Vec<f64> {
    serde_wasm_bindgen::from_value(v.clone()).expect("numbers")
}

/// An observer that records every event in `events`.
fn recorder() -> (js_sys::Array, wasm_bindgen::closure::Closure<dyn FnMut(JsValue)>) {
    let events = js_sys::Array::new();
    let e2 = events.clone();
    (
        events,
        wasm_bindgen::closure::Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
            e2.push(&e);
        }),
    )
}

/// The kind-specific details of the progress events, in order (every progress event has done <= total).
fn details(events: &js_sys::Array) -> Vec<JsValue> {
    let all: Vec<JsValue> = events.iter().collect();
    assert_eq!(all.first().and_then(|e| get(e, "type").as_string()).as_deref(), Some("started"));
    assert_eq!(all.last().and_then(|e| get(e, "type").as_string()).as_deref(), Some("finished"));
    all.iter()
        .filter(|e| get(e, "type").as_string().as_deref() == Some("progress"))
        .map(|e| {
            let (done, total) = (get(e, "done").as_f64().unwrap(), get(e, "total").as_f64().unwrap());
            assert!(done <= total + 1e-9, "{done} of {total}");
            get(e, "detail")
        })
        .collect()
}

fn types(events: &js_sys::Array) -> Vec<String> {
    details(events).iter().map(|e| get(e, "type").as_string().unwrap()).collect()
}

/// `{"kind": kind, ...config}` as a JS object.
fn with_kind(kind: &str, config: &str) -> JsValue {
    let body = config.trim_start().strip_prefix('{').expect("an object");
    json(&format!("{{\"kind\":\"{kind}\",{body}"))
}

/// Runs a config of `kind` and returns the kind's report (`report.result` of the envelope).
fn run_kind(kind: &str, config: &str, csv: Option<String>, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let out = tunelab_wasm::run(with_kind(kind, config), csv, on_event)?;
    Ok(get(&get(&out, "report"), "result"))
}

/// Runs and returns the envelope's status ("complete" / "stopped").
fn run_status(kind: &str, config: &str, on_event: &js_sys::Function) -> String {
    let out = tunelab_wasm::run(with_kind(kind, config), None, on_event).expect("run");
    get(&get(&out, "report"), "status").as_string().unwrap()
}

/// The config `check` returns for a config of `kind` (every default filled in).
fn checked(kind: &str, config: &str) -> Result<JsValue, JsValue> {
    tunelab_wasm::check(with_kind(kind, config)).map(|c| get(&c, "config"))
}

const BANDIT: &str = r#"{"problem":{"kind":"bernoulli","means":[0.2,0.5,0.8]},
  "algorithms":[{"kind":"ttts"},{"kind":"successive-halving"}],"rounds":60,"repeats":3,"seed":2,"checkpoints":6}"#;

#[wasm_bindgen_test]
fn a_tiny_bandit_run_returns_the_report_and_streams_its_curves() {
    let (events, cb) = recorder();
    let report = run_kind("bandit", BANDIT, None, cb.as_ref().unchecked_ref()).expect("run");
    let algos = arr(&get(&report, "algorithms"));
    // The uniform floor is added to the two listed algorithms.
    let names: Vec<String> = algos.iter().map(|a| get(&a, "name").as_string().unwrap()).collect();
    assert_eq!(names, ["ttts", "successive-halving", "uniform"]);
    assert_eq!(nums(&get(&report, "rounds")), [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]);
    for a in algos.iter() {
        let s = get(&a, "simple_regret");
        let (mean, lo, hi) = (nums(&get(&s, "mean")), nums(&get(&s, "lo")), nums(&get(&s, "hi")));
        assert_eq!(mean.len(), 6);
        assert!(mean.iter().zip(&lo).zip(&hi).all(|((m, l), h)| m.is_finite() && l <= m && m <= h));
        // Regret of 3 arms with means 0.2 / 0.5 / 0.8: simple regret is 0, 0.3 or 0.6 per repeat.
        assert!(mean.iter().all(|&m| (0.0..=0.6 + 1e-12).contains(&m)));
        let arms = arr(&get(&get(&a, "charts"), "arms"));
        assert_eq!(arms.length(), 3);
    }
    let t = types(&events);
    assert_eq!(t.first().map(String::as_str), Some("started"));
    assert_eq!(t.last().map(String::as_str), Some("done"));
    // The progress events together carry every checkpoint once, per algorithm.
    let mut seen = Vec::new();
    for e in details(&events).iter().filter(|e| get(e, "type").as_string().as_deref() == Some("progress")) {
        let c0 = arr(&get(e, "curves")).get(0);
        seen.extend(nums(&get(&c0, "rounds")));
    }
    assert_eq!(seen, [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]);
}

#[wasm_bindgen_test]
fn bandit_cancel_bad_configs_checks_and_presets() {
    let stop = js_sys::Function::new_with_args("e", "return e.type === 'progress' && e.detail.type === 'started';");
    assert_eq!(run_status("bandit", BANDIT, &stop), "stopped");
    let noop = js_sys::Function::new_no_args("");
    let bad = BANDIT.replace("0.8]", "1.8]");
    let e = js_error(run_kind("bandit", &bad, None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("every mean must be in [0, 1]"), "{}", String::from(e.message()));
    let e = js_error(checked("bandit", r#"{"problem":{"kind":"nope"},"algorithms":[],"rounds":5}"#).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("nope"), "{}", String::from(e.message()));
    let e = js_error(tunelab_wasm::check(JsValue::UNDEFINED).unwrap_err());
    assert!(String::from(e.message()).contains("no configuration given"));
    // GP-UCB needs a box; TTTS on a function is refused before running.
    let e = js_error(
        checked(
            "bandit",
            r#"{"problem":{"kind":"function","function":"branin"},"algorithms":[{"kind":"ttts"}],"rounds":5}"#,
        )
        .unwrap_err(),
    );
    assert!(String::from(e.message()).contains("discrete arms"), "{}", String::from(e.message()));
    // The check fills defaults and adds the floor.
    let c = checked("bandit", BANDIT).unwrap();
    assert_eq!(arr(&get(&c, "algorithms")).length(), 3);
    assert_eq!(get(&c, "band").as_f64(), Some(1.96));
    let p = tunelab_wasm::preset("bandit", "tvo-schedule").unwrap();
    assert_eq!(get(&p, "kind").as_string().as_deref(), Some("bandit"));
    assert_eq!(get(&p, "rounds").as_f64(), Some(80.0));
    assert_eq!(get(&get(&p, "problem"), "kind").as_string().as_deref(), Some("tvo-schedule"));
    assert!(tunelab_wasm::check(p).is_ok());
    let e = js_error(tunelab_wasm::preset("bandit", "nope").unwrap_err());
    assert!(String::from(e.message()).contains("unknown bandit preset"));
}

const SGMCMC: &str = r#"{"problem":{"kind":"sgmcmc-ksd","data":{"source":"upload","name":"mine.csv","label":"y"},
  "pool":6,"replicates":2,"iterations":200,"thin":2,"reference_warmup":200},
  "algorithms":[{"kind":"d-ttts"}],"rounds":40,"repeats":2,"seed":4,"checkpoints":4}"#;

#[wasm_bindgen_test]
fn d_ttts_tunes_sgmcmc_on_an_uploaded_csv_through_the_binding() {
    let mut csv = String::from("a,b,y\n");
    for i in 0..120 {
        let (a, b) = ((i as f64 * 0.37).sin(), (i as f64 * 0.91).cos());
        csv.push_str(&format!("{a},{b},{}\n", u8::from(a + 0.5 * b + 0.3 * (i as f64 * 2.3).sin() > 0.0)));
    }
    let (events, cb) = recorder();
    let report = run_kind("bandit", SGMCMC, Some(csv.clone()), cb.as_ref().unchecked_ref()).expect("run");
    assert!(get(&report, "problem").as_string().unwrap().contains("mine.csv"));
    let t = types(&events);
    // the table's 12 runs are reported before the first round
    assert_eq!(t.first().map(String::as_str), Some("preparing"));
    let started = t.iter().position(|x| x == "started").unwrap();
    assert!(t[..started].iter().all(|x| x == "preparing"));
    let algos = arr(&get(&report, "algorithms"));
    let rec = arr(&get(&algos.get(0), "recommended")).get(0);
    assert!(get(&rec, "label").as_string().unwrap().contains("h="));
    // progress events carry the bands
    let p = details(&events).into_iter().find(|e| get(e, "type").as_string().as_deref() == Some("progress")).unwrap();
    let c0 = arr(&get(&p, "curves")).get(0);
    assert_eq!(nums(&get(&c0, "simple_lo")).len(), nums(&get(&c0, "rounds")).len());
    // no file, or a broken one: errors a student can act on
    let noop = js_sys::Function::new_no_args("");
    let e = js_error(run_kind("bandit", SGMCMC, None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("uploaded CSV"), "{}", String::from(e.message()));
    let e = js_error(run_kind("bandit", SGMCMC, Some("a,b,y\n1,2,0\n1,2\n".into()), &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "DataError");
    assert!(String::from(e.message()).contains("line 3"), "{}", String::from(e.message()));
}

const HOAG: &str = r#"{"problem":"logreg","data":{"source":"simulate","n":90,"d":4,"seed":3},
  "methods":[{"kind":"hoag","tolerance":"cubic"},{"kind":"grid","points":5}],
  "budget":{"cost":150,"max_iter":8},"landscape_points":9,"seed":5}"#;

#[wasm_bindgen_test]
fn a_tiny_hoag_run_returns_traces_landscape_and_tolerances() {
    let (events, cb) = recorder();
    let report = run_kind("hoag", HOAG, None, cb.as_ref().unchecked_ref()).expect("run");
    let methods = arr(&get(&report, "methods"));
    assert_eq!(methods.length(), 2);
    assert_eq!(get(&methods.get(0), "name").as_string().as_deref(), Some("HOAG (cubic)"));
    // Suboptimality is the accurate curve minus the reference, unclamped; the grid's curve is its incumbent
    // (non-increasing); HOAG's first point is a loose solve (ε_1 = 0.1), so its own view of the loss differs
    // from the accurate curve.
    let reference = get(&report, "reference_optimum").as_f64().unwrap();
    for (i, m) in methods.iter().enumerate() {
        let trace = arr(&get(&m, "trace"));
        assert!(trace.length() >= 1);
        let mut prev = f64::INFINITY;
        for p in trace.iter() {
            let best = get(&p, "best_outer_loss").as_f64().unwrap();
            let sub = get(&p, "suboptimality").as_f64().unwrap();
            assert!((sub - (best - reference)).abs() <= 1e-15, "{sub} vs {best} - {reference}");
            assert!(get(&p, "outer_loss").as_f64().unwrap().is_finite());
            if i == 1 {
                assert!(best <= prev);
                prev = best;
            }
        }
        if i == 0 {
            let p = trace.get(0);
            assert_ne!(get(&p, "outer_loss").as_f64().unwrap(), get(&p, "best_outer_loss").as_f64().unwrap());
        }
    }
    // Tolerances of the cubic sequence: 0.1 k^-3.
    let tol = nums(&get(&methods.get(0), "tolerances"));
    assert!(!tol.is_empty());
    for (k, t) in tol.iter().enumerate() {
        let want = (0.1 / ((k + 1) as f64).powi(3)).max(1e-12);
        assert!((t - want).abs() <= 1e-12 * want.max(1.0) + 1e-15, "{k}: {t} vs {want}");
    }
    assert_eq!(nums(&get(&get(&report, "landscape"), "values")).len(), 9);
    let t = types(&events);
    assert_eq!(&t[..2], ["started", "landscape"]);
    assert_eq!(t.iter().filter(|x| *x == "method-done").count(), 2);
    assert_eq!(t.last().map(String::as_str), Some("done"));
}

#[wasm_bindgen_test]
fn hoag_uploads_bad_configs_and_checks() {
    let noop = js_sys::Function::new_no_args("");
    let bad = HOAG.replace(r#""points":5"#, r#""points":1"#);
    let e = js_error(run_kind("hoag", &bad, None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("at least 2 points"), "{}", String::from(e.message()));
    assert!(checked("hoag", &bad).is_err());
    let e = js_error(checked("hoag", r#"{"problem":"ridge"}"#).unwrap_err());
    assert!(String::from(e.message()).contains("ridge"), "{}", String::from(e.message()));
    // An uploaded CSV whose label has three values cannot be a logistic problem: a DataError.
    let mut csv = String::from("a,b,y\n");
    for i in 0..30 {
        csv.push_str(&format!("{},{},{}\n", i, (i * 7) % 5, i % 3));
    }
    let up = r#"{"problem":"logreg","data":{"source":"upload"},"methods":[{"kind":"grid","points":3}],"budget":{"cost":50,"max_iter":3},"landscape_points":0}"#;
    let e = js_error(run_kind("hoag", up, Some(csv.clone()), &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "DataError");
    assert!(String::from(e.message()).contains("exactly two values"), "{}", String::from(e.message()));
    // The same rows with a 0/1 label run.
    let csv01 = csv.replace(",2\n", ",1\n");
    let r = run_kind("hoag", up, Some(csv01), &noop).expect("upload run");
    assert_eq!(get(&r, "n_train").as_f64(), Some(10.0));
    let c = checked("hoag", r#"{"problem":"kernel-ridge"}"#).unwrap();
    assert_eq!(arr(&get(&c, "methods")).length(), 8); // the defaults include the "exact" tolerance sequence
    assert_eq!(get(&c, "eps0").as_f64(), Some(0.1));
}

const LR: &str = r#"{"problem":{"kind":"noisy-quadratic","dim":5,"noise":1.0},"intervals":3,"steps_per_interval":8,
  "records_per_interval":2,"batch":4,"lr_bounds":[0.001,1.0],"constant":2,"decay_starts":1,"decay_factors":[0.1],
  "dynamic":{"enabled":true,"runs":2,"candidates":5,"band_samples":20},"seed":3}"#;

#[wasm_bindgen_test]
fn a_tiny_lr_schedule_run_returns_traces_and_the_tuner_decisions() {
    let (events, cb) = recorder();
    let report = run_kind("lr-schedule", LR, None, cb.as_ref().unchecked_ref()).expect("run");
    let methods = arr(&get(&report, "methods"));
    let names: Vec<String> = methods.iter().map(|m| get(&m, "name").as_string().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert_eq!(names[3], "dynamic GP (Q=2)");
    for m in methods.iter() {
        let trace = arr(&get(&m, "trace"));
        let last = trace.get(trace.length() - 1);
        assert_eq!(get(&last, "step").as_f64(), Some(24.0));
        assert_eq!(get(&m, "final_loss").as_f64(), get(&last, "loss").as_f64());
        assert!(trace.iter().all(|p| get(&p, "lr").as_f64().unwrap() > 0.0));
    }
    let dynamic = get(&report, "dynamic");
    assert_eq!(arr(&get(&dynamic, "decisions")).length(), 2);
    assert_eq!(arr(&get(&dynamic, "predicted_bands")).length(), arr(&get(&dynamic, "boundary_steps")).length());
    let t = types(&events);
    assert_eq!(t.iter().filter(|x| *x == "interval-done").count(), 3);
    assert_eq!(t.iter().filter(|x| *x == "method-done").count(), 4);
    assert_eq!(t.last().map(String::as_str), Some("done"));
}

#[wasm_bindgen_test]
fn lr_schedule_cancel_bad_configs_and_checks() {
    let stop =
        js_sys::Function::new_with_args("e", "return e.type === 'progress' && e.detail.type === 'interval-done';");
    assert_eq!(run_status("lr-schedule", LR, &stop), "stopped");
    let throws = js_sys::Function::new_with_args(
        "e",
        "if (e.type === 'progress' && e.detail.type === 'started') throw new RangeError('observer bug');",
    );
    let e = js_error(run_kind("lr-schedule", LR, None, &throws).unwrap_err());
    assert_eq!(String::from(e.name()), "RangeError");
    let noop = js_sys::Function::new_no_args("");
    let bad = LR.replace(r#""runs":2"#, r#""runs":1"#);
    let e = js_error(run_kind("lr-schedule", &bad, None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(
        String::from(e.message()).contains("dynamic.runs (Q) must be between 2 and 64"),
        "{}",
        String::from(e.message())
    );
    let e = js_error(checked("lr-schedule", &LR.replace("[0.1]", "[1.5]")).unwrap_err());
    assert!(String::from(e.message()).contains("decay_factors"), "{}", String::from(e.message()));
    let p = tunelab_wasm::preset("lr-schedule", "digits").unwrap();
    let c = get(&tunelab_wasm::check(p).unwrap(), "config");
    assert_eq!(get(&get(&c, "problem"), "kind").as_string().as_deref(), Some("mlp"));
    assert_eq!(get(&c, "intervals").as_f64(), Some(10.0));
}

const STEP: &str = r#"{"data":{"n":120,"d":2},"sampler":{"kind":"sgld","batch":0.2},"log10_step":[-5.0,-2.0],
  "windows":5,"window_iters":40,"fixed_log10_steps":[-4.0,-3.0],"seed":4}"#;

#[wasm_bindgen_test]
fn a_tiny_step_size_run_streams_windows_and_compares_fixed_steps() {
    let (events, cb) = recorder();
    let report = run_kind("step-size", STEP, None, cb.as_ref().unchecked_ref()).expect("run");
    let gp = get(&report, "gp_ucb");
    let steps = nums(&get(&gp, "steps"));
    assert_eq!(steps.len(), 5);
    // Every chosen step lies in the searched box 10^[-5, -2].
    assert!(steps.iter().all(|h| (1e-5 * (1.0 - 1e-9)..=1e-2 * (1.0 + 1e-9)).contains(h)), "{steps:?}");
    let fixed = arr(&get(&report, "fixed"));
    assert_eq!(fixed.length(), 2);
    for (f, h) in fixed.iter().zip([1e-4, 1e-3]) {
        assert!(nums(&get(&f, "steps")).iter().all(|s| (s - h).abs() < 1e-15));
    }
    let t = types(&events);
    assert_eq!(t.first().map(String::as_str), Some("fixed-done"));
    assert_eq!(t.iter().filter(|x| *x == "window").count(), 5);
    assert_eq!(t.last().map(String::as_str), Some("done"));
    // Defaults are filled in; a bad window count is a ConfigError with the core's message.
    let d = get(&tunelab_wasm::check(json(r#"{"kind":"step-size"}"#)).unwrap(), "config");
    assert_eq!(get(&d, "windows").as_f64(), Some(40.0));
    let noop = js_sys::Function::new_no_args("");
    let e =
        js_error(run_kind("step-size", &STEP.replace(r#""windows":5"#, r#""windows":2"#), None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "ConfigError");
    assert!(String::from(e.message()).contains("windows must be in 3..=10000"), "{}", String::from(e.message()));
    let stop = js_sys::Function::new_with_args("e", "return e.type === 'progress' && e.detail.type === 'window';");
    assert_eq!(run_status("step-size", STEP, &stop), "stopped");
}

const HOAG_DIABETES: &str = r#"{"problem":"kernel-ridge","data":{"source":"diabetes"},
  "methods":[{"kind":"grid","points":3}],"budget":{"cost":60,"max_iter":3},"landscape_points":0,"seed":5}"#;

/// The shipped data sets are not compiled into the wasm build (113 KB of its gzip): a config names
/// the files it reads, a run before they are loaded is a DataError naming the file, and after `load_data` (the
/// worker's fetch of the site's data/) it runs; a file the core does not know is refused.
#[wasm_bindgen_test]
fn shipped_data_is_loaded_by_the_host_not_compiled_in() {
    let cfg = with_kind("hoag", HOAG_DIABETES);
    assert_eq!(tunelab_wasm::needs_data(cfg.clone()).unwrap(), vec!["diabetes.csv".to_string()]);
    assert!(tunelab_wasm::needs_data(with_kind("hoag", HOAG)).unwrap().is_empty(), "simulated data reads no file");
    let noop = js_sys::Function::new_no_args("");
    let e = js_error(run_kind("hoag", HOAG_DIABETES, None, &noop).unwrap_err());
    assert_eq!(String::from(e.name()), "DataError");
    assert!(String::from(e.message()).contains("diabetes.csv is not loaded"), "{}", String::from(e.message()));
    let e = js_error(tunelab_wasm::load_data("iris.csv", "a,y\n1,0\n".into()).unwrap_err());
    assert!(String::from(e.message()).contains("unknown shipped data file iris.csv"), "{}", String::from(e.message()));
    tunelab_wasm::load_data("diabetes.csv", include_str!("../../../../data/diabetes.csv").into()).expect("load");
    assert!(tunelab_wasm::needs_data(cfg).unwrap().is_empty());
    let report = run_kind("hoag", HOAG_DIABETES, None, &noop).expect("run after load");
    assert_eq!(get(&report, "n_features").as_f64(), Some(10.0));
}
