//! Multi-task warm start of the learning-rate schedule (Picheny, Dutordoir, Artemev & Durrande 2020, Sec. 4).
//!
//! This was written before the text of their Sec. 4 was available; it follows TRUVAR itself (Bogunovic,
//! Scarlett, Krause & Cevher, NeurIPS 2016, Algorithm 1) and an earlier description, NOT the paper's own text,
//! which states: tasks embedded as learnt locations `w ∈ R^L` (L = 2 in Sec. 4.3) in a product kernel
//! `k_Y k_x k_Ω`; eq. 7, a reference set of one UCB maximiser `argmax_x q_α[y(x, T_d, ω_i)]` per task,
//! α in (0.5, 1); eq. 8, the run `(x, ω)` minimising the expected mean variance at that set, by Monte Carlo,
//! x by gradient and ω by exhaustive search; Algorithm 2 from N_0 space-filling runs; Sec. 4.4, warm start of
//! a new task by a "universal" tuning averaged over `w_new` or by runs chosen to learn `w_new`. The deviations
//! are listed in docs/papers/lr-schedule-bo.md.
//!
//! - Trace model: the exact-GP increments model of `model.rs` (exponential link: `z_k = ln Y_{k+1} - ln Y_k`
//!   over `(ln Y_k, log10 lr_k)`), with the task as an extra input through the product kernel
//!   `k((u, t), (u', t')) = k_u(u, u') k_task(t, t')`, `k_u` Matern 5/2 ARD, `k_task(t, t') = e_tᵀ e_t'` with the
//!   task embedding `e_t = (√ρ, √(1-ρ) 1_t)` (a shared coordinate and one of its own per task), i.e.
//!   `k_task = ρ + (1 - ρ) δ_{tt'}`: PSD for ρ in [0, 1], equal to `k_u` within a task. Hyperparameters
//!   (length scales, signal and noise variance, ρ) by type-II maximum likelihood over a grid (coordinate
//!   search).
//! - The chosen quantity of a candidate schedule `s` on task `t`: its final log trace value
//!   `L(s, t) = ln Y_0(t) + Σ_k f(u_k, t)`, with the inputs `u_k` along the GP mean path (a linearisation of the
//!   recursive prediction of Sec. 2.3), so `L` is a linear functional of the GP and its variance, before and
//!   after a hypothetical run, is exact under the model.
//! - Acquisition (TRUVAR, Bogunovic et al. 2016 Alg. 1): `M` = the potential minimisers (`lcb <= min ucb` per
//!   task, bounds `μ ± β^{1/2} σ`); choose the run `(s', t')` maximising
//!   `[Σ_{m∈M} max(β σ²(m), η²) - Σ_{m∈M} max(β σ²_{|(s',t')}(m), η²)] / c(s', t')`, `σ²_{|(s',t')}` the variance
//!   after observing the `d` increments of that run; `η ← r η` once `max_M β σ² <= η²`.
//! - Algorithm (our reading of their Algorithm 2): phase 1 runs the acquisition over (schedule, task) pairs of
//!   the previous tasks; phase 2 (the new task) keeps every previous run in the model (warm start) and runs the
//!   acquisition over the new task's schedules only. The cold tuner is phase 2 without the previous tasks.


mod spec;
mod trace_gp;

pub use crate::gp::multitask::{gram, k_input, k_product, k_task, MtHyper, MultiTaskGp};
pub use crate::gp::truvar::{truvar_scores, CandidateRun};
pub use spec::MultitaskSpec;

use super::schedules::{baseline_schedules, run_schedule};
use super::{LrConfig, LrEvent, LrMethodReport, LrTracePoint, TrainProblem};
use crate::math::ln;
use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use trace_gp::{choose, Obs, TraceGp};

/// One run of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtRun {
    /// Index into `tasks`.
    pub task: usize,
    /// Index into `candidates`.
    pub candidate: usize,
    pub final_loss: f64,
    pub diverged: bool,
    /// The model's prediction of the final ln loss before the run (mean, sd); `None` for runs not chosen by
    /// the model (the cold tuner's first run, random search).
    pub predicted_ln: Option<(f64, f64)>,
    /// Task correlation ρ of the model that chose the run.
    pub rho: Option<f64>,
}

/// One tuner on the new task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtTuner {
    pub name: String,
    pub runs: Vec<MtRun>,
    /// Lowest final loss after each run.
    pub best_so_far: Vec<f64>,
}

/// The multi-task report (`LrReport.multitask`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultitaskReport {
    pub tasks: Vec<[u8; 2]>,
    /// Names of the candidate schedules (`candidate` indices of the runs).
    pub candidates: Vec<String>,
    /// Phase 1: the runs on the previous tasks, in order.
    pub source_runs: Vec<MtRun>,
    /// Phase 2 on the new task: `warm`, `cold`, `random`.
    pub warm: MtTuner,
    pub cold: MtTuner,
    pub random: MtTuner,
    /// Final loss of every candidate schedule on the new task (one run each, the reference for regret).
    pub target_grid: Vec<f64>,
    /// ρ of the warm model after its last run.
    pub warm_rho: f64,
    /// Runs of the new task charged to the tuners (each).
    pub target_runs: usize,
}

struct Task {
    pr: Box<dyn TrainProblem>,
    w0: Vec<f64>,
    y0: f64,
    cap: f64,
}

fn build_task(cfg: &LrConfig, spec: &MultitaskSpec, ti: usize, mnist: &crate::data::mnist::Mnist) -> Result<Task> {
    let [a, b] = spec.tasks[ti];
    let mut ds = mnist.dataset(&[a, b], Some(spec.per_class), spec.pool)?;
    for y in ds.y.iter_mut() {
        *y = if *y == b as f64 { 1.0 } else { 0.0 };
    }
    let pr = super::data::build_problem(cfg, Some(&ds))?;
    let w0 = pr.init(&mut stream(cfg.seed, 0x4d54_0000 + ti as u64));
    let mut scratch = Vec::new();
    let y0 = pr.trace_loss(&w0, &mut scratch);
    if !(y0.is_finite() && y0 > 0.0) {
        return Err(Error::numerical("the initial training loss of a task is not finite and positive"));
    }
    Ok(Task { pr, w0, y0, cap: (10.0 * y0).max(1e-12) + 10.0 })
}

/// Stream id of candidate `c` on task `t` (common random numbers: every tuner that runs `c` on `t` for the
/// k-th time sees the same minibatches).
fn run_id(t: usize, c: usize) -> u64 {
    0x4d54_1000 + (t as u64) * 1000 + c as u64
}

/// Runs candidate `c` on task `ti` (occurrence `k`), returns the trace, final loss, diverged flag and the
/// observed intervals (up to and including the first diverged one, at the cap).
fn run_cand(
    cfg: &LrConfig,
    task: &Task,
    ti: usize,
    c: usize,
    sched: &[f64],
    k: u64,
    cancel: &AtomicBool,
) -> (Vec<LrTracePoint>, f64, bool, Vec<Obs>, f64) {
    let (trace, st) = run_schedule(task.pr.as_ref(), cfg, &task.w0, task.y0, task.cap, sched, run_id(ti, c), k, cancel);
    let mut scratch = Vec::new();
    let test = if st.diverged { f64::INFINITY } else { task.pr.test_loss(&st.w, &mut scratch) };
    let spi = cfg.steps_per_interval;
    let bounds: Vec<f64> = trace.iter().filter(|p| p.step > 0 && p.step % spi == 0).map(|p| p.loss).collect();
    let mut obs = Vec::new();
    let mut y = task.y0;
    for (i, &lr) in sched.iter().enumerate() {
        let Some(&yn) = bounds.get(i) else { break };
        let yn = yn.max(1e-300);
        obs.push(Obs { task: ti, lny: ln(y.max(1e-300)), lr, lny_next: ln(yn) });
        if yn >= task.cap {
            break;
        }
        y = yn;
    }
    let fin = trace.last().map_or(task.y0, |p| p.loss);
    (trace, fin, st.diverged, obs, test)
}

fn best_so_far(runs: &[MtRun]) -> Vec<f64> {
    let mut b = f64::INFINITY;
    runs.iter()
        .map(|r| {
            b = b.min(r.final_loss);
            b
        })
        .collect()
}

/// The multi-task experiment (validated config): phase 1 on the previous tasks, then the warm-started and
/// the cold tuner, random search and the fixed baselines on the new task. The `LrReport`'s `methods` are the
/// new task's: the baselines (one run each), then random search, cold and warm tuners (their best run).
pub(super) fn run(
    cfg: &LrConfig,
    spec: &MultitaskSpec,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<(Vec<LrMethodReport>, MultitaskReport)> {
    let mnist = crate::data::mnist::Mnist::load()?;
    let nt = spec.tasks.len();
    let target = nt - 1;
    let tasks: Vec<Task> = (0..nt).map(|t| build_task(cfg, spec, t, &mnist)).collect::<Result<_>>()?;
    let cand_specs = spec.candidates(cfg);
    let cands: Vec<Vec<f64>> = cand_specs.iter().map(|s| s.2.clone()).collect();
    let base = baseline_schedules(cfg);
    let d = cfg.intervals;
    let run_cost = (d * cfg.steps_per_interval) as f64;
    let lny0: Vec<f64> = tasks.iter().map(|t| ln(t.y0)).collect();
    // The first run without a model: the middle constant rate (the first candidate if there are none).
    let center = spec.candidate_constants / 2;

    let mut names: Vec<String> = base.iter().map(|s| s.0.clone()).collect();
    let b = spec.target_runs;
    names.push(format!("random search ({b} runs)"));
    names.push(format!("cold TRUVAR ({b} runs)"));
    names.push(format!("warm-start TRUVAR ({b} runs)"));
    observer(&LrEvent::Started { methods: names.clone(), intervals: d, steps_per_interval: cfg.steps_per_interval });
    let stopped = || if cancel.load(Ordering::Relaxed) { Err(Error::Cancelled) } else { Ok(()) };

    // The fixed baselines on the new task (one run each; the report says their compute) and the full
    // candidate grid (the regret reference), in parallel.
    use rayon::prelude::*;
    let tt = &tasks[target];
    let base_runs: Vec<(Vec<LrTracePoint>, super::RunState)> = base
        .par_iter()
        .enumerate()
        .map(|(i, s)| run_schedule(tt.pr.as_ref(), cfg, &tt.w0, tt.y0, tt.cap, &s.2, 0x4d54_9000 + i as u64, 0, cancel))
        .collect();
    stopped()?;
    let steps = d * cfg.steps_per_interval;
    let mut methods = Vec::new();
    for (i, (spec, (trace, st))) in base.iter().cloned().zip(base_runs).enumerate() {
        let finals = vec![trace.last().map_or(tt.y0, |p| p.loss)];
        methods.push(super::baseline_report(i, spec, trace, &st, tt.y0, tt.pr.as_ref(), steps, finals, observer));
    }
    let grid: Vec<f64> = (0..cands.len())
        .into_par_iter()
        .map(|c| run_cand(cfg, tt, target, c, &cands[c], 0, cancel).1)
        .collect();
    stopped()?;

    // Phase 1: TRUVAR over (schedule, previous task) pairs.
    let sources: Vec<usize> = (0..target).collect();
    let mut src_obs: Vec<Obs> = Vec::new();
    let mut src_runs: Vec<MtRun> = Vec::new();
    let mut counts = vec![vec![0u64; cands.len()]; nt];
    let mut eta = spec.eta;
    for r in 0..spec.source_runs * sources.len() {
        stopped()?;
        let (pair, pred, rho) = if r == 0 {
            ((center, sources[0]), None, None)
        } else {
            let model = TraceGp::fit(&src_obs, cfg.lr_bounds)?;
            let (pair, pred, e) = choose(&model, &lny0, &cands, &sources, spec.beta, eta, spec.eta_shrink, run_cost)?;
            eta = e;
            (pair, Some(pred), model.gp.multi_task().then_some(model.gp.hyper.rho))
        };
        let (c, t) = pair;
        let (_, fin, div, obs, _) = run_cand(cfg, &tasks[t], t, c, &cands[c], counts[t][c], cancel);
        counts[t][c] += 1;
        src_obs.extend(obs);
        src_runs.push(MtRun { task: t, candidate: c, final_loss: fin, diverged: div, predicted_ln: pred, rho });
    }
    stopped()?;

    // Phase 2 on the new task: warm (previous runs in the model) and cold (none), TRUVAR over its schedules.
    let tune = |warm: bool| -> Result<(Vec<MtRun>, Option<(Vec<LrTracePoint>, f64, usize)>, f64)> {
        let mut obs: Vec<Obs> = if warm { src_obs.clone() } else { Vec::new() };
        let mut runs: Vec<MtRun> = Vec::new();
        let mut count = vec![0u64; cands.len()];
        let mut eta = spec.eta;
        let mut best: Option<(Vec<LrTracePoint>, f64, usize)> = None;
        let mut rho = 0.0;
        for r in 0..b {
            stopped()?;
            let (c, pred, rh) = if r == 0 && !warm {
                (center, None, None)
            } else {
                let model = TraceGp::fit(&obs, cfg.lr_bounds)?;
                let ((c, _), pred, e) =
                    choose(&model, &lny0, &cands, &[target], spec.beta, eta, spec.eta_shrink, run_cost)?;
                eta = e;
                rho = model.gp.hyper.rho;
                (c, Some(pred), model.gp.multi_task().then_some(rho))
            };
            let (trace, fin, div, o, test) = run_cand(cfg, tt, target, c, &cands[c], count[c], cancel);
            count[c] += 1;
            obs.extend(o);
            if best.as_ref().is_none_or(|b| fin < b.0.last().map_or(f64::INFINITY, |p| p.loss)) {
                best = Some((trace, test, c));
            }
            runs.push(MtRun { task: target, candidate: c, final_loss: fin, diverged: div, predicted_ln: pred, rho: rh });
        }
        Ok((runs, best, rho))
    };
    let (cold_res, warm_res) = rayon::join(|| tune(false), || tune(true));
    let (cold_runs, cold_best, _) = cold_res?;
    let (warm_runs, warm_best, warm_rho) = warm_res?;

    // Random search: b distinct candidates, uniformly.
    let mut order: Vec<usize> = (0..cands.len()).collect();
    let mut rng = stream(cfg.seed, 0x4d54_5241);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let picked: Vec<usize> = order.into_iter().take(b).collect();
    let rand_res: Vec<(Vec<LrTracePoint>, f64, bool, f64)> = picked
        .par_iter()
        .map(|&c| {
            let (tr, fin, div, _, test) = run_cand(cfg, tt, target, c, &cands[c], 0, cancel);
            (tr, fin, div, test)
        })
        .collect();
    stopped()?;
    let rand_runs: Vec<MtRun> = picked
        .iter()
        .zip(&rand_res)
        .map(|(&c, r)| MtRun { task: target, candidate: c, final_loss: r.1, diverged: r.2, predicted_ln: None, rho: None })
        .collect();
    let rand_best = (0..b).min_by(|&a, &c| rand_res[a].1.total_cmp(&rand_res[c].1)).map(|i| (rand_res[i].0.clone(), rand_res[i].3, picked[i]));

    for (name, family, runs, best) in [
        (names[base.len()].clone(), "random-search", &rand_runs, rand_best),
        (names[base.len() + 1].clone(), "multitask-cold", &cold_runs, cold_best),
        (names[base.len() + 2].clone(), "multitask-warm", &warm_runs, warm_best),
    ] {
        let (trace, test_loss, c) = best.ok_or_else(|| Error::numerical("a tuner made no run"))?;
        let final_loss = trace.last().map_or(tt.y0, |p| p.loss);
        observer(&LrEvent::MethodDone { method: methods.len(), name: name.clone(), final_loss, trace: trace.clone() });
        methods.push(LrMethodReport {
            name,
            family: family.into(),
            schedule: cands[c].clone(),
            diverged: runs.iter().find(|r| r.candidate == c).is_some_and(|r| r.diverged),
            trace,
            final_loss,
            test_loss,
            compute_steps: b * d * cfg.steps_per_interval,
            repeat_finals: runs.iter().map(|r| r.final_loss).collect(),
        });
    }
    let tuner = |name: &str, runs: Vec<MtRun>| MtTuner { name: name.into(), best_so_far: best_so_far(&runs), runs };
    let report = MultitaskReport {
        tasks: spec.tasks.clone(),
        candidates: cand_specs.iter().map(|s| s.0.clone()).collect(),
        source_runs: src_runs,
        warm: tuner("warm-start TRUVAR", warm_runs),
        cold: tuner("cold TRUVAR", cold_runs),
        random: tuner("random search", rand_runs),
        target_grid: grid,
        warm_rho,
        target_runs: b,
    };
    Ok((methods, report))
}
