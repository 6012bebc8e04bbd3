//! GP-UCB choosing an SG-MCMC step size online, window by window, in one run (the TVO GP-UCB idea of Nguyen et
//! al. 2020 applied to the step size), against fixed step sizes.
//!
//! One chain runs `windows` windows of `window_iters` iterations. Window 0 is a pilot at the geometric middle of
//! the step range; before every later window GP-UCB (time-varying kernel, time = window index) picks
//! `log10 h` in `log10_step`, the chain continues from where it stopped with that step, and the reward is the
//! improvement of the score over the window (their eq. 7 with the KSD as the score):
//! `r_w = KSD_{w-1} - KSD_w`, `KSD_w` the kernel Stein discrepancy (IMQ; default scale `Median`, U-statistic,
//! signed root; configurable) of window w's samples with full-data scores. The default is not the crate-wide
//! `MedianPrecond`: preconditioning by the window's own spread multiplies the scores by that spread, so a chain
//! stuck far from the posterior (tiny spread, large scores) scored like a healthy one in our runs (30-sample
//! windows on a shifted Gaussian); with `Median` it scores far worse, as it should. A window whose chain diverges gets the
//! reward `-(|KSD_{w-1}| + 1)` and the chain is put back where the window started (fresh stream).
//!
//! The chain is rebuilt at each window boundary (the step is part of the sampler parameters): SGLD continues
//! exactly; SGHMC resamples its momentum every iteration anyway; SGNHT's momentum and thermostat restart.
//! Fixed-step runs use the same start, the same per-window streams and the same scoring. The comparison metric is
//! the KSD of the pooled samples of the last `tail` fraction of windows.

pub mod experiment;
pub mod panel;
pub mod text;
pub use experiment::StepExperiment;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use web_time::Instant;

use crate::bandit::gpucb::{GpUcb, GpUcbOptions};
use crate::bandit::ArmSpace;
use crate::bandit::{Arm, BanditAlgo};
use crate::data::simulate_logistic;
use crate::experiments::executor::{execute, RoundRun, Rounds};
use crate::experiments::gp_chart::{self, ChosenPoint, Gp1dChart};
use crate::experiments::sgmcmc::config::DataSpec;
use crate::experiments::sgmcmc::posterior::Posterior;
use crate::math::powf;
use crate::model::{ModelSpec, Target};
use crate::rng::{stream, substream};
use crate::sampler::{Budget, Chain, ControlVariate, SamplerParams};
use crate::stein::{ksd_target_value, KernelScale, KsdOptions};
use crate::{Error, Result};

pub use crate::sampler::StartKind;

/// Simulated logistic data for models that need data.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SimData {
    /// Rows.
    pub n: usize,
    /// Features.
    pub d: usize,
}

/// Configuration of [`run_step_tuning`] (JSON; every field has a default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct StepTuneConfig {
    /// The model (default logistic regression, prior variance 10).
    pub model: ModelSpec,
    /// Data simulated for models that need data (`simulate_logistic(n, d)`).
    pub data: SimData,
    /// Sampler kind, batch etc. (its `step` is ignored).
    pub sampler: SamplerParams,
    /// Range of log10 of the step size searched by GP-UCB.
    pub log10_step: (f64, f64),
    /// Number of windows.
    pub windows: usize,
    /// Iterations per window.
    pub window_iters: u64,
    /// Keep every `thin`-th sample.
    pub thin: usize,
    /// Fixed log10 step sizes to compare against.
    pub fixed_log10_steps: Vec<f64>,
    /// GP-UCB options (default: time-varying Matern-5/2 kernel, constant kappa 2).
    pub gp: GpUcbOptions,
    /// Fraction of final windows pooled for the comparison KSD.
    pub tail: f64,
    /// Start of the chain.
    pub start: StartKind,
    /// KSD options of the window score (default: `Median` scale, U-statistic).
    pub ksd: KsdOptions,
    /// Master seed.
    pub seed: u64,
}

impl Default for StepTuneConfig {
    fn default() -> Self {
        StepTuneConfig {
            model: ModelSpec::Logistic { prior_var: 10.0, intercept: false },
            data: SimData { n: 1000, d: 5 },
            sampler: SamplerParams::default(),
            log10_step: (-6.0, -2.0),
            windows: 40,
            window_iters: 200,
            thin: 2,
            fixed_log10_steps: vec![-6.0, -5.0, -4.0, -3.0, -2.0],
            // This tuner is not from Nguyen et al.: it keeps the options its README numbers were measured with
            // (Matern-5/2, a constant kappa 2) rather than the bandit GP-UCB's paper defaults (squared
            // exponential, Theorem 1's schedule), which were never measured on it.
            gp: GpUcbOptions {
                kernel: crate::gp::BaseKernel::Matern52,
                kappa: crate::bandit::gpucb::Kappa::Constant { value: 2.0 },
                ..GpUcbOptions::default()
            },
            tail: 0.25,
            start: StartKind::Zero,
            ksd: KsdOptions { scale: KernelScale::Median, ..KsdOptions::default() },
            seed: 1,
        }
    }
}

/// One run's trace (GP-UCB or a fixed step).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTrace {
    pub name: String,
    /// Step size used in each window.
    pub steps: Vec<f64>,
    /// KSD of each window's samples (`None` when the window diverged or kept fewer than 2 samples).
    pub ksd: Vec<Option<f64>>,
    /// Rewards `KSD_{w-1} - KSD_w` (GP-UCB only; window 0 has none).
    pub rewards: Vec<f64>,
    /// KSD of the pooled samples of the last `tail` fraction of windows (`None` if the chain diverged).
    pub tail_ksd: Option<f64>,
    /// Windows whose chain diverged.
    pub diverged_windows: usize,
    /// Data points touched by the sampler.
    pub grad_evals: u64,
}

/// Result of [`run_step_tuning`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTuneReport {
    pub config: StepTuneConfig,
    pub gp_ucb: StepTrace,
    pub fixed: Vec<StepTrace>,
    /// GP posterior of the reward over log10 step at the last window, with the chosen points by window.
    pub gp_posterior: Option<Gp1dChart>,
    pub seconds: f64,
}

/// Events of [`run_step_tuning`] (serde tag `type`, kebab-case), on the calling thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum StepEvent {
    /// The fixed-step runs are done.
    FixedDone {
        traces: Vec<StepTrace>,
    },
    /// One GP-UCB window is done.
    Window {
        window: usize,
        step: f64,
        ksd: Option<f64>,
        reward: Option<f64>,
    },
    Done {
        seconds: f64,
    },
}

impl StepTuneConfig {
    pub(crate) fn validate(&self) -> Result<()> {
        let (a, b) = self.log10_step;
        if !(a.is_finite() && b.is_finite() && a < b && b <= 2.0) {
            return Err(Error::config("step tuning: log10_step must satisfy lo < hi <= 2"));
        }
        if self.windows < 3 || self.windows > 10_000 {
            return Err(Error::config("step tuning: windows must be in 3..=10000"));
        }
        if self.thin == 0 || self.window_iters < 2 * self.thin as u64 {
            return Err(Error::config(
                "step tuning: each window must keep at least 2 samples (window_iters >= 2 thin)",
            ));
        }
        if !(self.tail > 0.0 && self.tail <= 1.0) {
            return Err(Error::config("step tuning: tail must be in (0, 1]"));
        }
        if self.fixed_log10_steps.iter().any(|s| !s.is_finite() || *s > 2.0) {
            return Err(Error::config("step tuning: fixed log10 steps must be finite and <= 2"));
        }
        self.ksd.validate()?;
        self.gp.validate()
    }
}

struct Setup {
    target: Arc<dyn Target>,
    start: Vec<f64>,
    cv: Option<Arc<ControlVariate>>,
}

/// The posterior as every tuner builds it ([`Posterior::from_parts`]: target, MAP from [`map_init`], control
/// variate), on simulated logistic data drawn from stream `(seed, 0xda7a)` when the model needs data.
fn setup(cfg: &StepTuneConfig) -> Result<Setup> {
    let data = if cfg.model.needs_data() {
        Some(simulate_logistic(cfg.data.n, cfg.data.d, &mut stream(cfg.seed, 0xda7a))?.0)
    } else {
        None
    };
    let spec = DataSpec { test_fraction: 0.0, standardize: false, ..DataSpec::default() };
    let post = Posterior::from_parts(&spec, &cfg.model, cfg.seed, data)?;
    let start = match cfg.start {
        StartKind::Zero => vec![0.0; post.dim],
        StartKind::Map => post.map.clone(),
    };
    let cv = cfg.sampler.kind.is_cv().then_some(post.cv);
    Ok(Setup { target: post.train, start, cv })
}

/// Runs one window from `theta` with step `h`; returns (samples, diverged, grad evals).
fn window(
    cfg: &StepTuneConfig,
    s: &Setup,
    theta: &[f64],
    h: f64,
    w: usize,
    cancel: &AtomicBool,
) -> Result<(Vec<f64>, bool, u64)> {
    let mut p = cfg.sampler.clone();
    p.step = h;
    let valid = p.validate(s.target.n_data())?;
    let rng = substream(cfg.seed, 0x57e9, w as u64);
    let mut chain = Chain::new(s.target.as_ref(), valid, theta.to_vec(), s.cv.clone(), rng)?;
    let mut out = Vec::new();
    let st = chain.run(s.target.as_ref(), Budget::Iterations(cfg.window_iters), cfg.thin, &mut out, cancel);
    if st.cancelled {
        return Err(Error::Cancelled);
    }
    Ok((out, st.status.is_diverged(), st.grad_evals))
}

impl StepTrace {
    fn empty(name: impl Into<String>) -> Self {
        StepTrace {
            name: name.into(),
            steps: Vec::new(),
            ksd: Vec::new(),
            rewards: Vec::new(),
            tail_ksd: None,
            diverged_windows: 0,
            grad_evals: 0,
        }
    }
}

fn tail_ksd(target: &dyn Target, windows: &[Vec<f64>], tail: f64, opts: &KsdOptions) -> Option<f64> {
    let k = ((windows.len() as f64 * tail).ceil() as usize).clamp(1, windows.len());
    let pooled: Vec<f64> = windows[windows.len() - k..].iter().flatten().copied().collect();
    ksd_target_value(target, &pooled, opts)
}

fn fixed_run(cfg: &StepTuneConfig, s: &Setup, log10h: f64, cancel: &AtomicBool) -> Result<StepTrace> {
    let h = powf(10f64, log10h);
    let mut theta = s.start.clone();
    let mut trace = StepTrace::empty(format!("fixed h = 1e{log10h}"));
    let mut kept: Vec<Vec<f64>> = Vec::new();
    let mut dead = false;
    for w in 0..cfg.windows {
        trace.steps.push(h);
        if dead {
            trace.ksd.push(None);
            kept.push(Vec::new());
            continue;
        }
        let (out, diverged, ge) = window(cfg, s, &theta, h, w, cancel)?;
        trace.grad_evals += ge;
        if diverged {
            // a fixed step that diverges stays diverged
            dead = true;
            trace.diverged_windows = cfg.windows - w;
            trace.ksd.push(None);
            kept.push(Vec::new());
            continue;
        }
        let d = s.target.dim();
        if out.len() >= d {
            theta.copy_from_slice(&out[out.len() - d..]);
        }
        trace.ksd.push(ksd_target_value(s.target.as_ref(), &out, &cfg.ksd));
        kept.push(out);
    }
    trace.tail_ksd = if dead { None } else { tail_ksd(s.target.as_ref(), &kept, cfg.tail, &cfg.ksd) };
    Ok(trace)
}

/// Runs GP-UCB step-size selection and the fixed-step comparison. Fixed-step runs go in parallel on the rayon
/// pool; GP-UCB windows are sequential (each choice depends on the previous rewards). Deterministic for a seed.
pub fn run_step_tuning(
    cfg: &StepTuneConfig,
    observer: &mut dyn FnMut(&StepEvent),
    cancel: &AtomicBool,
) -> Result<StepTuneReport> {
    cfg.validate()?;
    run_checked(cfg, observer, cancel, Rounds::default())
}

/// [`run_step_tuning`] on a config that was already validated (the experiment contract checks it once), on the
/// round executor: round 0 runs the fixed steps, round `w + 1` GP-UCB's window `w`; from the start or from a
/// saved [`StepState`] (`rounds.resume`), saving the state after every round when `rounds.checkpoint` asks.
pub(crate) fn run_checked(
    cfg: &StepTuneConfig,
    observer: &mut dyn FnMut(&StepEvent),
    cancel: &AtomicBool,
    mut rounds: Rounds,
) -> Result<StepTuneReport> {
    let resume: Option<StepState> = rounds.take_resume()?;
    let run = StepRun::new(cfg, resume)?;
    execute(run, observer, cancel, rounds.checkpoint)
}

/// A window's samples as saved (floats by their bits).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SavedSamples(#[serde(with = "crate::exact::floats")] pub Vec<f64>);

/// A step-size run between two rounds. GP-UCB is not saved as such: a fresh one asked again for every window
/// done and told the rewards of `points` is where the saved one was.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepState {
    /// The fixed-step traces, once round 0 ran.
    pub fixed: Option<Vec<StepTrace>>,
    /// GP-UCB's trace so far (one step per window done).
    pub trace: StepTrace,
    /// Each GP-UCB window's samples (empty for a diverged window): the tail KSD pools the last ones.
    pub kept: Vec<SavedSamples>,
    /// Where the chain stopped.
    #[serde(with = "crate::exact::floats")]
    pub theta: Vec<f64>,
    pub prev_ksd: Option<f64>,
    /// The windows GP-UCB chose and was told a reward for.
    pub points: Vec<ChosenPoint>,
    /// The wall time of the run before this state.
    #[serde(with = "crate::exact::float")]
    pub wall_seconds: f64,
}

/// A step-size run: the posterior, the fixed-step traces, GP-UCB and its chain.
struct StepRun<'a> {
    cfg: &'a StepTuneConfig,
    s: Setup,
    fixed: Option<Vec<StepTrace>>,
    gp: GpUcb,
    rng: crate::rng::Rng,
    theta: Vec<f64>,
    trace: StepTrace,
    kept: Vec<Vec<f64>>,
    prev_ksd: Option<f64>,
    points: Vec<ChosenPoint>,
    wall: Instant,
    wall_before: f64,
}

impl<'a> StepRun<'a> {
    /// Builds the posterior and GP-UCB (the sampler parameters checked once, with a valid step) and puts the
    /// run where `resume` left it.
    fn new(cfg: &'a StepTuneConfig, resume: Option<StepState>) -> Result<Self> {
        let wall = Instant::now();
        let mut p = cfg.sampler.clone();
        p.step = powf(10f64, cfg.log10_step.0);
        let s = setup(cfg)?;
        p.validate(s.target.n_data())?;
        let (lo, hi) = cfg.log10_step;
        let space = ArmSpace::Continuous { lo: vec![lo], hi: vec![hi], ordered: false };
        let gp = GpUcb::new(&space, cfg.gp.clone(), substream(cfg.seed, 0x6b, 0).next_u64_seed())?;
        let mut run = StepRun {
            cfg,
            theta: s.start.clone(),
            s,
            fixed: None,
            gp,
            rng: substream(cfg.seed, 0x6b, 1),
            trace: StepTrace::empty("gp-ucb"),
            kept: Vec::new(),
            prev_ksd: None,
            points: Vec::new(),
            wall,
            wall_before: 0.0,
        };
        if let Some(state) = resume {
            run.restore(state)?;
        }
        Ok(run)
    }

    /// The GP-UCB window's `log10 h` and its arm: window 0 is a pilot at the middle of the range; then GP-UCB
    /// at time `w - 1`.
    fn choose(&mut self, w: usize) -> (Option<Arm>, f64) {
        let (lo, hi) = self.cfg.log10_step;
        if w == 0 {
            return (None, 0.5 * (lo + hi));
        }
        let a = self.gp.ask(w - 1, &mut self.rng);
        let x = match &a {
            Arm::Point(p) => p[0],
            Arm::Index(_) => 0.5 * (lo + hi),
        };
        (Some(a), x)
    }

    fn restore(&mut self, state: StepState) -> Result<()> {
        let bad = |what: &str| Error::config(format!("the checkpoint does not fit this run: {what}"));
        let done = state.trace.steps.len();
        let d = self.s.target.dim();
        if done > self.cfg.windows
            || state.kept.len() != done
            || state.trace.ksd.len() != done
            || state.theta.len() != d
            || (done > 0 && state.fixed.is_none())
            || state.fixed.as_ref().is_some_and(|f| f.len() != self.cfg.fixed_log10_steps.len())
        {
            return Err(bad("the windows, samples and steps disagree"));
        }
        let mut told = state.points.iter().peekable();
        for w in 0..done {
            let (arm, log10h) = self.choose(w);
            if powf(10f64, log10h).to_bits() != state.trace.steps[w].to_bits() {
                return Err(bad("the steps are not the ones GP-UCB chooses"));
            }
            if let (Some(a), Some(p)) = (&arm, told.next_if(|p| p.round == w)) {
                self.gp.tell(a, p.reward);
            }
        }
        if told.next().is_some() {
            return Err(bad("rewards of windows not run"));
        }
        self.fixed = state.fixed;
        self.trace = state.trace;
        self.kept = state.kept.into_iter().map(|k| k.0).collect();
        self.theta = state.theta;
        self.prev_ksd = state.prev_ksd;
        self.points = state.points;
        self.wall_before = state.wall_seconds;
        Ok(())
    }
}

impl RoundRun for StepRun<'_> {
    type Event = StepEvent;
    type State = StepState;
    type Output = StepTuneReport;

    fn rounds_done(&self) -> usize {
        usize::from(self.fixed.is_some()) + self.trace.steps.len()
    }

    fn state(&self) -> StepState {
        StepState {
            fixed: self.fixed.clone(),
            trace: self.trace.clone(),
            kept: self.kept.iter().map(|k| SavedSamples(k.clone())).collect(),
            theta: self.theta.clone(),
            prev_ksd: self.prev_ksd,
            points: self.points.clone(),
            wall_seconds: self.wall_before + self.wall.elapsed().as_secs_f64(),
        }
    }

    fn round(&mut self, observer: &mut dyn FnMut(&StepEvent), cancel: &AtomicBool) -> Result<bool> {
        let cfg = self.cfg;
        if self.fixed.is_none() {
            let s = &self.s;
            let fixed: Vec<StepTrace> =
                cfg.fixed_log10_steps.par_iter().map(|&l| fixed_run(cfg, s, l, cancel)).collect::<Result<Vec<_>>>()?;
            observer(&StepEvent::FixedDone { traces: fixed.clone() });
            self.fixed = Some(fixed);
            return Ok(true);
        }
        let w = self.trace.steps.len();
        if w >= cfg.windows {
            return Ok(false);
        }
        let (arm, log10h) = self.choose(w);
        let h = powf(10f64, log10h);
        let (out, diverged, ge) = window(cfg, &self.s, &self.theta, h, w, cancel)?;
        let target = self.s.target.as_ref();
        let d = target.dim();
        self.trace.grad_evals += ge;
        self.trace.steps.push(h);
        let k = if diverged { None } else { ksd_target_value(target, &out, &cfg.ksd) };
        let reward = match (k, self.prev_ksd) {
            (Some(k), Some(p)) => Some(p - k),
            (None, Some(p)) => Some(-(p.abs() + 1.0)),
            _ => None,
        };
        if diverged {
            self.trace.diverged_windows += 1;
        } else if out.len() >= d {
            self.theta.copy_from_slice(&out[out.len() - d..]);
        }
        if let (Some(a), Some(r)) = (&arm, reward) {
            self.gp.tell(a, r);
            self.trace.rewards.push(r);
            self.points.push(ChosenPoint { round: w, x: log10h, reward: r });
        }
        if k.is_some() {
            self.prev_ksd = k;
        }
        self.trace.ksd.push(k);
        self.kept.push(if diverged { Vec::new() } else { out });
        observer(&StepEvent::Window { window: w, step: h, ksd: k, reward });
        Ok(true)
    }

    fn finish(self, observer: &mut dyn FnMut(&StepEvent)) -> Result<StepTuneReport> {
        let StepRun { cfg, s, fixed, gp, mut trace, kept, points, wall, wall_before, .. } = self;
        let (lo, hi) = cfg.log10_step;
        trace.tail_ksd = tail_ksd(s.target.as_ref(), &kept, cfg.tail, &cfg.ksd);
        let gp_posterior = {
            let grid = gp_chart::grid(lo, hi);
            gp.posterior_grid(&grid, cfg.windows.saturating_sub(2))
                .map(|(m, sd)| Gp1dChart::from_posterior(grid, m, &sd, Vec::new(), points))
        };
        let seconds = wall_before + wall.elapsed().as_secs_f64();
        observer(&StepEvent::Done { seconds });
        Ok(StepTuneReport {
            config: cfg.clone(),
            gp_ucb: trace,
            fixed: fixed.unwrap_or_default(),
            gp_posterior,
            seconds,
        })
    }
}

trait SeedExt {
    fn next_u64_seed(self) -> u64;
}

impl SeedExt for crate::rng::Rng {
    fn next_u64_seed(mut self) -> u64 {
        use rand::RngExt;
        self.random()
    }
}
