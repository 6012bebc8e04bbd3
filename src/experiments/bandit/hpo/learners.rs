//! The learners the HPO bandit problems tune: an RBF SVM and kernel ridge classification (C, gamma) and a one-hidden-layer
//! MLP trained by minibatch SGD (width, L2, learning rate, batch, epochs), each scored by validation accuracy.

use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::StandardNormal;
use crate::data::Dataset;
use crate::rng::Rng;
use crate::math::exp;
use crate::nn;
use crate::svm::{rbf, Svc, SvcOptions};

/// RBF C-SVC ([`crate::svm`], one-vs-one for more than two classes): validation accuracy (a row whose decision
/// value is not finite counts as wrong).
pub(super) fn svm_accuracy(train: &Dataset, valid: &Dataset, k: usize, c: f64, gamma: f64) -> f64 {
    let labels: Vec<usize> = train.y.iter().map(|&y| y as usize).collect();
    let svc = Svc::fit(&train.x, train.p, &labels, k, c, gamma, &SvcOptions::new(c));
    let correct = (0..valid.n).filter(|&v| svc.predict(valid.row(v)) == Some(valid.y[v] as usize)).count();
    correct as f64 / valid.n as f64
}

/// RBF kernel ridge classification: validation accuracy (0 on a failed factorisation).
pub(super) fn kernel_ridge_accuracy(train: &Dataset, valid: &Dataset, k: usize, c: f64, gamma: f64) -> f64 {
    let n = train.n;
    let mut km = DMatrix::<f64>::zeros(n, n);
    for i in 0..n {
        for j in 0..=i {
            let v = rbf(train.row(i), train.row(j), gamma);
            km[(i, j)] = v;
            km[(j, i)] = v;
        }
        km[(i, i)] += 1.0 / c;
    }
    let Some(chol) = km.cholesky() else { return 0.0 };
    let cols = if k == 2 { 1 } else { k };
    let mut ymat = DMatrix::<f64>::from_element(n, cols, -1.0);
    for i in 0..n {
        let y = train.y[i] as usize;
        if k == 2 {
            ymat[(i, 0)] = if y == 1 { 1.0 } else { -1.0 };
        } else {
            ymat[(i, y)] = 1.0;
        }
    }
    let alpha = chol.solve(&ymat);
    let mut correct = 0usize;
    let mut kv = DVector::<f64>::zeros(n);
    for v in 0..valid.n {
        for i in 0..n {
            kv[i] = rbf(valid.row(v), train.row(i), gamma);
        }
        let scores = alpha.tr_mul(&kv);
        let pred = if k == 2 {
            usize::from(scores[0] > 0.0)
        } else {
            (0..k).fold(0, |b, j| if scores[j] > scores[b] { j } else { b })
        };
        if scores.iter().all(|s| s.is_finite()) && pred == valid.y[v] as usize {
            correct += 1;
        }
    }
    correct as f64 / valid.n as f64
}

/// The weight penalty of the network's loss (biases are not penalised).
#[derive(Debug, Clone, Copy)]
pub(super) enum Penalty {
    /// `l2/2 |W|^2` on the minibatch's mean loss: a step adds `lr l2 W`.
    L2(f64),
    /// scikit-learn's MLPClassifier `alpha`: `alpha/2 |W|^2` on the minibatch's summed loss (its `_backprop`:
    /// `coef_grads = (X^T delta + alpha W) / n_samples`, `n_samples` the minibatch's rows), so a step adds
    /// `lr alpha / b W` for a minibatch of `b` rows; alpha = 0 is no penalty.
    Alpha(f64),
}

pub(super) struct MlpOpts {
    pub(super) lr: f64,
    pub(super) width: usize,
    pub(super) penalty: Penalty,
    pub(super) batch: usize,
    pub(super) epochs: usize,
}

/// The trained weights of the HPO network: `W1` (`h x p`), `b1`, `W2` (`k x h`), `b2` (dense layers of
/// [`crate::nn`]).
pub(super) struct MlpWeights {
    pub(super) h: usize,
    pub(super) w1: Vec<f64>,
    pub(super) b1: Vec<f64>,
    pub(super) w2: Vec<f64>,
    pub(super) b2: Vec<f64>,
}

impl MlpWeights {
    /// Hidden ReLU activations `hid = relu(W1 x + b1)` and output logits `out = W2 hid + b2` of row `x`.
    fn forward(&self, x: &[f64], hid: &mut [f64], out: &mut [f64]) {
        nn::dense_forward(&self.w1, &self.b1, x, hid, nn::relu);
        nn::dense_forward(&self.w2, &self.b2, hid, out, nn::identity);
    }
}

/// One-hidden-layer ReLU network by minibatch SGD (cross-entropy + the [`Penalty`], biases unpenalised); validation
/// accuracy (diverged weights predict nothing: 0).
pub(super) fn mlp_accuracy(train: &Dataset, valid: &Dataset, k: usize, o: &MlpOpts, rng: &mut Rng) -> f64 {
    let Some(net) = mlp_train(train, k, o, rng) else { return 0.0 };
    let (mut hid, mut out) = (vec![0.0; net.h], vec![0.0; k]);
    let mut correct = 0;
    for v in 0..valid.n {
        net.forward(valid.row(v), &mut hid, &mut out);
        if out.iter().all(|s| s.is_finite()) {
            let pred = (0..k).fold(0, |b, j| if out[j] > out[b] { j } else { b });
            if pred == valid.y[v] as usize {
                correct += 1;
            }
        }
    }
    correct as f64 / valid.n as f64
}

/// The training of [`mlp_accuracy`]; `None` when the weights diverge (checked after each epoch).
pub(super) fn mlp_train(train: &Dataset, k: usize, o: &MlpOpts, rng: &mut Rng) -> Option<MlpWeights> {
    let (p, h) = (train.p, o.width.max(1));
    let he = |fan: usize| (2.0 / fan as f64).sqrt();
    let w1: Vec<f64> = (0..h * p).map(|_| he(p) * rng.sample::<f64, _>(StandardNormal)).collect();
    let b1 = vec![0.0; h];
    let w2: Vec<f64> = (0..k * h).map(|_| he(h) * rng.sample::<f64, _>(StandardNormal)).collect();
    let b2 = vec![0.0; k];
    let mut net = MlpWeights { h, w1, b1, w2, b2 };
    let (mut g1, mut gb1, mut g2, mut gb2) = (vec![0.0; h * p], vec![0.0; h], vec![0.0; k * h], vec![0.0; k]);
    let mut idx: Vec<usize> = (0..train.n).collect();
    let mut hid = vec![0.0; h];
    let mut out = vec![0.0; k];
    let mut dh = vec![0.0; h];
    let mut dl = vec![0.0; k];
    for _ in 0..o.epochs {
        for i in (1..idx.len()).rev() {
            let j = rng.random_range(0..=i);
            idx.swap(i, j);
        }
        for chunk in idx.chunks(o.batch.max(1)) {
            g1.iter_mut().chain(gb1.iter_mut()).chain(g2.iter_mut()).chain(gb2.iter_mut()).for_each(|v| *v = 0.0);
            for &r in chunk {
                let x = train.row(r);
                net.forward(x, &mut hid, &mut out);
                let (m, z) = nn::max_and_sum_exp(&out);
                let y = train.y[r] as usize;
                // δ = softmax - onehot (the cross-entropy's gradient w.r.t. the logits)
                for c in 0..k {
                    dl[c] = exp(out[c] - m) / z - f64::from(u8::from(c == y));
                }
                nn::dense_backward_params(&dl, &hid, &mut g2, &mut gb2);
                // δ_hidden = (W2^T δ) [hid > 0]; the masked rows add nothing to g1, gb1 (x is finite)
                nn::dense_backward_input(&dl, &net.w2, &mut dh);
                nn::relu_backward(&mut dh, &hid);
                nn::dense_backward_params(&dh, x, &mut g1, &mut gb1);
            }
            let s = o.lr / chunk.len() as f64;
            // the penalty's gradient is decay x W (alpha = 0: decay 0, the step is the unpenalised one)
            let decay = match o.penalty {
                Penalty::L2(l2) => o.lr * l2,
                Penalty::Alpha(a) => s * a,
            };
            for (w, g) in net.w1.iter_mut().zip(&g1) {
                *w -= s * g + decay * *w;
            }
            for (w, g) in net.w2.iter_mut().zip(&g2) {
                *w -= s * g + decay * *w;
            }
            for (b, g) in net.b1.iter_mut().zip(&gb1) {
                *b -= s * g;
            }
            for (b, g) in net.b2.iter_mut().zip(&gb2) {
                *b -= s * g;
            }
        }
        if !net.w2.iter().chain(net.w1.iter()).all(|v| v.is_finite()) {
            return None;
        }
    }
    Some(net)
}
