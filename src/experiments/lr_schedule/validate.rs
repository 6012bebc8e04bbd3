//! Checking a learning-rate schedule configuration once.

use super::{LrConfig, LrProblem};
use crate::{Error, Result};

impl LrConfig {
    /// Checks every value once; the run cannot fail on a validated config except for data errors.
    pub fn validate(&self) -> Result<()> {
        let [lo, hi] = self.lr_bounds;
        if !(lo > 0.0 && hi.is_finite() && lo < hi) {
            return Err(Error::config(format!("lr_bounds must satisfy 0 < low < high, got [{lo}, {hi}]")));
        }
        if self.intervals < 2 || self.intervals > 200 {
            return Err(Error::config(format!("intervals must be between 2 and 200, got {}", self.intervals)));
        }
        if self.steps_per_interval == 0 || self.steps_per_interval > 100_000 {
            return Err(Error::config("steps_per_interval must be between 1 and 100000"));
        }
        if self.batch == 0 {
            return Err(Error::config("batch must be at least 1"));
        }
        if self.records_per_interval == 0 || self.records_per_interval > self.steps_per_interval {
            return Err(Error::config("records_per_interval must be between 1 and steps_per_interval"));
        }
        if self.eval_points == 0 {
            return Err(Error::config("eval_points must be at least 1"));
        }
        if !(self.test_fraction > 0.0 && self.test_fraction < 1.0) {
            return Err(Error::config(format!("test_fraction must be in (0, 1), got {}", self.test_fraction)));
        }
        if self.constant == 0 && self.decay_starts == 0 && !self.dynamic.enabled {
            return Err(Error::config("nothing to run: no constant rates, no decays and the dynamic tuner is off"));
        }
        if self.decay_starts > 0 && self.decay_factors.is_empty() {
            return Err(Error::config("decay_factors must not be empty when decay_starts > 0"));
        }
        if self.decay_factors.iter().any(|f| !(*f > 0.0 && *f < 1.0)) {
            return Err(Error::config("decay_factors must be in (0, 1) (total decay over the run)"));
        }
        if let Some(r) = self.baseline_repeats {
            if r == 0 || r > 64 {
                return Err(Error::config(format!("baseline_repeats must be between 1 and 64, got {r}")));
            }
        }
        if self.dynamic.enabled {
            if self.dynamic.model == super::TraceModelKind::Svgp && self.dynamic.link == super::Link::Softplus {
                return Err(Error::config(
                    "dynamic.link softplus exists only for model exact-increments; the sparse variational trace model has linear and exponential",
                ));
            }
            if self.dynamic.inducing < 2
                || self.dynamic.inducing > 200
                || self.dynamic.fit_iters == 0
                || self.dynamic.fit_iters > 5000
            {
                return Err(Error::config("dynamic.inducing must be in 2..=200 and dynamic.fit_iters in 1..=5000"));
            }
            if self.dynamic.runs < 2 || self.dynamic.runs > 64 {
                return Err(Error::config(format!(
                    "dynamic.runs (Q) must be between 2 and 64, got {}",
                    self.dynamic.runs
                )));
            }
            if self.dynamic.candidates < 2 || self.dynamic.band_samples < 2 {
                return Err(Error::config("dynamic.candidates and dynamic.band_samples must be at least 2"));
            }
        }
        if let Some(mt) = &self.multitask {
            mt.validate(self)?;
            if matches!(self.problem, LrProblem::NoisyQuadratic { .. }) {
                return Err(Error::config("multitask needs a classifier problem (logreg or mlp) on the MNIST tasks"));
            }
            if !matches!(self.data, super::LrData::Digits | super::LrData::Mnist { .. }) {
                return Err(Error::config("multitask reads its own MNIST tasks; data must be left at its default"));
            }
        }
        match self.problem {
            LrProblem::Mlp { hidden } if hidden == 0 || hidden > 4096 => {
                Err(Error::config("mlp.hidden must be between 1 and 4096"))
            }
            LrProblem::NoisyQuadratic { dim, noise }
                if dim == 0 || dim > 100_000 || !(noise >= 0.0 && noise.is_finite()) =>
            {
                Err(Error::config("noisy-quadratic needs 1 <= dim <= 100000 and a finite noise >= 0"))
            }
            _ => Ok(()),
        }
    }
}
