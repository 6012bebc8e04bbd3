//! Dense (fully connected) layers, written once for the small networks of the code base: the BNN
//! posterior (`model::bnn`), the TVO VAE's encoder and decoder (`experiments::tvo::vae`), the HPO network
//! (`experiments::bandit::hpo`) and the learning-rate task's classifier (`experiments::lr_schedule::train`).
//!
//! A layer maps `x` (`n_in`) to `a = W x + b` (`n_out`) and an activation `h = f(a)`; `W` is row major,
//! `W[o, i]` at `o * n_in + i`, and a layer's parameters are stored `W` then `b` ([`dense_len`]). Backprop of
//! a loss `L` with `delta = dL/da` (Rumelhart, Hinton & Williams 1986; Goodfellow et al., *Deep Learning*,
//! eqs. 6.47-6.52 in Alg. 6.4): `dL/dW = delta x^T`, `dL/db = delta`, `dL/dx = W^T delta`, and through the
//! activation `dL/da = dL/dh * f'(a)` with `tanh' = 1 - h^2`, `relu' = [a > 0]`.
//!
//! Every routine fixes its floating-point order, because the reports that use them are pinned bit for bit
//! (tests/nn_pins.rs):
//! - a sum over inputs runs left to right; [`dense_forward`] adds the bias last (the HPO and lr-schedule
//!   networks), [`dense_forward_bias_first`] starts from the bias (the VAE): the two orders round
//!   differently, so both stay;
//! - a sum over outputs (`W^T delta`) starts from `+0` and runs over `o` in order;
//! - a row whose `delta_o` is exactly zero is skipped: it would add `±0` to an accumulator that is never
//!   `-0`, which changes nothing while the inputs are finite (every user's are).
//!
//! The BNN evaluates blocks of rows with matrix products ([`crate::linalg::gemm`]), whose summation order is
//! matrixmultiply's; it shares the layout, the softmax and the activations' derivatives from here.

use crate::math::{exp, ln};

/// Length of one dense layer's parameters `W` (`n_out x n_in`) then `b` (`n_out`).
#[inline]
pub fn dense_len(n_in: usize, n_out: usize) -> usize {
    n_in * n_out + n_out
}

/// Offsets in one flat vector of a one-hidden-layer network `p -> h -> k`, laid out
/// `[W1 (h x p), b1 (h), W2 (k x h), b2 (k)]` (row major: `W1[j, i]` at `j p + i`, `W2[c, j]` at `w2 + c h + j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mlp1Layout {
    pub p: usize,
    pub h: usize,
    pub k: usize,
}

impl Mlp1Layout {
    /// Start of `b1` (= length of `W1`).
    #[inline]
    pub fn b1(&self) -> usize {
        self.h * self.p
    }
    /// Start of `W2`.
    #[inline]
    pub fn w2(&self) -> usize {
        dense_len(self.p, self.h)
    }
    /// Start of `b2`.
    #[inline]
    pub fn b2(&self) -> usize {
        self.w2() + self.k * self.h
    }
    /// Number of parameters.
    #[inline]
    pub fn dim(&self) -> usize {
        self.w2() + dense_len(self.h, self.k)
    }
}

/// Identity activation (a linear output layer).
#[inline(always)]
pub fn identity(a: f64) -> f64 {
    a
}

/// `relu(a) = max(a, 0)` (`f64::max`: a NaN pre-activation gives 0).
#[inline(always)]
pub fn relu(a: f64) -> f64 {
    a.max(0.0)
}

/// `out_o = f(sum_i W[o, i] x_i + b_o)`: the sum left to right (`Iterator::sum`), then the bias.
#[inline]
pub fn dense_forward(w: &[f64], b: &[f64], x: &[f64], out: &mut [f64], f: impl Fn(f64) -> f64) {
    let n_in = x.len();
    for (o, (y, bo)) in out.iter_mut().zip(b).enumerate() {
        let row = &w[o * n_in..(o + 1) * n_in];
        *y = f(row.iter().zip(x).map(|(u, v)| u * v).sum::<f64>() + bo);
    }
}

/// `out_o = f(b_o + sum_i W[o, i] x_i)`: starting from the bias, then the inputs left to right.
#[inline]
pub fn dense_forward_bias_first(w: &[f64], b: &[f64], x: &[f64], out: &mut [f64], f: impl Fn(f64) -> f64) {
    let n_in = x.len();
    for (o, (y, bo)) in out.iter_mut().zip(b).enumerate() {
        let row = &w[o * n_in..(o + 1) * n_in];
        let mut s = *bo;
        for (wi, xi) in row.iter().zip(x) {
            s += wi * xi;
        }
        *y = f(s);
    }
}

/// Parameter gradients of a dense layer, accumulated: `gW[o, i] += delta_o x_i` (`dL/dW = delta x^T`) and
/// `gb_o += delta_o` (`dL/db = delta`). Rows with `delta_o == 0` leave `gW` alone (see the module docs).
#[inline]
pub fn dense_backward_params(delta: &[f64], x: &[f64], gw: &mut [f64], gb: &mut [f64]) {
    let n_in = x.len();
    for (o, (&d, g)) in delta.iter().zip(gb.iter_mut()).enumerate() {
        if d != 0.0 {
            for (gi, xi) in gw[o * n_in..(o + 1) * n_in].iter_mut().zip(x) {
                *gi += d * xi;
            }
        }
        *g += d;
    }
}

/// Gradient with respect to the inputs, overwritten: `dx_i = sum_o delta_o W[o, i]` (`dL/dx = W^T delta`),
/// from `+0` over `o` in order (rows with `delta_o == 0` skipped).
#[inline]
pub fn dense_backward_input(delta: &[f64], w: &[f64], dx: &mut [f64]) {
    let n_in = dx.len();
    dx.iter_mut().for_each(|v| *v = 0.0);
    for (o, &d) in delta.iter().enumerate() {
        if d != 0.0 {
            for (si, wi) in dx.iter_mut().zip(&w[o * n_in..(o + 1) * n_in]) {
                *si += d * wi;
            }
        }
    }
}

/// Through `h = tanh(a)`: `d_i *= 1 - h_i^2`.
#[inline]
pub fn tanh_backward(d: &mut [f64], h: &[f64]) {
    for (di, hi) in d.iter_mut().zip(h) {
        *di *= 1.0 - hi * hi;
    }
}

/// `row <- softmax(row)` in place (shifted by the maximum; the MAMBA paper's hidden activation, App. B.3.1).
#[inline]
pub fn softmax_in_place(row: &mut [f64]) {
    let (m, z) = max_and_sum_exp(row);
    row.iter_mut().for_each(|v| *v = exp(*v - m) / z);
}

/// Through `h = softmax(a)` (one row): `d_i <- h_i (d_i - sum_j h_j d_j)` (the softmax Jacobian
/// `dh_j/da_i = h_j ([i = j] - h_i)`, symmetric).
#[inline]
pub fn softmax_backward(d: &mut [f64], h: &[f64]) {
    let s: f64 = d.iter().zip(h).map(|(a, b)| a * b).sum();
    for (di, hi) in d.iter_mut().zip(h) {
        *di = hi * (*di - s);
    }
}

/// Through `h = relu(a)`: `d_i = 0` where `h_i` is not positive (`relu'(a) = [a > 0]`).
#[inline]
// `!(h > 0.0)`: a NaN activation counts as not positive (masked), deliberately.
pub fn relu_backward(d: &mut [f64], h: &[f64]) {
    for (di, hi) in d.iter_mut().zip(h) {
        if !(*hi > 0.0) {
            *di = 0.0;
        }
    }
}

/// `(m, z)` with `m = max_c v_c` and `z = sum_c exp(v_c - m)`, so `softmax(v)_c = exp(v_c - m) / z` and
/// `log sum_c exp(v_c) = m + ln z` (the shift by the maximum keeps `exp` from overflowing).
#[inline]
pub fn max_and_sum_exp(v: &[f64]) -> (f64, f64) {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (m, v.iter().map(|x| exp(x - m)).sum::<f64>())
}

/// `log sum_c exp(v_c) = m + ln z` from [`max_and_sum_exp`] (no special case for a non-finite maximum).
#[inline]
pub fn log_sum_exp(v: &[f64]) -> f64 {
    let (m, z) = max_and_sum_exp(v);
    m + ln(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::tanh;

    /// A `p -> h -> k` tanh network with softmax cross-entropy, by the routines above.
    fn loss_and_grad(l: Mlp1Layout, th: &[f64], x: &[f64], y: usize, relu_hidden: bool) -> (f64, Vec<f64>) {
        let (p, h, k) = (l.p, l.h, l.k);
        let mut hid = vec![0.0; h];
        let mut out = vec![0.0; k];
        if relu_hidden {
            dense_forward(&th[..l.b1()], &th[l.b1()..l.w2()], x, &mut hid, relu);
        } else {
            dense_forward_bias_first(&th[..l.b1()], &th[l.b1()..l.w2()], x, &mut hid, tanh);
        }
        dense_forward(&th[l.w2()..l.b2()], &th[l.b2()..], &hid, &mut out, identity);
        let lse = log_sum_exp(&out);
        let loss = lse - out[y];
        let delta: Vec<f64> = (0..k).map(|c| exp(out[c] - lse) - f64::from(u8::from(c == y))).collect();
        let mut g = vec![0.0; l.dim()];
        let (g1, g2) = g.split_at_mut(l.w2());
        let (gw2, gb2) = g2.split_at_mut(k * h);
        dense_backward_params(&delta, &hid, gw2, gb2);
        let mut dh = vec![0.0; h];
        dense_backward_input(&delta, &th[l.w2()..l.b2()], &mut dh);
        if relu_hidden {
            relu_backward(&mut dh, &hid);
        } else {
            tanh_backward(&mut dh, &hid);
        }
        let (gw1, gb1) = g1.split_at_mut(h * p);
        dense_backward_params(&dh, x, gw1, gb1);
        (loss, g)
    }

    #[test]
    fn gradients_match_central_differences() {
        let l = Mlp1Layout { p: 3, h: 4, k: 3 };
        assert_eq!(l.dim(), 3 * 4 + 4 + 4 * 3 + 3);
        let th: Vec<f64> = (0..l.dim()).map(|i| 0.4 * ((i * 37 % 11) as f64 / 11.0 - 0.5) + 0.01 * i as f64).collect();
        let x = [0.7, -1.2, 0.3];
        for relu_hidden in [false, true] {
            let (_, g) = loss_and_grad(l, &th, &x, 1, relu_hidden);
            for j in 0..l.dim() {
                let e = 1e-6;
                let (mut a, mut b) = (th.clone(), th.clone());
                a[j] += e;
                b[j] -= e;
                let fd = (loss_and_grad(l, &a, &x, 1, relu_hidden).0 - loss_and_grad(l, &b, &x, 1, relu_hidden).0)
                    / (2.0 * e);
                assert!((fd - g[j]).abs() < 1e-7, "relu {relu_hidden}, coordinate {j}: {fd} vs {}", g[j]);
            }
        }
    }

    #[test]
    fn sums_run_in_the_documented_order() {
        let w = [0.1, 0.2, 0.3];
        let x = [1e16, 1.0, -1e16];
        let (mut a, mut b) = ([0.0], [0.0]);
        dense_forward(&w, &[0.5], &x, &mut a, identity);
        dense_forward_bias_first(&w, &[0.5], &x, &mut b, identity);
        assert_eq!(a[0].to_bits(), ((0.1 * 1e16 + 0.2 * 1.0) + 0.3 * -1e16 + 0.5f64).to_bits());
        assert_eq!(b[0].to_bits(), (((0.5 + 0.1 * 1e16) + 0.2 * 1.0) + 0.3 * -1e16f64).to_bits());
        let mut dx = [9.0; 3];
        dense_backward_input(&[2.0, 0.0], &[1.0, 2.0, 3.0, f64::NAN, 0.0, 0.0], &mut dx);
        assert_eq!(dx, [2.0, 4.0, 6.0]);
    }
}
