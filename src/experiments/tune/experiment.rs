//! The `tune` kind as an [`Experiment`]: MAMBA or a baseline tuning an SG-MCMC sampler.

use super::{DataSource, DataSpec, Event as TuneEvent, Posterior, Report as TuneReport, TuneConfig, TunerSpec};
use crate::experiments::tune as tune;
use crate::experiments::{DataFormat, DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

/// The request of a tune config's `csv` or `upload` source; `ratings`: a PMF model's ratings file
/// (user,item,rating).
pub(crate) fn tune_data_request(d: &DataSpec, ratings: bool) -> Option<DataRequest> {
    let format = if ratings { DataFormat::Ratings } else { DataFormat::Csv };
    match &d.source {
        DataSource::Csv { path } => Some(DataRequest { path: Some(path.clone()), label: d.label.clone(), format }),
        DataSource::Upload { .. } => Some(DataRequest { path: None, label: d.label.clone(), format }),
        _ => None,
    }
}

/// Builds a tune problem from the inputs (the boundary parsed the user's file) or the config's built-in data.
pub(crate) fn tune_problem(cfg: &TuneConfig, inputs: Inputs) -> Result<Posterior> {
    match inputs.data {
        Some(ds) => {
            // The size of a file is known only now: the memory estimate again, with its shape.
            cfg.memory_estimate(Some((ds.n, ds.p))).check()?;
            Posterior::from_data(cfg, Some(ds))
        }
        None => Posterior::build(cfg, None),
    }
}

/// Total arm-chunks of a tune run and a counter over its progress events.
#[derive(Default)]
pub(crate) struct ChunkCounter {
    pub(crate) done: f64,
    pub(crate) total: f64,
}

impl ChunkCounter {
    pub(crate) fn see(&mut self, e: &TuneEvent) {
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
pub(crate) fn tune_summary(cfg: &TuneConfig) -> serde_json::Value {
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


/// MAMBA or a baseline tuning an SG-MCMC sampler.
pub struct TuneExperiment {
    cfg: TuneConfig,
}

impl Experiment for TuneExperiment {
    type Config = TuneConfig;
    type Detail = TuneEvent;
    type Output = TuneReport;
    const NAME: &'static str = "tune";
    const UNIT: &'static str = "arm-chunks";
    const PRESETS: &'static [&'static str] = tune::presets::PRESETS;

    fn preset(name: &str) -> Result<TuneConfig> {
        tune::presets::preset(name)
    }
    fn needs_mnist(cfg: &TuneConfig) -> bool {
        reads_mnist(&cfg.data)
    }
    fn use_csv(cfg: &mut TuneConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        use_csv_data(&mut cfg.data, path, label, standardize);
        Ok(())
    }
    fn set_seed(cfg: &mut TuneConfig, seed: u64) {
        cfg.seed = seed;
    }

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

/// True when a tune data source reads the MNIST digits.
pub(crate) fn reads_mnist(d: &DataSpec) -> bool {
    matches!(d.source, DataSource::Mnist { .. })
}

/// Points a tune data source at a CSV file (`--data FILE --label COL`).
pub(crate) fn use_csv_data(d: &mut DataSpec, path: &str, label: &str, standardize: bool) {
    d.source = DataSource::Csv { path: path.into() };
    d.label = label.into();
    d.standardize |= standardize;
}
