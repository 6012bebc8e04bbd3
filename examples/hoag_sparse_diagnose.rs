//! Diagnoses the two findings of the sparse HOAG path (docs/HOAG-LRSCHED.md, "Sparse data"):
//! (a) the finite-difference check of the per-feature hypergradient, (b) HOAG from λ = 0 on simulated
//! documents. `cargo run --release --example hoag_sparse_diagnose`
use std::sync::atomic::AtomicBool;
use tunelab::data::sparse::{parse_svmlight, simulate_svmlight, SparseDataset};
use tunelab::experiments::hoag::{
    self, hypergradient, outer_loss_at, Bilevel, HoagConfig, LogisticBilevel, MethodSpec, ProblemKind, SparseSplit,
    Split, Tolerance,
};

fn dense(s: &SparseSplit, p: usize) -> Split {
    let n = s.y.len();
    let mut x = vec![0.0; n * p];
    for i in 0..n {
        for k in s.x.indptr[i]..s.x.indptr[i + 1] {
            x[i * p + s.x.indices[k]] = s.x.values[k];
        }
    }
    Split { x, y: s.y.clone(), n }
}

fn cfg(problem: ProblemKind, seed: u64) -> HoagConfig {
    let mut c = HoagConfig::new(problem);
    c.landscape_points = 0;
    c.seed = seed;
    c
}

fn part_a(data: &SparseDataset) {
    println!("## (a) per-feature hypergradient vs central differences (240 documents, 40 terms, split seed 5, λ = -3)");
    let pr = hoag::sparse_problem(&cfg(ProblemKind::LogregPerFeature, 5), data).unwrap();
    let p = pr.p;
    let de = LogisticBilevel::new(p, dense(&pr.train, p), dense(&pr.test, p), dense(&pr.validation, p)).per_feature();
    let lam = vec![-3.0; p];
    // The inner solve the finite differences use: does it reach its tolerance?
    for tol_rel in [1e-10, 1e-12, 1e-13] {
        let at = pr.at(&lam);
        let mut x = vec![0.0; p];
        let mut g0 = vec![0.0; p];
        at.value_grad(&x, &mut g0);
        let n0 = g0.iter().map(|v| v * v).sum::<f64>().sqrt();
        let info = at.solve(&mut x, tol_rel * n0, 10_000);
        println!(
            "inner solve to {tol_rel:e} relative: target {:.3e}, reached |grad| {:.3e}, converged {}, iters {}",
            tol_rel * n0,
            info.residual,
            info.converged,
            info.iters
        );
    }
    let (_, g) = hypergradient(&pr, &lam, 1e-12, 10_000);
    let (_, gd) = hypergradient(&de, &lam, 1e-12, 10_000);
    let max_sd = g.iter().zip(&gd).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("sparse vs densified hypergradient: max |difference| {max_sd:.3e}");
    let fd = |pr: &dyn Bilevel, i: usize, h: f64, tol: f64| {
        let mut a = lam.clone();
        let mut b = lam.clone();
        a[i] += h;
        b[i] -= h;
        (outer_loss_at(pr, &a, tol, 10_000) - outer_loss_at(pr, &b, tol, 10_000)) / (2.0 * h)
    };
    let mut worst = (0, 0.0);
    for (i, &gi) in g.iter().enumerate().take(p) {
        let r = (gi - fd(&pr, i, 1e-4, 1e-13)).abs() / gi.abs().max(1e-300);
        if r > worst.1 {
            worst = (i, r);
        }
    }
    let i = worst.0;
    let (nnz_tr, nnz_te) = (
        (0..pr.train.y.len())
            .flat_map(|r| pr.train.x.indptr[r]..pr.train.x.indptr[r + 1])
            .filter(|&k| pr.train.x.indices[k] == i)
            .count(),
        (0..pr.test.y.len())
            .flat_map(|r| pr.test.x.indptr[r]..pr.test.x.indptr[r + 1])
            .filter(|&k| pr.test.x.indices[k] == i)
            .count(),
    );
    println!("worst coordinate at h = 1e-4, inner tol 1e-13: {i} (relative error {:.2e}; term in {nnz_tr} train / {nnz_te} test rows); hypergradient {:.6e}", worst.1, g[i]);
    for h in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6] {
        for tol in [1e-8, 1e-10, 1e-13] {
            let f = fd(&pr, i, h, tol);
            let fdd = fd(&de, i, h, tol);
            println!("  h {h:e}, inner tol {tol:e}: central difference {f:.6e} (rel. err {:.2e}); densified {fdd:.6e} (rel. err {:.2e})", (f - g[i]).abs() / g[i].abs(), (fdd - g[i]).abs() / g[i].abs());
        }
    }
    for h in [1e-2, 1e-3, 1e-4] {
        let worst = (0..p).map(|j| (g[j] - fd(&pr, j, h, 1e-13)).abs() / g[j].abs().max(1e-300)).fold(0.0, f64::max);
        let worst_abs = (0..p).map(|j| (g[j] - fd(&pr, j, h, 1e-13)).abs()).fold(0.0, f64::max);
        println!(
            "  all {p} coordinates at h = {h:e}: max relative error {worst:.2e}, max absolute error {worst_abs:.2e}"
        );
    }
    // Richardson: central differences at h and h/2 remove the h² term.
    let (d1, d2) = (fd(&pr, i, 2e-3, 1e-13), fd(&pr, i, 1e-3, 1e-13));
    let rich = (4.0 * d2 - d1) / 3.0;
    println!("  Richardson (h = 2e-3, 1e-3): {rich:.6e} (rel. err {:.2e})", (rich - g[i]).abs() / g[i].abs());
}

fn part_b(text_n: usize, p: usize, data_seed: u64, split_seed: u64) {
    let data = parse_svmlight(&simulate_svmlight(text_n, p, data_seed), None).unwrap();
    let mut c = cfg(ProblemKind::Logreg, split_seed);
    c.methods = vec![MethodSpec::Hoag { tolerance: Default::default() }, MethodSpec::Grid { points: 49 }];
    let rep = hoag::run_sparse(&c, &data, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let pr = hoag::sparse_problem(&c, &data).unwrap();
    let (f0, g0) = hypergradient(&pr, &[0.0], 1e-12, 10_000);
    let grid = &rep.methods[1];
    let h = &rep.methods[0];
    println!(
        "{text_n} documents, {p} terms, data seed {data_seed}, split seed {split_seed}: at λ = 0 outer {f0:.4} hypergradient {:+.3e}; HOAG ends at λ = {:.2} (outer {:.4}, {}); grid best λ = {:.2} (outer {:.4})",
        g0[0], h.final_hyper[0], h.final_loss, h.stopped, grid.final_hyper[0], grid.final_loss
    );
    for (name, tol, eps0) in [
        ("exponential, eps0 0.01", Tolerance::Exponential, 0.01),
        ("quadratic", Tolerance::Quadratic, 0.1),
        ("cubic", Tolerance::Cubic, 0.1),
    ] {
        let mut c2 = c.clone();
        c2.eps0 = eps0;
        c2.methods = vec![MethodSpec::Hoag { tolerance: tol }];
        let r = hoag::run_sparse(&c2, &data, &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let m = &r.methods[0];
        println!(
            "  HOAG {name}: ends at λ = {:.2} (outer {:.4}, {}, {} passes, {} rejected)",
            m.final_hyper[0], m.final_loss, m.stopped, m.cost, m.rejected_steps
        );
    }
    if h.final_loss > grid.final_loss + 1e-3 {
        let lams: Vec<f64> = (0..=24).map(|k| -12.0 + k as f64).collect();
        let s: Vec<String> =
            lams.iter().map(|&l| format!("{l}:{:.4}", outer_loss_at(&pr, &[l], 1e-12, 10_000))).collect();
        println!("  landscape λ:outer {}", s.join(" "));
        // Each HOAG iterate: its λ, the step it took (sign = -sign of its p), |p|, ε_k, and at the same λ the
        // exact hypergradient and |∇_1 f(x(λ))| (the right-hand side of its Hessian system).
        for (k, t) in h.trace.iter().enumerate().take(14) {
            let (_, ge) = hypergradient(&pr, &t.hyper, 1e-12, 10_000);
            let at = pr.at(&t.hyper);
            let mut x = vec![0.0; pr.p];
            let mut g0 = vec![0.0; pr.p];
            at.value_grad(&x, &mut g0);
            let n0 = g0.iter().map(|v| v * v).sum::<f64>().sqrt();
            at.solve(&mut x, 1e-12 * n0, 10_000);
            let mut gx = vec![0.0; pr.p];
            let mut gl = vec![0.0];
            at.outer_grad(&x, &mut gx, &mut gl);
            let gxn = gx.iter().map(|v| v * v).sum::<f64>().sqrt();
            let xn = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let step = h.trace.get(k + 1).map_or(0.0, |n| n.hyper[0] - t.hyper[0]);
            println!(
                "  iter {:2} λ {:7.3} step {:+7.3} f {:.4} |p| {:.2e} ε {:.2e} | exact hypergradient {:+.2e}, |∇_1 f| {:.2e}, |x(λ)| {:.2e}, μ(λ) {:.2e}{}",
                t.iter, t.hyper[0], step, t.outer_loss, t.grad_norm.unwrap_or(0.0), t.tolerance.unwrap_or(0.0), ge[0], gxn, xn, at.strong_convexity(), if t.rejected { " rejected" } else { "" }
            );
        }
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which != "b" {
        part_a(&parse_svmlight(&simulate_svmlight(240, 40, 1), None).unwrap());
    }
    if which != "a" {
        println!("## (b) HOAG (exponential tolerances) from λ = 0 against a 49-point grid, single penalty");
        for (n, p, ds) in [(300, 40, 1), (300, 100, 2), (300, 200, 1), (300, 200, 3)] {
            part_b(n, p, ds, 5);
        }
    }
}
