//! Learning-rate schedules: gradients of the training problems, calibration of the trace model, the dynamic
//! tuner against constant rates where decay helps, determinism across thread counts, bad configs.

use crate::common::contract;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use std::sync::atomic::AtomicBool;
use tunelab::experiments::lr_schedule::LrExperiment;
use tunelab::experiments::lr_schedule::{
    self, Classifier, ClassifierKind, Link, LrConfig, LrData, LrProblem, TraceModel, TrainProblem, Transition,
};
use tunelab::rng::{stream, Rng};
use tunelab::Error;

#[test]
fn classifier_gradients_match_finite_differences() {
    // One training row: every minibatch is that row, so the stochastic gradient is its exact gradient.
    let p = 3;
    let x = vec![0.5, -1.0, 2.0];
    for kind in [ClassifierKind::Softmax, ClassifierKind::Mlp(4)] {
        let c = Classifier::new(kind, p, 3, 4, x.clone(), vec![2], x.clone(), vec![2], vec![0]);
        let mut rng = stream(1, 1);
        let w = c.init(&mut rng);
        let mut g = vec![0.0; c.dim()];
        let mut s = Vec::new();
        c.stoch_grad(&w, &mut rng, &mut g, &mut s);
        for (j, &gj) in g.iter().enumerate() {
            let fd = crate::common::fd::partial(|a| c.trace_loss(a, &mut s), &w, j, 1e-6);
            assert!((fd - gj).abs() < 1e-7, "{kind:?} coordinate {j}: {gj} vs {fd}");
        }
    }
}

/// Synthetic trace family with a known multiplicative law:
/// `ln Y_{k+1} - ln Y_k = -0.8 exp(-(log10 lr + 1.5)²) + 0.05 (log10 lr + 1.5) + 0.05 ε`.
fn synthetic(rng: &mut Rng, traces: usize, len: usize) -> Vec<Vec<Transition>> {
    (0..traces)
        .map(|_| {
            let mut y: f64 = 2.0 + 0.2 * rng.random::<f64>();
            (0..len)
                .map(|_| {
                    let l: f64 = -3.0 + 3.0 * rng.random::<f64>();
                    let e: f64 = StandardNormal.sample(rng);
                    let f = -0.8 * (-(l + 1.5) * (l + 1.5)).exp() + 0.05 * (l + 1.5) + 0.05 * e;
                    let yn = y * f.exp();
                    let t = Transition { y, lr: 10f64.powf(l), y_next: yn };
                    y = yn;
                    t
                })
                .collect()
        })
        .collect()
}

#[test]
fn trace_model_one_step_bands_are_calibrated() {
    let mut rng = stream(5, 0);
    let train: Vec<Transition> = synthetic(&mut rng, 8, 8).into_iter().flatten().collect();
    let y0s: Vec<f64> = vec![2.0, 2.1, 2.05];
    let m = TraceModel::fit(&train, &y0s, Link::Exponential, [1e-3, 1.0], &mut rng).unwrap();
    let test: Vec<Transition> = synthetic(&mut rng, 25, 8).into_iter().flatten().collect();
    let inside = test
        .iter()
        .filter(|t| {
            let b = m.one_step_band(t.y, t.lr);
            b.lo <= t.y_next && t.y_next <= b.hi
        })
        .count();
    let coverage = inside as f64 / test.len() as f64;
    // Stated range for the nominal 90% band.
    assert!((0.75..=0.98).contains(&coverage), "coverage {coverage}");
    // The model learnt the law: the best rate is near 10^-1.5.
    let best = (0..61)
        .map(|i| 10f64.powf(-3.0 + 0.05 * i as f64))
        .min_by(|a, b| m.quantile(1.0, *a, 0.5).total_cmp(&m.quantile(1.0, *b, 0.5)))
        .unwrap();
    assert!((best.log10() + 1.5).abs() < 0.35, "best rate {best}");
    // Recursive sampling: bands widen along the schedule and start at the Y_0 distribution.
    let bands = m.sample_bands(&[0.03; 5], None, 400, &mut rng);
    assert_eq!(bands.len(), 6);
    assert!(bands[0].median > 1.9 && bands[0].median < 2.2);
    // (relative width: the law is multiplicative)
    assert!((bands[5].hi - bands[5].lo) / bands[5].median > (bands[1].hi - bands[1].lo) / bands[1].median);
    assert!(bands[5].median < bands[0].median * 0.2);
}

fn quick_nq() -> LrConfig {
    let mut c = LrConfig::preset("noisy-quadratic").unwrap();
    c.dynamic.band_samples = 50;
    c
}

#[test]
fn dynamic_tuner_and_matched_baselines_on_the_noisy_quadratic_over_seeds() {
    // Several seeds (1-3; the defaults were set on seed 7). Checks the algorithm's invariants and that every
    // method learns; which method wins is measured by scripts/reproduce/lr-schedule/numbers.sh, not asserted here.
    let cancel = AtomicBool::new(false);
    for seed in [1, 2, 3] {
        let mut c = quick_nq();
        c.seed = seed;
        let r = contract::run::<LrExperiment>(c.clone(), None, |_| {}, &cancel).unwrap();
        let dynamic = r.methods.iter().find(|m| m.family == "dynamic").unwrap();
        let y0 = dynamic.trace[0].loss;
        // The tuner learns: its kept run ends far below the start (the loss starts near 1.8).
        assert!(dynamic.final_loss < 0.1 * y0, "seed {seed}: {} from {y0}", dynamic.final_loss);
        // Matched compute: 5 constants and 12 decays, each the best of Q = 6 runs.
        assert_eq!(r.methods.iter().filter(|m| m.family == "constant").count(), 5);
        assert_eq!(r.methods.iter().filter(|m| m.family == "exponential-decay").count(), 12);
        for m in r.methods.iter().filter(|m| m.family != "dynamic") {
            assert_eq!(m.repeat_finals.len(), 6);
            assert_eq!(m.final_loss, m.repeat_finals.iter().cloned().fold(f64::INFINITY, f64::min));
            assert_eq!(m.compute_steps, dynamic.compute_steps);
            // The repeats differ (their own minibatch streams).
            assert!(m.repeat_finals.iter().any(|v| *v != m.repeat_finals[0]), "{}", m.name);
        }
        let det = r.dynamic.as_ref().unwrap();
        assert!(det.model.contains("variational gp"), "{}", det.model);
        for (k, dec) in det.decisions.iter().enumerate() {
            let kept = dynamic.schedule[k];
            // Changes are limited to one order of magnitude per boundary (the paper's limit, Sec. 3.2).
            assert!(dec.lrs.iter().all(|l| (l / kept).log10().abs() <= 1.0 + 1e-9));
            assert_eq!(dec.alphas.len(), 6);
            assert!((dec.alphas[0] - 1.0 / 12.0).abs() < 1e-12);
            assert!(!dec.model_failed);
            // Copy i meets its failure threshold 1 - alpha_i (no divergence here: probability 0).
            for i in 0..6 {
                assert!((dec.p_fail_threshold[i] - (1.0 - dec.alphas[i])).abs() < 1e-12);
                assert!(dec.p_fail[i] <= dec.p_fail_threshold[i]);
            }
            // Eq. 6: a lower quantile level never picks a larger predicted median than the band it reports.
            assert!(dec.predicted.iter().all(|b| b.lo <= b.median && b.median <= b.hi));
        }
        assert_eq!(det.predicted_bands.len(), 11);
        assert_eq!(det.diverged_intervals, 0);
    }
}

#[test]
fn diverged_runs_are_kept_out_of_the_regression_and_steer_the_classifier() {
    // Rates up to 30 on the noisy quadratic (curvature 1): the top ones diverge.
    let mut c = quick_nq();
    c.lr_bounds = [1e-2, 30.0];
    c.intervals = 5;
    c.constant = 0;
    c.decay_starts = 0;
    let cancel = AtomicBool::new(false);
    let r = contract::run::<LrExperiment>(c.clone(), None, |_| {}, &cancel).unwrap();
    let det = r.dynamic.as_ref().unwrap();
    assert!(det.diverged_intervals >= 1, "nothing diverged");
    let dynamic = r.methods.iter().find(|m| m.family == "dynamic").unwrap();
    assert!(!dynamic.diverged && dynamic.final_loss.is_finite());
    // After a failure, the classifier gives the chosen rates of the cautious copies a low failure probability.
    for dec in &det.decisions {
        assert!(!dec.model_failed);
        for i in 0..6 {
            assert!(dec.p_fail[i] <= dec.p_fail_threshold[i] + 1e-12 || dec.p_fail.iter().all(|p| *p > 0.0));
        }
    }
    assert!(det.decisions.iter().any(|d| d.p_fail.iter().any(|p| *p > 0.0)));
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut c = quick_nq();
    c.intervals = 5;
    c.dynamic.runs = 3;
    let cancel = AtomicBool::new(false);
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| contract::run::<LrExperiment>(c.clone(), None, |_| {}, &cancel).unwrap())
    };
    let a = run(1);
    let b = run(3);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let json = serde_json::to_value(&a).unwrap();
    assert!(json["methods"][0]["name"].is_string() && json["methods"][0]["final_loss"].is_number());
    assert!(json["methods"][0]["trace"][1]["lr"].is_number());
}

#[test]
fn digits_softmax_runs_with_adam_and_events_arrive() {
    let mut c = LrConfig::preset("digits-logreg").unwrap();
    c.intervals = 3;
    c.steps_per_interval = 8;
    c.records_per_interval = 2;
    c.eval_points = 100;
    c.constant = 2;
    c.decay_starts = 1;
    c.decay_factors = vec![0.1];
    c.dynamic.runs = 2;
    c.dynamic.band_samples = 20;
    c.optimizer = tunelab::experiments::lr_schedule::Optimizer::Adam;
    c.lr_bounds = [1e-3, 3e-2];
    let cancel = AtomicBool::new(false);
    let mut intervals = 0;
    let r = contract::run::<LrExperiment>(
        c.clone(),
        None,
        |e| {
            if let lr_schedule::LrEvent::IntervalDone { .. } = e {
                intervals += 1
            }
        },
        &cancel,
    )
    .unwrap();
    assert_eq!(intervals, 3);
    assert_eq!(r.methods.len(), 4);
    for m in &r.methods {
        assert_eq!(m.trace.len(), 1 + 3 * 2, "{}", m.name);
        assert!(m.final_loss.is_finite());
    }
    let best = r.methods.iter().map(|m| m.final_loss).fold(f64::INFINITY, f64::min);
    assert!(best < 0.7 * r.methods[0].trace[0].loss, "no schedule learned: {best}");
}

#[test]
fn cancel_and_bad_configs_give_clear_errors() {
    let cancel = AtomicBool::new(true);
    assert_eq!(contract::run::<LrExperiment>(quick_nq(), None, |_| {}, &cancel).unwrap_err(), Error::Cancelled);
    let cancel = AtomicBool::new(false);
    let err = |c: &LrConfig| contract::run::<LrExperiment>(c.clone(), None, |_| {}, &cancel).unwrap_err().to_string();
    assert!(LrConfig::preset("nope").unwrap_err().to_string().contains("unknown lr-schedule preset"));
    let mut c = quick_nq();
    c.lr_bounds = [0.0, 1.0];
    assert!(err(&c).contains("lr_bounds"));
    let mut c = quick_nq();
    c.intervals = 1;
    assert!(err(&c).contains("intervals"));
    let mut c = quick_nq();
    c.dynamic.runs = 1;
    assert!(err(&c).contains("runs"));
    let mut c = quick_nq();
    c.decay_factors = vec![2.0];
    assert!(err(&c).contains("decay_factors"));
    let mut c = quick_nq();
    c.records_per_interval = 1000;
    assert!(err(&c).contains("records_per_interval"));
    let mut c = LrConfig::preset("digits").unwrap();
    c.data = LrData::Upload { label: None };
    assert!(err(&c).contains("needs the data passed in"));
    // Non-class labels in user data.
    let c = LrConfig::new(LrProblem::Logreg);
    let ds = tunelab::data::Dataset::new(
        (0..20).map(|i| i as f64).collect(),
        (0..20).map(|i| i as f64 * 0.5).collect(),
        1,
        None,
        "y",
    )
    .unwrap();
    let e = contract::run_data::<LrExperiment>(c.clone(), Some(&ds), |_| {}, &cancel).unwrap_err();
    assert!(matches!(e, Error::Data(_)) && e.to_string().contains("class"), "{e}");
    let e = serde_json::from_str::<LrConfig>(r#"{"problem": {"kind": "mlp"}, "speed": 1}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field"));
    let c: LrConfig = serde_json::from_str(
        r#"{"problem": {"kind": "mlp", "hidden": 8}, "optimizer": "adam", "dynamic": {"link": "softplus"}}"#,
    )
    .unwrap();
    assert_eq!(c.dynamic.link, Link::Softplus);
    assert!(err(&c).contains("softplus"));
    assert!(TraceModel::fit(&[], &[], Link::Linear, [1e-3, 1.0], &mut stream(1, 1)).is_err());
}

#[test]
fn the_tuner_is_ranked_against_each_schedule_run_once() {
    use tunelab::experiments::lr_schedule::{per_schedule_ranks, LrMethodReport};
    let m = |name: &str, family: &str, final_loss: f64, repeat_finals: Vec<f64>| LrMethodReport {
        name: name.into(),
        family: family.into(),
        schedule: Vec::new(),
        trace: Vec::new(),
        final_loss,
        test_loss: 0.0,
        diverged: false,
        compute_steps: 0,
        repeat_finals,
    };
    // The reported (best-of-repeats) loss of d1 beats the tuner, but its single run (repeat 0) does not: the
    // paper's per-schedule comparison ranks by the single run.
    let methods = vec![
        m("c1", "constant", 0.30, vec![0.30, 0.35]),
        m("c2", "constant", 0.10, vec![0.12, 0.10]),
        m("d1", "exponential-decay", 0.15, vec![0.25, 0.15]),
        m("d2", "exponential-decay", 0.18, vec![0.18]),
        m("d3", "exponential-decay", 0.40, vec![0.40]),
        m("tuner", "dynamic", 0.20, Vec::new()),
    ];
    let r = per_schedule_ranks(&methods);
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].family.as_str(), r[0].schedules, r[0].rank), ("constant", 2, 2));
    assert_eq!(r[0].below_tuner, vec!["c2".to_string()]);
    assert_eq!((r[1].family.as_str(), r[1].schedules, r[1].rank), ("exponential-decay", 3, 2));
    assert_eq!(r[1].below_tuner, vec!["d2".to_string()]);
    // no tuner: nothing to rank
    assert!(per_schedule_ranks(&methods[..5]).is_empty());
}
