//! Learning-rate schedules with a GP trace model (Picheny, Dutordoir, Artemev & Durrande 2020).
//!
//! A training run (minibatch SGD or Adam, seeded) uses a piecewise-constant learning rate over `d` intervals,
//! searched in log space between `lr_bounds`. Compared on the same problem, initial weights and step budget:
//! - constant learning rates spread in log space and exponential decays `lr_k = lr_0 γ^k` (their Sec. 3.2);
//! - dynamic tuning of one run (their Algorithm 1): `Q` runs in parallel (rayon); at each interval boundary
//!   keep the best run, duplicate it `Q` times and give copy `i` the learning rate minimising the
//!   `α_i`-quantile of the predicted trace value at the next boundary, `α_i = (2i - 1)/(2Q)` (the trace is a
//!   loss, so "best" is the lowest quantile), within one order of magnitude of the kept run's rate (the paper's
//!   limit, their Sec. 3.2: "we limit the maximum change to one order of magnitude"), among the
//!   rates the GP failure classifier (their Sec. 3.2) allows copy `i` (`p_fail <= 1 - α_i`). The trace model
//!   is [`ChainedModel`] (latent GPs through the linear or exponential link, sparse variational, their eqs.
//!   2-3 and Sec. 2.2; `dynamic.link_form` "paper" has the text's softplus links, the default "unconstrained"
//!   tunelab's), with [`model::TraceModel`] (exact GP on boundary increments) as the labelled
//!   fallback. Baselines (5 constants, 12 exponential decays) each get the best of `Q` runs: matched compute.
//!
//! Entry point: [`LrExperiment`] (the experiment contract; user data arrive in its `Inputs`); the [`LrReport`] has `methods` with `name`,
//! `trace` (step, loss, learning rate) and `final_loss`, plus the tuner's decisions and predicted bands.
//! Events go to an observer on the calling thread. Results do not depend on the number of threads: every
//! run draws from its own stream `(seed, id)`.

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

pub mod experiment;
pub mod panel;
pub mod text;
pub use experiment::LrExperiment;

//
// Layout: `config` (+ `presets`, `validate`), `report` (traces, decisions, events), `data` (the training
// problem of a config), `schedules` (fixed schedules), `dynamic` (the GP-guided tuner), `chained` (the trace
// model), `failure` (the failure classifier), `model` (the exact-GP fallback), `train` (problems and optimisers).

mod chained;
mod config;
mod data;
mod dynamic;
mod failure;
pub mod model;
pub mod multitask;
mod presets;
mod report;
mod schedules;
pub mod train;
mod validate;

pub use chained::{ChainedModel, IntervalObs};
pub use config::*;
pub use failure::FailureClassifier;
pub use model::{Band, Link, LinkForm, TraceModel, Transition};
pub use multitask::{MultitaskReport, MultitaskSpec};
pub use report::*;
pub use train::{run_interval, Classifier, ClassifierKind, NoisyQuadratic, Optimizer, RunState, TrainProblem};

use crate::data::Dataset;
use crate::rng::stream;
use crate::{Error, Result};
use rayon::prelude::*;
use schedules::{baseline_schedules, run_schedule};
use std::sync::atomic::{AtomicBool, Ordering};

/// One baseline's line of the report, announced to the observer: its kept run's trace, final trace value and
/// test loss (+inf when the run diverged); `repeat_finals` are the final trace values of all its repeats.
#[allow(clippy::too_many_arguments)]
fn baseline_report(
    i: usize,
    (name, family, schedule): (String, String, Vec<f64>),
    trace: Vec<LrTracePoint>,
    st: &RunState,
    y0: f64,
    pr: &dyn TrainProblem,
    compute_steps: usize,
    repeat_finals: Vec<f64>,
    observer: &mut dyn FnMut(&LrEvent),
) -> LrMethodReport {
    let final_loss = trace.last().map_or(y0, |p| p.loss);
    let test_loss = if st.diverged { f64::INFINITY } else { pr.test_loss(&st.w, &mut Vec::new()) };
    observer(&LrEvent::MethodDone { method: i, name: name.clone(), final_loss, trace: trace.clone() });
    LrMethodReport {
        name,
        family,
        schedule,
        trace,
        final_loss,
        test_loss,
        diverged: st.diverged,
        compute_steps,
        repeat_finals,
    }
}

/// Runs the comparison on a config the experiment contract checked once; `data` is the user's data set
/// (required for `csv` and `upload` sources).
pub(crate) fn run_checked(
    cfg: &LrConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<LrReport> {
    if let Some(spec) = &cfg.multitask {
        return run_multitask(cfg, spec, observer, cancel);
    }
    let pr = data::build_problem(cfg, data)?;
    let pr: &dyn TrainProblem = pr.as_ref();
    let d = cfg.intervals;
    let w0 = pr.init(&mut stream(cfg.seed, 1));
    let mut scratch = Vec::new();
    let y0 = pr.trace_loss(&w0, &mut scratch);
    if !y0.is_finite() {
        return Err(Error::numerical("the initial training loss is not finite"));
    }
    // A run whose loss exceeds this is diverged.
    let cap = (10.0 * y0.abs()).max(1e-12) + 10.0;

    let specs = baseline_schedules(cfg);
    let mut names: Vec<String> = specs.iter().map(|s| s.0.clone()).collect();
    if cfg.dynamic.enabled {
        names.push(format!("dynamic GP (Q={})", cfg.dynamic.runs));
    }
    observer(&LrEvent::Started { methods: names.clone(), intervals: d, steps_per_interval: cfg.steps_per_interval });
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    // Matched compute (Sec. 3.2 of the paper): every baseline schedule runs `repeats` times with its own
    // minibatch streams and the best run (lowest final trace value) is reported, as the tuner keeps the best
    // of its Q runs.
    let reps = cfg.repeats();
    let jobs: Vec<(usize, usize)> = (0..specs.len()).flat_map(|i| (0..reps).map(move |r| (i, r))).collect();
    let mut results: Vec<(Vec<LrTracePoint>, RunState)> = jobs
        .par_iter()
        .map(|&(i, r)| run_schedule(pr, cfg, &w0, y0, cap, &specs[i].2, 1000 + i as u64, r as u64, cancel))
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let mut methods = Vec::new();
    for (i, spec) in specs.into_iter().enumerate() {
        let runs: Vec<(Vec<LrTracePoint>, RunState)> = results.drain(..reps).collect();
        let finals: Vec<f64> = runs.iter().map(|(t, _)| t.last().map_or(y0, |p| p.loss)).collect();
        let best = (0..reps).min_by(|&a, &b| finals[a].total_cmp(&finals[b])).unwrap_or(0);
        let (trace, st) = runs.into_iter().nth(best).ok_or_else(|| Error::numerical("a baseline produced no run"))?;
        let steps = reps * d * cfg.steps_per_interval;
        methods.push(baseline_report(i, spec, trace, &st, y0, pr, steps, finals, observer));
    }
    let dynamic = if cfg.dynamic.enabled {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let (rep, det) = dynamic::dynamic_tuning(pr, cfg, &w0, y0, cap, observer, cancel)?;
        observer(&LrEvent::MethodDone {
            method: methods.len(),
            name: rep.name.clone(),
            final_loss: rep.final_loss,
            trace: rep.trace.clone(),
        });
        methods.push(rep);
        Some(det)
    } else {
        None
    };
    observer(&LrEvent::Done {});
    Ok(report(cfg, methods, dynamic, None))
}

/// The report of a run: its schedules, with the best constant and the best decay picked out.
fn report(
    cfg: &LrConfig,
    methods: Vec<LrMethodReport>,
    dynamic: Option<DynamicReport>,
    multitask: Option<MultitaskReport>,
) -> LrReport {
    LrReport {
        problem: cfg.problem.clone(),
        optimizer: cfg.optimizer,
        intervals: cfg.intervals,
        steps_per_interval: cfg.steps_per_interval,
        lr_bounds: cfg.lr_bounds,
        best_constant: best_of(&methods, "constant"),
        best_decay: best_of(&methods, "exponential-decay"),
        per_schedule: per_schedule_ranks(&methods),
        methods,
        dynamic,
        seed: cfg.seed,
        multitask,
    }
}

fn best_of(methods: &[LrMethodReport], fam: &str) -> Option<BestOf> {
    methods
        .iter()
        .filter(|m| m.family == fam)
        .min_by(|a, b| a.final_loss.total_cmp(&b.final_loss))
        .map(|m| BestOf { name: m.name.clone(), final_loss: m.final_loss })
}

/// The multi-task warm-start experiment (their Sec. 4, `multitask/`) as an lr-schedule report.
fn run_multitask(
    cfg: &LrConfig,
    spec: &MultitaskSpec,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<LrReport> {
    let (methods, mt) = multitask::run(cfg, spec, observer, cancel)?;
    observer(&LrEvent::Done {});
    Ok(report(cfg, methods, None, Some(mt)))
}
