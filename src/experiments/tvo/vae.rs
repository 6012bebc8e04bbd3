//! A variational autoencoder with a continuous (diagonal Gaussian) latent, trained by the thermodynamic
//! variational objective (Masrani, Le & Wood, NeurIPS 2019), with the TVO's covariance gradient estimator, the
//! ELBO and the IWAE estimate of log p(x) (Burda, Grosse & Salakhutdinov 2016).
//!
//! Model: `p(z) = N(0, I_L)`, `p(x | z)` Bernoulli with logits `dec(z)` (or Gaussian with mean `dec(z)`, used
//! for the linear-Gaussian check), `q(z | x) = N(mu(x), diag exp(logvar(x)))` with `[mu, logvar] = enc(x)`.
//! `enc` and `dec` are tanh MLPs with a linear output layer (no hidden layer = a linear map).
//! Log weights `w_s = log p(x, z_s) - log q(z_s | x)`, `z_s ~ q(z | x)`.

use rand::RngExt;
use rand_distr::StandardNormal;

use crate::math::{exp, ln, ln_1p, tanh};
use crate::nn;
use crate::rng::Rng;
use crate::{Error, Result};

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// The likelihood `p(x | z)` given the decoder output `a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Likelihood {
    /// `x_i in {0, 1}`, logits `a_i`.
    Bernoulli,
    /// `x_i ~ N(a_i, sd^2)`.
    Gaussian { sd: f64 },
}

impl Likelihood {
    /// `log p(x | a)`; writes `d log p / d a` into `grad` when given.
    pub fn log_lik(&self, x: &[f64], a: &[f64], grad: Option<&mut [f64]>) -> f64 {
        match *self {
            Likelihood::Bernoulli => {
                let mut s = 0.0;
                for (xi, ai) in x.iter().zip(a) {
                    // x a - softplus(a), stable
                    let sp = if *ai > 0.0 { ai + ln_1p(exp(-ai)) } else { ln_1p(exp(*ai)) };
                    s += xi * ai - sp;
                }
                if let Some(g) = grad {
                    for ((gi, xi), ai) in g.iter_mut().zip(x).zip(a) {
                        *gi = xi - 1.0 / (1.0 + exp(-ai));
                    }
                }
                s
            }
            Likelihood::Gaussian { sd } => {
                let v = sd * sd;
                let mut s = -0.5 * x.len() as f64 * (LN_2PI + ln(v));
                for (xi, ai) in x.iter().zip(a) {
                    s -= (xi - ai).powi(2) / (2.0 * v);
                }
                if let Some(g) = grad {
                    for ((gi, xi), ai) in g.iter_mut().zip(x).zip(a) {
                        *gi = (xi - ai) / v;
                    }
                }
                s
            }
        }
    }
}

/// The layout of a tanh MLP with a linear last layer; layer `l` stores `W_l` (out x in, row major) then `b_l`
/// ([`nn::dense_len`]). Its layers sum from the bias ([`nn::dense_forward_bias_first`]), the order its pinned
/// reports were made with.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    pub sizes: Vec<usize>,
}

impl Mlp {
    pub fn n_params(&self) -> usize {
        self.sizes.windows(2).map(|w| nn::dense_len(w[0], w[1])).sum()
    }

    /// Forward pass; `acts[0]` = input, `acts[l + 1]` = output of layer `l` (tanh except the last).
    pub fn forward(&self, p: &[f64], x: &[f64], acts: &mut Vec<Vec<f64>>) {
        let nl = self.sizes.len() - 1;
        acts.resize(nl + 1, Vec::new());
        acts[0].clear();
        acts[0].extend_from_slice(x);
        let mut off = 0;
        for l in 0..nl {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let (w, b) = p[off..off + nn::dense_len(n_in, n_out)].split_at(n_in * n_out);
            off += nn::dense_len(n_in, n_out);
            let (prev, rest) = acts.split_at_mut(l + 1);
            let out = &mut rest[0];
            out.clear();
            out.resize(n_out, 0.0);
            // h_{l+1} = tanh(W_l h_l + b_l), linear at the last layer
            if l + 1 < nl {
                nn::dense_forward_bias_first(w, b, &prev[l], out, tanh);
            } else {
                nn::dense_forward_bias_first(w, b, &prev[l], out, nn::identity);
            }
        }
    }

    /// Backward pass: adds `d f / d params` to `g` given `dout = d f / d output` and the forward activations.
    pub fn backward(&self, p: &[f64], acts: &[Vec<f64>], dout: &[f64], g: &mut [f64], scratch: &mut Vec<f64>) {
        let nl = self.sizes.len() - 1;
        let mut offs = Vec::with_capacity(nl);
        let mut off = 0;
        for l in 0..nl {
            offs.push(off);
            off += nn::dense_len(self.sizes[l], self.sizes[l + 1]);
        }
        let mut delta: Vec<f64> = dout.to_vec();
        for l in (0..nl).rev() {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let o0 = offs[l];
            let inp = &acts[l];
            // dL/dW_l = delta h_l^T, dL/db_l = delta
            let (gw, gb) = g[o0..o0 + nn::dense_len(n_in, n_out)].split_at_mut(n_in * n_out);
            nn::dense_backward_params(&delta, inp, gw, gb);
            if l > 0 {
                scratch.clear();
                scratch.resize(n_in, 0.0);
                // dL/dh_l = W_l^T delta, then tanh' = 1 - h^2 at the input of this layer (= output of layer l - 1)
                nn::dense_backward_input(&delta, &p[o0..o0 + n_in * n_out], scratch);
                nn::tanh_backward(scratch, inp);
                delta.clear();
                delta.extend_from_slice(scratch);
            }
        }
    }
}

/// The VAE: layouts, likelihood and one flat parameter vector (encoder first, then decoder).
#[derive(Debug, Clone, PartialEq)]
pub struct Vae {
    pub x_dim: usize,
    pub latent: usize,
    pub enc: Mlp,
    pub dec: Mlp,
    pub lik: Likelihood,
    pub params: Vec<f64>,
}

/// Log weights of one data point's particles and what the gradient needs.
#[derive(Debug, Clone, Default)]
pub struct Particles {
    /// Standard normal draws `eps_s` (S x L).
    pub eps: Vec<f64>,
    /// `log p(x | z_s) + log p(z_s)` (S).
    pub log_joint: Vec<f64>,
    /// `log q(z_s | x)` (S).
    pub log_q: Vec<f64>,
}

impl Particles {
    pub fn log_weights(&self) -> Vec<f64> {
        self.log_joint.iter().zip(&self.log_q).map(|(p, q)| p - q).collect()
    }
}

/// Work buffers of one thread.
#[derive(Debug, Default)]
pub struct Scratch {
    acts_e: Vec<Vec<f64>>,
    acts_d: Vec<Vec<f64>>,
    da: Vec<f64>,
    tmp: Vec<f64>,
    z: Vec<f64>,
}

impl Vae {
    /// A VAE for `x_dim` inputs and `latent` latent dimensions with the given hidden sizes (encoder hidden
    /// layers `hidden`, decoder the reverse), weights `N(0, 1/fan_in)`, biases 0.
    pub fn new(x_dim: usize, latent: usize, hidden: &[usize], lik: Likelihood, rng: &mut Rng) -> Result<Vae> {
        if x_dim == 0 || latent == 0 || hidden.contains(&0) {
            return Err(Error::config("tvo: the VAE needs x_dim, latent and hidden sizes >= 1"));
        }
        let mut es = vec![x_dim];
        es.extend_from_slice(hidden);
        es.push(2 * latent);
        let mut ds = vec![latent];
        ds.extend(hidden.iter().rev());
        ds.push(x_dim);
        let enc = Mlp { sizes: es };
        let dec = Mlp { sizes: ds };
        let n = enc.n_params() + dec.n_params();
        let mut params = vec![0.0; n];
        let mut off = 0;
        for m in [&enc, &dec] {
            for w in m.sizes.windows(2) {
                let sd = 1.0 / (w[0] as f64).sqrt();
                for v in &mut params[off..off + w[0] * w[1]] {
                    *v = sd * rng.sample::<f64, _>(StandardNormal);
                }
                off += w[0] * w[1] + w[1];
            }
        }
        Ok(Vae { x_dim, latent, enc, dec, lik, params })
    }

    pub fn n_enc(&self) -> usize {
        self.enc.n_params()
    }

    /// Sets the decoder's output bias (e.g. to the logit of the mean pixel).
    pub fn set_output_bias(&mut self, b: &[f64]) {
        let n = self.params.len();
        self.params[n - self.x_dim..].copy_from_slice(b);
    }

    /// Encodes `x` and evaluates `S` particles with the given standard normal draws (`eps`, S x L).
    pub fn particles(&self, x: &[f64], eps: Vec<f64>, sc: &mut Scratch) -> Particles {
        let l = self.latent;
        let s_count = eps.len() / l;
        let (pe, pd) = self.params.split_at(self.n_enc());
        self.enc.forward(pe, x, &mut sc.acts_e);
        let out = &sc.acts_e[sc.acts_e.len() - 1];
        let (mu, lv) = out.split_at(l);
        let mut log_joint = Vec::with_capacity(s_count);
        let mut log_q = Vec::with_capacity(s_count);
        for s in 0..s_count {
            let e = &eps[s * l..(s + 1) * l];
            sc.z.clear();
            let mut lq = 0.0;
            let mut lp = 0.0;
            for j in 0..l {
                let z = mu[j] + exp(0.5 * lv[j]) * e[j];
                sc.z.push(z);
                lq += -0.5 * (LN_2PI + lv[j] + e[j] * e[j]);
                lp += -0.5 * (LN_2PI + z * z);
            }
            self.dec.forward(pd, &sc.z, &mut sc.acts_d);
            let a = &sc.acts_d[sc.acts_d.len() - 1];
            lp += self.lik.log_lik(x, a, None);
            log_joint.push(lp);
            log_q.push(lq);
        }
        Particles { eps, log_joint, log_q }
    }

    /// Draws `s` particles for `x`.
    pub fn sample_particles(&self, x: &[f64], s: usize, rng: &mut Rng, sc: &mut Scratch) -> Particles {
        let eps: Vec<f64> = (0..s * self.latent).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
        self.particles(x, eps, sc)
    }

    /// Adds `sum_s a_s grad log p(x, z_s) + b_s grad log q(z_s | x)` to `g`, the particles `z_s` held fixed
    /// (score-function form: no reparameterisation, as the covariance estimator needs).
    pub fn accumulate_grad(&self, x: &[f64], p: &Particles, a: &[f64], b: &[f64], g: &mut [f64], sc: &mut Scratch) {
        let l = self.latent;
        let ne = self.n_enc();
        let (pe, pd) = self.params.split_at(ne);
        let (ge, gd) = g.split_at_mut(ne);
        self.enc.forward(pe, x, &mut sc.acts_e);
        let out = sc.acts_e[sc.acts_e.len() - 1].clone();
        let (mu, lv) = out.split_at(l);
        let mut denc = vec![0.0; 2 * l];
        for (s, (&as_, &bs)) in a.iter().zip(b).enumerate() {
            let e = &p.eps[s * l..(s + 1) * l];
            // d log q(z | x) / d mu_j = eps_j / sigma_j; d / d logvar_j = (eps_j^2 - 1) / 2   (z fixed)
            for j in 0..l {
                denc[j] += bs * e[j] * exp(-0.5 * lv[j]);
                denc[l + j] += bs * 0.5 * (e[j] * e[j] - 1.0);
            }
            if as_ != 0.0 {
                sc.z.clear();
                for j in 0..l {
                    sc.z.push(mu[j] + exp(0.5 * lv[j]) * e[j]);
                }
                self.dec.forward(pd, &sc.z, &mut sc.acts_d);
                let a_out = &sc.acts_d[sc.acts_d.len() - 1];
                sc.da.resize(self.x_dim, 0.0);
                self.lik.log_lik(x, a_out, Some(&mut sc.da));
                for v in sc.da.iter_mut() {
                    *v *= as_;
                }
                self.dec.backward(pd, &sc.acts_d, &sc.da, gd, &mut sc.tmp);
            }
        }
        self.enc.backward(pe, &sc.acts_e, &denc, ge, &mut sc.tmp);
    }
}

/// `log sum_s exp(v_s)`.
pub fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + ln(v.iter().map(|x| exp(x - m)).sum::<f64>())
}

/// Self-normalised importance weights of `pi_beta` from `q`-samples: `softmax(beta w)`.
pub fn snis_weights(w: &[f64], beta: f64) -> Vec<f64> {
    let m = w.iter().map(|x| beta * x).fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = w.iter().map(|x| exp(beta * x - m)).collect();
    let z: f64 = e.iter().sum();
    e.into_iter().map(|v| v / z).collect()
}

/// `E_{pi_beta}[w]` by self-normalised importance sampling: the TVO integrand at `beta` (Masrani et al. 2019,
/// eq. 8: d/d beta log Z_beta = E_{pi_beta}[log p(x, z) - log q(z | x)]).
pub fn integrand(w: &[f64], beta: f64) -> f64 {
    snis_weights(w, beta).iter().zip(w).map(|(o, x)| o * x).sum()
}

/// The TVO lower bound by the left Riemann sum over `points` (sorted, `points[0] = 0`, right end 1):
/// `sum_k (beta_{k+1} - beta_k) E_{pi_beta_k}[w]` (Masrani et al. 2019, eq. 10; Nguyen et al. 2020, eq. 3).
pub fn tvo_bound(w: &[f64], points: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, &b) in points.iter().enumerate() {
        let next = points.get(k + 1).copied().unwrap_or(1.0);
        s += (next - b) * integrand(w, b);
    }
    s
}

/// Coefficients `(a_s, b_s)` of the TVO's covariance gradient estimator (Masrani et al. 2019, sec. 4 and
/// appendix; Nguyen et al. 2020, eqs. 4-5): for each term `k`,
/// `grad E_{pi_k}[w] = E_{pi_k}[grad w] + c Cov_{pi_k}(w, grad log pitilde_k)` with
/// `log pitilde_k = beta_k log p(x, z) + (1 - beta_k) log q(z | x)`, both expectations by SNIS over `q`-samples.
/// The gradient is `sum_s a_s grad log p(x, z_s) + b_s grad log q(z_s | x)`; `c` is the covariance's
/// small-sample correction (1 or `S / (S - 1)`). Returns the bound estimate too.
pub fn tvo_coefficients(w: &[f64], points: &[f64], c: f64) -> (f64, Vec<f64>, Vec<f64>) {
    let s_count = w.len();
    let mut a = vec![0.0; s_count];
    let mut b = vec![0.0; s_count];
    let mut bound = 0.0;
    for (k, &beta) in points.iter().enumerate() {
        let delta = points.get(k + 1).copied().unwrap_or(1.0) - beta;
        if delta == 0.0 {
            continue;
        }
        let om = snis_weights(w, beta);
        let e: f64 = om.iter().zip(w).map(|(o, x)| o * x).sum();
        bound += delta * e;
        for s in 0..s_count {
            let cov = c * om[s] * (w[s] - e);
            a[s] += delta * (om[s] + cov * beta);
            b[s] += delta * (-om[s] + cov * (1.0 - beta));
        }
    }
    (bound, a, b)
}

/// The IWAE estimate `log (1/K) sum_k exp(w_k)` of `log p(x)` (Burda et al. 2016, eq. 8) and the ELBO estimate
/// `mean_k w_k` from the same particles.
pub fn iwae_and_elbo(w: &[f64]) -> (f64, f64) {
    let k = w.len() as f64;
    (log_sum_exp(w) - ln(k), w.iter().sum::<f64>() / k)
}

/// `true` when every value is finite.
pub fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}
