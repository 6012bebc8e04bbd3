//! The bandit run as a [`RoundRun`] of the round executor ([`crate::experiments::executor`]): repeats x
//! algorithms as independent jobs, advanced a chunk of rounds at a time on the rayon pool; each chunk is one
//! round of the executor (the stop flag between chunks, the run's state saved after each when asked).
//!
//! Streams: repeat `r` draws its problem seed from `rng::stream(seed, r)` (so all algorithms of a repeat face the
//! same reservoir arms / data: common random numbers); algorithm `a` of repeat `r` uses
//! `rng::substream(seed, r, 3a + 1)` for its choices, `3a + 2` for the reward noise and `3a + 3` for Monte Carlo
//! recommendations. No stream depends on scheduling, so the report (apart from timings) is identical for any
//! number of threads and any chunking.
//!
//! Resume: the algorithms are deterministic functions of their choice stream, the rewards they were told and
//! their recommendation stream, so a job's saved state is its pulls (arm, reward), the reward stream's position,
//! the problem's state as the pulls left it ([`Problem::replay`]) and the report's values so far; a fresh
//! algorithm asked again and told the saved rewards is where the saved one was, and no pull is drawn twice.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use web_time::Instant;

use super::charts;
use super::config::{AlgoSpec, BanditConfig};
use super::problems::{ArmSpace, Problem};
use super::report::*;
use crate::bandit::{Arm, BanditAlgo};
use crate::experiments::executor::{execute, RoundRun, Rounds};
use crate::rng::{stream, substream, Rng, RngState};
use crate::{Error, Result};

/// Number of progress chunks (events) per run, at most.
const CHUNKS: usize = 25;

struct Job {
    repeat: usize,
    algo_index: usize,
    algo: Box<dyn BanditAlgo>,
    problem: Box<dyn Problem>,
    rng_algo: Rng,
    rng_env: Rng,
    rng_rec: Rng,
    t: usize,
    cum_regret: f64,
    compute: f64,
    seconds: f64,
    /// Values at the checkpoints reached so far.
    simple: Vec<f64>,
    cumulative: Vec<f64>,
    units: Vec<f64>,
    secs: Vec<f64>,
    /// Distinct arms pulled so far (indices; points by their bits) and the count at each checkpoint.
    seen: std::collections::HashSet<Vec<u64>>,
    distinct: Vec<f64>,
    /// Repeat 0 only: every pull (round, arm, reward) and the optimal arm before it.
    record: bool,
    history: Vec<(usize, Arm, f64)>,
    optimal: Vec<Vec<f64>>,
    last_rec: Option<Arm>,
    /// Every pull's arm and reward, kept when the run's state is saved (what a resume tells the algorithm).
    pulls: Option<(Vec<Arm>, Vec<f64>)>,
}

/// The key of an arm in the set of distinct arms pulled.
fn arm_key(arm: &Arm) -> Vec<u64> {
    match arm {
        Arm::Index(k) => vec![*k as u64],
        Arm::Point(p) => p.iter().map(|v| v.to_bits()).collect(),
    }
}

impl Job {
    /// Runs rounds `self.t .. to`, recording checkpoints.
    fn advance(&mut self, to: usize, checkpoints: &[usize], cancel: &AtomicBool) -> Result<()> {
        self.play(to, checkpoints, cancel, None)
    }

    /// [`Job::advance`], or with `saved` (the arms and rewards of a saved run) its replay: the same calls of the
    /// algorithm and the problem, each pull replaced by [`Problem::replay`] and its saved reward (the problem's
    /// caches fill as they did; the compute counter is restored by the caller).
    fn play(
        &mut self,
        to: usize,
        checkpoints: &[usize],
        cancel: &AtomicBool,
        saved: Option<(&[SavedArm], &[f64])>,
    ) -> Result<()> {
        let start = Instant::now();
        while self.t < to {
            // A chunk can be long (many rounds, one repeat): look at the stop flag every 64 rounds.
            if self.t.is_multiple_of(64) && cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let t = self.t;
            let arm = self.algo.ask(t, &mut self.rng_algo);
            let opt = self.problem.optimum(t);
            if self.record && matches!(self.problem.space(), ArmSpace::Continuous { ordered: true, .. }) {
                if let Some(Arm::Point(p)) = self.problem.optimal_arm(t) {
                    self.optimal.push(p);
                }
            }
            let val = self.problem.value(&arm, t);
            if !val.is_finite() {
                return Err(Error::numerical(format!("arm {arm:?} has no finite value at round {t}")));
            }
            let reward = match saved {
                None => {
                    let reward = self.problem.pull(&arm, t, &mut self.rng_env)?;
                    self.compute += self.problem.cost(&arm);
                    reward
                }
                Some((arms, rewards)) => {
                    if arms.get(t) != Some(&SavedArm::from(arm.clone())) {
                        return Err(Error::config(
                            "the checkpoint does not fit this run: its pulls are not the arms the algorithm asks for",
                        ));
                    }
                    self.problem.replay(&arm, t)?;
                    rewards[t]
                }
            };
            self.algo.tell(&arm, reward);
            self.cum_regret += opt - val;
            self.seen.insert(arm_key(&arm));
            if self.record {
                self.history.push((t + 1, arm.clone(), reward));
            }
            if let Some((arms, rewards)) = self.pulls.as_mut() {
                arms.push(arm.clone());
                rewards.push(reward);
            }
            self.t += 1;
            if checkpoints.binary_search(&self.t).is_ok() {
                let rec = self.algo.recommend(self.t, &mut self.rng_rec).unwrap_or(arm);
                let now_opt = self.problem.optimum(self.t);
                let v = self.problem.value(&rec, self.t);
                self.simple.push(now_opt - v);
                self.cumulative.push(self.cum_regret);
                self.distinct.push(self.seen.len() as f64);
                self.units.push(self.compute);
                self.secs.push(self.seconds + start.elapsed().as_secs_f64());
                self.last_rec = Some(rec);
            }
        }
        self.seconds += start.elapsed().as_secs_f64();
        Ok(())
    }

    fn state(&self) -> JobState {
        let (arms, rewards) = self.pulls.clone().unwrap_or_default();
        JobState {
            t: self.t,
            arms: arms.into_iter().map(SavedArm::from).collect(),
            rewards,
            rng_env: RngState::of(&self.rng_env),
            compute: self.compute,
            seconds: self.seconds,
            units: self.units.clone(),
            secs: self.secs.clone(),
        }
    }

    /// Puts a fresh job where `s` left it: the algorithm and the problem replay the saved pulls ([`Job::play`]:
    /// the algorithm is asked again and told the saved rewards, recommending at the same checkpoints), then the
    /// values that depend on the pulls' draws or on time are restored. An error (before any pull) if `s` does
    /// not fit.
    fn restore(&mut self, s: JobState, checkpoints: &[usize], cancel: &AtomicBool) -> Result<()> {
        let bad = |what: &str| Error::config(format!("the checkpoint does not fit this run: {what}"));
        let reached = checkpoints.partition_point(|&c| c <= s.t);
        if s.arms.len() != s.t || s.rewards.len() != s.t {
            return Err(bad("a repeat's pulls and rounds disagree"));
        }
        if s.units.len() != reached || s.secs.len() != reached {
            return Err(bad("a repeat's values and checkpoints disagree"));
        }
        self.play(s.t, checkpoints, cancel, Some((&s.arms, &s.rewards)))?;
        self.rng_env = s.rng_env.restore()?;
        self.compute = s.compute;
        self.seconds = s.seconds;
        self.units = s.units;
        self.secs = s.secs;
        Ok(())
    }
}

/// An arm as saved: its floats by their bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SavedArm {
    Index(usize),
    Point(#[serde(with = "crate::exact::floats")] Vec<f64>),
}

impl From<Arm> for SavedArm {
    fn from(a: Arm) -> Self {
        match a {
            Arm::Index(k) => SavedArm::Index(k),
            Arm::Point(p) => SavedArm::Point(p),
        }
    }
}

impl From<SavedArm> for Arm {
    fn from(a: SavedArm) -> Self {
        match a {
            SavedArm::Index(k) => Arm::Index(k),
            SavedArm::Point(p) => Arm::Point(p),
        }
    }
}

/// One job (a repeat of an algorithm) between two chunks of rounds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobState {
    /// Rounds played.
    pub t: usize,
    /// Every pull's arm and reward, in order.
    pub arms: Vec<SavedArm>,
    #[serde(with = "crate::exact::floats")]
    pub rewards: Vec<f64>,
    /// The reward noise stream's position.
    pub rng_env: RngState,
    #[serde(with = "crate::exact::float")]
    pub compute: f64,
    #[serde(with = "crate::exact::float")]
    pub seconds: f64,
    /// The compute units and seconds at the checkpoints reached (the rest of the report's values at the
    /// checkpoints come back with the replay).
    #[serde(with = "crate::exact::floats")]
    pub units: Vec<f64>,
    #[serde(with = "crate::exact::floats")]
    pub secs: Vec<f64>,
}

/// A bandit run between two chunks of rounds: what the rest of the run depends on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BanditState {
    /// Chunks of rounds done.
    pub chunks: usize,
    /// The wall time of the run before this state.
    #[serde(with = "crate::exact::float")]
    pub wall_seconds: f64,
    /// Repeat-major, then algorithm, as the run builds them.
    pub jobs: Vec<JobState>,
}

/// Checkpoint rounds: `ceil(j * rounds / c)` for `j = 1..=c`, deduplicated.
pub(crate) fn checkpoint_rounds(rounds: usize, c: usize) -> Vec<usize> {
    let c = c.min(rounds).max(1);
    let mut v: Vec<usize> = (1..=c).map(|j| (j * rounds).div_ceil(c)).collect();
    v.dedup();
    v
}

/// Runs the comparison on a config the experiment contract checked once (`algos`: what `validate` returned),
/// on the round executor, from the start or from a saved [`BanditState`] (`rounds.resume`), saving the state
/// after every chunk of rounds when `rounds.checkpoint` asks. `observer` receives [`BanditEvent`]s on the calling
/// thread; `cancel` is checked between chunks of rounds (then `Error::Cancelled`). Repeats and algorithms run in
/// parallel on the current rayon pool; the result does not depend on the number of threads (timings aside).
pub(crate) fn run_checked(
    cfg: &BanditConfig,
    algos: &[AlgoSpec],
    data: Option<crate::data::Dataset>,
    observer: &mut dyn FnMut(&BanditEvent),
    cancel: &AtomicBool,
    mut rounds: Rounds,
) -> Result<BanditReport> {
    let resume: Option<BanditState> = rounds.take_resume()?;
    let run = BanditRun::new(cfg, algos, data, resume, rounds.checkpoint.is_some(), observer, cancel)?;
    execute(run, observer, cancel, rounds.checkpoint)
}

/// A bandit run: its jobs and the chunks of rounds done.
struct BanditRun<'a> {
    cfg: &'a BanditConfig,
    algos: Vec<AlgoSpec>,
    names: Vec<String>,
    problem_name: String,
    r0: usize,
    checkpoints: Vec<usize>,
    /// Checkpoints per chunk (a chunk ends on a checkpoint round).
    per_chunk: usize,
    jobs: Vec<Job>,
    chunks: usize,
    wall: Instant,
    wall_before: f64,
}

impl<'a> BanditRun<'a> {
    /// Prepares what the repeats share, builds every job, puts them where `resume` left them and emits
    /// `Started`. `keep_pulls`: keep every pull (the saved state needs them).
    fn new(
        cfg: &'a BanditConfig,
        algos: &[AlgoSpec],
        data: Option<crate::data::Dataset>,
        resume: Option<BanditState>,
        keep_pulls: bool,
        observer: &mut dyn FnMut(&BanditEvent),
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let wall = Instant::now();
        let algos = algos.to_vec();
        let checkpoints = checkpoint_rounds(cfg.rounds, cfg.checkpoints.unwrap_or(100));
        let shared = cfg.prepare(data, &mut |done, total| observer(&BanditEvent::Preparing { done, total }), cancel)?;
        let problem_name = cfg.build_problem(0, &shared)?.name();
        let (r0, r1) = cfg.repeat_range.unwrap_or((0, cfg.repeats));
        let mut jobs: Vec<Job> = Vec::with_capacity((r1 - r0) * algos.len());
        for r in r0..r1 {
            let problem_seed: u64 = stream(cfg.seed, r as u64).random();
            for (a, spec) in algos.iter().enumerate() {
                let problem = cfg.build_problem(problem_seed, &shared)?;
                let space = problem.space();
                let algo_seed = substream(cfg.seed, r as u64, 3 * a as u64 + 1).random::<u64>();
                let algo = spec.build(&space, problem.unit_rewards(), cfg.rounds, algo_seed)?;
                jobs.push(Job {
                    repeat: r,
                    algo_index: a,
                    algo,
                    problem,
                    rng_algo: substream(cfg.seed, r as u64, 3 * a as u64 + 1),
                    rng_env: substream(cfg.seed, r as u64, 3 * a as u64 + 2),
                    rng_rec: substream(cfg.seed, r as u64, 3 * a as u64 + 3),
                    t: 0,
                    cum_regret: 0.0,
                    compute: 0.0,
                    seconds: 0.0,
                    simple: Vec::with_capacity(checkpoints.len()),
                    cumulative: Vec::with_capacity(checkpoints.len()),
                    units: Vec::with_capacity(checkpoints.len()),
                    secs: Vec::with_capacity(checkpoints.len()),
                    seen: std::collections::HashSet::new(),
                    distinct: Vec::with_capacity(checkpoints.len()),
                    record: r == 0,
                    history: Vec::new(),
                    optimal: Vec::new(),
                    last_rec: None,
                    pulls: keep_pulls.then(Default::default),
                });
            }
        }
        let names: Vec<String> = algos.iter().map(AlgoSpec::name).collect();
        let per_chunk = checkpoints.len().div_ceil(CHUNKS).max(1);
        let mut run = BanditRun {
            cfg,
            algos,
            names,
            problem_name,
            r0,
            checkpoints,
            per_chunk,
            jobs,
            chunks: 0,
            wall,
            wall_before: 0.0,
        };
        if let Some(state) = resume {
            run.restore(state, cancel)?;
        }
        observer(&BanditEvent::Started {
            problem: run.problem_name.clone(),
            algorithms: run.names.clone(),
            rounds: cfg.rounds,
            repeats: r1 - r0,
            checkpoints: run.checkpoints.clone(),
        });
        Ok(run)
    }

    /// Checkpoints reported after `chunks` chunks.
    fn reached(&self, chunks: usize) -> usize {
        (chunks * self.per_chunk).min(self.checkpoints.len())
    }

    fn restore(&mut self, state: BanditState, cancel: &AtomicBool) -> Result<()> {
        let bad = |what: &str| Error::config(format!("the checkpoint does not fit this run: {what}"));
        if state.jobs.len() != self.jobs.len() {
            return Err(bad("another number of repeats or algorithms"));
        }
        if state.chunks > self.checkpoints.len().div_ceil(self.per_chunk) {
            return Err(bad("more chunks of rounds than the run has"));
        }
        let reached = self.reached(state.chunks);
        let t = if reached == 0 { 0 } else { self.checkpoints[reached - 1] };
        if state.jobs.iter().any(|j| j.t != t) {
            return Err(bad("a repeat at another round"));
        }
        let checkpoints = &self.checkpoints;
        self.jobs
            .par_iter_mut()
            .zip(state.jobs.into_par_iter())
            .map(|(j, s)| j.restore(s, checkpoints, cancel))
            .collect::<Result<Vec<()>>>()?;
        self.chunks = state.chunks;
        self.wall_before = state.wall_seconds;
        Ok(())
    }
}

impl RoundRun for BanditRun<'_> {
    type Event = BanditEvent;
    type State = BanditState;
    type Output = BanditReport;

    fn rounds_done(&self) -> usize {
        self.chunks
    }

    fn state(&self) -> BanditState {
        BanditState {
            chunks: self.chunks,
            wall_seconds: self.wall_before + self.wall.elapsed().as_secs_f64(),
            jobs: self.jobs.iter().map(Job::state).collect(),
        }
    }

    /// Advances every job to the chunk's last checkpoint round, then emits the mean curves at the chunk's
    /// checkpoints.
    fn round(&mut self, observer: &mut dyn FnMut(&BanditEvent), cancel: &AtomicBool) -> Result<bool> {
        let reported = self.reached(self.chunks);
        if reported >= self.checkpoints.len() {
            return Ok(false);
        }
        let ci = self.reached(self.chunks + 1);
        let to = self.checkpoints[ci - 1];
        let checkpoints = &self.checkpoints;
        self.jobs.par_iter_mut().map(|j| j.advance(to, checkpoints, cancel)).collect::<Result<Vec<()>>>()?;
        self.chunks += 1;
        // progress: new checkpoints' mean curves
        let band = self.cfg.band;
        let mut curves = Vec::with_capacity(self.algos.len());
        for (a, name) in self.names.iter().enumerate() {
            let sel: Vec<&Job> = self.jobs.iter().filter(|j| j.algo_index == a).collect();
            let simple: Vec<Vec<f64>> = sel.iter().map(|j| j.simple.clone()).collect();
            let cumu: Vec<Vec<f64>> = sel.iter().map(|j| j.cumulative.clone()).collect();
            let (s, c): (Vec<Summary>, Vec<Summary>) =
                (reported..ci).map(|i| (summary_at(&simple, i, band), summary_at(&cumu, i, band))).unzip();
            curves.push(CurveUpdate {
                name: name.clone(),
                rounds: self.checkpoints[reported..ci].to_vec(),
                simple_regret: s.iter().map(|v| v.mean).collect(),
                simple_lo: s.iter().map(|v| v.lo).collect(),
                simple_hi: s.iter().map(|v| v.hi).collect(),
                cumulative_regret: c.iter().map(|v| v.mean).collect(),
                cumulative_lo: c.iter().map(|v| v.lo).collect(),
                cumulative_hi: c.iter().map(|v| v.hi).collect(),
            });
        }
        observer(&BanditEvent::Progress { round: to, rounds: self.cfg.rounds, curves });
        Ok(true)
    }

    fn finish(self, observer: &mut dyn FnMut(&BanditEvent)) -> Result<BanditReport> {
        let BanditRun { cfg, algos, problem_name, r0, checkpoints, mut jobs, wall, wall_before, .. } = self;
        let k = checkpoints.len();
        let mut reports = Vec::with_capacity(algos.len());
        for (a, spec) in algos.iter().enumerate() {
            let mut sel: Vec<&mut Job> = jobs.iter_mut().filter(|j| j.algo_index == a).collect();
            sel.sort_by_key(|j| j.repeat);
            let raw = PerRepeat {
                first: r0,
                simple: sel.iter().map(|j| j.simple.clone()).collect(),
                cumulative: sel.iter().map(|j| j.cumulative.clone()).collect(),
                distinct: sel.iter().map(|j| j.distinct.clone()).collect(),
                units: sel.iter().map(|j| j.units.clone()).collect(),
                seconds: sel.iter().map(|j| j.secs.clone()).collect(),
                failures: sel.iter().map(|j| j.algo.failures()).collect(),
            };
            let mut recommended = Vec::with_capacity(sel.len());
            for j in sel.iter_mut() {
                let t = j.t;
                let optimum = j.problem.optimum(t);
                let value = j.last_rec.as_ref().map(|arm| j.problem.value(arm, t));
                let label = j.last_rec.as_ref().and_then(|arm| j.problem.describe(arm));
                recommended.push(Recommendation { repeat: j.repeat, arm: j.last_rec.clone(), label, value, optimum });
            }
            let j0 = &mut *sel[0];
            let charts = charts::charts(j0.algo.as_ref(), j0.problem.as_mut(), &j0.history, &j0.optimal, j0.t);
            let unit = sel[0].problem.cost_unit().to_string();
            let mut report =
                assemble(spec.name(), spec.kind().to_string(), unit, &raw, recommended, charts, k, cfg.band);
            if cfg.repeat_range.is_some() {
                report.per_repeat = Some(raw);
            }
            reports.push(report);
        }
        let seconds = wall_before + wall.elapsed().as_secs_f64();
        observer(&BanditEvent::Done { seconds });
        Ok(BanditReport {
            problem: problem_name,
            config: cfg.clone(),
            rounds: checkpoints,
            algorithms: reports,
            seconds,
        })
    }
}

/// An algorithm's report from its repeats' raw values (in repeat order): the summaries of a run, and of
/// [`merge_reports`], computed by the same arithmetic.
#[allow(clippy::too_many_arguments)]
fn assemble(
    name: String,
    kind: String,
    unit: String,
    raw: &PerRepeat,
    recommended: Vec<Recommendation>,
    charts: Charts,
    k: usize,
    band: f64,
) -> AlgoReport {
    let n = raw.simple.len() as f64;
    let units: Vec<f64> = (0..k).map(|i| raw.units.iter().map(|u| u[i]).sum::<f64>() / n).collect();
    let secs: Vec<f64> = (0..k).map(|i| raw.seconds.iter().map(|u| u[i]).sum::<f64>() / n).collect();
    let finals: Vec<f64> = raw.simple.iter().map(|v| v[k - 1]).collect();
    let finals_c: Vec<f64> = raw.cumulative.iter().map(|v| v[k - 1]).collect();
    let values: Vec<f64> = recommended.iter().filter_map(|r| r.value).collect();
    AlgoReport {
        name,
        kind,
        simple_regret: curve(&raw.simple, k, band),
        cumulative_regret: curve(&raw.cumulative, k, band),
        final_simple_regret: summarize(&finals, band),
        final_cumulative_regret: summarize(&finals_c, band),
        compute: Compute { unit, units, seconds: secs },
        recommended,
        final_value: summarize(&values, band),
        distinct_arms: curve(&raw.distinct, k, band),
        failures: raw.failures.iter().sum(),
        charts,
        per_repeat: None,
    }
}

/// Combines the reports of runs of one config over disjoint `repeat_range`s that together cover all repeats
/// (in any order) into the report of the full run: the same bits as running all repeats at once, apart from
/// timings (`seconds`: the longest part). Charts come from the part holding repeat 0, as in a full run.
pub fn merge_reports(parts: &[BanditReport]) -> Result<BanditReport> {
    let bad = |m: String| Err(Error::config(format!("merging bandit reports: {m}")));
    let Some(first) = parts.first() else { return bad("no reports given".into()) };
    let mut full = first.config.clone();
    full.repeat_range = None;
    let mut order: Vec<(usize, usize, &BanditReport)> = Vec::with_capacity(parts.len());
    for p in parts {
        let mut c = p.config.clone();
        let Some((lo, hi)) = c.repeat_range.take() else {
            return bad("every part must be a run with a repeat_range".into());
        };
        if c != full || p.rounds != first.rounds || p.algorithms.len() != first.algorithms.len() {
            return bad("the parts are runs of different configs".into());
        }
        if p.algorithms.iter().any(|a| a.per_repeat.as_ref().is_none_or(|r| r.first != lo || r.simple.len() != hi - lo))
        {
            return bad("a part lacks its per-repeat values".into());
        }
        order.push((lo, hi, p));
    }
    order.sort_by_key(|o| o.0);
    let mut next = 0;
    for (lo, hi, _) in &order {
        if *lo != next {
            return bad(format!("repeats {next}..{lo} are missing or overlap"));
        }
        next = *hi;
    }
    if next != full.repeats {
        return bad(format!("the parts cover repeats 0..{next} of {}", full.repeats));
    }
    let k = first.rounds.len();
    let mut algorithms = Vec::with_capacity(first.algorithms.len());
    for (a, head) in first.algorithms.iter().enumerate() {
        let mut raw = PerRepeat {
            first: 0,
            simple: vec![],
            cumulative: vec![],
            distinct: vec![],
            units: vec![],
            seconds: vec![],
            failures: vec![],
        };
        let mut recommended = Vec::with_capacity(full.repeats);
        let mut charts = Charts::default();
        for (lo, _, p) in &order {
            let x = &p.algorithms[a];
            if x.name != head.name {
                return bad("the parts list different algorithms".into());
            }
            let r = x.per_repeat.as_ref().expect("checked above");
            raw.simple.extend(r.simple.iter().cloned());
            raw.cumulative.extend(r.cumulative.iter().cloned());
            raw.distinct.extend(r.distinct.iter().cloned());
            raw.units.extend(r.units.iter().cloned());
            raw.seconds.extend(r.seconds.iter().cloned());
            raw.failures.extend(r.failures.iter().copied());
            recommended.extend(x.recommended.iter().cloned());
            if *lo == 0 {
                charts = x.charts.clone();
            }
        }
        if raw
            .simple
            .iter()
            .chain(&raw.cumulative)
            .chain(&raw.distinct)
            .chain(&raw.units)
            .chain(&raw.seconds)
            .any(|v| v.len() != k)
        {
            return bad("a part has the wrong number of checkpoints".into());
        }
        algorithms.push(assemble(
            head.name.clone(),
            head.kind.clone(),
            head.compute.unit.clone(),
            &raw,
            recommended,
            charts,
            k,
            full.band,
        ));
    }
    let seconds = parts.iter().map(|p| p.seconds).fold(0.0, f64::max);
    Ok(BanditReport { problem: first.problem.clone(), config: full, rounds: first.rounds.clone(), algorithms, seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_are_even_and_end_at_rounds() {
        assert_eq!(checkpoint_rounds(10, 100), (1..=10).collect::<Vec<_>>());
        assert_eq!(checkpoint_rounds(1000, 4), vec![250, 500, 750, 1000]);
        assert_eq!(checkpoint_rounds(10, 3), vec![4, 7, 10]);
    }
}
