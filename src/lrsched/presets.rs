//! Built-in learning-rate schedule presets.

use super::{LrConfig, LrProblem};
use crate::{Error, Result};

impl LrConfig {
    /// Presets: `digits` (the one-hidden-layer network on the digits set with SGD, their Figures 3-4 at browser
    /// scale), `digits-logreg` (softmax regression on digits), `noisy-quadratic` (where decay is known to help).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "digits" => Ok(LrConfig::new(LrProblem::Mlp { hidden: 32 })),
            "digits-logreg" => Ok(LrConfig::new(LrProblem::Logreg)),
            "noisy-quadratic" => {
                let mut c = LrConfig::new(LrProblem::NoisyQuadratic { dim: 20, noise: 1.0 });
                c.lr_bounds = [1e-3, 1.5];
                c.steps_per_interval = 30;
                Ok(c)
            }
            other => Err(Error::config(format!(
                "unknown lr-schedule preset '{other}' (known: digits, digits-logreg, noisy-quadratic)"
            ))),
        }
    }
}
