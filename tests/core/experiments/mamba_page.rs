//! The page's reduced versions of the paper's three tables (issue 12: "the page runs reduced versions"): the
//! `*-page` presets are smaller than the native ones and fit the threaded page's 1 GiB memory, their
//! comparisons run the right tuners, the paper's error xi is what the report says, and a PMF model's uploaded
//! file is read as ratings (user,item,rating) with typed errors.

use std::sync::atomic::AtomicBool;
use tunelab::experiments::compare::xi_error;
use tunelab::experiments::sgmcmc;
use tunelab::experiments::tune::{self, DataSource};
use tunelab::experiments::{DataFormat, ExperimentConfig, Inputs, Kind, Output};

#[test]
fn xi_is_the_relative_euclidean_norm_of_the_std_error() {
    // sd_hat = 1.1 sd: xi = 0.1 whatever sd is.
    let sd = [0.03, 0.5, 2.0];
    let hat: Vec<f64> = sd.iter().map(|s| 1.1 * s).collect();
    assert!((xi_error(&hat, &sd) - 0.1).abs() < 1e-12);
    // One coordinate off by 3 of a (3, 4) vector: ||(3, 0)|| / ||(3, 4)|| = 0.6.
    assert!((xi_error(&[6.0, 4.0], &[3.0, 4.0]) - 0.6).abs() < 1e-12);
    assert_eq!(xi_error(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
}

#[test]
fn page_presets_are_reduced_versions_inside_the_page_memory() {
    let native = |n: &str| tune::presets::preset(n).unwrap();
    for (page, full) in [("paper-logreg-page", "paper-logreg"), ("mnist-bnn-page", "mnist-bnn"), ("pmf-page", "pmf")] {
        let (p, f) = (native(page), native(full));
        let r = |c: &tune::TuneConfig| c.budget.grad_evals.unwrap();
        assert!(r(&p) < r(&f), "{page}: budget {} not below {}", r(&p), r(&f));
        // The same grid and tuner: only sizes are reduced.
        assert_eq!(p.arms, f.arms, "{page}");
        assert_eq!(p.tuner, f.tuner, "{page}");
        // The threaded page's memory is capped at 1 GiB (wasm-threads.toml); the estimate (an upper bound:
        // mnist-bnn-page 663 MB) must leave room.
        let est = p.memory_estimate(None).total();
        assert!(est < 0.75 * 1024.0 * 1024.0 * 1024.0, "{page}: {est} bytes");
        assert!(est < f.memory_estimate(None).total(), "{page}");
    }
    let cmp = |n: &str| match ExperimentConfig::preset(Kind::Compare, n).unwrap() {
        ExperimentConfig::Compare(c) => c,
        _ => unreachable!(),
    };
    // Table 1 keeps all five tuners and an exact reference (for xi); Tables 2-3 run three tuners, no reference.
    let t1 = cmp("paper-logreg-page");
    assert!(t1.reference_samples > 0 && t1.tuners.is_empty());
    for n in ["mnist-bnn-page", "pmf-page"] {
        let c = cmp(n);
        assert_eq!(c.reference_samples, 0, "{n}");
        assert_eq!(c.tuners, ["MAMBA-KSD", "grid (log-loss)", "heuristic"], "{n}");
    }
    assert!(matches!(native("pmf-page").data.source, DataSource::SimulateRatings { .. }));
    assert!(matches!(native("mnist-bnn-page").data.source, DataSource::Mnist { per_class: Some(_), pool: 2 }));
}

#[test]
fn the_reports_xi_is_the_chosen_arms_std_against_the_reference() {
    // A small comparison on the data-free Gaussian (d = 2), MAMBA-KSD and the heuristic, 300 MALA draws.
    let mut base = tune::presets::preset("gaussian").unwrap();
    base.budget = tune::BudgetSpec { iterations: Some(2_000.0), ..Default::default() };
    let json = serde_json::json!({"kind": "compare", "reference_samples": 300, "tuners": ["MAMBA-KSD", "heuristic"]});
    let mut v = serde_json::to_value(&base).unwrap();
    v.as_object_mut().unwrap().extend(json.as_object().unwrap().clone());
    let checked = ExperimentConfig::from_json(&v.to_string(), None).unwrap().check().unwrap();
    let rep = checked.run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let Some(Output::Compare(c)) = rep.result else { panic!("a comparison") };
    let reference = c.reference.as_ref().expect("a reference");
    assert_eq!(c.entries.len(), 2);
    // The evaluation is a fresh chain from the MAP (the default): xi is its sds' error.
    let ExperimentConfig::Compare(cc) = ExperimentConfig::from_json(&v.to_string(), None).unwrap() else { panic!() };
    let problem = sgmcmc::Posterior::build(&cc.base, None).unwrap();
    let plan = cc.evaluation.resolve(&cc.base).expect("a fresh run");
    for e in &c.entries {
        let best = e.report.best.as_ref().expect("a chosen arm");
        let xi = e.evaluation.xi.expect("xi with a reference");
        let (_, _, moments) = tunelab::experiments::compare::fresh_chain(
            &problem,
            &e.report.config,
            best,
            &plan,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(xi, xi_error(&moments.std(), &reference.std), "{}", e.name);
        assert_ne!(xi, xi_error(&best.posterior.std, &reference.std), "{}: not the tuning chain's", e.name);
        assert!(xi.is_finite() && xi >= 0.0);
    }
    // Serialised for the page as `evaluation.xi`.
    let text = serde_json::to_value(&c).unwrap();
    assert!(text["entries"][0]["evaluation"]["xi"].is_f64());
}

#[test]
fn an_uploaded_file_of_a_pmf_config_is_read_as_ratings() {
    let mut cfg = tune::presets::preset("pmf-page").unwrap();
    cfg.data.source = DataSource::Upload { name: "u.data".into() };
    let checked = ExperimentConfig::Tune(cfg.clone()).check().unwrap();
    let req = checked.data_request().expect("an upload");
    assert_eq!(req.format, DataFormat::Ratings);
    // MovieLens u.data: tab-separated user, item, rating, timestamp; ids from 1.
    let ds = req.parse("196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n").unwrap();
    assert_eq!((ds.n, ds.p), (3, 2));
    assert_eq!(&ds.x[..2], &[195.0, 241.0]);
    assert_eq!(ds.y, vec![3.0, 3.0, 1.0]);
    // Typed errors name the line.
    let e = req.parse("user,item,rating\n1,2,4\n1,x,3\n").unwrap_err();
    assert!(matches!(&e, tunelab::Error::Data(m) if m.contains("line 3") && m.contains("item")), "{e}");
    // A logistic config's upload stays a labelled table.
    let mut logit = tune::presets::preset("demo").unwrap();
    logit.data.source = DataSource::Upload { name: String::new() };
    let req = ExperimentConfig::Tune(logit).check().unwrap().data_request().unwrap();
    assert_eq!(req.format, DataFormat::Csv);
}
