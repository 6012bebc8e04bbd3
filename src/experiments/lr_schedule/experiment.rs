//! The `lr-schedule` kind as an [`Experiment`]: learning-rate schedules by a GP trace model.

use super::{LrConfig, LrData, LrEvent, LrReport};
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct LrExperiment {
    cfg: LrConfig,
}

impl Experiment for LrExperiment {
    type Config = LrConfig;
    type Detail = LrEvent;
    type Output = LrReport;
    const NAME: &'static str = "lr-schedule";
    const UNIT: &'static str = "methods";
    const PRESETS: &'static [&'static str] = &["digits", "digits-logreg", "noisy-quadratic"];

    fn preset(name: &str) -> Result<LrConfig> {
        LrConfig::preset(name)
    }
    fn needs_mnist(cfg: &LrConfig) -> bool {
        // The multi-task warm start (Picheny et al. Sec. 4) reads binary MNIST tasks whatever `data` says.
        matches!(cfg.data, LrData::Mnist { .. }) || cfg.multitask.is_some()
    }
    fn use_csv(cfg: &mut LrConfig, path: &str, label: &str, _standardize: bool) -> Result<()> {
        cfg.data = LrData::Csv { path: path.into(), label: Some(label.into()) };
        Ok(())
    }
    fn set_seed(cfg: &mut LrConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: LrConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &LrConfig {
        &self.cfg
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            LrData::Csv { path, label } => Some(DataRequest::labelled(Some(path), label)),
            LrData::Upload { label } => Some(DataRequest::labelled(None, label)),
            LrData::Digits | LrData::Mnist { .. } => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, LrEvent), stop: &AtomicBool) -> Result<LrReport> {
        let (mut done, mut total) = (0.0, 1.0);
        let intervals = self.cfg.intervals.max(1) as f64;
        let mut finished_methods = 0.0;
        crate::experiments::lr_schedule::run_checked(&self.cfg, inputs.data.as_ref(), &mut |e| {
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
