//! Tuning framework tests (issue 3): schedule, warm starts, pruning, divergence, cancel, determinism,
//! accuracy on a known posterior, and config errors.

use crate::common::contract;
use std::sync::atomic::{AtomicBool, Ordering};
use tunelab::error::Error;
use tunelab::experiments::sgmcmc;
use tunelab::experiments::sgmcmc::{mamba_schedule, Posterior};
use tunelab::experiments::tune::TuneExperiment;
use tunelab::experiments::tune::{self, presets, ArmStatus, Event, TuneConfig};
use tunelab::rng;
use tunelab::sampler::{Budget, Chain, SamplerKind, SamplerParams};

fn quiet() -> impl FnMut(&Event) {
    |_e: &Event| {}
}

fn gaussian_cfg() -> TuneConfig {
    let mut c = presets::preset("gaussian").unwrap();
    c.budget = tune::BudgetSpec { iterations: Some(6_000.0), ..Default::default() };
    c
}

#[test]
fn schedule_matches_hand_derivation() {
    // (M, eta) -> arms per round, per-arm budget per round as multiples of r0, and 1 + eta + ... = R / r0.
    let cases: &[(usize, usize, &[usize], f64)] = &[
        (4, 2, &[4, 2], 3.0),               // 4 -> 2 -> 1 ; r0 (1 + 2) = R
        (4, 3, &[4], 1.0),                  // floor(log_3 4) = 1 round; best of 4
        (12, 2, &[12, 6, 3], 7.0),          // floor(log_2 12) = 3
        (12, 3, &[12, 4], 4.0),             // 12 -> 4 -> 1
        (16, 2, &[16, 8, 4, 2], 15.0),      // 16 -> 8 -> 4 -> 2 -> 1
        (16, 3, &[16, 5], 4.0),             // 16 -> 5 -> 1
        (27, 2, &[27, 13, 6, 3], 15.0),     // floor(log_2 27) = 4
        (27, 3, &[27, 9, 3], 13.0),         // 27 -> 9 -> 3 -> 1
        (56, 2, &[56, 28, 14, 7, 3], 31.0), // floor(log_2 56) = 5
        (56, 3, &[56, 18, 6], 13.0),        // 56 -> 18 -> 6 -> 2 (best of the 2 by last score)
    ];
    let r = 1.3e7;
    for &(m, eta, arms, denom) in cases {
        let plan = mamba_schedule(m, tune::Eta::new(eta).unwrap(), r);
        let got: Vec<usize> = plan.iter().map(|p| p.arms).collect();
        assert_eq!(got, arms, "arms per round for M = {m}, eta = {eta}");
        let r0 = r / denom;
        for (i, p) in plan.iter().enumerate() {
            let want = r0 * (eta as f64).powi(i as i32);
            assert!(
                (p.budget - want).abs() < 1e-6 * want,
                "budget of round {i} for M = {m}, eta = {eta}: {} vs {want}",
                p.budget
            );
            assert_eq!(p.keep, (p.arms / eta).max(1));
        }
        let total: f64 = plan.iter().map(|p| p.budget).sum();
        assert!((total - r).abs() < 1e-6 * r, "the surviving arm uses exactly R");
    }
}

#[test]
fn mamba_prunes_the_worst_and_survivor_gets_r() {
    let cfg = gaussian_cfg();
    let rep = contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap();
    // 9 arms, eta 3 -> 9 -> 3 -> 1
    assert_eq!(rep.rounds.iter().map(|r| r.arms.len()).collect::<Vec<_>>(), vec![9, 3]);
    for r in 0..rep.rounds.len() {
        let ran: Vec<&tune::ArmReport> = rep.arms.iter().filter(|a| a.scores.len() > r).collect();
        let kept: Vec<f64> =
            ran.iter().filter(|a| a.pruned_round != Some(r)).map(|a| a.scores[r].unwrap_or(f64::INFINITY)).collect();
        let pruned: Vec<f64> =
            ran.iter().filter(|a| a.pruned_round == Some(r)).map(|a| a.scores[r].unwrap_or(f64::INFINITY)).collect();
        let worst_kept = kept.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let best_pruned = pruned.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(worst_kept <= best_pruned, "round {r}: kept {kept:?} pruned {pruned:?}");
    }
    let best = rep.best.as_ref().unwrap();
    let b = rep.arms.iter().find(|a| a.info.id == best.arm).unwrap();
    assert_eq!(b.iters, 6_000, "the surviving arm ran exactly R iterations over all rounds");
    assert_eq!(b.status, ArmStatus::Survivor);
}

#[test]
fn warm_start_continues_the_chain() {
    let cfg = gaussian_cfg();
    let problem = Posterior::build(&cfg, None).unwrap();
    let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    let best = rep.best.as_ref().unwrap();
    // The same arm run in one go for R iterations from the same start and stream gives the same chain.
    let params = SamplerParams {
        kind: SamplerKind::Sgld,
        step: best.step,
        batch: tunelab::sampler::BatchSize::Fraction(1.0),
        leapfrog: 1,
        friction: cfg.sampler.friction,
        thermostat_a: cfg.sampler.thermostat_a,
        with_replacement: false,
    }
    .validate(problem.n_data)
    .unwrap();
    let mut chain = Chain::new(
        problem.train.as_ref(),
        params,
        vec![0.0; problem.dim],
        None,
        rng::stream(cfg.seed, best.arm as u64),
    )
    .unwrap();
    let mut out = Vec::new();
    chain.run(problem.train.as_ref(), Budget::Iterations(6_000), cfg.thin, &mut out, &AtomicBool::new(false));
    let (mean, std) = sgmcmc::tuning::column_moments(&out, problem.dim);
    assert_eq!(out.len() / problem.dim, best.posterior.n);
    for j in 0..problem.dim {
        assert!(
            (mean[j] - best.posterior.mean[j]).abs() < 1e-12,
            "mean {j}: {} vs {}",
            mean[j],
            best.posterior.mean[j]
        );
        assert!((std[j] - best.posterior.std[j]).abs() < 1e-12);
    }
}

#[test]
fn picks_an_accurate_arm_on_a_known_gaussian() {
    let cfg = gaussian_cfg();
    let problem = Posterior::build(&cfg, None).unwrap();
    let (_, cov) = problem.train.exact_moments().unwrap();
    let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    let best = rep.best.unwrap();
    for j in 0..problem.dim {
        let sd = cov[j * problem.dim + j].sqrt();
        let err = (best.posterior.std[j] - sd).abs() / sd;
        assert!(err < 0.25, "coordinate {j}: std {} vs exact {sd} (h = {})", best.posterior.std[j], best.step);
    }
}

#[test]
fn diverging_arm_is_pruned_and_reported() {
    let mut cfg = gaussian_cfg();
    cfg.arms.log10_step = None;
    cfg.arms.steps = vec![1e-2, 3e-2, 1e-1, 50.0];
    cfg.tuner = tune::TunerSpec::Mamba { eta: tune::Eta::TWO, scoring: tune::Scoring::Round };
    let rep = contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap();
    let bad = rep.arms.iter().find(|a| a.info.step == 50.0).unwrap();
    assert_eq!(bad.status, ArmStatus::Diverged);
    assert!(bad.diverged_iter.is_some());
    assert_eq!(bad.pruned_round, Some(0));
    assert_eq!(bad.scores, vec![None]);
    assert!(rep.best.unwrap().step < 1.0);
}

#[test]
fn cancel_stops_within_one_chunk() {
    let cfg = gaussian_cfg();
    let cancel = AtomicBool::new(false);
    let mut progress_after_cancel = 0;
    let mut seen = 0;
    let res = contract::run::<TuneExperiment>(
        cfg.clone(),
        None,
        |e| {
            if let Event::Progress { .. } = e {
                if cancel.load(Ordering::Relaxed) {
                    progress_after_cancel += 1;
                }
                seen += 1;
                if seen == 2 {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
        },
        &cancel,
    );
    assert_eq!(res.unwrap_err(), Error::Cancelled);
    assert_eq!(progress_after_cancel, 0);
}

fn small_logreg() -> TuneConfig {
    let mut c = presets::preset("paper-logreg").unwrap();
    if let tune::DataSource::Simulate { n, .. } = &mut c.data.source {
        *n = 1_000;
    }
    c.arms.log10_step = Some(tune::LogRange { from: -5.0, to: -2.0, by: 1.0 });
    c.arms.batch = vec![tunelab::sampler::BatchSize::Fraction(0.1), tunelab::sampler::BatchSize::Fraction(0.01)];
    c.budget = tune::BudgetSpec { grad_evals: Some(2.0e5), ..Default::default() };
    c.metric.max_samples = 200;
    c
}

#[test]
fn same_result_for_one_and_many_threads() {
    let cfg = small_logreg();
    let run =
        |t: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap().install(|| {
                contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap()
            })
        };
    let a = run(1);
    let b = run(4);
    assert_eq!(a.best.as_ref().map(|b| b.arm), b.best.as_ref().map(|b| b.arm));
    assert_eq!(a.best.as_ref().unwrap().samples, b.best.as_ref().unwrap().samples);
    for (x, y) in a.arms.iter().zip(&b.arms) {
        assert_eq!(x.scores, y.scores);
        assert_eq!(x.grad_evals, y.grad_evals);
        assert_eq!(x.status, y.status);
        assert!(x.draws.is_some());
        assert_eq!(x.draws, y.draws, "arm {}: drill-down draws", x.info.id);
    }
    assert_eq!(a.compute.grad_evals, b.compute.grad_evals);
}

#[test]
fn report_json_has_the_documented_fields() {
    let cfg = small_logreg();
    let rep = contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap();
    let v: serde_json::Value = serde_json::to_value(&rep).unwrap();
    assert!(v["tuner"].as_str().unwrap().starts_with("mamba"));
    let arm = &v["arms"][0];
    for k in ["id", "step", "batch", "leapfrog", "status", "scores"] {
        assert!(!arm[k].is_null(), "arm field {k}");
    }
    assert!(v["rounds"][0]["arms"].is_array() && v["rounds"][0]["budget"].is_number());
    for k in ["arm", "step", "batch", "leapfrog", "score"] {
        assert!(!v["best"][k].is_null(), "best field {k}");
    }
    assert_eq!(v["best"]["posterior"]["mean"].as_array().unwrap().len(), 10);
    assert_eq!(v["best"]["posterior"]["std"].as_array().unwrap().len(), 10);
    for k in ["grad_evals", "seconds", "scoring_seconds"] {
        assert!(v["compute"][k].is_number(), "compute field {k}");
    }
    // The config round-trips through JSON.
    let back: TuneConfig = serde_json::from_value(v["config"].clone()).unwrap();
    assert_eq!(back, cfg);
}

fn config_error(cfg: &TuneConfig) -> String {
    match contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)) {
        Err(Error::Config(m)) => m,
        other => panic!("expected a config error, got {:?}", other.map(|r| r.tuner)),
    }
}

#[test]
fn bad_configs_give_clear_errors() {
    let base = small_logreg();
    let mut c = base.clone();
    c.arms.log10_step = None;
    assert!(config_error(&c).contains("no arms"));
    // eta < 2 cannot be put in a config: the parse refuses it, at its path
    let mut v = serde_json::to_value(&base).unwrap();
    v["tuner"]["eta"] = serde_json::json!(1);
    let e = tunelab::strict::from_value::<TuneConfig>(&v).unwrap_err().to_string();
    assert!(e.contains("`tuner.eta`: invalid value: integer `1`, expected a reduction factor eta >= 2"), "{e}");
    let mut c = base.clone();
    c.budget = tune::BudgetSpec { grad_evals: Some(0.0), ..Default::default() };
    assert!(config_error(&c).contains("budget"));
    let mut c = base.clone();
    c.budget = tune::BudgetSpec::default();
    assert!(config_error(&c).contains("budget"));
    let mut c = base.clone();
    c.arms.log10_step = None;
    c.arms.steps = vec![1e-3, -1e-3];
    assert!(config_error(&c).contains("step"));
    let mut c = base.clone();
    c.arms.batch = vec![tunelab::sampler::BatchSize::Count(5_000)];
    let m = config_error(&c);
    assert!(m.contains("batch") || m.contains("N"), "{m}");
    // The KSD kernel's values are checked with the config, not when the run builds its kernel.
    for (beta, moment, want) in [(Some(0.5), None, "beta"), (None, Some(f64::NAN), "moment")] {
        let mut c = base.clone();
        c.metric.kind = tune::MetricKind::Ksd { kernel: None, scale: None, estimator: None, c: None, beta, moment };
        assert!(matches!(c.validate(), Err(Error::Config(m)) if m.contains(want)), "{want}");
    }
    let text = serde_json::to_string(&base).unwrap().replace("\"sgld\"", "\"sgldd\"");
    match TuneConfig::from_json(&text) {
        Err(Error::Config(m)) => assert!(m.contains("sgldd"), "{m}"),
        other => panic!("unknown sampler accepted: {other:?}"),
    }
}

#[test]
fn digits_bnn_preset_runs_small() {
    let mut cfg = presets::preset("digits-bnn").unwrap();
    cfg.model = serde_json::from_str(r#"{"kind":"bnn","hidden":4,"prior_var":1.0}"#).unwrap();
    cfg.arms.log10_step = Some(tune::LogRange { from: -5.0, to: -3.0, by: 1.0 });
    cfg.budget = tune::BudgetSpec { grad_evals: Some(3.0e4), ..Default::default() };
    cfg.metric.max_samples = 40;
    cfg.thin = 2;
    let rep = contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap();
    let best = rep.best.expect("a best arm");
    // 64 inputs -> 4 tanh units -> 10 classes: 64*4 + 4 + 4*10 + 10 parameters
    assert_eq!(best.posterior.mean.len(), 64 * 4 + 4 + 40 + 10);
    assert!(best.posterior.std.iter().all(|s| s.is_finite()));
}

#[test]
fn uploaded_csv_runs_and_bad_uploads_name_the_line() {
    let mut cfg = small_logreg();
    cfg.data.source = tune::DataSource::Upload { name: "mine.csv".into() };
    cfg.data.standardize = true;
    let mut r = rng::stream(3, 0);
    let (ds, _) = tunelab::data::simulate_logistic(400, 3, &mut r).unwrap();
    let text = ds.to_csv_string();
    let rep = contract::run::<TuneExperiment>(cfg.clone(), Some(&text), quiet(), &AtomicBool::new(false)).unwrap();
    assert_eq!(rep.best.unwrap().posterior.mean.len(), 3);
    // No file given.
    match contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)) {
        Err(Error::Config(m)) => assert!(m.contains("mine.csv"), "{m}"),
        other => panic!("{:?}", other.map(|r| r.tuner)),
    }
    // A label outside {0, 1} names its line.
    let bad = text.replacen(",1\n", ",2\n", 1);
    match contract::run::<TuneExperiment>(cfg.clone(), Some(&bad), quiet(), &AtomicBool::new(false)) {
        Err(Error::Data(m)) => assert!(m.contains("line") && m.contains("label"), "{m}"),
        other => panic!("{:?}", other.map(|r| r.tuner)),
    }
}

#[test]
fn an_exploding_oscillating_chain_never_beats_exact_samples() {
    // Regression test: the signed KSD U-statistic of a chain swinging between +-A is hugely negative.
    let mut cfg = presets::preset("gaussian").unwrap();
    cfg.model = serde_json::from_str(r#"{"kind":"gaussian","d":2,"rho":0.0}"#).unwrap();
    let problem = Posterior::build(&cfg, None).unwrap();
    let mut r = rng::stream(5, 0);
    use rand::RngExt;
    let exact: Vec<f64> = (0..400).map(|_| r.sample::<f64, _>(rand_distr::StandardNormal)).collect();
    let swing: Vec<f64> = (0..400)
        .map(|i| if (i / 2) % 2 == 0 { 40.0 } else { -40.0 } + 0.5 * r.sample::<f64, _>(rand_distr::StandardNormal))
        .collect();
    let m = tune::MetricSpec::default();
    let s_exact = sgmcmc::metric::score(&problem, &m, &exact, 1, &mut r).unwrap().value;
    let s_swing = sgmcmc::metric::score(&problem, &m, &swing, 1, &mut r).unwrap().value;
    assert!(s_exact >= 0.0 && s_swing >= 0.0);
    assert!(s_swing > 10.0 * s_exact, "swinging chain {s_swing} vs exact {s_exact}");
}

#[test]
fn every_arm_is_scored_by_the_runs_one_kernel() {
    // Issue 12 §1: the kernel depends on the problem only (Laplace sd at the MAP), not on any arm.
    let mut cfg = small_logreg();
    cfg.budget = tune::BudgetSpec { grad_evals: Some(2.0e4), ..Default::default() };
    let problem = Posterior::build(&cfg, None).unwrap();
    let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    let k = rep.kernel.clone().expect("a KSD run records its kernel");
    assert_eq!(k.kind, tune::KsdKernel::Run);
    assert_eq!((k.c, k.beta, k.estimator), (1.0, -0.5, tunelab::stein::Estimator::U));
    assert_eq!(k.precond_sd.len(), problem.dim);
    assert_eq!(k.precond_source.as_deref(), Some("laplace-hessian"));
    let built = sgmcmc::RunKernel::for_metric(&cfg.metric.kind, problem.train.as_ref(), &problem.map).unwrap().unwrap();
    assert_eq!(k, built, "the kernel is built from the problem before any arm runs");
    // The report's JSON carries it.
    let json = serde_json::to_value(&rep).unwrap();
    assert!(json["kernel"]["precond_summary"].is_array() && json["kernel"]["c"] == 1.0, "{}", json["kernel"]);
    // Each arm alone (a one-arm grid, a single round whose samples all enter the score and the report): the same
    // kernel, and its score is the KSD of its samples under that kernel.
    for (i, h) in [1e-5, 1e-4, 1e-3].into_iter().enumerate() {
        let mut one = cfg.clone();
        one.tuner = tune::TunerSpec::Grid;
        one.metric.max_samples = 500;
        one.arms.log10_step = None;
        one.arms.steps = vec![h];
        one.arms.batch = vec![tunelab::sampler::BatchSize::Fraction([0.1, 0.01, 0.1][i])];
        let r1 = tune::run_on(&one, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
        assert_eq!(r1.kernel.as_ref(), Some(&k));
        let b = r1.best.unwrap();
        assert!(b.posterior.n <= one.metric.max_samples && b.posterior.n >= 2, "{}", b.posterior.n);
        assert_eq!(b.samples.len() / problem.dim, b.posterior.n);
        let v = sgmcmc::RunKernel::rank_value(&k.ksd_target(problem.train.as_ref(), &b.samples).unwrap());
        assert_eq!(v, b.score, "arm h = {h}");
    }
}

#[test]
fn round_scores_equal_scoring_every_sample_of_the_round() {
    // Issue 12 §3: the driver keeps only the rows `thin_rows` selects; the score equals the score of the full
    // round, for the run kernel and for the old per-arm kernel.
    for kernel in [tune::KsdKernel::Run, tune::KsdKernel::PerArm] {
        let mut cfg = gaussian_cfg();
        cfg.tuner = tune::TunerSpec::Grid;
        cfg.arms.log10_step = None;
        cfg.arms.steps = vec![0.1];
        cfg.budget = tune::BudgetSpec { iterations: Some(20_000.0), ..Default::default() };
        cfg.metric.kind = tune::MetricKind::Ksd {
            kernel: Some(kernel),
            scale: None,
            estimator: None,
            c: None,
            beta: None,
            moment: None,
        };
        let problem = Posterior::build(&cfg, None).unwrap();
        let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
        let best = rep.best.as_ref().unwrap();
        let params = SamplerParams {
            kind: SamplerKind::Sgld,
            step: 0.1,
            batch: tunelab::sampler::BatchSize::Fraction(1.0),
            leapfrog: 1,
            friction: cfg.sampler.friction,
            thermostat_a: cfg.sampler.thermostat_a,
            with_replacement: false,
        }
        .validate(problem.n_data)
        .unwrap();
        let mut chain =
            Chain::new(problem.train.as_ref(), params, vec![0.0; problem.dim], None, rng::stream(cfg.seed, 0)).unwrap();
        let mut out = Vec::new();
        chain.run(problem.train.as_ref(), Budget::Iterations(20_000), cfg.thin, &mut out, &AtomicBool::new(false));
        assert!(out.len() / problem.dim > cfg.metric.max_samples);
        let x = sgmcmc::metric::thin_rows(&out, problem.dim, cfg.metric.max_samples);
        let k = rep.kernel.clone().unwrap();
        assert_eq!(k.kind, kernel);
        let v = sgmcmc::RunKernel::rank_value(&k.ksd_target(problem.train.as_ref(), &x).unwrap());
        assert_eq!(v, best.score, "{kernel:?}");
        assert_eq!(best.posterior.n, out.len() / problem.dim);
    }
}

#[test]
fn kept_sample_memory_does_not_grow_with_the_budget() {
    // Issue 12 §3: floats held per arm <= d (2K + 2 max_samples + ceil(SUB_ITERS / thin)) + 2d, K = max(max_samples, 500).
    let mut cfg = gaussian_cfg();
    cfg.model = serde_json::from_str(r#"{"kind":"gaussian","d":20,"rho":0.3}"#).unwrap();
    cfg.thin = 1;
    cfg.metric.max_samples = 100;
    let d = 20;
    let m = 9; // arms of the gaussian preset
    let k = cfg.metric.max_samples.max(sgmcmc::tuning::REPORT_SAMPLES);
    let per_arm =
        d * (2 * k + 2 * cfg.metric.max_samples + (sgmcmc::samples::SUB_ITERS as usize).div_ceil(cfg.thin)) + 2 * d;
    let mut kept = Vec::new();
    for iters in [200_000.0, 800_000.0] {
        cfg.budget = tune::BudgetSpec { iterations: Some(iters), ..Default::default() };
        for scoring in [tune::Scoring::Round, tune::Scoring::Chain] {
            cfg.tuner = tune::TunerSpec::Mamba { eta: tune::Eta::THREE, scoring };
            let rep = contract::run::<TuneExperiment>(cfg.clone(), None, quiet(), &AtomicBool::new(false)).unwrap();
            let best = rep.best.unwrap();
            assert_eq!(best.posterior.n as f64, iters, "every sample enters the moments");
            assert!(rep.compute.kept_floats_max <= m * per_arm, "{} > {}", rep.compute.kept_floats_max, m * per_arm);
            assert!(best.samples.len() / d <= sgmcmc::tuning::REPORT_SAMPLES);
            kept.push(rep.compute.kept_floats_max);
        }
    }
    // Four times the budget (8e5 samples of 20 floats for the surviving arm) holds no more than the shorter run
    // (whose slices already fill the scratch).
    // (Within 1%: where in its stride cycle each buffer is at its peak varies by a few rows.)
    assert!(kept[2] as f64 <= 1.01 * kept[0] as f64 && kept[3] as f64 <= 1.01 * kept[1] as f64, "{kept:?}");
}

/// Issue 12 §2: MAMBA-FSSD is FSSD-opt with one fit (locations and width) per round on the pooled samples,
/// shared by every arm of the round, ranked by |FSSD^2_U|.
#[test]
fn fssd_opt_scores_every_arm_of_a_round_at_one_fit() {
    use tunelab::experiments::sgmcmc::metric::score_round_fssd;
    use tunelab::model::full_scores;
    use tunelab::stein::{fssd, FssdKernel};
    let mut cfg = small_logreg();
    cfg.metric.kind = tune::MetricKind::FssdOpt { j: 10, per_arm: false };
    let problem = Posterior::build(&cfg, None).unwrap();
    let d = problem.dim;
    let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    assert!(rep.best.is_some());
    for r in &rep.rounds {
        let f = r.fssd_fit.as_ref().expect("every round records its fit");
        assert_eq!(f.locations.len(), 10 * d);
        assert!(f.power_end >= f.power_start && f.sigma2 > 0.0);
    }
    // Two sets scored together: each arm's score is sqrt|U| at the one fit, and the fit depends on the pool
    // (replacing arm B's samples changes arm A's score).
    let set = |seed: u64, spread: f64, shift: f64| -> Vec<f64> {
        let mut r = rng::stream(seed, 0);
        (0..200 * d)
            .map(|k| {
                problem.map[k % d]
                    + shift
                    + spread * rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, &mut r)
            })
            .collect()
    };
    let (a, b1, b2) = (set(1, 0.05, 0.0), set(2, 0.1, 0.0), set(3, 0.02, 0.2));
    let run = |b: &Vec<f64>| {
        let (mut r1, mut r2) = (rng::stream(9, 1), rng::stream(9, 2));
        score_round_fssd(
            &problem,
            &cfg.metric,
            10,
            vec![Some(a.clone()), Some(b.clone()), None],
            &[10, 10, 10],
            &mut [&mut r1, &mut r2, &mut rng::stream(9, 3)],
            &mut rng::stream(9, 0),
        )
        .unwrap()
    };
    let (s1, fit1) = run(&b1);
    let (s2, fit2) = run(&b2);
    let (fit1, fit2) = (fit1.unwrap(), fit2.unwrap());
    assert_ne!(fit1.locations, fit2.locations);
    assert!(s1[2].value.is_infinite() && s1[2].n == 0);
    for (x, sc, fit) in [(&a, s1[0], &fit1), (&b1, s1[1], &fit1), (&a, s2[0], &fit2), (&b2, s2[1], &fit2)] {
        let g = full_scores(problem.train.as_ref(), x);
        let u = fssd(x, &g, d, &fit.locations, &FssdKernel::Gauss { sigma2: fit.sigma2 }).unwrap().fssd_sq_u;
        assert_eq!(sc.value, u.abs().sqrt());
        assert_eq!(sc.n, 200);
    }
    assert_ne!(s1[0].value, s2[0].value);
}

/// Issue 12 §2: the paper preset tunes SGHMC's L in {5, 10} (appendix B.1); other samplers ignore L.
#[test]
fn paper_preset_tunes_sghmc_leapfrog() {
    for kind in [SamplerKind::Sghmc, SamplerKind::SghmcCv, SamplerKind::Sgld] {
        let cfg = presets::preset_with_sampler("paper-logreg", kind).unwrap();
        let arms = sgmcmc::grid_arms(&cfg.arms, kind).unwrap();
        let mut ls: Vec<usize> = arms.iter().map(|a| a.leapfrog).collect();
        ls.sort();
        ls.dedup();
        if kind == SamplerKind::Sgld {
            assert_eq!((arms.len(), ls), (56, vec![1]));
        } else {
            assert_eq!((arms.len(), ls), (112, vec![5, 10]));
        }
    }
}

/// The grid (log-loss) baseline of the comparison as the MAMBA paper's App. B: MAP + N(0, sigma^2) with sigma =
/// 0.2 (logistic, B.1.2) and 1 (PMF B.2.2, BNN B.3.2), and 5,000 / 2,000 / 1,000 iterations per grid point; the
/// page presets keep the comparison's R per point (labelled), and a config's `grid_baseline` wins.
#[test]
fn compare_grid_baseline_is_the_papers_appendix_b() {
    use tunelab::experiments::compare::{paper_tuners, CompareConfig};
    use tunelab::experiments::tune::{BudgetSpec, StartSpec};
    let grid_of = |tuners: Vec<(String, TuneConfig)>| {
        tuners.into_iter().find(|t| t.0 == "grid (log-loss)").expect("grid (log-loss)").1
    };
    for (preset, sigma, iters) in [("paper-logreg", 0.2, 5_000.0), ("pmf", 1.0, 2_000.0), ("mnist-bnn", 1.0, 1_000.0)] {
        let g = grid_of(paper_tuners(&presets::preset(preset).unwrap()));
        assert_eq!(g.start, StartSpec::MapNoise(sigma), "{preset}");
        assert_eq!(g.budget, BudgetSpec { iterations: Some(iters), ..Default::default() }, "{preset}");
    }
    // a page preset: the paper's noise, the comparison's budget R per point
    let page = CompareConfig::preset("paper-logreg-page").unwrap();
    let g = grid_of(tunelab::experiments::compare::paper_tuners_with(&page.base, &page.grid_baseline));
    assert_eq!(g.start, StartSpec::MapNoise(0.2));
    assert_eq!(g.budget, page.base.budget);
    // given in the config
    let mut v = serde_json::to_value(CompareConfig::preset("demo").unwrap()).unwrap();
    assert!(v.get("grid_baseline").is_none(), "the default is not written");
    v["grid_baseline"] = serde_json::json!({"sigma": 0.05, "budget": {"iterations": 7}});
    let cfg: CompareConfig = serde_json::from_value(v).unwrap();
    let g = grid_of(tunelab::experiments::compare::paper_tuners_with(&cfg.base, &cfg.grid_baseline));
    assert_eq!(g.start, StartSpec::MapNoise(0.05));
    assert_eq!(g.budget, BudgetSpec { iterations: Some(7.0), ..Default::default() });
}

/// Progress counts the chains' gradient evaluations and the scores' work in gradient-evaluation equivalents
/// weighted by their measured time: a chain's gradient evaluation counts 1 (`FULL_BATCH_TIME` with a full batch)
/// and each of its iterations `ITER_TIME` more (`sgmcmc::plan::ChainWork`; logistic regression: a data point's
/// gradient is `d` multiply-adds, so no scaling); each full-data KSD score of `m` samples costs `m` full-data
/// gradients (`m` x the training points) and `m (m - 1)` sample pairs of `4 d / d` = 4 gradient evaluations each
/// (`sgmcmc::plan::ScoreWork`), times `SCORE_TIME`. So each progress event's `done` is the work run so far, the
/// scores included, and the run's total is the work of the whole run.
#[test]
fn progress_counts_the_chains_and_the_scores_in_one_unit() {
    use tunelab::experiments::{Detail, Event as Ev, ExperimentConfig, Inputs};
    let cfg = small_logreg();
    let (n_train, d) = (800.0, 10.0);
    let checked = ExperimentConfig::Tune(cfg.clone()).check().unwrap();
    let mut events = Vec::new();
    let report = checked.run(Inputs::default(), &mut |e| events.push(e.clone()), &AtomicBool::new(false)).unwrap();
    let mut chains = std::collections::BTreeMap::new();
    let (mut scores, mut first_total, mut checked_events) = (0.0, None, 0);
    let mut last = (0.0, 0.0);
    for e in &events {
        let Ev::Progress { done, total, detail: Detail::Tune(t) } = e else { continue };
        match t {
            Event::Progress { arms, .. } => {
                // (this config's batches are all minibatches: 10% and 1% of the data)
                for a in arms {
                    chains.insert(a.arm, a.grad_evals as f64 + sgmcmc::plan::ITER_TIME * a.iters as f64);
                }
            }
            Event::ArmScored { samples, .. } if *samples >= 2 => {
                let m = *samples as f64;
                scores += sgmcmc::plan::SCORE_TIME * (m * n_train + m * (m - 1.0) * 4.0 * d / d);
            }
            _ => {}
        }
        first_total.get_or_insert(*total);
        let work = chains.values().sum::<f64>() + scores;
        // within the rounding of the chunks' goals (an iteration of the largest batch per arm and chunk)
        assert!((done - work).abs() <= 0.01 * total, "{done} counted, {work} run, of {total}: {t:?}");
        assert!(*done >= last.0, "progress went back: {done} after {}", last.0);
        last = (*done, *total);
        checked_events += 1;
    }
    let first_total = first_total.unwrap();
    let (done, total) = last;
    assert!(checked_events > 20);
    assert_eq!(done, total);
    assert_eq!(report.compute.done, report.compute.total);
    // The scores are a large share of this run's work (so a counter without them fails above) ...
    let Some(tunelab::experiments::Output::Tune(r)) = &report.result else { panic!("no tune result") };
    // (an arm's budget unit: one gradient evaluation and a batch's share of its iteration)
    let weight = |a: &usize| 1.0 + sgmcmc::plan::ITER_TIME / r.arms[*a].info.batch as f64;
    let chain_work: f64 = r.rounds.iter().map(|x| x.arms.iter().map(weight).sum::<f64>() * x.budget).sum();
    assert!(scores > 0.03 * total, "scores {scores} of {total}");
    assert!((total - (chain_work + scores)).abs() <= 1e-6 * total, "{total} != {chain_work} + {scores}");
    // The iterations' own work is a visible share here (batches of 8 and 80 points), so a counter of the
    // gradient evaluations alone fails above.
    let grads: f64 = r.rounds.iter().map(|x| x.arms.len() as f64 * x.budget).sum();
    assert!(chain_work > 1.2 * grads, "{chain_work} vs {grads}");
    // ... and the total planned at the start (later rounds: arms of the mean chain weight, the scores of the arms
    // with the most samples) is close to the run's work.
    assert!((first_total / total - 1.0).abs() <= 0.25, "planned {first_total}, ran {total}");
}
