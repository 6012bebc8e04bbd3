//! Small seeded training problems for the learning-rate experiments: softmax regression and a one-hidden-layer
//! tanh network (cross-entropy) on a classification data set, and the noisy quadratic model (Zhang et al.
//! 2019, "Which algorithmic choices matter at which batch sizes?", Sec. 3), where decaying the learning rate
//! provably helps. Optimisers: minibatch SGD and Adam (Kingma & Ba 2015, Algorithm 1).

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

use crate::math::{exp, tanh};
use crate::nn;
use crate::rng::Rng;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// The optimiser of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Optimizer {
    /// Plain minibatch SGD `w -= lr g`.
    #[default]
    Sgd,
    /// Adam with beta1 = 0.9, beta2 = 0.999, eps = 1e-8.
    Adam,
}

/// A training problem: stochastic gradients of a mean loss and the trace value.
pub trait TrainProblem: Send + Sync {
    /// Number of parameters.
    fn dim(&self) -> usize;
    /// Initial parameters (seeded).
    fn init(&self, rng: &mut Rng) -> Vec<f64>;
    /// `g = ` stochastic gradient of the mean training loss at `w` (minibatch or noise drawn from `rng`).
    fn stoch_grad(&self, w: &[f64], rng: &mut Rng, g: &mut [f64], scratch: &mut Vec<f64>);
    /// The trace value: training loss (on a fixed evaluation subset for data problems).
    fn trace_loss(&self, w: &[f64], scratch: &mut Vec<f64>) -> f64;
    /// Held-out loss (test split; the exact loss for the noisy quadratic).
    fn test_loss(&self, w: &[f64], scratch: &mut Vec<f64>) -> f64;
}

/// The model of a [`Classifier`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassifierKind {
    /// Multinomial logistic regression.
    Softmax,
    /// One hidden tanh layer of the given width.
    Mlp(usize),
}

/// Cross-entropy classification on row-major features with labels `0..k`.
#[derive(Debug, Clone)]
pub struct Classifier {
    pub kind: ClassifierKind,
    pub p: usize,
    pub k: usize,
    pub batch: usize,
    train_x: Vec<f64>,
    train_y: Vec<usize>,
    test_x: Vec<f64>,
    test_y: Vec<usize>,
    eval_idx: Vec<usize>,
}

impl Classifier {
    /// Builds the problem; `eval_idx` are the train rows whose mean loss is the trace value.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        kind: ClassifierKind,
        p: usize,
        k: usize,
        batch: usize,
        train_x: Vec<f64>,
        train_y: Vec<usize>,
        test_x: Vec<f64>,
        test_y: Vec<usize>,
        eval_idx: Vec<usize>,
    ) -> Self {
        Classifier { kind, p, k, batch, train_x, train_y, test_x, test_y, eval_idx }
    }

    fn hidden(&self) -> usize {
        match self.kind {
            ClassifierKind::Softmax => 0,
            ClassifierKind::Mlp(h) => h,
        }
    }

    /// Loss of one example; if `g` is given, adds `scale * ∇loss` to it. Layout: softmax `[W (k x p), b (k)]`;
    /// MLP `[W1 (h x p), b1 (h), W2 (k x h), b2 (k)]` ([`nn::Mlp1Layout`]). Dense layers from [`crate::nn`].
    fn example(&self, w: &[f64], x: &[f64], y: usize, g: Option<(&mut [f64], f64)>, s: &mut Vec<f64>) -> f64 {
        let (p, k, h) = (self.p, self.k, self.hidden());
        let need = h + k + h;
        if s.len() < need {
            s.resize(need, 0.0);
        }
        let (hid, rest) = s.split_at_mut(h);
        let (logits, rest) = rest.split_at_mut(k);
        let dh = &mut rest[..h];
        let l = nn::Mlp1Layout { p, h, k };
        let (feat, w2off): (&[f64], usize) = if h == 0 {
            (x, 0)
        } else {
            // hid = tanh(W1 x + b1)
            nn::dense_forward(&w[..l.b1()], &w[l.b1()..l.w2()], x, hid, tanh);
            (&*hid, l.w2())
        };
        let fdim = feat.len();
        let (w2, b2) = w[w2off..w2off + nn::dense_len(fdim, k)].split_at(k * fdim);
        // logits = W2 feat + b2
        nn::dense_forward(w2, b2, feat, logits, nn::identity);
        let lse = nn::log_sum_exp(logits);
        let loss = lse - logits[y];
        if let Some((g, scale)) = g {
            // δ = (softmax - onehot) scale: the cross-entropy's gradient w.r.t. the logits
            for c in 0..k {
                logits[c] = (exp(logits[c] - lse) - if c == y { 1.0 } else { 0.0 }) * scale;
            }
            let (g_in, g_out) = g.split_at_mut(w2off);
            let (gw2, gb2) = g_out[..nn::dense_len(fdim, k)].split_at_mut(k * fdim);
            nn::dense_backward_params(logits, feat, gw2, gb2);
            if h > 0 {
                // δ_hidden = (W2^T δ) (1 - hid^2)
                nn::dense_backward_input(logits, w2, dh);
                nn::tanh_backward(dh, hid);
                let (gw1, gb1) = g_in.split_at_mut(l.b1());
                nn::dense_backward_params(dh, x, gw1, gb1);
            }
        }
        loss
    }

    fn mean_loss(&self, w: &[f64], xs: &[f64], ys: &[usize], idx: Option<&[usize]>, s: &mut Vec<f64>) -> f64 {
        let p = self.p;
        let mut tot = 0.0;
        let mut cnt = 0usize;
        let mut one = |i: usize| {
            tot += self.example(w, &xs[i * p..(i + 1) * p], ys[i], None, s);
            cnt += 1;
        };
        match idx {
            Some(ix) => ix.iter().for_each(|&i| one(i)),
            None => (0..ys.len()).for_each(&mut one),
        }
        tot / cnt.max(1) as f64
    }
}

impl TrainProblem for Classifier {
    fn dim(&self) -> usize {
        let (p, k, h) = (self.p, self.k, self.hidden());
        if h == 0 {
            k * p + k
        } else {
            h * p + h + k * h + k
        }
    }
    fn init(&self, rng: &mut Rng) -> Vec<f64> {
        // Glorot-style scale for the weights, zero biases.
        let (p, k, h) = (self.p, self.k, self.hidden());
        let mut w = vec![0.0; self.dim()];
        let mut fill = |from: usize, len: usize, fan_in: usize, fan_out: usize, w: &mut [f64]| {
            let sd = (2.0 / (fan_in + fan_out) as f64).sqrt();
            for v in &mut w[from..from + len] {
                let e: f64 = StandardNormal.sample(rng);
                *v = sd * e;
            }
        };
        if h == 0 {
            fill(0, k * p, p, k, &mut w);
        } else {
            fill(0, h * p, p, h, &mut w);
            fill(h * p + h, k * h, h, k, &mut w);
        }
        w
    }
    fn stoch_grad(&self, w: &[f64], rng: &mut Rng, g: &mut [f64], s: &mut Vec<f64>) {
        g.iter_mut().for_each(|v| *v = 0.0);
        let n = self.train_y.len();
        let b = self.batch.min(n).max(1);
        let scale = 1.0 / b as f64;
        let p = self.p;
        for _ in 0..b {
            let i = rng.random_range(0..n);
            self.example(w, &self.train_x[i * p..(i + 1) * p], self.train_y[i], Some((&mut *g, scale)), s);
        }
    }
    fn trace_loss(&self, w: &[f64], s: &mut Vec<f64>) -> f64 {
        self.mean_loss(w, &self.train_x, &self.train_y, Some(&self.eval_idx), s)
    }
    fn test_loss(&self, w: &[f64], s: &mut Vec<f64>) -> f64 {
        self.mean_loss(w, &self.test_x, &self.test_y, None, s)
    }
}

/// Noisy quadratic model: loss `½ Σ h_i w_i²` with `h_i = 1/i`, stochastic gradient `h_i w_i + σ sqrt(h_i) ε_i`,
/// start `w_i ~ N(0, 1)`. With a constant rate SGD stalls at a noise floor proportional to the rate.
#[derive(Debug, Clone)]
pub struct NoisyQuadratic {
    pub curv: Vec<f64>,
    pub noise: f64,
}

impl NoisyQuadratic {
    pub fn new(dim: usize, noise: f64) -> Self {
        NoisyQuadratic { curv: (1..=dim).map(|i| 1.0 / i as f64).collect(), noise }
    }
    fn loss(&self, w: &[f64]) -> f64 {
        0.5 * self.curv.iter().zip(w).map(|(h, v)| h * v * v).sum::<f64>()
    }
}

impl TrainProblem for NoisyQuadratic {
    fn dim(&self) -> usize {
        self.curv.len()
    }
    fn init(&self, rng: &mut Rng) -> Vec<f64> {
        (0..self.dim()).map(|_| StandardNormal.sample(rng)).collect()
    }
    fn stoch_grad(&self, w: &[f64], rng: &mut Rng, g: &mut [f64], _s: &mut Vec<f64>) {
        for i in 0..w.len() {
            let e: f64 = StandardNormal.sample(rng);
            g[i] = self.curv[i] * w[i] + self.noise * self.curv[i].sqrt() * e;
        }
    }
    fn trace_loss(&self, w: &[f64], _s: &mut Vec<f64>) -> f64 {
        self.loss(w)
    }
    fn test_loss(&self, w: &[f64], _s: &mut Vec<f64>) -> f64 {
        self.loss(w)
    }
}

/// The state of one training run (cloned to duplicate a run).
#[derive(Debug, Clone)]
pub struct RunState {
    pub w: Vec<f64>,
    adam: crate::optim::Adam,
    /// Steps done.
    pub step: usize,
    /// The run diverged (non-finite or exploding loss); its trace stays at the cap.
    pub diverged: bool,
}

impl RunState {
    pub fn new(w: Vec<f64>) -> Self {
        let d = w.len();
        RunState { w, adam: crate::optim::Adam::new(d), step: 0, diverged: false }
    }
}

/// Runs `steps` optimiser steps at rate `lr`, recording `(step, trace loss)` every `record_every` steps
/// (and at the end). A loss above `cap` or non-finite marks the run diverged; its value is then `cap`.
#[allow(clippy::too_many_arguments)]
pub fn run_interval(
    pr: &dyn TrainProblem,
    opt: Optimizer,
    st: &mut RunState,
    lr: f64,
    steps: usize,
    record_every: usize,
    cap: f64,
    rng: &mut Rng,
    out: &mut Vec<(usize, f64)>,
) -> f64 {
    let d = st.w.len();
    let mut g = vec![0.0; d];
    let mut s = Vec::new();
    let mut last = f64::NAN;
    for i in 1..=steps {
        if !st.diverged {
            pr.stoch_grad(&st.w, rng, &mut g, &mut s);
            match opt {
                Optimizer::Sgd => {
                    for j in 0..d {
                        st.w[j] -= lr * g[j];
                    }
                }
                Optimizer::Adam => st.adam.descend(&mut st.w, &g, lr),
            }
        }
        st.step += 1;
        if i % record_every.max(1) == 0 || i == steps {
            let l = if st.diverged { cap } else { pr.trace_loss(&st.w, &mut s) };
            let l = if l.is_finite() && l <= cap {
                l
            } else {
                st.diverged = true;
                cap
            };
            out.push((st.step, l));
            last = l;
        }
    }
    last
}
