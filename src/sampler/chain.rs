//! A resumable SG-MCMC chain: SGLD, SGHMC, SGNHT and their control-variate versions.
//!
//! Conventions follow Coullon, South & Nemeth (2023) and their SGMCMCJax library: the step size h
//! multiplies the gradient of the log posterior directly (no 1/2), momenta are in "velocity" units
//! (`theta += v`), and `g_hat` below is the stochastic estimate of `grad log p(theta | data)`:
//!
//! - plain: `g_hat = grad log p(theta) + (N/n) sum_{i in S} grad log p(y_i | theta)`
//!   (Welling & Teh 2011, eq. 4);
//! - control variates: `g_hat = grad log p(theta) + sum_{i=1}^N grad log p(y_i | theta_map) +
//!   (N/n) sum_{i in S} [grad log p(y_i | theta) - grad log p(y_i | theta_map)]`
//!   (Baker, Fearnhead, Fox & Nemeth 2019, eq. 4; Nemeth & Fearnhead 2021, eq. 6).
//!
//! Cost accounting ("gradient evaluations" = data points touched): a plain estimate costs n, a
//! control-variate estimate 2n (the batch at theta and at the MAP); with a full batch drawn without
//! replacement the estimate is the exact full gradient (the control variate cancels exactly) and costs N.
//! The one-off N of the full gradient at the MAP is reported by [`ControlVariate::grad_evals`], not here.

use super::params::{Budget, SamplerKind, ValidSamplerParams};
use super::sink::Sink;
use crate::error::{Error, Result};
use crate::model::fastmath::prefetch;
use crate::model::Target;
use crate::rng::Rng;
use rand::RngExt;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use web_time::Instant;

/// The control variate of SGLD-CV and friends: a centring value (usually the MAP) and the full-data
/// log-likelihood gradient there.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlVariate {
    /// Centring value `theta_map`.
    pub map: Vec<f64>,
    /// `sum_{i=1}^N grad log p(y_i | theta_map)` (likelihood only, no prior).
    pub grad_lik_at_map: Vec<f64>,
}

impl ControlVariate {
    /// Computes the full-data likelihood gradient at `map` (N gradient evaluations).
    pub fn new(target: &dyn Target, map: impl Into<Vec<f64>>) -> Result<Self> {
        let map = map.into();
        if map.len() != target.dim() {
            return Err(Error::config(format!(
                "control-variate centre has length {}, the target has dimension {}",
                map.len(),
                target.dim()
            )));
        }
        if map.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("control-variate centre (MAP) has non-finite entries"));
        }
        let mut g = vec![0.0; map.len()];
        target.add_grad_log_lik_full(&map, &mut g);
        if g.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical("full-data gradient at the control-variate centre is not finite"));
        }
        Ok(Self { map, grad_lik_at_map: g })
    }

    /// Data points touched to build it (N of the target it was built for).
    pub fn grad_evals(target: &dyn Target) -> u64 {
        target.n_data() as u64
    }
}

/// State of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ChainStatus {
    /// Healthy; `run` can continue it.
    Running,
    /// Iteration `iter` (1-based, counted over the chain's whole life) produced a non-finite theta or
    /// momentum. The chain stays diverged; `run` does nothing.
    Diverged {
        /// The iteration that produced the first non-finite value.
        iter: u64,
    },
}

impl ChainStatus {
    /// Whether the chain diverged.
    pub fn is_diverged(&self) -> bool {
        matches!(self, ChainStatus::Diverged { .. })
    }
}

/// What one call of [`Chain::run`] did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunStats {
    /// Iterations done in this call (including a diverging one).
    pub iters: u64,
    /// Data points touched in this call.
    pub grad_evals: u64,
    /// Wall-clock seconds of this call.
    pub seconds: f64,
    /// Samples handed to the sink in this call.
    pub kept: usize,
    /// Chain status at the end of the call.
    pub status: ChainStatus,
    /// The call stopped because the cancel flag was set.
    pub cancelled: bool,
}

/// Work (data points touched) between two checks of the cancel flag / clock, see [`Chain::check_interval`].
const CHECK_WORK: u64 = 1 << 15;
/// At most this many iterations between two checks.
const CHECK_MAX_ITERS: u64 = 32;

/// One SG-MCMC chain. It owns its position, momentum, thermostat, RNG, minibatch permutation and scratch
/// buffers, so it can be stopped and resumed ([`Chain::run`] continues exactly where it stopped) and
/// moved between threads. Nothing is allocated per step.
#[derive(Debug, Clone)]
pub struct Chain {
    params: ValidSamplerParams,
    d: usize,
    n_data: usize,
    theta: Vec<f64>,
    /// Velocity `v` of SGHMC / SGNHT (empty for SGLD).
    mom: Vec<f64>,
    /// SGNHT thermostat variable.
    thermo: f64,
    rng: Rng,
    /// Index permutation for batches without replacement (empty for a full batch or with replacement).
    perm: Vec<u32>,
    /// Next position in `perm` (the first `pos` entries of the current epoch have been used).
    pos: usize,
    batch_idx: Vec<usize>,
    /// Scratch for [`Chain::draw_batch`]: the Fisher-Yates swap partners of one batch.
    swap_with: Vec<u32>,
    grad: Vec<f64>,
    scratch: Vec<f64>,
    cv: Option<Arc<ControlVariate>>,
    iters: u64,
    grad_evals: u64,
    status: ChainStatus,
}

/// A chain's state between two calls of [`Chain::run`] (see [`Chain::state`]); floats saved by their bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainState {
    #[serde(with = "crate::exact::floats")]
    pub theta: Vec<f64>,
    #[serde(with = "crate::exact::floats")]
    pub mom: Vec<f64>,
    #[serde(with = "crate::exact::float")]
    pub thermo: f64,
    pub rng: crate::rng::RngState,
    pub perm: Vec<u32>,
    pub pos: usize,
    pub iters: u64,
    pub grad_evals: u64,
    pub status: ChainStatus,
}

impl Chain {
    /// A chain at `start` for `target`. `cv` is required for the `*-cv` samplers (and ignored by the
    /// others). The RNG is owned by the chain: derive it with `crate::rng::stream(seed, arm_id)`.
    pub fn new(
        target: &dyn Target,
        params: ValidSamplerParams,
        start: Vec<f64>,
        cv: Option<Arc<ControlVariate>>,
        mut rng: Rng,
    ) -> Result<Chain> {
        let d = target.dim();
        let n_data = target.n_data();
        if params.n_data() != n_data {
            return Err(Error::config(format!(
                "sampler parameters were validated for N = {}, the target has N = {n_data}",
                params.n_data()
            )));
        }
        if n_data > u32::MAX as usize {
            return Err(Error::config(format!("N = {n_data} data points is more than the supported 2^32 - 1")));
        }
        if start.len() != d {
            return Err(Error::config(format!("start point has length {}, the target has dimension {d}", start.len())));
        }
        if start.iter().any(|v| !v.is_finite()) {
            return Err(Error::config("start point has non-finite entries"));
        }
        let kind = params.kind();
        let cv = if kind.is_cv() {
            let cv = cv.ok_or_else(|| {
                Error::config(format!("sampler {kind} needs a control variate (a MAP estimate); none was given"))
            })?;
            if cv.map.len() != d || cv.grad_lik_at_map.len() != d {
                return Err(Error::config(format!(
                    "control variate has dimension {}, the target has {d}",
                    cv.map.len()
                )));
            }
            Some(cv)
        } else {
            None
        };
        let batch = params.batch();
        let perm =
            if params.full_batch() || params.with_replacement() { Vec::new() } else { (0..n_data as u32).collect() };
        let h = params.step();
        let base = kind.base();
        // SGHMC resamples its momentum at the start of every iteration; SGNHT draws it once,
        // v ~ N(0, h I), with the thermostat at a (SGMCMCJax `sgnht.init_fn` / first update).
        let mut mom = Vec::new();
        let mut thermo = 0.0;
        if base != SamplerKind::Sgld {
            mom = vec![0.0; d];
        }
        if base == SamplerKind::Sgnht {
            let s = h.sqrt();
            for v in mom.iter_mut() {
                *v = s * rng.sample::<f64, _>(StandardNormal);
            }
            thermo = params.thermostat_a();
        }
        Ok(Chain {
            d,
            n_data,
            theta: start,
            mom,
            thermo,
            rng,
            perm,
            pos: 0,
            batch_idx: vec![0; if params.full_batch() { 0 } else { batch }],
            swap_with: vec![0; if params.full_batch() || params.with_replacement() { 0 } else { batch }],
            grad: vec![0.0; d],
            scratch: vec![0.0; d],
            cv,
            iters: 0,
            grad_evals: 0,
            status: ChainStatus::Running,
            params,
        })
    }

    /// Everything the chain carries from one call of [`Chain::run`] to the next (its scratch aside): a
    /// checkpoint saves it, and [`Chain::restore`] on a chain built with the same parameters continues it
    /// bit for bit.
    pub fn state(&self) -> ChainState {
        ChainState {
            theta: self.theta.clone(),
            mom: self.mom.clone(),
            thermo: self.thermo,
            rng: crate::rng::RngState::of(&self.rng),
            perm: self.perm.clone(),
            pos: self.pos,
            iters: self.iters,
            grad_evals: self.grad_evals,
            status: self.status,
        }
    }

    /// Puts the chain where [`Chain::state`] saved it; an error if the state does not fit this chain.
    pub fn restore(&mut self, s: ChainState) -> Result<()> {
        if s.theta.len() != self.d || s.mom.len() != self.mom.len() || s.perm.len() != self.perm.len() {
            return Err(Error::config("a saved chain does not fit this sampler and data set"));
        }
        if s.pos > s.perm.len() || s.perm.iter().any(|&i| i as usize >= self.n_data) {
            return Err(Error::config("a saved chain has a batch position outside the data set"));
        }
        self.theta = s.theta;
        self.mom = s.mom;
        self.thermo = s.thermo;
        self.rng = s.rng.restore()?;
        self.perm = s.perm;
        self.pos = s.pos;
        self.iters = s.iters;
        self.grad_evals = s.grad_evals;
        self.status = s.status;
        Ok(())
    }

    /// Current position.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }
    /// Current velocity (SGHMC / SGNHT; empty for SGLD).
    pub fn momentum(&self) -> &[f64] {
        &self.mom
    }
    /// SGNHT thermostat value (0 for other samplers).
    pub fn thermostat(&self) -> f64 {
        self.thermo
    }
    /// Iterations done over the chain's whole life.
    pub fn iters(&self) -> u64 {
        self.iters
    }
    /// Data points touched over the chain's whole life (excluding building the control variate).
    pub fn grad_evals(&self) -> u64 {
        self.grad_evals
    }
    /// Current status.
    pub fn status(&self) -> ChainStatus {
        self.status
    }
    /// The validated parameters.
    pub fn params(&self) -> &ValidSamplerParams {
        &self.params
    }
    /// Dimension.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Iterations between two checks of the cancel flag (and of the clock for a seconds budget):
    /// `clamp(2^15 / grad_evals_per_iter, 1, 32)`, so a check happens every 32 iterations or every
    /// ~32k data points touched, whichever comes first.
    pub fn check_interval(&self) -> u64 {
        (CHECK_WORK / self.params.grad_evals_per_iter().max(1)).clamp(1, CHECK_MAX_ITERS)
    }

    /// Runs the chain for `budget` (counted from this call), handing every kept sample (`d` values) to `sink`
    /// as it is made (a `Vec<f64>` appends it row-major; see [`Sink`]). A sample is kept after iteration `k`
    /// (counted over the chain's life) when `k % thin == 0` (`thin = 0` is taken as 1), so resuming keeps the
    /// thinning phase: running `2B` iterations keeps exactly what running `B` and then `B` keeps. Stops early
    /// when `cancel` is set (checked every [`Chain::check_interval`] iterations) or at the first non-finite
    /// theta/momentum (status `Diverged`; the non-finite sample is not kept). Never panics on numerical failure.
    ///
    /// # Panics
    /// If `target` has a different dimension or N than the one the chain was built with (a programming error).
    pub fn run<S: Sink + ?Sized>(
        &mut self,
        target: &dyn Target,
        budget: Budget,
        thin: usize,
        sink: &mut S,
        cancel: &AtomicBool,
    ) -> RunStats {
        assert!(
            target.dim() == self.d && target.n_data() == self.n_data,
            "Chain::run called with a target of a different shape than Chain::new"
        );
        let t0 = Instant::now();
        let thin = thin.max(1) as u64;
        let per_iter = self.params.grad_evals_per_iter();
        let check = self.check_interval();
        let (iters0, evals0) = (self.iters, self.grad_evals);
        let mut kept = 0;
        if let Budget::Iterations(k) = budget {
            let keep = ((self.iters + k) / thin - self.iters / thin) as usize;
            sink.reserve(keep.saturating_mul(self.d).min(1 << 26));
        }
        let mut cancelled = false;
        'outer: while self.status == ChainStatus::Running {
            if cancel.load(Ordering::Relaxed) {
                cancelled = true;
                break;
            }
            let done = self.iters - iters0;
            let chunk = match budget {
                Budget::Iterations(k) => k.saturating_sub(done).min(check),
                Budget::GradEvals(g) => {
                    let used = self.grad_evals - evals0;
                    if used >= g {
                        0
                    } else {
                        (g - used).div_ceil(per_iter).min(check)
                    }
                }
                Budget::Seconds(s) => {
                    let el = t0.elapsed().as_secs_f64();
                    if el >= s || s.is_nan() {
                        0
                    } else if done == 0 {
                        1
                    } else {
                        // Shorten the last chunks so that the overshoot is about one iteration.
                        let per = el / done as f64;
                        (((s - el) / per).ceil() as u64).clamp(1, check)
                    }
                }
            };
            if chunk == 0 {
                break;
            }
            for _ in 0..chunk {
                self.iterate(target);
                self.iters += 1;
                self.grad_evals += per_iter;
                if !self.state_is_finite() {
                    self.status = ChainStatus::Diverged { iter: self.iters };
                    break 'outer;
                }
                if self.iters.is_multiple_of(thin) {
                    sink.push(&self.theta);
                    kept += 1;
                }
            }
        }
        RunStats {
            iters: self.iters - iters0,
            grad_evals: self.grad_evals - evals0,
            seconds: t0.elapsed().as_secs_f64(),
            kept,
            status: self.status,
            cancelled,
        }
    }

    fn state_is_finite(&self) -> bool {
        self.theta.iter().all(|v| v.is_finite()) && self.mom.iter().all(|v| v.is_finite()) && self.thermo.is_finite()
    }

    /// One iteration (one potential sample).
    fn iterate(&mut self, target: &dyn Target) {
        let h = self.params.step();
        match self.params.kind().base() {
            SamplerKind::Sgld => {
                // SGLD (Welling & Teh 2011, eq. 4; SGMCMCJax step convention):
                // theta <- theta + h g_hat(theta) + sqrt(2h) xi,  xi ~ N(0, I).
                self.gradient(target);
                let s = (2.0 * h).sqrt();
                for (t, g) in self.theta.iter_mut().zip(&self.grad) {
                    *t += h * g + s * self.rng.sample::<f64, _>(StandardNormal);
                }
            }
            SamplerKind::Sghmc => {
                // SGHMC (Chen, Fox & Guestrin 2014, eq. 15 with beta_hat = 0) in the SGMCMCJax
                // parameterisation: v ~ N(0, h I) resampled per sample (velocity units, theta += v), then
                // L leapfrog-style steps, the gradient taken at the current theta:
                //   v <- v + h g_hat(theta) - alpha v + sqrt(2 alpha h) xi;   theta <- theta + v,
                // where the first kick of each sample is a half step (h/2, alpha/2, sqrt(alpha h)), as in
                // leapfrog. Without it (symplectic or explicit Euler after a momentum refresh, as SGMCMCJax
                // does) the stationary variance is off by O(1/L) even as h -> 0: for a Gaussian with L = 10,
                // about -9% (Euler order of Chen et al.) or +11% (SGMCMCJax order), and L = 1 gives half the
                // variance or a pure random walk. With the half kick, L = 1 is exactly SGLD with step h/2 and
                // the bias is O(h) (under 0.5% at h lambda = 0.01). Cost: L gradients per sample, as theirs.
                let alpha = self.params.friction();
                let sh = h.sqrt();
                for v in self.mom.iter_mut() {
                    *v = sh * self.rng.sample::<f64, _>(StandardNormal);
                }
                let s = (2.0 * alpha * h).sqrt();
                for l in 0..self.params.leapfrog() {
                    self.gradient(target);
                    let (hk, ak, sk) = if l == 0 { (0.5 * h, 0.5 * alpha, (alpha * h).sqrt()) } else { (h, alpha, s) };
                    for ((t, v), g) in self.theta.iter_mut().zip(self.mom.iter_mut()).zip(&self.grad) {
                        *v += hk * g - ak * *v + sk * self.rng.sample::<f64, _>(StandardNormal);
                        *t += *v;
                    }
                }
            }
            SamplerKind::Sgnht => {
                // SGNHT (Ding et al. 2014, Algorithm 2), SGMCMCJax parameterisation with a = thermostat_a:
                //   v <- v - xi v + h g_hat(theta) + sqrt(2 a h) eta;  theta <- theta + v;
                //   xi <- xi + |v|^2 / d - h.
                let a = self.params.thermostat_a();
                self.gradient(target);
                let s = (2.0 * a * h).sqrt();
                let xi = self.thermo;
                let mut vv = 0.0;
                for ((t, v), g) in self.theta.iter_mut().zip(self.mom.iter_mut()).zip(&self.grad) {
                    *v += -xi * *v + h * g + s * self.rng.sample::<f64, _>(StandardNormal);
                    *t += *v;
                    vv += *v * *v;
                }
                self.thermo = xi + vv / self.d as f64 - h;
            }
            _ => unreachable!("base() returns one of the three base kinds"),
        }
    }

    /// `self.grad = g_hat(theta)` (see the module docs), drawing a new minibatch.
    fn gradient(&mut self, target: &dyn Target) {
        if self.params.full_batch() {
            target.grad_log_density(&self.theta, &mut self.grad);
            return;
        }
        self.draw_batch();
        let scale = self.n_data as f64 / self.batch_idx.len() as f64;
        let Chain { theta, grad, scratch, batch_idx, cv, .. } = self;
        grad.iter_mut().for_each(|g| *g = 0.0);
        target.add_grad_log_lik(theta, batch_idx, grad);
        match cv {
            None => {
                if scale != 1.0 {
                    grad.iter_mut().for_each(|g| *g *= scale);
                }
            }
            Some(cv) => {
                scratch.iter_mut().for_each(|g| *g = 0.0);
                target.add_grad_log_lik(&cv.map, batch_idx, scratch);
                for ((g, s), gm) in grad.iter_mut().zip(scratch.iter()).zip(&cv.grad_lik_at_map) {
                    *g = gm + scale * (*g - s);
                }
            }
        }
        target.add_grad_log_prior(theta, grad);
    }

    /// Fills `batch_idx` with the next minibatch. Without replacement: the next `n` entries of a running
    /// partial Fisher-Yates shuffle of `0..N`; a batch that crosses the end of an epoch takes the rest of
    /// the epoch and continues with a fresh shuffle, so every index is used exactly once in each block of
    /// N consecutive draws (and each slot is uniform on `0..N`, keeping `g_hat` unbiased).
    fn draw_batch(&mut self) {
        let n = self.n_data as u32;
        if self.params.with_replacement() {
            for b in self.batch_idx.iter_mut() {
                *b = self.rng.random_range(0..n) as usize;
            }
            return;
        }
        let m = self.batch_idx.len();
        let mut filled = 0;
        while filled < m {
            if self.pos == self.n_data {
                self.pos = 0;
            }
            let take = (m - filled).min(self.n_data - self.pos);
            // Draw the swap partners first (the same draws in the same order; they do not depend on
            // the permutation), prefetching each `perm[j]`, then swap: the random accesses to `perm`
            // overlap instead of waiting one after another.
            let js = &mut self.swap_with[..take];
            for (k, j) in (self.pos..self.pos + take).zip(js.iter_mut()) {
                *j = self.rng.random_range(k as u32..n);
                prefetch(self.perm.as_ptr().wrapping_add(*j as usize));
            }
            for (k, &j) in (self.pos..self.pos + take).zip(js.iter()) {
                self.perm.swap(k, j as usize);
                self.batch_idx[filled] = self.perm[k] as usize;
                filled += 1;
            }
            self.pos += take;
        }
    }

    /// The minibatch indices used by the last gradient estimate (empty for a full batch). For tests
    /// and visualisation.
    pub fn last_batch(&self) -> &[usize] {
        &self.batch_idx
    }
}
