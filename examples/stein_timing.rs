//! CPU-time measurement of KSD on a loaded machine (criterion's wall clock is unreliable when the
//! cores are shared): reports process CPU seconds per call (from /proc/self/stat) for the library KSD
//! and for a plain scalar double loop. Usage: `cargo run --release --example stein_timing -- N D ITERS`.

use rand::RngExt;
use rand_distr::StandardNormal;
use std::hint::black_box;
use tunelab::rng::stream;
use tunelab::stein::{ksd, KsdOptions};

fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // fields after ')' start at field 3 (state); utime = field 14, stime = field 15
    let ut: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let st: f64 = f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    (ut + st) / 100.0
}

fn plain(x: &[f64], s: &[f64], d: usize) -> f64 {
    let n = x.len() / d;
    let mut acc = 0.0;
    for i in 0..n {
        for j in 0..n {
            let (mut r2, mut t, mut ss) = (0.0, 0.0, 0.0);
            for k in 0..d {
                let u = x[i * d + k] - x[j * d + k];
                r2 += u * u;
                t += (s[i * d + k] - s[j * d + k]) * u;
                ss += s[i * d + k] * s[j * d + k];
            }
            let q = 1.0 + r2;
            let kb = 1.0 / q.sqrt();
            let b1 = kb / q;
            acc += ss * kb + t * b1 + d as f64 * b1 - 3.0 * r2 * b1 / q;
        }
    }
    (acc / (n * n) as f64).sqrt()
}

fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|v| v.parse().unwrap()).collect();
    let (n, d, iters) = (a[0], a[1], a[2]);
    let mut rng = stream(1, 0);
    let x: Vec<f64> = (0..n * d).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
    let s: Vec<f64> = x.iter().map(|v| -v).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let opts = KsdOptions::reference(1.0, -0.5);
    let mut r = 0.0;
    let t0 = cpu_seconds();
    for _ in 0..iters {
        r = pool.install(|| ksd(black_box(&x), black_box(&s), d, &opts).unwrap().ksd);
    }
    let t1 = cpu_seconds();
    let mut p = 0.0;
    for _ in 0..iters {
        p = plain(black_box(&x), black_box(&s), d);
    }
    let t2 = cpu_seconds();
    println!(
        "n={n} d={d}: library {:.3} ms/call, plain loop {:.3} ms/call (cpu time), values {r} {p}",
        (t1 - t0) * 1e3 / iters as f64,
        (t2 - t1) * 1e3 / iters as f64
    );
}
