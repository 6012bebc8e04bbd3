//! Checking a HOAG configuration once.

use super::{HoagConfig, HoagData, MethodSpec};
use crate::{Error, Result};

impl HoagConfig {
    /// Checks every value once (linfa style); the run itself cannot fail on a validated config.
    pub fn validate(&self) -> Result<()> {
        let [lo, hi] = self.bounds;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::config(format!("bounds must be finite with lo < hi, got [{lo}, {hi}]")));
        }
        if self.methods.is_empty() {
            return Err(Error::config("methods: give at least one method"));
        }
        if !(self.eps0 > 0.0 && self.eps0 <= 1.0) {
            return Err(Error::config(format!("eps0 must be in (0, 1], got {}", self.eps0)));
        }
        if !(self.blackbox_tol > 0.0 && self.blackbox_tol < 1.0) {
            return Err(Error::config(format!("blackbox_tol must be in (0, 1), got {}", self.blackbox_tol)));
        }
        if self.max_inner_iter == 0 {
            return Err(Error::config("max_inner_iter must be at least 1"));
        }
        if self.reference_runs > 100 {
            return Err(Error::config(format!("reference_runs must be at most 100, got {}", self.reference_runs)));
        }
        if self.budget.cost == 0 || self.budget.max_iter == 0 {
            return Err(Error::config("budget: cost and max_iter must be positive"));
        }
        if let Some(s) = self.budget.seconds {
            if !(s > 0.0 && s.is_finite()) {
                return Err(Error::config(format!("budget.seconds must be positive, got {s}")));
            }
        }
        if let Some(init) = &self.init {
            if let Some(s) = self.n_hyper() {
                if init.len() != s {
                    return Err(Error::config(format!(
                        "init has {} values but the {:?} problem has {} hyperparameter(s)",
                        init.len(),
                        self.problem,
                        s
                    )));
                }
            }
            if init.iter().any(|v| !v.is_finite()) {
                return Err(Error::config("init values must be finite"));
            }
        }
        if self.landscape_points == 1 || self.landscape_points > 400 {
            return Err(Error::config("landscape_points must be 0 (off) or between 2 and 400"));
        }
        for m in &self.methods {
            match m {
                MethodSpec::Grid { points } if *points < 2 => {
                    return Err(Error::config("grid search needs at least 2 points per hyperparameter"))
                }
                MethodSpec::Bo { initial, .. } if *initial == 0 => {
                    return Err(Error::config("Bayesian optimisation needs at least 1 initial point"))
                }
                MethodSpec::IterDiff { steps } if *steps == 0 => {
                    return Err(Error::config("iterative differentiation needs at least 1 step"))
                }
                _ => {}
            }
        }
        if let HoagData::Mnist { classes, per_class, pool } = self.data {
            if classes[0] == classes[1] || classes.iter().any(|c| *c > 9) {
                return Err(Error::config("mnist: give two different digits 0..9 as classes"));
            }
            if !(3..=1000).contains(&per_class) {
                return Err(Error::config("mnist: per_class must be between 3 and 1000"));
            }
            if pool == 0 || 28 % pool != 0 {
                return Err(Error::config("mnist: pool must divide 28 (1, 2, 4, 7, 14 or 28)"));
            }
        }
        if matches!(self.data, HoagData::Svmlight { .. }) && self.problem == super::ProblemKind::KernelRidge {
            return Err(Error::config("svmlight data: only the logreg and logreg-per-feature problems"));
        }
        if let HoagData::Simulate { n, d, .. } = self.data {
            if n < 9 || d == 0 {
                return Err(Error::config("simulate: need n >= 9 (three splits) and d >= 1"));
            }
            if n > 20_000 || d > 2000 {
                return Err(Error::config("simulate: n must be <= 20000 and d <= 2000"));
            }
        }
        Ok(())
    }
}
