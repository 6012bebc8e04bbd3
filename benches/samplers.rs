//! Sampler benchmarks (release): one SGLD / SGLD-CV / SGHMC iteration on the paper's logistic regression
//! (N = 1e5, d = 10, batch 1,000), the minibatch draw alone, and the MAP finder.
//!
//! Run: `cargo bench --bench samplers`. The `cpu/` group measures the thread CPU time of the same SGLD
//! iterations (`CLOCK_THREAD_CPUTIME_ID`), the better guide on a shared machine.

use criterion::{criterion_group, criterion_main, BatchSize as CBatch, Criterion};
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tunelab::data::simulate_logistic;
use tunelab::model::{LogisticRegression, Target};
use tunelab::rng::stream;
use tunelab::sampler::{find_map, BatchSize, Budget, Chain, ControlVariate, MapOptions, SamplerKind, SamplerParams};

mod common;
use common::ThreadCpu;

fn logistic(n: usize, d: usize) -> LogisticRegression {
    let (ds, _) = simulate_logistic(n, d, &mut stream(1, 0)).unwrap();
    LogisticRegression::new(Arc::new(ds), 10.0, false).unwrap()
}

fn bench_iterations(c: &mut Criterion) {
    let t = logistic(100_000, 10);
    let map = find_map(&t, &[0.0; 10], &MapOptions::default(), &mut stream(1, 1)).unwrap();
    let cv = Arc::new(ControlVariate::new(&t, map.theta.clone()).unwrap());
    let cancel = AtomicBool::new(false);
    let mut g = c.benchmark_group("logistic_n1e5_d10_batch1000");
    for (name, kind, repl) in [
        ("sgld_iter", SamplerKind::Sgld, false),
        ("sgld_iter_with_replacement", SamplerKind::Sgld, true),
        ("sgld_cv_iter", SamplerKind::SgldCv, false),
        ("sgnht_iter", SamplerKind::Sgnht, false),
    ] {
        let mut p = SamplerParams::new(kind, 1e-6, BatchSize::Count(1000));
        p.with_replacement = repl;
        let v = p.validate(t.n_data()).unwrap();
        let mut chain = Chain::new(&t, v, map.theta.clone(), Some(cv.clone()), stream(2, 0)).unwrap();
        let mut out = Vec::with_capacity(1 << 20);
        // 100 iterations per measured call (thin 100: one sample kept), reported per iteration below.
        g.throughput(criterion::Throughput::Elements(100));
        g.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                black_box(chain.run(&t, Budget::Iterations(100), 100, &mut out, &cancel))
            })
        });
    }
    let mut p = SamplerParams::new(SamplerKind::Sghmc, 1e-6, BatchSize::Count(1000));
    p.leapfrog = 10;
    let v = p.validate(t.n_data()).unwrap();
    let mut chain = Chain::new(&t, v, map.theta.clone(), None, stream(2, 0)).unwrap();
    let mut out = Vec::new();
    g.throughput(criterion::Throughput::Elements(10));
    g.bench_function("sghmc_L10_iter", |b| {
        b.iter(|| {
            out.clear();
            black_box(chain.run(&t, Budget::Iterations(10), 10, &mut out, &cancel))
        })
    });
    // The batch gradient alone (core-data's kernel), for the split of the SGLD cost.
    let idx: Vec<usize> = (0..1000).map(|i| (i * 97) % 100_000).collect();
    let mut grad = vec![0.0; 10];
    g.throughput(criterion::Throughput::Elements(1));
    g.bench_function("batch_gradient_only", |b| {
        b.iter(|| {
            t.grad_estimate(black_box(&map.theta), &idx, &mut grad);
            black_box(grad[0])
        })
    });
    g.finish();

    let mut g = c.benchmark_group("map");
    g.sample_size(10);
    g.bench_function("lbfgs_logistic_n1e5_d10", |b| {
        b.iter_batched(
            || stream(1, 1),
            |mut r| find_map(&t, &[0.0; 10], &MapOptions::default(), &mut r).unwrap(),
            CBatch::SmallInput,
        )
    });
    g.finish();
}

/// Thread CPU time of SGLD iterations (plain, batch 1,000 without replacement, and the batch gradient
/// alone), 100 iterations per measured call, reported per iteration (criterion's throughput line).
fn bench_iterations_cpu(c: &mut Criterion<ThreadCpu>) {
    let t = logistic(100_000, 10);
    let map = find_map(&t, &[0.0; 10], &MapOptions::default(), &mut stream(1, 1)).unwrap();
    let cancel = AtomicBool::new(false);
    let mut g = c.benchmark_group("cpu");
    let v = SamplerParams::new(SamplerKind::Sgld, 1e-6, BatchSize::Count(1000)).validate(t.n_data()).unwrap();
    let mut chain = Chain::new(&t, v, map.theta.clone(), None, stream(2, 0)).unwrap();
    let mut out = Vec::with_capacity(1 << 20);
    g.throughput(criterion::Throughput::Elements(100));
    g.bench_function("sgld_iter x100 (N=1e5, d=10, batch 1000)", |b| {
        b.iter(|| {
            out.clear();
            black_box(chain.run(&t, Budget::Iterations(100), 100, &mut out, &cancel))
        })
    });
    g.finish();
}

criterion_group!(benches, bench_iterations);
criterion_group! {
    name = cpu_benches;
    config = Criterion::default().with_measurement(ThreadCpu);
    targets = bench_iterations_cpu
}
criterion_main!(benches, cpu_benches);
