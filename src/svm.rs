//! C-support vector classification (C-SVC) with an RBF kernel, solved in the dual by sequential minimal
//! optimisation with LIBSVM's second-order working-set selection (Fan, Chen & Lin 2005, "Working Set Selection
//! Using Second Order Information for Training SVM", JMLR 6, Algorithm 1 / WSS 2; Chang & Lin, "LIBSVM: a library
//! for support vector machines", 2011, sec. 4.1.1 (selection), 4.1.5 (bias) and 6 (one-vs-one)). Written here
//! rather than taken from `linfa-svm` because that crate does not build for wasm32-unknown-unknown
//! (docs/dependencies.md).
//!
//! Dual (Fan et al. eq. 1): `min_a 1/2 a^T Q a - e^T a` subject to `0 <= a_i <= C`, `y^T a = 0`, with
//! `Q_ij = y_i y_j K(x_i, x_j)`; decision `f(x) = sum_i a_i y_i K(x_i, x) - rho`. No shrinking (a speed
//! heuristic that leaves the solution unchanged within the tolerance).

use crate::math::exp;

/// Options of the dual solver.
#[derive(Debug, Clone, Copy)]
pub struct SvcOptions {
    /// Box constraint `C > 0`.
    pub c: f64,
    /// Stopping tolerance on the maximal violating pair, `m(a) - M(a) <= tol` (LIBSVM's `-e`, default 1e-3).
    pub tol: f64,
    /// Iteration cap (LIBSVM: max(10^7, 100 n)); the iterate at the cap is returned with `converged = false`.
    pub max_iter: usize,
}

impl SvcOptions {
    /// `C = c` with LIBSVM's tolerance 1e-3 and an iteration cap of 10^5.
    pub fn new(c: f64) -> Self {
        SvcOptions { c, tol: 1e-3, max_iter: 100_000 }
    }
}

/// The solution of one binary dual problem.
#[derive(Debug, Clone)]
pub struct BinarySvc {
    /// Dual variables `a_i` in `[0, C]`.
    pub alpha: Vec<f64>,
    /// Bias: `f(x) = sum_i a_i y_i K(x_i, x) - rho`.
    pub rho: f64,
    /// Gradient of the dual objective at `alpha`: `G = Q a - e`.
    pub grad: Vec<f64>,
    /// SMO iterations taken.
    pub iterations: usize,
    /// Whether the stopping criterion was met before the cap.
    pub converged: bool,
}

/// The RBF kernel `exp(-gamma |a - b|^2)`.
pub fn rbf(a: &[f64], b: &[f64], gamma: f64) -> f64 {
    exp(-gamma * a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>())
}

/// Solves the C-SVC dual for labels `y` in {-1, +1} and the `n x n` row-major kernel matrix `k`.
pub fn solve_dual(k: &[f64], y: &[f64], o: &SvcOptions) -> BinarySvc {
    let n = y.len();
    assert_eq!(k.len(), n * n, "kernel matrix must be n x n");
    let c = o.c;
    const TAU: f64 = 1e-12;
    let q = |i: usize, j: usize| y[i] * y[j] * k[i * n + j];
    let mut a = vec![0.0; n];
    let mut g = vec![-1.0; n];
    let up = |a: &[f64], t: usize| (y[t] > 0.0 && a[t] < c) || (y[t] < 0.0 && a[t] > 0.0);
    let low = |a: &[f64], t: usize| (y[t] > 0.0 && a[t] > 0.0) || (y[t] < 0.0 && a[t] < c);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < o.max_iter {
        // WSS 2 (Fan et al. 2005, Algorithm 1): i maximises -y_t G_t over I_up ...
        let (mut gmax, mut i) = (f64::NEG_INFINITY, usize::MAX);
        for t in 0..n {
            if up(&a, t) && -y[t] * g[t] >= gmax {
                gmax = -y[t] * g[t];
                i = t;
            }
        }
        // ... j minimises -b_it^2 / a_it over t in I_low with -y_t G_t < m(a) (second-order gain)
        let (mut gmin, mut j, mut best) = (f64::INFINITY, usize::MAX, f64::INFINITY);
        for t in 0..n {
            if !low(&a, t) {
                continue;
            }
            let v = -y[t] * g[t];
            gmin = gmin.min(v);
            if i != usize::MAX && v < gmax {
                let b = gmax - v;
                let mut quad = k[i * n + i] + k[t * n + t] - 2.0 * k[i * n + t];
                if quad <= 0.0 {
                    quad = TAU;
                }
                if -(b * b) / quad <= best {
                    best = -(b * b) / quad;
                    j = t;
                }
            }
        }
        if i == usize::MAX || j == usize::MAX || gmax - gmin < o.tol {
            converged = true;
            break;
        }
        iterations += 1;
        // the two-variable subproblem, clipped to the box (LIBSVM Solver::Solve)
        let (ai, aj) = (a[i], a[j]);
        if y[i] != y[j] {
            let mut quad = k[i * n + i] + k[j * n + j] + 2.0 * q(i, j);
            if quad <= 0.0 {
                quad = TAU;
            }
            let delta = (-g[i] - g[j]) / quad;
            let diff = a[i] - a[j];
            a[i] += delta;
            a[j] += delta;
            if diff > 0.0 {
                if a[j] < 0.0 {
                    a[j] = 0.0;
                    a[i] = diff;
                }
            } else if a[i] < 0.0 {
                a[i] = 0.0;
                a[j] = -diff;
            }
            if diff > 0.0 {
                if a[i] > c {
                    a[i] = c;
                    a[j] = c - diff;
                }
            } else if a[j] > c {
                a[j] = c;
                a[i] = c + diff;
            }
        } else {
            let mut quad = k[i * n + i] + k[j * n + j] - 2.0 * q(i, j);
            if quad <= 0.0 {
                quad = TAU;
            }
            let delta = (g[i] - g[j]) / quad;
            let sum = a[i] + a[j];
            a[i] -= delta;
            a[j] += delta;
            if sum > c {
                if a[i] > c {
                    a[i] = c;
                    a[j] = sum - c;
                }
            } else if a[j] < 0.0 {
                a[j] = 0.0;
                a[i] = sum;
            }
            if sum > c {
                if a[j] > c {
                    a[j] = c;
                    a[i] = sum - c;
                }
            } else if a[i] < 0.0 {
                a[i] = 0.0;
                a[j] = sum;
            }
        }
        let (di, dj) = (a[i] - ai, a[j] - aj);
        for (t, gt) in g.iter_mut().enumerate() {
            *gt += q(i, t) * di + q(j, t) * dj;
        }
    }
    // bias (LIBSVM calculate_rho): the mean of y_i G_i over free variables, else the middle of the feasible range
    let (mut ub, mut lb, mut sum, mut free) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
    for t in 0..n {
        let yg = y[t] * g[t];
        if a[t] >= c {
            if y[t] < 0.0 {
                ub = ub.min(yg)
            } else {
                lb = lb.max(yg)
            }
        } else if a[t] <= 0.0 {
            if y[t] > 0.0 {
                ub = ub.min(yg)
            } else {
                lb = lb.max(yg)
            }
        } else {
            free += 1;
            sum += yg;
        }
    }
    let rho = if free > 0 { sum / free as f64 } else { (ub + lb) / 2.0 };
    BinarySvc { alpha: a, rho, grad: g, iterations, converged }
}

/// One binary machine of [`Svc`]: classes `(r, s)`, the rows it uses, their signed coefficients, its bias.
type Machine = (usize, usize, Vec<usize>, Vec<f64>, f64);

/// A multi-class RBF C-SVC, one-vs-one with majority voting (LIBSVM, Chang & Lin 2011, sec. 7; ties go to the
/// lower class index, as LIBSVM).
#[derive(Debug, Clone)]
pub struct Svc {
    gamma: f64,
    p: usize,
    /// Training rows (row-major).
    x: Vec<f64>,
    classes: usize,
    /// One machine per pair `(r, s)`, `r < s`: the rows it uses, their signed coefficients `a_i y_i` (+1 = class
    /// `r`) and its bias.
    machines: Vec<Machine>,
    /// Whether every binary solve met the tolerance.
    pub converged: bool,
}

impl Svc {
    /// Trains on the `n x p` row-major `x` with labels `0..classes` (`classes >= 2`).
    pub fn fit(x: &[f64], p: usize, labels: &[usize], classes: usize, c: f64, gamma: f64, o: &SvcOptions) -> Svc {
        let n = labels.len();
        let row = |i: usize| &x[i * p..(i + 1) * p];
        let mut km = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = rbf(row(i), row(j), gamma);
                km[i * n + j] = v;
                km[j * n + i] = v;
            }
        }
        let mut machines = Vec::new();
        let mut converged = true;
        for r in 0..classes {
            for s in r + 1..classes {
                let idx: Vec<usize> = (0..n).filter(|&i| labels[i] == r || labels[i] == s).collect();
                if idx.is_empty() {
                    continue;
                }
                let m = idx.len();
                let y: Vec<f64> = idx.iter().map(|&i| if labels[i] == r { 1.0 } else { -1.0 }).collect();
                let mut sub = vec![0.0; m * m];
                for (a, &i) in idx.iter().enumerate() {
                    for (b, &j) in idx.iter().enumerate() {
                        sub[a * m + b] = km[i * n + j];
                    }
                }
                let sol = solve_dual(&sub, &y, &SvcOptions { c, ..*o });
                converged &= sol.converged;
                let coef: Vec<f64> = sol.alpha.iter().zip(&y).map(|(a, y)| a * y).collect();
                machines.push((r, s, idx, coef, sol.rho));
            }
        }
        Svc { gamma, p, x: x.to_vec(), classes, machines, converged }
    }

    /// The decision value of machine `(r, s)` at `v` (positive votes for `r`), `None` if that pair had no rows.
    pub fn decision(&self, r: usize, s: usize, v: &[f64]) -> Option<f64> {
        let (_, _, idx, coef, rho) = self.machines.iter().find(|m| m.0 == r && m.1 == s)?;
        let f: f64 = idx
            .iter()
            .zip(coef)
            .filter(|(_, c)| **c != 0.0)
            .map(|(&i, c)| c * rbf(&self.x[i * self.p..(i + 1) * self.p], v, self.gamma))
            .sum();
        Some(f - rho)
    }

    /// The predicted class of row `v` (one-vs-one vote); `None` if a decision value is not finite.
    pub fn predict(&self, v: &[f64]) -> Option<usize> {
        let mut votes = vec![0usize; self.classes];
        for (r, s, _, _, _) in &self.machines {
            let f = self.decision(*r, *s, v)?;
            if !f.is_finite() {
                return None;
            }
            votes[if f > 0.0 { *r } else { *s }] += 1;
        }
        Some((0..self.classes).fold(0, |b, j| if votes[j] > votes[b] { j } else { b }))
    }
}
