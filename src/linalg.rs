//! Dense linear algebra on slices: a safe strided matrix product (wrapping `matrixmultiply::dgemm`), the two
//! dot products the code base uses (sequential [`dot`], four-lane [`dot4`]: different summation orders, so
//! different last bits; each caller keeps the one its pinned results were made with) and `axpy`.

/// `sum_i a_i b_i` summed left to right by `Iterator::sum` (the optimisers', solvers' and GP fits' dot).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `|a|_2 = sqrt(dot(a, a))`.
#[inline]
pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `C = alpha * A B + beta * C` for `A` (`m x k`), `B` (`k x n`), `C` (`m x n`) stored in slices with
/// arbitrary row / column strides (`rs*`, `cs*`, in elements). Panics if a stride pattern reaches outside
/// its slice (a programming error, never user input). With `beta == 0`, `C` is overwritten.
#[allow(clippy::too_many_arguments)]
pub fn gemm(
    m: usize,
    k: usize,
    n: usize,
    alpha: f64,
    a: &[f64],
    rsa: usize,
    csa: usize,
    b: &[f64],
    rsb: usize,
    csb: usize,
    beta: f64,
    c: &mut [f64],
    rsc: usize,
    csc: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    let last = |r: usize, cc: usize, rs: usize, cs: usize| (r - 1) * rs + (cc - 1) * cs;
    assert!(last(m, n, rsc, csc) < c.len(), "gemm: C out of bounds");
    if k > 0 {
        assert!(last(m, k, rsa, csa) < a.len(), "gemm: A out of bounds");
        assert!(last(k, n, rsb, csb) < b.len(), "gemm: B out of bounds");
    }
    // SAFETY: every index the product touches lies inside the slices (checked above); C does not alias
    // A or B because it is a distinct &mut borrow.
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa as isize,
            csa as isize,
            b.as_ptr(),
            rsb as isize,
            csb as isize,
            beta,
            c.as_mut_ptr(),
            rsc as isize,
            csc as isize,
        );
    }
}

/// Dot product with four independent accumulators (vectorises; order fixed, so deterministic): lanes
/// `acc_r = sum_{i = r mod 4} a_i b_i`, then `(acc_0 + acc_2) + (acc_1 + acc_3)`, then the tail in order.
/// Not the same bits as [`dot`]: the targets' hot loops use this one.
#[inline(always)]
pub fn dot4(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let mut ca = a.chunks_exact(4);
    let mut cb = b.chunks_exact(4);
    for (x, y) in (&mut ca).zip(&mut cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        s += x * y;
    }
    s
}

/// `out_i += alpha x_i` (one multiply and one add per element, so every caller gets the same bits).
#[inline(always)]
pub fn axpy(alpha: f64, x: &[f64], out: &mut [f64]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o += alpha * v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_matches_naive_with_strides() {
        // A 3x2 row-major, B^T stored as 4x2 row-major (so B is 2x4 with strides (1, 2)).
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let bt = [1.0, -1.0, 0.5, 2.0, 3.0, 0.0, -2.0, 1.0];
        let mut c = vec![1.0; 12];
        gemm(3, 2, 4, 2.0, &a, 2, 1, &bt, 1, 2, 1.0, &mut c, 4, 1);
        for i in 0..3 {
            for j in 0..4 {
                let v = 1.0 + 2.0 * (a[i * 2] * bt[j * 2] + a[i * 2 + 1] * bt[j * 2 + 1]);
                assert!((c[i * 4 + j] - v).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn dot_orders() {
        let a: Vec<f64> = (0..11).map(|i| 0.1 * i as f64 - 0.37).collect();
        let b: Vec<f64> = (0..11).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let naive: f64 = (0..11).map(|i| a[i] * b[i]).sum();
        assert_eq!(dot(&a, &b).to_bits(), naive.to_bits());
        assert!((dot4(&a, &b) - naive).abs() < 1e-15);
        let mut y = b.clone();
        axpy(2.0, &a, &mut y);
        assert!((0..11).all(|i| y[i].to_bits() == (b[i] + 2.0 * a[i]).to_bits()));
    }
}
