//! An SG-MCMC tuning run as a [`RoundRun`] of the round executor ([`crate::experiments::executor`]): each round
//! asks the tuner for arms, runs their chains concurrently on the rayon pool in chunks within the round's budget
//! (the cancel flag checked between chunks and, through the samplers, within them), scores the arms, tells the
//! tuner and emits the events on the calling thread. Between rounds its state is a [`TuningState`]: a stopped
//! run resumes from it bit for bit.

use super::arms::{tuner_arms, Arm};
use super::config::{BudgetSpec, BudgetUnit, MetricKind, Scoring, StartSpec, TuneConfig, TunerSpec};
use super::metric::{score_round_fssd, score_with, thin_rows, Scorer};
use super::posterior::Posterior;
use super::report::*;
use super::samples::{chain_cap, round_rows, sub_iters, ArmSink, DrawKeep, Moments, RoundKeep, StrideBuffer};
use crate::bandit::mamba::{Mamba, OneShot};
use crate::bandit::Tuner;
use crate::error::{Error, Result};
use crate::experiments::executor::{execute, OnRound, RoundRun};
use crate::rng::{self, Rng, RngState};
use crate::sampler::{Chain, ChainState, ChainStatus};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
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
    run_tuning(cfg, problem, observer, cancel, None, None)
}

/// Runs a config that was validated once by the caller on the round executor, from the start or from a saved
/// state (`resume`), handing the state to `checkpoint` after every round.
pub fn run_tuning(
    cfg: &TuneConfig,
    problem: &Posterior,
    observer: &mut dyn FnMut(&Event),
    cancel: &AtomicBool,
    resume: Option<TuningState>,
    checkpoint: Option<OnRound<'_>>,
) -> Result<Report> {
    let run = TuningRun::new(cfg, problem, resume, observer)?;
    execute(run, observer, cancel, checkpoint)
}

/// One score told to the tuner (its bits: a diverged arm's +inf and a NaN come back as they were).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Told {
    pub arm: usize,
    #[serde(with = "crate::exact::float")]
    pub score: f64,
}

/// One arm between two rounds: its chain, its stores and what the report keeps of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArmState {
    pub chain: ChainState,
    pub chain_buf: StrideBuffer,
    pub moments: Moments,
    pub draws: Option<DrawKeep>,
    pub held_max: usize,
    pub scores: Vec<Option<f64>>,
    pub status: ArmStatus,
    pub pruned_round: Option<usize>,
    #[serde(with = "crate::exact::float")]
    pub seconds: f64,
    pub score_rng: RngState,
    #[serde(with = "crate::exact::float")]
    pub last_score: f64,
}

/// A tuning run between two rounds: what the rest of the run depends on. The tuner is not saved as such: the
/// tuners are deterministic functions of the scores they were told, so a fresh tuner told `told` again is where
/// the saved one was.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TuningState {
    /// The scores told to the tuner, one list per completed round.
    pub told: Vec<Vec<Told>>,
    pub arms: Vec<ArmState>,
    pub rounds: Vec<RoundReport>,
    /// The report's compute counters so far (`wall_seconds`: the wall time of the run before this state).
    pub compute: Compute,
}

/// A tuning run: the arms, their chains and stores, the run's kernel, the tuner and the report's parts.
pub struct TuningRun<'a> {
    cfg: &'a TuneConfig,
    problem: &'a Posterior,
    unit: BudgetUnit,
    scoring: Scoring,
    runs: Vec<ArmRun>,
    infos: Vec<ArmInfo>,
    scorer: Scorer,
    tuner: Box<dyn Tuner>,
    told: Vec<Vec<Told>>,
    compute: Compute,
    rounds: Vec<RoundReport>,
    wall: Instant,
    wall_before: f64,
}

impl<'a> TuningRun<'a> {
    /// Builds every arm's chain (parameter errors surface before any work) and the run's kernel, puts them
    /// where `resume` left them, and emits `Started`.
    pub fn new(
        cfg: &'a TuneConfig,
        problem: &'a Posterior,
        resume: Option<TuningState>,
        observer: &mut dyn FnMut(&Event),
    ) -> Result<Self> {
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
        let mut runs: Vec<ArmRun> = Vec::with_capacity(arms.len());
        for arm in &arms {
            let params = super::arms::arm_sampler(cfg, arm)
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

        // The run's scorer with its one Stein kernel, fixed before any arm is scored (a function of the problem:
        // computed again on resume).
        let scorer = Scorer::new(&cfg.metric.kind, problem)?;
        let tuner = make_tuner(&cfg.tuner, arms.len(), r);
        let infos: Vec<ArmInfo> = runs.iter().map(|a| ArmInfo::new(&a.arm, a.batch, n)).collect();
        let compute = Compute {
            map_grad_evals: problem.map_grad_evals,
            scoring_grad_evals: scorer.kernel().map_or(0, |k| k.grad_evals),
            threads: rayon::current_num_threads(),
            ..Default::default()
        };
        let mut run = TuningRun {
            cfg,
            problem,
            unit,
            scoring,
            runs,
            infos,
            scorer,
            tuner,
            told: Vec::new(),
            compute,
            rounds: Vec::new(),
            wall,
            wall_before: 0.0,
        };
        if let Some(state) = resume {
            run.restore(state)?;
        }
        observer(&Event::Started {
            tuner: run.tuner.name(),
            arms: run.infos.clone(),
            schedule: run.tuner.plan(),
            dim: d,
            n_data: n,
        });
        Ok(run)
    }

    /// Puts the run where `state` left it; an error (and nothing run) if the state does not fit this config.
    fn restore(&mut self, state: TuningState) -> Result<()> {
        let bad = |what: &str| Error::config(format!("the checkpoint does not fit this run: {what}"));
        let d = self.problem.dim;
        if state.arms.len() != self.runs.len() {
            return Err(bad("another number of arms"));
        }
        if state.rounds.len() != state.told.len() {
            return Err(bad("rounds and scores disagree"));
        }
        for told in &state.told {
            let ask = self.tuner.ask().ok_or_else(|| bad("more rounds than the tuner plans"))?;
            if ask.arms.len() != told.len() || ask.arms.iter().zip(told).any(|(a, t)| *a != t.arm) {
                return Err(bad("the scores are not of the arms the tuner asked for"));
            }
            let scores: Vec<(usize, f64)> = told.iter().map(|t| (t.arm, t.score)).collect();
            self.tuner.tell(&scores);
        }
        for (a, s) in self.runs.iter_mut().zip(state.arms) {
            let draws_fit = match (&s.draws, &a.draws) {
                (None, None) => true,
                (Some(k), Some(_)) => k.fits(d, self.cfg.arm_draws),
                _ => false,
            };
            if !s.chain_buf.fits(d) || s.moments.mean.len() != d || s.moments.m2.len() != d || !draws_fit {
                return Err(bad("a sample store of another dimension"));
            }
            a.chain.restore(s.chain)?;
            a.chain_buf = s.chain_buf;
            a.moments = s.moments;
            a.draws = s.draws;
            a.held_max = s.held_max;
            a.scores = s.scores;
            a.status = s.status;
            a.pruned_round = s.pruned_round;
            a.seconds = s.seconds;
            a.score_rng = s.score_rng.restore()?;
            a.last_score = s.last_score;
        }
        self.told = state.told;
        self.rounds = state.rounds;
        self.wall_before = state.compute.wall_seconds;
        self.compute = Compute { threads: self.compute.threads, wall_seconds: 0.0, ..state.compute };
        Ok(())
    }
}

impl RoundRun for TuningRun<'_> {
    type Event = Event;
    type State = TuningState;
    type Output = Report;

    fn rounds_done(&self) -> usize {
        self.rounds.len()
    }

    fn state(&self) -> TuningState {
        TuningState {
            told: self.told.clone(),
            arms: self
                .runs
                .iter()
                .map(|a| ArmState {
                    chain: a.chain.state(),
                    chain_buf: a.chain_buf.clone(),
                    moments: a.moments.clone(),
                    draws: a.draws.clone(),
                    held_max: a.held_max,
                    scores: a.scores.clone(),
                    status: a.status,
                    pruned_round: a.pruned_round,
                    seconds: a.seconds,
                    score_rng: RngState::of(&a.score_rng),
                    last_score: a.last_score,
                })
                .collect(),
            rounds: self.rounds.clone(),
            compute: Compute {
                wall_seconds: self.wall_before + self.wall.elapsed().as_secs_f64(),
                ..self.compute.clone()
            },
        }
    }

    fn round(&mut self, observer: &mut dyn FnMut(&Event), cancel: &AtomicBool) -> Result<bool> {
        let Some(ask) = self.tuner.ask() else {
            return Ok(false);
        };
        let (cfg, problem, unit, scoring) = (self.cfg, self.problem, self.unit, self.scoring);
        let d = problem.dim;
        let scorer = &self.scorer;
        let target = problem.train.as_ref();
        observer(&Event::RoundStarted { round: ask.round, arms: ask.arms.clone(), budget: ask.budget });
        let mut round_report =
            RoundReport { round: ask.round, arms: ask.arms.clone(), budget: ask.budget, unit, fssd_fit: None };
        let mut active: Vec<&mut ArmRun> = self.runs.iter_mut().filter(|a| ask.arms.contains(&a.arm.id)).collect();
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
                run_chunk(a, chunk, g0, i0, unit, ask.budget, d, cfg.thin, target, cancel);
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
            round_report.fssd_fit = fit;
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
                    let rows = match scoring {
                        Scoring::Round => &round,
                        Scoring::Chain => &a.chain_buf.rows,
                    };
                    let s = score_with(problem, &cfg.metric, scorer, rows, a.batch, &mut a.score_rng)?;
                    Ok((s.value, s.n, s.grad_evals))
                })
                .collect()
        };
        self.compute.scoring_seconds += t_score.elapsed().as_secs_f64();
        let mut tell = Vec::with_capacity(active.len());
        for (a, s) in active.iter_mut().zip(scored) {
            let (value, ns, cost) = s?;
            self.compute.scoring_grad_evals += cost;
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
        let pruned = self.tuner.tell(&tell);
        for a in active.iter_mut() {
            if pruned.contains(&a.arm.id) {
                a.status = ArmStatus::Pruned;
                a.pruned_round = Some(ask.round);
                a.chain_buf.clear();
            }
        }
        self.told.push(tell.iter().map(|&(arm, score)| Told { arm, score }).collect());
        self.rounds.push(round_report);
        let survivors: Vec<usize> = ask.arms.iter().copied().filter(|i| !pruned.contains(i)).collect();
        observer(&Event::Pruned { round: ask.round, arms: pruned });
        observer(&Event::RoundFinished { round: ask.round, survivors });
        Ok(true)
    }

    fn finish(self, observer: &mut dyn FnMut(&Event)) -> Result<Report> {
        let TuningRun { cfg, problem, runs, infos, scorer, tuner, mut compute, rounds, wall, wall_before, .. } = self;
        let (d, n) = (problem.dim, problem.n_data);
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
                    super::calibration::predictive_calibration(test.as_ref(), &b.samples, super::calibration::BINS)
                        .ok();
            }
            b.test_rmse = test.predictive_rmse(&b.samples);
        }
        compute.wall_seconds = wall_before + wall.elapsed().as_secs_f64();
        observer(&Event::Done { best: best.as_ref().map(|b| b.arm) });
        Ok(Report {
            tuner: tuner.name(),
            metric: metric_name(&cfg.metric.kind).into(),
            kernel: match scorer {
                Scorer::Ksd(k) => Some(k),
                _ => None,
            },
            arms: arm_reports,
            rounds,
            best,
            compute,
            config: cfg.clone(),
        })
    }
}

/// Runs chunk `chunk` of a round for one arm: up to `(chunk + 1) / CHUNKS` of the round's budget from the
/// round's start counters `(g0, i0)`, in slices of at most `sub_iters` iterations (or 50 ms) streamed into the
/// stores: the same chain as one call (the slices of an iteration or gradient budget are whole iterations).
#[allow(clippy::too_many_arguments)]
fn run_chunk(
    a: &mut ArmRun,
    chunk: usize,
    g0: u64,
    i0: u64,
    unit: BudgetUnit,
    round_budget: f64,
    d: usize,
    thin: usize,
    target: &dyn crate::model::Target,
    cancel: &AtomicBool,
) {
    use crate::sampler::Budget;
    if matches!(a.chain.status(), ChainStatus::Diverged { .. }) {
        return;
    }
    let frac = (chunk + 1) as f64 / CHUNKS as f64;
    let budget = match unit {
        BudgetUnit::Seconds => BudgetSpec::budget(unit, round_budget / CHUNKS as f64),
        BudgetUnit::GradEvals => {
            let goal = g0 + (round_budget * frac).round() as u64;
            match goal.checked_sub(a.chain.grad_evals()) {
                Some(b) if b > 0 => Budget::GradEvals(b),
                _ => return,
            }
        }
        BudgetUnit::Iterations => {
            let goal = i0 + (round_budget * frac).round() as u64;
            match goal.checked_sub(a.chain.iters()) {
                Some(b) if b > 0 => Budget::Iterations(b),
                _ => return,
            }
        }
    };
    let per_iter = a.chain.params().grad_evals_per_iter();
    let sub = sub_iters(d, thin);
    let mut left = budget;
    loop {
        let slice = match left {
            Budget::GradEvals(g) => Budget::GradEvals(g.min(sub * per_iter)),
            Budget::Iterations(k) => Budget::Iterations(k.min(sub)),
            Budget::Seconds(s) => Budget::Seconds(s.min(0.05)),
        };
        let mut sink = ArmSink {
            moments: &mut a.moments,
            chain: &mut a.chain_buf,
            round: &mut a.round_keep,
            draws: a.draws.as_mut(),
        };
        let stats = a.chain.run(target, slice, thin, &mut sink, cancel);
        a.held_max = a.held_max.max(sink.floats());
        a.seconds += stats.seconds;
        if stats.iters == 0
            || matches!(a.chain.status(), ChainStatus::Diverged { .. })
            || cancel.load(Ordering::Relaxed)
        {
            break;
        }
        left = match left {
            Budget::GradEvals(g) => match g.checked_sub(stats.grad_evals) {
                Some(r) if r > 0 => Budget::GradEvals(r),
                _ => break,
            },
            Budget::Iterations(k) => match k.checked_sub(stats.iters) {
                Some(r) if r > 0 => Budget::Iterations(r),
                _ => break,
            },
            Budget::Seconds(s) => {
                if s - stats.seconds > 0.0 {
                    Budget::Seconds(s - stats.seconds)
                } else {
                    break;
                }
            }
        };
    }
}
