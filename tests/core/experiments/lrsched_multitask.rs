//! Multi-task scheduling of the learning rate (Picheny et al., Sec. 4; `lr_schedule::multitask`): the product
//! kernel with learnt task locations (Sec. 4.1; one task = the single-task kernel; the embedding's covariance
//! structure), the location gradient against finite differences, eq. 8's variance against an actual
//! conditioning, the search and initial design, the Sec. 4.4 criteria, Algorithm 2 on real MNIST tasks
//! (first evaluations of every tuner, determinism across thread counts), bad configs.

use crate::common::contract;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use std::sync::atomic::AtomicBool;
use tunelab::experiments::lr_schedule::multitask::acquire::{self, Reference};
use tunelab::experiments::lr_schedule::multitask::trace_gp::{Obs, TraceGp};
use tunelab::experiments::lr_schedule::multitask::{gram, k_input, k_product, k_task, MtHyper, MultiTaskGp};
use tunelab::experiments::lr_schedule::LrExperiment;
use tunelab::experiments::lr_schedule::{LrConfig, LrProblem, MultitaskSpec};
use tunelab::rng::stream;
use tunelab::Error;

fn random_points(n: usize, tasks: usize, seed: u64) -> Vec<([f64; 2], usize)> {
    let mut rng = stream(seed, 0);
    (0..n).map(|i| ([rng.random::<f64>() * 3.0 - 1.5, rng.random::<f64>()], i % tasks)).collect()
}

fn hyper(loc: Vec<[f64; 2]>) -> MtHyper {
    MtHyper { ls: [0.7, 0.2], signal_var: 1.3, noise_var: 0.01, loc }
}

#[test]
fn the_product_kernel_is_psd_with_the_embedding_structure() {
    let pts = random_points(40, 3, 1);
    let h = hyper(vec![[0.0, 0.0], [1.0, 0.0], [0.3, -2.0]]);
    let k = gram(&h, &pts);
    assert!(k.clone().symmetric_eigen().eigenvalues.min() > -1e-10);
    for i in 0..pts.len() {
        for j in 0..pts.len() {
            assert_eq!(k[(i, j)], k[(j, i)]);
            let ku = k_input(&h, &pts[i].0, &pts[j].0);
            // k_Ω(w, w') = exp(-|w - w'|²/2): 1 within a task (exactly the input kernel), e^{-1/2} between
            // tasks 0 and 1 at distance 1.
            let want = ku
                * (-0.5
                    * ((h.loc[pts[i].1][0] - h.loc[pts[j].1][0]).powi(2)
                        + (h.loc[pts[i].1][1] - h.loc[pts[j].1][1]).powi(2)))
                .exp();
            assert!((k[(i, j)] - want).abs() < 1e-14);
            if pts[i].1 == pts[j].1 {
                assert_eq!(k[(i, j)], ku);
            }
        }
    }
    assert!((k_task(&[0.0, 0.0], &[1.0, 0.0]) - (-0.5f64).exp()).abs() < 1e-15);
    assert_eq!(k_product(&h, &([0.1, 0.2], [5.0, 5.0]), &([0.1, 0.2], [5.0, 5.0])), h.signal_var);
}

#[test]
fn with_one_task_the_gp_is_the_single_task_gp_and_locations_act_as_designed() {
    // One task: the posterior equals the textbook single-task GP with the input kernel (R&W eqs. 2.25-2.26).
    let pts = random_points(25, 1, 2);
    let z: Vec<f64> = pts.iter().map(|p| (2.0 * p.0[0]).sin() + p.0[1]).collect();
    let h = hyper(vec![[0.7, -0.3]]);
    let g = MultiTaskGp::fit(&pts, &z, h.clone()).unwrap();
    let n = pts.len();
    let kmat =
        DMatrix::from_fn(n, n, |i, j| k_input(&h, &pts[i].0, &pts[j].0) + if i == j { h.noise_var } else { 0.0 });
    let kinv = kmat.try_inverse().unwrap();
    let q = [([0.3, 0.4], 0), ([-1.0, 0.9], 0)];
    let m = g.mean(&q);
    let c = g.posterior_cov(&q, &q).unwrap();
    for (a, qa) in q.iter().enumerate() {
        let ka = DVector::from_fn(n, |i, _| k_input(&h, &pts[i].0, &qa.0));
        assert!((m[a] - (ka.transpose() * &kinv * DVector::from_column_slice(&z))[0]).abs() < 1e-9);
        let v = k_input(&h, &qa.0, &qa.0) - (ka.transpose() * &kinv * &ka)[0];
        assert!((c[(a, a)] - v).abs() < 1e-9, "{} vs {v}", c[(a, a)]);
    }
    // Two tasks at the same location pool their data: the posterior of task 1 is task 0's.
    let two: Vec<_> = pts.iter().enumerate().map(|(i, p)| (p.0, i % 2)).collect();
    let same = MultiTaskGp::fit(&two, &z, hyper(vec![[0.2, 0.2], [0.2, 0.2]])).unwrap();
    let pooled = MultiTaskGp::fit(&pts, &z, hyper(vec![[0.0, 0.0]])).unwrap();
    let (a, b) = (same.mean(&[([0.3, 0.4], 1)])[0], pooled.mean(&[([0.3, 0.4], 0)])[0]);
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    // Far apart, the tasks are independent: task 1 without data keeps the prior.
    let only0: Vec<_> = pts.to_vec();
    let far = MultiTaskGp::fit(&only0, &z, hyper(vec![[0.0, 0.0], [50.0, 0.0]])).unwrap();
    assert!(far.mean(&[([0.3, 0.4], 1)])[0].abs() < 1e-12);
    assert!((far.posterior_cov(&[([0.3, 0.4], 1)], &[([0.3, 0.4], 1)]).unwrap()[(0, 0)] - 1.3).abs() < 1e-12);
}

#[test]
fn the_location_gradient_matches_finite_differences() {
    let pts = random_points(30, 3, 3);
    let z: Vec<f64> = pts.iter().map(|p| (2.0 * p.0[0]).sin() * (1.0 + 0.3 * p.1 as f64) + p.0[1]).collect();
    let loc = vec![[0.1, -0.2], [0.6, 0.3], [-0.4, 0.8], [2.0, 2.0]];
    let g = MultiTaskGp::fit(&pts, &z, hyper(loc.clone())).unwrap();
    let grad = g.lml_grad_loc();
    let e = 1e-5;
    for t in 0..4 {
        for c in 0..2 {
            let f = |s: f64| {
                let mut l = loc.clone();
                l[t][c] += s;
                MultiTaskGp::fit(&pts, &z, hyper(l)).unwrap().log_marginal_likelihood()
            };
            let fd = (f(e) - f(-e)) / (2.0 * e);
            assert!((grad[t][c] - fd).abs() < 1e-5 * (1.0 + fd.abs()), "task {t} coord {c}: {} vs {fd}", grad[t][c]);
        }
    }
    // Task 3 has no data: zero gradient.
    assert_eq!(grad[3], [0.0, 0.0]);
}

fn smooth(u: &[f64; 2]) -> f64 {
    (2.0 * u[0]).sin() + (4.0 * u[1] - 2.0).powi(2) * 0.5 - 1.0
}

#[test]
fn type_ii_ml_places_similar_tasks_close_and_unrelated_tasks_apart() {
    let pts = random_points(48, 2, 4);
    let same: Vec<f64> = pts.iter().map(|p| smooth(&p.0)).collect();
    let other: Vec<f64> = pts.iter().map(|p| if p.1 == 0 { smooth(&p.0) } else { -smooth(&p.0) }).collect();
    let corr = |z: &[f64]| {
        let g = MultiTaskGp::fit_ml(&pts, z, &MtHyper::new(2), 60).unwrap();
        assert!(
            g.log_marginal_likelihood()
                >= MultiTaskGp::fit(&pts, z, MtHyper::new(2)).unwrap().log_marginal_likelihood()
        );
        k_task(&g.hyper.loc[0], &g.hyper.loc[1])
    };
    // Start: distance 1 (correlation 0.61).
    let (cs, co) = (corr(&same), corr(&other));
    assert!(cs > 0.9, "same tasks: correlation {cs}");
    assert!(co < 0.3, "opposite tasks: correlation {co}");
}

/// A trace model from synthetic runs: the log loss falls by `a_t * r (1 - r)` per interval at rate `lr`
/// (`r` = the rate's position in the log range), so the mid rates are best; `a_t` per task.
fn toy_model(a: &[f64], runs_per_task: usize) -> TraceGp {
    let bounds = [1e-3, 1.0];
    let mut obs = Vec::new();
    for (t, &at) in a.iter().enumerate() {
        for r in 0..runs_per_task {
            let mut y = 0.0;
            for k in 0..4 {
                let u = ((r * 4 + k) % 7) as f64 / 6.0;
                let lr = 10f64.powf(-3.0 + 3.0 * u);
                let next = y - at * (0.2 + u * (1.0 - u));
                obs.push(Obs { task: t, lny: y, lr, lny_next: next });
                y = next;
            }
        }
    }
    TraceGp::fit(&obs, bounds, &MtHyper::new(a.len()).loc, 20).unwrap()
}

#[test]
fn eq8_variance_is_the_variance_after_conditioning_on_the_run() {
    let model = toy_model(&[1.0, 0.8], 3);
    let lny0 = [0.0, 0.0];
    let cands: Vec<Vec<f64>> = [1e-3, 0.03, 1.0].iter().map(|&r| vec![r; 3]).collect();
    let grid = [1e-3, 0.03, 1.0];
    let refs = acquire::eq7(&model, &lny0, &[0, 1], &cands, &grid, 0.75).unwrap();
    assert_eq!(refs.len(), 2);
    // Eq. 7: each reference minimises the 0.25-quantile (mean - Φ⁻¹(0.75) sd) over the candidates.
    for r in &refs {
        let q = |s: &[f64]| {
            let p = model.predict(lny0[r.task], s, model.loc(r.task)).unwrap();
            p.final_mean() - 0.674_489_75 * p.final_var().sqrt()
        };
        assert!(cands.iter().all(|c| q(&r.sched) <= q(c) + 1e-9));
    }
    let ((s, t), jbar) = acquire::eq8(&model, &lny0, &refs, &cands, &[0, 1]).unwrap();
    // Reference: add the run's d observations (at its mean-path inputs, any values) to the GP with the same
    // hyperparameters, and recompute the variance of each reference's final ln loss.
    let jbar_of = |s: usize, t: usize| {
        let p = model.predict(lny0[t], &cands[s], model.loc(t)).unwrap();
        let (pts, z) = model.gp.data();
        let mut pts = pts.to_vec();
        let mut z = z.to_vec();
        for q in &p.pts {
            pts.push((q.0, t));
            z.push(0.123);
        }
        let g = MultiTaskGp::fit(&pts, &z, model.gp.hyper.clone()).unwrap();
        let var = |r: &Reference| {
            let c = g.posterior_cov_at(&r.pred.pts, &r.pred.pts).unwrap();
            c.sum() * model.z_scale * model.z_scale
        };
        refs.iter().map(var).sum::<f64>() / refs.len() as f64
    };
    assert!((jbar - jbar_of(s, t)).abs() < 1e-6 * (1.0 + jbar), "{jbar} vs {}", jbar_of(s, t));
    // And it is the minimiser over every (schedule, task).
    for s2 in 0..cands.len() {
        for t2 in 0..2 {
            assert!(jbar <= jbar_of(s2, t2) + 1e-6 * (1.0 + jbar));
        }
    }
    // The mean variance before the run is larger.
    let j: f64 = refs.iter().map(|r| r.pred.final_var()).sum::<f64>() / 2.0;
    assert!(jbar < j);
}

#[test]
fn the_search_the_initial_design_and_the_hull_follow_the_text() {
    // The greedy pass (one rate at a time from x_0) reaches the separable minimum from the best candidate.
    let target: [f64; 3] = [0.1, 1.0, 0.01];
    let f =
        |s: &[f64]| Ok::<f64, Error>(s.iter().zip(&target).map(|(a, b)| (a.log10() - b.log10()).powi(2)).sum::<f64>());
    let (x, v) = acquire::search(&[vec![1.0; 3], vec![0.001; 3]], &[0.001, 0.01, 0.1, 1.0], f).unwrap();
    assert_eq!(x, target.to_vec());
    assert_eq!(v, 0.0);
    // Latin hypercube in log space: each interval's rates fill the n strata once.
    let n = 5;
    let d = lhs_check(n);
    assert_eq!(d, n);
    // Convex hull of a square and an interior point; uniform samples stay inside, their mean is the centre.
    let sq = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [1.0, 0.5]];
    assert_eq!(acquire::convex_hull(&sq).len(), 4);
    let s = acquire::hull_samples(&sq, 4000, &mut stream(1, 2));
    assert!(s.iter().all(|p| (0.0..=2.0).contains(&p[0]) && (0.0..=2.0).contains(&p[1])));
    let mx = s.iter().map(|p| p[0]).sum::<f64>() / 4000.0;
    let my = s.iter().map(|p| p[1]).sum::<f64>() / 4000.0;
    assert!((mx - 1.0).abs() < 0.05 && (my - 1.0).abs() < 0.05, "{mx} {my}");
    // A triangle: fraction in the lower-left half of the bounding box x + y < 1 is 1/4 for triangle (0,0),(2,0),(0,2).
    let tri = acquire::hull_samples(&[[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]], 4000, &mut stream(1, 3));
    let frac = tri.iter().filter(|p| p[0] + p[1] < 1.0).count() as f64 / 4000.0;
    assert!((frac - 0.25).abs() < 0.03, "{frac}");
}

fn lhs_check(n: usize) -> usize {
    let x = acquire::lhs(n, 4, [1e-3, 1.0], &mut stream(3, 4));
    for k in 0..4 {
        let mut bins: Vec<usize> = x.iter().map(|s| ((s[k].log10() + 3.0) / 3.0 * n as f64).floor() as usize).collect();
        bins.sort();
        assert_eq!(bins, (0..n).collect::<Vec<_>>());
    }
    x.len()
}

#[test]
fn the_warm_start_criteria_of_sec_4_4() {
    let model = toy_model(&[1.0, 0.3, 0.6], 3);
    let cands: Vec<Vec<f64>> = [1e-3, 0.03, 1.0].iter().map(|&r| vec![r; 3]).collect();
    let grid = [1e-3, 0.03, 1.0];
    let ws = acquire::hull_samples(&[model.loc(0), model.loc(1), model.loc(2)], 8, &mut stream(5, 6));
    // Universal: the lowest predicted final ln loss averaged over w_new, no worse than any candidate.
    let avg =
        |s: &[f64]| ws.iter().map(|&w| model.predict(0.0, s, w).unwrap().final_mean()).sum::<f64>() / ws.len() as f64;
    let u = acquire::universal(&model, 0.0, &ws, &cands, &grid).unwrap();
    assert!(cands.iter().all(|c| avg(&u) <= avg(c) + 1e-12));
    // Learn-location: the share of the variance due to w_new is in [0, 1] per boundary, zero when w_new is
    // known (one sample), and the chosen run's share is the largest among the candidates.
    let share = |s: &[f64], ws: &[[f64; 2]]| acquire::location_share(&model, 0.0, s, ws).unwrap();
    for c in &cands {
        let v = share(c, &ws);
        assert!((0.0..=3.0).contains(&v));
        assert_eq!(share(c, &ws[..1]), 0.0);
    }
    let (l, v) = acquire::learn_location(&model, 0.0, &ws, &cands, &grid).unwrap();
    assert!((share(&l, &ws) - v).abs() < 1e-12);
    assert!(cands.iter().all(|c| share(c, &ws) <= v + 1e-12));
}

/// A tiny multi-task run on real MNIST tasks (0v1 and 2v3 previous, 8v9 new; 30 digits per class pooled to
/// 4 x 4).
pub(super) fn tiny() -> LrConfig {
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
        tasks: vec![[0, 1], [2, 3], [8, 9]],
        per_class: 30,
        pool: 7,
        source_runs: 2,
        initial_runs: 2,
        target_runs: 3,
        candidate_constants: 4,
        candidate_decay_starts: 2,
        rate_grid: 4,
        location_samples: 4,
        location_steps: 5,
        ..MultitaskSpec::default()
    });
    c
}

#[test]
fn algorithm_2_and_the_warm_starts_run_as_written_and_do_not_depend_on_threads() {
    let cfg = tiny();
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| contract::run::<LrExperiment>(cfg.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap())
    };
    let (a, b) = (run(1), run(2));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let mt = a.multitask.as_ref().unwrap();
    // Algorithm 2: N_0 = 2 Latin-hypercube runs on the previous tasks in turn, then N - N_0 = 2 by eq. 8.
    let rules: Vec<&str> = mt.source_runs.iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(rules, ["lhs", "lhs", "eq8", "eq8"]);
    assert_eq!(mt.source_runs[0].task, 0);
    assert_eq!(mt.source_runs[1].task, 1);
    assert!(mt.source_runs.iter().all(|r| r.task < 2));
    assert!(mt.source_runs[2..].iter().all(|r| r.predicted_ln.is_some() && r.jbar.is_some_and(|j| j >= 0.0)));
    assert_eq!(mt.recommended.len(), 2);
    // Algorithm 2's output evaluated on its tasks; a recommended candidate reproduces that task's grid value.
    assert_eq!(mt.recommended_final.len(), 2);
    for t in 0..2 {
        assert_eq!(mt.source_grid[t].len(), 6);
        let cands = tunelab::experiments::lr_schedule::MultitaskSpec::candidates(cfg.multitask.as_ref().unwrap(), &cfg);
        if let Some(c) = cands.iter().position(|c| c.2 == mt.recommended[t]) {
            assert_eq!(mt.recommended_final[t], mt.source_grid[t][c]);
        }
    }
    assert_eq!(mt.locations.len(), 2);
    // First evaluations on the new task: each tuner's own rule, then eq. 8 on the new task.
    for (t, first) in [
        (&mt.universal, "universal"),
        (&mt.learn_location, "learn-location"),
        (&mt.cold, "lhs"),
        (&mt.random, "random"),
    ] {
        assert_eq!(t.runs.len(), 3);
        assert_eq!(t.runs[0].rule, first);
        assert!(t.runs.iter().all(|r| r.task == 2 && r.final_loss.is_finite() && r.schedule.len() == 3));
        assert!(t.best_so_far.windows(2).all(|w| w[1] <= w[0]));
        if first != "random" {
            assert!(t.runs[1..].iter().all(|r| r.rule == "eq8"));
        }
    }
    assert!(mt.universal.runs[0].predicted_ln.is_some() && mt.cold.runs[0].predicted_ln.is_none());
    assert!(mt.universal.location.is_some() && mt.cold.location.is_none());
    assert_eq!(mt.target_grid.len(), 4 + 2);
    // Common random numbers: a candidate's first run on the new task reproduces the grid's value.
    for t in [&mt.universal, &mt.learn_location, &mt.cold, &mt.random] {
        for (i, r) in t.runs.iter().enumerate() {
            if let Some(c) = r.candidate {
                if t.runs[..i].iter().all(|x| x.schedule != r.schedule) {
                    assert_eq!(r.final_loss, mt.target_grid[c]);
                }
            }
        }
    }
    let u = a.methods.iter().find(|m| m.family == "multitask-universal").unwrap();
    assert_eq!(u.final_loss, *mt.universal.best_so_far.last().unwrap());
}

#[test]
fn bad_multitask_configs_are_config_errors() {
    let bad = |f: &dyn Fn(&mut MultitaskSpec)| {
        let mut c = tiny();
        f(c.multitask.as_mut().unwrap());
        matches!(c.validate(), Err(Error::Config(_)))
    };
    assert!(bad(&|m| m.target_runs = 0));
    assert!(bad(&|m| m.tasks = vec![[3, 3], [8, 9]]));
    assert!(bad(&|m| m.alpha = 0.5));
    assert!(bad(&|m| m.initial_runs = 5));
    assert!(bad(&|m| m.initial_runs = 0));
    assert!(bad(&|m| m.rate_grid = 1));
    let mut c = tiny();
    c.problem = LrProblem::NoisyQuadratic { dim: 5, noise: 1.0 };
    assert!(matches!(c.validate(), Err(Error::Config(_))));
    let preset = LrConfig::preset("mnist-multitask").unwrap();
    preset.validate().unwrap();
    // The page's worker installs the digits when a config needs them.
    assert!(tunelab::experiments::ExperimentConfig::LrSchedule(preset).needs_mnist());
    assert!(!tunelab::experiments::ExperimentConfig::LrSchedule(LrConfig::preset("digits").unwrap()).needs_mnist());
}
