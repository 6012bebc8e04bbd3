//! The TRUVAR acquisition score (Bogunovic, Scarlett, Krause & Cevher, NeurIPS 2016, "Truncated variance
//! reduction", Algorithm 1) for Gaussian quantities whose posterior covariances the caller has computed. With
//! β = 1, η = 0 and unit cost the score is the plain variance reduction `Σ_m v_m - Σ_m v_m|run`, which the
//! multi-task tuner's eq. 8 (Picheny et al., Sec. 4.2) uses.

use nalgebra::DMatrix;

use super::cholesky_jitter;
use crate::{Error, Result};

/// One hypothetical run for the acquisition: the covariance of its `d` latent observations (`obs_cov`), their
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
