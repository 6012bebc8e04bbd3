//! Fixed benchmark workloads shared by the native example (`examples/browser_bench_native.rs`) and the
//! browser benchmark (`tests/e2e/bench.mjs` through `crates/wasm/src/lib.rs`), so that native and WebAssembly time
//! exactly the same code on the same inputs. Each returns elapsed milliseconds (web-time clock).

use crate::data::simulate_logistic;
use crate::error::Result;
use crate::model::LogisticRegression;
use crate::rng::stream;
use crate::sampler::{BatchSize, Budget, Chain, SamplerKind, SamplerParams};
use crate::stein::{ksd, KsdOptions};
use rand::RngExt;
use rand_distr::StandardNormal;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use web_time::Instant;

/// KSD (IMQ, c = 1, beta = -1/2, V-statistic, no rescaling: the reference definition) of `n` standard
/// normal samples in `d` dimensions with their exact scores. Returns (milliseconds, ksd).
pub fn ksd_ms(n: usize, d: usize, seed: u64) -> Result<(f64, f64)> {
    let mut rng = stream(seed, 0);
    let x: Vec<f64> = (0..n * d).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
    let s: Vec<f64> = x.iter().map(|v| -v).collect();
    let t0 = Instant::now();
    let v = ksd(black_box(&x), black_box(&s), d, &KsdOptions::reference(1.0, -0.5))?;
    Ok((t0.elapsed().as_secs_f64() * 1e3, v.ksd))
}

/// `chains` independent SGLD chains (one per rayon task, as the tuning driver runs arms) on a simulated
/// logistic regression with `n` points in `d` dimensions, batch `batch` (fraction or count), `iters`
/// iterations each, step 0.1 / N, from zero. Returns (milliseconds, total gradient evaluations).
pub fn sgld_ms(n: usize, d: usize, iters: u64, batch: f64, chains: usize, seed: u64) -> Result<(f64, u64)> {
    let mut rng = stream(seed, 0);
    let (ds, _) = simulate_logistic(n, d, &mut rng)?;
    let target = LogisticRegression::new(Arc::new(ds), 10.0, false)?;
    let params = SamplerParams::new(SamplerKind::Sgld, 0.1 / n as f64, BatchSize::from_number(batch)?).validate(n)?;
    let cancel = AtomicBool::new(false);
    let mut runs = Vec::with_capacity(chains);
    for c in 0..chains {
        runs.push(Chain::new(&target, params.clone(), vec![0.0; d], None, stream(seed, 1 + c as u64))?);
    }
    let t0 = Instant::now();
    let evals: u64 = runs
        .par_iter_mut()
        .map(|chain| {
            let mut out = Vec::new();
            chain.run(&target, Budget::Iterations(iters), 10, &mut out, &cancel);
            black_box(&out);
            chain.grad_evals()
        })
        .sum();
    Ok((t0.elapsed().as_secs_f64() * 1e3, evals))
}

/// The parts of the two workloads above, apart, for the browser benchmark's "where the time goes" table; each on
/// the calling thread, returning milliseconds. `rng-range`: 1,000,000 uniform draws `k..10000` of the seeded
/// ChaCha8 stream (the minibatch indices of 10,000 SGLD iterations with 100-point batches, as
/// `Chain::draw_batch` draws them); `rng-normal`: 100,000 standard normal draws (their noise, d = 10);
/// `grad`: the 10,000 minibatch gradients of that run (N = 10,000, d = 10, 100 points, indices drawn
/// beforehand); `ksd-tiles` / `ksd-kernel`: the coordinate sums and the per-pair kernel (division and square
/// root) of the KSD workload's pair loop (n = 1,000, d = 10).
pub fn part_ms(part: &str, seed: u64) -> Result<f64> {
    let mut rng = stream(seed, 0);
    let t0;
    match part {
        "rng-range" => {
            t0 = Instant::now();
            let mut acc = 0u64;
            for i in 0..1_000_000u32 {
                acc = acc.wrapping_add(rng.random_range(i % 100..10_000u32) as u64);
            }
            black_box(acc);
        }
        "rng-normal" => {
            t0 = Instant::now();
            let mut acc = 0.0;
            for _ in 0..100_000 {
                acc += rng.sample::<f64, _>(StandardNormal);
            }
            black_box(acc);
        }
        "grad" => {
            let (ds, _) = simulate_logistic(10_000, 10, &mut rng)?;
            let target = LogisticRegression::new(Arc::new(ds), 10.0, false)?;
            let idx: Vec<usize> = (0..1_000_000).map(|_| rng.random_range(0..10_000u32) as usize).collect();
            let theta = vec![0.01; 10];
            let mut g = vec![0.0; 10];
            t0 = Instant::now();
            for b in idx.chunks_exact(100) {
                crate::model::Target::add_grad_log_lik(&target, black_box(&theta), b, &mut g);
            }
            black_box(&g);
        }
        "ksd-tiles" | "ksd-kernel" => {
            let (n, d) = (1000, 10);
            let x: Vec<f64> = (0..n * d).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
            let s: Vec<f64> = x.iter().map(|v| -v).collect();
            t0 = Instant::now();
            black_box(crate::stein::ksd::pair_loop_part(&x, &s, n, d, 1.0, part == "ksd-tiles"));
        }
        _ => return Err(crate::error::Error::config(format!("unknown benchmark part {part:?}"))),
    }
    Ok(t0.elapsed().as_secs_f64() * 1e3)
}
