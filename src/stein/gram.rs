//! The KSD's pair sums in Gram-matrix form, for large `d` (the MNIST network has d ~ 80,000).
//!
//! The IMQ Stein kernel (see [`super::ksd`]) needs, for each pair `(i, j)`, only three inner products of
//! differences: `r^2 = |x_i - x_j|^2`, `(s_i - s_j).(x_i - x_j)` and `s_i.s_j`. All three are entries of the
//! Gram matrices `X X^T`, `S S^T` and `S X^T`:
//! `r^2 = G_xx[i,i] + G_xx[j,j] - 2 G_xx[i,j]`,
//! `(s_i - s_j).(x_i - x_j) = G_sx[i,i] - G_sx[i,j] - G_sx[j,i] + G_sx[j,j]`,
//! so the O(n^2 d) work becomes three matrix products (blocked GEMM, `matrixmultiply`) and the kernel is
//! evaluated on `n^2` scalars. The samples are centred first (every term above is a function of differences,
//! so translation does not change it) to limit the cancellation in `r^2`.
//!
//! Determinism: the coordinates are cut into fixed blocks of [`D_BLOCK`] columns; each block's three partial
//! Gram matrices are computed on the rayon pool and summed in block order, so the result does not depend on
//! the thread count.

use crate::linalg::gemm;
use crate::math::powf;
use rayon::prelude::*;

/// Coordinates per parallel block of the Gram products.
pub const D_BLOCK: usize = 4096;
/// From this dimension on, [`super::ksd`] uses the Gram form for the V- and U-statistics.
pub const GRAM_MIN_DIM: usize = 512;

/// Stein kernel value from the pair's inner products (IMQ, `k = (c^2 + r^2)^beta`), Liu et al. 2016 eq. 8.
#[inline]
fn k0(ss: f64, sdu: f64, r2: f64, d: f64, c2: f64, beta: f64) -> f64 {
    let q = c2 + r2;
    let qb1 = powf(q, beta - 1.0);
    ss * qb1 * q - 2.0 * beta * sdu * qb1 - 2.0 * beta * d * qb1 - 4.0 * beta * (beta - 1.0) * r2 * qb1 / q
}

/// `(sum_{i<j} k0(x_i, x_j), sum_i k0(x_i, x_i))` for `n` samples `x` and scores `s` (row-major `n x d`),
/// IMQ kernel with `c2 = c^2` and exponent `beta`: the same two sums as the direct double loop of
/// [`super::ksd`], through Gram matrices.
pub fn pair_sums(x: &[f64], s: &[f64], n: usize, d: usize, c2: f64, beta: f64) -> (f64, f64) {
    // Column means (fixed order).
    let mut mean = vec![0.0; d];
    for row in x.chunks_exact(d).take(n) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let nn = n * n;
    let blocks: Vec<usize> = (0..d.div_ceil(D_BLOCK)).collect();
    let partial: Vec<Vec<f64>> = blocks
        .par_iter()
        .map(|&b| {
            let lo = b * D_BLOCK;
            let w = D_BLOCK.min(d - lo);
            // Centred copies of this block: z (n x w), t = scores (n x w).
            let mut z = vec![0.0; n * w];
            let mut t = vec![0.0; n * w];
            for i in 0..n {
                let xr = &x[i * d + lo..i * d + lo + w];
                let sr = &s[i * d + lo..i * d + lo + w];
                for k in 0..w {
                    z[i * w + k] = xr[k] - mean[lo + k];
                    t[i * w + k] = sr[k];
                }
            }
            // g = [G_xx | G_ss | G_sx], each n x n row-major.
            let mut g = vec![0.0; 3 * nn];
            let (gxx, rest) = g.split_at_mut(nn);
            let (gss, gsx) = rest.split_at_mut(nn);
            // A B^T with A, B row-major n x w: B^T has row stride 1 and column stride w.
            gemm(n, w, n, 1.0, &z, w, 1, &z, 1, w, 0.0, gxx, n, 1);
            gemm(n, w, n, 1.0, &t, w, 1, &t, 1, w, 0.0, gss, n, 1);
            gemm(n, w, n, 1.0, &t, w, 1, &z, 1, w, 0.0, gsx, n, 1);
            g
        })
        .collect();
    let mut g = vec![0.0; 3 * nn];
    for p in &partial {
        for (a, b) in g.iter_mut().zip(p) {
            *a += b;
        }
    }
    let (gxx, rest) = g.split_at(nn);
    let (gss, gsx) = rest.split_at(nn);
    let df = d as f64;
    let mut off = 0.0;
    let mut diag = 0.0;
    for i in 0..n {
        diag += k0(gss[i * n + i], 0.0, 0.0, df, c2, beta);
        for j in i + 1..n {
            let r2 = (gxx[i * n + i] + gxx[j * n + j] - 2.0 * gxx[i * n + j]).max(0.0);
            let sdu = gsx[i * n + i] - gsx[i * n + j] - gsx[j * n + i] + gsx[j * n + j];
            off += k0(gss[i * n + j], sdu, r2, df, c2, beta);
        }
    }
    (off, diag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stein::{ksd, Estimator, KernelScale, KsdOptions};

    /// The direct formula on one pair (no Gram matrices), for the test below.
    fn k0_direct(x: &[f64], y: &[f64], sx: &[f64], sy: &[f64], c2: f64, beta: f64) -> f64 {
        let d = x.len() as f64;
        let r2: f64 = x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum();
        let sdu: f64 = (0..x.len()).map(|k| (sx[k] - sy[k]) * (x[k] - y[k])).sum();
        let ss: f64 = sx.iter().zip(sy).map(|(a, b)| a * b).sum();
        let q = c2 + r2;
        ss * powf(q, beta)
            - 2.0 * beta * sdu * powf(q, beta - 1.0)
            - 2.0 * beta * d * powf(q, beta - 1.0)
            - 4.0 * beta * (beta - 1.0) * r2 * powf(q, beta - 2.0)
    }

    fn data(n: usize, d: usize, seed: u64, offset: f64) -> (Vec<f64>, Vec<f64>) {
        // Deterministic pseudo-random values (an LCG), samples around `offset`, scores of N(offset, 1) plus noise.
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let x: Vec<f64> = (0..n * d).map(|_| offset + 0.3 * next()).collect();
        let s: Vec<f64> = x.iter().map(|v| -(v - offset) + 0.1 * next()).collect();
        (x, s)
    }

    #[test]
    fn gram_sums_equal_the_direct_formula() {
        for &(n, d, beta, c2, offset) in &[
            (2usize, 1usize, -0.5, 1.0, 0.0),
            (7, 3, -0.5, 1.0, 0.0),
            (13, 40, -0.3, 0.25, 5.0),
            (20, 4100, -0.5, 2.0, 0.5),   // two coordinate blocks
            (5, 9000, -0.7, 0.01, 100.0), // three blocks, far from the origin
        ] {
            let (x, s) = data(n, d, n as u64 + d as u64, offset);
            let (off, diag) = pair_sums(&x, &s, n, d, c2, beta);
            let row = |m: &[f64], i: usize| m[i * d..(i + 1) * d].to_vec();
            let mut off_d = 0.0;
            let mut diag_d = 0.0;
            for i in 0..n {
                diag_d += k0_direct(&row(&x, i), &row(&x, i), &row(&s, i), &row(&s, i), c2, beta);
                for j in i + 1..n {
                    off_d += k0_direct(&row(&x, i), &row(&x, j), &row(&s, i), &row(&s, j), c2, beta);
                }
            }
            let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1.0);
            assert!(rel(off, off_d) < 1e-10, "n {n} d {d}: off-diagonal {off} vs direct {off_d}");
            assert!(rel(diag, diag_d) < 1e-10, "n {n} d {d}: diagonal {diag} vs direct {diag_d}");
        }
    }

    #[test]
    fn ksd_dispatch_matches_the_direct_loop_above_the_threshold() {
        // d above GRAM_MIN_DIM: `ksd` takes the Gram path; compare with the direct pair sums written out here.
        let (n, d) = (12usize, GRAM_MIN_DIM + 3);
        let (x, s) = data(n, d, 7, 1.0);
        for est in [Estimator::V, Estimator::U] {
            let opts = KsdOptions { c: 1.0, beta: -0.5, scale: KernelScale::Fixed, estimator: est };
            let v = ksd(&x, &s, d, &opts).unwrap();
            let row = |m: &[f64], i: usize| m[i * d..(i + 1) * d].to_vec();
            let mut total = 0.0;
            for i in 0..n {
                for j in 0..n {
                    if est == Estimator::U && i == j {
                        continue;
                    }
                    total += k0_direct(&row(&x, i), &row(&x, j), &row(&s, i), &row(&s, j), 1.0, -0.5);
                }
            }
            let expect = match est {
                Estimator::U => total / (n * (n - 1)) as f64,
                _ => total / (n * n) as f64,
            };
            assert!((v.ksd_sq - expect).abs() <= 1e-10 * expect.abs().max(1.0), "{est:?}: {} vs {expect}", v.ksd_sq);
        }
    }
}
