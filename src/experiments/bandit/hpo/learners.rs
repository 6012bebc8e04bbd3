//! The learners the HPO bandit problems tune: an RBF SVM and kernel ridge classification (C, gamma) and a one-hidden-layer
//! MLP trained by minibatch SGD or scikit-learn's Adam (width, L2, learning rate, batch, epochs), each scored by validation accuracy.

use super::Solver;
use crate::data::Dataset;
use crate::math::{exp, ln};
use crate::nn;
use crate::optim::adam::Adam;
use crate::rng::Rng;
use crate::svm::{rbf, Svc, SvcOptions};
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use rand_distr::StandardNormal;

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
    pub(super) solver: Solver,
}

/// The trained weights of the HPO network: `W1` (`h x p`), `b1`, `W2` (`k x h`), `b2` (dense layers of
/// [`crate::nn`]).
pub(super) struct MlpWeights {
    pub(super) h: usize,
    pub(super) w1: Vec<f64>,
    pub(super) b1: Vec<f64>,
    pub(super) w2: Vec<f64>,
    pub(super) b2: Vec<f64>,
    /// Epochs trained (below `epochs` when scikit-learn's stopping rule ended the training).
    pub(super) epochs_run: usize,
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

/// Tolerance and patience of scikit-learn's stopping rule for `solver="adam"` (its defaults `tol`, `n_iter_no_change`).
const SK_TOL: f64 = 1e-4;
const SK_NO_CHANGE: usize = 10;

/// scikit-learn's `_update_no_improvement_count` without a validation split, and `_fit_stochastic`'s test after
/// it: an epoch whose loss is above `best - tol` counts, any other resets the count; stop once the count exceeds
/// `patience`.
#[derive(Debug, Clone)]
pub(super) struct NoImprovement {
    best: f64,
    count: usize,
    tol: f64,
    patience: usize,
}

impl NoImprovement {
    pub(super) fn new(tol: f64, patience: usize) -> Self {
        NoImprovement { best: f64::INFINITY, count: 0, tol, patience }
    }

    /// Records an epoch's loss; true when training stops after it.
    pub(super) fn stop_after(&mut self, loss: f64) -> bool {
        if loss > self.best - self.tol {
            self.count += 1;
        } else {
            self.count = 0;
        }
        if loss < self.best {
            self.best = loss;
        }
        self.count > self.patience
    }
}

/// Gradient buffers of the network's parameters (`W1`, `b1`, `W2`, `b2`) and the work space of one row.
pub(super) struct Grads {
    pub(super) g1: Vec<f64>,
    pub(super) gb1: Vec<f64>,
    pub(super) g2: Vec<f64>,
    pub(super) gb2: Vec<f64>,
    hid: Vec<f64>,
    out: Vec<f64>,
    dh: Vec<f64>,
    dl: Vec<f64>,
}

impl Grads {
    pub(super) fn new(p: usize, h: usize, k: usize) -> Self {
        let z = |n: usize| vec![0.0; n];
        Grads { g1: z(h * p), gb1: z(h), g2: z(k * h), gb2: z(k), hid: z(h), out: z(k), dh: z(h), dl: z(k) }
    }

    /// The summed cross-entropy gradient of the rows `chunk` into `g*` (zeroed first); returns their summed
    /// cross-entropy when `loss` is set (0 otherwise).
    pub(super) fn minibatch(&mut self, net: &MlpWeights, train: &Dataset, chunk: &[usize], loss: bool) -> f64 {
        let Grads { g1, gb1, g2, gb2, hid, out, dh, dl } = self;
        let k = out.len();
        g1.iter_mut().chain(gb1.iter_mut()).chain(g2.iter_mut()).chain(gb2.iter_mut()).for_each(|v| *v = 0.0);
        let mut ce = 0.0;
        for &r in chunk {
            let x = train.row(r);
            net.forward(x, hid, out);
            let (m, z) = nn::max_and_sum_exp(out);
            let y = train.y[r] as usize;
            if loss {
                // -log softmax(out)_y
                ce += m + ln(z) - out[y];
            }
            // δ = softmax - onehot (the cross-entropy's gradient w.r.t. the logits)
            for c in 0..k {
                dl[c] = exp(out[c] - m) / z - f64::from(u8::from(c == y));
            }
            nn::dense_backward_params(dl, hid, g2, gb2);
            // δ_hidden = (W2^T δ) [hid > 0]; the masked rows add nothing to g1, gb1 (x is finite)
            nn::dense_backward_input(dl, &net.w2, dh);
            nn::relu_backward(dh, hid);
            nn::dense_backward_params(dh, x, g1, gb1);
        }
        ce
    }
}

/// The training of [`mlp_accuracy`]; `None` when the weights diverge (checked after each epoch).
pub(super) fn mlp_train(train: &Dataset, k: usize, o: &MlpOpts, rng: &mut Rng) -> Option<MlpWeights> {
    let (p, h) = (train.p, o.width.max(1));
    let mut net = match o.solver {
        Solver::Sgd => {
            let he = |fan: usize| (2.0 / fan as f64).sqrt();
            let w1: Vec<f64> = (0..h * p).map(|_| he(p) * rng.sample::<f64, _>(StandardNormal)).collect();
            let w2: Vec<f64> = (0..k * h).map(|_| he(h) * rng.sample::<f64, _>(StandardNormal)).collect();
            MlpWeights { h, w1, b1: vec![0.0; h], w2, b2: vec![0.0; k], epochs_run: 0 }
        }
        Solver::Adam => {
            // scikit-learn's `_init_coef` for ReLU (factor 6): weights, then biases, of each layer, U(-b, b)
            let mut layer = |fan_in: usize, fan_out: usize| {
                let b = (6.0 / (fan_in + fan_out) as f64).sqrt();
                let w: Vec<f64> = (0..fan_in * fan_out).map(|_| rng.random_range(-b..b)).collect();
                let c: Vec<f64> = (0..fan_out).map(|_| rng.random_range(-b..b)).collect();
                (w, c)
            };
            let (w1, b1) = layer(p, h);
            let (w2, b2) = layer(h, k);
            MlpWeights { h, w1, b1, w2, b2, epochs_run: 0 }
        }
    };
    let mut gr = Grads::new(p, h, k);
    let mut idx: Vec<usize> = (0..train.n).collect();
    // Adam (Kingma & Ba 2015, Algorithm 1) per parameter array, as scikit-learn's AdamOptimizer keeps its moments
    let mut adam = (o.solver == Solver::Adam).then(|| [Adam::new(h * p), Adam::new(h), Adam::new(k * h), Adam::new(k)]);
    let mut stop = NoImprovement::new(SK_TOL, SK_NO_CHANGE);
    for _ in 0..o.epochs {
        for i in (1..idx.len()).rev() {
            let j = rng.random_range(0..=i);
            idx.swap(i, j);
        }
        let mut epoch_loss = 0.0;
        for chunk in idx.chunks(o.batch.max(1)) {
            let ce = gr.minibatch(&net, train, chunk, adam.is_some());
            let Grads { g1, gb1, g2, gb2, .. } = &mut gr;
            let Some(adam) = adam.as_mut() else {
                let s = o.lr / chunk.len() as f64;
                // the penalty's gradient is decay x W (alpha = 0: decay 0, the step is the unpenalised one)
                let decay = match o.penalty {
                    Penalty::L2(l2) => o.lr * l2,
                    Penalty::Alpha(a) => s * a,
                };
                for (w, g) in net.w1.iter_mut().zip(g1.iter()) {
                    *w -= s * g + decay * *w;
                }
                for (w, g) in net.w2.iter_mut().zip(g2.iter()) {
                    *w -= s * g + decay * *w;
                }
                for (b, g) in net.b1.iter_mut().zip(gb1.iter()) {
                    *b -= s * g;
                }
                for (b, g) in net.b2.iter_mut().zip(gb2.iter()) {
                    *b -= s * g;
                }
                continue;
            };
            // scikit-learn's `_backprop`: the minibatch's mean loss plus coef/2 |W|^2 (coef = alpha / b, or l2 on
            // the mean loss), gradients `(X^T δ + alpha W) / b`; its `_fit_stochastic` sums `loss x b` over the epoch
            let b = chunk.len() as f64;
            let coef = match o.penalty {
                Penalty::L2(l2) => l2,
                Penalty::Alpha(a) => a / b,
            };
            let sq: f64 = net.w1.iter().chain(&net.w2).map(|w| w * w).sum();
            epoch_loss += ce + b * 0.5 * coef * sq;
            for (g, w) in g1.iter_mut().zip(&net.w1).chain(g2.iter_mut().zip(&net.w2)) {
                *g = *g / b + coef * w;
            }
            gb1.iter_mut().chain(gb2.iter_mut()).for_each(|g| *g /= b);
            adam[0].descend(&mut net.w1, g1, o.lr);
            adam[1].descend(&mut net.b1, gb1, o.lr);
            adam[2].descend(&mut net.w2, g2, o.lr);
            adam[3].descend(&mut net.b2, gb2, o.lr);
        }
        if !net.w2.iter().chain(net.w1.iter()).all(|v| v.is_finite()) {
            return None;
        }
        net.epochs_run += 1;
        if adam.is_some() && stop.stop_after(epoch_loss / train.n as f64) {
            break;
        }
    }
    Some(net)
}
