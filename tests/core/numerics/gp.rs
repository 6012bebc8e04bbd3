//! GP regression: closed forms, incremental updates, gradients, invariance, failures.

use nalgebra::DMatrix;
use rand::RngExt;
use tunelab::gp::{cholesky_jitter, BaseKernel, Gp, HyperOptions, Kernel};
use tunelab::rng::stream;
use tunelab::Error;

fn se1() -> Kernel {
    Kernel::new(BaseKernel::SquaredExponential, 1, 1.0, 1.0).unwrap()
}

/// Two points x = {0, 1}, y = {1, -1}, SE kernel (l = 1, sf2 = 1), noise 0.1. By hand:
/// K = [[1.1, c], [c, 1.1]], c = e^{-1/2}; alpha = y / (1.1 - c) (y is the antisymmetric eigenvector), so
/// mu(0) = (1 - c) / (1.1 - c) = 0.79735...; var(0) = 1 - k*^T K^{-1} k* with k* = (1, c), using the 2x2 inverse.
#[test]
fn two_point_closed_form_se() {
    let gp = Gp::fit(&[vec![0.0], vec![1.0]], &[1.0, -1.0], se1(), 0.1).unwrap();
    let c = (-0.5f64).exp();
    let (m0, v0) = gp.predict(&[0.0]);
    assert!((m0 - (1.0 - c) / (1.1 - c)).abs() < 1e-12);
    assert!((m0 - 0.797_353_164_956_983_6).abs() < 1e-12);
    let det = 1.1 * 1.1 - c * c;
    let quad = (1.1 * 1.0 - 2.0 * c * c + 1.1 * c * c) / det; // k^T K^{-1} k for k = (1, c)
    assert!((v0 - (1.0 - quad)).abs() < 1e-12);
    assert!((v0 - 0.086_937_737_257_832_05).abs() < 1e-12);
    let (m, v) = gp.predict(&[0.5]);
    assert!(m.abs() < 1e-12);
    assert!((v - 0.087_270_095_454_893_17).abs() < 1e-12);
    let (m, v) = gp.predict(&[2.0]);
    assert!((m + 0.954_862_517_297_680_8).abs() < 1e-12);
    assert!((v - 0.613_783_979_121_830_2).abs() < 1e-12);
    // LML = -1/2 y^T K^{-1} y - 1/2 ln det K - ln 2 pi
    let lml = -0.5 * 2.0 / (1.1 - c) - 0.5 * det.ln() - (2.0 * std::f64::consts::PI).ln();
    assert!((gp.log_marginal_likelihood() - lml).abs() < 1e-12);
    assert!((lml + 3.778_429_370_098_155_7).abs() < 1e-12);
    // far away: prior
    let (m, v) = gp.predict(&[50.0]);
    assert!(m.abs() < 1e-12 && (v - 1.0).abs() < 1e-12);
}

#[test]
fn two_point_closed_form_matern() {
    let k = Kernel::new(BaseKernel::Matern52, 1, 2.0, 1.0).unwrap();
    // scaled distances: |0-1|/2 = 0.5, |0.5 - 0|/2 = 0.25, |0.5 - 1|/2 = 0.25 ... use x* = 0.5 and l = 2:
    // k(r) = (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r)
    let m = |r: f64| (1.0 + 5f64.sqrt() * r + 5.0 * r * r / 3.0) * (-(5f64.sqrt()) * r).exp();
    let gp = Gp::fit(&[vec![0.0], vec![2.0]], &[1.0, -1.0], k, 0.1).unwrap();
    // x* = 0.5: r = 0.25 to x=0 and 0.75 to x=2; same numbers as l = 1 with points {0, 1} and x* = 0.25
    let (mu, var) = gp.predict(&[0.5]);
    let (a, b) = (m(0.25), m(0.75));
    let kc = m(1.0);
    let det = 1.1 * 1.1 - kc * kc;
    let inv = |u: f64, v: f64| ((1.1 * u - kc * v) / det, (-kc * u + 1.1 * v) / det);
    let (a1, a2) = inv(1.0, -1.0);
    let (w1, w2) = inv(a, b);
    assert!((mu - (a * a1 + b * a2)).abs() < 1e-12);
    assert!((var - (1.0 - (a * w1 + b * w2))).abs() < 1e-12);
    assert!((mu - 0.477_967_544_918_023_85).abs() < 1e-12);
    assert!((var - 0.119_592_100_141_155_07).abs() < 1e-12);
}

fn random_inputs(n: usize, dim: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = stream(seed, 0);
    let xs: Vec<Vec<f64>> = (0..n).map(|_| (0..dim).map(|_| rng.random::<f64>()).collect()).collect();
    let ys: Vec<f64> =
        xs.iter().map(|x| x.iter().map(|v| (3.0 * v).sin()).sum::<f64>() + 0.1 * rng.random::<f64>()).collect();
    (xs, ys)
}

fn kernels() -> Vec<Kernel> {
    let se = Kernel {
        base: BaseKernel::SquaredExponential,
        length_scales: vec![0.3, 0.7, 0.5],
        signal_var: 1.3,
        omega: None,
        permutation_invariant: false,
    };
    let mat = Kernel { base: BaseKernel::Matern52, ..se.clone() };
    // temporal: input = 2 spatial + time
    let tv = Kernel {
        base: BaseKernel::Matern52,
        length_scales: vec![0.4, 0.6],
        signal_var: 0.8,
        omega: Some(0.1),
        permutation_invariant: true,
    };
    let tv_se = Kernel { base: BaseKernel::SquaredExponential, permutation_invariant: false, ..tv.clone() };
    vec![se, mat, tv, tv_se]
}

fn inputs_for(k: &Kernel, n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let (mut xs, ys) = random_inputs(n, k.input_dim(), seed);
    if k.omega.is_some() {
        for (i, x) in xs.iter_mut().enumerate() {
            *x.last_mut().unwrap() = i as f64; // time = round
        }
    }
    (xs, ys)
}

#[test]
fn incremental_update_equals_refit() {
    for k in kernels() {
        let (xs, ys) = inputs_for(&k, 12, 3);
        let full = Gp::fit(&xs, &ys, k.clone(), 0.01).unwrap();
        let mut inc = Gp::fit(&xs[..2], &ys[..2], k.clone(), 0.01).unwrap();
        for i in 2..xs.len() {
            inc.add_observation(&xs[i], ys[i]).unwrap();
        }
        let diff = (full.cholesky_factor() - inc.cholesky_factor()).abs().max();
        assert!(diff < 1e-10, "factor differs by {diff}");
        let (q, _) = inputs_for(&k, 5, 9);
        for x in &q {
            let (m1, v1) = full.predict(x);
            let (m2, v2) = inc.predict(x);
            assert!((m1 - m2).abs() < 1e-9 && (v1 - v2).abs() < 1e-9);
        }
        assert!((full.log_marginal_likelihood() - inc.log_marginal_likelihood()).abs() < 1e-9);
    }
    // starting from an empty GP works too
    let mut e = Gp::fit(&[], &[], se1(), 0.1).unwrap();
    e.add_observation(&[0.0], 1.0).unwrap();
    e.add_observation(&[1.0], -1.0).unwrap();
    assert!((e.predict(&[0.0]).0 - 0.797_353_164_956_983_6).abs() < 1e-12);
}

#[test]
fn lml_gradient_matches_finite_differences() {
    for k in kernels() {
        let (xs, ys) = inputs_for(&k, 10, 5);
        let gp = Gp::fit(&xs, &ys, k.clone(), 0.05).unwrap();
        let g = gp.lml_grad();
        let p = gp.params();
        assert_eq!(g.len(), p.len());
        for (i, &gi) in g.iter().enumerate() {
            let fd = crate::common::fd::partial(
                |q| {
                    let mut a = gp.clone();
                    a.set_params(q).unwrap();
                    a.log_marginal_likelihood()
                },
                &p,
                i,
                1e-5,
            );
            assert!((fd - gi).abs() < 1e-5 * (1.0 + fd.abs()), "{:?} param {i}: fd {fd} vs {gi}", k.base);
        }
    }
}

#[test]
fn predictive_gradients_match_finite_differences() {
    for k in kernels() {
        let (xs, ys) = inputs_for(&k, 10, 7);
        let gp = Gp::fit(&xs, &ys, k.clone(), 0.05).unwrap();
        let (q, _) = inputs_for(&k, 4, 11);
        let d = k.dim();
        for (qi, x) in q.iter().enumerate() {
            let mut x = x.clone();
            if k.omega.is_some() {
                *x.last_mut().unwrap() = 10.0 + qi as f64;
            }
            let mut dm = vec![0.0; d];
            let mut dv = vec![0.0; d];
            let (m, v) = gp.predict_with_grad(&x, &mut dm, &mut dv);
            let (m0, v0) = gp.predict(&x);
            assert!((m - m0).abs() < 1e-12 && (v - v0).abs() < 1e-12);
            for i in 0..d {
                let fd_mean = crate::common::fd::partial(|a| gp.predict(a).0, &x, i, 1e-6);
                let fd_var = crate::common::fd::partial(|a| gp.predict(a).1, &x, i, 1e-6);
                assert!((fd_mean - dm[i]).abs() < 1e-5, "dmean");
                assert!((fd_var - dv[i]).abs() < 1e-5, "dvar");
            }
        }
    }
}

#[test]
fn permutation_invariant_kernel_ignores_order() {
    let k = Kernel::new(BaseKernel::SquaredExponential, 3, 0.3, 1.0).unwrap().permutation_invariant();
    let a = [0.2, 0.9, 0.5];
    let b = [0.1, 0.4, 0.8];
    let v = k.eval(&a, &b);
    for pa in [[0.9, 0.2, 0.5], [0.5, 0.9, 0.2]] {
        for pb in [[0.8, 0.1, 0.4], [0.4, 0.8, 0.1]] {
            assert_eq!(k.eval(&pa, &pb), v);
        }
    }
    // equals the base kernel on the sorted vectors, and differs from the base kernel on unsorted ones
    let base = Kernel::new(BaseKernel::SquaredExponential, 3, 0.3, 1.0).unwrap();
    assert_eq!(base.eval(&[0.2, 0.5, 0.9], &[0.1, 0.4, 0.8]), v);
    assert!((base.eval(&a, &b) - v).abs() > 1e-3);
    // a GP on it predicts the same for permuted queries
    let (xs, ys) = random_inputs(8, 3, 1);
    let gp = Gp::fit(&xs, &ys, k, 0.01).unwrap();
    assert_eq!(gp.predict(&[0.3, 0.1, 0.7]), gp.predict(&[0.7, 0.3, 0.1]));
}

#[test]
fn temporal_kernel_value() {
    let k = Kernel::new(BaseKernel::SquaredExponential, 1, 1.0, 2.0).unwrap().with_temporal(0.19).unwrap();
    // (1 - 0.19)^(|3 - 7| / 2) = 0.81^2
    let v = k.eval(&[0.5, 3.0], &[0.5, 7.0]);
    assert!((v - 2.0 * 0.81f64.powi(2)).abs() < 1e-12);
    assert!(Kernel::new(BaseKernel::SquaredExponential, 1, 1.0, 2.0).unwrap().with_temporal(1.0).is_err());
}

#[test]
fn failed_factorisation_is_an_error() {
    // indefinite (eigenvalues 3 and -1): no jitter up to the bound can fix it
    let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    assert!(matches!(cholesky_jitter(&a, 1e-4), Err(Error::Numerical(_))));
    // NaN entries
    let b = DMatrix::from_row_slice(2, 2, &[1.0, f64::NAN, f64::NAN, 1.0]);
    assert!(matches!(cholesky_jitter(&b, 1e-4), Err(Error::Numerical(_))));
    // a singular PSD matrix (duplicate points, zero noise) is rescued by jitter
    let gp = Gp::fit(&[vec![0.3], vec![0.3]], &[1.0, 1.0], se1(), 0.0).unwrap();
    assert!(gp.jitter() > 0.0 && gp.jitter() <= 1e-4);
    // ... but not when the jitter bound is zero
    let mut gp2 = gp.clone();
    assert!(matches!(gp2.set_max_rel_jitter(0.0), Err(Error::Numerical(_))));
    assert!(matches!(Gp::fit(&[vec![f64::NAN]], &[1.0], se1(), 0.1), Err(Error::Numerical(_))));
    let mut gp3 = gp.clone();
    assert!(gp3.add_observation(&[f64::INFINITY], 0.0).is_err());
    // bad shapes / values are configuration errors
    assert!(matches!(Gp::fit(&[vec![0.0, 1.0]], &[1.0], se1(), 0.1), Err(Error::Config(_))));
    assert!(matches!(Gp::fit(&[vec![0.0]], &[1.0, 2.0], se1(), 0.1), Err(Error::Config(_))));
    assert!(matches!(Gp::fit(&[vec![0.0]], &[1.0], se1(), -1.0), Err(Error::Config(_))));
    assert!(Kernel::new(BaseKernel::Matern52, 0, 1.0, 1.0).is_err());
    assert!(Kernel::new(BaseKernel::Matern52, 1, -1.0, 1.0).is_err());
}

#[test]
fn type2_ml_improves_likelihood_and_is_seeded() {
    // y = sin(6 x) + N(0, 0.05^2): the ML length scale is well below 1 and the noise small
    let mut rng = stream(4, 0);
    let xs: Vec<Vec<f64>> = (0..25).map(|i| vec![i as f64 / 24.0]).collect();
    let ys: Vec<f64> =
        xs.iter().map(|x| (6.0 * x[0]).sin() + 0.05 * rng.sample::<f64, _>(rand_distr::StandardNormal)).collect();
    let k = Kernel::new(BaseKernel::Matern52, 1, 3.0, 0.2).unwrap();
    let mut gp = Gp::fit(&xs, &ys, k, 0.5).unwrap();
    let before = gp.log_marginal_likelihood();
    let mut gp2 = gp.clone();
    let after = gp.optimize_hyperparameters(&mut stream(1, 0), &HyperOptions::default()).unwrap();
    let after2 = gp2.optimize_hyperparameters(&mut stream(1, 0), &HyperOptions::default()).unwrap();
    assert_eq!(after, after2);
    assert!(after > before + 10.0, "{before} -> {after}");
    assert!((after - gp.log_marginal_likelihood()).abs() < 1e-9);
    let l = gp.kernel().length_scales[0];
    assert!(l > 0.05 && l < 1.0, "length scale {l}");
    assert!(gp.noise() < 0.02, "noise {}", gp.noise());
    // stationary point: small gradient in the interior
    let g = gp.lml_grad();
    assert!(g.iter().all(|v| v.abs() < 1e-2), "{g:?}");
    // time-varying data: omega is learned from a drifting function
    let xs: Vec<Vec<f64>> = (0..30).map(|i| vec![(i % 5) as f64 / 4.0, i as f64]).collect();
    let ys: Vec<f64> = xs.iter().map(|x| (3.0 * x[0] + 0.3 * x[1]).sin()).collect();
    let k = Kernel::new(BaseKernel::SquaredExponential, 1, 0.5, 1.0).unwrap().with_temporal(0.001).unwrap();
    let mut gp = Gp::fit(&xs, &ys, k, 0.01).unwrap();
    let before = gp.log_marginal_likelihood();
    let after = gp.optimize_hyperparameters(&mut stream(2, 0), &HyperOptions::default()).unwrap();
    assert!(after > before);
    assert!(gp.kernel().omega.unwrap() > 0.001, "omega {:?}", gp.kernel().omega);
}
