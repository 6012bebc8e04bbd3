//! The GP classifier of failures of the dynamic tuner (Picheny, Dutordoir, Artemev & Durrande 2020,
//! Sec. 3.2): a Laplace GP classifier ([`crate::gp::laplace`]) over the trace model's inputs.

use super::chained::{InputScale, IntervalObs};
use crate::gp::laplace::LaplaceClassifier;
use crate::gp::{BaseKernel, Kernel};
use crate::math::ln;
use crate::Result;

/// The GP classifier of failures (Sec. 3.2): Laplace approximation of a GP with logistic likelihood
/// (Rasmussen & Williams 2006, Algorithm 3.1; prediction with the probit approximation, eq. 3.25 and
/// Mackay's `κ`), over the same inputs as the trace model (standardised `ln Y`, log10 rate scaled to [0, 1]
/// over the bounds), Matern 5/2 with length scales 1 and 0.2 and signal variance 10, with a constant prior
/// mean at the logit of the observed failure rate. Without any failure the probability is 0.
#[derive(Debug, Clone)]
pub struct FailureClassifier {
    /// `None` without any failure.
    gp: Option<LaplaceClassifier>,
    scale: InputScale,
}

impl FailureClassifier {
    /// Fits on every interval (label: diverged in it).
    pub fn fit(obs: &[IntervalObs], lr_bounds: [f64; 2]) -> Result<Self> {
        let pts: Vec<&IntervalObs> = obs.iter().filter(|o| o.y_start > 0.0 && o.lr > 0.0).collect();
        let starts: Vec<f64> = pts.iter().map(|o| ln(o.y_start)).collect();
        let scale = InputScale::fit(&starts, lr_bounds);
        let xs: Vec<Vec<f64>> = pts.iter().map(|o| scale.at(ln(o.y_start), o.lr).to_vec()).collect();
        let t: Vec<f64> = pts.iter().map(|o| if o.diverged { 1.0 } else { 0.0 }).collect();
        let nf = t.iter().sum::<f64>();
        let mut kernel = Kernel::new(BaseKernel::Matern52, 2, 1.0, 10.0)?;
        kernel.length_scales = vec![1.0, 0.2];
        let rate = ((nf + 0.5) / (t.len() as f64 + 1.0)).clamp(0.02, 0.5);
        let mean = ln(rate / (1.0 - rate));
        let gp = if nf > 0.0 { Some(LaplaceClassifier::fit(kernel, xs, &t, mean)?) } else { None };
        Ok(FailureClassifier { gp, scale })
    }

    /// Predicted probability that a run at loss `y` with rate `lr` diverges in the next interval.
    pub fn p_fail(&self, y: f64, lr: f64) -> f64 {
        let Some(gp) = &self.gp else { return 0.0 };
        gp.prob(&self.scale.at(ln(y.max(1e-300)), lr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::powf;

    #[test]
    fn classifier_separates_failures() {
        let mut obs = Vec::new();
        for k in 0..20 {
            let lr = powf(10f64, -3.0 + 3.0 * k as f64 / 19.0);
            obs.push(IntervalObs { y_start: 1.0, lr, points: vec![], diverged: lr > 0.2 });
        }
        let c = FailureClassifier::fit(&obs, [1e-3, 1.0]).unwrap();
        assert!(
            c.p_fail(1.0, 0.9) > 0.6 && c.p_fail(1.0, 2e-3) < 0.15,
            "{} {}",
            c.p_fail(1.0, 0.9),
            c.p_fail(1.0, 2e-3)
        );
        obs.iter_mut().for_each(|o| o.diverged = false);
        assert_eq!(FailureClassifier::fit(&obs, [1e-3, 1.0]).unwrap().p_fail(1.0, 0.9), 0.0);
    }
}
