//! Target hot loops: minibatch gradient (SGLD step), full-data gradient, blocked KSD scoring.
//! Run: `cargo bench --bench targets -- --warm-up-time 1 --measurement-time 3`.
//!
//! Besides wall-clock time, the `cpu/` group measures the *thread CPU time* of single-threaded calls
//! (`CLOCK_THREAD_CPUTIME_ID`), which stays meaningful on a machine shared with other jobs.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::RngExt;
use rand_distr::StandardNormal;
use std::hint::black_box;
use std::sync::Arc;
use tunelab::data::{digits, simulate_logistic};
use tunelab::model::{full_scores, Bnn, LogisticRegression, Target};
use tunelab::rng::stream;

mod common;
use common::ThreadCpu;

/// The benchmark problem: logistic regression, N = 1e5, d = 10 (simulated, seed 1), its true theta, a batch of
/// 1,000 distinct random rows and the stream for further draws.
fn logistic_setup() -> (LogisticRegression, Vec<f64>, Vec<usize>, tunelab::rng::Rng) {
    let (n, d) = (100_000, 10);
    let mut rng = stream(1, 0);
    let (ds, theta) = simulate_logistic(n, d, &mut rng).unwrap();
    let t = LogisticRegression::new(Arc::new(ds), 10.0, false).unwrap();
    let mut perm: Vec<usize> = (0..n).collect();
    for i in 0..1000 {
        let j = rng.random_range(i..n);
        perm.swap(i, j);
    }
    (t, theta, perm[..1000].to_vec(), rng)
}

fn logistic(c: &mut Criterion) {
    let (t, theta, idx, mut rng) = logistic_setup();
    let d = theta.len();
    let mut out = vec![0.0; d];
    c.bench_function("logistic N=1e5 d=10: minibatch gradient (batch 1000)", |b| {
        b.iter(|| t.grad_estimate(black_box(&theta), black_box(&idx), &mut out))
    });
    c.bench_function("logistic N=1e5 d=10: full-data gradient, 1 theta", |b| {
        b.iter(|| t.grad_log_density(black_box(&theta), &mut out))
    });
    let thetas: Vec<f64> = (0..1000 * d).map(|k| theta[k % d] + 0.03 * rng.sample::<f64, _>(StandardNormal)).collect();
    let mut group = c.benchmark_group("logistic N=1e5 d=10: full_scores of 1000 thetas");
    group.sample_size(10);
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_function(format!("{threads} thread(s)"), |b| {
            b.iter(|| pool.install(|| full_scores(&t, black_box(&thetas))))
        });
    }
    group.finish();
}

fn logistic_cpu(c: &mut Criterion<ThreadCpu>) {
    let (t, theta, idx, mut rng) = logistic_setup();
    let d = theta.len();
    let mut out = vec![0.0; d];
    let mut group = c.benchmark_group("cpu");
    group.bench_function("logistic minibatch gradient (N=1e5, d=10, batch 1000)", |b| {
        b.iter(|| t.grad_estimate(black_box(&theta), black_box(&idx), &mut out))
    });
    group.bench_function("logistic full-data gradient, 1 theta (N=1e5, d=10)", |b| {
        b.iter(|| t.grad_log_density(black_box(&theta), &mut out))
    });
    let thetas: Vec<f64> = (0..1000 * d).map(|k| theta[k % d] + 0.03 * rng.sample::<f64, _>(StandardNormal)).collect();
    let mut many = vec![0.0; 1000 * d];
    group.sample_size(10);
    group.bench_function("logistic scores of 1000 thetas, one thread (N=1e5, d=10)", |b| {
        b.iter(|| t.grad_log_density_many(black_box(&thetas), &mut many))
    });
    group.finish();
}

fn bnn(c: &mut Criterion) {
    let mut ds = digits().unwrap();
    ds.standardize();
    let n = ds.n;
    let t = Bnn::new(Arc::new(ds), 20, 10, 1.0).unwrap();
    let mut rng = stream(2, 0);
    let theta = t.random_init(&mut rng);
    let idx: Vec<usize> = (0..100).map(|_| rng.random_range(0..n)).collect();
    let mut out = vec![0.0; t.dim()];
    c.bench_function("bnn digits 64-20-10: minibatch gradient (batch 100)", |b| {
        b.iter(|| t.grad_estimate(black_box(&theta), black_box(&idx), &mut out))
    });
    c.bench_function("bnn digits 64-20-10: full-data gradient (N = 1797)", |b| {
        b.iter(|| t.grad_log_density(black_box(&theta), &mut out))
    });
}

fn simulate(c: &mut Criterion) {
    let mut group = c.benchmark_group("simulate_logistic");
    group.sample_size(10);
    group.bench_function("N=1e6 d=10", |b| b.iter(|| simulate_logistic(1_000_000, 10, &mut stream(3, 0)).unwrap()));
    group.finish();
}

criterion_group!(benches, logistic, bnn, simulate);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = logistic_cpu
}
criterion_main!(benches, cpu_benches);
