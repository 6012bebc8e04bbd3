//! The multi-task trace model: the exact-GP increments model (exponential link, `z_k = ln Y_{k+1} - ln Y_k`
//! over `(ln Y_k, log10 lr_k)`) with the task at its learnt location `w` as an extra input through the product
//! kernel of [`crate::gp::multitask`] (Picheny et al., Sec. 4.1), and its predictions of a schedule's trace at
//! the interval boundaries.
//!
//! Prediction (Sec. 2.3 samples `Y_1, ..., Y_d` recursively): we follow the GP mean path, so the predicted
//! `ln Y_k = ln Y_0 + Σ_{j<k} (z_shift + z_scale f(u_j, w))` is a linear functional of the GP with an exact mean
//! and variance under the model (a linearisation of the recursion, ours; it makes eq. 8's conditional
//! variance available in closed form, see `acquire.rs`).

use super::super::model::mean_sd;
use crate::gp::multitask::{LocPoint, MtHyper, MultiTaskGp, TaskPoint};
use crate::math::log10;
use crate::Result;
use nalgebra::DMatrix;

/// One observed interval of a run on a task: `(ln Y_k, lr_k, ln Y_{k+1})`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    pub task: usize,
    pub lny: f64,
    pub lr: f64,
    pub lny_next: f64,
}

/// The trace model over tasks: standardisation + the multi-task GP.
pub struct TraceGp {
    pub gp: MultiTaskGp,
    y_shift: f64,
    y_scale: f64,
    pub z_shift: f64,
    pub z_scale: f64,
    lr_lo: f64,
    lr_span: f64,
}

/// A schedule's predicted trace at one location: the mean-path inputs, the predicted mean and variance of
/// `ln Y_k` at the boundaries `k = 1..d`, and the posterior covariance of the standardised increments.
pub struct Pred {
    pub pts: Vec<LocPoint>,
    pub mean: Vec<f64>,
    pub var: Vec<f64>,
    pub cov: DMatrix<f64>,
}

impl Pred {
    pub fn final_mean(&self) -> f64 {
        *self.mean.last().unwrap_or(&0.0)
    }
    pub fn final_var(&self) -> f64 {
        *self.var.last().unwrap_or(&0.0)
    }
}

impl TraceGp {
    /// Fits the model to `obs` of `n_tasks` tasks; `init` holds the starting task locations (one per task).
    pub fn fit(obs: &[Obs], lr_bounds: [f64; 2], init: &[[f64; 2]], loc_steps: usize) -> Result<Self> {
        let (y_shift, ysd) = mean_sd(&obs.iter().map(|o| o.lny).collect::<Vec<_>>());
        let zs: Vec<f64> = obs.iter().map(|o| o.lny_next - o.lny).collect();
        let (z_shift, zsd) = mean_sd(&zs);
        let lr_lo = log10(lr_bounds[0]);
        let lr_span = (log10(lr_bounds[1]) - lr_lo).max(1e-12);
        let mut h0 = MtHyper::new(init.len());
        h0.loc = init.to_vec();
        let mut m = TraceGp {
            gp: MultiTaskGp::fit(&[], &[], h0.clone())?,
            y_shift: if obs.is_empty() { 0.0 } else { y_shift },
            y_scale: if ysd > 1e-9 { ysd } else { 1.0 },
            z_shift: if obs.is_empty() { 0.0 } else { z_shift },
            z_scale: if zsd > 1e-9 { zsd } else { 1.0 },
            lr_lo,
            lr_span,
        };
        let pts: Vec<TaskPoint> = obs.iter().map(|o| (m.input(o.lny, o.lr), o.task)).collect();
        let z: Vec<f64> = zs.iter().map(|z| (z - m.z_shift) / m.z_scale).collect();
        m.gp = MultiTaskGp::fit_ml(&pts, &z, &h0, loc_steps)?;
        Ok(m)
    }

    fn input(&self, lny: f64, lr: f64) -> [f64; 2] {
        [(lny - self.y_shift) / self.y_scale, (log10(lr) - self.lr_lo) / self.lr_span]
    }

    /// The learnt location of task `t`.
    pub fn loc(&self, t: usize) -> [f64; 2] {
        self.gp.hyper.loc[t]
    }

    /// The mean path of `sched` from `ln Y_0 = lny0` at location `w` and its predicted boundary moments.
    pub fn predict(&self, lny0: f64, sched: &[f64], w: [f64; 2]) -> Result<Pred> {
        let mut lny = lny0;
        let mut pts = Vec::with_capacity(sched.len());
        let mut mean = Vec::with_capacity(sched.len());
        for &lr in sched {
            let p = (self.input(lny, lr), w);
            let m = self.gp.mean_at(std::slice::from_ref(&p))[0];
            lny += self.z_shift + self.z_scale * m;
            if !lny.is_finite() {
                lny = lny0 + 50.0;
            }
            pts.push(p);
            mean.push(lny);
        }
        let cov = self.gp.posterior_cov_at(&pts, &pts)?;
        let z2 = self.z_scale * self.z_scale;
        // Var ln Y_k = z_scale² Σ_{a,b<k} cov_ab (the leading k x k block).
        let mut var = Vec::with_capacity(sched.len());
        let mut s = 0.0;
        for k in 0..sched.len() {
            for a in 0..k {
                s += 2.0 * cov[(a, k)];
            }
            s += cov[(k, k)];
            var.push((s * z2).max(0.0));
        }
        Ok(Pred { pts, mean, var, cov })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_model_predicts_no_change_and_the_prior_variance() {
        let m = TraceGp::fit(&[], [1e-3, 1.0], &[[0.0, 0.0]], 0).unwrap();
        let p = m.predict(0.5, &[0.1, 0.01], [0.0, 0.0]).unwrap();
        assert_eq!(p.pts.len(), 2);
        assert!((p.final_mean() - 0.5).abs() < 1e-15);
        // Two increments of prior variance 1 and correlation k_u(u_0, u_1): Var = 2 + 2 k.
        let k = p.cov[(0, 1)];
        assert!((p.final_var() - (2.0 + 2.0 * k)).abs() < 1e-12 && (p.var[0] - 1.0).abs() < 1e-12);
    }
}
