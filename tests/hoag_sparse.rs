//! HOAG on sparse (svmlight / CSR) data: parsing into the problem, hypergradient against finite differences,
//! iterative differentiation's forward pass, typed errors for bad inputs.

use rand::RngExt;
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;
use tunelab::data::sparse::parse_svmlight;
use tunelab::hoag::{self, hypergradient, outer_loss_at, Bilevel, HoagConfig, ProblemKind};

/// A text-like data set: `n` documents over `p` terms, about 6 terms each (counts 1-3), labels from a
/// sparse weight vector through a logistic draw; written as svmlight text with labels +1 / -1.
fn svmlight_text(n: usize, p: usize, seed: u64) -> String {
    let mut rng = tunelab::rng::stream(seed, 7);
    let w: Vec<f64> = (0..p).map(|j| if j % 4 == 0 { 1.5 } else if j % 4 == 1 { -1.5 } else { 0.0 }).collect();
    let mut out = String::from("# simulated documents\n");
    for _ in 0..n {
        let mut terms: Vec<usize> = (0..6).map(|_| rng.random_range(0..p)).collect();
        terms.sort_unstable();
        terms.dedup();
        let t: f64 = terms.iter().map(|&j| w[j]).sum();
        let u: f64 = rng.random();
        let label = if u < 1.0 / (1.0 + (-t).exp()) { "+1" } else { "-1" };
        let mut line = label.to_string();
        for j in terms {
            write!(line, " {}:{}", j + 1, 1 + rng.random_range(0..3usize)).unwrap();
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn cfg(problem: ProblemKind) -> HoagConfig {
    let mut c = HoagConfig::new(problem);
    c.landscape_points = 0;
    c.seed = 5;
    c
}

#[test]
fn sparse_hypergradient_matches_finite_differences() {
    let data = parse_svmlight(&svmlight_text(240, 40, 1), None).unwrap();
    assert!(data.x.nnz() < 240 * 7);
    for (problem, lam) in [(ProblemKind::Logreg, vec![-3.0])] {
        let pr = hoag::sparse_problem(&cfg(problem), &data).unwrap();
        assert_eq!(pr.train.y.len() + pr.test.y.len() + pr.validation.y.len(), 240);
        let (_, g) = hypergradient(&pr, &lam, 1e-12, 10_000);
        let h = 1e-4;
        for i in [0, lam.len() - 1, lam.len() / 2] {
            let mut a = lam.clone();
            let mut b = lam.clone();
            a[i] += h;
            b[i] -= h;
            let fd = (outer_loss_at(&pr, &a, 1e-13, 10_000) - outer_loss_at(&pr, &b, 1e-13, 10_000)) / (2.0 * h);
            assert!((g[i] - fd).abs() <= 1e-8 + 1e-4 * fd.abs(), "{problem:?} {i}: {} vs {fd}", g[i]);
        }
        assert!(g.iter().any(|v| v.abs() > 1e-6), "{g:?}");
        // Iterative differentiation through L-BFGS on the sparse problem: the forward pass is the solver.
        let (f, _, iters) = hoag::iterdiff_hypergradient(&pr, &lam, 5, 0.0);
        let at = pr.at(&lam);
        let mut x = vec![0.0; pr.n_inner()];
        at.solve(&mut x, 0.0, 5);
        assert_eq!(iters, 5);
        assert!((at.outer(&x) - f).abs() <= 1e-13 * f.abs());
    }
}

#[test]
fn bad_sparse_inputs_give_typed_errors() {
    let three = parse_svmlight("1 1:1\n2 2:1\n3 1:1\n1 2:1\n2 1:1\n3 2:1\n1 1:1\n2 2:1\n3 1:1\n", None).unwrap();
    let e = hoag::run_sparse(&cfg(ProblemKind::Logreg), &three, &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, tunelab::Error::Data(_)) && e.to_string().contains("two label values"), "{e}");
    let small = parse_svmlight("1 1:1\n-1 2:1\n", None).unwrap();
    let e = hoag::run_sparse(&cfg(ProblemKind::Logreg), &small, &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert!(e.to_string().contains("at least 9 rows"), "{e}");
    let data = parse_svmlight(&svmlight_text(30, 10, 3), None).unwrap();
    let e = hoag::run_sparse(&cfg(ProblemKind::KernelRidge), &data, &mut |_| {}, &AtomicBool::new(false)).unwrap_err();
    assert!(matches!(e, tunelab::Error::Config(_)), "{e}");
    let e = parse_svmlight("1 2:1\n0 1:x\n", None).unwrap_err();
    assert!(matches!(e, tunelab::Error::Data(_)) && e.to_string().contains("line 2"), "{e}");
}
