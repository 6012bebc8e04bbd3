//! Probabilistic matrix factorisation (Salakhutdinov & Mnih 2008; the paper's section 4.2 / appendix B.2 on
//! MovieLens), with two priors:
//! - **fixed** (tunelab's own, not the paper's; the default): ratings `R_ij ~ N(mean + U_i . V_j, 1 / tau)`, priors
//!   `U_i ~ N(0, I / lambda)`, `V_j ~ N(0, I / lambda)` with fixed precisions, `mean` the training mean rating.
//!   Parameter layout of `theta` (length `(users + items) latent`): `U` (users x latent, row-major), then `V`.
//! - **hierarchical** (the paper's App. B.2.1: `theta = (U, mu_U, Lambda_U, V, mu_V, Lambda_V)`, `tau = (alpha,
//!   mu_0, a_0, b_0) = (3, 0, 4, 5)`): `R_ij ~ N(U_i . V_j, 1 / alpha)`, `W_i ~ N(mu_W, Lambda_W^-1)`,
//!   `mu_W ~ N(mu_0, Lambda_W^-1)`, `Lambda_W = diag(lambda_W)`, `lambda_Wk ~ Gamma(a_0, b_0)` (shape, rate),
//!   for `W = U, V`. **The text does not contain** the likelihood and prior equations (images); these forms are
//!   the authors' code (github.com/jeremiecoullon/SGMCMC_bandit_tuning, `models/PMF/pmf_model.py`): diagonal
//!   precisions, sampled as `log lambda` (so that SG-MCMC moves on R; the log-Jacobian is in the density), no
//!   centring of the ratings. Layout: `U`, `V` as above, then `mu_U`, `log lambda_U`, `mu_V`, `log lambda_V`
//!   (`latent` each): length `(users + items + 4) latent`.
//!
//! The data is a ratings [`Dataset`] (`crate::data::ratings`): columns `user`, `item` (0-based indices),
//! label = the rating.

use super::Target;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::math::ln;
use std::sync::Arc;

/// The hierarchical prior's hyper-parameters (App. B.2.1's `tau`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmfHyper {
    /// Noise precision of a rating.
    pub alpha: f64,
    /// Prior mean of `mu_U`, `mu_V`.
    pub mu0: f64,
    /// Gamma shape and rate of each precision `lambda_Wk`.
    pub a0: f64,
    pub b0: f64,
}

impl PmfHyper {
    /// The paper's `(alpha, mu_0, a_0, b_0) = (3, 0, 4, 5)` (App. B.2.1).
    pub const PAPER: PmfHyper = PmfHyper { alpha: 3.0, mu0: 0.0, a0: 4.0, b0: 5.0 };
}

/// PMF posterior over the user and item factors (and, hierarchical, their means and log precisions).
#[derive(Debug, Clone)]
pub struct Pmf {
    data: Arc<Dataset>,
    pairs: Vec<(u32, u32)>,
    users: usize,
    items: usize,
    latent: usize,
    lambda: f64,
    tau: f64,
    mean: f64,
    hyper: Option<PmfHyper>,
}

impl Pmf {
    /// `users` x `items` factors of size `latent` (every user and item index of `data` must be below them),
    /// prior precision `lambda`, noise precision `tau`, ratings centred on `mean`.
    pub fn new(
        data: Arc<Dataset>,
        users: usize,
        items: usize,
        latent: usize,
        lambda: f64,
        tau: f64,
        mean: f64,
    ) -> Result<Self> {
        if latent == 0 || users == 0 || items == 0 {
            return Err(Error::config("pmf: users, items and latent must be at least 1"));
        }
        if !(lambda > 0.0 && lambda.is_finite() && tau > 0.0 && tau.is_finite() && mean.is_finite()) {
            return Err(Error::config("pmf: the precisions must be positive and finite"));
        }
        if data.p != 2 {
            return Err(Error::data(format!("pmf needs ratings with two columns (user, item), got {}", data.p)));
        }
        let line = |r: usize| data.source_lines.get(r).map_or(format!("row {}", r + 1), |l| format!("line {l}"));
        let mut pairs = Vec::with_capacity(data.n);
        for (r, row) in data.x.chunks_exact(2).enumerate() {
            let (u, i) = (row[0], row[1]);
            if !(u >= 0.0
                && u.fract() == 0.0
                && (u as usize) < users
                && i >= 0.0
                && i.fract() == 0.0
                && (i as usize) < items)
            {
                return Err(Error::data(format!(
                    "pmf: {}: user {u} / item {i} outside the {users} x {items} factors",
                    line(r)
                )));
            }
            if !data.y[r].is_finite() {
                return Err(Error::data(format!("pmf: {}: the rating is not finite", line(r))));
            }
            pairs.push((u as u32, i as u32));
        }
        Ok(Self { data, pairs, users, items, latent, lambda, tau, mean, hyper: None })
    }

    /// The paper's hierarchical PMF (App. B.2.1, module doc) with hyper-parameters `hyper`; ratings not centred.
    pub fn hierarchical(
        data: Arc<Dataset>,
        users: usize,
        items: usize,
        latent: usize,
        hyper: PmfHyper,
    ) -> Result<Self> {
        let PmfHyper { alpha, mu0, a0, b0 } = hyper;
        if !(alpha > 0.0
            && alpha.is_finite()
            && mu0.is_finite()
            && a0 > 0.0
            && a0.is_finite()
            && b0 > 0.0
            && b0.is_finite())
        {
            return Err(Error::config("pmf: alpha, a0 and b0 must be positive and finite, mu0 finite"));
        }
        let mut t = Self::new(data, users, items, latent, 1.0, alpha, 0.0)?;
        t.hyper = Some(hyper);
        Ok(t)
    }

    /// The hierarchical prior's hyper-parameters (`None`: fixed precisions).
    pub fn hyper(&self) -> Option<PmfHyper> {
        self.hyper
    }

    /// Offset of `mu_U` in theta (hierarchical layout; `mu_V` is at `+ 2 latent`).
    fn hyper_offset(&self) -> usize {
        (self.users + self.items) * self.latent
    }

    /// Hierarchical log prior of one group `W` (rows `[from, to)` of factors, mean at `mu`, log precisions at
    /// `ll`), and its gradient added to `out` when given.
    fn group_prior(
        &self,
        h: &PmfHyper,
        theta: &[f64],
        rows: std::ops::Range<usize>,
        mu: usize,
        ll: usize,
        mut out: Option<&mut [f64]>,
    ) -> f64 {
        let l = self.latent;
        let n = rows.len() as f64;
        let mut lp = 0.0;
        for k in 0..l {
            let (m, g) = (theta[mu + k], theta[ll + k]);
            let lam = crate::math::exp(g);
            // W_ik ~ N(mu_k, 1 / lam_k): -lam/2 (W - mu)^2 + g/2 per row
            let mut ss = 0.0;
            let mut sd = 0.0;
            for r in rows.clone() {
                let dlt = theta[r * l + k] - m;
                ss += dlt * dlt;
                sd += dlt;
                if let Some(o) = out.as_deref_mut() {
                    o[r * l + k] -= lam * dlt;
                }
            }
            // mu_k ~ N(mu0, 1 / lam_k); lam_k ~ Gamma(a0, b0) in g = log lam: (a0 - 1) g - b0 lam + g
            let dm = m - h.mu0;
            lp += -0.5 * lam * ss + 0.5 * n * g - 0.5 * lam * dm * dm + 0.5 * g + h.a0 * g - h.b0 * lam;
            if let Some(o) = out.as_deref_mut() {
                o[mu + k] += lam * sd - lam * dm;
                o[ll + k] += -0.5 * lam * ss + 0.5 * n - 0.5 * lam * dm * dm + 0.5 + h.a0 - h.b0 * lam;
            }
        }
        lp
    }

    /// Users, items, latent factors.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.users, self.items, self.latent)
    }
    /// The centring mean rating.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Predicted rating of data point `r` under `theta`.
    pub fn predict(&self, theta: &[f64], r: usize) -> f64 {
        let (u, i) = self.pairs[r];
        let l = self.latent;
        let (uo, vo) = (u as usize * l, (self.users + i as usize) * l);
        self.mean + (0..l).map(|k| theta[uo + k] * theta[vo + k]).sum::<f64>()
    }

    /// Root mean squared error of the posterior-mean prediction (the average over rows of `samples` of the
    /// predicted ratings) on this target's ratings: the paper's Table 2 test RMSE.
    pub fn rmse(&self, samples: &[f64]) -> f64 {
        let d = self.dim();
        let s = samples.len() / d;
        if s == 0 {
            return f64::INFINITY;
        }
        let mut se = 0.0;
        for r in 0..self.data.n {
            let p = samples.chunks_exact(d).map(|t| self.predict(t, r)).sum::<f64>() / s as f64;
            se += (p - self.data.y[r]).powi(2);
        }
        (se / self.data.n as f64).sqrt()
    }
}

impl Target for Pmf {
    fn dim(&self) -> usize {
        (self.users + self.items + if self.hyper.is_some() { 4 } else { 0 }) * self.latent
    }
    fn n_data(&self) -> usize {
        self.data.n
    }
    fn log_prior(&self, theta: &[f64]) -> f64 {
        match &self.hyper {
            None => -0.5 * self.lambda * theta.iter().map(|t| t * t).sum::<f64>(),
            Some(h) => {
                let (o, l) = (self.hyper_offset(), self.latent);
                self.group_prior(h, theta, 0..self.users, o, o + l, None)
                    + self.group_prior(h, theta, self.users..self.users + self.items, o + 2 * l, o + 3 * l, None)
            }
        }
    }
    fn add_grad_log_prior(&self, theta: &[f64], out: &mut [f64]) {
        match &self.hyper {
            None => {
                for (o, t) in out.iter_mut().zip(theta) {
                    *o -= self.lambda * t;
                }
            }
            Some(h) => {
                let (o, l) = (self.hyper_offset(), self.latent);
                self.group_prior(h, theta, 0..self.users, o, o + l, Some(out));
                self.group_prior(h, theta, self.users..self.users + self.items, o + 2 * l, o + 3 * l, Some(out));
            }
        }
    }
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        let l = self.latent;
        for &r in idx {
            let (u, i) = self.pairs[r];
            let (uo, vo) = (u as usize * l, (self.users + i as usize) * l);
            // d/dU_i [-tau/2 (R - mean - U.V)^2] = tau e V, and symmetrically for V.
            let e = self.tau * (self.data.y[r] - self.predict(theta, r));
            for k in 0..l {
                out[uo + k] += e * theta[vo + k];
                out[vo + k] += e * theta[uo + k];
            }
        }
    }
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let idx: Vec<usize> = (0..self.data.n).collect();
        self.add_grad_log_lik(theta, &idx, out);
    }
    fn log_lik_point(&self, theta: &[f64], r: usize) -> f64 {
        let e = self.data.y[r] - self.predict(theta, r);
        0.5 * ln(self.tau / (2.0 * std::f64::consts::PI)) - 0.5 * self.tau * e * e
    }
    fn pmf_shape(&self) -> Option<(usize, usize, f64)> {
        Some((self.users, self.items, self.mean))
    }
    fn predictive_rmse(&self, samples: &[f64]) -> Option<f64> {
        Some(self.rmse(samples))
    }
    fn name(&self) -> String {
        let prior = if self.hyper.is_some() { "hierarchical " } else { "" };
        format!(
            "{prior}PMF ({} users x {} items, {} factors, N = {}, d = {})",
            self.users,
            self.items,
            self.latent,
            self.data.n,
            self.dim()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn gradients_match_finite_differences() {
        let mut r = crate::rng::stream(5, 0);
        let ds = crate::data::ratings::simulate_ratings(7, 9, 30, 3, 2.0, 1.0, 3.0, &mut r).unwrap();
        let t = Pmf::new(Arc::new(ds), 7, 9, 3, 2.0, 1.5, 3.0).unwrap();
        let theta: Vec<f64> = (0..t.dim()).map(|_| r.random::<f64>() - 0.5).collect();
        let mut g = vec![0.0; t.dim()];
        t.grad_log_density(&theta, &mut g);
        let mut x = theta.clone();
        for j in 0..t.dim() {
            let h = 1e-6;
            x[j] = theta[j] + h;
            let fp = t.log_density(&x);
            x[j] = theta[j] - h;
            let fm = t.log_density(&x);
            x[j] = theta[j];
            let fd = (fp - fm) / (2.0 * h);
            assert!((fd - g[j]).abs() < 1e-6 * (1.0 + g[j].abs()), "coordinate {j}: {fd} vs {}", g[j]);
        }
        // RMSE of one sample = sqrt(mean squared residual).
        let direct = ((0..t.n_data()).map(|k| (t.predict(&theta, k) - t.data.y[k]).powi(2)).sum::<f64>()
            / t.n_data() as f64)
            .sqrt();
        assert!((t.rmse(&theta) - direct).abs() < 1e-12);
    }

    #[test]
    fn indices_outside_the_factors_are_typed_errors() {
        let ds = crate::data::ratings::parse_ratings("1,1,5\n3,2,4\n").unwrap();
        let e = Pmf::new(Arc::new(ds), 2, 2, 2, 1.0, 1.0, 3.0).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }
}
