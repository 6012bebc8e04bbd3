//! The compared methods: HOAG (Pedregosa 2016, Algorithm 1 with the adaptive step of Sec. 3), iterative
//! differentiation (Domke 2012; Maclaurin et al. 2015: reverse mode through the inner solver, `unroll`), grid
//! search, random search and GP Bayesian optimisation with expected improvement (Jones et al. 1998).

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

use super::problems::{Bilevel, InnerAt};
use super::solvers::{conjugate_gradient, norm};
use super::unroll;
use super::{HoagConfig, HoagMethodReport, MethodSpec, StepRule, TracePoint};
use crate::gp::{BaseKernel, Gp, HyperOptions, Kernel};
use crate::math::{exp, ln};
use crate::rng::{stream, Rng};
use crate::{Error, Result};
use rand::RngExt;
use std::sync::atomic::{AtomicBool, Ordering};
use web_time::Instant;

/// Adaptive step of Pedregosa (2016, Sec. 3 "Adaptive step size", eq. 3): the step `1/L` is multiplied by
/// β = `BETA` = 1.05 when the sufficient-decrease inequality holds and by α = 0.5 otherwise ("M = 1, α = 0.5,
/// β = 1.05"); the `authors-code` variant ([`StepRule::AuthorsCode`]) fixes C at `AUTHORS_C` = 0.25 and grows
/// the step by 1/`AUTHORS_GROW` = 1/0.95 as the authors' code `hoag_lbfgs`. The safeguard of that code: a step
/// after which the outer loss rises by more than `REJECT` times is rejected (back to the previous iterate,
/// step halved, the tolerance sequence halved).
const BETA: f64 = 1.05;
const ALPHA: f64 = 0.5;
const AUTHORS_C: f64 = 0.25;
const AUTHORS_GROW: f64 = 0.95;
const REJECT: f64 = 1.2;
/// Iteration cap of the off-clock accurate evaluations (curves, landscape, final losses, at least `2n`): they
/// measure the methods and are not bound by the methods' inner cap `max_inner_iter`.
pub(super) const MEASURE_ITERS: usize = 1000;

/// Iteration cap of a measuring (off-clock) solve on a problem with `n` inner variables.
pub(super) fn measure_iters(n: usize) -> usize {
    MEASURE_ITERS.max(2 * n)
}

pub(super) fn linspace(lo: f64, hi: f64, k: usize) -> Vec<f64> {
    (0..k).map(|i| lo + (hi - lo) * i as f64 / (k - 1) as f64).collect()
}

/// `|∇_1 h(0, λ)|`: the reference of the relative inner tolerances (independent of λ for both problems).
pub(super) fn grad_norm_at_zero(at: &dyn InnerAt, n: usize) -> f64 {
    let z = vec![0.0; n];
    let mut g = vec![0.0; n];
    at.value_grad(&z, &mut g);
    norm(&g).max(1e-300)
}

/// Solves the inner problem at `lam` until `|x - x(λ)| <= tol` (warm start `x`) and returns
/// `(outer loss, validation loss, cost, inner iterations)`.
pub(super) fn evaluate(
    pr: &dyn Bilevel,
    lam: &[f64],
    x: &mut [f64],
    tol: f64,
    max_iter: usize,
) -> (f64, f64, u64, usize) {
    let at = pr.at(lam);
    let n0 = grad_norm_at_zero(at.as_ref(), x.len());
    // |∇h| <= μ(λ) tol bounds |x - x(λ)| by tol (as HOAG's rule); floored at round-off, 1e-12 |∇h(0)|.
    let info = at.solve(x, (at.strong_convexity() * tol).max(1e-12 * n0), max_iter);
    let f = at.outer(x);
    let v = at.validation(x);
    (f, v, at.cost() + 1, info.iters)
}

struct Tracker<'a> {
    start: Instant,
    /// Time spent off the clock (the accurate evaluations that draw the curves).
    paused: f64,
    cost: u64,
    inner_iters: usize,
    trace: Vec<TracePoint>,
    emit: &'a mut dyn FnMut(&TracePoint),
    /// Whether every iterate is evaluated accurately off the clock (the curves); the reference runs only need
    /// their final point.
    measure: bool,
}

impl Tracker<'_> {
    /// Seconds on the method's clock (everything it did, the off-clock evaluations excluded).
    fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64() - self.paused
    }
    /// Runs `f` off the clock: neither its time nor its cost is charged to the method.
    fn off_clock<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let r = f();
        self.paused += t.elapsed().as_secs_f64();
        r
    }
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        iter: usize,
        hyper: &[f64],
        f: f64,
        best_hyper: &[f64],
        best_f: f64,
        val: f64,
        tol: Option<f64>,
        gn: Option<f64>,
        rejected: bool,
    ) {
        let pt = TracePoint {
            iter,
            seconds: self.seconds(),
            cost: self.cost,
            inner_iters: self.inner_iters,
            hyper: hyper.to_vec(),
            outer_loss: f,
            best_hyper: best_hyper.to_vec(),
            best_outer_loss: best_f,
            validation_loss: val,
            tolerance: tol,
            grad_norm: gn,
            rejected,
            suboptimality: 0.0,
        };
        (self.emit)(&pt);
        self.trace.push(pt);
    }
    fn out_of_budget(&self, cfg: &HoagConfig, iter: usize) -> Option<&'static str> {
        if self.cost >= cfg.budget.cost {
            Some("budget")
        } else if iter >= cfg.budget.max_iter {
            Some("max-iter")
        } else if cfg.budget.seconds.is_some_and(|s| self.seconds() >= s) {
            Some("seconds")
        } else {
            None
        }
    }
}

pub(super) fn run_method(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    spec: &MethodSpec,
    method_id: u64,
    emit: &mut dyn FnMut(&TracePoint),
    cancel: &AtomicBool,
) -> Result<HoagMethodReport> {
    run_method_from(pr, cfg, spec, method_id, None, true, emit, cancel)
}

/// The final accurate outer loss of HOAG (exponential tolerances) started at a uniformly random point of the box
/// (stream `(seed, 0x4ef0 + run)`), on the same budget as a method: one of the runs that define the reference
/// optimum (Pedregosa 2016, Sec. 3.1).
pub(super) fn reference_run(pr: &dyn Bilevel, cfg: &HoagConfig, run: u64, cancel: &AtomicBool) -> Result<f64> {
    let mut rng = stream(cfg.seed, 0x4ef0 + run);
    let init = uniform_point(&mut rng, pr.n_hyper(), cfg.bounds);
    let spec = MethodSpec::Hoag { tolerance: super::Tolerance::Exponential };
    let rep = run_method_from(pr, cfg, &spec, 0, Some(init), false, &mut |_| {}, cancel)?;
    Ok(rep.final_loss)
}

#[allow(clippy::too_many_arguments)]
fn run_method_from(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    spec: &MethodSpec,
    method_id: u64,
    init: Option<Vec<f64>>,
    measure: bool,
    emit: &mut dyn FnMut(&TracePoint),
    cancel: &AtomicBool,
) -> Result<HoagMethodReport> {
    let mut tr =
        Tracker { start: Instant::now(), paused: 0.0, cost: 0, inner_iters: 0, trace: Vec::new(), emit, measure };
    let mut x = vec![0.0; pr.n_inner()];
    let (final_hyper, tolerances, stopped) = match spec {
        MethodSpec::Hoag { .. } | MethodSpec::IterDiff { .. } => {
            gradient_method(pr, cfg, spec, init, &mut tr, &mut x, cancel)?
        }
        _ => search_method(pr, cfg, spec, method_id, &mut tr, &mut x, cancel)?,
    };
    let seconds = tr.seconds();
    let rejected_steps = tr.trace.iter().filter(|t| t.rejected).count();
    let (final_loss, final_validation_loss, _, _) =
        evaluate(pr, &final_hyper, &mut x, cfg.blackbox_tol, measure_iters(pr.n_inner()));
    Ok(HoagMethodReport {
        name: spec.name(),
        spec: spec.clone(),
        trace: tr.trace,
        final_hyper,
        final_loss,
        final_validation_loss,
        cost: tr.cost,
        seconds,
        tolerances,
        rejected_steps,
        stopped: stopped.to_string(),
    })
}

fn project(lam: &mut [f64], b: [f64; 2]) {
    lam.iter_mut().for_each(|v| *v = v.clamp(b[0], b[1]));
}

/// HOAG (Pedregosa 2016, Algorithm 1) or iterative differentiation, with the same projected outer step and
/// the adaptive step size of Sec. 3 with its safeguard. After every iterate the outer loss of the current
/// hyperparameters is evaluated at an accurate inner solution off the clock (the curves).
fn gradient_method(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    spec: &MethodSpec,
    init: Option<Vec<f64>>,
    tr: &mut Tracker,
    x: &mut [f64],
    cancel: &AtomicBool,
) -> Result<(Vec<f64>, Vec<f64>, &'static str)> {
    let s = pr.n_hyper();
    let n = pr.n_inner();
    let mut lam = init.or_else(|| cfg.init.clone()).unwrap_or_else(|| pr.default_init());
    // C of eq. 3: from the data when the outer loss has a global Lipschitz constant, else local (below).
    let c_data = match cfg.step_rule {
        StepRule::Text => pr.outer_lipschitz(),
        StepRule::AuthorsCode => Some(AUTHORS_C),
    };
    let mut c_now = c_data.unwrap_or(0.0);
    project(&mut lam, cfg.bounds);
    let mut q = vec![0.0; n];
    let mut gx = vec![0.0; n];
    let mut glam = vec![0.0; s];
    let mut cross = vec![0.0; s];
    let mut p = vec![0.0; s];
    let mut tolerances = Vec::new();
    // Lipschitz estimate L: the step is 1/L (Algorithm 1, step iv).
    let mut big_l: Option<f64> = None;
    // (outer loss, ε, hyperparameters) of the previous accepted iterate.
    let mut prev: Option<(f64, f64, Vec<f64>)> = None;
    // Halved at each rejected step (the authors' code tightens the tolerance there).
    let mut eps_scale = 1.0;
    // The Hessian system (Algorithm 1 (ii)) is not the inner optimisation the paper caps at 100 iterations.
    let cg_max = measure_iters(n);
    let acc_iters = measure_iters(n);
    // Off-clock accurate evaluations warm-start from their own iterate.
    let mut x_acc = vec![0.0; n];
    let steps = if let MethodSpec::IterDiff { steps } = spec { *steps } else { 0 };
    let mut k = 0;
    let stopped = loop {
        k += 1;
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let at = pr.at(&lam);
        let (f, eps) = match spec {
            MethodSpec::Hoag { tolerance } => {
                let eps = tolerance.eps(cfg.eps0, k) * eps_scale;
                // (i) inner problem until |∇_1 h| <= μ(λ) ε_k, so that |x - x(λ)| <= ε_k (Sec. 3), warm-started.
                let mu = at.strong_convexity();
                let info = at.solve(x, mu * eps, cfg.max_inner_iter);
                tr.inner_iters += info.iters;
                let f = at.outer_grad(x, &mut gx, &mut glam);
                if c_data.is_none() {
                    // no global Lipschitz constant (kernel ridge's squared loss): ‖∇_1 g(x_k)‖, the constant of g
                    // on the ε_k-ball around x_k to first order in ε_k
                    c_now = norm(&gx);
                }
                // (ii) ∇²_1 h q = ∇_1 f by CG until |residual| <= ε_k (absolute), warm-started from the last q.
                let xr: &[f64] = x;
                let info = conjugate_gradient(|v, out| at.hvp(xr, v, out), &gx, &mut q, eps, cg_max);
                tr.inner_iters += info.iters;
                // (iii) p_k = ∇_2 f - (∇²_{12} h)ᵀ q_k.
                at.cross_t(x, &q, &mut cross);
                for i in 0..s {
                    p[i] = glam[i] - cross[i];
                }
                tolerances.push(eps);
                (f, eps)
            }
            MethodSpec::IterDiff { .. } => {
                // Up to `steps` iterations of the inner solver from zero, stopping at the accuracy of the
                // search methods' evaluations (|∇_1 h| <= μ(λ) blackbox_tol), then reverse mode through them.
                let n0 = grad_norm_at_zero(at.as_ref(), n);
                let tol = (at.strong_convexity() * cfg.blackbox_tol).max(1e-12 * n0);
                let (f, iters) = unroll::unrolled_hypergradient(at.as_ref(), steps, tol, x, &mut p);
                tr.inner_iters += iters;
                (f, 0.0)
            }
            _ => unreachable!("gradient_method is only called for gradient methods"),
        };
        tr.cost += at.cost();
        drop(at);
        let pn = norm(&p);
        // Adaptive step (Sec. 3, eq. 3 with M = 1): with incr = |λ_k - λ_{k-1}|, grow the step when
        // f_k <= f_{k-1} + C ε_k + ε_{k-1} (C + 1) incr - (L/2) incr² (the descent lemma with the errors of
        // the approximate gradient), multiply it by α = 0.5 otherwise; reject the step when the
        // outer loss rose by more than 20% (f_k >= 1.2 f_{k-1}): back to λ_{k-1}, tolerances halved.
        let mut rejected = false;
        if let (Some((f_old, eps_old, lam_old)), Some(l)) = (&prev, big_l.as_mut()) {
            let incr = lam.iter().zip(lam_old).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            if step_test(f, *f_old, eps, *eps_old, incr, *l, c_now) {
                *l = grow_l(*l, cfg.step_rule);
            } else {
                *l /= ALPHA;
                if f >= REJECT * f_old || !f.is_finite() {
                    eps_scale *= 0.5;
                    rejected = true;
                    lam.copy_from_slice(lam_old);
                }
            }
        }
        let (f_acc, val) = if tr.measure {
            tr.off_clock(|| {
                let (fa, va, _, _) = evaluate(pr, &lam, &mut x_acc, cfg.blackbox_tol, acc_iters);
                (fa, va)
            })
        } else {
            (f, f64::NAN)
        };
        let tol = if matches!(spec, MethodSpec::Hoag { .. }) { Some(eps) } else { None };
        tr.push(k, &lam, f, &lam, f_acc, val, tol, Some(pn), rejected);
        if rejected {
            // Re-evaluate at the previous iterate with the tighter tolerance; no comparison for that one.
            prev = None;
            if let Some(why) = tr.out_of_budget(cfg, k) {
                break why;
            }
            continue;
        }
        if !(f.is_finite() && pn.is_finite()) {
            break "numerical-failure";
        }
        if let Some(why) = tr.out_of_budget(cfg, k) {
            break why;
        }
        if pn == 0.0 {
            break "converged";
        }
        // First step of length sqrt(s) along -p_1, as in the authors' code (L = |p_1| / sqrt(s)).
        let l = *big_l.get_or_insert(pn / (s as f64).sqrt());
        let old = lam.clone();
        for i in 0..s {
            lam[i] -= p[i] / l;
        }
        project(&mut lam, cfg.bounds);
        if lam == old {
            break "converged";
        }
        prev = Some((f, eps, old));
    };
    Ok((lam, tolerances, stopped))
}

/// Eq. 3 (M = 1) with the `(L/2)Δ²` term: whether the step from the previous iterate counts as a success.
pub(super) fn step_test(f: f64, f_old: f64, eps: f64, eps_old: f64, incr: f64, l: f64, c: f64) -> bool {
    f <= f_old + c * eps + eps_old * (c + 1.0) * incr - 0.5 * l * incr * incr
}

/// `L` after a successful step: the step `1/L` times β = 1.05 (the text) or 1/0.95 (the authors' code).
pub(super) fn grow_l(l: f64, rule: StepRule) -> f64 {
    match rule {
        StepRule::Text => l / BETA,
        StepRule::AuthorsCode => l * AUTHORS_GROW,
    }
}

fn uniform_point(rng: &mut Rng, s: usize, b: [f64; 2]) -> Vec<f64> {
    (0..s).map(|_| b[0] + (b[1] - b[0]) * rng.random::<f64>()).collect()
}

/// Standard normal cdf via erfc (W. J. Cody's rational approximation as in Numerical Recipes, |err| < 1.2e-7).
fn norm_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let y = t * exp(-x * x - 1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
    let erfc = if x >= 0.0 { y } else { 2.0 - y };
    0.5 * erfc
}

fn norm_pdf(z: f64) -> f64 {
    exp(-0.5 * z * z) / (2.0 * std::f64::consts::PI).sqrt()
}

/// Expected improvement for minimisation (Jones et al. 1998): `(b - μ) Φ(z) + σ φ(z)`, `z = (b - μ)/σ`.
pub(crate) fn expected_improvement(mu: f64, var: f64, best: f64) -> f64 {
    let sd = var.max(0.0).sqrt();
    if sd < 1e-12 {
        return (best - mu).max(0.0);
    }
    let z = (best - mu) / sd;
    (best - mu) * norm_cdf(z) + sd * norm_pdf(z)
}

/// Next BO point: fit a Matern-5/2 GP (type-II ML) on inputs scaled to [0,1]^s and standardised log losses
/// (losses span orders of magnitude across the box), maximise EI over a grid of candidates not already
/// evaluated. Falls back to a random point when the GP fails.
fn bo_next(xs: &[Vec<f64>], ys: &[f64], b: [f64; 2], rng: &mut Rng) -> Vec<f64> {
    let s = xs[0].len();
    let scale = |v: &[f64]| v.iter().map(|a| (a - b[0]) / (b[1] - b[0])).collect::<Vec<f64>>();
    let u: Vec<Vec<f64>> = xs.iter().map(|v| scale(v)).collect();
    let logs: Vec<f64> = ys.iter().map(|y| ln(y.max(1e-300))).collect();
    let mean = logs.iter().sum::<f64>() / logs.len() as f64;
    let sd = (logs.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / logs.len() as f64).sqrt().max(1e-12);
    let z: Vec<f64> = logs.iter().map(|y| (y - mean) / sd).collect();
    let fitted =
        Kernel::new(BaseKernel::Matern52, s, 0.2, 1.0).and_then(|k| Gp::fit(&u, &z, k, 1e-6)).and_then(|mut gp| {
            let opts = HyperOptions {
                length_scale: (0.02, 2.0),
                signal_var: (0.05, 20.0),
                noise_var: Some((1e-8, 1e-2)),
                restarts: 2,
                max_iters: 50,
                ..HyperOptions::default()
            };
            gp.optimize_hyperparameters(rng, &opts)?;
            Ok(gp)
        });
    let gp = match fitted {
        Ok(gp) => gp,
        Err(_) => return uniform_point(rng, s, b),
    };
    let best = z.iter().cloned().fold(f64::INFINITY, f64::min);
    // Candidates: a 401-point grid (s = 1), a 41 x 41 grid (s = 2), or 2000 uniform points (s > 2).
    let k = if s == 1 { 401 } else { 41 };
    let grid = linspace(0.0, 1.0, k);
    let mut best_ei = -1.0;
    let mut best_u = vec![0.5; s];
    let mut cand = vec![0.0; s];
    let total = match s {
        1 => k,
        2 => k * k,
        _ => 2000,
    };
    for i in 0..total {
        if s == 1 {
            cand[0] = grid[i];
        } else if s == 2 {
            cand[0] = grid[i / k];
            cand[1] = grid[i % k];
        } else {
            cand.iter_mut().for_each(|c| *c = rng.random::<f64>());
        }
        if u.iter().any(|o| o.iter().zip(&cand).all(|(a, c)| (a - c).abs() < 1e-9)) {
            continue;
        }
        let (m, v) = gp.predict(&cand);
        let ei = expected_improvement(m, v, best);
        if ei > best_ei {
            best_ei = ei;
            best_u.copy_from_slice(&cand);
        }
    }
    best_u.iter().map(|a| b[0] + a * (b[1] - b[0])).collect()
}

/// Grid, random search and BO: each evaluation solves the inner problem to `blackbox_tol` (warm start from the
/// previous evaluation); the recommendation is the incumbent.
fn search_method(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    spec: &MethodSpec,
    method_id: u64,
    tr: &mut Tracker,
    x: &mut [f64],
    cancel: &AtomicBool,
) -> Result<(Vec<f64>, Vec<f64>, &'static str)> {
    let s = pr.n_hyper();
    let b = cfg.bounds;
    let mut rng = stream(cfg.seed, 100 + method_id);
    let grid: Vec<Vec<f64>> = match spec {
        MethodSpec::Grid { points } => {
            let axis = linspace(b[0], b[1], *points);
            if s == 1 {
                axis.iter().map(|&a| vec![a]).collect()
            } else if s > 2 {
                // Along the diagonal: one shared value for every hyperparameter.
                axis.iter().map(|&a| vec![a; s]).collect()
            } else {
                axis.iter().flat_map(|&a| axis.iter().map(move |&c| vec![a, c])).collect()
            }
        }
        _ => Vec::new(),
    };
    let mut xs: Vec<Vec<f64>> = Vec::new();
    let mut ys: Vec<f64> = Vec::new();
    let mut best = (f64::INFINITY, vec![0.0; s], f64::NAN);
    // The paper's fairness rule (Sec. 3.2): every method's inner solves stop at `max_inner_iter` iterations.
    let max_iter = cfg.max_inner_iter;
    let mut k = 0;
    let stopped = loop {
        k += 1;
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let lam = match spec {
            MethodSpec::Grid { .. } => {
                if k > grid.len() {
                    break "grid-done";
                }
                grid[k - 1].clone()
            }
            MethodSpec::Random => uniform_point(&mut rng, s, b),
            MethodSpec::Bo { initial, random_init } => {
                if k <= *initial && *random_init {
                    uniform_point(&mut rng, s, b)
                } else if k <= *initial {
                    // Sec. 3.2 SMBO: "4 values equally spaced between -12 and 12" (every hyperparameter equal)
                    let v = if *initial == 1 { (b[0] + b[1]) / 2.0 } else { linspace(b[0], b[1], *initial)[k - 1] };
                    vec![v; s]
                } else {
                    bo_next(&xs, &ys, b, &mut rng)
                }
            }
            _ => unreachable!("search_method is only called for search methods"),
        };
        let (f, v, c, it) = evaluate(pr, &lam, x, cfg.blackbox_tol, max_iter);
        tr.cost += c;
        tr.inner_iters += it;
        if f.is_finite() && f < best.0 {
            best = (f, lam.clone(), v);
        }
        xs.push(lam.clone());
        ys.push(if f.is_finite() { f } else { f64::MAX.sqrt() });
        tr.push(k, &lam, f, &best.1, best.0, best.2, None, None, false);
        if matches!(spec, MethodSpec::Grid { .. }) && k == grid.len() {
            break "grid-done";
        }
        if let Some(why) = tr.out_of_budget(cfg, k) {
            break why;
        }
    };
    if !best.0.is_finite() {
        return Err(Error::numerical(format!("{}: no evaluation gave a finite outer loss", spec.name())));
    }
    Ok((best.1, Vec::new(), stopped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_matches_known_values() {
        assert!((norm_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((norm_cdf(1.0) - 0.841_344_746).abs() < 1e-6);
        assert!((norm_cdf(-1.959_963_985) - 0.025).abs() < 1e-6);
    }

    #[test]
    fn ei_is_positive_and_monotone_in_mean() {
        let a = expected_improvement(0.0, 1.0, 0.0);
        let b = expected_improvement(-1.0, 1.0, 0.0);
        assert!((a - norm_pdf(0.0)).abs() < 1e-9);
        assert!(b > a);
        assert_eq!(expected_improvement(1.0, 0.0, 0.0), 0.0);
    }
}
