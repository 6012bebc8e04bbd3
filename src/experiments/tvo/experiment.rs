//! The `tvo` kind as an [`Experiment`]: a VAE trained by the TVO while GP-UCB chooses its schedule.

use super::{TvoConfig, TvoEvent, TvoReport};
use crate::experiments::{Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

/// A VAE trained by the TVO while GP-UCB and the paper's baselines choose its schedule (`crate::experiments::tvo`).
pub struct TvoExperiment {
    cfg: TvoConfig,
}

impl Experiment for TvoExperiment {
    type Config = TvoConfig;
    type Detail = TvoEvent;
    type Output = TvoReport;
    const NAME: &'static str = "tvo";
    const UNIT: &'static str = "windows";
    const PRESETS: &'static [&'static str] = &["digits", "mnist", "mnist-page"];

    fn preset(name: &str) -> Result<TvoConfig> {
        TvoConfig::preset(name)
    }
    fn needs_mnist(cfg: &TvoConfig) -> bool {
        matches!(cfg.data, super::TvoData::Mnist { .. })
    }
    fn use_csv(_cfg: &mut TvoConfig, _path: &str, _label: &str, _standardize: bool) -> Result<()> {
        Err(crate::Error::config("the tvo experiment trains on the built-in digits or MNIST"))
    }
    fn set_seed(cfg: &mut TvoConfig, seed: u64) {
        cfg.seed = seed;
    }

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
        // One unit per window, one for the final IWAE evaluation; under the growing window rule (each run on its
        // own clock, early updates) one unit per epoch instead.
        let fixed = match self.cfg.window {
            super::WindowRule::Fixed(w) => Some(w),
            _ => None,
        };
        let total = match fixed {
            Some(_) => self.cfg.windows() as f64 + 1.0,
            None => self.cfg.epochs as f64 + 1.0,
        };
        crate::experiments::tvo::run_checked(&self.cfg, inputs.data.as_ref(), &mut |e| {
            let done = match (e, fixed) {
                (TvoEvent::Started { .. }, _) => 0.0,
                (TvoEvent::Epoch { window, epoch }, Some(w)) => *window as f64 + (epoch - window * w) as f64 / w as f64,
                (TvoEvent::Window { window, .. }, Some(_)) => *window as f64 + 1.0,
                (TvoEvent::Epoch { epoch, .. } | TvoEvent::Window { epoch, .. }, None) => *epoch as f64,
                (TvoEvent::Done { .. }, _) => total,
            };
            progress(done, total, e.clone())
        }, stop)
    }
}
