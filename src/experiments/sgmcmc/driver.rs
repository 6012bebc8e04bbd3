//! The driver owns the loop: it asks the tuner for arms, runs them concurrently on the rayon pool in chunks,
//! enforces the budget, checks the cancel flag between (and, through the samplers, within) chunks, scores the
//! arms, tells the tuner, and emits progress events on the calling thread (argmin's executor / observer split).

use super::arms::{tuner_arms, Arm};
use super::config::{BudgetSpec, BudgetUnit, MetricKind, Scoring, StartSpec, TuneConfig, TunerSpec};
use super::metric::{score_round_fssd, score_with, thin_rows};
use super::posterior::Posterior;
use super::report::*;
use super::run_kernel::RunKernel;
use super::samples::{chain_cap, round_rows, sub_iters, ArmSink, DrawKeep, Moments, RoundKeep, StrideBuffer};
use crate::bandit::mamba::{Mamba, OneShot};
use crate::bandit::Tuner;
use crate::error::{Error, Result};
use crate::rng::{self, Rng};
use crate::sampler::{Chain, ChainStatus, SamplerParams};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use web_time::Instant;

/// Chunks per round: progress events and cancellation checks happen between chunks.
pub const CHUNKS: usize = 8;
/// Samples of the best arm kept in the report.
pub const REPORT_SAMPLES: usize = 500;
/// Stream id offset for tuner-level randomness (random search arms).
pub(crate) const STREAM_TUNER: u64 = (1 << 40) + 2;
/// Stream id of the shared FSSD-opt fit (substream: the round).
const STREAM_FSSD: u64 = (1 << 40) + 6;

struct ArmRun {
    arm: Arm,
    batch: usize,
    chain: Chain,
    /// This round's samples that the score uses (see [`super::samples`]).
    round_keep: RoundKeep,
    /// Evenly thinned samples of the whole chain (chain scoring and the report); dropped when pruned.
    chain_buf: StrideBuffer,
    /// Running moments of every kept sample.
    moments: Moments,
    /// The drill-down draws of the arm's current (last) round (`arm_draws` > 0).
    draws: Option<DrawKeep>,
    /// Most floats this arm held at once.
    held_max: usize,
    scores: Vec<Option<f64>>,
    status: ArmStatus,
    pruned_round: Option<usize>,
    seconds: f64,
    score_rng: Rng,
    last_score: f64,
}

impl ArmRun {
    fn progress(&self) -> ArmProgress {
        ArmProgress {
            arm: self.arm.id,
            iters: self.chain.iters(),
            grad_evals: self.chain.grad_evals(),
            seconds: self.seconds,
            samples: self.moments.n,
            diverged: matches!(self.chain.status(), ChainStatus::Diverged { .. }),
        }
    }
}

/// A short name for the metric, for reports.
pub fn metric_name(kind: &MetricKind) -> &'static str {
    match kind {
        MetricKind::Ksd { .. } => "ksd",
        MetricKind::Fssd { .. } => "fssd",
        MetricKind::FssdOpt { .. } => "fssd-opt",
        MetricKind::LogLoss => "log-loss",
        MetricKind::Accuracy => "error-rate",
    }
}

fn make_tuner(spec: &TunerSpec, m: usize, r: f64) -> Box<dyn Tuner> {
    match spec {
        TunerSpec::Mamba { eta, .. } => Box::new(Mamba::new(m, *eta, r)),
        TunerSpec::Grid => Box::new(OneShot::new("grid search", m, r)),
        TunerSpec::Heuristic => Box::new(OneShot::new("heuristic (h = 1/N, 10% batch)", m, r)),
        TunerSpec::Random { .. } => Box::new(OneShot::new("random search", m, r)),
    }
}

/// Mean and standard deviation of each column.
pub fn column_moments(samples: &[f64], d: usize) -> (Vec<f64>, Vec<f64>) {
    let n = samples.len() / d.max(1);
    let mut mean = vec![0.0; d];
    let mut m2 = vec![0.0; d];
    // Welford's update, stable for long chains.
    for (k, row) in samples.chunks_exact(d).enumerate() {
        for j in 0..d {
            let delta = row[j] - mean[j];
            mean[j] += delta / (k + 1) as f64;
            m2[j] += delta * (row[j] - mean[j]);
        }
    }
    let std = m2.iter().map(|v| if n > 1 { (v / (n - 1) as f64).sqrt() } else { 0.0 }).collect();
    (mean, std)
}

/// The samples a score takes from the chain buffer: `max_samples` when MAMBA scores whole chains, else 0 (the
/// buffer then only holds the report's samples; see [`super::samples::chain_cap`]).
pub fn chain_scored_samples(cfg: &TuneConfig) -> usize {
    match cfg.tuner {
        TunerSpec::Mamba { scoring: Scoring::Chain, .. } => cfg.metric.max_samples,
        _ => 0,
    }
}

/// Runs the tuner a config names on a problem that has already been built.
pub fn run_on(
    cfg: &TuneConfig,
    problem: &Posterior,
    observer: &mut dyn FnMut(&Event),
    cancel: &AtomicBool,
) -> Result<Report> {
    cfg.validate()?;
    drive(cfg, problem, observer, cancel)
}

/// The loop, on a config that was validated once by the caller.
pub(crate) fn drive(
    cfg: &TuneConfig,
    problem: &Posterior,
    observer: &mut dyn FnMut(&Event),
    cancel: &AtomicBool,
) -> Result<Report> {
    let wall = Instant::now();
    let (unit, r) = cfg.budget.unit_amount()?;
    let d = problem.dim;
    let n = problem.n_data;
    let mut trng = rng::stream(cfg.seed, STREAM_TUNER);
    let arms = tuner_arms(&cfg.tuner, &cfg.arms, cfg.sampler.kind, n, &mut trng)?;
    if arms.is_empty() {
        return Err(Error::config("no arms to run"));
    }
    let scoring = match cfg.tuner {
        TunerSpec::Mamba { scoring, .. } => scoring,
        _ => Scoring::Round,
    };
    let use_cv = cfg.sampler.kind.is_cv();

    // Build every chain up front: parameter errors (batch larger than N, ...) surface before any work.
    let mut runs: Vec<ArmRun> = Vec::with_capacity(arms.len());
    for arm in &arms {
        let params = SamplerParams {
            kind: cfg.sampler.kind,
            step: arm.step,
            batch: arm.batch,
            leapfrog: arm.leapfrog,
            friction: cfg.sampler.friction,
            thermostat_a: cfg.sampler.thermostat_a,
            with_replacement: cfg.sampler.with_replacement,
        }
        .validate(n)
        .map_err(|e| Error::config(format!("arm {} (h = {:.3e}): {}", arm.id, arm.step, e)))?;
        let batch = params.batch();
        let start = match cfg.start {
            StartSpec::Map => problem.map.clone(),
            StartSpec::Zero => vec![0.0; d],
            StartSpec::MapNoise(s) => {
                let mut r0 = rng::substream(cfg.seed, arm.id as u64, 2);
                problem
                    .map
                    .iter()
                    .map(|m| m + s * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut r0))
                    .collect()
            }
        };
        let cv = use_cv.then(|| problem.cv.clone());
        let chain = Chain::new(problem.train.as_ref(), params, start, cv, rng::stream(cfg.seed, arm.id as u64))?;
        runs.push(ArmRun {
            arm: *arm,
            batch,
            chain,
            round_keep: RoundKeep::new(d, Some(0), cfg.metric.max_samples),
            chain_buf: StrideBuffer::new(d, chain_cap(d, chain_scored_samples(cfg), REPORT_SAMPLES, arms.len())),
            moments: Moments::new(d),
            draws: (cfg.arm_draws > 0).then(|| DrawKeep::new(d, cfg.arm_draws, 0)),
            held_max: 0,
            scores: Vec::new(),
            status: ArmStatus::Survivor,
            pruned_round: None,
            seconds: 0.0,
            score_rng: rng::substream(cfg.seed, arm.id as u64, 1),
            last_score: f64::INFINITY,
        });
    }

    // The run's one Stein kernel, fixed before any arm is scored.
    let kernel = RunKernel::for_metric(&cfg.metric.kind, problem.train.as_ref(), &problem.map)?;
    let mut tuner = make_tuner(&cfg.tuner, arms.len(), r);
    let infos: Vec<ArmInfo> = runs.iter().map(|a| ArmInfo::new(&a.arm, a.batch, n)).collect();
    observer(&Event::Started { tuner: tuner.name(), arms: infos.clone(), schedule: tuner.plan(), dim: d, n_data: n });

    let mut compute = Compute {
        map_grad_evals: problem.map_grad_evals,
        scoring_grad_evals: kernel.as_ref().map_or(0, |k| k.grad_evals),
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let mut rounds = Vec::new();
    let target = problem.train.as_ref();

    while let Some(ask) = tuner.ask() {
        observer(&Event::RoundStarted { round: ask.round, arms: ask.arms.clone(), budget: ask.budget });
        rounds.push(RoundReport { round: ask.round, arms: ask.arms.clone(), budget: ask.budget, unit, fssd_fit: None });
        let mut active: Vec<&mut ArmRun> = runs.iter_mut().filter(|a| ask.arms.contains(&a.arm.id)).collect();
        // Counters at the start of the round, so that chunk budgets do not accumulate rounding.
        let base: Vec<(u64, u64)> = active.iter().map(|a| (a.chain.grad_evals(), a.chain.iters())).collect();
        // Each arm's round store: exactly the rows its score will use when the round's length is known.
        for (a, &(g0, i0)) in active.iter_mut().zip(&base) {
            let per_iter = a.chain.params().grad_evals_per_iter();
            let rows = round_rows(unit, ask.budget, CHUNKS, g0, i0, per_iter, cfg.thin as u64);
            a.round_keep = RoundKeep::new(d, rows, cfg.metric.max_samples);
            if let Some(k) = a.draws.as_mut() {
                k.restart(ask.round);
            }
        }
        for chunk in 0..CHUNKS {
            active.par_iter_mut().with_max_len(1).zip(base.par_iter()).for_each(|(a, &(g0, i0))| {
                if matches!(a.chain.status(), ChainStatus::Diverged { .. }) {
                    return;
                }
                let frac = (chunk + 1) as f64 / CHUNKS as f64;
                let budget = match unit {
                    BudgetUnit::Seconds => BudgetSpec::budget(unit, ask.budget / CHUNKS as f64),
                    BudgetUnit::GradEvals => {
                        let goal = g0 + (ask.budget * frac).round() as u64;
                        match goal.checked_sub(a.chain.grad_evals()) {
                            Some(b) if b > 0 => crate::sampler::Budget::GradEvals(b),
                            _ => return,
                        }
                    }
                    BudgetUnit::Iterations => {
                        let goal = i0 + (ask.budget * frac).round() as u64;
                        match goal.checked_sub(a.chain.iters()) {
                            Some(b) if b > 0 => crate::sampler::Budget::Iterations(b),
                            _ => return,
                        }
                    }
                };
                // Slices of at most `sub_iters` iterations (or 50 ms), each kept sample written into the arm's
                // stores: the same chain as one call (the slices of an iteration or gradient budget are whole
                // iterations).
                let per_iter = a.chain.params().grad_evals_per_iter();
                let sub = sub_iters(d, cfg.thin);
                let mut left = budget;
                loop {
                    let slice = match left {
                        crate::sampler::Budget::GradEvals(g) => {
                            crate::sampler::Budget::GradEvals(g.min(sub * per_iter))
                        }
                        crate::sampler::Budget::Iterations(k) => crate::sampler::Budget::Iterations(k.min(sub)),
                        crate::sampler::Budget::Seconds(s) => crate::sampler::Budget::Seconds(s.min(0.05)),
                    };
                    let mut sink = ArmSink {
                        moments: &mut a.moments,
                        chain: &mut a.chain_buf,
                        round: &mut a.round_keep,
                        draws: a.draws.as_mut(),
                    };
                    let stats = a.chain.run(target, slice, cfg.thin, &mut sink, cancel);
                    a.held_max = a.held_max.max(sink.floats());
                    a.seconds += stats.seconds;
                    if stats.iters == 0
                        || matches!(a.chain.status(), ChainStatus::Diverged { .. })
                        || cancel.load(Ordering::Relaxed)
                    {
                        break;
                    }
                    left = match left {
                        crate::sampler::Budget::GradEvals(g) => match g.checked_sub(stats.grad_evals) {
                            Some(r) if r > 0 => crate::sampler::Budget::GradEvals(r),
                            _ => break,
                        },
                        crate::sampler::Budget::Iterations(k) => match k.checked_sub(stats.iters) {
                            Some(r) if r > 0 => crate::sampler::Budget::Iterations(r),
                            _ => break,
                        },
                        crate::sampler::Budget::Seconds(s) => {
                            if s - stats.seconds > 0.0 {
                                crate::sampler::Budget::Seconds(s - stats.seconds)
                            } else {
                                break;
                            }
                        }
                    };
                }
            });
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            observer(&Event::Progress {
                round: ask.round,
                chunk,
                chunks: CHUNKS,
                arms: active.iter().map(|a| a.progress()).collect(),
            });
        }

        // Score every arm of the round (in parallel; each arm's score is deterministic on its own stream).
        let t_score = Instant::now();
        let scored: Vec<Result<(f64, usize, u64)>> = if let MetricKind::FssdOpt { j, per_arm: false } = cfg.metric.kind
        {
            // FSSD-opt, tunelab's version: one fit per round on the pooled samples, shared by the arms (the paper,
            // app. B.1.3, optimises 10 locations "from a Gaussian fit to the samples" by Adam; pooling the arms and
            // training the width are tunelab's choices, docs/papers/mamba.md).
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let sets: Vec<Option<Vec<f64>>> = active
                .iter_mut()
                .map(|a| {
                    let keep = std::mem::replace(&mut a.round_keep, RoundKeep::new(d, Some(0), 2));
                    if let ChainStatus::Diverged { .. } = a.chain.status() {
                        return None;
                    }
                    let (round, _) = keep.finish();
                    Some(match scoring {
                        Scoring::Round => thin_rows(&round, d, cfg.metric.max_samples),
                        Scoring::Chain => thin_rows(&a.chain_buf.rows, d, cfg.metric.max_samples),
                    })
                })
                .collect();
            let batches: Vec<usize> = active.iter().map(|a| a.batch).collect();
            let mut rngs: Vec<&mut Rng> = active.iter_mut().map(|a| &mut a.score_rng).collect();
            let mut fit_rng = rng::substream(cfg.seed, STREAM_FSSD, ask.round as u64);
            let (s, fit) = score_round_fssd(problem, &cfg.metric, j, sets, &batches, &mut rngs, &mut fit_rng)?;
            if let Some(r) = rounds.last_mut() {
                r.fssd_fit = fit;
            }
            s.into_iter().map(|s| Ok((s.value, s.n, s.grad_evals))).collect()
        } else {
            active
                .par_iter_mut()
                .with_max_len(1)
                .map(|a| {
                    // Scoring a round takes seconds on large problems: a stop skips the arms not yet scored.
                    if cancel.load(Ordering::Relaxed) {
                        return Err(Error::Cancelled);
                    }
                    if let ChainStatus::Diverged { .. } = a.chain.status() {
                        return Ok((f64::INFINITY, 0, 0));
                    }
                    let keep = std::mem::replace(&mut a.round_keep, RoundKeep::new(d, Some(0), 2));
                    let (round, exact) = keep.finish();
                    debug_assert!(
                        exact,
                        "arm {}: the round kept a different number of samples than predicted",
                        a.arm.id
                    );
                    let s = match scoring {
                        Scoring::Round => {
                            score_with(problem, &cfg.metric, kernel.as_ref(), &round, a.batch, &mut a.score_rng)?
                        }
                        Scoring::Chain => score_with(
                            problem,
                            &cfg.metric,
                            kernel.as_ref(),
                            &a.chain_buf.rows,
                            a.batch,
                            &mut a.score_rng,
                        )?,
                    };
                    Ok((s.value, s.n, s.grad_evals))
                })
                .collect()
        };
        compute.scoring_seconds += t_score.elapsed().as_secs_f64();
        let mut tell = Vec::with_capacity(active.len());
        for (a, s) in active.iter_mut().zip(scored) {
            let (value, ns, cost) = s?;
            compute.scoring_grad_evals += cost;
            a.last_score = value;
            a.scores.push(value.is_finite().then_some(value));
            tell.push((a.arm.id, value));
            observer(&Event::ArmScored {
                round: ask.round,
                arm: a.arm.id,
                score: value.is_finite().then_some(value),
                grad_evals: a.chain.grad_evals(),
                samples: ns,
            });
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let pruned = tuner.tell(&tell);
        for a in active.iter_mut() {
            if pruned.contains(&a.arm.id) {
                a.status = ArmStatus::Pruned;
                a.pruned_round = Some(ask.round);
                a.chain_buf.clear();
            }
        }
        let survivors: Vec<usize> = ask.arms.iter().copied().filter(|i| !pruned.contains(i)).collect();
        observer(&Event::Pruned { round: ask.round, arms: pruned });
        observer(&Event::RoundFinished { round: ask.round, survivors });
    }

    let mut arm_reports = Vec::with_capacity(runs.len());
    for (a, info) in runs.iter().zip(infos) {
        let diverged_iter = match a.chain.status() {
            ChainStatus::Diverged { iter } => Some(iter),
            _ => None,
        };
        compute.grad_evals += a.chain.grad_evals();
        compute.seconds += a.seconds;
        arm_reports.push(ArmReport {
            info,
            status: if diverged_iter.is_some() { ArmStatus::Diverged } else { a.status },
            pruned_round: a.pruned_round,
            diverged_iter,
            scores: a.scores.clone(),
            iters: a.chain.iters(),
            grad_evals: a.chain.grad_evals(),
            seconds: a.seconds,
            samples: a.moments.n,
            draws: a.draws.as_ref().map(|k| k.finish()),
        });
        compute.kept_floats_max += a.held_max;
    }
    let mut best =
        tuner.best().and_then(|id| runs.iter().find(|a| a.arm.id == id)).filter(|a| a.last_score.is_finite()).map(
            |a| {
                let (mean, std) = (a.moments.mean.clone(), a.moments.std());
                Best {
                    arm: a.arm.id,
                    step: a.arm.step,
                    batch: a.batch,
                    batch_fraction: a.batch as f64 / n as f64,
                    leapfrog: a.arm.leapfrog,
                    score: a.last_score,
                    posterior: PosteriorSummary { mean, std, n: a.moments.n },
                    samples: thin_rows(&a.chain_buf.rows, d, REPORT_SAMPLES),
                    dim: d,
                    calibration: None,
                    test_rmse: None,
                }
            },
        );
    if let (Some(b), Some(test)) = (best.as_mut(), problem.test.as_ref()) {
        if test.n_classes() >= 2 {
            b.calibration =
                super::calibration::predictive_calibration(test.as_ref(), &b.samples, super::calibration::BINS).ok();
        }
        b.test_rmse = test.predictive_rmse(&b.samples);
    }
    compute.wall_seconds = wall.elapsed().as_secs_f64();
    observer(&Event::Done { best: best.as_ref().map(|b| b.arm) });
    Ok(Report {
        tuner: tuner.name(),
        metric: metric_name(&cfg.metric.kind).into(),
        kernel,
        arms: arm_reports,
        rounds,
        best,
        compute,
        config: cfg.clone(),
    })
}
