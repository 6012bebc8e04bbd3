//! TVO training epochs (Adam ascent on the TVO bound) and the test metrics (IWAE log p(x), ELBO, KL).

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::vae::{all_finite, iwae_and_elbo, tvo_coefficients, Particles, Scratch, Vae};
use crate::optim::Adam;
use crate::rng::{stream, Rng};
use rand::RngExt;

use super::config::*;

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

/// One TVO training epoch with the schedule `points` on the training images as epoch `epoch` of the run with
/// seed `seed` sees them (stochastic binarisation draws new pixels every epoch); `stop` is read before every
/// minibatch.
pub(crate) fn train_epoch(
    vae: &mut Vae,
    (adam, lr): (&mut Adam, f64),
    (imgs, epoch, seed): (&super::data::Images, u64, u64),
    points: &[f64],
    (s, batch): (usize, usize),
    rng: &mut Rng,
    stop: &AtomicBool,
) -> EpochEnd {
    let n = imgs.n_train();
    let mut buf = Vec::new();
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
            let xi = imgs.epoch_image(i, epoch, seed, &mut buf);
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
