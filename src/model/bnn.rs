//! Bayesian neural network classifier (the paper's App. B.3 setting): one hidden layer with a **tanh**
//! (default) or **softmax** activation ([`Activation`]; the paper's `beta = s(s(x B + b) A + a)` with `s` the
//! softmax in both layers, App. B.3.1, as the authors' code `models/bayesian_NN/NN_model.py`), softmax output
//! over `k` classes, independent `N(0, prior_var)` priors on every weight and bias.
//!
//! Parameter layout of `theta` (length `h p + h + k h + k`), in this order:
//! 1. `W1`, `h x p` row-major: `theta[j * p + i]` is the weight from input `i` to hidden unit `j`;
//! 2. `b1`, `h` hidden biases;
//! 3. `W2`, `k x h` row-major: weight from hidden unit `j` to class `c` at `c * h + j`;
//! 4. `b2`, `k` output biases.
//!
//! Gradients are hand-written backprop over blocks of rows with matrix products (gemm), using a
//! per-thread scratch buffer, so no allocation per call. The layout, the log-softmax and tanh' come from
//! [`crate::nn`]; the dense layers themselves stay matrix products here (a block of rows at a time, summed in
//! matrixmultiply's order, not the per-row loops of `nn::dense_forward`: sharing those would change the bits).

use super::Target;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::gemm;
use crate::math::{exp, tanh};
use crate::nn;
use crate::rng::Rng;
use rand_distr::{Distribution, Normal};
use std::cell::RefCell;
use std::sync::Arc;

/// Rows per block in backprop.
const BLOCK: usize = 64;

thread_local! {
    static SCRATCH: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// The hidden layer's activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// `tanh` per unit (tunelab's choice; the default).
    #[default]
    Tanh,
    /// `softmax` over the hidden units of a row (the paper's App. B.3.1).
    Softmax,
}

impl Activation {
    pub fn is_tanh(&self) -> bool {
        *self == Activation::Tanh
    }
    fn name(&self) -> &'static str {
        match self {
            Activation::Tanh => "tanh",
            Activation::Softmax => "softmax",
        }
    }
}

/// One-hidden-layer network (tanh or softmax units) with softmax output and Gaussian priors.
#[derive(Debug, Clone)]
pub struct Bnn {
    data: Arc<Dataset>,
    labels: Vec<usize>,
    p: usize,
    h: usize,
    k: usize,
    prior_var: f64,
    activation: Activation,
}

/// Offsets of the blocks of `theta`, from [`crate::nn::Mlp1Layout`].
#[derive(Clone, Copy)]
struct Layout {
    b1: usize,
    w2: usize,
    b2: usize,
    dim: usize,
}

impl Bnn {
    /// `hidden` units (>= 1), `n_classes` (>= 2; labels must be integers `0..n_classes`), `prior_var` > 0.
    pub fn new(data: Arc<Dataset>, hidden: usize, n_classes: usize, prior_var: f64) -> Result<Self> {
        if hidden == 0 {
            return Err(Error::config("bnn: hidden must be at least 1"));
        }
        if n_classes < 2 {
            return Err(Error::config(format!("bnn: needs at least 2 classes, got {n_classes}")));
        }
        if !(prior_var > 0.0 && prior_var.is_finite()) {
            return Err(Error::config(format!("bnn: prior_var must be positive and finite, got {prior_var}")));
        }
        if data.n == 0 || data.p == 0 {
            return Err(Error::data("bnn needs at least one row and one feature"));
        }
        data.check_class_labels(n_classes)?;
        let labels = data.y.iter().map(|&v| v as usize).collect();
        Ok(Self { p: data.p, h: hidden, k: n_classes, labels, data, prior_var, activation: Activation::Tanh })
    }

    /// The same network with the hidden activation `a`.
    pub fn with_activation(mut self, a: Activation) -> Self {
        self.activation = a;
        self
    }

    /// The hidden layer's activation.
    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.h
    }
    /// The data set.
    pub fn data(&self) -> &Arc<Dataset> {
        &self.data
    }
    /// Prior variance of every weight and bias.
    pub fn prior_var(&self) -> f64 {
        self.prior_var
    }

    fn layout(&self) -> Layout {
        let l = nn::Mlp1Layout { p: self.p, h: self.h, k: self.k };
        Layout { b1: l.b1(), w2: l.w2(), b2: l.b2(), dim: l.dim() }
    }

    /// A random starting point: weights `N(0, 1/fan_in)` (LeCun/Glorot-style scale), biases 0. Starting
    /// from all-zero weights leaves every hidden unit identical (a saddle point of the posterior).
    pub fn random_init(&self, rng: &mut Rng) -> Vec<f64> {
        let l = self.layout();
        let mut t = vec![0.0; l.dim];
        let n1 = Normal::new(0.0, (1.0 / self.p as f64).sqrt()).expect("positive sd");
        let n2 = Normal::new(0.0, (1.0 / self.h as f64).sqrt()).expect("positive sd");
        for v in &mut t[..l.b1] {
            *v = n1.sample(rng);
        }
        for v in &mut t[l.w2..l.b2] {
            *v = n2.sample(rng);
        }
        t
    }

    fn scratch_len(&self) -> usize {
        BLOCK * (self.p + 2 * self.h + self.k)
    }

    fn with_scratch<R>(&self, f: impl FnOnce(&mut [f64]) -> R) -> R {
        let len = self.scratch_len();
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => {
                if buf.len() < len {
                    buf.resize(len, 0.0);
                }
                f(&mut buf[..len])
            }
            // Re-entrant use on one thread (not expected): fall back to a fresh buffer.
            Err(_) => f(&mut vec![0.0; len]),
        })
    }

    /// Forward pass for `m` rows `xb` (`m x p`): hidden activations `hb` (`m x h`, tanh or softmax) and class
    /// log-probabilities `lp` (`m x k`).
    fn forward(&self, theta: &[f64], xb: &[f64], m: usize, hb: &mut [f64], lp: &mut [f64]) {
        let (p, h, k) = (self.p, self.h, self.k);
        let l = self.layout();
        let (hb, lp) = (&mut hb[..m * h], &mut lp[..m * k]);
        // A = X_b W1^T; W1^T[i, j] = theta[j * p + i].
        gemm(m, p, h, 1.0, xb, p, 1, &theta[..l.b1], 1, p, 0.0, hb, h, 1);
        let b1 = &theta[l.b1..l.w2];
        match self.activation {
            Activation::Tanh => {
                for row in hb.chunks_exact_mut(h) {
                    for (v, b) in row.iter_mut().zip(b1) {
                        *v = tanh(*v + b);
                    }
                }
            }
            Activation::Softmax => {
                for row in hb.chunks_exact_mut(h) {
                    for (v, b) in row.iter_mut().zip(b1) {
                        *v += b;
                    }
                    nn::softmax_in_place(row);
                }
            }
        }
        // logits = H W2^T + b2; W2^T[j, c] = theta[w2 + c * h + j].
        gemm(m, h, k, 1.0, hb, h, 1, &theta[l.w2..l.b2], 1, h, 0.0, lp, k, 1);
        let b2 = &theta[l.b2..l.dim];
        // log softmax: lp = logits - log sum exp(logits)
        for row in lp.chunks_exact_mut(k) {
            for (v, b) in row.iter_mut().zip(b2) {
                *v += b;
            }
            let lse = nn::log_sum_exp(row);
            row.iter_mut().for_each(|v| *v -= lse);
        }
    }

    /// Backprop over `m` rows: `out += sum_rows grad log p(y | x, theta)`.
    fn backprop_block(&self, theta: &[f64], xb: &[f64], labels: &[usize], out: &mut [f64], scratch: &mut [f64]) {
        let (p, h, k) = (self.p, self.h, self.k);
        let m = labels.len();
        let l = self.layout();
        let (hb, rest) = scratch.split_at_mut(BLOCK * h);
        let (dl, rest) = rest.split_at_mut(BLOCK * k);
        let da = &mut rest[..BLOCK * h];
        self.forward(theta, xb, m, hb, dl);
        let (hb, dl, da) = (&mut hb[..m * h], &mut dl[..m * k], &mut da[..m * h]);
        // D = onehot(y) - softmax.
        for (row, &y) in dl.chunks_exact_mut(k).zip(labels) {
            row.iter_mut().for_each(|v| *v = -exp(*v));
            row[y] += 1.0;
        }
        let (g_w1, g_rest) = out.split_at_mut(l.b1);
        let (g_b1, g_rest) = g_rest.split_at_mut(h);
        let (g_w2, g_b2) = g_rest.split_at_mut(k * h);
        // dW2 (k x h) += D^T H; D^T[c, i] = dl[i * k + c].
        gemm(k, m, h, 1.0, dl, 1, k, hb, h, 1, 1.0, g_w2, h, 1);
        for row in dl.chunks_exact(k) {
            for (g, v) in g_b2.iter_mut().zip(row) {
                *g += v;
            }
        }
        // dH = D W2 (m x h); then dA = dH * (1 - H^2).
        gemm(m, k, h, 1.0, dl, k, 1, &theta[l.w2..l.b2], h, 1, 0.0, da, h, 1);
        match self.activation {
            Activation::Tanh => nn::tanh_backward(da, hb),
            Activation::Softmax => {
                for (d, hr) in da.chunks_exact_mut(h).zip(hb.chunks_exact(h)) {
                    nn::softmax_backward(d, hr);
                }
            }
        }
        // dW1 (h x p) += dA^T X_b; dA^T[j, i] = da[i * h + j].
        gemm(h, m, p, 1.0, da, 1, h, xb, p, 1, 1.0, g_w1, p, 1);
        for row in da.chunks_exact(h) {
            for (g, v) in g_b1.iter_mut().zip(row) {
                *g += v;
            }
        }
    }
}

impl Target for Bnn {
    fn dim(&self) -> usize {
        self.layout().dim
    }
    fn n_data(&self) -> usize {
        self.data.n
    }
    fn log_prior(&self, theta: &[f64]) -> f64 {
        super::isotropic_log_prior(theta, self.prior_var)
    }
    fn add_grad_log_prior(&self, theta: &[f64], out: &mut [f64]) {
        super::add_isotropic_prior_grad(theta, self.prior_var, out)
    }
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        let p = self.p;
        self.with_scratch(|scratch| {
            let (xg, rest) = scratch.split_at_mut(BLOCK * p);
            let mut lab = [0usize; BLOCK];
            for chunk in idx.chunks(BLOCK) {
                for (r, &i) in chunk.iter().enumerate() {
                    xg[r * p..(r + 1) * p].copy_from_slice(self.data.row(i));
                    lab[r] = self.labels[i];
                }
                self.backprop_block(theta, &xg[..chunk.len() * p], &lab[..chunk.len()], out, rest);
            }
        })
    }
    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        let p = self.p;
        self.with_scratch(|scratch| {
            let rest = &mut scratch[BLOCK * p..];
            for (xb, lb) in self.data.x.chunks(BLOCK * p).zip(self.labels.chunks(BLOCK)) {
                self.backprop_block(theta, xb, lb, out, rest);
            }
        })
    }
    fn log_lik_point(&self, theta: &[f64], i: usize) -> f64 {
        let h = self.h;
        self.with_scratch(|scratch| {
            let (hb, lp) = scratch.split_at_mut(h);
            self.forward(theta, self.data.row(i), 1, hb, lp);
            lp[self.labels[i]]
        })
    }
    fn log_lik_full(&self, theta: &[f64]) -> f64 {
        let (p, h, k) = (self.p, self.h, self.k);
        self.with_scratch(|scratch| {
            let (hb, rest) = scratch.split_at_mut(BLOCK * h);
            let lp = &mut rest[..BLOCK * k];
            let mut total = 0.0;
            for (xb, lb) in self.data.x.chunks(BLOCK * p).zip(self.labels.chunks(BLOCK)) {
                self.forward(theta, xb, lb.len(), hb, lp);
                for (row, &y) in lp.chunks_exact(k).zip(lb) {
                    total += row[y];
                }
            }
            total
        })
    }
    fn n_classes(&self) -> usize {
        self.k
    }
    fn class_probs(&self, theta: &[f64], i: usize, out: &mut [f64]) {
        self.with_scratch(|scratch| {
            self.forward(theta, self.data.row(i), 1, &mut scratch[..self.h], &mut out[..self.k])
        });
        out[..self.k].iter_mut().for_each(|v| *v = exp(*v));
    }
    fn class_probs_all(&self, theta: &[f64], out: &mut [f64]) {
        let (p, h, k) = (self.p, self.h, self.k);
        self.with_scratch(|scratch| {
            let hb = &mut scratch[..BLOCK * h];
            for (xb, ob) in self.data.x.chunks(BLOCK * p).zip(out.chunks_mut(BLOCK * k)) {
                let m = xb.len() / p;
                self.forward(theta, xb, m, hb, &mut ob[..m * k]);
            }
        });
        out[..self.data.n * k].iter_mut().for_each(|v| *v = exp(*v));
    }
    fn label(&self, i: usize) -> usize {
        self.labels[i]
    }
    fn name(&self) -> String {
        format!(
            "BNN classifier ({} -> {} {} -> {} softmax, N = {}, d = {})",
            self.p,
            self.h,
            self.activation.name(),
            self.k,
            self.data.n,
            self.dim()
        )
    }
}
