//! A compact projected L-BFGS for box-constrained smooth minimisation (Nocedal & Wright 2006, Alg. 7.4,
//! two-loop recursion; Armijo backtracking on the projected path). Used for GP hyperparameters and for
//! acquisition functions. Robust to `f = +inf` (the step is shortened).

/// Options of [`lbfgs_box`].
#[derive(Debug, Clone, Copy)]
pub struct LbfgsOptions {
    /// Maximum iterations.
    pub max_iters: usize,
    /// History length.
    pub memory: usize,
    /// Stop when the projected gradient's max-norm is below this.
    pub gtol: f64,
    /// Stop when the relative decrease of f is below this.
    pub ftol: f64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        LbfgsOptions { max_iters: 60, memory: 6, gtol: 1e-6, ftol: 1e-10 }
    }
}

fn project(x: &mut [f64], lo: &[f64], hi: &[f64]) {
    for ((v, a), b) in x.iter_mut().zip(lo).zip(hi) {
        *v = v.clamp(*a, *b);
    }
}

/// Projected gradient max-norm (zero for components pushing against an active bound).
fn pg_norm(x: &[f64], g: &[f64], lo: &[f64], hi: &[f64]) -> f64 {
    let mut m: f64 = 0.0;
    for i in 0..x.len() {
        let gi = if (x[i] <= lo[i] && g[i] > 0.0) || (x[i] >= hi[i] && g[i] < 0.0) { 0.0 } else { g[i] };
        m = m.max(gi.abs());
    }
    m
}

/// Minimises `f` (which writes its gradient into the second argument and returns the value) over the box
/// `[lo, hi]` from `x0`. Returns the best point and value found (value `+inf` if `f` was never finite).
pub fn lbfgs_box(
    f: &mut dyn FnMut(&[f64], &mut [f64]) -> f64,
    mut x: Vec<f64>,
    lo: &[f64],
    hi: &[f64],
    opts: &LbfgsOptions,
) -> (Vec<f64>, f64) {
    let n = x.len();
    project(&mut x, lo, hi);
    let mut g = vec![0.0; n];
    let mut fx = f(&x, &mut g);
    if !fx.is_finite() || g.iter().any(|v| !v.is_finite()) {
        return (x, f64::INFINITY);
    }
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    let mut alpha = vec![0.0; opts.memory];
    for _ in 0..opts.max_iters {
        if pg_norm(&x, &g, lo, hi) < opts.gtol {
            break;
        }
        // two-loop recursion on the free variables: d = -H g_free (active bounds held fixed)
        for i in 0..n {
            let active = (x[i] <= lo[i] && g[i] > 0.0) || (x[i] >= hi[i] && g[i] < 0.0);
            d[i] = if active { 0.0 } else { g[i] };
        }
        let k = s_hist.len();
        for i in (0..k).rev() {
            let rho = 1.0 / dot(&y_hist[i], &s_hist[i]);
            alpha[i] = rho * dot(&s_hist[i], &d);
            axpy(-alpha[i], &y_hist[i], &mut d);
        }
        if k > 0 {
            let gamma = dot(&s_hist[k - 1], &y_hist[k - 1]) / dot(&y_hist[k - 1], &y_hist[k - 1]);
            d.iter_mut().for_each(|v| *v *= gamma);
        } else {
            // first step: unit-length move along the gradient
            let gn2 = dot(&d, &d).sqrt();
            d.iter_mut().for_each(|v| *v /= gn2.max(1e-300));
        }
        for i in 0..k {
            let rho = 1.0 / dot(&y_hist[i], &s_hist[i]);
            let beta = rho * dot(&y_hist[i], &d);
            axpy(alpha[i] - beta, &s_hist[i], &mut d);
        }
        d.iter_mut().for_each(|v| *v = -*v);
        // zero components that would leave the box immediately or belong to active bounds
        for i in 0..n {
            let active = (x[i] <= lo[i] && g[i] > 0.0) || (x[i] >= hi[i] && g[i] < 0.0);
            if active || (x[i] <= lo[i] && d[i] < 0.0) || (x[i] >= hi[i] && d[i] > 0.0) {
                d[i] = 0.0;
            }
        }
        if dot(&d, &g) >= 0.0 {
            // not a descent direction: reset to steepest descent
            s_hist.clear();
            y_hist.clear();
            for i in 0..n {
                d[i] = -g[i];
                if (x[i] <= lo[i] && d[i] < 0.0) || (x[i] >= hi[i] && d[i] > 0.0) {
                    d[i] = 0.0;
                }
            }
            let dn = dot(&d, &d).sqrt();
            if dn == 0.0 {
                break;
            }
            d.iter_mut().for_each(|v| *v /= dn);
        }
        // backtracking (Armijo) on the projected path
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..30 {
            for i in 0..n {
                xn[i] = x[i] + t * d[i];
            }
            project(&mut xn, lo, hi);
            let fnew = f(&xn, &mut gn);
            let dec: f64 = (0..n).map(|i| g[i] * (xn[i] - x[i])).sum();
            if fnew.is_finite() && gn.iter().all(|v| v.is_finite()) && fnew <= fx + 1e-4 * dec.min(0.0) {
                accepted = true;
                let s: Vec<f64> = (0..n).map(|i| xn[i] - x[i]).collect();
                let y: Vec<f64> = (0..n).map(|i| gn[i] - g[i]).collect();
                let sy = dot(&s, &y);
                if sy > 1e-12 * dot(&y, &y).sqrt() * dot(&s, &s).sqrt() && sy > 0.0 {
                    if s_hist.len() == opts.memory {
                        s_hist.remove(0);
                        y_hist.remove(0);
                    }
                    s_hist.push(s);
                    y_hist.push(y);
                }
                let rel = (fx - fnew).abs() / fx.abs().max(fnew.abs()).max(1.0);
                x.copy_from_slice(&xn);
                g.copy_from_slice(&gn);
                fx = fnew;
                if rel < opts.ftol {
                    return (x, fx);
                }
                break;
            }
            t *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    (x, fx)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rosenbrock_and_active_bound() {
        let mut f = |x: &[f64], g: &mut [f64]| {
            let (a, b) = (x[0], x[1]);
            g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
            g[1] = 200.0 * (b - a * a);
            (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
        };
        let opts = LbfgsOptions { max_iters: 500, ..Default::default() };
        let (x, fx) = lbfgs_box(&mut f, vec![-1.2, 1.0], &[-5.0, -5.0], &[5.0, 5.0], &opts);
        assert!((x[0] - 1.0).abs() < 1e-4 && (x[1] - 1.0).abs() < 1e-4, "{x:?} {fx}");
        // bound active at a = 0.5: minimiser on the box is (0.5, 0.25)
        let (x, _) = lbfgs_box(&mut f, vec![-1.2, 1.0], &[-5.0, -5.0], &[0.5, 5.0], &opts);
        assert!((x[0] - 0.5).abs() < 1e-6 && (x[1] - 0.25).abs() < 1e-4, "{x:?}");
    }
}
