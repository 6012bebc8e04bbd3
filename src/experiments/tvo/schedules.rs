//! The fixed integration schedules of Nguyen et al. section 5: linear, log-uniform (Masrani et al.) and moments.

use crate::math::powf;

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
