//! HOAG: hypergradients against finite differences, solver tolerances, HOAG against a fine grid, determinism,
//! bad configs.

use std::sync::atomic::AtomicBool;
use tunelab::hoag::{
    self, conjugate_gradient, hypergradient, lbfgs, outer_loss_at, Bilevel, HoagBudget, HoagConfig, HoagData,
    MethodSpec, ProblemKind, Tolerance,
};
use tunelab::data::Dataset;
use tunelab::Error;

fn small(problem: ProblemKind, n: usize, d: usize) -> (HoagConfig, Dataset) {
    let mut cfg = HoagConfig::new(problem);
    cfg.data = HoagData::Simulate { n, d, seed: 3 };
    cfg.landscape_points = 0;
    let data = hoag::builtin_data(&cfg).unwrap();
    (cfg, data)
}

fn fd_check(pr: &dyn Bilevel, lam: &[f64]) {
    let (_, g) = hypergradient(pr, lam, 1e-12, 10_000);
    // Central differences, h = 1e-3: truncation error O(h²) ≈ 1e-6 relative, solver noise far below.
    let h = 1e-3;
    for i in 0..lam.len() {
        let mut a = lam.to_vec();
        let mut b = lam.to_vec();
        a[i] += h;
        b[i] -= h;
        let fd = (outer_loss_at(pr, &a, 1e-13, 10_000) - outer_loss_at(pr, &b, 1e-13, 10_000)) / (2.0 * h);
        let err = (g[i] - fd).abs();
        assert!(err <= 1e-6 + 1e-4 * fd.abs(), "coordinate {i} at {lam:?}: analytic {} vs FD {fd}", g[i]);
    }
}

#[test]
fn logistic_hypergradient_matches_finite_differences() {
    let (cfg, data) = small(ProblemKind::Logreg, 90, 6);
    let pr = hoag::problem_from_data(&cfg, &data).unwrap();
    for lam in [-4.0, -1.0, 1.5] {
        fd_check(pr.as_ref(), &[lam]);
    }
    // The hypergradient is not trivially zero.
    let (_, g) = hypergradient(pr.as_ref(), &[-4.0], 1e-12, 10_000);
    assert!(g[0].abs() > 1e-6);
}

#[test]
fn kernel_ridge_hypergradient_matches_finite_differences() {
    let (cfg, data) = small(ProblemKind::KernelRidge, 60, 3);
    let pr = hoag::problem_from_data(&cfg, &data).unwrap();
    for lam in [[-2.0, -3.0], [-0.5, -1.0], [-3.0, 0.5]] {
        fd_check(pr.as_ref(), &lam);
    }
    let (_, g) = hypergradient(pr.as_ref(), &[-2.0, -3.0], 1e-12, 10_000);
    assert!(g.iter().all(|v| v.abs() > 1e-8), "{g:?}");
}

#[test]
fn iterative_differentiation_is_the_exact_derivative_of_the_unrolled_map() {
    for (problem, n, d, lam) in [(ProblemKind::Logreg, 60, 4, vec![-1.0]), (ProblemKind::KernelRidge, 45, 2, vec![-1.0, -2.0])] {
        let (cfg, data) = small(problem, n, d);
        let pr = hoag::problem_from_data(&cfg, &data).unwrap();
        let eta = 0.5 / pr.at(&lam).lipschitz();
        let (_, g) = hoag::iterdiff_hypergradient(pr.as_ref(), &lam, eta, 30);
        for i in 0..lam.len() {
            let h = 1e-5;
            let mut a = lam.clone();
            let mut b = lam.clone();
            a[i] += h;
            b[i] -= h;
            let fd = (hoag::iterdiff_hypergradient(pr.as_ref(), &a, eta, 30).0
                - hoag::iterdiff_hypergradient(pr.as_ref(), &b, eta, 30).0)
                / (2.0 * h);
            assert!((g[i] - fd).abs() <= 1e-7 + 1e-5 * fd.abs(), "{problem:?} {i}: {} vs {fd}", g[i]);
        }
    }
}

#[test]
fn conjugate_gradient_meets_its_tolerance() {
    // SPD matrix A = B Bᵀ + 0.1 I with a fixed pseudo-random B.
    let n = 30;
    let mut s = 12345u64;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    };
    let bm: Vec<f64> = (0..n * n).map(|_| next()).collect();
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| bm[i * n + k] * bm[j * n + k]).sum::<f64>() + if i == j { 0.1 } else { 0.0 };
        }
    }
    let b: Vec<f64> = (0..n).map(|_| next()).collect();
    let apply = |v: &[f64], out: &mut [f64]| {
        for i in 0..n {
            out[i] = (0..n).map(|j| a[i * n + j] * v[j]).sum();
        }
    };
    for tol in [1e-2, 1e-6, 1e-10] {
        let mut x = vec![0.0; n];
        let info = conjugate_gradient(apply, &b, &mut x, tol, 1000);
        let mut r = vec![0.0; n];
        apply(&x, &mut r);
        let res = r.iter().zip(&b).map(|(u, v)| (u - v) * (u - v)).sum::<f64>().sqrt();
        assert!(info.converged && res <= tol * 1.0001, "tol {tol}: residual {res}");
    }
}

#[test]
fn lbfgs_meets_its_tolerance_on_the_inner_logistic_problem() {
    let (cfg, data) = small(ProblemKind::Logreg, 120, 8);
    let pr = hoag::problem_from_data(&cfg, &data).unwrap();
    for lam in [-6.0, 0.0] {
        let at = pr.at(&[lam]);
        for tol in [1e-3, 1e-8] {
            let mut x = vec![0.0; 8];
            let info = lbfgs(|w, g| at.value_grad(w, g), &mut x, tol, 5000, 10);
            let mut g = vec![0.0; 8];
            at.value_grad(&x, &mut g);
            let gn = g.iter().map(|v| v * v).sum::<f64>().sqrt();
            assert!(info.converged && gn <= tol, "lam {lam} tol {tol}: |grad| = {gn}");
        }
    }
    // A quadratic with known minimiser.
    let mut x = vec![5.0, -3.0];
    let info = lbfgs(|w, g| { g[0] = 2.0 * (w[0] - 1.0); g[1] = 20.0 * (w[1] + 2.0); (w[0] - 1.0).powi(2) + 10.0 * (w[1] + 2.0).powi(2) }, &mut x, 1e-10, 100, 5);
    assert!(info.converged && (x[0] - 1.0).abs() < 1e-9 && (x[1] + 2.0).abs() < 1e-9);
}

#[test]
fn hoag_reaches_the_fine_grid_optimum_on_small_ridge() {
    let (mut cfg, data) = small(ProblemKind::KernelRidge, 60, 2);
    cfg.methods = vec![MethodSpec::Hoag { tolerance: Tolerance::Exponential }];
    cfg.budget = HoagBudget { cost: 1_000_000, seconds: None, max_iter: 150 };
    cfg.landscape_points = 81;
    cfg.init = Some(vec![-1.0, -1.0]);
    let cancel = AtomicBool::new(false);
    let rep = hoag::run_with_data(&cfg, Some(&data), &mut |_| {}, &cancel).unwrap();
    let grid = rep.landscape.as_ref().unwrap();
    let m = &rep.methods[0];
    // Stated tolerance: within 1% of the fine-grid (0.3 spacing) minimum of the outer loss.
    assert!(m.final_loss <= grid.min * 1.01, "HOAG {} at {:?} vs grid {} at {:?}", m.final_loss, m.final_hyper, grid.min, grid.argmin);
    // The tolerance sequence is exponential.
    assert!((m.tolerances[1] / m.tolerances[0] - 0.9).abs() < 1e-12);
}

#[test]
fn presets_and_comparison_run_deterministically() {
    let (mut cfg, data) = small(ProblemKind::Logreg, 150, 10);
    cfg.budget = HoagBudget { cost: 600, seconds: None, max_iter: 15 };
    cfg.landscape_points = 9;
    let cancel = AtomicBool::new(false);
    let mut events = 0;
    let a = hoag::run_with_data(&cfg, Some(&data), &mut |_| events += 1, &cancel).unwrap();
    // Same numbers on a one-thread pool (the landscape rows run in parallel).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = pool.install(|| hoag::run_with_data(&cfg, Some(&data), &mut |_| {}, &cancel).unwrap());
    assert_eq!(a.landscape, b.landscape);
    assert_eq!(a.methods.len(), 7);
    assert!(events > 7);
    for (x, y) in a.methods.iter().zip(&b.methods) {
        assert_eq!(x.final_loss, y.final_loss, "{}", x.name);
        assert_eq!(x.final_hyper, y.final_hyper);
        assert_eq!(x.trace.len(), y.trace.len());
        assert!(x.trace.iter().zip(&y.trace).all(|(p, q)| p.cost == q.cost && p.outer_loss == q.outer_loss));
        assert!(x.final_loss.is_finite() && !x.trace.is_empty());
    }
    let json = serde_json::to_value(&a).unwrap();
    assert!(json["methods"][0]["name"].is_string() && json["methods"][0]["final_loss"].is_number());
    assert!(json["methods"][0]["trace"].as_array().unwrap().len() > 1);
    assert!(a.reference_optimum <= a.methods.iter().map(|m| m.final_loss).fold(f64::INFINITY, f64::min));
}

#[test]
fn cancel_stops_the_run() {
    let (cfg, data) = small(ProblemKind::Logreg, 60, 4);
    let cancel = AtomicBool::new(true);
    let r = hoag::run_with_data(&cfg, Some(&data), &mut |_| {}, &cancel);
    assert_eq!(r.unwrap_err(), Error::Cancelled);
}

#[test]
fn bad_configs_give_clear_errors() {
    let cancel = AtomicBool::new(false);
    let err = |cfg: &HoagConfig| hoag::run(cfg, &mut |_| {}, &cancel).unwrap_err().to_string();
    assert!(HoagConfig::preset("nope").unwrap_err().to_string().contains("unknown HOAG preset"));
    let mut c = HoagConfig::preset("logreg").unwrap();
    c.bounds = [3.0, -3.0];
    assert!(err(&c).contains("bounds"));
    let mut c = HoagConfig::preset("kernel-ridge").unwrap();
    c.init = Some(vec![0.0]);
    assert!(err(&c).contains("init has 1 values"));
    let mut c = HoagConfig::preset("logreg").unwrap();
    c.budget.cost = 0;
    assert!(err(&c).contains("budget"));
    let mut c = HoagConfig::preset("logreg").unwrap();
    c.methods.clear();
    assert!(err(&c).contains("at least one method"));
    let mut c = HoagConfig::preset("logreg").unwrap();
    c.methods = vec![MethodSpec::Grid { points: 1 }];
    assert!(err(&c).contains("grid"));
    let mut c = HoagConfig::preset("logreg").unwrap();
    c.data = HoagData::Upload { label: None };
    assert!(err(&c).contains("run_with_data"));
    // Three label values for logistic regression.
    let c = HoagConfig::preset("logreg").unwrap();
    let data = Dataset::new((0..30).map(|i| i as f64).collect(), (0..30).map(|i| (i % 3) as f64).collect(), 1, None, "y").unwrap();
    let e = hoag::run_with_data(&c, Some(&data), &mut |_| {}, &cancel).unwrap_err();
    assert!(matches!(e, Error::Data(_)) && e.to_string().contains("exactly two values"));
    // JSON: unknown field and unknown method.
    let e = serde_json::from_str::<HoagConfig>(r#"{"problem": "logreg", "speed": 3}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field"));
    let e = serde_json::from_str::<HoagConfig>(r#"{"problem": "logreg", "methods": [{"kind": "magic"}]}"#).unwrap_err();
    assert!(e.to_string().contains("unknown variant"));
    let c: HoagConfig = serde_json::from_str(r#"{"problem": "kernel-ridge", "methods": [{"kind": "hoag", "tolerance": "cubic"}]}"#).unwrap();
    assert_eq!(c.methods, vec![MethodSpec::Hoag { tolerance: Tolerance::Cubic }]);
}

