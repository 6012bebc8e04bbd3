//! Multi-task warm start of the learning-rate tuner (Picheny et al. 2020, Sec. 4; `lr_schedule::multitask`): the
//! task-embedding product kernel, the TRUVAR acquisition on a hand-computed case, warm start lowering the
//! new task's prediction variance, type-II ML finding the task correlation, determinism across thread counts
//! on real MNIST tasks, bad configs.

use crate::common::contract;
use tunelab::experiments::lr_schedule::LrExperiment;
use nalgebra::DMatrix;
use std::sync::atomic::AtomicBool;
use tunelab::experiments::lr_schedule::multitask::{gram, k_input, k_product, truvar_scores, CandidateRun, MtHyper, MultiTaskGp};
use tunelab::experiments::lr_schedule::{LrConfig, LrProblem, MultitaskSpec};
use tunelab::rng::stream;
use tunelab::Error;
use rand::RngExt;

fn random_points(n: usize, tasks: usize, seed: u64) -> Vec<([f64; 2], usize)> {
    let mut rng = stream(seed, 0);
    (0..n)
        .map(|i| ([rng.random::<f64>() * 3.0 - 1.5, rng.random::<f64>()], i % tasks))
        .collect()
}

#[test]
fn the_product_kernel_is_psd_and_is_k_u_within_a_task() {
    let pts = random_points(40, 3, 1);
    for rho in [0.0, 0.3, 0.9, 1.0] {
        let h = MtHyper { ls: [0.7, 0.2], signal_var: 1.3, noise_var: 0.01, rho };
        let k = gram(&h, &pts);
        let min_eig = k.clone().symmetric_eigen().eigenvalues.min();
        assert!(min_eig > -1e-10, "rho {rho}: smallest eigenvalue {min_eig}");
        for i in 0..pts.len() {
            for j in 0..pts.len() {
                assert_eq!(k[(i, j)], k[(j, i)]);
                let ku = k_input(&h, &pts[i].0, &pts[j].0);
                if pts[i].1 == pts[j].1 {
                    // Same task: exactly the input kernel.
                    assert_eq!(k_product(&h, &pts[i], &pts[j]), ku);
                } else {
                    assert!((k[(i, j)] - rho * ku).abs() < 1e-15);
                }
            }
        }
    }
    // A task "correlation" above 1 is not a covariance: the check above can fail.
    let h = MtHyper { ls: [0.7, 0.2], signal_var: 1.0, noise_var: 0.01, rho: 1.5 };
    let same = vec![([0.1, 0.5], 0), ([0.1, 0.5], 1)];
    assert!(gram(&h, &same).symmetric_eigen().eigenvalues.min() < -0.1);
}

#[test]
fn truvar_prefers_the_largest_variance_reduction_per_unit_cost() {
    // One quantity of variance 1; two runs, each one observation of variance 1 with noise 0.1, correlated
    // 0.9 and 0.1 with the quantity. Variance after the run: 1 - c²/1.1.
    let run = |c: f64, cost: f64| CandidateRun {
        obs_cov: DMatrix::from_element(1, 1, 1.0),
        cross: DMatrix::from_element(1, 1, c),
        noise_var: 0.1,
        cost,
    };
    let s = truvar_scores(&[1.0], &[run(0.9, 1.0), run(0.1, 1.0)], 1.0, 0.0).unwrap();
    assert!((s[0] - 0.81 / 1.1).abs() < 1e-12, "{s:?}");
    assert!((s[1] - 0.01 / 1.1).abs() < 1e-12, "{s:?}");
    assert!(s[0] > s[1]);
    // Per unit cost: the informative run costs 100 times more and loses.
    let s = truvar_scores(&[1.0], &[run(0.9, 100.0), run(0.1, 1.0)], 1.0, 0.0).unwrap();
    assert!((s[0] - 0.81 / 110.0).abs() < 1e-12 && s[1] > s[0], "{s:?}");
    // Truncation at η² = 0.5: the first run's reduction stops at 0.5; β scales the variances.
    let s = truvar_scores(&[1.0], &[run(0.9, 1.0), run(0.1, 1.0)], 1.0, 0.5f64.sqrt()).unwrap();
    assert!((s[0] - 0.5).abs() < 1e-12, "{s:?}");
    let s = truvar_scores(&[1.0], &[run(0.9, 1.0)], 4.0, 0.0).unwrap();
    assert!((s[0] - 4.0 * 0.81 / 1.1).abs() < 1e-12, "{s:?}");
    // Two observations: the Schur complement with the 2 x 2 observation covariance.
    let two = CandidateRun {
        obs_cov: DMatrix::from_row_slice(2, 2, &[1.0, 0.5, 0.5, 1.0]),
        cross: DMatrix::from_row_slice(1, 2, &[0.6, 0.6]),
        noise_var: 0.0,
        cost: 1.0,
    };
    let s = truvar_scores(&[1.0], &[two], 1.0, 0.0).unwrap();
    // cᵀ C⁻¹ c = 0.72 / 1.5.
    assert!((s[0] - 0.72 / 1.5).abs() < 1e-12, "{s:?}");
}

fn smooth(u: &[f64; 2]) -> f64 {
    (2.0 * u[0]).sin() + (4.0 * u[1] - 2.0).powi(2) * 0.5 - 1.0
}

#[test]
fn warm_start_lowers_the_new_task_variance_and_ml_finds_the_task_correlation() {
    let pts0 = random_points(30, 1, 2);
    let z0: Vec<f64> = pts0.iter().map(|p| smooth(&p.0)).collect();
    let h = MtHyper { ls: [0.8, 0.3], signal_var: 1.0, noise_var: 0.01, rho: 0.9 };
    // Warm: the previous task's data (task 0) in the model; cold: nothing (the prior).
    let warm = MultiTaskGp::fit(&pts0, &z0, h).unwrap();
    let cold = MultiTaskGp::fit(&[], &[], h).unwrap();
    let q: Vec<([f64; 2], usize)> = vec![([0.2, 0.4], 1), ([-0.7, 0.8], 1)];
    let vw = warm.posterior_cov(&q, &q).unwrap();
    let vc = cold.posterior_cov(&q, &q).unwrap();
    for i in 0..2 {
        assert!(vw[(i, i)] < 0.3 * vc[(i, i)], "warm {} cold {}", vw[(i, i)], vc[(i, i)]);
        // Near the data the task-1 variance cannot go below the task-specific part (1 - rho) k(u, u).
        assert!(vw[(i, i)] > (1.0 - h.rho) * h.signal_var - 1e-9);
    }
    // The warm mean on the new task follows the previous task (shrunk by rho).
    let m = warm.mean(&q);
    for (i, p) in q.iter().enumerate() {
        assert!((m[i] - 0.9 * smooth(&p.0)).abs() < 0.15, "{} vs {}", m[i], smooth(&p.0));
    }
    // Type-II ML: identical tasks give a high rho, opposite tasks a low one.
    let pts = random_points(48, 2, 3);
    let same: Vec<f64> = pts.iter().map(|p| smooth(&p.0)).collect();
    let opposite: Vec<f64> = pts.iter().map(|p| if p.1 == 0 { smooth(&p.0) } else { -smooth(&p.0) }).collect();
    let g_same = MultiTaskGp::fit_ml(&pts, &same).unwrap();
    let g_opp = MultiTaskGp::fit_ml(&pts, &opposite).unwrap();
    assert!(g_same.hyper.rho >= 0.9, "{:?}", g_same.hyper);
    assert!(g_opp.hyper.rho <= 0.3, "{:?}", g_opp.hyper);
}

/// A tiny multi-task run on real MNIST tasks (0v1 previous, 8v9 new; 30 digits per class pooled to 4 x 4).
fn tiny() -> LrConfig {
    let mut c = LrConfig::new(LrProblem::Mlp { hidden: 4 });
    c.intervals = 3;
    c.steps_per_interval = 8;
    c.records_per_interval = 2;
    c.eval_points = 40;
    c.constant = 2;
    c.decay_starts = 1;
    c.decay_factors = vec![0.1];
    c.seed = 3;
    c.multitask = Some(MultitaskSpec {
        tasks: vec![[0, 1], [8, 9]],
        per_class: 30,
        pool: 7,
        source_runs: 3,
        target_runs: 3,
        candidate_constants: 4,
        candidate_decay_starts: 2,
        ..MultitaskSpec::default()
    });
    c
}

#[test]
fn multitask_results_do_not_depend_on_the_thread_count() {
    let cfg = tiny();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| contract::run::<LrExperiment>(cfg.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap())
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let mt = a.multitask.as_ref().unwrap();
    // Phase 1 ran on the previous task only; the tuners ran target_runs runs on the new task; the warm
    // tuner's first run was chosen by a model (previous data), the cold tuner's was not.
    assert_eq!(mt.source_runs.len(), 3);
    assert!(mt.source_runs.iter().all(|r| r.task == 0));
    for t in [&mt.warm, &mt.cold, &mt.random] {
        assert_eq!(t.runs.len(), 3);
        assert!(t.runs.iter().all(|r| r.task == 1 && r.final_loss.is_finite()));
        assert!(t.best_so_far.windows(2).all(|w| w[1] <= w[0]));
    }
    assert!(mt.warm.runs[0].predicted_ln.is_some() && mt.cold.runs[0].predicted_ln.is_none());
    // Once the new task has a run, the warm model holds two tasks (rho fitted); the cold one holds one.
    assert!(mt.warm.runs[1].rho.is_some() && mt.cold.runs.iter().all(|r| r.rho.is_none()));
    assert_eq!(mt.target_grid.len(), 4 + 2);
    // The tuners' reported loss is their best run; the grid holds every candidate's first run, and runs of
    // the same candidate with the same occurrence see the same minibatches (common random numbers).
    for t in [&mt.warm, &mt.cold] {
        for (i, r) in t.runs.iter().enumerate() {
            if t.runs[..i].iter().all(|x| x.candidate != r.candidate) {
                assert_eq!(r.final_loss, mt.target_grid[r.candidate]);
            }
        }
    }
    for r in &mt.random.runs {
        assert_eq!(r.final_loss, mt.target_grid[r.candidate]);
    }
    let warm = a.methods.iter().find(|m| m.family == "multitask-warm").unwrap();
    assert_eq!(warm.final_loss, *mt.warm.best_so_far.last().unwrap());
}

#[test]
fn bad_multitask_configs_are_config_errors() {
    let mut c = tiny();
    c.multitask.as_mut().unwrap().target_runs = 0;
    assert!(matches!(c.validate(), Err(Error::Config(_))));
    let mut c = tiny();
    c.multitask.as_mut().unwrap().tasks = vec![[3, 3], [8, 9]];
    assert!(matches!(c.validate(), Err(Error::Config(_))));
    let mut c = tiny();
    c.problem = LrProblem::NoisyQuadratic { dim: 5, noise: 1.0 };
    assert!(matches!(c.validate(), Err(Error::Config(_))));
    let mut c = tiny();
    c.multitask.as_mut().unwrap().eta_shrink = 0.0;
    assert!(matches!(c.validate(), Err(Error::Config(_))));
    let preset = LrConfig::preset("mnist-multitask").unwrap();
    preset.validate().unwrap();
    // The page's worker installs the digits when a config needs them.
    assert!(tunelab::experiments::ExperimentConfig::LrSchedule(preset).needs_mnist());
    assert!(!tunelab::experiments::ExperimentConfig::LrSchedule(LrConfig::preset("digits").unwrap()).needs_mnist());
}
