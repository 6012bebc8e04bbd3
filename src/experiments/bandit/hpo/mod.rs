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

use crate::bandit::Arm;
use crate::data::{self, Dataset};
use crate::experiments::bandit::problems::{ArmSpace, Problem};
use crate::math::{exp, ln, log10, powf};
use crate::rng::{substream, Rng};
use crate::{Error, Result};

mod learners;
use learners::*;
mod spec;
pub use spec::*;

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
    pub fn build(
        spec: &HpoSpec,
        seed: u64,
        progress: &mut dyn FnMut(usize, usize),
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<Self> {
        spec.validate()?;
        let mut data = match &spec.model {
            HpoModel::KernelRidge { data: ClassData::BreastCancer, .. }
            | HpoModel::Svm { data: ClassData::BreastCancer, .. } => data::breast_cancer()?,
            HpoModel::KernelRidge { data: ClassData::Wine, .. } | HpoModel::Svm { data: ClassData::Wine, .. } => {
                data::wine()?
            }
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
            HpoModel::KernelRidge { log10_c, log10_gamma, .. } | HpoModel::Svm { log10_c, log10_gamma, .. } => {
                vec![u(r, *log10_c), u(r, *log10_gamma)]
            }
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
            HpoModel::KernelRidge { .. } => {
                kernel_ridge_accuracy(&train, &valid, self.n_classes, powf(10f64, cfg[0]), powf(10f64, cfg[1]))
            }
            HpoModel::Svm { .. } => {
                svm_accuracy(&train, &valid, self.n_classes, powf(10f64, cfg[0]), powf(10f64, cfg[1]))
            }
            HpoModel::Mlp { epochs, alpha, solver, .. } => {
                let penalty = if alpha.is_some() { Penalty::Alpha(cfg[2]) } else { Penalty::L2(powf(10f64, cfg[2])) };
                let opts = MlpOpts {
                    lr: powf(10f64, cfg[0]),
                    width: cfg[1] as usize,
                    penalty,
                    batch: cfg[3] as usize,
                    epochs: *epochs,
                    solver: *solver,
                };
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
    fn replay(&mut self, arm: &Arm, _t: usize) -> Result<()> {
        // the arm's configuration is drawn (reports describe it) and its pull counted: its next pull is the next
        // of its fixed sequence
        let Arm::Index(k) = arm else { return Err(Error::config("hpo: arms are indices")) };
        self.config(*k);
        *self.pulls.entry(*k).or_insert(0) += 1;
        Ok(())
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
            HpoModel::Mlp { alpha: Some(_), .. } => {
                format!("lr = {}, width {}, alpha = {}, batch {}", g(c[0]), c[1], sig3(c[2]), c[3])
            }
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
