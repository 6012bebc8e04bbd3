//! The six experiment kinds, each an [`Experiment`]: checked once, run with inputs, an observer and a stop flag.

use super::{DataFormat, DataRequest, Detail, Experiment, Inputs, Kind, Output};
use crate::bandit::sgmcmc_step::{StepEvent, StepTuneConfig, StepTuneReport};
use crate::bandit::{AlgoSpec, BanditConfig, BanditEvent, BanditReport, ProblemSpec};
use crate::hoag::{HoagConfig, HoagData, HoagEvent, HoagReport};
use crate::lrsched::{LrConfig, LrData, LrEvent, LrReport};
use crate::tune::compare::{self, Comparison};
use crate::tvo::{TvoConfig, TvoEvent, TvoReport};
use crate::tune::{self, DataSource, DataSpec, Event as TuneEvent, Problem, Report as TuneReport, TuneConfig, TunerSpec};
use crate::Result;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;

/// The request of a tune config's `csv` or `upload` source; `ratings`: a PMF model's ratings file
/// (user,item,rating).
fn tune_data_request(d: &DataSpec, ratings: bool) -> Option<DataRequest> {
    let format = if ratings { DataFormat::Ratings } else { DataFormat::Csv };
    match &d.source {
        DataSource::Csv { path } => Some(DataRequest { path: Some(path.clone()), label: d.label.clone(), format }),
        DataSource::Upload { .. } => Some(DataRequest { path: None, label: d.label.clone(), format }),
        _ => None,
    }
}

/// The request of a HOAG / learning-rate config's `csv` (with a path) or `upload` source; label `y` by default.
fn labelled(path: Option<&String>, label: &Option<String>) -> DataRequest {
    DataRequest { path: path.cloned(), label: label.clone().unwrap_or_else(|| "y".into()), format: DataFormat::Csv }
}

/// Builds a tune problem from the inputs (the boundary parsed the user's file) or the config's built-in data.
fn tune_problem(cfg: &TuneConfig, inputs: Inputs) -> Result<Problem> {
    match inputs.data {
        Some(ds) => {
            // The size of a file is known only now: the memory estimate again, with its shape.
            cfg.memory_estimate(Some((ds.n, ds.p))).check()?;
            Problem::from_data(cfg, Some(ds))
        }
        None => Problem::build(cfg, None),
    }
}

/// Total arm-chunks of a tune run and a counter over its progress events.
#[derive(Default)]
struct ChunkCounter {
    done: f64,
    total: f64,
}

impl ChunkCounter {
    fn see(&mut self, e: &TuneEvent) {
        match e {
            TuneEvent::Started { schedule, .. } => {
                self.total = schedule.iter().map(|p| (p.arms * tune::driver::CHUNKS) as f64).sum();
                self.done = 0.0;
            }
            TuneEvent::Progress { arms, .. } => self.done += arms.len() as f64,
            TuneEvent::Done { .. } => self.done = self.total,
            _ => {}
        }
    }
}

/// What the core computes from a tune config before a run: the arms (grids), their count and the rounds.
fn tune_summary(cfg: &TuneConfig) -> serde_json::Value {
    let (_, r) = cfg.budget.unit_amount().unwrap_or((tune::BudgetUnit::GradEvals, 0.0));
    let m = tune::arms::arm_count(&cfg.tuner, &cfg.arms, cfg.sampler.kind).unwrap_or(0);
    let plan = match cfg.tuner {
        TunerSpec::Mamba { eta, .. } => tune::mamba_schedule(m, eta, r),
        _ => vec![tune::RoundPlan { arms: m, budget: r, keep: m }],
    };
    // The grid itself (step-major, then batch, then leapfrog), for MAMBA and grid search.
    let arms = match cfg.tuner {
        TunerSpec::Mamba { .. } | TunerSpec::Grid => tune::grid_arms(&cfg.arms, cfg.sampler.kind).unwrap_or_default(),
        _ => Vec::new(),
    };
    serde_json::json!({ "arm_count": m, "rounds": plan, "arms": arms })
}

// ------------------------------------------------------------------------------------------------ tune

/// MAMBA or a baseline tuning an SG-MCMC sampler.
pub struct TuneExperiment {
    cfg: TuneConfig,
}

impl Experiment for TuneExperiment {
    type Config = TuneConfig;
    type Detail = TuneEvent;
    type Output = TuneReport;
    const KIND: Kind = Kind::Tune;

    fn check(cfg: TuneConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &TuneConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        tune_summary(&self.cfg)
    }
    fn data_request(&self) -> Option<DataRequest> {
        tune_data_request(&self.cfg.data, self.cfg.model.kind() == "pmf")
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, TuneEvent), stop: &AtomicBool) -> Result<TuneReport> {
        let problem = tune_problem(&self.cfg, inputs)?;
        let mut count = ChunkCounter::default();
        tune::driver::drive(&self.cfg, &problem, &mut |e| {
            count.see(e);
            progress(count.done, count.total, e.clone())
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ compare

fn default_reference_samples() -> usize {
    20_000
}

/// The paper's comparison of tuners (MAMBA-KSD, MAMBA-FSSD, grid by log-loss, grid by KSD, the heuristic) on
/// the problem of a base tune config, evaluated against a long run of an exact sampler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareConfig {
    #[serde(flatten)]
    pub base: TuneConfig,
    /// Samples of the exact reference sampler (MALA) for the posterior-std error; 0 skips it.
    #[serde(default = "default_reference_samples")]
    pub reference_samples: usize,
    /// Run only these tuners of the comparison (by name, e.g. `["MAMBA-KSD", "grid (log-loss)",
    /// "heuristic"]`, the paper's Table 3); empty runs all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tuners: Vec<String>,
}

impl CompareConfig {
    pub fn from_base(base: TuneConfig) -> Self {
        Self { base, reference_samples: default_reference_samples(), tuners: Vec::new() }
    }

    /// What this comparison's exact reference depends on (a saved reference must carry the same key).
    pub fn reference_key(&self) -> compare::ReferenceKey {
        compare::ReferenceKey { data: self.base.data.clone(), model: self.base.model.clone(), seed: self.base.seed, samples: self.reference_samples }
    }

    /// The comparison preset `name`: its tune preset as the base; `mnist-bnn` is the paper's Table 3 (MAMBA-KSD,
    /// grid by log-loss, the heuristic; no exact reference at d = 79,510).
    pub fn preset(name: &str) -> crate::Result<Self> {
        let mut c = Self::from_base(crate::tune::presets::preset(name)?);
        if name == "pmf" {
            // Table 2: no exact reference at d = 52,500 here (the paper ran NUTS, "10K samples with 1K samples as
            // burn-in", about six hours, sec. 4.2).
            c.reference_samples = 0;
        }
        if name == "mnist-bnn" || name == "mnist-bnn-page" || name == "pmf-page" {
            // The page's pmf comparison runs Table 3's three tuners too (time in a browser).
            c.reference_samples = 0;
            c.tuners = ["MAMBA-KSD", "grid (log-loss)", "heuristic"].map(String::from).to_vec();
        }
        if name == "paper-logreg-page" {
            // Table 1 at browser scale: a shorter exact reference (4,000 MALA draws) for xi.
            c.reference_samples = 4_000;
        }
        Ok(c)
    }
}

/// A progress detail of a comparison: which tuner, and its event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareDetail {
    pub tuner: String,
    /// Index of the tuner in the comparison.
    pub index: usize,
    #[serde(flatten)]
    pub event: TuneEvent,
}

pub struct CompareExperiment {
    cfg: CompareConfig,
    tuners: Vec<(String, TuneConfig)>,
}

impl Experiment for CompareExperiment {
    type Config = CompareConfig;
    type Detail = CompareDetail;
    type Output = Comparison;
    const KIND: Kind = Kind::Compare;

    fn check(cfg: CompareConfig) -> Result<Self> {
        cfg.base.validate()?;
        let mut tuners = compare::paper_tuners(&cfg.base);
        if let Some(unknown) = cfg.tuners.iter().find(|n| !tuners.iter().any(|t| &t.0 == *n)) {
            let names: Vec<&str> = tuners.iter().map(|t| t.0.as_str()).collect();
            return Err(crate::Error::config(format!("compare: unknown tuner \"{unknown}\"; tuners: {}", names.join(", "))));
        }
        if !cfg.tuners.is_empty() {
            tuners.retain(|t| cfg.tuners.contains(&t.0));
        }
        for (name, t) in &tuners {
            t.validate().map_err(|e| crate::Error::config(format!("{name}: {e}")))?;
        }
        Ok(Self { cfg, tuners })
    }
    fn config(&self) -> &CompareConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<&str> = self.tuners.iter().map(|t| t.0.as_str()).collect();
        serde_json::json!({ "tuners": names, "base": tune_summary(&self.cfg.base) })
    }
    fn data_request(&self) -> Option<DataRequest> {
        tune_data_request(&self.cfg.base.data, self.cfg.base.model.kind() == "pmf")
    }
    fn run(&self, mut inputs: Inputs, progress: &mut dyn FnMut(f64, f64, CompareDetail), stop: &AtomicBool) -> Result<Comparison> {
        let saved = inputs.reference.take();
        if let Some(s) = &saved {
            // the key before the problem is built (the MAP takes time), the dimension after
            s.check_key(&self.cfg.reference_key())?;
        }
        let problem = tune_problem(&self.cfg.base, inputs)?;
        let given = match saved {
            Some(s) => Some(s.fits(problem.dim)?.clone()),
            None => None,
        };
        let total = self.tuners.len() as f64;
        let mut index = 0usize;
        let mut count = ChunkCounter::default();
        compare::compare(&self.tuners, &problem, self.cfg.reference_samples, given, &mut |name, e| {
            if matches!(e, TuneEvent::Started { .. }) {
                index = self.tuners.iter().position(|t| t.0 == name).unwrap_or(index);
            }
            count.see(e);
            let frac = if count.total > 0.0 { count.done / count.total } else { 0.0 };
            progress(index as f64 + frac, total, CompareDetail { tuner: name.to_string(), index, event: e.clone() })
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ bandit

pub struct BanditExperiment {
    cfg: BanditConfig,
    /// The algorithms with the floor added (what `validate` returned).
    algos: Vec<AlgoSpec>,
}

impl Experiment for BanditExperiment {
    type Config = BanditConfig;
    type Detail = BanditEvent;
    type Output = BanditReport;
    const KIND: Kind = Kind::Bandit;

    fn check(mut cfg: BanditConfig) -> Result<Self> {
        let algos = cfg.validate()?;
        bandit_memory(&cfg, &algos).check()?;
        cfg.algorithms = algos.clone();
        Ok(Self { cfg, algos })
    }
    fn config(&self) -> &BanditConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<String> = self.algos.iter().map(AlgoSpec::name).collect();
        serde_json::json!({ "algorithms": names, "rounds": self.cfg.rounds, "repeats": self.cfg.repeats })
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.problem {
            ProblemSpec::SgmcmcKsd(spec) => tune_data_request(&spec.data, false),
            _ => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, BanditEvent), stop: &AtomicBool) -> Result<BanditReport> {
        let total = self.cfg.rounds as f64;
        crate::bandit::run_checked(&self.cfg, &self.algos, inputs.data, &mut |e| {
            let done = match e {
                BanditEvent::Progress { round, .. } => *round as f64,
                BanditEvent::Done { .. } => total,
                _ => 0.0,
            };
            progress(done, total, e.clone())
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ HOAG

pub struct HoagExperiment {
    cfg: HoagConfig,
}

impl Experiment for HoagExperiment {
    type Config = HoagConfig;
    type Detail = HoagEvent;
    type Output = HoagReport;
    const KIND: Kind = Kind::Hoag;

    fn check(cfg: HoagConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &HoagConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<String> = self.cfg.methods.iter().map(|m| m.name()).collect();
        serde_json::json!({ "methods": names, "hyperparameters": self.cfg.n_hyper() })
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            HoagData::Csv { path, label } => Some(labelled(Some(path), label)),
            HoagData::Upload { label } => Some(labelled(None, label)),
            HoagData::Svmlight { path } => Some(DataRequest { path: path.clone(), label: String::new(), format: DataFormat::Svmlight }),
            _ => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, HoagEvent), stop: &AtomicBool) -> Result<HoagReport> {
        let total = self.cfg.methods.len() as f64;
        let budget = self.cfg.budget.cost.max(1) as f64;
        if let Some(ds) = inputs.data.as_ref().filter(|_| matches!(self.cfg.problem, crate::hoag::ProblemKind::KernelRidge)) {
            // Kernel ridge holds kernel matrices over the training third (n/3 x n/3; about three of them):
            // refused before building when the file is too large for the memory limit.
            let m = ds.n.div_ceil(3) as f64;
            let mut est = crate::limits::MemoryEstimate::default();
            est.add("data n x p x 8", ds.n as f64 * ds.p as f64 * 8.0);
            est.add("kernel ridge n/3 x n/3 kernel matrices", 3.0 * m * m * 8.0);
            est.check()?;
        }
        let mut done = 0.0;
        let mut observe = |e: &HoagEvent| {
            match e {
                HoagEvent::Progress { method, point, .. } => done = *method as f64 + (point.cost as f64 / budget).min(1.0),
                HoagEvent::MethodDone { method, .. } => done = *method as f64 + 1.0,
                HoagEvent::Done {} => done = total,
                _ => {}
            }
            progress(done, total, e.clone())
        };
        if let HoagData::Svmlight { .. } = self.cfg.data {
            let sparse = inputs.sparse.as_ref().ok_or_else(|| crate::Error::config("data source svmlight: no svmlight file was given"))?;
            return crate::hoag::run_sparse(&self.cfg, sparse, &mut observe, stop);
        }
        crate::hoag::run_checked(&self.cfg, inputs.data.as_ref(), &mut observe, stop)
    }
}

// ------------------------------------------------------------------------------------------------ learning-rate schedules

pub struct LrExperiment {
    cfg: LrConfig,
}

impl Experiment for LrExperiment {
    type Config = LrConfig;
    type Detail = LrEvent;
    type Output = LrReport;
    const KIND: Kind = Kind::LrSchedule;

    fn check(cfg: LrConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &LrConfig {
        &self.cfg
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            LrData::Csv { path, label } => Some(labelled(Some(path), label)),
            LrData::Upload { label } => Some(labelled(None, label)),
            LrData::Digits | LrData::Mnist { .. } => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, LrEvent), stop: &AtomicBool) -> Result<LrReport> {
        let (mut done, mut total) = (0.0, 1.0);
        let intervals = self.cfg.intervals.max(1) as f64;
        let mut finished_methods = 0.0;
        crate::lrsched::run_checked(&self.cfg, inputs.data.as_ref(), &mut |e| {
            match e {
                LrEvent::Started { methods, .. } => total = methods.len().max(1) as f64,
                LrEvent::MethodDone { .. } => {
                    finished_methods += 1.0;
                    done = finished_methods;
                }
                // The dynamic tuner is the last method: its intervals fill its share.
                LrEvent::IntervalDone { interval, .. } => done = finished_methods + (*interval as f64 + 1.0) / intervals,
                LrEvent::Done {} => done = total,
            }
            progress(done.min(total), total, e.clone())
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ step size

pub struct StepExperiment {
    cfg: StepTuneConfig,
}

impl Experiment for StepExperiment {
    type Config = StepTuneConfig;
    type Detail = StepEvent;
    type Output = StepTuneReport;
    const KIND: Kind = Kind::StepSize;

    fn check(cfg: StepTuneConfig) -> Result<Self> {
        cfg.validate()?;
        step_memory(&cfg).check()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &StepTuneConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "windows": self.cfg.windows, "fixed_steps": self.cfg.fixed_log10_steps.len() })
    }
    fn run(&self, _inputs: Inputs, progress: &mut dyn FnMut(f64, f64, StepEvent), stop: &AtomicBool) -> Result<StepTuneReport> {
        // One unit for all fixed-step runs together, then one per GP-UCB window.
        let total = self.cfg.windows as f64 + 1.0;
        crate::bandit::sgmcmc_step::run_checked(&self.cfg, &mut |e| {
            let done = match e {
                StepEvent::FixedDone { .. } => 1.0,
                StepEvent::Window { window, .. } => 1.0 + *window as f64,
                StepEvent::Done { .. } => total,
            };
            progress(done.min(total), total, e.clone())
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ TVO

/// A VAE trained by the TVO while GP-UCB and the paper's baselines choose its schedule (`crate::tvo`).
pub struct TvoExperiment {
    cfg: TvoConfig,
}

impl Experiment for TvoExperiment {
    type Config = TvoConfig;
    type Detail = TvoEvent;
    type Output = TvoReport;
    const KIND: Kind = Kind::Tvo;

    fn check(cfg: TvoConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &TvoConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<&str> = self.cfg.methods.iter().map(|m| m.name()).collect();
        serde_json::json!({ "methods": names, "windows": self.cfg.windows(), "repeats": self.cfg.repeats, "d": self.cfg.d })
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, TvoEvent), stop: &AtomicBool) -> Result<TvoReport> {
        // One unit per window, one for the final IWAE evaluation.
        let total = self.cfg.windows() as f64 + 1.0;
        crate::tvo::run_checked(&self.cfg, inputs.data.as_ref(), &mut |e| {
            let done = match e {
                TvoEvent::Started { .. } => 0.0,
                TvoEvent::Epoch { window, epoch } => {
                    let w = self.cfg.window;
                    *window as f64 + (epoch - window * w) as f64 / w as f64
                }
                TvoEvent::Window { window, .. } => *window as f64 + 1.0,
                TvoEvent::Done { .. } => total,
            };
            progress(done, total, e.clone())
        }, stop)
    }
}

// ------------------------------------------------------------------------------------------------ conversions

macro_rules! into_variant {
    ($($t:ty => $enum:ident :: $v:ident),* $(,)?) => {
        $(impl From<$t> for $enum {
            fn from(x: $t) -> Self {
                $enum::$v(x)
            }
        })*
    };
}

into_variant!(
    TuneEvent => Detail::Tune, CompareDetail => Detail::Compare, BanditEvent => Detail::Bandit,
    HoagEvent => Detail::Hoag, LrEvent => Detail::LrSchedule, StepEvent => Detail::StepSize,
    TuneReport => Output::Tune, Comparison => Output::Compare, BanditReport => Output::Bandit,
    HoagReport => Output::Hoag, LrReport => Output::LrSchedule, StepTuneReport => Output::StepSize,
    TvoEvent => Detail::Tvo, TvoReport => Output::Tvo,
);

// ------------------------------------------------------------------------------------------------ memory estimates

/// Floats of one f64, in bytes.
const F64: f64 = 8.0;

/// What a bandit comparison holds at its peak (README, "Limits"): every repeat of every algorithm runs at once
/// in the worst case of the pool, a GP-UCB repeat holds about three `rounds x rounds` matrices (kernel,
/// Cholesky factor, a copy while refitting), and every algorithm and repeat keeps its pull history (about four
/// numbers a round).
fn bandit_memory(cfg: &BanditConfig, algos: &[AlgoSpec]) -> crate::limits::MemoryEstimate {
    let mut est = crate::limits::MemoryEstimate::default();
    let rounds = cfg.rounds as f64;
    let repeats = cfg.repeats as f64;
    let gp_algos = algos.iter().filter(|a| a.name().starts_with("gp-ucb")).count() as f64;
    if gp_algos > 0.0 {
        let at_once = repeats.min(rayon::current_num_threads() as f64);
        est.add("GP-UCB: three rounds x rounds matrices per running repeat", gp_algos * at_once * 3.0 * rounds * rounds * F64);
    }
    est.add("pull histories: algorithms x repeats x rounds x 4", algos.len() as f64 * repeats * rounds * 4.0 * F64);
    est
}

/// What a step-size tuning run holds (README, "Limits"): the simulated data set, the GP over windows (about
/// three `windows x windows` matrices) and the samples of one window per run kept for its KSD.
fn step_memory(cfg: &StepTuneConfig) -> crate::limits::MemoryEstimate {
    let mut est = crate::limits::MemoryEstimate::default();
    let (n, d) = (cfg.data.n as f64, cfg.data.d as f64);
    est.add("simulated data n x d", n * (d + 1.0) * F64);
    let w = cfg.windows as f64;
    est.add("GP over windows: three windows x windows matrices", 3.0 * w * w * F64);
    let runs = cfg.fixed_log10_steps.len() as f64 + 1.0;
    let kept = (cfg.window_iters as f64 / cfg.thin.max(1) as f64).ceil();
    est.add("one window's samples and scores per run", runs * 2.0 * kept * d * F64);
    est
}
