//! The `step-size` kind as an [`Experiment`]: GP-UCB choosing an SG-MCMC step size window by window.

use super::{StepEvent, StepTuneConfig, StepTuneReport};
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

    fn preset(name: &str) -> Result<StepTuneConfig> {
        match name {
            "sgld-step" | "default" => Ok(StepTuneConfig::default()),
            other => Err(crate::Error::config(format!("unknown step-size preset '{other}' (known: sgld-step)"))),
        }
    }
    fn needs_mnist(_cfg: &StepTuneConfig) -> bool {
        false
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
    fn run(&self, _inputs: Inputs, progress: &mut dyn FnMut(f64, f64, StepEvent), stop: &AtomicBool) -> Result<StepTuneReport> {
        // One unit for all fixed-step runs together, then one per GP-UCB window.
        let total = self.cfg.windows as f64 + 1.0;
        crate::experiments::step_size::run_checked(&self.cfg, &mut |e| {
            let done = match e {
                StepEvent::FixedDone { .. } => 1.0,
                StepEvent::Window { window, .. } => 1.0 + *window as f64,
                StepEvent::Done { .. } => total,
            };
            progress(done.min(total), total, e.clone())
        }, stop)
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
