//! Strict configs (issue 27, src/strict.rs): every field of every preset of every kind, misspelt by one letter,
//! is refused with its JSON path and the right name; value errors name their field; correct configs, reports
//! and the configs the project ships still parse.

use serde_json::{json, Value};
use tunelab::experiments::{ExperimentConfig, Kind};

fn parse(v: &Value) -> Result<ExperimentConfig, String> {
    ExperimentConfig::from_value(&mut v.clone(), None).map_err(|e| e.to_string())
}

/// `a.b[0].c` (as the errors show paths).
fn dotted(path: &[String]) -> String {
    let mut s = String::new();
    for p in path {
        if p.starts_with('[') || s.is_empty() {
            s.push_str(p);
        } else {
            s.push('.');
            s.push_str(p);
        }
    }
    s
}

/// Every object key at every depth: (path of its object, key).
fn keys(v: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                out.push((path.clone(), k.clone()));
                path.push(k.clone());
                keys(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(format!("[{i}]"));
                keys(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, p| match p.strip_prefix('[') {
        Some(i) => &mut v[i.trim_end_matches(']').parse::<usize>().unwrap()],
        None => &mut v[p.as_str()],
    })
}

/// One-letter misspellings of `key`: a middle letter dropped, a letter doubled.
fn misspellings(key: &str) -> Vec<String> {
    let c: Vec<char> = key.chars().collect();
    let mut out = Vec::new();
    if c.len() >= 3 {
        let mut d = c.clone();
        d.remove(c.len() / 2);
        out.push(d.into_iter().collect());
    }
    let mut d = c.clone();
    d.insert(c.len() / 2, c[c.len() / 2]);
    out.push(d.into_iter().collect());
    out
}

#[test]
fn every_field_of_every_preset_misspelt_is_refused_with_its_path_and_name() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for kind in Kind::ALL {
        for name in ExperimentConfig::preset_names(kind) {
            let cfg = ExperimentConfig::preset(kind, name).unwrap();
            let v = serde_json::to_value(&cfg).unwrap();
            assert_eq!(parse(&v).as_ref(), Ok(&cfg), "{kind:?}/{name} reads back");
            let mut all = Vec::new();
            keys(&v, &mut Vec::new(), &mut all);
            for (parent, key) in all {
                for typo in misspellings(&key) {
                    let mut bad = v.clone();
                    let obj = get_mut(&mut bad, &parent).as_object_mut().unwrap();
                    if obj.contains_key(&typo) {
                        continue; // another field of the same object
                    }
                    let value = obj.remove(&key).unwrap();
                    obj.insert(typo.clone(), value);
                    let path = dotted(&[parent.clone(), vec![typo.clone()]].concat());
                    checked += 1;
                    match parse(&bad) {
                        Ok(_) => failures.push(format!("{kind:?}/{name}: `{path}` (for `{key}`) accepted")),
                        Err(e) if e.contains(&format!("`{path}`")) && e.contains(&format!("did you mean `{key}`")) => {}
                        Err(e) => failures.push(format!("{kind:?}/{name}: `{path}` (for `{key}`): {e}")),
                    }
                }
            }
        }
    }
    eprintln!("{checked} misspellings refused with their path and name");
    assert!(checked > 500, "{checked} misspellings");
    assert!(failures.is_empty(), "{} of {checked} misspellings:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_issue_examples() {
    let mut tune = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    tune["tuner"] = json!({"kind": "mamba", "etta": 5});
    let e = parse(&tune).unwrap_err();
    assert!(e.contains("`tuner.etta`: unknown field; did you mean `eta`?"), "{e}");
    let mut tune = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    tune["sampler"] = json!({"kind": "sghmc", "frcition": 0.5});
    let e = parse(&tune).unwrap_err();
    assert!(e.contains("`sampler.frcition`: unknown field; did you mean `friction`?"), "{e}");
    // the same in a compare config, which flattens the tune config
    let mut cmp = serde_json::to_value(ExperimentConfig::preset(Kind::Compare, "demo").unwrap()).unwrap();
    cmp["tuner"] = json!({"kind": "mamba", "etta": 5});
    let e = parse(&cmp).unwrap_err();
    assert!(e.contains("`tuner.etta`: unknown field; did you mean `eta`?"), "{e}");
    // several unknown fields: each is named
    let mut two = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    two["sed"] = json!(3);
    two["tuner"] = json!({"kind": "mamba", "etta": 5});
    let e = parse(&two).unwrap_err();
    assert!(e.contains("`sed`: unknown field; did you mean `seed`?") && e.contains("`tuner.etta`"), "{e}");
    // a name far from every field lists the known ones
    let mut far = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    far["tuner"] = json!({"kind": "mamba", "zzzzzz": 5});
    let e = parse(&far).unwrap_err();
    assert!(e.contains("`tuner.zzzzzz`: unknown field") && e.contains("`eta`"), "{e}");
}

#[test]
fn value_errors_name_their_field() {
    let demo = || serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
    let cases: Vec<(&str, Value, &str)> = vec![
        ("seed", json!("1000"), "`seed`: invalid type: string \"1000\", expected a whole number (0 or more)"),
        ("thin", json!(-2), "`thin`: invalid value: integer `-2`"),
    ];
    for (key, value, want) in cases {
        let mut v = demo();
        v[key] = value;
        let e = parse(&v).unwrap_err();
        assert!(e.contains(want), "{key}: {e}");
    }
    // inside a tagged part (serde buffers it): found by the value the message quotes
    let mut v = demo();
    v["tuner"] = json!({"kind": "mamba", "eta": "5"});
    let e = parse(&v).unwrap_err();
    assert!(e.contains("`tuner.eta`: invalid type: string \"5\""), "{e}");
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Compare, "demo").unwrap()).unwrap();
    v["seed"] = json!("1000");
    let e = parse(&v).unwrap_err();
    assert!(e.contains("`seed`: invalid type: string \"1000\""), "{e}");
    // an unknown variant gets the nearest name
    let mut v = demo();
    v["tuner"] = json!({"kind": "mamab"});
    let e = parse(&v).unwrap_err();
    assert!(e.contains("`tuner.kind`: unknown variant `mamab`") && e.contains("did you mean `mamba`?"), "{e}");
    // a required field left out of the whole document: no path to name
    let e = parse(&json!({"kind": "hoag"})).unwrap_err();
    assert!(e.contains("config: missing field `problem`"), "{e}");
    // the top-level kind misspelt
    let mut v = demo();
    let k = v.as_object_mut().unwrap().remove("kind").unwrap();
    v["knd"] = k;
    let e = parse(&v).unwrap_err();
    assert!(e.contains("`knd`: unknown field; did you mean `kind`?"), "{e}");
}

#[test]
fn reports_and_partial_configs_still_parse() {
    // a per-kind document without `kind`, with defaults left out
    let v = ExperimentConfig::from_json(r#"{"problem":"logreg"}"#, Some(Kind::Hoag)).unwrap();
    assert_eq!(v.kind(), Kind::Hoag);
    let e = ExperimentConfig::from_json(r#"{"problem":"logreg","sede":1}"#, Some(Kind::Hoag)).unwrap_err().to_string();
    assert!(e.contains("`sede`: unknown field; did you mean `seed`?"), "{e}");
    // a report envelope stands for its config: its own keys are not fields
    let cfg = ExperimentConfig::preset(Kind::Tune, "demo").unwrap();
    let report = json!({"kind": "tune", "status": "complete", "config": cfg, "compute": {"wall_seconds": 1.0}, "result": {"x": 1}});
    assert_eq!(parse(&report).unwrap(), cfg);
    // ... but its config is strict
    let mut bad = report.clone();
    bad["config"]["tuner"]["etta"] = json!(5);
    let e = parse(&bad).unwrap_err();
    assert!(e.contains("`tuner.etta`"), "{e}");
}

/// Every JSON file under docs/, tests/, data/ and examples/ that is a config (has a `kind` the core knows) or
/// a report of one parses strictly.
#[test]
fn shipped_configs_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && !p.ends_with("node_modules") {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    for d in ["docs", "tests", "data", "examples"] {
        walk(&root.join(d), &mut files);
    }
    let (mut read, mut failed) = (0, Vec::new());
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
        let cfg = if v.get("status").is_some() { &v["config"] } else { &v };
        if cfg.get("kind").and_then(Value::as_str).is_none_or(|k| Kind::parse(k).is_err()) {
            continue;
        }
        read += 1;
        if let Err(e) = parse(&v) {
            failed.push(format!("{}: {e}", f.display()));
        }
    }
    eprintln!("{read} config or report files parsed");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn an_eta_below_2_is_refused_at_parse_time_with_its_path() {
    let want = "invalid value: integer `1`, expected a reduction factor eta >= 2";
    // tune, and compare (which flattens the tune config: the value is found among the whole document's leaves)
    for kind in [Kind::Tune, Kind::Compare] {
        let mut v = serde_json::to_value(ExperimentConfig::preset(kind, "demo").unwrap()).unwrap();
        v["tuner"] = json!({"kind": "mamba", "eta": 1});
        let e = parse(&v).unwrap_err();
        assert!(e.contains(&format!("`tuner.eta`: {want}")), "{kind:?}: {e}");
    }
    // the bandit kind's successive halving and Hyperband
    for algo in ["successive-halving", "hyperband"] {
        let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Bandit, "beta-reservoir").unwrap()).unwrap();
        v["algorithms"] = json!([{"kind": "uniform"}, {"kind": algo, "eta": 1}]);
        let e = parse(&v).unwrap_err();
        assert!(e.contains(&format!("`algorithms[1].eta`: {want}")), "{algo}: {e}");
    }
}

/// A held-out metric the run could not compute is refused when the config is checked, not when the first arm is
/// scored: log-loss or accuracy on a model without data, accuracy on a model that is not a classifier.
#[test]
fn a_held_out_metric_the_model_cannot_give_is_refused_at_check() {
    let check = |model: Value, metric: &str| -> Result<(), String> {
        let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "demo").unwrap()).unwrap();
        v["model"] = model;
        v["metric"] = json!({"kind": metric});
        parse(&v)?.check().map(|_| ()).map_err(|e| e.to_string())
    };
    let e = check(json!({"kind": "gaussian", "d": 2}), "log-loss").unwrap_err();
    assert!(e.contains("a `gaussian` model has no data") && e.contains("choose a Stein metric"), "{e}");
    let e = check(json!({"kind": "banana"}), "accuracy").unwrap_err();
    assert!(e.contains("a `banana` model has no data"), "{e}");
    let e = check(json!({"kind": "linear"}), "accuracy").unwrap_err();
    assert!(e.contains("needs a classifier") && e.contains("`linear`"), "{e}");
    check(json!({"kind": "linear"}), "log-loss").unwrap();
    check(json!({"kind": "logistic"}), "accuracy").unwrap();
}
