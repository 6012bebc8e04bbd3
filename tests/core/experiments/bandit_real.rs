//! D-TTTS on real tuning problems (src/bandit/hpo.rs): reproducible pulls, real noise, regret bands that shrink
//! with more repeats, random search and distinct-arm counts in the report.

use crate::common::contract;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tunelab::experiments::bandit::BanditExperiment;

use tunelab::bandit::{Arm, TttsOptions};
use tunelab::experiments::bandit::hpo::{ClassData, DigitData, Hpo, HpoShared, HpoSpec};
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
            let r = contract::run::<BanditExperiment>(
                (config(problem.clone(), rounds, repeats)).clone(),
                None,
                |_| {},
                &AtomicBool::new(false),
            )
            .unwrap();
            r.algorithms
                .iter()
                .map(|a| a.final_cumulative_regret.hi - a.final_cumulative_regret.lo)
                .collect::<Vec<f64>>()
        };
        let (w_few, w_many) = (width(few), width(many));
        for (a, b) in w_few.iter().zip(&w_many) {
            assert!(b < a, "{problem:?}: band {few} repeats {a}, {many} repeats {b}");
        }
    }
}

#[test]
fn report_counts_distinct_arms_and_random_search_tries_a_new_arm_per_pull() {
    let r = contract::run::<BanditExperiment>(
        config(ProblemSpec::Reservoir { a: 1.0, b: 3.0, shift: 0.0, scale: 1.0 }, 100, 3).clone(),
        None,
        |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
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
    let c: ProblemSpec =
        serde_json::from_str(r#"{"kind": "hpo", "model": "kernel-ridge", "data": "wine", "truth_folds": 3}"#).unwrap();
    let ProblemSpec::Hpo(s) = &c else { panic!() };
    assert_eq!((s.truth_folds, s.valid, s.reference_arms), (3, 150, 100));
    let m: ProblemSpec =
        serde_json::from_str(r#"{"kind": "hpo", "model": "mlp", "data": {"mnist": {"per_class": 50}}}"#).unwrap();
    assert!(matches!(m, ProblemSpec::Hpo(_)));
    assert!(serde_json::from_str::<ProblemSpec>(
        r#"{"kind": "hpo", "model": "kernel-ridge", "data": "wine", "bogus": 1}"#
    )
    .is_err());
    let bad = BanditConfig {
        problem: ProblemSpec::Hpo(HpoSpec { truth_folds: 0, ..small_wine() }),
        ..config(ProblemSpec::Hpo(small_wine()), 10, 1)
    };
    assert!(bad.validate().is_err());
}

#[test]
fn svm_presets_run_the_svm_over_the_posters_box_and_kernel_ridge_keeps_its_own() {
    use tunelab::experiments::bandit::hpo::HpoModel;
    for (name, svm) in [
        ("svm-breast-cancer", true),
        ("svm-wine", true),
        ("kernel-ridge-breast-cancer", false),
        ("kernel-ridge-wine", false),
    ] {
        let ProblemSpec::Hpo(s) = BanditConfig::preset(name).unwrap().problem else { panic!("{name}") };
        match s.model {
            // D-TTTS, "Experimental Setting": C, gamma in [1e-5, 1e5]
            HpoModel::Svm { log10_c, log10_gamma, .. } if svm => {
                assert_eq!((log10_c, log10_gamma), ((-5.0, 5.0), (-5.0, 5.0)))
            }
            HpoModel::KernelRidge { log10_c, log10_gamma, .. } if !svm => {
                assert_eq!((log10_c, log10_gamma), ((-3.0, 3.0), (-4.0, 1.0)))
            }
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
        let direct =
            (0..va.n).filter(|&v| svc.predict(va.row(v)) == Some(va.y[v] as usize)).count() as f64 / va.n as f64;
        assert_eq!(got, direct, "arm {k} pull {j} (C = {c}, gamma = {g})");
        seen.push(got);
    }
    assert!(seen.iter().all(|v| (0.0..=1.0).contains(v)));
}

/// The `mlp-mnist-poster` preset's problem with one reference arm and one truth fold (cheap to build).
fn poster_shared() -> Arc<HpoShared> {
    static SH: std::sync::OnceLock<Arc<HpoShared>> = std::sync::OnceLock::new();
    SH.get_or_init(|| {
        let mut spec = HpoSpec::mlp_poster(DigitData::Mnist { per_class: 100 });
        spec.truth_folds = 1;
        spec.reference_arms = 1;
        shared(&spec)
    })
    .clone()
}

/// An arm `[log10 lr, width, alpha, batch]` in the D-TTTS poster's MNIST box ("Experimental Setting":
/// hidden_layer_size integer in [5, 50], alpha in [0, 0.9], learning_rate_init in [1e-5, 1e-1]), batch 200.
fn in_poster_box(c: &[f64]) -> bool {
    c.len() == 4
        && (-5.0..=-1.0).contains(&c[0])
        && (5.0..=50.0).contains(&c[1])
        && c[1].fract() == 0.0
        && (0.0..=0.9).contains(&c[2])
        && c[3] == 200.0
}

mod poster_box {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// Every arm of every repeat seed lies in the poster's box.
        #[test]
        fn mlp_mnist_poster_arms_lie_in_the_posters_box(seed in any::<u64>(), k in 0usize..1500) {
            let mut p = Hpo::new(poster_shared(), seed);
            for i in 0..=k {
                let c = p.config(i).to_vec();
                prop_assert!(in_poster_box(&c), "seed {} arm {}: {:?}", seed, i, c);
            }
        }
    }
}

#[test]
fn mlp_mnist_poster_draws_width_and_alpha_uniformly_and_the_rate_log_uniformly() {
    let mut p = Hpo::new(poster_shared(), 1);
    let arms: Vec<Vec<f64>> = (0..4000).map(|k| p.config(k).to_vec()).collect();
    let frac = |f: &dyn Fn(&[f64]) -> bool| arms.iter().filter(|c| f(c)).count() as f64 / arms.len() as f64;
    // both ends of the integer range are drawn; uniform: width <= 27 is 23 of the 46 integers (log-uniform: 0.74)
    assert!(arms.iter().any(|c| c[1] == 5.0) && arms.iter().any(|c| c[1] == 50.0));
    let w = frac(&|c| c[1] <= 27.0);
    assert!((0.45..0.55).contains(&w), "{w}");
    // alpha linear on [0, 0.9]: half below 0.45, the range's ends approached
    let a = frac(&|c| c[2] < 0.45);
    assert!((0.45..0.55).contains(&a), "{a}");
    assert!(arms.iter().any(|c| c[2] < 0.005) && arms.iter().any(|c| c[2] > 0.895));
    // learning rate log-uniform over the four decades: half below 1e-3 (linear: 1%)
    let l = frac(&|c| c[0] < -3.0);
    assert!((0.45..0.55).contains(&l), "{l}");
    assert!(p.describe(&Arm::Index(0)).unwrap().contains("alpha = "));
    let r = p.reward(0, 0);
    assert!((0.0..=1.0).contains(&r));
}

#[test]
fn mlp_mnist_poster_preset_is_the_posters_box_and_the_other_mlp_presets_keep_theirs() {
    use tunelab::experiments::bandit::hpo::{HpoModel, IntScale, Solver};
    let cfg = BanditConfig::preset("mlp-mnist-poster").unwrap();
    assert_eq!((cfg.rounds, cfg.repeats), (200, 8), "as mlp-mnist");
    let ProblemSpec::Hpo(s) = &cfg.problem else { panic!() };
    let HpoModel::Mlp { data, log10_lr, width, width_scale, log10_l2, alpha, batch, epochs, solver, train } = &s.model
    else {
        panic!()
    };
    assert_eq!(*data, DigitData::Mnist { per_class: 100 });
    assert_eq!(
        (*log10_lr, *width, *width_scale, *alpha, *log10_l2),
        ((-5.0, -1.0), (5, 50), IntScale::Uniform, Some((0.0, 0.9)), None)
    );
    assert_eq!((*batch, *epochs, *solver, *train), ((200, 200), 4, Solver::Sgd, None));
    // the same box trained as scikit-learn's MLPClassifier by default: Adam, at most 200 epochs
    let adam = BanditConfig::preset("mlp-mnist-poster-adam").unwrap();
    assert_eq!((adam.rounds, adam.repeats), (200, 8));
    let ProblemSpec::Hpo(a) = &adam.problem else { panic!() };
    let HpoModel::Mlp { epochs, solver, .. } = &a.model else { panic!() };
    assert_eq!((*epochs, *solver), (200, Solver::Adam));
    let mut as_sgd = a.clone();
    if let HpoModel::Mlp { epochs, solver, .. } = &mut as_sgd.model {
        (*epochs, *solver) = (4, Solver::Sgd);
    }
    assert_eq!(&as_sgd, s, "only the training differs from mlp-mnist-poster");
    for name in ["mlp-digits", "mlp-mnist"] {
        let ProblemSpec::Hpo(s) = BanditConfig::preset(name).unwrap().problem else { panic!() };
        let HpoModel::Mlp { log10_lr, width, width_scale, log10_l2, alpha, batch, .. } = s.model else { panic!() };
        assert_eq!(
            (log10_lr, width, width_scale, log10_l2, alpha, batch),
            ((-3.0, 0.5), (4, 64), IntScale::Log, Some((-6.0, -1.0)), None, (8, 128)),
            "{name}"
        );
    }
    // the JSON form; the penalty is alpha or log10_l2, not both; alpha >= 0; scales are named
    let json = r#"{"kind": "hpo", "model": "mlp", "data": {"mnist": {"per_class": 100}}, "log10_lr": [-5, -1],
        "width": [5, 50], "width_scale": "uniform", "alpha": [0, 0.9], "batch": [200, 200]}"#;
    let c: ProblemSpec = serde_json::from_str(json).unwrap();
    assert_eq!(c, cfg.problem);
    let check = |json: &str| -> Result<(), String> {
        let p: ProblemSpec = serde_json::from_str(json).map_err(|e| e.to_string())?;
        config(p, 10, 1).validate().map(|_| ()).map_err(|e| e.to_string())
    };
    assert!(check(&json.replace(r#""batch""#, r#""log10_l2": [-6, -1], "batch""#)).unwrap_err().contains("not both"));
    assert!(check(&json.replace("[0, 0.9]", "[-0.1, 0.9]")).unwrap_err().contains("alpha"));
    assert!(check(&json.replace(r#""uniform""#, r#""linear""#)).is_err());
    check(&json.replace(r#", "width_scale": "uniform""#, "")).unwrap();
    let adam_json = json.replace(r#""batch""#, r#""solver": "adam", "epochs": 200, "batch""#);
    assert_eq!(serde_json::from_str::<ProblemSpec>(&adam_json).unwrap(), adam.problem);
    assert!(check(&json.replace(r#""batch""#, r#""solver": "lbfgs", "batch""#)).is_err());
    assert!(check(&adam_json.replace(r#""epochs": 200"#, r#""epochs": 1001"#)).unwrap_err().contains("epochs"));
}
