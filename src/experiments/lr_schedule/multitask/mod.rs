//! Multi-task scheduling of the learning rate (Picheny, Dutordoir, Artemev & Durrande, Sec. 4), from the
//! paper's text (`../shared/papers/lr-schedule-bo-picheny-et-al.txt`). Deviations: docs/papers/lr-schedule-bo.md.
//!
//! - Model (Sec. 4.1): the exact-GP increments model (`trace_gp.rs`) with the product kernel
//!   `k_Y k_x k_Ω` and each task at a learnt location `w ∈ R^2` (`crate::gp::multitask`).
//! - Algorithm 2 on the previous tasks: `N_0` Latin-hypercube runs (Sec. 4.3), then per run eq. 7 (each
//!   task's optimistic schedule, quantile α) and eq. 8 (the run `(x, ω)` minimising the mean variance at those
//!   schedules after it); the final set `X̂*` with α = 0.5 (risk-neutral) is reported (`recommended`).
//! - The new task (Sec. 4.4, "a new task ω_new is added to the current set Ω"), each tuner with the same
//!   budget of runs on it: **universal** (first run: the schedule best on average over `w_new` uniform on the
//!   convex hull of the learnt locations), **learn-location** (first run: the schedule whose predicted trace
//!   varies most with `w_new`); both then continue Algorithm 2's loop on the extended Ω with eqs. 7-8 restricted
//!   to the new task (the text then applies Algorithm 1, the dynamic tuner; whole runs here, see the docs);
//!   **cold**: Algorithm 2 on the new task alone (`N_0 = 1`); random search over the candidates.

pub mod acquire;
mod spec;
pub mod trace_gp;

pub use crate::gp::multitask::{gram, k_input, k_product, k_task, LocPoint, MtHyper, MultiTaskGp};
pub use crate::gp::truvar::{truvar_scores, CandidateRun};
pub use spec::MultitaskSpec;

use super::schedules::{baseline_schedules, logspace, run_schedule};
use super::{LrConfig, LrEvent, LrMethodReport, LrTracePoint, TrainProblem};
use crate::math::ln;
use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use trace_gp::{Obs, TraceGp};

/// One run of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtRun {
    /// Index into `tasks`.
    pub task: usize,
    /// The rate per interval, and its index into `candidates` when it is one of them.
    pub schedule: Vec<f64>,
    pub candidate: Option<usize>,
    pub final_loss: f64,
    pub diverged: bool,
    /// How the run was chosen: `lhs` (Algorithm 2's initial design), `eq8`, `universal`, `learn-location`,
    /// `random`.
    pub rule: String,
    /// The model's prediction of the final ln loss before the run (mean, sd); `None` without a model.
    pub predicted_ln: Option<(f64, f64)>,
    /// Eq. 8's `J̄` of the chosen run (ln loss²), for `eq8` runs.
    pub jbar: Option<f64>,
}

/// One tuner on the new task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtTuner {
    pub name: String,
    pub runs: Vec<MtRun>,
    /// Lowest final loss after each run.
    pub best_so_far: Vec<f64>,
    /// The new task's learnt location after the tuner's last model fit (`None` for cold and random).
    pub location: Option<[f64; 2]>,
}

/// The multi-task report (`LrReport.multitask`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultitaskReport {
    pub tasks: Vec<[u8; 2]>,
    /// Names of the candidate schedules (`candidate` indices of the runs).
    pub candidates: Vec<String>,
    /// Algorithm 2 on the previous tasks: the runs, in order.
    pub source_runs: Vec<MtRun>,
    /// The learnt task locations `w_t` after Algorithm 2 (previous tasks).
    pub locations: Vec<[f64; 2]>,
    /// Algorithm 2's output: the α = 0.5 set `X̂*`, one schedule per previous task, its final loss when run
    /// once on its task (first occurrence, as the grid), and every candidate's final loss there (the reference).
    pub recommended: Vec<Vec<f64>>,
    pub recommended_final: Vec<f64>,
    pub source_grid: Vec<Vec<f64>>,
    /// On the new task: the two warm starts of Sec. 4.4, cold Algorithm 2, random search.
    pub universal: MtTuner,
    pub learn_location: MtTuner,
    pub cold: MtTuner,
    pub random: MtTuner,
    /// Final loss of every candidate schedule on the new task (one run each, the reference for regret).
    pub target_grid: Vec<f64>,
    /// Runs of the new task charged to each tuner.
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

/// Stream id of a schedule on task `t` (common random numbers: every method that runs the same schedule on
/// the same task for the k-th time sees the same minibatches).
fn run_id(t: usize, sched: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ t as u64;
    for r in sched {
        for b in r.to_bits().to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    0x4d54_0000_0000 ^ (h >> 16)
}

/// Runs `sched` on task `ti` (occurrence `k`): the trace, final loss, diverged flag, the observed intervals (up
/// to and including the first diverged one, at the cap) and the test loss.
fn run_sched(
    cfg: &LrConfig,
    task: &Task,
    ti: usize,
    sched: &[f64],
    k: u64,
    cancel: &AtomicBool,
) -> (Vec<LrTracePoint>, f64, bool, Vec<Obs>, f64) {
    let (trace, st) =
        run_schedule(task.pr.as_ref(), cfg, &task.w0, task.y0, task.cap, sched, run_id(ti, sched), k, cancel);
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

/// Occurrence counter per (task, schedule), for the repeat index of common random numbers.
#[derive(Default, Clone)]
struct Counts(Vec<(usize, Vec<f64>, u64)>);

impl Counts {
    fn next(&mut self, t: usize, s: &[f64]) -> u64 {
        if let Some(e) = self.0.iter_mut().find(|e| e.0 == t && e.1 == s) {
            e.2 += 1;
            return e.2 - 1;
        }
        self.0.push((t, s.to_vec(), 1));
        0
    }
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

/// Shared state of the experiment's loops.
struct Ctx<'a> {
    cfg: &'a LrConfig,
    spec: &'a MultitaskSpec,
    tasks: &'a [Task],
    lny0: Vec<f64>,
    cands: Vec<Vec<f64>>,
    grid: Vec<f64>,
    cancel: &'a AtomicBool,
}

/// A tuner's state: observations, runs, occurrence counts, best run (trace, test loss, schedule).
#[derive(Default)]
struct Tuner {
    obs: Vec<Obs>,
    runs: Vec<MtRun>,
    counts: Counts,
    best: Option<(Vec<LrTracePoint>, f64, Vec<f64>)>,
    location: Option<[f64; 2]>,
}

impl Ctx<'_> {
    fn stopped(&self) -> Result<()> {
        if self.cancel.load(Ordering::Relaxed) {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    fn cand_index(&self, s: &[f64]) -> Option<usize> {
        self.cands.iter().position(|c| c == s)
    }

    /// Runs `sched` on task `t` for tuner `tu` and records it.
    fn exec(&self, tu: &mut Tuner, t: usize, sched: Vec<f64>, rule: &str, pred: Option<(f64, f64)>, jbar: Option<f64>) {
        let k = tu.counts.next(t, &sched);
        let (trace, fin, div, obs, test) = run_sched(self.cfg, &self.tasks[t], t, &sched, k, self.cancel);
        tu.obs.extend(obs);
        if tu.best.as_ref().is_none_or(|b| fin < b.0.last().map_or(f64::INFINITY, |p| p.loss)) {
            tu.best = Some((trace, test, sched.clone()));
        }
        let candidate = self.cand_index(&sched);
        tu.runs.push(MtRun {
            task: t,
            schedule: sched,
            candidate,
            final_loss: fin,
            diverged: div,
            rule: rule.into(),
            predicted_ln: pred,
            jbar,
        });
    }

    /// One step of Algorithm 2's loop over `tasks`: fit, eq. 7 (quantile α), eq. 8 over the candidates and the
    /// reference schedules, run. Returns the fitted model's locations.
    fn algorithm2_step(&self, tu: &mut Tuner, tasks: &[usize], init: &[[f64; 2]]) -> Result<Vec<[f64; 2]>> {
        let model = TraceGp::fit(&tu.obs, self.cfg.lr_bounds, init, self.spec.location_steps)?;
        let refs = acquire::eq7(&model, &self.lny0, tasks, &self.cands, &self.grid, self.spec.alpha)?;
        let mut scheds = self.cands.clone();
        scheds.extend(refs.iter().map(|r| r.sched.clone()));
        let ((s, t), jbar) = acquire::eq8(&model, &self.lny0, &refs, &scheds, tasks)?;
        let p = model.predict(self.lny0[t], &scheds[s], model.loc(t))?;
        self.exec(tu, t, scheds[s].clone(), "eq8", Some((p.final_mean(), p.final_var().sqrt())), Some(jbar));
        Ok(model.gp.hyper.loc.clone())
    }
}

/// The multi-task experiment (validated config): Algorithm 2 on the previous tasks, then the Sec. 4.4 warm
/// starts, the cold tuner, random search and the fixed baselines on the new task. The `LrReport`'s `methods`
/// are the new task's: the baselines (one run each), then random search, cold, universal and learn-location
/// (their best run).
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
    let ctx = Ctx {
        cfg,
        spec,
        tasks: &tasks,
        lny0: tasks.iter().map(|t| ln(t.y0)).collect(),
        cands: cand_specs.iter().map(|s| s.2.clone()).collect(),
        grid: logspace(cfg.lr_bounds[0], cfg.lr_bounds[1], spec.rate_grid),
        cancel,
    };
    let base = baseline_schedules(cfg);
    let d = cfg.intervals;
    let b = spec.target_runs;
    let mut names: Vec<String> = base.iter().map(|s| s.0.clone()).collect();
    for n in [
        "random search",
        "cold Algorithm 2",
        "warm start: universal (Sec. 4.4)",
        "warm start: learn location (Sec. 4.4)",
    ] {
        names.push(format!("{n} ({b} runs)"));
    }
    observer(&LrEvent::Started { methods: names.clone(), intervals: d, steps_per_interval: cfg.steps_per_interval });

    // The fixed baselines on the new task (one run each) and the full candidate grid (the regret reference).
    use rayon::prelude::*;
    let tt = &tasks[target];
    let base_runs: Vec<(Vec<LrTracePoint>, super::RunState)> = base
        .par_iter()
        .enumerate()
        .map(|(i, s)| run_schedule(tt.pr.as_ref(), cfg, &tt.w0, tt.y0, tt.cap, &s.2, 0x4d54_9000 + i as u64, 0, cancel))
        .collect();
    ctx.stopped()?;
    let steps = d * cfg.steps_per_interval;
    let mut methods = Vec::new();
    for (i, (spec, (trace, st))) in base.iter().cloned().zip(base_runs).enumerate() {
        let finals = vec![trace.last().map_or(tt.y0, |p| p.loss)];
        methods.push(super::baseline_report(i, spec, trace, &st, tt.y0, tt.pr.as_ref(), steps, finals, observer));
    }
    let grid: Vec<f64> = ctx.cands.par_iter().map(|c| run_sched(cfg, tt, target, c, 0, cancel).1).collect();
    ctx.stopped()?;

    // Algorithm 2 on the previous tasks: N_0 Latin-hypercube runs (tasks in turn), then eqs. 7-8.
    let sources: Vec<usize> = (0..target).collect();
    let mut src = Tuner::default();
    let mut locs = MtHyper::new(nt).loc;
    let init = acquire::lhs(spec.initial_runs, d, cfg.lr_bounds, &mut stream(cfg.seed, 0x4d54_4c48));
    for (i, s) in init.into_iter().enumerate() {
        ctx.stopped()?;
        ctx.exec(&mut src, sources[i % sources.len()], s, "lhs", None, None);
    }
    for _ in spec.initial_runs..spec.source_runs * sources.len() {
        ctx.stopped()?;
        locs = ctx.algorithm2_step(&mut src, &sources, &locs)?;
    }
    let model = TraceGp::fit(&src.obs, cfg.lr_bounds, &locs, spec.location_steps)?;
    locs = model.gp.hyper.loc.clone();
    let recommended: Vec<Vec<f64>> =
        acquire::eq7(&model, &ctx.lny0, &sources, &ctx.cands, &ctx.grid, 0.5)?.into_iter().map(|r| r.sched).collect();
    // Sec. 4.3's goal, "the set of optimal learning rates": X̂* evaluated on the previous tasks, against the grid.
    let recommended_final: Vec<f64> =
        recommended.par_iter().enumerate().map(|(t, s)| run_sched(cfg, &tasks[t], t, s, 0, cancel).1).collect();
    let source_grid: Vec<Vec<f64>> = sources
        .iter()
        .map(|&t| ctx.cands.par_iter().map(|c| run_sched(cfg, &tasks[t], t, c, 0, cancel).1).collect())
        .collect();
    ctx.stopped()?;
    let prev_locs: Vec<[f64; 2]> = locs[..target].to_vec();
    let ws = acquire::hull_samples(&prev_locs, spec.location_samples, &mut stream(cfg.seed, 0x4d54_5753));
    // The new task's starting location: the centroid of the previous ones.
    let centroid = [0, 1].map(|c| prev_locs.iter().map(|w| w[c]).sum::<f64>() / prev_locs.len() as f64);
    locs[target] = centroid;

    // The new task: first runs by Sec. 4.4 (warm) or Latin hypercube (cold), then Algorithm 2's loop on it.
    let tune = |kind: usize| -> Result<Tuner> {
        let mut tu = Tuner::default();
        let mut l = locs.clone();
        if kind == 0 {
            let s = acquire::lhs(1, d, cfg.lr_bounds, &mut stream(cfg.seed, 0x4d54_434c)).remove(0);
            ctx.exec(&mut tu, target, s, "lhs", None, None);
        } else {
            tu.obs = src.obs.clone();
            let (s, rule) = if kind == 1 {
                (acquire::universal(&model, ctx.lny0[target], &ws, &ctx.cands, &ctx.grid)?, "universal")
            } else {
                (acquire::learn_location(&model, ctx.lny0[target], &ws, &ctx.cands, &ctx.grid)?.0, "learn-location")
            };
            let preds: Vec<_> = ws.iter().map(|&w| model.predict(ctx.lny0[target], &s, w)).collect::<Result<_>>()?;
            let n = preds.len() as f64;
            let mu = preds.iter().map(|p| p.final_mean()).sum::<f64>() / n;
            let v = preds.iter().map(|p| p.final_var() + (p.final_mean() - mu).powi(2)).sum::<f64>() / n;
            ctx.exec(&mut tu, target, s, rule, Some((mu, v.sqrt())), None);
        }
        for _ in 1..b {
            ctx.stopped()?;
            l = ctx.algorithm2_step(&mut tu, &[target], &l)?;
        }
        if kind > 0 {
            tu.location = Some(l[target]);
        }
        Ok(tu)
    };
    let (cold, (universal, learn)) = rayon::join(|| tune(0), || rayon::join(|| tune(1), || tune(2)));
    let (cold, universal, learn) = (cold?, universal?, learn?);

    // Random search: b distinct candidates, uniformly.
    let mut order: Vec<usize> = (0..ctx.cands.len()).collect();
    let mut rng = stream(cfg.seed, 0x4d54_5241);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut random = Tuner::default();
    for &c in order.iter().take(b) {
        ctx.stopped()?;
        ctx.exec(&mut random, target, ctx.cands[c].clone(), "random", None, None);
    }

    let mut tuners = Vec::new();
    for (k, (family, tu)) in [
        ("random-search", random),
        ("multitask-cold", cold),
        ("multitask-universal", universal),
        ("multitask-learn-location", learn),
    ]
    .into_iter()
    .enumerate()
    {
        let name = names[base.len() + k].clone();
        let (trace, test_loss, sched) = tu.best.clone().ok_or_else(|| Error::numerical("a tuner made no run"))?;
        let final_loss = trace.last().map_or(tt.y0, |p| p.loss);
        observer(&LrEvent::MethodDone { method: methods.len(), name: name.clone(), final_loss, trace: trace.clone() });
        methods.push(LrMethodReport {
            name: name.clone(),
            family: family.into(),
            diverged: tu.runs.iter().find(|r| r.schedule == sched).is_some_and(|r| r.diverged),
            schedule: sched,
            trace,
            final_loss,
            test_loss,
            compute_steps: b * steps,
            repeat_finals: tu.runs.iter().map(|r| r.final_loss).collect(),
        });
        tuners.push(MtTuner { name, best_so_far: best_so_far(&tu.runs), runs: tu.runs, location: tu.location });
    }
    let mut it = tuners.into_iter();
    let (random, cold, universal, learn_location) =
        (it.next().unwrap(), it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    let report = MultitaskReport {
        tasks: spec.tasks.clone(),
        candidates: cand_specs.iter().map(|s| s.0.clone()).collect(),
        source_runs: src.runs,
        locations: prev_locs,
        recommended,
        recommended_final,
        source_grid,
        universal,
        learn_location,
        cold,
        random,
        target_grid: grid,
        target_runs: b,
    };
    Ok((methods, report))
}
