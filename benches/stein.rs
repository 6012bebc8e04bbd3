//! KSD / FSSD benchmarks: KSD for n = 1000, d = 10 and n = 2000, d = 100 with 1 and 2 rayon threads
//! (plain reference V-statistic, the default scaled U-statistic, and a general beta using powf);
//! FSSD for n = 1000, d = 10, J = 10.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::RngExt;
use rand_distr::StandardNormal;
use std::hint::black_box;
use tunelab::rng::stream;
use tunelab::stein::{fssd, ksd, FssdKernel, KsdOptions};

fn data(n: usize, d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = stream(1, 0);
    let x: Vec<f64> = (0..n * d).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
    let s: Vec<f64> = x.iter().map(|v| -v).collect();
    (x, s)
}

fn bench_ksd(c: &mut Criterion) {
    let mut g = c.benchmark_group("ksd");
    g.sample_size(20);
    for &(n, d) in &[(1000usize, 10usize), (2000, 100)] {
        let (x, s) = data(n, d);
        for threads in [1usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            for (name, opts) in [
                ("fixed-v", KsdOptions::reference(1.0, -0.5)),
                ("median-precond-u (default)", KsdOptions::default()),
                ("fixed-v-beta0.3", KsdOptions::reference(1.0, -0.3)),
            ] {
                if name == "fixed-v-beta0.3" && d == 100 {
                    continue;
                }
                let id = BenchmarkId::new(format!("{name}/n{n}-d{d}"), format!("{threads}t"));
                g.bench_with_input(id, &(), |b, _| {
                    b.iter(|| pool.install(|| black_box(ksd(black_box(&x), black_box(&s), d, &opts).unwrap())))
                });
            }
        }
    }
    g.finish();
}

fn bench_fssd(c: &mut Criterion) {
    let mut g = c.benchmark_group("fssd");
    g.sample_size(20);
    let (n, d, j) = (1000usize, 10usize, 10usize);
    let (x, s) = data(n, d);
    let v: Vec<f64> = x[..j * d].to_vec();
    let k = FssdKernel::Gauss { sigma2: 2.0 * d as f64 };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    g.bench_function(BenchmarkId::new(format!("gauss/n{n}-d{d}-J{j}"), "1t"), |b| {
        b.iter(|| pool.install(|| black_box(fssd(black_box(&x), black_box(&s), d, &v, &k).unwrap())))
    });
    g.finish();
}

criterion_group!(benches, bench_ksd, bench_fssd);
criterion_main!(benches);
