//! Checks of a [`TuneConfig`] (values, limits, the memory estimate). They call the arm grids, the schedule
//! ([`run_schedule`], the one place a config's rounds are computed),
//! the keep caps and the driver's sample counts, so they live here and not in `config.rs`, which stays a leaf
//! (types and defaults only) that every other module of the kind may import.

use super::config::*;
use super::plan::run_schedule;
use crate::error::{Error, Result};
use crate::sampler::BatchSize;

impl TuneConfig {
    /// Parses a JSON config, turning serde's messages into configuration errors.
    pub fn from_json(text: &str) -> Result<Self> {
        let cfg: TuneConfig = serde_json::from_str(text).map_err(|e| Error::config(format!("config JSON: {e}")))?;
        Ok(cfg)
    }

    /// Checks every setting that does not need the data.
    pub fn validate(&self) -> Result<()> {
        self.budget.unit_amount()?;
        if self.thin == 0 {
            return Err(Error::config("`thin` must be at least 1"));
        }
        if let MetricKind::Fssd { j } | MetricKind::FssdOpt { j, .. } = self.metric.kind {
            if !(1..=1000).contains(&j) {
                return Err(Error::config(format!(
                    "FSSD needs between 1 and 1,000 test locations (`metric.j`), got {j}"
                )));
            }
        }
        if self.arm_draws > ARM_DRAWS_MAX {
            return Err(Error::config(format!(
                "`arm_draws` must be at most {ARM_DRAWS_MAX} (it is {})",
                self.arm_draws
            )));
        }
        if self.metric.max_samples < 2 {
            return Err(Error::config("`metric.max_samples` must be at least 2"));
        }
        if let Some(ksd) = super::run_kernel::KsdSettings::of(&self.metric.kind) {
            ksd.check()?;
        }
        if let TunerSpec::Random { arms: 0 } = self.tuner {
            return Err(Error::config("random search needs at least one arm"));
        }
        if !(0.0..1.0).contains(&self.data.test_fraction) {
            return Err(Error::config("`data.test_fraction` must be in [0, 1)"));
        }
        if let StartSpec::MapNoise(s) = self.start {
            if !(s.is_finite() && s >= 0.0) {
                return Err(Error::config("`start.map-noise` must be a non-negative number"));
            }
        }
        if matches!(self.metric.kind, MetricKind::LogLoss | MetricKind::Accuracy) {
            if !self.model.needs_data() {
                return Err(Error::config(format!(
                    "log-loss and accuracy score predictions on held-out data, and a `{}` model has no data: \
                     choose a Stein metric (`ksd`, `fssd` or `fssd-opt`)",
                    self.model.kind()
                )));
            }
            if self.data.test_fraction <= 0.0 {
                return Err(Error::config("log-loss and accuracy need a test set: set `data.test_fraction` > 0"));
            }
        }
        if matches!(self.metric.kind, MetricKind::Accuracy) && !self.model.is_classifier() {
            return Err(Error::config(format!(
                "the accuracy metric needs a classifier (`logistic` or `bnn`), not a `{}` model: use `log-loss`",
                self.model.kind()
            )));
        }
        if !matches!(self.tuner, TunerSpec::Heuristic) {
            super::arms::grid_values(&self.arms, self.sampler.kind)?;
        }
        self.check_limits()
    }

    /// The stated limits ([`crate::limits`]): arms, the budget the run plans over every arm and round, and a
    /// memory estimate (data, the kept samples of every arm, the Gaussian target's matrices).
    pub fn check_limits(&self) -> Result<()> {
        use crate::limits;
        let (unit, r) = self.budget.unit_amount()?;
        let m = super::arms::arm_count(&self.tuner, &self.arms, self.sampler.kind)?;
        limits::check_arms(m)?;
        // Budget of every arm of every round (MAMBA: the successive-halving plan).
        let total: f64 = run_schedule(self, m, r).iter().map(|p| p.arms as f64 * p.budget).sum();
        let unit_name = match unit {
            BudgetUnit::GradEvals => "grad-evals",
            BudgetUnit::Iterations => "iterations",
            BudgetUnit::Seconds => "seconds",
        };
        limits::check_total_budget(unit_name, total)?;
        self.memory_estimate(None).check()
    }

    /// `(n, p)` of the built-in data sources (rows before the test split, columns); `None` for files and uploads
    /// (known only once read).
    pub(crate) fn data_shape(&self) -> Option<(usize, usize)> {
        match self.data.source {
            DataSource::Simulate { n, d, .. } => Some((n, d)),
            DataSource::Digits => Some((1797, 64)),
            DataSource::SimulateRatings { ratings, .. } => Some((ratings, 2)),
            DataSource::Mnist { per_class, pool } => {
                let side = 28 / pool.max(1);
                Some((per_class.map_or(10_000, |c| c.saturating_mul(10).min(10_000)), side * side))
            }
            _ => None,
        }
    }

    /// The posterior's dimension for data of shape `(n, p)` (`None` when it depends on a file not read yet).
    pub(crate) fn param_dim(&self, shape: Option<(usize, usize)>) -> Option<f64> {
        use crate::model::ModelSpec;
        let p = shape.map(|s| s.1 as f64);
        let classes = match self.data.source {
            DataSource::Digits | DataSource::Mnist { .. } => 10.0,
            _ => 2.0,
        };
        match &self.model {
            ModelSpec::Logistic { intercept, .. } => p.map(|p| p + f64::from(u8::from(*intercept))),
            ModelSpec::Linear { .. } => p,
            ModelSpec::Gaussian { d, .. } => Some(*d as f64),
            ModelSpec::Banana { .. } | ModelSpec::Mixture { .. } => Some(2.0),
            ModelSpec::Pmf { latent, users, items, prior, .. } => match (&self.data.source, users, items) {
                (_, Some(u), Some(i)) => {
                    Some((*u as f64 + *i as f64 + prior.extra_per_latent() as f64) * *latent as f64)
                }
                (DataSource::SimulateRatings { users, items, .. }, _, _) => {
                    Some((*users as f64 + *items as f64 + prior.extra_per_latent() as f64) * *latent as f64)
                }
                _ => None,
            },
            ModelSpec::Bnn { hidden, classes: k, .. } => {
                let k = k.map(|k| k as f64).unwrap_or(classes);
                p.map(|p| *hidden as f64 * (p + 1.0) + k * (*hidden as f64 + 1.0))
            }
        }
    }

    /// A simple memory estimate of a run (see [`crate::limits`]): the data (`n x p x 8` bytes; `data` gives
    /// `(n, p)` of a file once it is read, unknown before), the samples every arm keeps (planned iterations /
    /// `thin` x d x 8, capped by the driver's streaming bound per arm; with a gradient-evaluation budget the
    /// iterations of an arm are its evaluations over its batch, MAMBA's survivors counted as the smallest
    /// batches; the bound alone for a seconds budget) and a Gaussian target's `d x d` matrices.
    pub fn memory_estimate(&self, data: Option<(usize, usize)>) -> crate::limits::MemoryEstimate {
        use crate::model::ModelSpec;
        let mut est = crate::limits::MemoryEstimate::default();
        let shape = data.or(self.data_shape());
        if let Some((n, p)) = shape {
            est.add("data n x p x 8", n as f64 * p as f64 * 8.0);
        }
        if let ModelSpec::Gaussian { d, .. } = &self.model {
            est.add("Gaussian target d x d matrices", 3.0 * (*d as f64) * (*d as f64) * 8.0);
        }
        let dim = self.param_dim(shape);
        let (Ok((unit, r)), Ok(m)) =
            (self.budget.unit_amount(), super::arms::arm_count(&self.tuner, &self.arms, self.sampler.kind))
        else {
            return est;
        };
        let iterations = match unit {
            BudgetUnit::Iterations => {
                Some(run_schedule(self, m, r).iter().map(|p| p.arms as f64 * p.budget).sum::<f64>())
            }
            BudgetUnit::Seconds => None,
            BudgetUnit::GradEvals => {
                // Iterations of an arm = its gradient evaluations / its batch (in training points).
                let n_train = shape.map(|(n, _)| (n as f64 * (1.0 - self.data.test_fraction)).round().max(1.0));
                let batches: Option<Vec<f64>> = match self.tuner {
                    TunerSpec::Heuristic => n_train.map(|n| vec![(0.1 * n).round().max(1.0)]),
                    _ => self
                        .arms
                        .batch
                        .iter()
                        .map(|b| match (b, n_train) {
                            (BatchSize::Count(c), _) => Some((*c).max(1) as f64),
                            (BatchSize::Fraction(f), Some(n)) => Some((f * n).round().max(1.0)),
                            (BatchSize::Fraction(_), None) => None,
                        })
                        .collect(),
                };
                batches.filter(|b| !b.is_empty()).map(|b| {
                    let smallest = b.iter().cloned().fold(f64::INFINITY, f64::min);
                    // Every batch value has the same share of the arms (grid; random search in expectation).
                    let mean_inverse = b.iter().map(|x| 1.0 / x).sum::<f64>() / b.len() as f64;
                    // Round 0 runs the whole grid; later rounds (MAMBA's) are counted as if the arms with the
                    // smallest batch (the most iterations) survived.
                    run_schedule(self, m, r)
                        .iter()
                        .enumerate()
                        .map(|(i, p)| p.arms as f64 * p.budget * if i == 0 { mean_inverse } else { 1.0 / smallest })
                        .sum::<f64>()
                })
            }
        };
        if let Some(d) = dim {
            // The driver streams samples (samples.rs): an arm holds at most
            // d (2K + 2 max_samples + ceil(S / thin)) + 2d floats, K = keep::chain_cap (max(max_samples, 500)
            // unless d is large), S = keep::sub_iters (4096 unless d is large), whatever the budget; fewer when
            // its chain is shorter than that.
            let du = d as usize;
            let ms = self.metric.max_samples as f64;
            let k = super::samples::chain_cap(
                du,
                super::tuning::chain_scored_samples(self),
                super::tuning::REPORT_SAMPLES,
                m,
            ) as f64;
            let sub = super::samples::sub_iters(du, self.thin) as f64;
            // Plus the drill-down draws (keep::DrawKeep): at most 2 arm_draws rows of (index, theta_1, theta_2).
            let per_arm = d * (2.0 * k + 2.0 * ms + (sub / self.thin.max(1) as f64).ceil())
                + 2.0 * d
                + 6.0 * self.arm_draws as f64;
            let streamed = m as f64 * per_arm * 8.0;
            // A short chain's rows are held up to three times: the round's samples, their score vectors and
            // the report's chain buffer (measured, grid (KSD) on pmf at 2e5 grad evals, 348 MB
            // resident against 106 MB counted once).
            let kept = iterations.map_or(streamed, |it| (3.0 * it / self.thin.max(1) as f64 * d * 8.0).min(streamed));
            est.add("kept samples (at most the streaming bound per arm, x arms)", kept);
            if let MetricKind::FssdOpt { .. } = self.metric.kind {
                // stein::fssd_opt_fit fits a Gaussian to the samples: up to FIT_DENSE_MAX_D its d x d
                // covariance, a regularised copy and the Cholesky factor are held at once (before the low-rank
                // draw above that dimension, the pmf preset, d = 52,500, asked for a 22 GB matrix).
                // The round's pooled samples and scores (copies) the fit runs on.
                let rows = super::metric::fssd_pool_rows(du, m).min(m * self.metric.max_samples.max(2)) as f64;
                est.add("FSSD-opt pooled samples and scores", 2.0 * rows * d * 8.0);
                if du <= crate::stein::fssd::FIT_DENSE_MAX_D {
                    est.add("FSSD-opt location fit (3 d x d matrices)", 3.0 * d * d * 8.0);
                }
            }
        }
        est
    }
}
