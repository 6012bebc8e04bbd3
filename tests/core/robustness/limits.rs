//! The stated limits (src/limits.rs, README "Limits"): each is refused up front with a message that states
//! the number, and the built-in presets stay well inside them.

use tunelab::data::{parse_csv, read_matrix_csv, CsvOptions};
use tunelab::experiments::{ExperimentConfig, Kind};
use tunelab::limits::{self, MAX_ARMS, MAX_COLUMNS, MAX_CSV_BYTES, MAX_ROWS};
use tunelab::Error;

fn data_err<T: std::fmt::Debug>(r: tunelab::Result<T>) -> String {
    match r {
        Err(Error::Data(m)) => m,
        other => panic!("expected a data error, got {other:?}"),
    }
}

fn config_err(json: &str) -> String {
    match ExperimentConfig::from_json(json, None).and_then(|c| c.check()) {
        Err(Error::Config(m)) => m,
        Err(e) => panic!("expected a config error for {json}, got {e:?}"),
        Ok(_) => panic!("the config was accepted: {json}"),
    }
}

#[test]
fn csv_files_over_the_byte_limit_are_refused_before_parsing() {
    let text = format!("a,y\n{}", "1".repeat(MAX_CSV_BYTES));
    let m = data_err(parse_csv(&text, &CsvOptions::default()));
    assert!(m.contains("104,857,600 bytes") && m.contains("100 MiB"), "{m}");
    let m = data_err(read_matrix_csv(&text));
    assert!(m.contains("104,857,600 bytes"), "{m}");
}

#[test]
fn csv_rows_columns_and_cells_are_limited() {
    let mut text = String::from("a,y\n");
    for _ in 0..=MAX_ROWS {
        text.push_str("1,0\n");
    }
    let m = data_err(parse_csv(&text, &CsvOptions::default()));
    assert!(m.contains("1,000,001 data rows") && m.contains("limited to 1,000,000 rows"), "{m}");
    let header: Vec<String> = (0..MAX_COLUMNS).map(|j| format!("x{j}")).chain(["y".into()]).collect();
    let row = vec!["0"; MAX_COLUMNS + 1].join(",");
    let text = format!("{}\n{row}\n{row}\n", header.join(","));
    let m = data_err(parse_csv(&text, &CsvOptions::default()));
    assert!(m.contains("10,001 columns") && m.contains("limited to 10,000 columns"), "{m}");
    let m = data_err(limits::check_csv_shape(10_001, 5_000));
    assert!(m.contains("50,005,000 numbers") && m.contains("limited to 50,000,000 numbers"), "{m}");
    // At the limits themselves: accepted.
    limits::check_csv_shape(MAX_ROWS, 50).unwrap();
    limits::check_csv_shape(5_000, MAX_COLUMNS).unwrap();
}

/// A tune config from the demo preset with some fields replaced.
fn tune_json(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "paper-logreg").unwrap()).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn arm_grids_over_the_limit_are_refused_by_check() {
    // 5,001 step sizes x 3 batch sizes = 15,003 arms.
    let json = tune_json(|v| {
        v["arms"]["log10_step"] = serde_json::json!({"from": -5.0, "to": 0.0, "by": 0.001});
        v["arms"]["batch"] = serde_json::json!([0.1, 0.2, 0.3]);
    });
    let m = config_err(&json);
    assert!(m.contains("15,003 arms") && m.contains(&format!("at most {} arms", limits::thousands(MAX_ARMS))), "{m}");
    // Random search with a billion arms (would allocate them all).
    let json = tune_json(|v| v["tuner"] = serde_json::json!({"kind": "random", "arms": 1_000_000_000u64}));
    let m = config_err(&json);
    assert!(m.contains("1,000,000,000 arms") && m.contains("at most 10,000 arms"), "{m}");
    // The same grid through a comparison.
    let json = tune_json(|v| {
        v["kind"] = "compare".into();
        v["arms"]["log10_step"] = serde_json::json!({"from": -5.0, "to": 0.0, "by": 0.001});
        v["arms"]["batch"] = serde_json::json!([0.1, 0.2, 0.3]);
    });
    assert!(config_err(&json).contains("at most 10,000 arms"));
}

#[test]
fn absurd_budgets_are_refused_by_check() {
    let json = tune_json(|v| v["budget"] = serde_json::json!({"grad_evals": 1e13}));
    let m = config_err(&json);
    assert!(m.contains("grad-evals") && m.contains("at most 1e12 gradient evaluations"), "{m}");
    let json = tune_json(|v| v["budget"] = serde_json::json!({"seconds": 86_400.0}));
    let m = config_err(&json);
    assert!(m.contains("at most 86,400 seconds (one day)"), "{m}");
    let json = tune_json(|v| v["budget"] = serde_json::json!({"iterations": 1e12}));
    assert!(config_err(&json).contains("at most 1e10 iterations"));
}

#[test]
fn configs_whose_memory_estimate_is_over_the_limit_are_refused_by_check() {
    // 10^4 simulated rows x 5,000 features is allowed data (400 MB), but the samples the 56 arms hold in
    // 5,000 dimensions (the driver's streaming bound, about 320 MB per arm) are not.
    let json = tune_json(|v| {
        v["data"] = serde_json::json!({"source": "simulate", "n": 10_000, "d": 5_000, "seed": 1});
        v["budget"] = serde_json::json!({"iterations": 1e6});
        v["thin"] = 1.into();
    });
    let m = config_err(&json);
    assert!(m.contains("the limit is 2048 MiB") && m.contains("kept samples"), "{m}");
    // A Gaussian target of dimension 20,000 (its d x d matrices alone are about 9 GiB).
    let json = serde_json::to_value(ExperimentConfig::preset(Kind::Tune, "gaussian").unwrap()).unwrap();
    let mut json = json;
    json["model"]["d"] = 20_000.into();
    let m = config_err(&json.to_string());
    assert!(m.contains("the limit is 2048 MiB") && m.contains("Gaussian target"), "{m}");
}

#[test]
fn every_preset_is_inside_the_limits() {
    for kind in Kind::ALL {
        for name in ExperimentConfig::preset_names(kind) {
            ExperimentConfig::preset(kind, name)
                .unwrap()
                .check()
                .unwrap_or_else(|e| panic!("{} {name}: {e}", kind.name()));
        }
    }
    for name in tunelab::experiments::tune::presets::PRESETS {
        let cfg = tunelab::experiments::tune::presets::preset(name).unwrap();
        // digits-bnn is the largest (the driver streams samples: each arm holds a bounded buffer).
        let est = cfg.memory_estimate(None).total();
        assert!(est > 0.0 && est < limits::MAX_MEMORY_BYTES, "{name}: {est} bytes");
    }
}

#[test]
fn kernel_ridge_on_a_file_too_large_for_its_kernel_matrices_is_refused_before_building() {
    let mut v = serde_json::to_value(ExperimentConfig::preset(Kind::Hoag, "kernel-ridge").unwrap()).unwrap();
    v["data"] = serde_json::json!({"source": "upload"});
    let checked = ExperimentConfig::from_json(&v.to_string(), None).unwrap().check().unwrap();
    let n = 40_000;
    let ds = tunelab::data::Dataset::new((0..n).map(|i| i as f64).collect(), vec![0.5; n], 1, None, "y").unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let r = checked.run(tunelab::experiments::Inputs { data: Some(ds), ..Default::default() }, &mut |_| {}, &stop);
    match r {
        Err(Error::Config(m)) => assert!(m.contains("the limit is 2048 MiB") && m.contains("kernel ridge"), "{m}"),
        other => panic!("expected a config error, got {:?}", other.map(|r| r.status)),
    }
}

#[test]
fn bandit_and_step_size_configs_whose_memory_estimate_is_over_the_limit_are_refused_by_check() {
    // GP-UCB over a million rounds would hold three 10^6 x 10^6 matrices per running repeat.
    let m = config_err(
        r#"{"kind":"bandit","problem":{"kind":"function","function":"branin"},"algorithms":[{"kind":"gp-ucb"}],"rounds":1000000,"repeats":2,"seed":1}"#,
    );
    assert!(m.contains("the limit is 2048 MiB") && m.contains("GP-UCB"), "{m}");
    // The same round count without a GP is only pull histories: 2 x 2 x 1e6 x 4 floats = 128 MB, accepted.
    let ok = ExperimentConfig::from_json(
        r#"{"kind":"bandit","problem":{"kind":"bernoulli","means":[0.2,0.5]},"algorithms":[{"kind":"ttts"}],"rounds":1000000,"repeats":2,"seed":1}"#,
        None,
    );
    assert!(ok.unwrap().check().is_ok());
    // A step-size run on a simulated data set of 10^9 rows.
    let m = config_err(r#"{"kind":"step-size","data":{"n":1000000000,"d":10},"seed":1}"#);
    assert!(m.contains("the limit is 2048 MiB") && m.contains("simulated data"), "{m}");
    let m = config_err(r#"{"kind":"step-size","data":{"n":200,"d":2},"windows":10000,"seed":1}"#);
    assert!(m.contains("GP over windows"), "{m}");
}

#[test]
fn fssd_opt_dense_fit_is_counted_in_the_estimate_only_where_it_is_dense() {
    // Issue 17: the pmf comparison (d = 52,500) was accepted by the estimate and then asked for a 22 GB d x d
    // covariance in MAMBA-FSSD's location fit. Above FIT_DENSE_MAX_D the fit is low rank (O(n d)); below it
    // the estimate counts its three d x d matrices.
    use tunelab::experiments::sgmcmc::config::MetricKind;
    use tunelab::model::ModelSpec;
    use tunelab::stein::fssd::FIT_DENSE_MAX_D;
    let part =
        |est: &limits::MemoryEstimate| est.parts.iter().find(|p| p.0.contains("FSSD-opt location fit")).map(|p| p.1);
    let base = tunelab::experiments::tune::presets::preset("pmf").unwrap();
    for (name, cfg) in tunelab::experiments::compare::paper_tuners(&base) {
        let est = cfg.memory_estimate(None);
        assert!(part(&est).is_none(), "{name}: {:?}", est.parts);
        assert!(est.total() < limits::MAX_MEMORY_BYTES, "{name}: {:?}", est.parts);
        cfg.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        // The README's estimates (`-- --nocapture`): the preset's budget and the measured runs' 2e5.
        let mut small_budget = cfg.clone();
        small_budget.budget.grad_evals = Some(2e5);
        eprintln!(
            "pmf {name}: estimate {:.0} MB (grad_evals 1e7), {:.0} MB (2e5)",
            est.total() / 1e6,
            small_budget.memory_estimate(None).total() / 1e6
        );
    }
    // The same comparison with 100 users and 100 items (d = 4,000 <= FIT_DENSE_MAX_D): the dense fit is counted.
    let mut small = base.clone();
    small.model = serde_json::from_str(r#"{"kind":"pmf","latent":20,"users":100,"items":100}"#).unwrap();
    assert!(matches!(small.model, ModelSpec::Pmf { .. }));
    let tuners = tunelab::experiments::compare::paper_tuners(&small);
    let (_, fssd) = tuners.iter().find(|t| matches!(t.1.metric.kind, MetricKind::FssdOpt { .. })).unwrap();
    let d = 4000.0;
    assert!(d as usize <= FIT_DENSE_MAX_D);
    assert_eq!(part(&fssd.memory_estimate(None)), Some(3.0 * d * d * 8.0));
}
