//! Targets (posterior distributions).
//!
//! A [`Target`] gives densities and gradients on slices; it never allocates per call on hot paths.
//! Data-free targets (Gaussian, 2-D toys) report `n_data() == 1` and put their whole log density in the
//! "likelihood" of the single data point, so that every sampler works on every target.

/// The [`Target`] methods of a density with no data: one pseudo data point carrying the whole log density
/// (`add_grad_log_lik_full`), no separate prior, and a minibatch gradient that is `|idx|` copies of it.
macro_rules! dataless_target {
    () => {
        fn n_data(&self) -> usize {
            1
        }
        fn log_prior(&self, _theta: &[f64]) -> f64 {
            0.0
        }
        fn add_grad_log_prior(&self, _theta: &[f64], _out: &mut [f64]) {}
        fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
            for _ in idx {
                self.add_grad_log_lik_full(theta, out);
            }
        }
    };
}

pub mod bnn;
pub mod fastmath;
pub mod gaussian;
pub mod linear;
pub mod logistic;
pub mod pmf;
mod spec;
pub mod toys;

pub use bnn::{Activation, Bnn};
pub use gaussian::Gaussian;
pub use linear::LinearRegression;
pub use logistic::LogisticRegression;
pub use pmf::{Pmf, PmfHyper};
pub use spec::{build_target, full_scores, ModelSpec, PmfPrior};
pub use toys::{density_grid, log_density_grid, Banana, Mixture2d};

/// log N(theta; 0, var I) up to its constant: `-|theta|^2 / (2 var)` (the isotropic Gaussian prior of the
/// logistic regression and the Bayesian network).
pub(crate) fn isotropic_log_prior(theta: &[f64], var: f64) -> f64 {
    -0.5 * theta.iter().map(|t| t * t).sum::<f64>() / var
}

/// Adds the gradient of [`isotropic_log_prior`], `-theta / var`, to `out`.
pub(crate) fn add_isotropic_prior_grad(theta: &[f64], var: f64, out: &mut [f64]) {
    let s = 1.0 / var;
    for (o, t) in out.iter_mut().zip(theta) {
        *o -= s * t;
    }
}

/// A posterior `p(theta | data) ∝ p(theta) prod_i p(y_i | theta)`.
///
/// All gradient methods *accumulate* into `out` (`out += ...`), so callers can build the
/// stochastic-gradient estimate without scratch buffers:
/// `grad U(theta) ≈ grad log p(theta) + (N/n) sum_{i in batch} grad log p(y_i | theta)`
/// (Welling & Teh 2011, eq. 4; Nemeth & Fearnhead 2021, eq. 3).
pub trait Target: Send + Sync {
    /// Dimension of theta.
    fn dim(&self) -> usize;
    /// Number of data points N (1 for data-free targets).
    fn n_data(&self) -> usize;
    /// Log prior density (up to a constant).
    fn log_prior(&self, theta: &[f64]) -> f64;
    /// `out += grad log p(theta)`.
    fn add_grad_log_prior(&self, theta: &[f64], out: &mut [f64]);
    /// `out += sum_{i in idx} grad log p(y_i | theta)` (not scaled by N/n).
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]);
    /// `out += sum_{i=1}^N grad log p(y_i | theta)`.
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]);
    /// `log p(y_i | theta)` for one data point.
    fn log_lik_point(&self, theta: &[f64], i: usize) -> f64;
    /// `sum_i log p(y_i | theta)`.
    fn log_lik_full(&self, theta: &[f64]) -> f64 {
        (0..self.n_data()).map(|i| self.log_lik_point(theta, i)).sum()
    }
    /// Log posterior density up to a constant.
    fn log_density(&self, theta: &[f64]) -> f64 {
        self.log_prior(theta) + self.log_lik_full(theta)
    }
    /// `out = grad log p(theta | data)` (overwrites `out`), using all the data.
    fn grad_log_density(&self, theta: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.add_grad_log_lik_full(theta, out);
        self.add_grad_log_prior(theta, out);
    }
    /// `out = grad log p(theta) + (N/|idx|) sum_{i in idx} grad log p(y_i|theta)` (overwrites `out`):
    /// the unbiased stochastic-gradient estimate.
    fn grad_estimate(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        self.add_grad_log_lik(theta, idx, out);
        if !idx.is_empty() {
            let s = self.n_data() as f64 / idx.len() as f64;
            if s != 1.0 {
                out.iter_mut().for_each(|o| *o *= s);
            }
        }
        self.add_grad_log_prior(theta, out);
    }
    /// Full-data scores for many samples at once: `out[s*d..(s+1)*d] = grad log p(theta_s | data)` for each
    /// row `theta_s` of `thetas` (row-major, `d = dim()`). Targets with data override this with a blocked
    /// (matrix-matrix) implementation; this is the hot loop of KSD scoring.
    fn grad_log_density_many(&self, thetas: &[f64], out: &mut [f64]) {
        let d = self.dim();
        for (t, o) in thetas.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
            self.grad_log_density(t, o);
        }
    }
    /// Number of classes for classifiers (0 when the target is not a classifier).
    fn n_classes(&self) -> usize {
        0
    }
    /// For classifiers: write `p(class | x_i, theta)` into `out` (length `n_classes()`).
    fn class_probs(&self, _theta: &[f64], _i: usize, _out: &mut [f64]) {}
    /// For classifiers: `out[i * k..(i + 1) * k] = p(class | x_i, theta)` for every data point (`k =
    /// n_classes()`, `out` of length `n_data() * k`). Classifiers with data override this with a blocked pass.
    fn class_probs_all(&self, theta: &[f64], out: &mut [f64]) {
        let k = self.n_classes();
        if k == 0 {
            return;
        }
        for (i, o) in out.chunks_exact_mut(k).enumerate().take(self.n_data()) {
            self.class_probs(theta, i, o);
        }
    }
    /// For classifiers: the label of data point `i` as a class index.
    fn label(&self, _i: usize) -> usize {
        0
    }
    /// PMF targets: `(users, items, mean rating)` (the test split keeps the training layout).
    fn pmf_shape(&self) -> Option<(usize, usize, f64)> {
        None
    }
    /// Rating models: RMSE of the posterior-mean prediction of `samples` on this target's data.
    fn predictive_rmse(&self, _samples: &[f64]) -> Option<f64> {
        None
    }
    /// Exact posterior mean and covariance (row-major d x d) when known in closed form.
    fn exact_moments(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        None
    }
    /// A short human-readable name.
    fn name(&self) -> String;
}
