//! Gaussian samples and their exact scores, shared by the core's and the CLI's tests
//! (`#[path = ".../tests/common/gaussian.rs"] mod gaussian;`).

use rand::RngExt;
use rand_distr::StandardNormal;
use tunelab::rng::Rng;

/// `n` draws of N(mean, sd^2 I), row-major.
pub fn gaussian_samples(rng: &mut Rng, n: usize, mean: &[f64], sd: f64) -> Vec<f64> {
    let d = mean.len();
    let mut x = Vec::with_capacity(n * d);
    for _ in 0..n {
        for m in mean {
            let z: f64 = rng.sample(StandardNormal);
            x.push(m + sd * z);
        }
    }
    x
}

/// Scores of the isotropic Gaussian N(mean, sd^2 I).
pub fn gaussian_scores(x: &[f64], mean: &[f64], sd: f64) -> Vec<f64> {
    let d = mean.len();
    x.iter().enumerate().map(|(p, v)| -(v - mean[p % d]) / (sd * sd)).collect()
}

/// Relative difference.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}
