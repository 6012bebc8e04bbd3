//! D-TTTS on real tuning problems (src/bandit/hpo.rs): reproducible pulls, real noise, regret bands that shrink
//! with more repeats, random search and distinct-arm counts in the report.

use crate::common::contract;
use tunelab::experiments::bandit::BanditExperiment;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tunelab::experiments::bandit::hpo::{ClassData, Hpo, HpoShared, HpoSpec};
use tunelab::bandit::{Arm, TttsOptions};
use tunelab::experiments::bandit::{AlgoSpec, BanditConfig, Problem, ProblemSpec};
use tunelab::rng::stream;

fn small_wine() -> HpoSpec {
    let mut s = HpoSpec::kernel_ridge(ClassData::Wine);
    s.truth_folds = 3;
    s.reference_arms = 4;
    s
}

fn shared(spec: &HpoSpec) -> Arc<HpoShared> {
    Arc::new(HpoShared::build(spec, 1, &mut |_, _| {}, &AtomicBool::new(false)).unwrap())
}

#[test]
fn a_pull_is_reproducible_from_seed_arm_and_pull_index() {
    let sh = shared(&small_wine());
    let mut rng = stream(0, 0);
    // instance A pulls arm 3 three times; instance B interleaves other arms first
    let mut a = Hpo::new(sh.clone(), 77);
    let ra: Vec<f64> = (0..3).map(|t| a.pull(&Arm::Index(3), t, &mut rng).unwrap()).collect();
    let mut b = Hpo::new(sh.clone(), 77);
    let mut rb = Vec::new();
    for t in 0..3 {
        b.pull(&Arm::Index(5), t, &mut rng).unwrap();
        rb.push(b.pull(&Arm::Index(3), t, &mut rng).unwrap());
    }
    assert_eq!(ra, rb);
    assert_eq!(ra[1], Hpo::new(sh.clone(), 77).reward(3, 1));
    // a fresh fold per pull: rewards of one arm vary (real noise), and another seed gives another arm
    let r: Vec<f64> = (0..8).map(|j| a.reward(0, j)).collect();
    assert!(r.iter().any(|v| *v != r[0]), "{r:?}");
    assert!(r.iter().all(|v| (0.0..=1.0).contains(v)));
    assert_ne!(Hpo::new(sh.clone(), 77).config(0).to_vec(), Hpo::new(sh, 78).config(0).to_vec());
}

#[test]
fn true_value_is_the_mean_over_the_truth_folds_and_the_optimum_is_the_best_reference() {
    let spec = small_wine();
    let sh = shared(&spec);
    let mut p = Hpo::new(sh.clone(), 5);
    let v = p.value(&Arm::Index(2), 0);
    assert!((0.0..=1.0).contains(&v));
    assert_eq!(v, p.value(&Arm::Index(2), 7), "cached and time-invariant");
    // the optimum is the best of the reference draws: at least as good as a typical arm's truth
    assert!(sh.optimum() > 0.5 && sh.optimum() <= 1.0);
    assert!(p.describe(&Arm::Index(2)).unwrap().starts_with("C = "));
}

fn config(problem: ProblemSpec, rounds: usize, repeats: usize) -> BanditConfig {
    BanditConfig {
        problem,
        algorithms: vec![
            AlgoSpec::DTtts(TttsOptions::default()),
            AlgoSpec::Uniform { arms: None, label: None },
            AlgoSpec::Random { label: None },
        ],
        rounds,
        repeats,
        seed: 3,
        checkpoints: Some(5),
        band: 1.96,
        repeat_range: None,
    }
}

#[test]
// (the band is clipped to the repeats' range, which can make a band of very few repeats narrow: 8+ repeats here)
fn regret_bands_shrink_with_more_repeats() {
    for (problem, rounds, few, many) in [
        (ProblemSpec::Reservoir { a: 1.0, b: 1.0, shift: 0.0, scale: 1.0 }, 200, 10, 80),
        (ProblemSpec::Hpo(small_wine()), 40, 8, 32),
    ] {
        let width = |repeats: usize| {
            let r = contract::run::<BanditExperiment>((config(problem.clone(), rounds, repeats)).clone(), None, |_| {}, &AtomicBool::new(false)).unwrap();
            r.algorithms.iter().map(|a| a.final_cumulative_regret.hi - a.final_cumulative_regret.lo).collect::<Vec<f64>>()
        };
        let (w_few, w_many) = (width(few), width(many));
        for (a, b) in w_few.iter().zip(&w_many) {
            assert!(b < a, "{problem:?}: band {few} repeats {a}, {many} repeats {b}");
        }
    }
}

#[test]
fn report_counts_distinct_arms_and_random_search_tries_a_new_arm_per_pull() {
    let r = contract::run::<BanditExperiment>(config(ProblemSpec::Reservoir { a: 1.0, b: 3.0, shift: 0.0, scale: 1.0 }, 100, 3).clone(), None, |_| {}, &AtomicBool::new(false)).unwrap();
    let by = |n: &str| r.algorithms.iter().find(|a| a.name == n).unwrap();
    assert_eq!(by("random").distinct_arms.mean, vec![20.0, 40.0, 60.0, 80.0, 100.0]);
    assert_eq!(*by("uniform").distinct_arms.mean.last().unwrap(), 10.0);
    let d = &by("d-ttts").distinct_arms.mean;
    assert!(d.windows(2).all(|w| w[0] <= w[1]) && d[4] > 10.0 && d[4] < 100.0, "{d:?}");
    for a in &r.algorithms {
        assert!((a.final_value.mean - (1.0 - a.final_simple_regret.mean)).abs() < 1e-12);
    }
}

#[test]
fn hpo_configs_parse_with_defaults_and_reject_unknown_fields() {
    let c: ProblemSpec = serde_json::from_str(r#"{"kind": "hpo", "model": "kernel-ridge", "data": "wine", "truth_folds": 3}"#).unwrap();
    let ProblemSpec::Hpo(s) = &c else { panic!() };
    assert_eq!((s.truth_folds, s.valid, s.reference_arms), (3, 150, 100));
    let m: ProblemSpec = serde_json::from_str(r#"{"kind": "hpo", "model": "mlp", "data": {"mnist": {"per_class": 50}}}"#).unwrap();
    assert!(matches!(m, ProblemSpec::Hpo(_)));
    assert!(serde_json::from_str::<ProblemSpec>(r#"{"kind": "hpo", "model": "kernel-ridge", "data": "wine", "bogus": 1}"#).is_err());
    let bad = BanditConfig { problem: ProblemSpec::Hpo(HpoSpec { truth_folds: 0, ..small_wine() }), ..config(ProblemSpec::Hpo(small_wine()), 10, 1) };
    assert!(bad.validate().is_err());
}

#[test]
fn svm_presets_run_the_svm_over_the_posters_box_and_kernel_ridge_keeps_its_own() {
    use tunelab::experiments::bandit::hpo::HpoModel;
    for (name, svm) in [("svm-breast-cancer", true), ("svm-wine", true), ("kernel-ridge-breast-cancer", false), ("kernel-ridge-wine", false)] {
        let ProblemSpec::Hpo(s) = BanditConfig::preset(name).unwrap().problem else { panic!("{name}") };
        match s.model {
            // D-TTTS, "Experimental Setting": C, gamma in [1e-5, 1e5]
            HpoModel::Svm { log10_c, log10_gamma, .. } if svm => assert_eq!((log10_c, log10_gamma), ((-5.0, 5.0), (-5.0, 5.0))),
            HpoModel::KernelRidge { log10_c, log10_gamma, .. } if !svm => assert_eq!((log10_c, log10_gamma), ((-3.0, 3.0), (-4.0, 1.0))),
            other => panic!("{name}: {other:?}"),
        }
    }
    let c: ProblemSpec = serde_json::from_str(r#"{"kind": "hpo", "model": "svm", "data": "wine"}"#).unwrap();
    assert_eq!(c, ProblemSpec::Hpo(HpoSpec::svm(ClassData::Wine)));
}

#[test]
fn an_svm_pull_is_the_validation_accuracy_of_a_direct_svm_fit_on_its_fold() {
    use tunelab::rng::substream;
    use tunelab::svm::{Svc, SvcOptions};
    let mut spec = HpoSpec::svm(ClassData::Wine);
    spec.truth_folds = 2;
    spec.reference_arms = 2;
    let sh = shared(&spec);
    let mut p = Hpo::new(sh.clone(), 77);
    let mut seen = Vec::new();
    for (k, j) in [(3usize, 1u64), (0, 0), (6, 2)] {
        let cfg = p.config(k).to_vec();
        assert!(cfg.iter().all(|v| (-5.0..=5.0).contains(v)), "{cfg:?}");
        let got = p.reward(k, j);
        // the pull's stream (module docs of hpo): key seed ^ k * golden, tag TAG_PULL = 0x4870_0002, index j
        let mut rng = substream(77 ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15), 0x4870_0002, j);
        let (tr, va) = sh.fold(&mut rng).unwrap();
        let (c, g) = (10f64.powf(cfg[0]), 10f64.powf(cfg[1]));
        let labels: Vec<usize> = tr.y.iter().map(|&y| y as usize).collect();
        let svc = Svc::fit(&tr.x, tr.p, &labels, 3, c, g, &SvcOptions::new(c));
        let direct = (0..va.n).filter(|&v| svc.predict(va.row(v)) == Some(va.y[v] as usize)).count() as f64 / va.n as f64;
        assert_eq!(got, direct, "arm {k} pull {j} (C = {c}, gamma = {g})");
        seen.push(got);
    }
    assert!(seen.iter().all(|v| (0.0..=1.0).contains(v)));
}
