//! The `step-size` kind as an [`Experiment`]: GP-UCB choosing an SG-MCMC step size window by window.

use super::{StepEvent, StepTuneConfig, StepTuneReport};
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::executor::Rounds;
use crate::experiments::{Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct StepExperiment {
    cfg: StepTuneConfig,
}

impl Experiment for StepExperiment {
    type Config = StepTuneConfig;
    type Detail = StepEvent;
    type Output = StepTuneReport;
    const NAME: &'static str = "step-size";
    const UNIT: &'static str = "windows";
    const PRESETS: &'static [&'static str] = &["sgld-step"];
    const LABEL: &'static str = "step size (GP-UCB)";
    const PANEL_FIELDS: &'static [&'static str] = super::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<StepTuneConfig> {
        match name {
            "sgld-step" | "default" => Ok(StepTuneConfig::default()),
            other => Err(crate::Error::config(format!("unknown step-size preset '{other}' (known: sgld-step)"))),
        }
    }
    fn needs_mnist(_cfg: &StepTuneConfig) -> bool {
        false
    }
    fn shipped(_cfg: &StepTuneConfig) -> Vec<crate::data::Shipped> {
        Vec::new()
    }
    fn use_csv(_cfg: &mut StepTuneConfig, _path: &str, _label: &str, _standardize: bool) -> Result<()> {
        Err(crate::Error::config("the step-size experiment runs on simulated data only"))
    }
    fn set_seed(cfg: &mut StepTuneConfig, seed: u64) {
        cfg.seed = seed;
    }

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
    fn cost(&self) -> Cost {
        step_cost(&self.cfg)
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, StepEvent),
        stop: &AtomicBool,
    ) -> Result<StepTuneReport> {
        self.run_rounds(inputs, progress, stop, Rounds::default())
    }
    fn run_rounds(
        &self,
        _inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, StepEvent),
        stop: &AtomicBool,
        rounds: Rounds,
    ) -> Result<StepTuneReport> {
        // Windows of sampling: every fixed-step run's windows (run in parallel, reported together), then
        // GP-UCB's, one by one; `window` is 0-based.
        let fixed = (self.cfg.fixed_log10_steps.len() * self.cfg.windows) as f64;
        let total = fixed + self.cfg.windows as f64;
        crate::experiments::step_size::run_checked(
            &self.cfg,
            &mut |e| {
                let done = match e {
                    StepEvent::FixedDone { .. } => fixed,
                    StepEvent::Window { window, .. } => fixed + *window as f64 + 1.0,
                    StepEvent::Done { .. } => total,
                };
                progress(done.min(total), total, e.clone())
            },
            stop,
            rounds,
        )
    }

    fn message(detail: &StepEvent) -> Option<String> {
        super::text::message(detail)
    }
    fn table(config: &StepTuneConfig, output: &StepTuneReport) -> String {
        super::text::table(config, output)
    }
}

/// Floats of one f64, in bytes.
const F64: f64 = 8.0;

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

/// The cost model of a step-size run: the MAP (typical, as tune's), then every run (the fixed steps and
/// GP-UCB) samples `windows` x `window_iters` iterations (`StepTrace::grad_evals`: exact, a bound when a chain
/// diverges) and scores each window's kept samples (`window_iters / thin`) by a KSD with full-data scores and
/// its sample pairs, and once its tail windows pooled.
pub(crate) fn step_cost(cfg: &StepTuneConfig) -> Cost {
    use crate::model::ModelSpec;
    let (dim, n) = match &cfg.model {
        ModelSpec::Logistic { intercept, .. } => ((cfg.data.d + usize::from(*intercept)) as f64, cfg.data.n),
        ModelSpec::Linear { .. } => (cfg.data.d as f64, cfg.data.n),
        ModelSpec::Gaussian { d, .. } => (*d as f64, 1),
        ModelSpec::Banana { .. } | ModelSpec::Mixture { .. } => (2.0, 1),
        _ => return Cost::unknown("no cost model for this model in the step-size experiment"),
    };
    let per_iter = match cfg.sampler.clone().validate(n.max(1)) {
        Ok(p) => p.grad_evals_per_iter() as f64,
        Err(_) => return Cost::unknown("the sampler does not fit the data"),
    };
    let nf = n as f64;
    let runs = (cfg.fixed_log10_steps.len() + 1) as f64;
    let windows = cfg.windows as f64;
    let samples = (cfg.window_iters as f64 / cfg.thin.max(1) as f64).ceil();
    let tail = (windows * cfg.tail).ceil().clamp(1.0, windows.max(1.0)) * samples;
    let mut cost = Cost::default();
    if n > 1 {
        cost.add(Phase::new(
            "MAP",
            crate::experiments::sgmcmc::plan::MAP_TYPICAL_ITERS * 2.0 * nf,
            "gradient evaluations",
            dim,
            Basis::Typical,
        ));
    }
    cost.add(Phase::new(
        "chains",
        runs * windows * cfg.window_iters as f64 * per_iter,
        "gradient evaluations",
        dim,
        Basis::Exact,
    ));
    cost.add(Phase::new(
        "KSD scores",
        runs * (windows * samples + tail) * nf,
        "gradient evaluations",
        dim,
        Basis::Bound,
    ));
    cost.add(Phase::new(
        "KSD pairs",
        runs * (windows * samples * samples + tail * tail),
        "sample pairs",
        4.0 * dim,
        Basis::Bound,
    ));
    cost
}
