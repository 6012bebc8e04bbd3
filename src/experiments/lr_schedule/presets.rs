//! Built-in learning-rate schedule presets.

use super::{LrConfig, LrData, LrProblem};
use crate::{Error, Result};

impl LrConfig {
    /// Presets: `digits` (the one-hidden-layer network on the 8x8 digits with SGD, browser scale),
    /// `digits-logreg` (softmax regression on digits), `noisy-quadratic` (where decay is known to help), `mnist`
    /// (the same network on 2,000 real MNIST digits, 200 per class, pooled 4 x 4 to 7 x 7; native only),
    /// `mnist-multitask` (Sec. 4: Algorithm 2 across binary MNIST tasks, the warm starts of Sec. 4.4 on a new one;
    /// native only).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "digits" => Ok(LrConfig::new(LrProblem::Mlp { hidden: 32 })),
            "mnist" => {
                let mut c = LrConfig::new(LrProblem::Mlp { hidden: 32 });
                c.data = LrData::Mnist { per_class: 200, pool: 4 };
                Ok(c)
            }
            "digits-logreg" => Ok(LrConfig::new(LrProblem::Logreg)),
            // Sec. 4: Algorithm 2 on binary MNIST tasks 0v1, 2v3, 4v5, 6v7, Sec. 4.4's warm starts on 8v9 (new), 200
            // real digits per class pooled to 7 x 7, the same small network (native only).
            "mnist-multitask" => {
                let mut c = LrConfig::new(LrProblem::Mlp { hidden: 32 });
                c.multitask = Some(super::MultitaskSpec::default());
                Ok(c)
            }
            "noisy-quadratic" => {
                let mut c = LrConfig::new(LrProblem::NoisyQuadratic { dim: 20, noise: 1.0 });
                c.lr_bounds = [1e-3, 1.5];
                c.steps_per_interval = 30;
                Ok(c)
            }
            other => Err(Error::config(format!(
                "unknown lr-schedule preset '{other}' (known: digits, digits-logreg, noisy-quadratic, mnist, mnist-multitask)"
            ))),
        }
    }
}
