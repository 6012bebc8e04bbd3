//! Bayesian logistic regression, the paper's first model (Coullon, South & Nemeth 2023, App. B.1):
//! `p(y_i = 1 | x_i, theta) = sigmoid(x_i . theta)`, prior `theta ~ N(0, prior_var I)` (default 10).

use super::fastmath::{log_sigmoid, madd, prefetch, residuals_in_place, residuals_matrix_in_place, sigmoid_pade};
use super::Target;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::linalg::{dot4, gemm};
use std::sync::Arc;

/// Rows per block in full-data passes (features of a block stay in L1).
const ROW_BLOCK: usize = 256;
/// Chunk of gathered minibatch rows handled at once.
const BATCH_CHUNK: usize = 128;
/// Prefetch distance (in minibatch rows) for the gathered rows.
const PREFETCH_AHEAD: usize = 24;
/// Samples per tile in [`Target::grad_log_density_many`].
const THETA_TILE: usize = 128;

/// Bayesian logistic regression with labels 0/1 and an isotropic Gaussian prior.
///
/// Parameters: `theta = (w_1..w_p)`, or `(w_1..w_p, b)` with an intercept `b` (last).
#[derive(Debug, Clone)]
pub struct LogisticRegression {
    data: Arc<Dataset>,
    prior_var: f64,
    intercept: bool,
    dim: usize,
}

impl LogisticRegression {
    /// Validates the prior variance (positive, finite) and the labels (0/1).
    pub fn new(data: Arc<Dataset>, prior_var: f64, intercept: bool) -> Result<Self> {
        if !(prior_var > 0.0 && prior_var.is_finite()) {
            return Err(Error::config(format!(
                "logistic regression: prior_var must be positive and finite, got {prior_var}"
            )));
        }
        if data.n == 0 || data.p == 0 {
            return Err(Error::data("logistic regression needs at least one row and one feature"));
        }
        data.check_binary_labels()?;
        let dim = data.p + usize::from(intercept);
        Ok(Self { data, prior_var, intercept, dim })
    }

    /// The data set.
    pub fn data(&self) -> &Arc<Dataset> {
        &self.data
    }
    /// Prior variance.
    pub fn prior_var(&self) -> f64 {
        self.prior_var
    }
    /// Whether the last parameter is an intercept.
    pub fn has_intercept(&self) -> bool {
        self.intercept
    }

    #[inline(always)]
    fn bias(&self, theta: &[f64]) -> f64 {
        if self.intercept {
            theta[self.data.p]
        } else {
            0.0
        }
    }

    /// Linear predictor `x_i . w + b`.
    #[inline(always)]
    pub fn linear_predictor(&self, theta: &[f64], i: usize) -> f64 {
        dot4(self.data.row(i), &theta[..self.data.p]) + self.bias(theta)
    }
}

/// Calls `$f::<P>` with a compile-time feature count for `p <= 16` (fully unrolled inner loops), and
/// `$f::<0>` (run-time `p`) otherwise.
macro_rules! with_const_p {
    ($p:expr, $f:ident ( $($a:expr),* )) => {
        match $p {
            1 => $f::<1>($($a),*), 2 => $f::<2>($($a),*), 3 => $f::<3>($($a),*), 4 => $f::<4>($($a),*),
            5 => $f::<5>($($a),*), 6 => $f::<6>($($a),*), 7 => $f::<7>($($a),*), 8 => $f::<8>($($a),*),
            9 => $f::<9>($($a),*), 10 => $f::<10>($($a),*), 11 => $f::<11>($($a),*), 12 => $f::<12>($($a),*),
            13 => $f::<13>($($a),*), 14 => $f::<14>($($a),*), 15 => $f::<15>($($a),*), 16 => $f::<16>($($a),*),
            _ => $f::<0>($($a),*),
        }
    };
}

/// `sum_j row[j] w[j]` over `p` (= `P` when `P > 0`) entries, two accumulators.
#[inline(always)]
fn dot_p<const P: usize>(row: &[f64], w: &[f64], p: usize) -> f64 {
    let p = if P > 0 { P } else { p };
    let (row, w) = (&row[..p], &w[..p]);
    let (mut s0, mut s1) = (0.0, 0.0);
    let mut j = 0;
    while j + 1 < p {
        s0 += row[j] * w[j];
        s1 += row[j + 1] * w[j + 1];
        j += 2;
    }
    if j < p {
        s0 += row[j] * w[j];
    }
    s0 + s1
}

/// `g += sum_k r[k] x_{rows[k]}`: rows given by `row_of(k)`; accumulates in registers when `P > 0`.
#[inline(always)]
fn accumulate_p<'a, const P: usize>(r: &[f64], row_of: impl Fn(usize) -> &'a [f64], p: usize, g: &mut [f64]) {
    if P > 0 {
        let mut acc = [[0.0f64; P]; 2];
        let m = r.len();
        let mut k = 0;
        while k + 1 < m {
            let (a, b) = (&row_of(k)[..P], &row_of(k + 1)[..P]);
            let (ra, rb) = (r[k], r[k + 1]);
            for j in 0..P {
                acc[0][j] += ra * a[j];
                acc[1][j] += rb * b[j];
            }
            k += 2;
        }
        if k < m {
            let a = &row_of(k)[..P];
            for j in 0..P {
                acc[0][j] += r[k] * a[j];
            }
        }
        for j in 0..P {
            g[j] += acc[0][j] + acc[1][j];
        }
    } else {
        let g = &mut g[..p];
        for (k, &rk) in r.iter().enumerate() {
            for (o, v) in g.iter_mut().zip(&row_of(k)[..p]) {
                *o += rk * v;
            }
        }
    }
}

#[inline(always)]
fn batch_kernel<const P: usize>(
    x: &[f64],
    y: &[f64],
    p: usize,
    w: &[f64],
    b: f64,
    idx: &[usize],
    og: &mut [f64],
) -> f64 {
    let p = if P > 0 { P } else { p };
    let mut z = [0.0f64; BATCH_CHUNK];
    let mut yy = [0.0f64; BATCH_CHUNK];
    let mut rsum = 0.0;
    for (c, chunk) in idx.chunks(BATCH_CHUNK).enumerate() {
        let m = chunk.len();
        // Rows are scattered over the data set (cache misses): prefetch both cache lines of the row
        // PREFETCH_AHEAD positions ahead while computing this one.
        let ahead = &idx[(c * BATCH_CHUNK + PREFETCH_AHEAD).min(idx.len())..];
        for (k, &i) in chunk.iter().enumerate() {
            if let Some(&ia) = ahead.get(k) {
                let row = x.as_ptr().wrapping_add(ia * p);
                prefetch(row);
                prefetch(row.wrapping_add(p - 1));
                prefetch(y.as_ptr().wrapping_add(ia));
            }
            z[k] = dot_p::<P>(&x[i * p..i * p + p], w, p) + b;
            yy[k] = y[i];
        }
        residuals_in_place(&yy[..m], &mut z[..m]);
        accumulate_p::<P>(&z[..m], |k| &x[chunk[k] * p..chunk[k] * p + p], p, og);
        rsum += z[..m].iter().sum::<f64>();
    }
    rsum
}

#[inline(always)]
fn full_kernel<const P: usize>(x: &[f64], y: &[f64], p: usize, w: &[f64], b: f64, og: &mut [f64]) -> f64 {
    let p = if P > 0 { P } else { p };
    let mut z = [0.0f64; ROW_BLOCK];
    let mut rsum = 0.0;
    for (xb, yb) in x.chunks(ROW_BLOCK * p).zip(y.chunks(ROW_BLOCK)) {
        let m = yb.len();
        for (zk, row) in z.iter_mut().zip(xb.chunks_exact(p)) {
            *zk = dot_p::<P>(row, w, p) + b;
        }
        residuals_in_place(yb, &mut z[..m]);
        accumulate_p::<P>(&z[..m], |k| &xb[k * p..k * p + p], p, og);
        rsum += z[..m].iter().sum::<f64>();
    }
    rsum
}

/// The fused scoring kernel of [`LogisticRegression::scores_fused`] with `P` features (`1..=16`),
/// `L` samples per register tile.
#[inline(always)]
fn scores_fused_impl<const P: usize, const L: usize, const FMA: bool>(
    t: &LogisticRegression,
    thetas: &[f64],
    out: &mut [f64],
) {
    let dim = t.dim;
    let (x, y) = (&t.data.x, &t.data.y);
    let s_total = thetas.len() / dim;
    let out = &mut out[..s_total * dim];
    let n_tiles = s_total.div_ceil(L);
    if n_tiles == 0 {
        return;
    }
    // W^T and bias per tile (missing samples of the last tile are zero and discarded).
    let mut wt = vec![[[0.0f64; L]; P]; n_tiles];
    let mut bias = vec![[0.0f64; L]; n_tiles];
    for (s, th) in thetas.chunks_exact(dim).enumerate() {
        let (tile, lane) = (s / L, s % L);
        for j in 0..P {
            wt[tile][j][lane] = th[j];
        }
        if t.intercept {
            bias[tile][lane] = th[P];
        }
    }
    let mut g = vec![[[0.0f64; L]; P]; n_tiles];
    let mut gb = vec![[0.0f64; L]; n_tiles];
    // Per block of rows, tiles are software-pipelined: one pass over the rows computes the predictors
    // of tile `t` (into `zcur`) and accumulates the gradient of tile `t - 1` from its residuals (`rprev`),
    // then a flat vectorised pass turns `zcur` into residuals.
    let mut zcur = [[0.0f64; L]; ROW_BLOCK];
    let mut rprev = [[0.0f64; L]; ROW_BLOCK];
    let mut yexp = [[0.0f64; L]; ROW_BLOCK];
    for (xb, yb) in x.chunks(ROW_BLOCK * P).zip(y.chunks(ROW_BLOCK)) {
        let m = yb.len();
        for (ye, &yi) in yexp.iter_mut().zip(yb) {
            *ye = [yi; L];
        }
        for tile in 0..=n_tiles {
            let (has_z, has_g) = (tile < n_tiles, tile > 0);
            let w = &wt[tile.min(n_tiles - 1)];
            let b = bias[tile.min(n_tiles - 1)];
            let mut acc = [[0.0f64; L]; P];
            let mut accb = [0.0f64; L];
            for ((row, zi), r) in xb.chunks_exact(P).zip(zcur.iter_mut()).zip(&rprev) {
                let row: &[f64; P] = row.try_into().expect("chunks_exact(P)");
                if has_z {
                    // z_i = W x_i + b, two partial sums over features. z1 starts at -0.0, the identity of
                    // `+` (x + -0.0 == x bit for bit), so the compiler drops its first add; with +0.0 only the
                    // sign of a zero z could differ, which sigmoid_pade maps to the same bits.
                    let mut z0 = b;
                    let mut z1 = [-0.0f64; L];
                    let mut j = 0;
                    while j + 1 < P {
                        for l in 0..L {
                            z0[l] = madd::<FMA>(row[j], w[j][l], z0[l]);
                            z1[l] = madd::<FMA>(row[j + 1], w[j + 1][l], z1[l]);
                        }
                        j += 2;
                    }
                    if j < P {
                        for l in 0..L {
                            z0[l] = madd::<FMA>(row[j], w[j][l], z0[l]);
                        }
                    }
                    for l in 0..L {
                        zi[l] = z0[l] + z1[l];
                    }
                }
                if has_g {
                    // G_{t-1} += r_i x_i^T (block-local sums)
                    for j in 0..P {
                        for l in 0..L {
                            acc[j][l] = madd::<FMA>(r[l], row[j], acc[j][l]);
                        }
                    }
                    for l in 0..L {
                        accb[l] += r[l];
                    }
                }
            }
            if has_g {
                let t = tile - 1;
                for j in 0..P {
                    for l in 0..L {
                        g[t][j][l] += acc[j][l];
                    }
                }
                for l in 0..L {
                    gb[t][l] += accb[l];
                }
            }
            if has_z {
                // r_i = y_i - sigmoid(z_i), flat over rows and lanes
                // (in groups of 4 L values, so that four independent vectors are interleaved)
                let (zs, ys) = (zcur[..m].as_flattened(), yexp[..m].as_flattened());
                let rs = rprev[..m].as_flattened_mut();
                let (mut rc, mut zc, mut yc) =
                    (rs.chunks_exact_mut(4 * L), zs.chunks_exact(4 * L), ys.chunks_exact(4 * L));
                for ((rv, zv), yv) in (&mut rc).zip(&mut zc).zip(&mut yc) {
                    for q in 0..4 * L {
                        rv[q] = yv[q] - sigmoid_pade::<FMA>(zv[q]);
                    }
                }
                for ((rv, &zv), &yv) in rc.into_remainder().iter_mut().zip(zc.remainder()).zip(yc.remainder()) {
                    *rv = yv - sigmoid_pade::<FMA>(zv);
                }
            }
        }
    }
    for (s, (th, o)) in thetas.chunks_exact(dim).zip(out.chunks_exact_mut(dim)).enumerate() {
        let (tile, lane) = (s / L, s % L);
        for j in 0..P {
            o[j] = g[tile][j][lane];
        }
        if t.intercept {
            o[P] = gb[tile][lane];
        }
        t.add_grad_log_prior(th, o);
    }
}

/// Portable build of the fused scoring kernel (also the wasm32 one): 4 samples per tile, no FMA.
fn scores_portable<const P: usize>(t: &LogisticRegression, thetas: &[f64], out: &mut [f64]) {
    if P == 0 {
        return t.scores_gemm(thetas, out);
    }
    scores_fused_impl::<P, 4, false>(t, thetas, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scores_avx2<const P: usize>(t: &LogisticRegression, thetas: &[f64], out: &mut [f64]) {
    if P == 0 {
        return t.scores_gemm(thetas, out);
    }
    scores_fused_impl::<P, 4, false>(t, thetas, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn scores_avx512<const P: usize>(t: &LogisticRegression, thetas: &[f64], out: &mut [f64]) {
    if P == 0 {
        return t.scores_gemm(thetas, out);
    }
    scores_fused_impl::<P, 8, false>(t, thetas, out)
}

impl LogisticRegression {
    #[inline(always)]
    fn batch_generic(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        let p = self.data.p;
        let b = self.bias(theta);
        let (og, ob) = out.split_at_mut(p);
        let rsum = with_const_p!(p, batch_kernel(&self.data.x, &self.data.y, p, &theta[..p], b, idx, og));
        if self.intercept {
            ob[0] += rsum;
        }
    }

    #[inline(always)]
    fn full_generic(&self, theta: &[f64], out: &mut [f64]) {
        let p = self.data.p;
        let b = self.bias(theta);
        let (og, ob) = out.split_at_mut(p);
        let rsum = with_const_p!(p, full_kernel(&self.data.x, &self.data.y, p, &theta[..p], b, og));
        if self.intercept {
            ob[0] += rsum;
        }
    }

    /// Blocked scoring with gemm (any `p`): for each block of data rows `X_b` and tile of samples
    /// `Theta_t`, `Z = X_b Theta_t^T`, `R = y - sigmoid(Z)` (vectorised), `G_t += R^T X_b`.
    fn scores_gemm(&self, thetas: &[f64], out: &mut [f64]) {
        let (p, dim) = (self.data.p, self.dim);
        let s_total = thetas.len() / dim;
        let out = &mut out[..s_total * dim];
        out.iter_mut().for_each(|o| *o = 0.0);
        let tile = THETA_TILE.min(s_total.max(1));
        let mut zbuf = vec![0.0f64; ROW_BLOCK * tile];
        for (xb, yb) in self.data.x.chunks(ROW_BLOCK * p).zip(self.data.y.chunks(ROW_BLOCK)) {
            let m = yb.len();
            for t0 in (0..s_total).step_by(tile) {
                let st = tile.min(s_total - t0);
                let th = &thetas[t0 * dim..(t0 + st) * dim];
                let z = &mut zbuf[..m * st];
                // Z (m x st) = X_b (m x p) * W^T (p x st); W^T[j, s] = th[s * dim + j].
                gemm(m, p, st, 1.0, xb, p, 1, th, 1, dim, 0.0, z, st, 1);
                if self.intercept {
                    for row in z.chunks_exact_mut(st) {
                        for (s, v) in row.iter_mut().enumerate() {
                            *v += th[s * dim + p];
                        }
                    }
                }
                residuals_matrix_in_place(yb, z, st);
                let o = &mut out[t0 * dim..(t0 + st) * dim];
                // G (st x p, row stride dim) += R^T (st x m) * X_b (m x p); R^T[s, i] = z[i * st + s].
                gemm(st, m, p, 1.0, z, 1, st, xb, p, 1, 1.0, o, dim, 1);
                if self.intercept {
                    for row in z.chunks_exact(st) {
                        for (s, v) in row.iter().enumerate() {
                            o[s * dim + p] += v;
                        }
                    }
                }
            }
        }
        for (t, o) in thetas.chunks_exact(dim).zip(out.chunks_exact_mut(dim)) {
            self.add_grad_log_prior(t, o);
        }
    }

    /// Fused scoring for `p <= 16`: samples are taken `L` at a time (one SIMD lane each, transposed
    /// into `W^T`), and for every data row `x_i` the kernel forms `z = W x_i + b`, `r = y_i - sigmoid(z)`
    /// and `G += r x_i^T` in registers, so each row is loaded once per tile and nothing goes through
    /// memory. Each sample's gradient is summed over rows in a fixed order (within blocks of
    /// [`ROW_BLOCK`] rows, then over blocks), independent of `L` and of the other samples, so results
    /// do not depend on the thread count. On x86-64 the AVX2 / AVX-512 builds are wider but do the same
    /// operations in the same order without fused multiply-adds (WebAssembly has none), so every build gives
    /// the portable build's bits (native and wasm reports agree bit for bit).
    fn scores_fused(&self, thetas: &[f64], out: &mut [f64]) {
        let p = self.data.p;
        #[cfg(target_arch = "x86_64")]
        {
            if x86_has!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked just above).
                unsafe { with_const_p!(p, scores_avx512(self, thetas, out)) };
                return;
            }
            if x86_has!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                unsafe { with_const_p!(p, scores_avx2(self, thetas, out)) };
                return;
            }
        }
        with_const_p!(p, scores_portable(self, thetas, out))
    }

    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    #[target_feature(enable = "avx2")]
    unsafe fn batch_avx2(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        self.batch_generic(theta, idx, out)
    }

    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    #[target_feature(enable = "avx2")]
    unsafe fn full_avx2(&self, theta: &[f64], out: &mut [f64]) {
        self.full_generic(theta, out)
    }
}

impl Target for LogisticRegression {
    fn dim(&self) -> usize {
        self.dim
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

    /// `sum_{i in idx} (y_i - sigmoid(x_i . theta)) x_i`, in chunks: predictors, then vectorised
    /// residuals, then accumulation (kernels specialised for p <= 16).
    fn add_grad_log_lik(&self, theta: &[f64], idx: &[usize], out: &mut [f64]) {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        {
            if x86_has!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                unsafe { self.batch_avx2(theta, idx, out) };
                return;
            }
        }
        self.batch_generic(theta, idx, out)
    }

    fn add_grad_log_lik_full(&self, theta: &[f64], out: &mut [f64]) {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
        {
            if x86_has!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                unsafe { self.full_avx2(theta, out) };
                return;
            }
        }
        self.full_generic(theta, out)
    }

    fn log_lik_point(&self, theta: &[f64], i: usize) -> f64 {
        let z = self.linear_predictor(theta, i);
        // y log s(z) + (1 - y) log s(-z)
        if self.data.y[i] == 1.0 {
            log_sigmoid(z)
        } else {
            log_sigmoid(-z)
        }
    }

    /// Full-data scores of many samples. For `p <= 16`: the fused register-tiled kernel
    /// ([`LogisticRegression::scores_fused`]); otherwise blocked gemm ([`LogisticRegression::scores_gemm`]).
    fn grad_log_density_many(&self, thetas: &[f64], out: &mut [f64]) {
        if self.data.p <= 16 {
            self.scores_fused(thetas, out);
        } else {
            self.scores_gemm(thetas, out);
        }
    }

    fn n_classes(&self) -> usize {
        2
    }

    fn class_probs(&self, theta: &[f64], i: usize, out: &mut [f64]) {
        let z = self.linear_predictor(theta, i);
        let p1 = super::fastmath::sigmoid(z);
        out[0] = super::fastmath::sigmoid(-z);
        out[1] = p1;
    }

    fn label(&self, i: usize) -> usize {
        self.data.y[i] as usize
    }

    fn name(&self) -> String {
        format!(
            "logistic regression (N = {}, d = {}{})",
            self.data.n,
            self.dim,
            if self.intercept { ", with intercept" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::simulate_logistic;
    use crate::rng::stream;

    /// Every build of the fused scoring kernel (portable, and the x86-64 AVX2 / AVX-512 ones the CPU supports)
    /// against one-sample full-data gradients, with and without intercept, with a partial last tile; the wide
    /// builds give the portable build's bits exactly (the wasm build is the portable one).
    #[test]
    fn fused_scores_match_single_gradients() {
        let (ds, theta) = simulate_logistic(700, 5, &mut stream(5, 0)).unwrap();
        let data = Arc::new(ds);
        for intercept in [false, true] {
            let t = LogisticRegression::new(data.clone(), 10.0, intercept).unwrap();
            let d = t.dim();
            let s = 13;
            let thetas: Vec<f64> = (0..s * d).map(|k| 0.5 * theta[k % d % 5] + 0.01 * k as f64 - 0.3).collect();
            let mut want = vec![0.0; s * d];
            for (th, o) in thetas.chunks_exact(d).zip(want.chunks_exact_mut(d)) {
                t.grad_log_density(th, o);
            }
            let check = |got: &[f64], what: &str| {
                for (a, b) in got.iter().zip(&want) {
                    assert!((a - b).abs() <= 1e-11 * (1.0 + b.abs()), "{what} (intercept {intercept}): {a} vs {b}");
                }
            };
            let mut got = vec![f64::NAN; s * d];
            scores_portable::<5>(&t, &thetas, &mut got);
            check(&got, "portable");
            let portable = got.clone();
            t.scores_gemm(&thetas, &mut got);
            check(&got, "gemm");
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    unsafe { scores_avx2::<5>(&t, &thetas, &mut got) };
                    assert_eq!(got, portable, "avx2 build: the portable build's bits");
                }
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: the CPU supports AVX-512F (checked just above).
                    unsafe { scores_avx512::<5>(&t, &thetas, &mut got) };
                    assert_eq!(got, portable, "avx512 build: the portable build's bits");
                }
            }
            let mut empty: Vec<f64> = Vec::new();
            t.grad_log_density_many(&[], &mut empty);
        }
    }
}
