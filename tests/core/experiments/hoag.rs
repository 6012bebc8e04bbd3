//! HOAG: hypergradients against finite differences, solver tolerances, HOAG against a fine grid, determinism,
//! bad configs.

use crate::common::contract;
use std::sync::atomic::AtomicBool;
use tunelab::data::Dataset;
use tunelab::experiments::hoag::HoagExperiment;
use tunelab::experiments::hoag::{
    self, conjugate_gradient, hypergradient, lbfgs, outer_loss_at, Bilevel, HoagBudget, HoagConfig, HoagData,
    MethodSpec, ProblemKind, Tolerance,
};
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
    for (i, &gi) in g.iter().enumerate() {
        let fd = crate::common::fd::partial(|l| outer_loss_at(pr, l, 1e-13, 10_000), lam, i, h);
        let err = (gi - fd).abs();
        assert!(err <= 1e-6 + 1e-4 * fd.abs(), "coordinate {i} at {lam:?}: analytic {gi} vs FD {fd}");
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
fn iterative_differentiation_is_the_exact_derivative_of_the_solver_output() {
    // Reverse mode through T iterations of the problem's own solver (L-BFGS for logistic regression, CG for
    // kernel ridge) against central differences of the outer loss at the solver's output after T iterations.
    // T is below convergence, so the unrolled map differs from the implicit one and a wrong adjoint shows.
    for (problem, n, d, lam, steps) in [
        (ProblemKind::Logreg, 60, 4, vec![-1.0], 2),
        (ProblemKind::Logreg, 80, 8, vec![-5.0], 5),
        (ProblemKind::KernelRidge, 45, 2, vec![-1.0, -6.0], 3),
        (ProblemKind::KernelRidge, 50, 3, vec![-1.5, -5.0], 5),
    ] {
        let (cfg, data) = small(problem, n, d);
        let pr = hoag::problem_from_data(&cfg, &data).unwrap();
        let (f, g, iters) = hoag::iterdiff_hypergradient(pr.as_ref(), &lam, steps, 0.0);
        assert_eq!(iters, steps, "{problem:?}: the solver stopped early");
        // The forward pass is the solver itself: same output as `solve` with the same iteration cap.
        let at = pr.at(&lam);
        let mut x = vec![0.0; pr.n_inner()];
        at.solve(&mut x, 0.0, steps);
        assert!((at.outer(&x) - f).abs() <= 1e-13 * f.abs(), "{problem:?}: {} vs {f}", at.outer(&x));
        // Far from converged: the unrolled and the implicit hypergradients differ.
        let (_, g_impl) = hypergradient(pr.as_ref(), &lam, 1e-12, 10_000);
        assert!(g.iter().zip(&g_impl).any(|(a, b)| (a - b).abs() > 1e-3 * b.abs()), "{problem:?}: {g:?} {g_impl:?}");
        for (i, &gi) in g.iter().enumerate() {
            let fd = crate::common::fd::partial(
                |l| hoag::iterdiff_hypergradient(pr.as_ref(), l, steps, 0.0).0,
                &lam,
                i,
                1e-5,
            );
            assert!((gi - fd).abs() <= 1e-8 + 1e-5 * fd.abs(), "{problem:?} {i}: {gi} vs {fd}");
        }
    }
}

#[test]
fn iterative_differentiation_converges_to_the_implicit_hypergradient() {
    // Run to convergence, the derivative of the solver's output is the implicit one (eq. 2).
    for (problem, n, d, lam) in
        [(ProblemKind::Logreg, 90, 6, vec![-2.0]), (ProblemKind::KernelRidge, 60, 3, vec![-2.0, -3.0])]
    {
        let (cfg, data) = small(problem, n, d);
        let pr = hoag::problem_from_data(&cfg, &data).unwrap();
        let (_, g, iters) = hoag::iterdiff_hypergradient(pr.as_ref(), &lam, 500, 1e-12);
        assert!(iters < 500);
        let (_, g_impl) = hypergradient(pr.as_ref(), &lam, 1e-12, 10_000);
        for i in 0..lam.len() {
            assert!(
                (g[i] - g_impl[i]).abs() <= 1e-6 * g_impl[i].abs().max(1e-3),
                "{problem:?} {i}: {} vs {}",
                g[i],
                g_impl[i]
            );
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
    let info = lbfgs(
        |w, g| {
            g[0] = 2.0 * (w[0] - 1.0);
            g[1] = 20.0 * (w[1] + 2.0);
            (w[0] - 1.0).powi(2) + 10.0 * (w[1] + 2.0).powi(2)
        },
        &mut x,
        1e-10,
        100,
        5,
    );
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
    let rep = contract::run_data::<HoagExperiment>(cfg.clone(), Some(&data), |_| {}, &cancel).unwrap();
    let grid = rep.landscape.as_ref().unwrap();
    let m = &rep.methods[0];
    // Stated tolerance: within 1% of the fine-grid (0.3 spacing) minimum of the outer loss.
    assert!(
        m.final_loss <= grid.min * 1.01,
        "HOAG {} at {:?} vs grid {} at {:?}",
        m.final_loss,
        m.final_hyper,
        grid.min,
        grid.argmin
    );
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
    let a = contract::run_data::<HoagExperiment>(cfg.clone(), Some(&data), |_| events += 1, &cancel).unwrap();
    // Same numbers on a one-thread pool (the landscape rows run in parallel).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = pool.install(|| contract::run_data::<HoagExperiment>(cfg.clone(), Some(&data), |_| {}, &cancel).unwrap());
    assert_eq!(a.landscape, b.landscape);
    assert_eq!(a.methods.len(), 8);
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
    // The curves are accurate evaluations for every method: recompute the first HOAG point (ε_1 = 0.1, a loose
    // inner solve) and a grid point independently at an accurate inner solution.
    let pr = hoag::problem_from_data(&cfg, &data).unwrap();
    for (m, t) in [(&a.methods[0], &a.methods[0].trace[0]), (&a.methods[4], &a.methods[4].trace[4])] {
        let exact = outer_loss_at(pr.as_ref(), &t.best_hyper, 1e-10, 10_000);
        assert!(
            (t.best_outer_loss - exact).abs() <= 1e-6 * exact,
            "{}: curve {} vs accurate {exact}",
            m.name,
            t.best_outer_loss
        );
        assert!((t.suboptimality - (t.best_outer_loss - a.reference_optimum)).abs() < 1e-15);
    }
    // HOAG's own view at its loose first solve differs from the accurate value (what the curve must not show).
    let t = &a.methods[0].trace[0];
    assert!(t.outer_loss != t.best_outer_loss);
}

/// A bilevel quadratic with a known optimum: inner `h(x, λ) = ½|x - a|² + ½ e^λ |x|²`, so `x(λ) = a / (1 + e^λ)`;
/// outer `f(x) = 1 + ½|x - c a|²`, minimised at `λ* = ln(1/c - 1)` with `f = 1`.
struct Quadratic {
    a: Vec<f64>,
    c: f64,
}

struct QuadAt<'a> {
    q: &'a Quadratic,
    r: f64,
    cost: std::cell::Cell<u64>,
}

impl Bilevel for Quadratic {
    fn n_hyper(&self) -> usize {
        1
    }
    fn n_inner(&self) -> usize {
        self.a.len()
    }
    fn hyper_names(&self) -> Vec<String> {
        vec!["log penalty".into()]
    }
    fn at(&self, lam: &[f64]) -> Box<dyn hoag::InnerAt + '_> {
        Box::new(QuadAt { q: self, r: lam[0].exp(), cost: std::cell::Cell::new(0) })
    }
}

impl hoag::InnerAt for QuadAt<'_> {
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64 {
        self.cost.set(self.cost.get() + 1);
        let mut v = 0.0;
        for i in 0..x.len() {
            g[i] = x[i] - self.q.a[i] + self.r * x[i];
            v += 0.5 * (x[i] - self.q.a[i]).powi(2) + 0.5 * self.r * x[i] * x[i];
        }
        v
    }
    fn hvp(&self, _x: &[f64], v: &[f64], out: &mut [f64]) {
        self.cost.set(self.cost.get() + 1);
        out.iter_mut().zip(v).for_each(|(o, vi)| *o = (1.0 + self.r) * vi);
    }
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]) {
        out[0] = self.r * x.iter().zip(q).map(|(a, b)| a * b).sum::<f64>();
    }
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64 {
        glam[0] = 0.0;
        for i in 0..x.len() {
            gx[i] = x[i] - self.q.c * self.q.a[i];
        }
        self.outer(x)
    }
    fn outer(&self, x: &[f64]) -> f64 {
        1.0 + 0.5 * x.iter().zip(&self.q.a).map(|(xi, ai)| (xi - self.q.c * ai).powi(2)).sum::<f64>()
    }
    fn validation(&self, x: &[f64]) -> f64 {
        self.outer(x)
    }
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> hoag::SolveInfo {
        lbfgs(|w, g| self.value_grad(w, g), x, tol, max_iter, 5)
    }
    fn lipschitz(&self) -> f64 {
        1.0 + self.r
    }
    fn strong_convexity(&self) -> f64 {
        1.0 + self.r
    }
    fn cost(&self) -> u64 {
        self.cost.get()
    }
}

fn quadratic(c: f64) -> Quadratic {
    Quadratic {
        a: (0..10)
            .map(|i| 1.0 + i as f64 * 0.5)
            .map(|v: f64| v * if (v as usize).is_multiple_of(2) { 1.0 } else { -1.0 })
            .collect(),
        c,
    }
}

fn hoag_on(pr: &Quadratic, init: f64, tolerance: Tolerance) -> hoag::HoagReport {
    let mut cfg = HoagConfig::new(ProblemKind::Logreg);
    cfg.methods = vec![MethodSpec::Hoag { tolerance }];
    cfg.init = Some(vec![init]);
    cfg.landscape_points = 0;
    cfg.budget = HoagBudget { cost: 100_000, seconds: None, max_iter: 200 };
    hoag::run_problem(pr, &cfg, &mut |_| {}, &AtomicBool::new(false)).unwrap()
}

#[test]
fn hoag_reaches_the_known_optimum_of_a_bilevel_quadratic() {
    let c: f64 = 0.3;
    let lam_star = (1.0 / c - 1.0).ln();
    let pr = quadratic(c);
    for (init, tolerance) in [(4.0, Tolerance::Exponential), (-3.0, Tolerance::Cubic), (4.0, Tolerance::Exact)] {
        let rep = hoag_on(&pr, init, tolerance);
        let m = &rep.methods[0];
        assert!(
            (m.final_hyper[0] - lam_star).abs() < 1e-3,
            "{tolerance:?} from {init}: λ = {} vs λ* = {lam_star}",
            m.final_hyper[0]
        );
        assert!(m.final_loss - 1.0 < 1e-6, "{}", m.final_loss);
    }
}

#[test]
fn the_safeguard_rejects_a_step_that_raises_the_outer_loss() {
    // λ* = 0.2; from 0.1 the first step (length 1, as in the authors' code) lands at 1.1, where the outer
    // loss is about three times larger: the step must be rejected and the iterate put back at 0.1.
    let lam_star: f64 = 0.2;
    let c = 1.0 / (1.0 + lam_star.exp());
    let pr = quadratic(c);
    let rep = hoag_on(&pr, 0.1, Tolerance::Exponential);
    let m = &rep.methods[0];
    assert!(m.rejected_steps >= 1);
    let t = &m.trace[1];
    assert!(t.rejected, "{:?}", m.trace.iter().map(|t| (t.hyper[0], t.outer_loss)).collect::<Vec<_>>());
    assert_eq!(t.best_hyper, vec![0.1]);
    assert!((m.trace[2].tolerance.unwrap() - 0.5 * Tolerance::Exponential.eps(0.1, 3)).abs() < 1e-15);
    assert!((m.final_hyper[0] - lam_star).abs() < 1e-3, "{}", m.final_hyper[0]);
}

#[test]
fn cancel_stops_the_run() {
    let (cfg, data) = small(ProblemKind::Logreg, 60, 4);
    let cancel = AtomicBool::new(true);
    let r = contract::run_data::<HoagExperiment>(cfg.clone(), Some(&data), |_| {}, &cancel);
    assert_eq!(r.unwrap_err(), Error::Cancelled);
}

#[test]
fn bad_configs_give_clear_errors() {
    let cancel = AtomicBool::new(false);
    let err =
        |cfg: &HoagConfig| contract::run::<HoagExperiment>(cfg.clone(), None, |_| {}, &cancel).unwrap_err().to_string();
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
    assert!(err(&c).contains("needs the data passed in"));
    // Three label values for logistic regression.
    let c = HoagConfig::preset("logreg").unwrap();
    let data =
        Dataset::new((0..30).map(|i| i as f64).collect(), (0..30).map(|i| (i % 3) as f64).collect(), 1, None, "y")
            .unwrap();
    let e = contract::run_data::<HoagExperiment>(c.clone(), Some(&data), |_| {}, &cancel).unwrap_err();
    assert!(matches!(e, Error::Data(_)) && e.to_string().contains("exactly two values"));
    // JSON: unknown field and unknown method.
    let e = serde_json::from_str::<HoagConfig>(r#"{"problem": "logreg", "speed": 3}"#).unwrap_err();
    assert!(e.to_string().contains("unknown field"));
    let e = serde_json::from_str::<HoagConfig>(r#"{"problem": "logreg", "methods": [{"kind": "magic"}]}"#).unwrap_err();
    assert!(e.to_string().contains("unknown variant"));
    let c: HoagConfig =
        serde_json::from_str(r#"{"problem": "kernel-ridge", "methods": [{"kind": "hoag", "tolerance": "cubic"}]}"#)
            .unwrap();
    assert_eq!(c.methods, vec![MethodSpec::Hoag { tolerance: Tolerance::Cubic }]);
}

#[test]
fn the_outer_lipschitz_constant_comes_from_the_data() {
    use tunelab::experiments::hoag::{LogisticBilevel, Split};
    // Every test row equal to a: σ_max(A)/sqrt(m) = ‖a‖ exactly (A = 1 aᵀ has the one singular value sqrt(m)‖a‖).
    let a = [3.0, -4.0, 12.0];
    let m = 7;
    let rows = |n: usize| Split { x: (0..n).flat_map(|_| a).collect(), y: vec![1.0; n], n };
    let pr = LogisticBilevel::new(3, rows(5), rows(m), rows(4));
    let c = pr.outer_lipschitz().unwrap();
    assert!((c - 13.0).abs() < 1e-12, "{c}");
    // Random data: C bounds ‖∇_1 g‖ everywhere and is below the Frobenius bound sqrt(Σ‖a_i‖² / m).
    let (cfg, data) = small(ProblemKind::Logreg, 150, 6);
    let pr = hoag::problem_from_data(&cfg, &data).unwrap();
    let c = pr.outer_lipschitz().expect("logistic regression has a global constant");
    let at = pr.at(&[0.0]);
    let mut gx = vec![0.0; 6];
    let mut glam = vec![0.0; 1];
    let mut largest: f64 = 0.0;
    for k in 0..200 {
        let x: Vec<f64> = (0..6).map(|j| 40.0 * (((k * 7 + j * 13) % 17) as f64 / 8.0 - 1.0)).collect();
        at.outer_grad(&x, &mut gx, &mut glam);
        largest = largest.max(gx.iter().map(|v| v * v).sum::<f64>().sqrt());
    }
    assert!(largest <= c * (1.0 + 1e-12), "‖∇g‖ {largest} above C {c}");
    assert!(largest > 0.3 * c, "C {c} far above every gradient seen ({largest})");
    // Kernel ridge's squared loss has no global constant.
    let (cfg, data) = small(ProblemKind::KernelRidge, 30, 2);
    assert!(hoag::problem_from_data(&cfg, &data).unwrap().outer_lipschitz().is_none());
}

/// `L_k = ‖p_k‖ / ‖λ_{k+1} − λ_k‖` of HOAG's accepted, unprojected steps on the bilevel quadratic: the ratios
/// `L_k / L_{k+1}` of consecutive steps.
fn step_ratios(rule: hoag::StepRule, init: f64) -> Vec<f64> {
    let pr = quadratic(0.3);
    let mut cfg = HoagConfig::new(ProblemKind::Logreg);
    cfg.methods = vec![MethodSpec::Hoag { tolerance: Tolerance::Exponential }];
    cfg.init = Some(vec![init]);
    cfg.landscape_points = 0;
    cfg.reference_runs = 0;
    cfg.step_rule = rule;
    cfg.budget = HoagBudget { cost: 100_000, seconds: None, max_iter: 12 };
    let rep = hoag::run_problem(&pr, &cfg, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let all = &rep.methods[0].trace;
    // up to the first rejected step (it resets the iterate and skips one step test)
    let t: Vec<_> = all.iter().take_while(|p| !p.rejected).cloned().collect();
    // steps long enough that recovering L from the iterates is accurate to about 1e-10
    let l: Vec<f64> = t
        .windows(2)
        .map(|w| (w[1].hyper[0] - w[0].hyper[0]).abs())
        .zip(&t)
        .take_while(|(d, _)| *d > 1e-5)
        .map(|(d, p)| p.grad_norm.unwrap() / d)
        .collect();
    l.windows(2).map(|w| w[0] / w[1]).collect()
}

#[test]
fn the_step_grows_by_the_texts_beta_and_the_authors_variant_by_one_over_0_95() {
    // Sec. 3 "Adaptive step size": the step is multiplied by β = 1.05 when eq. 3 holds, by α = 0.5 otherwise.
    for (rule, grow) in [(hoag::StepRule::Text, 1.05), (hoag::StepRule::AuthorsCode, 1.0 / 0.95)] {
        let r: Vec<f64> = [1.5, 2.0, -0.5, -1.0].iter().flat_map(|&i| step_ratios(rule, i)).collect();
        assert!(r.len() >= 3, "{r:?}");
        let grown = r.iter().filter(|v| (**v - grow).abs() < 1e-6).count();
        assert!(grown >= 1, "{rule:?}: no step grew by {grow}: {r:?}");
        assert!(r.iter().all(|v| (v - grow).abs() < 1e-6 || (v - 0.5).abs() < 1e-6), "{rule:?}: {r:?}");
    }
}

#[test]
fn every_search_method_stops_its_inner_solves_at_the_cap() {
    // Sec. 3.2: "the number of iterations used in the inner optimization algorithm ... is set to 100" for all
    // methods. With a cap of 3 no evaluation of grid, random search or BO uses more than 3 L-BFGS iterations;
    // with the 1,000 variant some use more (so the cap binds here).
    let per_eval = |cap: usize| -> usize {
        let (mut cfg, data) = small(ProblemKind::Logreg, 150, 10);
        assert_eq!(cfg.max_inner_iter, 100, "the default is the paper's 100");
        cfg.max_inner_iter = cap;
        cfg.reference_runs = 0;
        cfg.methods = vec![
            MethodSpec::Grid { points: 10 },
            MethodSpec::Random,
            MethodSpec::Bo { initial: 4, random_init: false },
        ];
        cfg.budget = HoagBudget { cost: 400, seconds: None, max_iter: 8 };
        let rep = contract::run_data::<HoagExperiment>(cfg, Some(&data), |_| {}, &AtomicBool::new(false)).unwrap();
        let mut most = 0;
        for m in &rep.methods {
            let mut prev = 0;
            for t in &m.trace {
                most = most.max(t.inner_iters - prev);
                prev = t.inner_iters;
            }
        }
        most
    };
    assert!(per_eval(3) <= 3);
    assert!(per_eval(1000) > 3);
}

#[test]
fn the_reference_is_the_best_of_ten_random_hoag_runs_and_logistic_starts_at_the_papers_zero() {
    let (mut cfg, data) = small(ProblemKind::Logreg, 150, 6);
    cfg.methods = vec![MethodSpec::Hoag { tolerance: Tolerance::Exponential }, MethodSpec::Grid { points: 10 }];
    cfg.budget = HoagBudget { cost: 600, seconds: None, max_iter: 15 };
    assert_eq!(cfg.reference_runs, 10);
    let rep = contract::run_data::<HoagExperiment>(cfg.clone(), Some(&data), |_| {}, &AtomicBool::new(false)).unwrap();
    let r10 = rep.reference_hoag_runs.expect("ten reference runs");
    assert!(rep.reference_optimum <= r10);
    // The paper's λ_0 = 0 for Σψ + e^λ‖x‖² is ln(2/n) for tunelab's (1/n)Σψ + (e^λ/2)‖x‖² (n = 50 train rows).
    assert!(
        (rep.methods[0].trace[0].hyper[0] - (2.0f64 / 50.0).ln()).abs() < 1e-12,
        "{:?}",
        rep.methods[0].trace[0].hyper
    );
    cfg.reference_runs = 0;
    let rep0 = contract::run_data::<HoagExperiment>(cfg, Some(&data), |_| {}, &AtomicBool::new(false)).unwrap();
    assert!(rep0.reference_hoag_runs.is_none());
    assert_eq!(rep0.methods[0].final_loss, rep.methods[0].final_loss);
}

#[test]
fn the_summed_loss_is_the_papers_eq_4_on_its_lambda_scale() {
    use tunelab::experiments::hoag::{LogisticBilevel, Split, Summed};
    // Eq. 4: inner Σ_i ψ(b_i a_iᵀx) + e^λ ‖x‖², outer Σ_j ψ(b'_j a'_jᵀx), ψ(t) = log(1 + e^−t).
    let (n, m, p) = (40, 30, 4);
    let split = |rows: usize, k: usize| {
        let x: Vec<f64> = (0..rows * p).map(|i| (((i * 37 + k * 11) % 23) as f64 / 11.0) - 1.0).collect();
        let y = (0..rows).map(|i| if (i * 7 + k).is_multiple_of(3) { -1.0 } else { 1.0 }).collect();
        Split { x, y, n: rows }
    };
    let (train, test) = (split(n, 1), split(m, 2));
    let mean = LogisticBilevel::new(p, train.clone(), test.clone(), split(20, 3));
    let paper = Summed::new(&mean);
    let psi_sum = |s: &Split, x: &[f64]| -> f64 {
        (0..s.n).map(|i| (1.0 + (-s.y[i] * (0..p).map(|j| s.x[i * p + j] * x[j]).sum::<f64>()).exp()).ln()).sum()
    };
    let x = [0.3, -0.7, 1.1, 0.2];
    let mut g = vec![0.0; p];
    for lam in [-3.0, 0.0, 2.5] {
        let at = paper.at(&[lam]);
        let want = psi_sum(&train, &x) + lam.exp() * x.iter().map(|v| v * v).sum::<f64>();
        let got = at.value_grad(&x, &mut g);
        assert!((got - want).abs() <= 1e-12 * want.abs(), "inner at λ = {lam}: {got} vs {want}");
        let (got, want) = (at.outer(&x), psi_sum(&test, &x));
        assert!((got - want).abs() <= 1e-12 * want.abs(), "outer: {got} vs {want}");
        // The hypergradient is m times the mean problem's at λ − ln(n/2).
        let (_, gs) = hypergradient(&paper, &[lam], 1e-12, 10_000);
        let (_, gm) = hypergradient(&mean, &[lam - (n as f64 / 2.0).ln()], 1e-12, 10_000);
        assert!((gs[0] - m as f64 * gm[0]).abs() <= 1e-6 * gs[0].abs().max(1e-8), "{gs:?} vs {m} x {gm:?}");
    }
    // Sec. 3 "Initialization": the regularisation starts at the paper's 0, and C is the summed loss's.
    assert!(paper.default_init()[0].abs() < 1e-12, "{:?}", paper.default_init());
    assert!((paper.outer_lipschitz().unwrap() - m as f64 * mean.outer_lipschitz().unwrap()).abs() < 1e-9);
    // In a run the HOAG iterates start there.
    let (mut cfg, data) = small(ProblemKind::Logreg, 150, 6);
    cfg.loss_scale = hoag::LossScale::Sum;
    cfg.methods = vec![MethodSpec::Hoag { tolerance: Tolerance::Exponential }];
    cfg.budget = HoagBudget { cost: 300, seconds: None, max_iter: 5 };
    cfg.reference_runs = 0;
    let rep = contract::run_data::<HoagExperiment>(cfg, Some(&data), |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(rep.methods[0].trace[0].hyper, vec![0.0]);
}
