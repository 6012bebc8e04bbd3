//! Built-in HOAG presets.

use super::{HoagBudget, HoagConfig, HoagData, ProblemKind};
use crate::{Error, Result};

impl HoagConfig {
    /// Built-in presets reproducing the paper's comparison at browser scale: `logreg` (simulated logistic
    /// regression, n = 600, d = 30, split in thirds) and `kernel-ridge` (simulated smooth regression, n = 450,
    /// d = 5, RBF kernel ridge with two hyperparameters).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "logreg" => {
                let mut c = HoagConfig::new(ProblemKind::Logreg);
                c.data = HoagData::Simulate { n: 600, d: 30, seed: 1 };
                c.budget = HoagBudget { cost: 4000, seconds: None, max_iter: 50 };
                c.landscape_points = 97;
                Ok(c)
            }
            "kernel-ridge" => {
                let mut c = HoagConfig::new(ProblemKind::KernelRidge);
                c.data = HoagData::Simulate { n: 450, d: 5, seed: 1 };
                c.budget = HoagBudget { cost: 6000, seconds: None, max_iter: 100 };
                c.landscape_points = 25;
                Ok(c)
            }
            other => Err(Error::config(format!("unknown HOAG preset '{other}' (known: logreg, kernel-ridge)"))),
        }
    }
}
