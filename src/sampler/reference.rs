//! Exact reference sampler: preconditioned MALA with step-size adaptation, for ground truth (posterior
//! means and standard deviations of long runs) on small problems.

use crate::error::{Error, Result};
use crate::math::{exp, ln, powf};
use crate::model::Target;
use crate::rng::Rng;
use rand::RngExt;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// Options of [`reference_sample_observed`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RefOptions {
    /// Target mean acceptance probability of the dual averaging (default 0.574, optimal for MALA,
    /// Roberts & Rosenthal 1998).
    pub target_accept: f64,
    /// Adapt a diagonal preconditioner from warm-up draws (default true).
    pub adapt_precond: bool,
}

impl Default for RefOptions {
    fn default() -> Self {
        Self { target_accept: 0.574, adapt_precond: true }
    }
}

/// Result of the reference sampler.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RefResult {
    /// Kept draws after warm-up, `n_samples x d` row-major.
    pub samples: Vec<f64>,
    /// Fraction of accepted proposals after warm-up.
    pub accept_rate: f64,
    /// Final step size h (proposal `y = x + h M grad log p(x) + sqrt(2h) M^{1/2} xi`).
    pub step: f64,
    /// Final diagonal preconditioner M (variances; all ones without adaptation).
    pub precond: Vec<f64>,
    /// Data points touched by gradients (N per gradient; densities cost as much again).
    pub grad_evals: u64,
}

/// [`reference_sample_observed`] with default options, keeping the draws in `samples`.
pub fn reference_sample(
    target: &dyn Target,
    start: &[f64],
    n_samples: usize,
    warmup: usize,
    thin: usize,
    rng: &mut Rng,
) -> Result<RefResult> {
    reference_sample_stoppable(target, start, n_samples, warmup, thin, &AtomicBool::new(false), rng)
}

/// [`reference_sample`] that stops with `Error::Cancelled` soon after `stop` is set (it is read every 256
/// iterations): long reference runs inside an experiment honour the experiment's stop flag.
pub fn reference_sample_stoppable(
    target: &dyn Target,
    start: &[f64],
    n_samples: usize,
    warmup: usize,
    thin: usize,
    stop: &AtomicBool,
    rng: &mut Rng,
) -> Result<RefResult> {
    let mut samples = Vec::with_capacity(n_samples.saturating_mul(target.dim()).min(1 << 27));
    let opts = RefOptions::default();
    let mut res = reference_sample_observed(
        target,
        start,
        n_samples,
        warmup,
        thin,
        &opts,
        stop,
        rng,
        &mut |x| samples.extend_from_slice(x),
        &mut |_, _| {},
    )?;
    res.samples = samples;
    Ok(res)
}

/// Dual-averaging state (Hoffman & Gelman 2014, Algorithm 5, with gamma = 0.05, t0 = 10, kappa = 0.75).
struct DualAveraging {
    mu: f64,
    hbar: f64,
    log_step_bar: f64,
    m: f64,
    delta: f64,
}

impl DualAveraging {
    fn new(step: f64, delta: f64) -> Self {
        Self { mu: ln(10.0 * step), hbar: 0.0, log_step_bar: 0.0, m: 0.0, delta }
    }
    /// Updates with the acceptance probability of the last iteration; returns the next step size.
    fn update(&mut self, accept_prob: f64) -> f64 {
        const GAMMA: f64 = 0.05;
        const T0: f64 = 10.0;
        const KAPPA: f64 = 0.75;
        self.m += 1.0;
        let w = 1.0 / (self.m + T0);
        self.hbar = (1.0 - w) * self.hbar + w * (self.delta - accept_prob);
        let log_step = self.mu - self.m.sqrt() / GAMMA * self.hbar;
        let eta = powf(self.m, -KAPPA);
        self.log_step_bar = eta * log_step + (1.0 - eta) * self.log_step_bar;
        exp(log_step)
    }
    fn final_step(&self) -> f64 {
        exp(self.log_step_bar)
    }
}

/// The state and work buffers of a MALA chain.
struct Mala<'a> {
    target: &'a dyn Target,
    x: Vec<f64>,
    lp: f64,
    g: Vec<f64>,
    y: Vec<f64>,
    gy: Vec<f64>,
    /// Diagonal preconditioner M and its square root.
    m: Vec<f64>,
    msqrt: Vec<f64>,
    grad_evals: u64,
}

impl Mala<'_> {
    /// `log q(to | from)` up to a constant: `-|to - from - h M g_from|^2_{M^{-1}} / (4h)`.
    fn log_q(&self, to: &[f64], from: &[f64], g_from: &[f64], h: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..to.len() {
            let r = to[i] - from[i] - h * self.m[i] * g_from[i];
            s += r * r / self.m[i];
        }
        -s / (4.0 * h)
    }

    /// One MALA transition (Roberts & Tweedie 1996; Metropolis-Hastings correction of the Langevin
    /// proposal `y = x + h M grad log p(x) + sqrt(2h) M^{1/2} xi`). Returns the acceptance probability
    /// and whether the proposal was accepted.
    fn step(&mut self, h: f64, rng: &mut Rng) -> (f64, bool) {
        let s = (2.0 * h).sqrt();
        for i in 0..self.x.len() {
            self.y[i] =
                self.x[i] + h * self.m[i] * self.g[i] + s * self.msqrt[i] * rng.sample::<f64, _>(StandardNormal);
        }
        let u: f64 = rng.random();
        let lpy = self.target.log_density(&self.y);
        if !lpy.is_finite() || self.y.iter().any(|v| !v.is_finite()) {
            return (0.0, false);
        }
        self.target.grad_log_density(&self.y, &mut self.gy);
        self.grad_evals += self.target.n_data() as u64;
        if self.gy.iter().any(|v| !v.is_finite()) {
            return (0.0, false);
        }
        let log_ratio =
            lpy - self.lp + self.log_q(&self.x, &self.y, &self.gy, h) - self.log_q(&self.y, &self.x, &self.g, h);
        let a = if log_ratio.is_nan() { 0.0 } else { exp(log_ratio.min(0.0)) };
        if u < a {
            std::mem::swap(&mut self.x, &mut self.y);
            std::mem::swap(&mut self.g, &mut self.gy);
            self.lp = lpy;
            (a, true)
        } else {
            (a, false)
        }
    }

    /// A starting step size: halve or double h until the acceptance probability of one proposal crosses
    /// 1/2 (the heuristic of Hoffman & Gelman 2014, Algorithm 4, for MALA). The state is restored.
    fn initial_step(&mut self, mut h: f64, rng: &mut Rng) -> f64 {
        let (x0, g0, lp0) = (self.x.clone(), self.g.clone(), self.lp);
        let restore = |me: &mut Self| {
            me.x.copy_from_slice(&x0);
            me.g.copy_from_slice(&g0);
            me.lp = lp0;
        };
        let (a, _) = self.step(h, rng);
        restore(self);
        let up = a > 0.5;
        for _ in 0..200 {
            let next = if up { h * 2.0 } else { h * 0.5 };
            let (a, _) = self.step(next, rng);
            restore(self);
            if (up && a < 0.5) || (!up && a > 0.5) {
                return if up { h } else { next };
            }
            h = next;
        }
        h
    }
}

/// Draws `n_samples` (kept every `thin` iterations) from `target` with preconditioned MALA after
/// `warmup` adaptation iterations, which are discarded.
///
/// Warm-up (a simplified version of Stan's schedule): the first 15% adapts only the step size by dual
/// averaging (Hoffman & Gelman 2014, Alg. 5) towards `target_accept`; the middle 75% runs doubling windows
/// (25, 50, 100, ..., the last stretched to the end of the phase) after each of which the diagonal preconditioner is set to the regularised sample variances
/// `(n var + 5e-3 avg_var) / (n + 5)` of that window and the step search restarts; the last 10% adapts the step
/// only. Warm-ups shorter than 40 iterations adapt the step only. After warm-up the step is fixed to
/// the dual-averaging average, so the kept chain is an exact (reversible) MALA chain.
///
/// Each kept draw is handed to `sink` instead of being stored (the returned `samples` is empty; see
/// [`reference_sample`] for a stored run): a long reference run of a large model (the pmf preset: 20,000 draws of d = 52,500
/// would be 8.4 GB) in O(d) memory. The same chain, draw for draw.
///
/// Its progress: `progress(done, total)` in MALA iterations
/// (`total = warmup + n_samples * thin`), at most about a hundred times (every 1% of the run, at least every
/// 256 iterations, where the stop flag is read) and once at the end (`&mut |_, _| {}` to ignore it). Progress does
/// not touch the chain: the same draws as without it.
#[allow(clippy::too_many_arguments)]
pub fn reference_sample_observed(
    target: &dyn Target,
    start: &[f64],
    n_samples: usize,
    warmup: usize,
    thin: usize,
    opts: &RefOptions,
    stop: &AtomicBool,
    rng: &mut Rng,
    sink: &mut dyn FnMut(&[f64]),
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RefResult> {
    let stopped = |it: u64| it.is_multiple_of(256) && stop.load(Ordering::Relaxed);
    let all = warmup as u64 + n_samples as u64 * thin as u64;
    // Progress every `every` iterations (a multiple of 256), counted over warm-up and sampling together.
    let every = (all / 100).div_ceil(256).max(1) * 256;
    let d = target.dim();
    if start.len() != d {
        return Err(Error::config(format!("reference start has length {}, the target has dimension {d}", start.len())));
    }
    if start.iter().any(|v| !v.is_finite()) {
        return Err(Error::config("reference start has non-finite entries"));
    }
    if thin == 0 {
        return Err(Error::config("thin must be at least 1"));
    }
    if !(opts.target_accept > 0.0 && opts.target_accept < 1.0) {
        return Err(Error::config(format!("target acceptance must be in (0, 1), got {}", opts.target_accept)));
    }
    let lp = target.log_density(start);
    let mut g = vec![0.0; d];
    target.grad_log_density(start, &mut g);
    if !lp.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return Err(Error::numerical("log density or its gradient is not finite at the reference start point"));
    }
    let mut mala = Mala {
        target,
        x: start.to_vec(),
        lp,
        g,
        y: vec![0.0; d],
        gy: vec![0.0; d],
        m: vec![1.0; d],
        msqrt: vec![1.0; d],
        grad_evals: target.n_data() as u64,
    };
    progress(0, all);
    let mut h = mala.initial_step(1.0, rng);
    let mut da = DualAveraging::new(h, opts.target_accept);
    // Warm-up schedule: an initial buffer, doubling variance windows, a terminal buffer.
    let adapt_m = opts.adapt_precond && warmup >= 40;
    let mut window_ends: Vec<usize> = Vec::new();
    let (w1, w2b) = if adapt_m {
        let init = warmup * 15 / 100;
        let term = warmup / 10;
        let end = warmup - term;
        let mut start = init;
        let mut len = 25.min((end - init).max(1));
        while start < end {
            // Stretch the last window to the end of the slow phase (Stan's rule).
            let stop = if start + len + 2 * len > end { end } else { start + len };
            window_ends.push(stop);
            start = stop;
            len *= 2;
        }
        (init, end)
    } else {
        (warmup, warmup)
    };
    let mut win_sum = vec![0.0; d];
    let mut win_sq = vec![0.0; d];
    let mut win_n = 0usize;
    for it in 0..warmup {
        if stopped(it as u64) {
            return Err(Error::Cancelled);
        }
        if it > 0 && (it as u64).is_multiple_of(every) {
            progress(it as u64, all);
        }
        let (a, _) = mala.step(h, rng);
        h = da.update(a);
        if it >= w1 && it < w2b {
            if win_n == 0 {
                win_sum.iter_mut().for_each(|v| *v = 0.0);
                win_sq.iter_mut().for_each(|v| *v = 0.0);
            }
            win_n += 1;
            for i in 0..d {
                win_sum[i] += mala.x[i];
                win_sq[i] += mala.x[i] * mala.x[i];
            }
            if window_ends.contains(&(it + 1)) {
                let n = win_n as f64;
                let vars: Vec<f64> = (0..d)
                    .map(|i| {
                        let mean = win_sum[i] / n;
                        ((win_sq[i] / n - mean * mean) * n / (n - 1.0).max(1.0)).max(0.0)
                    })
                    .collect();
                // Stan-like regularisation (n var + 5 eps) / (n + 5), with eps = 1e-3 times the average
                // variance (scale-free, unlike Stan's absolute 1e-3, for posteriors with tiny spread).
                let avg = vars.iter().sum::<f64>() / d as f64;
                for (i, var) in vars.iter().enumerate() {
                    let reg = (n * var + 5.0 * 1e-3 * avg) / (n + 5.0);
                    if reg.is_finite() && reg > 0.0 {
                        mala.m[i] = reg;
                        mala.msqrt[i] = reg.sqrt();
                    }
                }
                win_n = 0;
                h = mala.initial_step(h, rng);
                da = DualAveraging::new(h, opts.target_accept);
            }
        }
    }
    if warmup > 0 {
        h = da.final_step();
        if !(h.is_finite() && h > 0.0) {
            return Err(Error::numerical("MALA step-size adaptation failed (non-finite step)"));
        }
    }
    let mut accepted = 0u64;
    let total = n_samples as u64 * thin as u64;
    for it in 1..=total {
        if stopped(it) {
            return Err(Error::Cancelled);
        }
        if (warmup as u64 + it - 1).is_multiple_of(every) && warmup as u64 + it > 1 {
            progress(warmup as u64 + it - 1, all);
        }
        let (_, acc) = mala.step(h, rng);
        accepted += acc as u64;
        if it % thin as u64 == 0 {
            sink(&mala.x);
        }
    }
    progress(all, all);
    Ok(RefResult {
        samples: Vec::new(),
        accept_rate: if total > 0 { accepted as f64 / total as f64 } else { f64::NAN },
        step: h,
        precond: mala.m,
        grad_evals: mala.grad_evals,
    })
}
