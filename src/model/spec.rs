//! `ModelSpec`: the serde description of a model (the `model` part of the tune config), and
//! [`build_target`], which validates it against the data and builds the target.

use super::{Activation, Banana, Bnn, Gaussian, LinearRegression, LogisticRegression, Mixture2d, Target};
use crate::data::Dataset;
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

fn ten() -> f64 {
    10.0
}
fn one() -> f64 {
    1.0
}
fn two() -> usize {
    2
}
fn half() -> f64 {
    0.5
}
fn twenty() -> usize {
    20
}
fn m1() -> [f64; 2] {
    [-2.0, 0.0]
}
fn m2() -> [f64; 2] {
    [2.0, 0.0]
}

/// A model, as written in configs: `{"kind": "logistic", "prior_var": 10}`. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ModelSpec {
    /// Bayesian logistic regression (labels 0/1), prior `N(0, prior_var I)`; paper App. B.1.
    Logistic {
        /// Prior variance of every parameter.
        #[serde(default = "ten")]
        prior_var: f64,
        /// Add an intercept as the last parameter (the paper has none).
        #[serde(default)]
        intercept: bool,
    },
    /// Bayesian linear regression with known noise variance: exact Gaussian posterior.
    Linear {
        /// Noise variance of a response.
        #[serde(default = "one")]
        noise_var: f64,
        /// Prior variance of every coefficient.
        #[serde(default = "ten")]
        prior_var: f64,
    },
    /// Data-free Gaussian: `N(mean, cov)` when given (row-major `d x d`), else `N(0, C)` with unit
    /// variances and correlation `rho` between every pair of coordinates.
    Gaussian {
        /// Dimension.
        #[serde(default = "two")]
        d: usize,
        /// Correlation between every pair of coordinates (without `cov`).
        #[serde(default = "half")]
        rho: f64,
        /// Mean (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean: Option<Vec<f64>>,
        /// Covariance, row-major `d x d` (default: unit variances, correlation `rho`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cov: Option<Vec<f64>>,
    },
    /// Data-free 2-D banana (Haario et al. 1999): see [`Banana`].
    Banana {
        /// Curvature b of the banana.
        #[serde(default = "one")]
        b: f64,
        /// Variance of the first coordinate.
        #[serde(default = "one")]
        var: f64,
    },
    /// Data-free 2-D two-mode mixture `w N(mean1, sd1^2 I) + (1-w) N(mean2, sd2^2 I)`.
    Mixture {
        /// Weight w of the first mode.
        #[serde(default = "half")]
        weight: f64,
        /// Mean of the first mode.
        #[serde(default = "m1")]
        mean1: [f64; 2],
        /// Mean of the second mode.
        #[serde(default = "m2")]
        mean2: [f64; 2],
        /// Standard deviation of the first mode.
        #[serde(default = "one")]
        sd1: f64,
        /// Standard deviation of the second mode.
        #[serde(default = "one")]
        sd2: f64,
    },
    /// One-hidden-layer BNN classifier (tanh or softmax hidden units) with softmax output; paper App. B.3. The number of classes
    /// is `max label + 1` unless `classes` is given.
    Bnn {
        /// Hidden units.
        #[serde(default = "twenty")]
        hidden: usize,
        /// Prior variance of every weight.
        #[serde(default = "one")]
        prior_var: f64,
        /// Number of classes (default: max label + 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        classes: Option<usize>,
        /// Hidden activation: `"tanh"` (default) or `"softmax"` (the paper's network, App. B.3.1).
        #[serde(default, skip_serializing_if = "Activation::is_tanh")]
        activation: Activation,
    },
    /// Probabilistic matrix factorisation on a ratings set (`user`, `item` columns, label = rating); paper
    /// section 4.2 / App. B.2. Users, items and the centring mean come from the training data unless given
    /// (the test split uses the training set's).
    Pmf {
        /// Latent factors per user and item.
        #[serde(default = "twenty")]
        latent: usize,
        /// Prior precision of every factor.
        #[serde(default = "six")]
        lambda: f64,
        /// Noise precision of a rating.
        #[serde(default = "two_f")]
        tau: f64,
        /// Number of users (default: from the training data).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        users: Option<usize>,
        /// Number of items (default: from the training data).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        items: Option<usize>,
        /// The mean subtracted from the ratings (default: the training data's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mean: Option<f64>,
        /// `{"kind": "fixed"}` (default: the fixed precisions `lambda`, `tau` and the centring `mean`) or
        /// `{"kind": "hierarchical"}`, the paper's App. B.2.1 model (`lambda`, `tau` and `mean` are then unused).
        #[serde(default, skip_serializing_if = "PmfPrior::is_fixed")]
        prior: PmfPrior,
    },
}

/// The prior of the `pmf` model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PmfPrior {
    /// Fixed precisions (tunelab's simpler prior; the paper's is `Hierarchical`).
    #[default]
    Fixed,
    /// The paper's hierarchical model (App. B.2.1; [`crate::model::pmf`]): means and diagonal precisions of the
    /// user and item factors learnt, `tau = (alpha, mu0, a0, b0)`, default the paper's (3, 0, 4, 5); d = (users +
    /// items + 4) latent parameters, ratings not centred.
    Hierarchical {
        /// Noise precision: a rating is `N(U_i . V_j, 1 / alpha)`.
        #[serde(default = "three")]
        alpha: f64,
        /// Prior mean of the factor means: `mu_k ~ N(mu0, 1 / lambda_k)`.
        #[serde(default)]
        mu0: f64,
        /// Shape of the factor precisions' prior `lambda_k ~ Gamma(a0, b0)`.
        #[serde(default = "four")]
        a0: f64,
        /// Rate of the factor precisions' prior `lambda_k ~ Gamma(a0, b0)`.
        #[serde(default = "five")]
        b0: f64,
    },
}

impl PmfPrior {
    pub fn is_fixed(&self) -> bool {
        matches!(self, PmfPrior::Fixed)
    }
    /// The paper's hierarchical prior, App. B.2.1's values.
    pub fn paper() -> Self {
        PmfPrior::Hierarchical { alpha: 3.0, mu0: 0.0, a0: 4.0, b0: 5.0 }
    }
    /// Parameters per latent factor beyond the user and item factors (mu and log lambda of U and V).
    pub fn extra_per_latent(&self) -> usize {
        if self.is_fixed() {
            0
        } else {
            4
        }
    }
}

fn three() -> f64 {
    3.0
}
fn four() -> f64 {
    4.0
}
fn five() -> f64 {
    5.0
}
fn six() -> f64 {
    6.0
}
fn two_f() -> f64 {
    2.0
}

impl Default for ModelSpec {
    fn default() -> Self {
        ModelSpec::Logistic { prior_var: 10.0, intercept: false }
    }
}

impl ModelSpec {
    /// Whether this model needs a data set.
    pub fn needs_data(&self) -> bool {
        matches!(
            self,
            ModelSpec::Logistic { .. } | ModelSpec::Linear { .. } | ModelSpec::Bnn { .. } | ModelSpec::Pmf { .. }
        )
    }
    /// The `kind` tag as written in configs.
    pub fn kind(&self) -> &'static str {
        match self {
            ModelSpec::Logistic { .. } => "logistic",
            ModelSpec::Linear { .. } => "linear",
            ModelSpec::Gaussian { .. } => "gaussian",
            ModelSpec::Banana { .. } => "banana",
            ModelSpec::Mixture { .. } => "mixture",
            ModelSpec::Bnn { .. } => "bnn",
            ModelSpec::Pmf { .. } => "pmf",
        }
    }
    /// The spec to use for a held-out set evaluated with parameters of `train`: for `bnn` the number of
    /// classes is fixed to the training target's (a test split may miss a class, which would change the
    /// parameter layout); other specs are returned unchanged.
    pub fn for_test_set(&self, train: &dyn Target) -> ModelSpec {
        match self {
            ModelSpec::Bnn { hidden, prior_var, activation, .. } => ModelSpec::Bnn {
                hidden: *hidden,
                prior_var: *prior_var,
                classes: Some(train.n_classes()),
                activation: *activation,
            },
            ModelSpec::Pmf { latent, lambda, tau, prior, .. } => {
                let (users, items, mean) =
                    train.pmf_shape().map_or((None, None, None), |(u, i, m)| (Some(u), Some(i), Some(m)));
                ModelSpec::Pmf { latent: *latent, lambda: *lambda, tau: *tau, users, items, mean, prior: *prior }
            }
            other => other.clone(),
        }
    }
    /// Whether this model is a classifier (test log-loss / accuracy make sense).
    pub fn is_classifier(&self) -> bool {
        matches!(self, ModelSpec::Logistic { .. } | ModelSpec::Bnn { .. })
    }
}

/// Validate a model spec against the data and build the target.
///
/// Data is required for `logistic`, `linear`, `bnn` and must be absent for the data-free targets;
/// labels are checked (0/1 for logistic, integer classes for bnn).
pub fn build_target(spec: &ModelSpec, data: Option<Arc<Dataset>>) -> Result<Arc<dyn Target>> {
    let kind = spec.kind();
    let data = match (spec.needs_data(), data) {
        (true, None) => {
            return Err(Error::config(format!(
                "model \"{kind}\" needs a data set: upload a CSV, pick the digits or simulate data"
            )))
        }
        (false, Some(_)) => {
            return Err(Error::config(format!(
                "model \"{kind}\" is a fixed target and takes no data; set the data source to \"none\""
            )))
        }
        (_, d) => d,
    };
    Ok(match spec {
        ModelSpec::Logistic { prior_var, intercept } => {
            Arc::new(LogisticRegression::new(data.expect("checked above"), *prior_var, *intercept)?)
        }
        ModelSpec::Linear { noise_var, prior_var } => {
            Arc::new(LinearRegression::new(data.expect("checked above"), *noise_var, *prior_var)?)
        }
        ModelSpec::Gaussian { d, rho, mean, cov } => match (mean, cov) {
            (None, None) => Arc::new(Gaussian::correlated(*d, *rho)?),
            (Some(m), Some(c)) => Arc::new(Gaussian::new(m.clone(), c.clone())?),
            (Some(m), None) => Arc::new(Gaussian::with_mean_correlated(m.clone(), *rho)?),
            (None, Some(_)) => return Err(Error::config("gaussian: a covariance \"cov\" needs a \"mean\" too")),
        },
        ModelSpec::Banana { b, var } => Arc::new(Banana::new(*b, *var)?),
        ModelSpec::Mixture { weight, mean1, mean2, sd1, sd2 } => {
            Arc::new(Mixture2d::new(*weight, *mean1, *mean2, *sd1, *sd2)?)
        }
        ModelSpec::Pmf { latent, lambda, tau, users, items, mean, prior } => {
            let data = data.expect("checked above");
            if data.p != 2 {
                return Err(Error::data(format!(
                    "pmf needs a ratings set (columns user, item and the rating); this data has {} feature columns",
                    data.p
                )));
            }
            let (u, i) = crate::data::ratings::shape(&data);
            let m = mean.unwrap_or_else(|| data.y.iter().sum::<f64>() / data.n.max(1) as f64);
            let (users, items) = (users.unwrap_or(u), items.unwrap_or(i));
            match *prior {
                PmfPrior::Fixed => Arc::new(crate::model::Pmf::new(data, users, items, *latent, *lambda, *tau, m)?),
                PmfPrior::Hierarchical { alpha, mu0, a0, b0 } => Arc::new(crate::model::Pmf::hierarchical(
                    data,
                    users,
                    items,
                    *latent,
                    crate::model::PmfHyper { alpha, mu0, a0, b0 },
                )?),
            }
        }
        ModelSpec::Bnn { hidden, prior_var, classes, activation } => {
            let data = data.expect("checked above");
            let k = match classes {
                Some(k) => *k,
                None => {
                    // Check integrality first so the message names the offending row.
                    data.check_class_labels(usize::MAX)?;
                    data.n_classes()
                }
            };
            if k > MAX_CLASSES {
                return Err(Error::data(format!(
                    "bnn: the label column \"{}\" has labels up to {}; a classifier here supports at most {MAX_CLASSES} classes \
                     (is \"{}\" really a class index?)", data.label_name, k - 1, data.label_name)));
            }
            if k < 2 {
                return Err(Error::data(format!(
                    "bnn: the label column \"{}\" has only one class; a classifier needs at least 2",
                    data.label_name
                )));
            }
            Arc::new(Bnn::new(data, *hidden, k, *prior_var)?.with_activation(*activation))
        }
    })
}

/// Largest number of classes a BNN accepts (guards against a regression column used as labels).
use crate::limits::MAX_CLASSES;

/// Samples per parallel block in [`full_scores`]; fixed, so results do not depend on the thread count.
const SCORE_BLOCK: usize = 128;

/// Full-data scores `grad log p(theta_s | data)` for every row of `samples` (row-major, `d = target.dim()`),
/// computed in parallel over fixed blocks of rows with [`Target::grad_log_density_many`] (deterministic).
pub fn full_scores(target: &dyn Target, samples: &[f64]) -> Vec<f64> {
    let d = target.dim();
    let n = samples.len() / d.max(1);
    let mut out = vec![0.0; n * d];
    if n == 0 {
        return out;
    }
    out.par_chunks_mut(SCORE_BLOCK * d)
        .zip(samples[..n * d].par_chunks(SCORE_BLOCK * d))
        .for_each(|(o, s)| target.grad_log_density_many(s, o));
    out
}
