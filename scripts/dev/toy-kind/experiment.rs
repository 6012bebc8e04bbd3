//! The toy kind's config, report and `impl Experiment`.

use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::text::row;
use crate::experiments::{Experiment, Inputs};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// `{"kind": "toy", "n": 3, "seed": 1}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ToyConfig {
    pub n: u32,
    #[serde(default)]
    pub seed: u64,
}

/// The sum of 1..=n.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToyReport {
    pub sum: u64,
}

/// A checked toy config.
pub struct ToyExperiment {
    cfg: ToyConfig,
}

impl Experiment for ToyExperiment {
    type Config = ToyConfig;
    type Detail = u32;
    type Output = ToyReport;
    const NAME: &'static str = "toy";
    const UNIT: &'static str = "steps";
    const PRESETS: &'static [&'static str] = &["small"];
    const LABEL: &'static str = "toy counter";

    fn preset(name: &str) -> Result<ToyConfig> {
        match name {
            "small" => Ok(ToyConfig { n: 3, seed: 1 }),
            _ => Err(Error::config(format!("unknown toy preset '{name}'"))),
        }
    }
    fn check(cfg: ToyConfig) -> Result<Self> {
        if cfg.n == 0 {
            return Err(Error::config("toy: n must be at least 1"));
        }
        Ok(Self { cfg })
    }
    fn config(&self) -> &ToyConfig {
        &self.cfg
    }
    fn cost(&self) -> Cost {
        let mut c = Cost::default();
        c.add(Phase::new("counting", self.cfg.n as f64, "steps", 1.0, Basis::Exact));
        c
    }
    fn run(&self, _: Inputs, progress: &mut dyn FnMut(f64, f64, u32), stop: &AtomicBool) -> Result<ToyReport> {
        let mut sum = 0;
        for i in 1..=self.cfg.n {
            if stop.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            sum += u64::from(i);
            progress(i as f64, self.cfg.n as f64, i);
        }
        Ok(ToyReport { sum })
    }
    fn needs_mnist(_: &ToyConfig) -> bool {
        false
    }
    fn shipped(_: &ToyConfig) -> Vec<crate::data::Shipped> {
        Vec::new()
    }
    fn set_seed(cfg: &mut ToyConfig, seed: u64) {
        cfg.seed = seed;
    }
    fn message(step: &u32) -> Option<String> {
        Some(format!("step {step}"))
    }
    fn table(cfg: &ToyConfig, out: &ToyReport) -> String {
        let mut t = String::new();
        row!(t, "1 + ... + {} = {}", cfg.n, out.sum);
        t
    }
}
