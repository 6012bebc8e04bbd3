//! The multi-task trace model (the exact-GP increments model over tasks, on [`crate::gp::multitask`]) and the
//! TRUVAR choice of the next (schedule, task) run (Bogunovic et al. 2016, Alg. 1, scores by
//! [`crate::gp::truvar`]).

use super::super::model::mean_sd;
use crate::gp::multitask::{MtHyper, MultiTaskGp, TaskPoint};
use crate::gp::truvar::{truvar_scores, CandidateRun};
use crate::math::log10;
use crate::{Error, Result};
use nalgebra::DMatrix;

/// One observed interval of a run on a task: `(ln Y_k, lr_k, ln Y_{k+1})`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Obs {
    pub(super) task: usize,
    pub(super) lny: f64,
    pub(super) lr: f64,
    pub(super) lny_next: f64,
}

/// The trace model over tasks: standardisation + the multi-task GP.
pub(super) struct TraceGp {
    pub(super) gp: MultiTaskGp,
    y_shift: f64,
    y_scale: f64,
    z_shift: f64,
    z_scale: f64,
    lr_lo: f64,
    lr_span: f64,
}

impl TraceGp {
    pub(super) fn fit(obs: &[Obs], lr_bounds: [f64; 2]) -> Result<Self> {
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
        let pts: Vec<TaskPoint> = obs.iter().map(|o| (m.input(o.lny, o.lr), o.task)).collect();
        let z: Vec<f64> = zs.iter().map(|z| (z - m.z_shift) / m.z_scale).collect();
        m.gp = MultiTaskGp::fit_ml(&pts, &z)?;
        Ok(m)
    }

    fn input(&self, lny: f64, lr: f64) -> [f64; 2] {
        [(lny - self.y_shift) / self.y_scale, (log10(lr) - self.lr_lo) / self.lr_span]
    }

    /// The GP mean path of a schedule on a task: the `d` inputs and the predicted final ln Y.
    fn mean_path(&self, lny0: f64, sched: &[f64], task: usize) -> (Vec<TaskPoint>, f64) {
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
    pts: Vec<TaskPoint>,
    mean: f64,
}

/// TRUVAR choice among `(candidate, task)` runs for the quantities of `tasks`. Returns the chosen pair,
/// its predicted final ln Y (mean, sd) and the updated η.
pub(super) fn choose(
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
    let all: Vec<TaskPoint> = qs.iter().flat_map(|q| q.pts.iter().copied()).collect();
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
