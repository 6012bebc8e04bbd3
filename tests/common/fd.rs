//! Finite-difference derivatives for the gradient checks of the tests: one central difference, written once.

/// The derivative of `f` along coordinate `j` at `x` by the central difference
/// `(f(x + h e_j) - f(x - h e_j)) / (2 h)` (truncation error O(h^2)).
pub fn partial(mut f: impl FnMut(&[f64]) -> f64, x: &[f64], j: usize, h: f64) -> f64 {
    let mut y = x.to_vec();
    y[j] = x[j] + h;
    let fp = f(&y);
    y[j] = x[j] - h;
    let fm = f(&y);
    (fp - fm) / (2.0 * h)
}

/// The central-difference gradient of `f` at `x`, coordinate `j` with the step `1e-5 (1 + |x_j|)` (relative to
/// the coordinate's size, so large and small coordinates are differenced alike).
pub fn gradient(mut f: impl FnMut(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len()).map(|j| partial(&mut f, x, j, 1e-5 * (1.0 + x[j].abs()))).collect()
}
