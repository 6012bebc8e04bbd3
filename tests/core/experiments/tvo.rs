//! The TVO (Masrani et al. 2019) and its GP-UCB schedule experiment (Nguyen et al. 2020): the covariance
//! gradient estimator against finite differences (exactly, with the draws held fixed, and in expectation
//! against a quadrature of the exact bound on a one-dimensional latent), the IWAE estimate against the exact
//! log p(x) of a linear-Gaussian VAE (probabilistic PCA), the baseline schedules, and the `tvo` experiment kind.

use std::sync::atomic::AtomicBool;

use nalgebra::{DMatrix, DVector};
use tunelab::experiments::tvo::schedules::{linear_schedule, log_uniform_schedule, moments_schedule};
use tunelab::experiments::tvo::vae::{
    integrand, iwae_and_elbo, snis_weights, tvo_bound, tvo_coefficients, Particles, Scratch,
};
use tunelab::experiments::tvo::{Likelihood, Vae};
use tunelab::experiments::{Event, ExperimentConfig, Inputs, Output};
use tunelab::rng::stream;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// `log p(x, z)` and `log q(z | x)` at a fixed latent `z` (the particle held fixed while the parameters move).
fn log_joint_q_fixed_z(vae: &Vae, x: &[f64], z: &[f64]) -> (f64, f64) {
    let l = vae.latent;
    let (pe, pd) = vae.params.split_at(vae.enc.n_params());
    let mut acts = Vec::new();
    vae.enc.forward(pe, x, &mut acts);
    let out = acts.last().unwrap().clone();
    let mut lq = 0.0;
    let mut lp = 0.0;
    for j in 0..l {
        let (mu, lv) = (out[j], out[l + j]);
        lq += -0.5 * (LN_2PI + lv + (z[j] - mu).powi(2) / lv.exp());
        lp += -0.5 * (LN_2PI + z[j] * z[j]);
    }
    vae.dec.forward(pd, z, &mut acts);
    lp += vae.lik.log_lik(x, acts.last().unwrap(), None);
    (lp, lq)
}

/// The latents `z_s = mu + sigma eps_s` of drawn particles at the current parameters.
fn latents(vae: &Vae, x: &[f64], p: &Particles) -> Vec<Vec<f64>> {
    let l = vae.latent;
    let mut acts = Vec::new();
    vae.enc.forward(&vae.params[..vae.enc.n_params()], x, &mut acts);
    let out = acts.last().unwrap().clone();
    (0..p.log_q.len()).map(|s| (0..l).map(|j| out[j] + (0.5 * out[l + j]).exp() * p.eps[s * l + j]).collect()).collect()
}

fn tiny_vae(seed: u64, hidden: &[usize], x_dim: usize, latent: usize) -> Vae {
    let mut rng = stream(seed, 1);
    let mut v = Vae::new(x_dim, latent, hidden, Likelihood::Bernoulli, &mut rng).unwrap();
    // non-zero biases too
    for (i, p) in v.params.iter_mut().enumerate() {
        *p += 0.1 * ((i as f64) * 0.7).sin();
    }
    v
}

#[test]
fn tvo_gradient_matches_finite_differences_with_fixed_draws() {
    // With the latents held fixed, the covariance estimator (c = 1) is the exact gradient of
    // Lhat = sum_k Delta_k sum_s omega_ks w_s plus the score term sum_s C_s grad log q(z_s | x),
    // C_s = sum_k Delta_k omega_ks (w_s - E_k) held at the base point (the sampling distribution's dependence).
    let vae = tiny_vae(3, &[4], 5, 2);
    let x = [1.0, 0.0, 1.0, 1.0, 0.0];
    let points = [0.0, 0.1, 0.45, 0.8];
    let mut sc = Scratch::default();
    let part = vae.sample_particles(&x, 6, &mut stream(9, 2), &mut sc);
    let zs = latents(&vae, &x, &part);
    let w0 = part.log_weights();
    let (_, a, b) = tvo_coefficients(&w0, &points, 1.0);
    let mut g = vec![0.0; vae.params.len()];
    vae.accumulate_grad(&x, &part, &a, &b, &mut g, &mut sc);
    // score coefficients at the base point
    let mut cs = vec![0.0; w0.len()];
    for (k, &beta) in points.iter().enumerate() {
        let delta = points.get(k + 1).copied().unwrap_or(1.0) - beta;
        let om = snis_weights(&w0, beta);
        let e = integrand(&w0, beta);
        for s in 0..w0.len() {
            cs[s] += delta * om[s] * (w0[s] - e);
        }
    }
    let objective = |v: &Vae| {
        let (w, lq): (Vec<f64>, Vec<f64>) = zs
            .iter()
            .map(|z| {
                let (lp, lq) = log_joint_q_fixed_z(v, &x, z);
                (lp - lq, lq)
            })
            .unzip();
        tvo_bound(&w, &points) + cs.iter().zip(&lq).map(|(c, q)| c * q).sum::<f64>()
    };
    let mut worst: f64 = 0.0;
    let scale = g.iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert!(scale > 1e-3, "the gradient is not trivially zero");
    let at = |p: &[f64]| {
        let mut v = vae.clone();
        v.params.copy_from_slice(p);
        objective(&v)
    };
    for (i, &gi) in g.iter().enumerate() {
        let fd = crate::common::fd::partial(at, &vae.params, i, 1e-5);
        worst = worst.max((fd - gi).abs());
    }
    assert!(worst < 1e-6 * scale.max(1.0), "max |fd - estimator| = {worst} (gradient scale {scale})");
}

#[test]
fn tvo_gradient_matches_finite_differences_of_the_exact_bound_in_expectation() {
    // One-dimensional latent, linear encoder and decoder: the exact TVO bound sum_k Delta_k E_{pi_k}[w] by
    // quadrature, pi_k(z) proportional to q(z | x) exp(beta_k w(z)); its central differences against the mean
    // of the covariance estimator over many independent draws.
    let vae = tiny_vae(5, &[], 3, 1);
    let x = [1.0, 0.0, 1.0];
    let points = [0.0, 0.2, 0.6];
    let grid: Vec<f64> = (0..=20_000).map(|i| -12.0 + 24.0 * i as f64 / 20_000.0).collect();
    let exact = |v: &Vae| {
        let lw: Vec<(f64, f64)> = grid.iter().map(|z| log_joint_q_fixed_z(v, &x, &[*z])).collect();
        let mut total = 0.0;
        for (k, &beta) in points.iter().enumerate() {
            let delta = points.get(k + 1).copied().unwrap_or(1.0) - beta;
            let logs: Vec<f64> = lw.iter().map(|(lp, lq)| lq + beta * (lp - lq)).collect();
            let m = logs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let (mut num, mut den) = (0.0, 0.0);
            for (lg, (lp, lq)) in logs.iter().zip(&lw) {
                let e = (lg - m).exp();
                num += e * (lp - lq);
                den += e;
            }
            total += delta * num / den;
        }
        total
    };
    let n = vae.params.len();
    let at = |p: &[f64]| {
        let mut v = vae.clone();
        v.params.copy_from_slice(p);
        exact(&v)
    };
    let fd: Vec<f64> = (0..n).map(|i| crate::common::fd::partial(at, &vae.params, i, 1e-5)).collect();
    let (reps, s) = (400, 400);
    let mut sc = Scratch::default();
    let mut sum = vec![0.0; n];
    let mut sum2 = vec![0.0; n];
    let mut rng = stream(21, 3);
    for _ in 0..reps {
        let part = vae.sample_particles(&x, s, &mut rng, &mut sc);
        let (_, a, b) = tvo_coefficients(&part.log_weights(), &points, s as f64 / (s as f64 - 1.0));
        let mut g = vec![0.0; n];
        vae.accumulate_grad(&x, &part, &a, &b, &mut g, &mut sc);
        for i in 0..n {
            sum[i] += g[i];
            sum2[i] += g[i] * g[i];
        }
    }
    let scale = fd.iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert!(scale > 1e-2);
    for i in 0..n {
        let m = sum[i] / reps as f64;
        let se = ((sum2[i] / reps as f64 - m * m).max(0.0) / reps as f64).sqrt();
        let err = (m - fd[i]).abs();
        assert!(err < 4.0 * se + 0.01 * scale, "param {i}: estimator {m} +- {se}, finite differences {}", fd[i]);
    }
    // and the check is sensitive: dropping the covariance term (the naive gradient) misses the exact gradient
    let mut naive = vec![0.0; n];
    for _ in 0..50 {
        let part = vae.sample_particles(&x, s, &mut rng, &mut sc);
        let (_, a, b) = tvo_coefficients(&part.log_weights(), &points, 0.0);
        vae.accumulate_grad(&x, &part, &a, &b, &mut naive, &mut sc);
    }
    let miss = naive.iter().zip(&fd).map(|(g, f)| (g / 50.0 - f).abs()).fold(0.0, f64::max);
    assert!(miss > 0.05 * scale, "the naive estimator should differ, max diff {miss}");
}

#[test]
fn iwae_matches_the_exact_log_evidence_of_probabilistic_pca() {
    // p(z) = N(0, I_2), p(x | z) = N(W z + c, s^2 I_3): p(x) = N(c, W W^T + s^2 I). Linear encoder set to the
    // exact posterior mean and twice the diagonal of the exact posterior covariance (q is wider than the
    // posterior and uncorrelated: the KL is clearly positive, the importance weights stay well behaved).
    let (dx, l, sd) = (3usize, 2usize, 0.5f64);
    let mut rng = stream(77, 1);
    let mut vae = Vae::new(dx, l, &[], Likelihood::Gaussian { sd }, &mut rng).unwrap();
    let w = DMatrix::from_row_slice(dx, l, &[0.9, -0.3, 0.4, 1.1, -0.7, 0.5]);
    let c = DVector::from_vec(vec![0.2, -0.1, 0.3]);
    let post_cov = (DMatrix::identity(l, l) + w.transpose() * &w / (sd * sd)).try_inverse().unwrap();
    let a = &post_cov * w.transpose() / (sd * sd);
    let ne = vae.enc.n_params();
    // encoder: sizes [3, 4]: W (4 x 3) then b (4)
    for o in 0..l {
        for i in 0..dx {
            vae.params[o * dx + i] = a[(o, i)];
            vae.params[(l + o) * dx + i] = 0.0;
        }
        vae.params[2 * l * dx + o] = -(&a * &c)[o];
        vae.params[2 * l * dx + l + o] = (2.0 * post_cov[(o, o)]).ln();
    }
    // decoder: sizes [2, 3]: W (3 x 2) then b (3)
    for o in 0..dx {
        for j in 0..l {
            vae.params[ne + o * l + j] = w[(o, j)];
        }
        vae.params[ne + dx * l + o] = c[o];
    }
    let cov = &w * w.transpose() + DMatrix::identity(dx, dx) * (sd * sd);
    let chol = cov.clone().cholesky().unwrap();
    let logdet = 2.0 * chol.l().diagonal().iter().map(|v| v.ln()).sum::<f64>();
    let mut sc = Scratch::default();
    for (n, xv) in [[0.5, 1.0, -0.4], [2.0, -1.5, 0.7], [-0.3, 0.1, 0.0]].iter().enumerate() {
        let r = DVector::from_row_slice(xv) - &c;
        let exact = -0.5 * (dx as f64 * LN_2PI + logdet + r.dot(&chol.solve(&r)));
        let part = vae.sample_particles(xv, 100_000, &mut stream(31, n as u64), &mut sc);
        let lw = part.log_weights();
        let (iwae, elbo) = iwae_and_elbo(&lw);
        // standard error of log(mean weight) by the delta method: sd(weights) / (mean(weights) sqrt(K))
        let m = lw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let r: Vec<f64> = lw.iter().map(|v| (v - m).exp()).collect();
        let k = r.len() as f64;
        let rm = r.iter().sum::<f64>() / k;
        let se = (r.iter().map(|v| (v - rm).powi(2)).sum::<f64>() / (k - 1.0)).sqrt() / (rm * k.sqrt());
        assert!(se < 0.01, "x{n}: standard error {se}");
        assert!((iwae - exact).abs() < 4.0 * se + 1e-3, "x{n}: IWAE {iwae} vs exact {exact} (se {se})");
        assert!(elbo < exact - 1e-3, "x{n}: ELBO {elbo} must be below log p(x) {exact}");
        // K = 1 is the ELBO: more than 0.05 below, farther than the tolerance above (< 0.041)
        let lw1: Vec<f64> = (0..2000)
            .map(|i| {
                let p = vae.sample_particles(xv, 1, &mut stream(33, 1000 * n as u64 + i), &mut sc);
                p.log_weights()[0]
            })
            .collect();
        let mean1 = lw1.iter().sum::<f64>() / lw1.len() as f64;
        assert!(exact - mean1 > 0.05, "x{n}: the K = 1 bound {mean1} is visibly below {exact}");
    }
}

#[test]
fn baseline_schedules() {
    assert_eq!(linear_schedule(4), vec![0.0, 0.25, 0.5, 0.75]);
    let lu = log_uniform_schedule(2, 0.025);
    assert_eq!(lu, vec![0.0, 0.025]);
    let lu = log_uniform_schedule(5, 0.025);
    assert_eq!(lu.len(), 5);
    assert!((lu[1] - 0.025).abs() < 1e-15);
    // log-uniform: constant ratio between consecutive points beta_1 .. beta_4, and beta_5 = 1 next
    let r = lu[2] / lu[1];
    assert!((lu[3] / lu[2] - r).abs() < 1e-12 && (lu[4] / lu[3] - r).abs() < 1e-12 && (1.0 / lu[4] - r).abs() < 1e-12);
    // moments: a linear eta gives the linear schedule; eta concentrated near 0 puts the points near 0
    let eta_lin: Vec<f64> = (0..=50).map(|i| i as f64).collect();
    let m = moments_schedule(4, &eta_lin);
    for (a, b) in m.iter().zip(linear_schedule(4)) {
        assert!((a - b).abs() < 1e-12, "{m:?}");
    }
    let eta_fast: Vec<f64> = (0..=50).map(|i| -(-(i as f64) / 2.0).exp()).collect();
    let m = moments_schedule(4, &eta_fast);
    assert!(m.windows(2).all(|p| p[0] <= p[1]) && m[3] < 0.1, "{m:?}");
}

#[test]
fn tvo_experiment_runs_windows_and_is_deterministic() {
    let cfg = r#"{"kind": "tvo", "epochs": 2, "window": 1, "d": 3, "test_size": 100, "eval_size": 50,
                 "curve_k": 5, "iwae_k": 20, "hidden": [8], "latent": 2, "seed": 3}"#;
    let run = || {
        let checked = ExperimentConfig::from_json(cfg, None).unwrap().check().unwrap();
        let mut windows = 0;
        let rep = checked
            .run(
                Inputs::default(),
                &mut |e| {
                    if let Event::Progress { detail, .. } = e {
                        if serde_json::to_value(detail).unwrap()["type"] == "window" {
                            windows += 1;
                        }
                    }
                },
                &AtomicBool::new(false),
            )
            .unwrap();
        (windows, rep)
    };
    let (windows, rep) = run();
    assert_eq!(windows, 2);
    let Some(Output::Tvo(r)) = &rep.result else { panic!("no tvo result") };
    assert_eq!(r.runs.len(), 7);
    assert_eq!(r.summary.len(), 7);
    for t in &r.runs {
        assert!(!t.diverged, "{} diverged", t.method);
        assert_eq!(t.windows.len(), 2);
        for w in &t.windows {
            assert_eq!(w.schedule.len(), 3);
            assert_eq!(w.schedule[0], 0.0);
            assert!(w.schedule.windows(2).all(|p| p[0] <= p[1]) && w.schedule[2] <= 1.0, "{:?}", w.schedule);
            assert!(w.test_log_px.is_finite() && w.test_kl >= -1e-9);
        }
        let f = t.final_metrics.unwrap();
        assert!(f.log_px < 0.0 && f.kl > 0.0 && f.log_px >= f.elbo);
        assert_eq!(t.integrand.len(), 51);
        // the integrand E_{pi_beta}[w] is non-decreasing in beta (its derivative is a variance)
        assert!(t.integrand.windows(2).all(|p| p[1] >= p[0] - 1e-9));
    }
    let lin = r.runs.iter().find(|t| t.method == "linear").unwrap();
    assert_eq!(lin.windows[0].schedule, linear_schedule(3));
    let (_, again) = run();
    assert_eq!(serde_json::to_value(&again.result).unwrap(), serde_json::to_value(&rep.result).unwrap());
    // config checked once
    assert!(ExperimentConfig::from_json(r#"{"kind": "tvo", "d": 1}"#, None).unwrap().check().is_err());
    assert!(ExperimentConfig::from_json(r#"{"kind": "tvo", "methods": []}"#, None).unwrap().check().is_err());
    assert!(ExperimentConfig::from_json(r#"{"kind": "tvo", "lr": -1}"#, None).unwrap().check().is_err());
}

/// Stop inside a window: the observer sets the flag at the first epoch event (epoch 1 of a 3-epoch window), the
/// run stops before the window ends: status `stopped`, no result, and what was reached (the start and that epoch)
/// kept in the envelope; no window was evaluated after the stop.
#[test]
fn tvo_stop_inside_a_window_keeps_what_was_reached() {
    use std::sync::atomic::Ordering;
    use tunelab::experiments::{Detail, Status};
    let cfg = r#"{"kind": "tvo", "epochs": 6, "window": 3, "d": 2, "test_size": 100, "eval_size": 20,
                 "curve_k": 2, "iwae_k": 2, "hidden": [4], "latent": 2, "methods": ["linear", "gp-ucb"], "seed": 5}"#;
    let checked = ExperimentConfig::from_json(cfg, None).unwrap().check().unwrap();
    let stop = AtomicBool::new(false);
    let mut types = Vec::new();
    let rep = checked
        .run(
            Inputs::default(),
            &mut |e| {
                if let Event::Progress { detail, done, .. } = e {
                    let v = serde_json::to_value(detail).unwrap();
                    types.push((v["type"].as_str().unwrap().to_string(), *done));
                    if v["type"] == "epoch" {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            },
            &stop,
        )
        .unwrap();
    assert_eq!(rep.status, Status::Stopped);
    assert!(rep.result.is_none());
    assert_eq!(types, [("started".to_string(), 0.0), ("epoch".to_string(), 1.0 / 3.0)]);
    assert_eq!(rep.reached.len(), 2);
    let Detail::Tvo(tunelab::experiments::tvo::TvoEvent::Epoch { window, epoch }) = &rep.reached[1] else {
        panic!("{:?}", rep.reached)
    };
    assert_eq!((*window, *epoch), (0, 1));
    assert!((rep.compute.done - 1.0 / 3.0).abs() < 1e-12 && rep.compute.total == 3.0);
}

/// Nguyen et al. Sec. 5 "GP Implementation": w = 6 at first, one more after every 10 bandit iterations, and an
/// early update when the objective falls by 0.05 or more; the fixed rule ends every w epochs only.
#[test]
fn tvo_window_rule_grows_and_updates_early() {
    use tunelab::experiments::tvo::{TvoConfig, WindowRule};
    let p = WindowRule::PAPER;
    assert_eq!(TvoConfig::default().window, p, "the paper's rule is the default");
    let lengths: Vec<usize> = [0, 9, 10, 19, 20, 35].iter().map(|&k| p.length(k)).collect();
    assert_eq!(lengths, [6, 6, 7, 7, 8, 9]);
    // full length ends the window whatever the objective did
    assert!(p.ends(0, 6, None) && p.ends(0, 6, Some(1.0)) && p.ends(10, 7, Some(0.3)));
    assert!(!p.ends(0, 5, None) && !p.ends(10, 6, Some(0.0)));
    // early update: a drop of 0.05 or more, not less, and not a rise
    assert!(p.ends(0, 1, Some(-0.05)) && p.ends(3, 2, Some(-0.4)));
    assert!(!p.ends(0, 1, Some(-0.049)) && !p.ends(0, 3, Some(0.2)));
    assert!(p.evaluates_every_epoch() && !WindowRule::Fixed(2).evaluates_every_epoch());
    let f = WindowRule::Fixed(2);
    assert!(!f.ends(0, 1, Some(-5.0)) && f.ends(7, 2, None) && f.length(40) == 2);
    // planned windows: 30 epochs in windows of 6 -> 5; 70 epochs -> 10 x 6 = 60, 7 (67), 7 cut at 70 -> 12
    let mut c = TvoConfig { epochs: 30, ..TvoConfig::default() };
    assert_eq!((c.windows(), c.trained_epochs()), (5, 30));
    c.epochs = 70;
    assert_eq!(c.windows(), 12);
    c.window = WindowRule::Fixed(4);
    assert_eq!((c.windows(), c.trained_epochs()), (17, 68));
    // JSON: a number is the fixed rule, an object the growing one; bad values are refused
    let parse = |s: &str| ExperimentConfig::from_json(s, None).unwrap().check();
    assert!(parse(r#"{"kind": "tvo", "window": 2}"#).is_ok());
    assert!(parse(r#"{"kind": "tvo", "window": {"initial": 6, "grow_every": 10, "early_drop": 0.05}}"#).is_ok());
    assert!(parse(r#"{"kind": "tvo", "window": {"initial": 0, "grow_every": 10, "early_drop": 0.05}}"#).is_err());
    assert!(parse(r#"{"kind": "tvo", "window": {"initial": 6, "grow_every": 10, "early_drop": -1}}"#).is_err());
    assert!(parse(r#"{"kind": "tvo", "beta_box": [0.5, 0.4]}"#).is_err());
}

/// A run under the growing rule: every window of every run lasts its rule's length, unless its reward fell by
/// `early_drop` or more (an early update) or the run ended; the GP methods' and the random ablation's points
/// stay in the paper's box [0.05, 0.95] (Sec. 5), and with `"beta_box": [0, 1]` they may leave it.
#[test]
fn tvo_growing_windows_and_the_beta_box_in_a_run() {
    let run = |extra: &str| {
        let cfg = format!(
            r#"{{"kind": "tvo", "epochs": 9, "d": 3, "test_size": 100, "eval_size": 40, "curve_k": 2, "iwae_k": 4,
                "hidden": [6], "latent": 2, "lr": 0.2, "seed": 7, "methods": ["gp-ucb", "random", "linear"],
                "gp": {{"init": 2}} {extra}}}"#
        );
        let checked = ExperimentConfig::from_json(&cfg, None).unwrap().check().unwrap();
        let rep = checked.run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let Some(Output::Tvo(r)) = rep.result else { panic!("no tvo result") };
        r
    };
    let drop = 0.01;
    let r = run(&format!(r#", "window": {{"initial": 2, "grow_every": 2, "early_drop": {drop}}}"#));
    let mut early = 0;
    for t in &r.runs {
        assert!(!t.diverged);
        let mut prev = 0;
        for (k, w) in t.windows.iter().enumerate() {
            assert_eq!(w.window, k);
            let len = w.epoch - prev;
            let full = 2 + k / 2;
            assert!(len <= full, "{}: window {k} of {len} epochs", t.method);
            if len < full && w.epoch < 9 {
                assert!(w.reward <= -drop, "{}: window {k} ended early without a drop: {}", t.method, w.reward);
                early += 1;
            }
            prev = w.epoch;
            if t.method != "linear" {
                assert!(w.schedule[1..].iter().all(|b| (0.05..=0.95).contains(b)), "{:?}", w.schedule);
            }
        }
        assert_eq!(prev, 9, "the last window ends at the last epoch");
    }
    assert!(early > 0, "no early update exercised");
    // the [0, 1] box: the random ablation (9+ windows x 2 points) leaves [0.05, 0.95] somewhere
    let r = run(r#", "window": 1, "beta_box": [0.0, 1.0]"#);
    let pts: Vec<f64> = r
        .runs
        .iter()
        .filter(|t| t.method != "linear")
        .flat_map(|t| t.windows.iter().flat_map(|w| w.schedule[1..].to_vec()))
        .collect();
    assert!(pts.iter().all(|b| (0.0..=1.0).contains(b)));
    assert!(pts.iter().any(|b| !(0.05..=0.95).contains(b)), "{pts:?}");
}

/// App. A's stochastic binarisation ("sample binary-valued pixels with expectation equal to the original gray
/// scale"): the training images keep their grey levels and every epoch draws binary pixels whose mean over epochs
/// is the grey level (within 4 binomial sds, fixed seeds); image i of epoch e is the same draw for every caller
/// (every method of a run sees the same pixels) and differs between epochs; the test images are drawn once
/// (binary, mean near the grey level); the threshold default is unchanged (the images are already binary).
#[test]
fn tvo_stochastic_binarisation_draws_pixels_with_the_grey_mean() {
    use tunelab::experiments::tvo::data::{split, Binarise};
    let ds = tunelab::data::digits().unwrap();
    let imgs = split(&ds.x, ds.p, Binarise::Stochastic { scale: 16.0 }, 300, 4).unwrap();
    assert!(imgs.grey && imgs.train.iter().all(|g| (0.0..=1.0).contains(g)));
    assert!(imgs.train.iter().any(|g| *g > 0.0 && *g < 1.0), "grey levels kept");
    assert!(imgs.test.iter().all(|v| *v == 0.0 || *v == 1.0), "test drawn once, binary");
    let p = imgs.p;
    let (mut b1, mut b2) = (Vec::new(), Vec::new());
    // the same (seed, epoch, image): the same pixels; another epoch: other pixels
    for i in [0, 7, 500] {
        assert_eq!(imgs.epoch_image(i, 3, 11, &mut b1).to_vec(), imgs.epoch_image(i, 3, 11, &mut b2).to_vec());
    }
    assert_ne!(imgs.epoch_image(0, 3, 11, &mut b1).to_vec(), imgs.epoch_image(0, 4, 11, &mut b2).to_vec());
    // mean over 400 epochs of image 0's pixels = its grey levels
    let epochs = 400;
    let mut mean = vec![0.0; p];
    for e in 0..epochs {
        for (m, v) in mean.iter_mut().zip(imgs.epoch_image(0, e, 11, &mut b1)) {
            assert!(*v == 0.0 || *v == 1.0);
            *m += v / epochs as f64;
        }
    }
    for (j, (m, g)) in mean.iter().zip(&imgs.train[..p]).enumerate() {
        let sd = (g * (1.0 - g) / epochs as f64).sqrt();
        assert!((m - g).abs() <= 4.0 * sd + 1e-12, "pixel {j}: mean {m} against grey {g}");
    }
    // test set: overall mean of the draws near the mean grey level of the same rows (drawn from them)
    let thr = split(&ds.x, ds.p, Binarise::Threshold(8.0), 300, 4).unwrap();
    assert!(!thr.grey);
    let mut b3 = Vec::new();
    assert_eq!(thr.epoch_image(5, 9, 11, &mut b3), &thr.train[5 * p..6 * p], "threshold: the image itself");
    assert_eq!(thr.fixed_train(10, 1), thr.train[..10 * p].to_vec());
    let fixed = imgs.fixed_train(10, 1);
    assert_eq!(fixed, imgs.fixed_train(10, 1));
    assert!(fixed.iter().all(|v| *v == 0.0 || *v == 1.0));
}

/// The config field and the paper's preset: `"binarisation": "stochastic"` runs (deterministic, threads do not
/// matter), differs from the threshold run, an unknown value is refused; `mnist-paper` is App. A's VAE
/// ([100, 25] hidden units) on 28 x 28 MNIST with stochastic binarisation.
#[test]
fn tvo_stochastic_binarisation_config_and_paper_preset() {
    let cfg = |b: &str| {
        format!(
            r#"{{"kind": "tvo", "epochs": 2, "window": 1, "d": 3, "test_size": 100, "eval_size": 50,
                 "curve_k": 5, "iwae_k": 20, "hidden": [8], "latent": 2, "seed": 3, "methods": ["linear", "gp-ucb"],
                 "binarisation": "{b}"}}"#
        )
    };
    let run = |b: &str, threads: usize| {
        let checked = ExperimentConfig::from_json(&cfg(b), None).unwrap().check().unwrap();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let rep = pool.install(|| checked.run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false)).unwrap());
        serde_json::to_value(&rep.result).unwrap()
    };
    let s1 = run("stochastic", 1);
    assert_eq!(s1, run("stochastic", 2), "threads change no number");
    assert_ne!(s1, run("threshold", 1));
    let runs = s1["runs"].as_array().unwrap();
    assert!(runs.iter().all(|r| r["diverged"] == false && r["final_metrics"]["log_px"].as_f64().unwrap() < 0.0));
    let err = ExperimentConfig::from_json(&cfg("dither"), None).expect_err("unknown binarisation refused").to_string();
    assert!(err.contains("dither") || err.contains("binarisation"), "{err}");
    let p = tunelab::experiments::tvo::TvoConfig::preset("mnist-paper").unwrap();
    assert_eq!(p.hidden, vec![100, 25]);
    assert_eq!(p.binarisation, tunelab::experiments::tvo::config::Binarisation::Stochastic);
    assert!(matches!(p.data, tunelab::experiments::tvo::TvoData::Mnist { pool: 1, per_class: None }));
    p.validate().unwrap();
}
