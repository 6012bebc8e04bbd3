//! Gradient and moment checks for every target: central finite differences of every gradient method,
//! blocked vs per-sample scores, exact posteriors against independent formulas, and the 2-D toys'
//! normalisation and moments by quadrature.

use crate::common::fd;
use rand::RngExt;
use rand_distr::StandardNormal;
use std::sync::Arc;
use tunelab::data::{digits, simulate_linear, simulate_logistic, Dataset};
use tunelab::model::*;
use tunelab::rng::{stream, Rng};

fn randn(rng: &mut Rng, n: usize, scale: f64) -> Vec<f64> {
    (0..n).map(|_| scale * rng.sample::<f64, _>(StandardNormal)).collect()
}

fn assert_close(a: &[f64], b: &[f64], rtol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let scale = 1.0 + b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (j, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= rtol * scale, "{what}: coordinate {j}: {x} vs {y} (scale {scale})");
    }
}

/// Every gradient method of `t` at `theta` against finite differences of the matching density, and the
/// derived methods against each other.
fn check_all_gradients(t: &dyn Target, theta: &[f64], rng: &mut Rng) {
    let d = t.dim();
    let n = t.n_data();
    assert_eq!(theta.len(), d);
    let fd_tol = 2e-6;
    // Prior.
    let mut g = vec![0.0; d];
    t.add_grad_log_prior(theta, &mut g);
    assert_close(&g, &fd::gradient(|x: &[f64]| t.log_prior(x), theta), fd_tol, "prior gradient");
    // Per point, for a few points.
    for _ in 0..3 {
        let i = rng.random_range(0..n);
        let mut g = vec![0.0; d];
        t.add_grad_log_lik(theta, &[i], &mut g);
        assert_close(
            &g,
            &fd::gradient(|x: &[f64]| t.log_lik_point(x, i), theta),
            fd_tol,
            &format!("point {i} gradient"),
        );
    }
    // Batch (with a repeated index) = FD of the sum; accumulates into existing contents.
    let idx: Vec<usize> = (0..7).map(|_| rng.random_range(0..n)).chain([0, 0]).collect();
    let mut g = vec![1.0; d];
    t.add_grad_log_lik(theta, &idx, &mut g);
    g.iter_mut().for_each(|v| *v -= 1.0);
    let fd = fd::gradient(|x: &[f64]| idx.iter().map(|&i| t.log_lik_point(x, i)).sum(), theta);
    assert_close(&g, &fd, fd_tol, "batch gradient");
    // Full likelihood: FD, and equal to the batch over all points.
    let mut gf = vec![0.0; d];
    t.add_grad_log_lik_full(theta, &mut gf);
    assert_close(&gf, &fd::gradient(|x: &[f64]| t.log_lik_full(x), theta), fd_tol, "full-data gradient");
    let all: Vec<usize> = (0..n).collect();
    let mut gb = vec![0.0; d];
    t.add_grad_log_lik(theta, &all, &mut gb);
    assert_close(&gb, &gf, 1e-12, "batch over all points vs full");
    let direct: f64 = (0..n).map(|i| t.log_lik_point(theta, i)).sum();
    assert!((t.log_lik_full(theta) - direct).abs() <= 1e-10 * (1.0 + direct.abs()), "log_lik_full vs sum of points");
    // Posterior gradient.
    let mut gd = vec![7.0; d];
    t.grad_log_density(theta, &mut gd);
    assert_close(&gd, &fd::gradient(|x: &[f64]| t.log_density(x), theta), fd_tol, "log-density gradient");
    // Stochastic estimate with the full index set equals the full gradient.
    let mut ge = vec![3.0; d];
    t.grad_estimate(theta, &all, &mut ge);
    assert_close(&ge, &gd, 1e-12, "grad_estimate(all) vs grad_log_density");
    // Blocked scores vs one at a time, for several samples (incl. more than one tile of samples).
    let s = 131;
    let mut thetas = Vec::with_capacity(s * d);
    for k in 0..s {
        if k == 0 {
            thetas.extend_from_slice(theta)
        } else {
            thetas.extend(theta.iter().map(|v| v + 0.3 * rng.sample::<f64, _>(StandardNormal)))
        }
    }
    let mut many = vec![f64::NAN; s * d];
    t.grad_log_density_many(&thetas, &mut many);
    for k in 0..s {
        let mut one = vec![0.0; d];
        t.grad_log_density(&thetas[k * d..(k + 1) * d], &mut one);
        assert_close(&many[k * d..(k + 1) * d], &one, 1e-11, &format!("grad_log_density_many row {k}"));
    }
    let fs = full_scores(t, &thetas);
    assert_close(&fs, &many, 1e-11, "full_scores vs grad_log_density_many");
}

fn logistic_data(n: usize, d: usize, seed: u64) -> Arc<Dataset> {
    Arc::new(simulate_logistic(n, d, &mut stream(seed, 0)).unwrap().0)
}

#[test]
fn logistic_gradients() {
    let mut rng = stream(11, 1);
    // n not a multiple of the row block, to exercise the tails.
    let data = logistic_data(601, 5, 3);
    for intercept in [false, true] {
        let t = LogisticRegression::new(data.clone(), 10.0, intercept).unwrap();
        let theta = randn(&mut rng, t.dim(), 0.7);
        check_all_gradients(&t, &theta, &mut rng);
    }
    // Feature counts with the unrolled kernels (1, 16) and the run-time kernel (17).
    for p in [1, 16, 17] {
        let t = LogisticRegression::new(logistic_data(300, p, 4), 10.0, p == 17).unwrap();
        let theta = randn(&mut rng, t.dim(), 0.5);
        check_all_gradients(&t, &theta, &mut rng);
    }
    // Large predictors (saturated sigmoid) stay finite and exact.
    let t = LogisticRegression::new(data, 10.0, false).unwrap();
    let theta = randn(&mut rng, 5, 40.0);
    let mut g = vec![0.0; 5];
    t.grad_log_density(&theta, &mut g);
    assert!(g.iter().all(|v| v.is_finite()) && t.log_density(&theta).is_finite());
    check_all_gradients(&t, &randn(&mut rng, 5, 3.0), &mut rng);
}

#[test]
fn logistic_log_lik_and_probs_match_the_formula() {
    let data = logistic_data(50, 3, 5);
    let t = LogisticRegression::new(data.clone(), 10.0, false).unwrap();
    let theta = [0.3, -1.2, 2.0];
    for i in 0..data.n {
        let z: f64 = data.row(i).iter().zip(&theta).map(|(a, b)| a * b).sum();
        let p1 = 1.0 / (1.0 + (-z).exp());
        let ll = if data.y[i] == 1.0 { p1.ln() } else { (1.0 - p1).ln() };
        assert!((t.log_lik_point(&theta, i) - ll).abs() < 1e-12);
        let mut pr = [0.0; 2];
        t.class_probs(&theta, i, &mut pr);
        assert!((pr[1] - p1).abs() < 1e-14 && (pr[0] + pr[1] - 1.0).abs() < 1e-14);
        assert_eq!(t.label(i), data.y[i] as usize);
    }
    assert_eq!(t.n_classes(), 2);
    // Prior N(0, 10 I).
    assert!((t.log_prior(&theta) + 0.5 * (0.09 + 1.44 + 4.0) / 10.0).abs() < 1e-14);
}

#[test]
fn linear_gradients_and_exact_posterior() {
    let mut rng = stream(12, 1);
    let (ds, _) = simulate_linear(300, 4, 0.5, &mut stream(4, 0)).unwrap();
    let t = LinearRegression::new(Arc::new(ds), 0.25, 10.0).unwrap();
    let theta = randn(&mut rng, 4, 1.0);
    check_all_gradients(&t, &theta, &mut rng);
    // The exact mean is where the posterior gradient vanishes.
    let (mean, _) = t.exact_moments().unwrap();
    let mut g = vec![0.0; 4];
    t.grad_log_density(&mean, &mut g);
    assert!(g.iter().all(|v| v.abs() < 1e-8), "{g:?}");
}

#[test]
fn linear_posterior_matches_a_hand_2x2_formula() {
    // x rows (1, 2), (0, 1), (3, -1); y = (1, 0.5, 2); noise_var 2, prior_var 4.
    let x = vec![1.0, 2.0, 0.0, 1.0, 3.0, -1.0];
    let y = vec![1.0, 0.5, 2.0];
    let ds = Dataset::new(x, y, 2, None, "y").unwrap();
    let t = LinearRegression::new(Arc::new(ds), 2.0, 4.0).unwrap();
    // X^T X = [[10, -1], [-1, 6]], X^T y = (7, 0.5).
    let (a, b, c) = (10.0 / 2.0 + 0.25, -1.0 / 2.0, 6.0 / 2.0 + 0.25);
    let det = a * c - b * b;
    let cov = [c / det, -b / det, -b / det, a / det];
    let r = [7.0 / 2.0, 0.5 / 2.0];
    let mean = [cov[0] * r[0] + cov[1] * r[1], cov[2] * r[0] + cov[3] * r[1]];
    let (m, s) = t.exact_moments().unwrap();
    assert_close(&m, &mean, 1e-13, "posterior mean");
    assert_close(&s, &cov, 1e-13, "posterior covariance");
}

#[test]
fn gaussian_gradients_and_correlated_constructor() {
    let mut rng = stream(13, 1);
    let g = Gaussian::correlated(2, 0.8).unwrap();
    assert_eq!(g.cov(), &[1.0, 0.8, 0.8, 1.0]);
    check_all_gradients(&g, &[0.4, -1.1], &mut rng);
    // grad log p = -Sigma^{-1} theta; Sigma^{-1} = [[1, -0.8], [-0.8, 1]] / 0.36.
    let mut gr = vec![0.0; 2];
    g.grad_log_density(&[1.0, 0.0], &mut gr);
    assert_close(&gr, &[-1.0 / 0.36, 0.8 / 0.36], 1e-12, "gaussian gradient");
    assert!(Gaussian::correlated(3, -0.6).is_err());
    assert!(Gaussian::correlated(3, -0.4).is_ok());
    assert!(Gaussian::correlated(2, 1.0).is_err());
}

#[test]
fn toy_gradients() {
    let mut rng = stream(14, 1);
    let b = Banana::new(1.0, 1.0).unwrap();
    let m = Mixture2d::new(0.3, [-2.0, 0.5], [1.5, 1.0], 0.7, 1.2).unwrap();
    for _ in 0..5 {
        let theta = randn(&mut rng, 2, 2.0);
        check_all_gradients(&b, &theta, &mut rng);
        check_all_gradients(&m, &theta, &mut rng);
    }
    // Far from both modes the mixture gradient stays finite (log-sum-exp).
    let mut g = vec![0.0; 2];
    m.grad_log_density(&[300.0, -200.0], &mut g);
    assert!(g.iter().all(|v| v.is_finite()));
    assert!(m.log_density(&[300.0, -200.0]).is_finite());
    assert!(Banana::new(1.0, 0.0).is_err() && Mixture2d::new(1.0, [0.0; 2], [1.0; 2], 1.0, 1.0).is_err());
}

/// Integral, mean and covariance of `exp(log_density)` by the midpoint rule on a grid.
fn quadrature(t: &dyn Target, xlim: (f64, f64), ylim: (f64, f64), h: f64) -> (f64, [f64; 2], [f64; 4]) {
    let nx = ((xlim.1 - xlim.0) / h) as usize;
    let ny = ((ylim.1 - ylim.0) / h) as usize;
    let (mut z, mut m, mut s) = (0.0, [0.0; 2], [0.0; 4]);
    for iy in 0..ny {
        let y = ylim.0 + (iy as f64 + 0.5) * h;
        for ix in 0..nx {
            let x = xlim.0 + (ix as f64 + 0.5) * h;
            let p = t.log_density(&[x, y]).exp() * h * h;
            z += p;
            m[0] += p * x;
            m[1] += p * y;
            s[0] += p * x * x;
            s[1] += p * x * y;
            s[3] += p * y * y;
        }
    }
    let mean = [m[0] / z, m[1] / z];
    let cov = [
        s[0] / z - mean[0] * mean[0],
        s[1] / z - mean[0] * mean[1],
        s[1] / z - mean[0] * mean[1],
        s[3] / z - mean[1] * mean[1],
    ];
    (z, mean, cov)
}

#[test]
fn banana_is_normalised_with_the_documented_moments() {
    // b = 1, var = 1: Var theta_2 = 1 + 2 b^2 var^2 = 3.
    let t = Banana::new(1.0, 1.0).unwrap();
    let (z, mean, cov) = quadrature(&t, (-7.0, 7.0), (-50.0, 7.0), 0.02);
    assert!((z - 1.0).abs() < 1e-6, "integral {z}");
    assert_close(&mean, &[0.0, 0.0], 1e-5, "banana mean");
    assert_close(&cov, &[1.0, 0.0, 0.0, 3.0], 1e-4, "banana covariance");
    let (em, ec) = t.exact_moments().unwrap();
    assert_close(&em, &mean, 1e-5, "exact_moments mean");
    assert_close(&ec, &cov, 1e-4, "exact_moments cov");
    // b = 0.5, var = 2: Var theta_2 = 1 + 2 * 0.25 * 4 = 3.
    let t = Banana::new(0.5, 2.0).unwrap();
    let (z, _, cov) = quadrature(&t, (-10.0, 10.0), (-40.0, 8.0), 0.02);
    assert!((z - 1.0).abs() < 1e-6, "integral {z}");
    assert_close(&cov, &t.exact_moments().unwrap().1, 1e-4, "banana(0.5, 2) covariance");
}

#[test]
fn mixture_is_normalised_with_the_documented_moments() {
    let t = Mixture2d::new(0.3, [-2.0, 0.5], [1.5, 1.0], 0.7, 1.2).unwrap();
    let (z, mean, cov) = quadrature(&t, (-9.0, 9.0), (-8.0, 9.0), 0.02);
    assert!((z - 1.0).abs() < 1e-6, "integral {z}");
    // Independent formula: mean = 0.3 (-2, 0.5) + 0.7 (1.5, 1) = (0.45, 0.85);
    // cov = (0.3 * 0.49 + 0.7 * 1.44) I + 0.21 (-3.5, -0.5)(-3.5, -0.5)^T.
    let iso = 0.3 * 0.49 + 0.7 * 1.44;
    let expect_cov = [iso + 0.21 * 12.25, 0.21 * 1.75, 0.21 * 1.75, iso + 0.21 * 0.25];
    assert_close(&mean, &[0.45, 0.85], 1e-6, "mixture mean");
    assert_close(&cov, &expect_cov, 1e-5, "mixture covariance");
    let (em, ec) = t.exact_moments().unwrap();
    assert_close(&em, &[0.45, 0.85], 1e-12, "exact mean");
    assert_close(&ec, &expect_cov, 1e-12, "exact cov");
}

#[test]
fn density_grids() {
    let t = Mixture2d::new(0.5, [-2.0, 0.0], [2.0, 0.0], 1.0, 1.0).unwrap();
    let g = log_density_grid(&t, (-4.0, 4.0), (-1.0, 1.0), 5, 3).unwrap();
    assert_eq!(g.len(), 15);
    // Row iy = 1 is y = 0; column ix = 1 is x = -2 (a mode).
    assert!((g[5 + 1] - t.log_density(&[-2.0, 0.0])).abs() < 1e-15);
    let dg = density_grid(&t, (-4.0, 4.0), (-1.0, 1.0), 5, 3).unwrap();
    assert!((dg.iter().cloned().fold(0.0, f64::max) - 1.0).abs() < 1e-15);
    assert!(log_density_grid(&Gaussian::correlated(3, 0.1).unwrap(), (0.0, 1.0), (0.0, 1.0), 4, 4).is_err());
    assert!(log_density_grid(&t, (1.0, 0.0), (0.0, 1.0), 4, 4).is_err());
}

fn small_digits(rows: usize) -> Arc<Dataset> {
    let mut d = digits().unwrap();
    d.standardize();
    let idx: Vec<usize> = (0..rows).map(|i| (i * 7) % d.n).collect();
    Arc::new(d.subset(&idx))
}

#[test]
fn bnn_gradients_on_digits_and_synthetic_data() {
    let mut rng = stream(15, 1);
    let data = small_digits(90);
    let t = Bnn::new(data, 4, 10, 1.0).unwrap();
    assert_eq!(t.dim(), 4 * 64 + 4 + 10 * 4 + 10);
    let theta = randn(&mut rng, t.dim(), 0.5);
    check_all_gradients(&t, &theta, &mut rng);
    // Three classes, two features, larger weights; 70 rows (not a multiple of the block).
    let mut r = stream(16, 0);
    let x = randn(&mut r, 140, 1.0);
    let y: Vec<f64> = (0..70).map(|i| (i % 3) as f64).collect();
    let ds = Arc::new(Dataset::new(x, y, 2, None, "y").unwrap());
    let t = Bnn::new(ds, 6, 3, 2.0).unwrap();
    let theta = randn(&mut rng, t.dim(), 1.5);
    check_all_gradients(&t, &theta, &mut rng);
}

#[test]
fn bnn_layout_and_class_probs_match_a_direct_forward_pass() {
    let mut r = stream(17, 0);
    let x = randn(&mut r, 20, 1.0);
    let y: Vec<f64> = (0..10).map(|i| (i % 3) as f64).collect();
    let ds = Arc::new(Dataset::new(x, y, 2, None, "y").unwrap());
    let (p, h, k) = (2, 3, 3);
    let t = Bnn::new(ds.clone(), h, k, 1.0).unwrap();
    let theta = randn(&mut r, t.dim(), 1.0);
    // Documented layout: W1 (h x p), b1 (h), W2 (k x h), b2 (k).
    let (w1, b1, w2, b2) = (&theta[0..6], &theta[6..9], &theta[9..18], &theta[18..21]);
    for i in 0..ds.n {
        let xi = ds.row(i);
        let hid: Vec<f64> = (0..h).map(|j| (w1[j * p] * xi[0] + w1[j * p + 1] * xi[1] + b1[j]).tanh()).collect();
        let logits: Vec<f64> = (0..k).map(|c| (0..h).map(|j| w2[c * h + j] * hid[j]).sum::<f64>() + b2[c]).collect();
        let zsum: f64 = logits.iter().map(|l| l.exp()).sum();
        let mut pr = vec![0.0; k];
        t.class_probs(&theta, i, &mut pr);
        for c in 0..k {
            assert!((pr[c] - logits[c].exp() / zsum).abs() < 1e-13);
        }
        let yi = ds.y[i] as usize;
        assert!((t.log_lik_point(&theta, i) - (logits[yi] - zsum.ln())).abs() < 1e-12);
        assert_eq!(t.label(i), yi);
    }
    assert_eq!(t.n_classes(), 3);
}

#[test]
fn model_spec_serde_defaults_and_validation() {
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "logistic"}"#).unwrap();
    assert_eq!(s, ModelSpec::Logistic { prior_var: 10.0, intercept: false });
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "bnn"}"#).unwrap();
    assert_eq!(s, ModelSpec::Bnn { hidden: 20, prior_var: 1.0, classes: None, activation: Activation::Tanh });
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "linear", "noise_var": 2}"#).unwrap();
    assert_eq!(s, ModelSpec::Linear { noise_var: 2.0, prior_var: 10.0 });
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "gaussian"}"#).unwrap();
    assert_eq!(s, ModelSpec::Gaussian { d: 2, rho: 0.5, mean: None, cov: None });
    let back: ModelSpec = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(back, s);
    for k in ["banana", "mixture"] {
        let s: ModelSpec = serde_json::from_str(&format!(r#"{{"kind": "{k}"}}"#)).unwrap();
        assert!(!s.needs_data());
        assert_eq!(build_target(&s, None).unwrap().dim(), 2);
    }
    // Typos are errors, not silently ignored.
    let e = serde_json::from_str::<ModelSpec>(r#"{"kind": "logistic", "prior_variance": 3}"#).unwrap_err();
    assert!(e.to_string().contains("prior_variance"), "{e}");
    assert!(serde_json::from_str::<ModelSpec>(r#"{"kind": "svm"}"#).is_err());

    let data = logistic_data(100, 3, 1);
    let log = ModelSpec::default();
    assert!(log.needs_data());
    let e = build_target(&log, None).err().unwrap().to_string();
    assert!(e.contains("needs a data set"), "{e}");
    let e = build_target(&ModelSpec::Banana { b: 1.0, var: 1.0 }, Some(data.clone())).err().unwrap().to_string();
    assert!(e.contains("takes no data"), "{e}");
    let t = build_target(&log, Some(data)).unwrap();
    assert_eq!((t.dim(), t.n_data()), (3, 100));
    let e = build_target(&ModelSpec::Logistic { prior_var: -1.0, intercept: false }, Some(logistic_data(10, 2, 1)))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("prior_var"), "{e}");

    // Logistic on non-binary labels names the line and the column.
    let csv = "a,b,y\n1,2,0\n3,4,1\n5,6,2\n";
    let ds = Arc::new(tunelab::data::parse_csv(csv, &Default::default()).unwrap());
    let e = build_target(&log, Some(ds.clone())).err().unwrap().to_string();
    assert!(e.contains("line 4") && e.contains("\"y\"") && e.contains("not 0 or 1"), "{e}");
    // ... and the BNN accepts the same data as 3 classes.
    let t = build_target(
        &ModelSpec::Bnn { hidden: 2, prior_var: 1.0, classes: None, activation: Activation::Tanh },
        Some(ds.clone()),
    )
    .unwrap();
    assert_eq!(t.n_classes(), 3);
    let e = build_target(
        &ModelSpec::Bnn { hidden: 2, prior_var: 1.0, classes: Some(2), activation: Activation::Tanh },
        Some(ds),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("line 4") && e.contains("class index 0..1"), "{e}");
    let ds = Arc::new(tunelab::data::parse_csv("a,y\n1,0.5\n2,1\n", &Default::default()).unwrap());
    let e = build_target(
        &ModelSpec::Bnn { hidden: 2, prior_var: 1.0, classes: None, activation: Activation::Tanh },
        Some(ds),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("line 2") && e.contains("0.5"), "{e}");
    let e =
        build_target(&ModelSpec::Gaussian { d: 2, rho: 0.5, mean: None, cov: Some(vec![1.0, 0.0, 0.0, 1.0]) }, None)
            .err()
            .unwrap()
            .to_string();
    assert!(e.contains("mean"), "{e}");
    let t = build_target(&ModelSpec::Gaussian { d: 2, rho: 0.0, mean: Some(vec![1.0, 2.0, 3.0]), cov: None }, None)
        .unwrap();
    assert_eq!(t.exact_moments().unwrap().0, vec![1.0, 2.0, 3.0]);
}

#[test]
fn bnn_test_set_spec_keeps_the_training_classes() {
    let train = Arc::new(tunelab::data::parse_csv("a,y\n1,0\n2,1\n3,2\n", &Default::default()).unwrap());
    let test = Arc::new(tunelab::data::parse_csv("a,y\n1,0\n2,1\n", &Default::default()).unwrap());
    let spec = ModelSpec::Bnn { hidden: 3, prior_var: 1.0, classes: None, activation: Activation::Tanh };
    let tr = build_target(&spec, Some(train)).unwrap();
    // Built on its own, the test set would have 2 classes and another dimension.
    assert_ne!(build_target(&spec, Some(test.clone())).unwrap().dim(), tr.dim());
    let te = build_target(&spec.for_test_set(tr.as_ref()), Some(test)).unwrap();
    assert_eq!((te.dim(), te.n_classes()), (tr.dim(), 3));
    assert_eq!(ModelSpec::default().for_test_set(tr.as_ref()), ModelSpec::default());
}

#[test]
fn full_scores_is_deterministic_across_thread_counts() {
    let data = logistic_data(2000, 6, 9);
    let t = LogisticRegression::new(data, 10.0, false).unwrap();
    let samples = randn(&mut stream(3, 3), 300 * 6, 0.5);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| full_scores(&t, &samples))
    };
    let a = run(1);
    let b = run(3);
    assert_eq!(a, b);
    assert_eq!(a.len(), 300 * 6);
    assert!(full_scores(&t, &[]).is_empty());
}

#[test]
fn digits_bnn_builds_from_spec() {
    let mut d = digits().unwrap();
    d.standardize();
    let t = build_target(
        &ModelSpec::Bnn { hidden: 16, prior_var: 1.0, classes: None, activation: Activation::Tanh },
        Some(Arc::new(d)),
    )
    .unwrap();
    assert_eq!(t.n_classes(), 10);
    assert_eq!(t.dim(), 16 * 64 + 16 + 10 * 16 + 10);
    let mut g = vec![0.0; t.dim()];
    t.grad_log_density(&vec![0.01; t.dim()], &mut g);
    assert!(g.iter().all(|v| v.is_finite()));
}

/// The paper's network (MAMBA App. B.3.1, `beta = s(s(x B + b) A + a)`, s = softmax in both layers): gradients
/// against finite differences, and the forward pass against a direct one with softmax hidden units.
#[test]
fn bnn_softmax_hidden_units_gradients_and_forward_pass() {
    let mut rng = stream(18, 1);
    let t = Bnn::new(small_digits(90), 5, 10, 1.0).unwrap().with_activation(Activation::Softmax);
    assert_eq!(t.activation(), Activation::Softmax);
    check_all_gradients(&t, &randn(&mut rng, t.dim(), 0.5), &mut rng);
    let mut r = stream(19, 0);
    let x = randn(&mut r, 140, 1.0);
    let y: Vec<f64> = (0..70).map(|i| (i % 3) as f64).collect();
    let ds = Arc::new(Dataset::new(x, y, 2, None, "y").unwrap());
    let t = Bnn::new(ds.clone(), 4, 3, 2.0).unwrap().with_activation(Activation::Softmax);
    let theta = randn(&mut rng, t.dim(), 1.5);
    check_all_gradients(&t, &theta, &mut rng);
    // direct forward pass: W1 (h x p), b1 (h), W2 (k x h), b2 (k); softmax over the hidden units
    let (p, h, k) = (2, 4, 3);
    let (w1, b1, w2, b2) = (&theta[0..8], &theta[8..12], &theta[12..24], &theta[24..27]);
    let softmax = |v: Vec<f64>| {
        let z: f64 = v.iter().map(|a| a.exp()).sum();
        v.iter().map(|a| a.exp() / z).collect::<Vec<f64>>()
    };
    let tanh_net = Bnn::new(ds.clone(), h, k, 2.0).unwrap();
    for i in 0..ds.n {
        let xi = ds.row(i);
        let hid = softmax((0..h).map(|j| w1[j * p] * xi[0] + w1[j * p + 1] * xi[1] + b1[j]).collect());
        assert!((hid.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let want = softmax((0..k).map(|c| (0..h).map(|j| w2[c * h + j] * hid[j]).sum::<f64>() + b2[c]).collect());
        let mut pr = vec![0.0; k];
        t.class_probs(&theta, i, &mut pr);
        for c in 0..k {
            assert!((pr[c] - want[c]).abs() < 1e-13, "row {i} class {c}");
        }
        assert!((t.log_lik_point(&theta, i) - want[ds.y[i] as usize].ln()).abs() < 1e-12);
        // not the tanh network's
        assert!((tanh_net.log_lik_point(&theta, i) - t.log_lik_point(&theta, i)).abs() > 1e-9);
    }
    // the spec's option, strict and skipped when tanh (old configs and reports unchanged)
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "bnn", "activation": "softmax"}"#).unwrap();
    assert_eq!(s, ModelSpec::Bnn { hidden: 20, prior_var: 1.0, classes: None, activation: Activation::Softmax });
    assert!(serde_json::from_str::<ModelSpec>(r#"{"kind": "bnn", "activation": "relu"}"#).is_err());
    let plain =
        serde_json::to_value(ModelSpec::Bnn { hidden: 3, prior_var: 1.0, classes: None, activation: Activation::Tanh })
            .unwrap();
    assert!(plain.get("activation").is_none());
    let built = build_target(&s, Some(small_digits(30))).unwrap();
    assert!(built.name().contains("softmax ->"), "{}", built.name());
}

/// The paper's hierarchical PMF (MAMBA App. B.2.1; priors as the authors' code, module doc of `model::pmf`):
/// gradients against finite differences, and the log prior against the densities written out.
#[test]
fn pmf_hierarchical_gradients_and_prior() {
    use tunelab::data::ratings::simulate_ratings;
    let mut rng = stream(20, 1);
    let (users, items, l) = (8, 10, 3);
    let ds = Arc::new(simulate_ratings(users, items, 30, l, 2.0, 1.0, 3.0, &mut stream(20, 0)).unwrap());
    let h = PmfHyper { alpha: 3.0, mu0: 0.3, a0: 4.0, b0: 5.0 };
    let t = Pmf::hierarchical(ds.clone(), users, items, l, h).unwrap();
    assert_eq!(t.dim(), (users + items + 4) * l);
    let theta = randn(&mut rng, t.dim(), 0.7);
    check_all_gradients(&t, &theta, &mut rng);
    // log prior: sum over W = U, V and k of N(W_ik; mu_k, 1/lam_k), N(mu_k; mu0, 1/lam_k), Gamma(lam_k; 4, 5)
    // in log lam (+ log-Jacobian), up to constants: compare differences between two points
    let direct = |th: &[f64]| {
        let o = (users + items) * l;
        let mut lp = 0.0;
        for (rows, mu, ll) in [(0..users, o, o + l), (users..users + items, o + 2 * l, o + 3 * l)] {
            for k in 0..l {
                let (m, g) = (th[mu + k], th[ll + k]);
                let lam = g.exp();
                let norm = |x: f64, mean: f64| {
                    0.5 * (lam / (2.0 * std::f64::consts::PI)).ln() - 0.5 * lam * (x - mean).powi(2)
                };
                for r in rows.clone() {
                    lp += norm(th[r * l + k], m);
                }
                lp += norm(m, h.mu0);
                // Gamma(shape a0, rate b0) density of lam, times the Jacobian dlam/dg = lam
                lp += h.a0 * h.b0.ln() - libm::lgamma(h.a0) + (h.a0 - 1.0) * lam.ln() - h.b0 * lam + g;
            }
        }
        lp
    };
    let other = randn(&mut rng, t.dim(), 0.7);
    let (dt, dd) = (t.log_prior(&theta) - t.log_prior(&other), direct(&theta) - direct(&other));
    assert!((dt - dd).abs() < 1e-10 * (1.0 + dd.abs()), "{dt} vs {dd}");
    // likelihood: N(R_ij; U_i . V_j, 1/alpha), ratings not centred
    for r in 0..5 {
        let (u, i) = (ds.x[2 * r] as usize, ds.x[2 * r + 1] as usize);
        let pred: f64 = (0..l).map(|k| theta[u * l + k] * theta[(users + i) * l + k]).sum();
        let want = 0.5 * (3.0 / (2.0 * std::f64::consts::PI)).ln() - 1.5 * (ds.y[r] - pred).powi(2);
        assert!((t.log_lik_point(&theta, r) - want).abs() < 1e-12);
    }
    // the spec: `prior: {"kind": "hierarchical"}` takes the paper's (3, 0, 4, 5); the default stays fixed
    let s: ModelSpec = serde_json::from_str(r#"{"kind": "pmf", "prior": {"kind": "hierarchical"}}"#).unwrap();
    let ModelSpec::Pmf { prior, latent, .. } = &s else { panic!() };
    assert_eq!((*prior, *latent), (PmfPrior::paper(), 20));
    assert_eq!(*prior, PmfPrior::Hierarchical { alpha: 3.0, mu0: 0.0, a0: 4.0, b0: 5.0 });
    assert!(
        serde_json::from_str::<ModelSpec>(r#"{"kind": "pmf", "prior": {"kind": "hierarchical", "beta0": 2}}"#).is_err()
    );
    let fixed: ModelSpec = serde_json::from_str(r#"{"kind": "pmf"}"#).unwrap();
    assert!(serde_json::to_value(&fixed).unwrap().get("prior").is_none());
    let s: ModelSpec =
        serde_json::from_str(r#"{"kind": "pmf", "latent": 3, "prior": {"kind": "hierarchical"}}"#).unwrap();
    let built = build_target(&s, Some(ds)).unwrap();
    assert_eq!(built.dim(), (users + items + 4) * 3);
    assert!(built.name().starts_with("hierarchical PMF"), "{}", built.name());
}
