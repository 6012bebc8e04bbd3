//! The RBF C-SVC of `tunelab::svm` (SMO with second-order working-set selection, Fan, Chen & Lin 2005): on a
//! separable set it classifies every point, and its dual solution satisfies the constraints
//! (`sum_i a_i y_i = 0`, `0 <= a_i <= C`) and the KKT conditions of C-SVC within the solver's tolerance.

use rand::RngExt;
use tunelab::rng::stream;
use tunelab::svm::{rbf, solve_dual, Svc, SvcOptions};

/// Points around `centres` (one blob per class, spread `sd`), row-major, with their class labels.
fn blobs(centres: &[(f64, f64)], per: usize, sd: f64, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut r = stream(seed, 0);
    let (mut x, mut l) = (Vec::new(), Vec::new());
    for (c, &(a, b)) in centres.iter().enumerate() {
        for _ in 0..per {
            x.push(a + sd * (r.random::<f64>() - 0.5));
            x.push(b + sd * (r.random::<f64>() - 0.5));
            l.push(c);
        }
    }
    (x, l)
}

fn kernel(x: &[f64], gamma: f64) -> Vec<f64> {
    let n = x.len() / 2;
    let mut k = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            k[i * n + j] = rbf(&x[2 * i..2 * i + 2], &x[2 * j..2 * j + 2], gamma);
        }
    }
    k
}

/// The largest violation of the C-SVC optimality conditions for box bound `c`, with the decision values
/// `f(x_i) = sum_j a_j y_j K_ij - rho` recomputed from the kernel: `a_i` outside `[0, c]`, `|sum a_i y_i|`, and
/// the complementary slackness `a_i = 0 => y_i f_i >= 1`, `0 < a_i < c => y_i f_i = 1`, `a_i = c => y_i f_i <= 1`.
fn kkt_violation(alpha: &[f64], y: &[f64], k: &[f64], rho: f64, c: f64) -> f64 {
    let n = y.len();
    let mut worst = alpha.iter().zip(y).map(|(a, y)| a * y).sum::<f64>().abs();
    for i in 0..n {
        let f: f64 = (0..n).map(|j| alpha[j] * y[j] * k[i * n + j]).sum::<f64>() - rho;
        let m = y[i] * f;
        let a = alpha[i];
        worst = worst.max((-a).max(a - c).max(0.0));
        let v = if a <= 1e-12 {
            (1.0 - m).max(0.0)
        } else if a >= c - 1e-12 {
            (m - 1.0).max(0.0)
        } else {
            (m - 1.0).abs()
        };
        worst = worst.max(v);
    }
    worst
}

#[test]
fn separable_blobs_are_classified_perfectly_and_the_dual_is_optimal() {
    let (x, l) = blobs(&[(-2.0, 0.0), (2.0, 1.0)], 20, 1.5, 7);
    let y: Vec<f64> = l.iter().map(|&c| if c == 0 { 1.0 } else { -1.0 }).collect();
    let (gamma, c) = (0.5, 10.0);
    let k = kernel(&x, gamma);
    let sol = solve_dual(&k, &y, &SvcOptions::new(c));
    assert!(sol.converged, "{} iterations", sol.iterations);
    let n = y.len();
    for i in 0..n {
        let f: f64 = (0..n).map(|j| sol.alpha[j] * y[j] * k[i * n + j]).sum::<f64>() - sol.rho;
        assert!(f * y[i] > 0.0, "point {i}: y f = {}", f * y[i]);
    }
    assert!(sol.alpha.iter().all(|&a| (0.0..=c).contains(&a)));
    assert!(sol.alpha.iter().zip(&y).map(|(a, y)| a * y).sum::<f64>().abs() < 1e-10);
    assert!(sol.alpha.iter().any(|&a| a > 0.0), "some support vectors");
    // the stopping rule m(a) - M(a) < 1e-3 bounds every KKT violation by 1e-3 (here with a margin)
    let v = kkt_violation(&sol.alpha, &y, &k, sol.rho, c);
    assert!(v < 2e-3, "KKT violation {v}");
    // the multi-class wrapper agrees on the training points
    let svc = Svc::fit(&x, 2, &l, 2, c, gamma, &SvcOptions::new(c));
    assert!(svc.converged);
    for i in 0..n {
        assert_eq!(svc.predict(&x[2 * i..2 * i + 2]), Some(l[i]));
    }
}

#[test]
fn overlapping_classes_hit_the_box_and_a_wrong_bound_is_caught() {
    // overlapping blobs with a small C: some a_i sit at the upper bound C
    let (x, l) = blobs(&[(-0.5, 0.0), (0.5, 0.0)], 30, 2.0, 11);
    let y: Vec<f64> = l.iter().map(|&c| if c == 0 { 1.0 } else { -1.0 }).collect();
    let c = 0.5;
    let k = kernel(&x, 1.0);
    let sol = solve_dual(&k, &y, &SvcOptions::new(c));
    assert!(sol.converged);
    assert!(sol.alpha.iter().filter(|&&a| a == c).count() >= 2, "{:?}", sol.alpha);
    let v = kkt_violation(&sol.alpha, &y, &k, sol.rho, c);
    assert!(v < 2e-3, "KKT violation {v}");
    // the same check with a wrong bound (C/2) must fail: alphas at C lie outside [0, C/2]
    assert!(kkt_violation(&sol.alpha, &y, &k, sol.rho, c / 2.0) > 0.1);
}

#[test]
fn three_separated_classes_one_vs_one() {
    let (x, l) = blobs(&[(-4.0, 0.0), (4.0, 0.0), (0.0, 5.0)], 15, 2.0, 3);
    let svc = Svc::fit(&x, 2, &l, 3, 100.0, 0.3, &SvcOptions::new(100.0));
    assert!(svc.converged);
    for (i, &c) in l.iter().enumerate() {
        assert_eq!(svc.predict(&x[2 * i..2 * i + 2]), Some(c), "point {i}");
    }
    assert_eq!(svc.predict(&[-4.0, 0.2]), Some(0));
    assert_eq!(svc.predict(&[0.1, 5.0]), Some(2));
    // machine (0, 1) votes positive for class 0
    assert!(svc.decision(0, 1, &[-4.0, 0.0]).unwrap() > 0.0);
}
