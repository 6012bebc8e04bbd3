//! Learning-rate schedules with a GP trace model (Picheny, Dutordoir, Artemev & Durrande 2020).
//!
//! A training run (minibatch SGD or Adam, seeded) uses a piecewise-constant learning rate over `d` intervals,
//! searched in log space between `lr_bounds`. Compared on the same problem, initial weights and step budget:
//! - constant learning rates spread in log space and exponential decays `lr_k = lr_0 γ^k` (their Sec. 3.2);
//! - dynamic tuning of one run (their Algorithm 1): `Q` runs in parallel (rayon); at each interval boundary
//!   keep the best run, duplicate it `Q` times and give copy `i` the learning rate minimising the
//!   `α_i`-quantile of the predicted trace value at the next boundary, `α_i = (2i - 1)/(2Q)` (the trace is a
//!   loss, so "best" is the lowest quantile), within one order of magnitude of the kept run's rate. The trace
//!   model is [`model::TraceModel`] (exact GP in place of their sparse variational GP).
//!
//! Entry point [`run`] (or [`run_with_data`] for user data); the [`LrReport`] has `methods` with `name`,
//! `trace` (step, loss, learning rate) and `final_loss`, plus the tuner's decisions and predicted bands.
//! Events go to an observer on the calling thread. Results do not depend on the number of threads: every
//! run draws from its own stream `(seed, id)`.

// Index loops mirror the equations in these numeric kernels; negated comparisons deliberately catch NaN.
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

pub mod model;
pub mod train;

pub use model::{Band, Link, TraceModel, Transition};
pub use train::{run_interval, Classifier, ClassifierKind, NoisyQuadratic, Optimizer, RunState, TrainProblem};

use crate::data::Dataset;
use crate::rng::{stream, substream};
use crate::{Error, Result};
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// The training problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LrProblem {
    /// Multinomial logistic regression on the data.
    Logreg,
    /// One-hidden-layer tanh network on the data.
    Mlp {
        #[serde(default = "d_hidden")]
        hidden: usize,
    },
    /// The noisy quadratic model (no data): `dim` curvatures `1/i`, gradient noise `noise`.
    NoisyQuadratic {
        #[serde(default = "d_nq_dim")]
        dim: usize,
        #[serde(default = "d_nq_noise")]
        noise: f64,
    },
}

fn d_hidden() -> usize {
    32
}
fn d_nq_dim() -> usize {
    20
}
fn d_nq_noise() -> f64 {
    1.0
}

/// Data of the classification problems: `digits`, or user data (`csv` read by the CLI, `upload` by the page;
/// pass them to [`run_with_data`]). Labels must be class indices 0, 1, 2, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LrData {
    #[default]
    Digits,
    Csv {
        path: String,
        #[serde(default)]
        label: Option<String>,
    },
    Upload {
        #[serde(default)]
        label: Option<String>,
    },
}

/// The dynamic tuner (Algorithm 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DynamicSpec {
    /// Run the dynamic tuner.
    pub enabled: bool,
    /// Parallel runs `Q`.
    pub runs: usize,
    /// Link of the trace model.
    pub link: Link,
    /// Candidate learning rates (log grid over the bounds) searched at each boundary.
    pub candidates: usize,
    /// Paths of the recursive-sampling prediction bands.
    pub band_samples: usize,
}

impl Default for DynamicSpec {
    fn default() -> Self {
        DynamicSpec { enabled: true, runs: 6, link: Link::Exponential, candidates: 41, band_samples: 300 }
    }
}

/// The learning-rate schedule experiment (serde JSON; CLI `--config`, the page's worker message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LrConfig {
    pub problem: LrProblem,
    #[serde(default)]
    pub data: LrData,
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Number of intervals `d` of the piecewise-constant schedule.
    #[serde(default = "d_intervals")]
    pub intervals: usize,
    /// Optimiser steps per interval.
    #[serde(default = "d_steps")]
    pub steps_per_interval: usize,
    /// Minibatch size (data problems).
    #[serde(default = "d_batch")]
    pub batch: usize,
    /// `[lowest, highest]` learning rate (searched in log space).
    #[serde(default = "d_bounds")]
    pub lr_bounds: [f64; 2],
    /// Trace records per interval (chart resolution; the model uses the interval boundaries).
    #[serde(default = "d_records")]
    pub records_per_interval: usize,
    /// Train rows whose mean loss is the trace value (data problems).
    #[serde(default = "d_eval")]
    pub eval_points: usize,
    /// Fraction of the data held out as the test split (data problems).
    #[serde(default = "d_test")]
    pub test_fraction: f64,
    /// Constant learning rates, spread in log space over the bounds.
    #[serde(default = "d_constant")]
    pub constant: usize,
    /// Initial rates of the exponential decays, spread in log space over the upper half of the bounds.
    #[serde(default = "d_decay_starts")]
    pub decay_starts: usize,
    /// Total decay factors `lr_{d-1} / lr_0` of the exponential decays.
    #[serde(default = "d_decay_factors")]
    pub decay_factors: Vec<f64>,
    #[serde(default)]
    pub dynamic: DynamicSpec,
    #[serde(default = "d_seed")]
    pub seed: u64,
}

fn d_intervals() -> usize {
    10
}
fn d_steps() -> usize {
    40
}
fn d_batch() -> usize {
    16
}
fn d_bounds() -> [f64; 2] {
    [1e-3, 3.0]
}
fn d_records() -> usize {
    4
}
fn d_eval() -> usize {
    400
}
fn d_test() -> f64 {
    0.3
}
fn d_constant() -> usize {
    7
}
fn d_decay_starts() -> usize {
    3
}
fn d_decay_factors() -> Vec<f64> {
    vec![0.1, 0.01]
}
fn d_seed() -> u64 {
    7
}

impl LrConfig {
    /// Default configuration for a problem.
    pub fn new(problem: LrProblem) -> Self {
        LrConfig {
            problem,
            data: LrData::Digits,
            optimizer: Optimizer::Sgd,
            intervals: d_intervals(),
            steps_per_interval: d_steps(),
            batch: d_batch(),
            lr_bounds: d_bounds(),
            records_per_interval: d_records(),
            eval_points: d_eval(),
            test_fraction: d_test(),
            constant: d_constant(),
            decay_starts: d_decay_starts(),
            decay_factors: d_decay_factors(),
            dynamic: DynamicSpec::default(),
            seed: d_seed(),
        }
    }

    /// Presets: `digits` (the one-hidden-layer network on the digits set with SGD, their Figures 3-4 at browser
    /// scale), `digits-logreg` (softmax regression on digits), `noisy-quadratic` (where decay is known to help).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "digits" => Ok(LrConfig::new(LrProblem::Mlp { hidden: 32 })),
            "digits-logreg" => Ok(LrConfig::new(LrProblem::Logreg)),
            "noisy-quadratic" => {
                let mut c = LrConfig::new(LrProblem::NoisyQuadratic { dim: 20, noise: 1.0 });
                c.lr_bounds = [1e-3, 1.5];
                c.steps_per_interval = 30;
                Ok(c)
            }
            other => Err(Error::config(format!(
                "unknown lr-schedule preset '{other}' (known: digits, digits-logreg, noisy-quadratic)"
            ))),
        }
    }

    /// Checks every value once; the run cannot fail on a validated config except for data errors.
    pub fn validate(&self) -> Result<()> {
        let [lo, hi] = self.lr_bounds;
        if !(lo > 0.0 && hi.is_finite() && lo < hi) {
            return Err(Error::config(format!("lr_bounds must satisfy 0 < low < high, got [{lo}, {hi}]")));
        }
        if self.intervals < 2 || self.intervals > 200 {
            return Err(Error::config(format!("intervals must be between 2 and 200, got {}", self.intervals)));
        }
        if self.steps_per_interval == 0 || self.steps_per_interval > 100_000 {
            return Err(Error::config("steps_per_interval must be between 1 and 100000"));
        }
        if self.batch == 0 {
            return Err(Error::config("batch must be at least 1"));
        }
        if self.records_per_interval == 0 || self.records_per_interval > self.steps_per_interval {
            return Err(Error::config("records_per_interval must be between 1 and steps_per_interval"));
        }
        if self.eval_points == 0 {
            return Err(Error::config("eval_points must be at least 1"));
        }
        if !(self.test_fraction > 0.0 && self.test_fraction < 1.0) {
            return Err(Error::config(format!("test_fraction must be in (0, 1), got {}", self.test_fraction)));
        }
        if self.constant == 0 && self.decay_starts == 0 && !self.dynamic.enabled {
            return Err(Error::config("nothing to run: no constant rates, no decays and the dynamic tuner is off"));
        }
        if self.decay_starts > 0 && self.decay_factors.is_empty() {
            return Err(Error::config("decay_factors must not be empty when decay_starts > 0"));
        }
        if self.decay_factors.iter().any(|f| !(*f > 0.0 && *f < 1.0)) {
            return Err(Error::config("decay_factors must be in (0, 1) (total decay over the run)"));
        }
        if self.dynamic.enabled {
            if self.dynamic.runs < 2 || self.dynamic.runs > 64 {
                return Err(Error::config(format!("dynamic.runs (Q) must be between 2 and 64, got {}", self.dynamic.runs)));
            }
            if self.dynamic.candidates < 2 || self.dynamic.band_samples < 2 {
                return Err(Error::config("dynamic.candidates and dynamic.band_samples must be at least 2"));
            }
        }
        match self.problem {
            LrProblem::Mlp { hidden } if hidden == 0 || hidden > 4096 => {
                Err(Error::config("mlp.hidden must be between 1 and 4096"))
            }
            LrProblem::NoisyQuadratic { dim, noise } if dim == 0 || dim > 100_000 || !(noise >= 0.0 && noise.is_finite()) => {
                Err(Error::config("noisy-quadratic needs 1 <= dim <= 100000 and a finite noise >= 0"))
            }
            _ => Ok(()),
        }
    }
}

/// One recorded point of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LrTracePoint {
    /// Optimiser steps done.
    pub step: usize,
    /// Trace value (training loss on the evaluation rows).
    pub loss: f64,
    /// Learning rate used for the steps leading to this point.
    pub lr: f64,
}

/// One method (one schedule) and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrMethodReport {
    pub name: String,
    /// `constant`, `exponential-decay` or `dynamic`.
    pub family: String,
    /// Learning rate per interval.
    pub schedule: Vec<f64>,
    /// Trace over optimiser steps, starting at step 0.
    pub trace: Vec<LrTracePoint>,
    /// Trace value at the end.
    pub final_loss: f64,
    /// Loss on the held-out split at the end.
    pub test_loss: f64,
    pub diverged: bool,
    /// Optimiser steps spent (the dynamic tuner spends `Q` times a single run).
    pub compute_steps: usize,
}

/// What the dynamic tuner did at one interval boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Interval about to start (1-based: decisions are made after interval 0).
    pub interval: usize,
    /// Run kept (index among the `Q` runs of the previous interval) and its trace value.
    pub kept_run: usize,
    pub kept_loss: f64,
    /// Rates given to the `Q` copies and their quantile levels `α_i`.
    pub lrs: Vec<f64>,
    pub alphas: Vec<f64>,
    /// One-step band predicted for each copy, and what each copy then reached.
    pub predicted: Vec<Band>,
    pub observed: Vec<f64>,
    /// The model could not be fitted; rates were spread around the kept rate instead.
    pub model_failed: bool,
}

/// Dynamic-tuner details (chart data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DynamicReport {
    pub runs: usize,
    pub link: Link,
    pub decisions: Vec<Decision>,
    /// Every run's trace per interval: `runs_traces[k][i]` is run `i` of interval `k`.
    pub run_traces: Vec<Vec<Vec<LrTracePoint>>>,
    /// Recursive-sampling bands along the tuned schedule from `Y_0` (final model), one per boundary.
    pub predicted_bands: Vec<Band>,
    /// Step of each boundary.
    pub boundary_steps: Vec<usize>,
}

/// The comparison report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrReport {
    pub problem: LrProblem,
    pub optimizer: Optimizer,
    pub intervals: usize,
    pub steps_per_interval: usize,
    pub lr_bounds: [f64; 2],
    /// Every schedule: constants, decays, then the dynamic tuner.
    pub methods: Vec<LrMethodReport>,
    pub dynamic: Option<DynamicReport>,
    /// The best constant rate and the best exponential decay (by final loss).
    pub best_constant: Option<BestOf>,
    pub best_decay: Option<BestOf>,
    pub seed: u64,
}

/// Name and final loss of the best method of a family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestOf {
    pub name: String,
    pub final_loss: f64,
}

/// Progress events (serde, tag `type`, kebab-case), delivered on the calling thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum LrEvent {
    Started { methods: Vec<String>, intervals: usize, steps_per_interval: usize },
    MethodDone { method: usize, name: String, final_loss: f64, trace: Vec<LrTracePoint> },
    IntervalDone { interval: usize, best_loss: f64, lrs: Vec<f64>, losses: Vec<f64> },
    Done {},
}

fn logspace(lo: f64, hi: f64, k: usize) -> Vec<f64> {
    if k == 1 {
        return vec![(lo * hi).sqrt()];
    }
    let (a, b) = (lo.ln(), hi.ln());
    (0..k).map(|i| (a + (b - a) * i as f64 / (k - 1) as f64).exp()).collect()
}

fn build_problem(cfg: &LrConfig, data: Option<&Dataset>) -> Result<Box<dyn TrainProblem>> {
    let kind = match cfg.problem {
        LrProblem::NoisyQuadratic { dim, noise } => return Ok(Box::new(NoisyQuadratic::new(dim, noise))),
        LrProblem::Logreg => ClassifierKind::Softmax,
        LrProblem::Mlp { hidden } => ClassifierKind::Mlp(hidden),
    };
    let owned;
    let ds = match (data, &cfg.data) {
        (Some(d), _) => d,
        (None, LrData::Digits) => {
            owned = crate::data::digits();
            &owned
        }
        (None, _) => {
            return Err(Error::config(
                "data source csv/upload needs the data passed in (run_with_data); the CLI and the page do this",
            ))
        }
    };
    if ds.n < 10 {
        return Err(Error::data(format!("need at least 10 rows, got {}", ds.n)));
    }
    let k = ds.n_classes();
    ds.check_class_labels(k)?;
    if k < 2 {
        return Err(Error::data("the label has a single class; classification needs at least 2"));
    }
    let p = ds.p;
    let mut rng = stream(cfg.seed, 0x4c52_5350);
    let mut idx: Vec<usize> = (0..ds.n).collect();
    for i in (1..ds.n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    let n_test = ((ds.n as f64 * cfg.test_fraction).round() as usize).clamp(1, ds.n - 1);
    let (te, tr) = idx.split_at(n_test);
    // Standardise with train statistics.
    let mut mean = vec![0.0; p];
    let mut sd = vec![0.0; p];
    for &i in tr {
        for j in 0..p {
            mean[j] += ds.x[i * p + j] / tr.len() as f64;
        }
    }
    for &i in tr {
        for j in 0..p {
            sd[j] += (ds.x[i * p + j] - mean[j]).powi(2) / tr.len() as f64;
        }
    }
    sd.iter_mut().for_each(|s| *s = if *s > 1e-24 { s.sqrt() } else { 1.0 });
    let (mean, sd) = (&mean, &sd);
    let take = |ids: &[usize]| -> (Vec<f64>, Vec<usize>) {
        let x = ids.iter().flat_map(|&i| (0..p).map(move |j| (ds.x[i * p + j] - mean[j]) / sd[j])).collect();
        (x, ids.iter().map(|&i| ds.y[i] as usize).collect())
    };
    let (trx, try_) = take(tr);
    let (tex, tey) = take(te);
    let eval_idx: Vec<usize> = (0..tr.len().min(cfg.eval_points)).collect();
    Ok(Box::new(Classifier::new(kind, p, k, cfg.batch, trx, try_, tex, tey, eval_idx)))
}

struct Segment {
    points: Vec<LrTracePoint>,
    end: f64,
}

fn run_segment(pr: &dyn TrainProblem, cfg: &LrConfig, st: &mut RunState, lr: f64, cap: f64, rng: &mut crate::rng::Rng) -> Segment {
    let mut raw = Vec::with_capacity(cfg.records_per_interval);
    let every = cfg.steps_per_interval / cfg.records_per_interval;
    let end = run_interval(pr, cfg.optimizer, st, lr, cfg.steps_per_interval, every, cap, rng, &mut raw);
    Segment { points: raw.into_iter().map(|(step, loss)| LrTracePoint { step, loss, lr }).collect(), end }
}

/// A fixed schedule run from `w0` with stream `(seed, id)`.
fn run_schedule(pr: &dyn TrainProblem, cfg: &LrConfig, w0: &[f64], y0: f64, cap: f64, schedule: &[f64], id: u64) -> (Vec<LrTracePoint>, RunState) {
    let mut rng = stream(cfg.seed, id);
    let mut st = RunState::new(w0.to_vec());
    let mut trace = vec![LrTracePoint { step: 0, loss: y0, lr: schedule[0] }];
    for &lr in schedule {
        trace.extend(run_segment(pr, cfg, &mut st, lr, cap, &mut rng).points);
    }
    (trace, st)
}

/// Runs the comparison on built-in data (digits or the noisy quadratic); see [`run_with_data`] for user data.
pub fn run(cfg: &LrConfig, observer: &mut dyn FnMut(&LrEvent), cancel: &AtomicBool) -> Result<LrReport> {
    run_with_data(cfg, None, observer, cancel)
}

/// Runs the comparison; `data` overrides the config's data source (required for `csv` and `upload`).
pub fn run_with_data(
    cfg: &LrConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<LrReport> {
    cfg.validate()?;
    run_checked(cfg, data, observer, cancel)
}

/// [`run_with_data`] on a config that was already validated (the experiment contract checks it once).
pub(crate) fn run_checked(
    cfg: &LrConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<LrReport> {
    let pr = build_problem(cfg, data)?;
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

    // Baseline schedules.
    let mut specs: Vec<(String, String, Vec<f64>)> = Vec::new();
    for lr in logspace(cfg.lr_bounds[0], cfg.lr_bounds[1], cfg.constant) {
        specs.push((format!("constant {lr:.3e}"), "constant".into(), vec![lr; d]));
    }
    let mid = (cfg.lr_bounds[0] * cfg.lr_bounds[1]).sqrt();
    for lr0 in logspace(mid, cfg.lr_bounds[1], cfg.decay_starts) {
        for &fac in &cfg.decay_factors {
            let g = fac.powf(1.0 / (d - 1) as f64);
            let sched: Vec<f64> = (0..d).map(|k| lr0 * g.powi(k as i32)).collect();
            specs.push((format!("exp decay {lr0:.3e} x{fac}"), "exponential-decay".into(), sched));
        }
    }
    let mut names: Vec<String> = specs.iter().map(|s| s.0.clone()).collect();
    if cfg.dynamic.enabled {
        names.push(format!("dynamic GP (Q={})", cfg.dynamic.runs));
    }
    observer(&LrEvent::Started { methods: names.clone(), intervals: d, steps_per_interval: cfg.steps_per_interval });
    if cancel.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    let results: Vec<(Vec<LrTracePoint>, RunState)> = specs
        .par_iter()
        .enumerate()
        .map(|(i, (_, _, sched))| run_schedule(pr, cfg, &w0, y0, cap, sched, 1000 + i as u64))
        .collect();
    let mut methods = Vec::new();
    for (i, ((name, family, sched), (trace, st))) in specs.into_iter().zip(results).enumerate() {
        let final_loss = trace.last().map_or(y0, |p| p.loss);
        let test_loss = if st.diverged { f64::INFINITY } else { pr.test_loss(&st.w, &mut scratch) };
        observer(&LrEvent::MethodDone { method: i, name: name.clone(), final_loss, trace: trace.clone() });
        methods.push(LrMethodReport {
            name,
            family,
            schedule: sched,
            trace,
            final_loss,
            test_loss,
            diverged: st.diverged,
            compute_steps: d * cfg.steps_per_interval,
        });
    }
    let dynamic = if cfg.dynamic.enabled {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let (rep, det) = dynamic_tuning(pr, cfg, &w0, y0, cap, observer, cancel)?;
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
    let best_of = |fam: &str| {
        methods
            .iter()
            .filter(|m| m.family == fam)
            .min_by(|a, b| a.final_loss.total_cmp(&b.final_loss))
            .map(|m| BestOf { name: m.name.clone(), final_loss: m.final_loss })
    };
    let best_constant = best_of("constant");
    let best_decay = best_of("exponential-decay");
    observer(&LrEvent::Done {});
    Ok(LrReport {
        problem: cfg.problem.clone(),
        optimizer: cfg.optimizer,
        intervals: d,
        steps_per_interval: cfg.steps_per_interval,
        lr_bounds: cfg.lr_bounds,
        methods,
        dynamic,
        best_constant,
        best_decay,
        seed: cfg.seed,
    })
}

/// Dynamic tuning of one run (Picheny et al. 2020, Algorithm 1).
fn dynamic_tuning(
    pr: &dyn TrainProblem,
    cfg: &LrConfig,
    w0: &[f64],
    y0: f64,
    cap: f64,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<(LrMethodReport, DynamicReport)> {
    let q = cfg.dynamic.runs;
    let d = cfg.intervals;
    let [lo, hi] = cfg.lr_bounds;
    let link = cfg.dynamic.link;
    let cands = logspace(lo, hi, cfg.dynamic.candidates);
    let alphas: Vec<f64> = (1..=q).map(|i| (2 * i - 1) as f64 / (2 * q) as f64).collect();
    // Interval 0: Q rates spread in log space over the bounds, all from w0.
    let mut lrs = logspace(lo, hi, q);
    let mut states: Vec<RunState> = vec![RunState::new(w0.to_vec()); q];
    let mut starts = vec![y0; q];
    let mut obs: Vec<Transition> = Vec::new();
    let mut decisions: Vec<Decision> = Vec::new();
    let mut run_traces = Vec::with_capacity(d);
    let mut stitched = vec![LrTracePoint { step: 0, loss: y0, lr: lrs[0] }];
    let mut schedule = Vec::with_capacity(d);
    let mut boundary_steps = vec![0];
    let mut model: Option<TraceModel> = None;
    let mut model_rng = substream(cfg.seed, 3000, 0);
    for k in 0..d {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let segs: Vec<(Segment, RunState)> = states
            .par_iter()
            .zip(lrs.par_iter())
            .enumerate()
            .map(|(i, (st, &lr))| {
                let mut st = st.clone();
                let mut rng = substream(cfg.seed, 2000 + k as u64, i as u64);
                (run_segment(pr, cfg, &mut st, lr, cap, &mut rng), st)
            })
            .collect();
        let ends: Vec<f64> = segs.iter().map(|s| s.0.end).collect();
        for i in 0..q {
            obs.push(Transition { y: starts[i], lr: lrs[i], y_next: ends[i] });
        }
        if let Some(dec) = decisions.last_mut() {
            dec.observed = ends.clone();
        }
        let best = (0..q).min_by(|&a, &b| ends[a].total_cmp(&ends[b])).unwrap_or(0);
        stitched.extend(segs[best].0.points.iter().copied());
        schedule.push(lrs[best]);
        boundary_steps.push(segs[best].1.step);
        run_traces.push(segs.iter().map(|s| s.0.points.clone()).collect::<Vec<_>>());
        observer(&LrEvent::IntervalDone { interval: k, best_loss: ends[best], lrs: lrs.clone(), losses: ends.clone() });
        let kept = segs[best].1.clone();
        let kept_lr = lrs[best];
        let kept_loss = ends[best];
        states = vec![kept; q];
        starts = vec![kept_loss; q];
        if k + 1 == d {
            break;
        }
        // Fit the trace model on every observed interval and choose the Q rates.
        let y0s = vec![y0; 1];
        let fitted = TraceModel::fit(&obs, &y0s, link, cfg.lr_bounds, &mut model_rng);
        let allowed: Vec<f64> = cands.iter().copied().filter(|c| (c / kept_lr).log10().abs() <= 1.0 + 1e-9).collect();
        let (new_lrs, predicted, failed) = match &fitted {
            Ok(m) => {
                let mut chosen = Vec::with_capacity(q);
                let mut bands = Vec::with_capacity(q);
                for &a in &alphas {
                    let mut bestc = (f64::INFINITY, kept_lr);
                    for &c in &allowed {
                        let v = m.quantile(kept_loss, c, a);
                        if v < bestc.0 {
                            bestc = (v, c);
                        }
                    }
                    chosen.push(bestc.1);
                    bands.push(m.one_step_band(kept_loss, bestc.1));
                }
                (chosen, bands, false)
            }
            Err(_) => {
                // Fallback (reported): spread the rates over one order of magnitude around the kept rate.
                let spread = logspace((kept_lr / 10.0).max(lo), (kept_lr * 10.0).min(hi), q);
                let nan = Band { lo: f64::NAN, median: f64::NAN, hi: f64::NAN };
                (spread, vec![nan; q], true)
            }
        };
        if let Ok(m) = fitted {
            model = Some(m);
        }
        decisions.push(Decision {
            interval: k + 1,
            kept_run: best,
            kept_loss,
            lrs: new_lrs.clone(),
            alphas: alphas.clone(),
            predicted,
            observed: Vec::new(),
            model_failed: failed,
        });
        lrs = new_lrs;
    }
    let final_state = &states[0];
    let final_loss = stitched.last().map_or(y0, |p| p.loss);
    let mut scratch = Vec::new();
    let test_loss = if final_state.diverged { f64::INFINITY } else { pr.test_loss(&final_state.w, &mut scratch) };
    let predicted_bands = match &model {
        Some(m) => m.sample_bands(&schedule, None, cfg.dynamic.band_samples, &mut substream(cfg.seed, 3001, 0)),
        None => Vec::new(),
    };
    let rep = LrMethodReport {
        name: format!("dynamic GP (Q={q})"),
        family: "dynamic".into(),
        schedule,
        trace: stitched,
        final_loss,
        test_loss,
        diverged: final_state.diverged,
        compute_steps: q * d * cfg.steps_per_interval,
    };
    let det = DynamicReport { runs: q, link, decisions, run_traces, predicted_bands, boundary_steps };
    Ok((rep, det))
}
