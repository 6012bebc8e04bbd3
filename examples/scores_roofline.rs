//! Roofline of the logistic regression's full-data scoring (issue 12's speed goal: scores of 1,000 samples at
//! N = 1e5, d = 10 in at most 0.1 s on one thread), measured in thread CPU time on this machine:
//! 1. the scoring kernel (`grad_log_density_many`, the problem of `benches/targets.rs`), with a checksum of
//!    its output bits (to check that a change of the kernel kept every bit);
//! 2. this core's peak f64 throughput of vector adds, of multiplies, and of both interleaved 1:1 (AVX-512 when
//!    the CPU has it, else AVX2; 8 independent accumulators, so latency does not limit them);
//! 3. the kernel's floating-point operations per (sample, data row) pair, counted in the source of
//!    `scores_fused_impl` and `sigmoid_pade` (no FMA), and what they imply.
//!
//! Usage: `cargo run --release --example scores_roofline -- [REPS]` (default 5; prints min and median).

#[cfg(target_arch = "x86_64")]
fn main() {
    use rand::RngExt;
    use rand_distr::StandardNormal;
    use std::hint::black_box;
    use std::sync::Arc;
    use tunelab::data::simulate_logistic;
    use tunelab::model::{LogisticRegression, Target};
    use tunelab::rng::stream;

    let reps: usize = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(5);
    // The problem of benches/targets.rs (`cpu/logistic scores of 1000 thetas`).
    let (n, d, s) = (100_000usize, 10usize, 1000usize);
    let mut rng = stream(1, 0);
    let (ds, theta) = simulate_logistic(n, d, &mut rng).unwrap();
    let t = LogisticRegression::new(Arc::new(ds), 10.0, false).unwrap();
    for i in 0..1000 {
        let _ = rng.random_range(i..n);
    } // the bench's minibatch draws, same stream position
    let thetas: Vec<f64> = (0..s * d).map(|k| theta[k % d] + 0.03 * rng.sample::<f64, _>(StandardNormal)).collect();
    let mut out = vec![0.0; s * d];
    let mut times = Vec::new();
    for _ in 0..reps {
        let t0 = thread_cpu();
        t.grad_log_density_many(black_box(&thetas), &mut out);
        times.push(thread_cpu() - t0);
    }
    times.sort_by(f64::total_cmp);
    let (tmin, tmed) = (times[0], times[times.len() / 2]);
    let checksum = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| (h ^ v.to_bits()).wrapping_mul(0x0100_0000_01b3));
    println!("scores of {s} samples, N = {n}, d = {d}, one thread: min {tmin:.4} s, median {tmed:.4} s (thread CPU, {reps} reps)");
    println!("output checksum (FNV-1a of the bits): {checksum:016x}");

    let (add, mul, mixed, width) = peak();
    println!("peak f64 throughput of one core ({width}): adds {:.1} G/s, multiplies {:.1} G/s, adds + multiplies 1:1 {:.1} G/s", add / 1e9, mul / 1e9, mixed / 1e9);

    // Operations per (sample, row) pair, counted in the source (p = d = 10, no intercept, no FMA):
    //   z = W x + b in two partial sums: 10 multiplies, 10 adds, 1 add to join them;
    //   G += r x^T: 10 multiplies, 10 adds;
    //   r = y - sigmoid_pade(z): negate, clamp (2 min/max), t = x log2e + magic (1 mul, 1 add), k = t - magic (1),
    //   r = x - k ln2_hi - k ln2_lo (2 mul, 2 add), r^2 (1 mul), P (3 mul, 2 add), Q (3 mul, 3 add),
    //   num and den (2 add), 2^k from the exponent bits (3 integer ops), d = 2^k num + den (1 mul, 1 add),
    //   den / d (1 division), y - s (1 add).
    let (muls, adds, other, divs) = (20.0 + 11.0, 21.0 + 10.0 + 13.0, 6.0, 1.0);
    let pairs = (n * s) as f64;
    let flops = pairs * (muls + adds + divs);
    println!(
        "per pair: {muls} multiplies, {adds} adds, {divs} division, {other} other (negate, min/max, integer); \
         {:.2e} pairs, {:.2e} flops",
        pairs, flops
    );
    println!("achieved: {:.1} GFLOP/s (multiplies + adds + divisions over the min time)", flops / tmin / 1e9);
    let t_add = pairs * adds / add;
    let t_mul = pairs * muls / mul;
    let t_mixed = pairs * (muls + adds) / mixed;
    println!(
        "floors from the peaks: adds alone {t_add:.3} s, multiplies alone {t_mul:.3} s, adds and multiplies \
         together at the 1:1 rate {t_mixed:.3} s (no division, min/max or integer work counted)"
    );
    println!(
        "data: X is {:.1} MB, read once (each block of 256 rows stays in L1 while every sample tile passes over it); \
         {:.2} flops per byte of X",
        (n * d * 8) as f64 / 1e6,
        flops / (n * d * 8) as f64
    );
}

/// Thread CPU time in seconds.
#[cfg(target_arch = "x86_64")]
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Peak f64 operations per second (adds, multiplies, both 1:1) with 8 independent vector accumulators.
#[cfg(target_arch = "x86_64")]
fn peak() -> (f64, f64, f64, &'static str) {
    let iters = 20_000_000usize;
    let rate = |f: &dyn Fn(usize) -> f64, lanes: usize, ops: usize| {
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let t0 = thread_cpu();
            std::hint::black_box(f(iters));
            best = best.min(thread_cpu() - t0);
        }
        (iters * 8 * lanes * ops) as f64 / best
    };
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F is present (checked just above).
        let (a, m, x) = unsafe {
            (rate(&|k| peak512::<0>(k), 8, 1), rate(&|k| peak512::<1>(k), 8, 1), rate(&|k| peak512::<2>(k), 8, 2))
        };
        (a, m, x, "AVX-512, 8 f64 lanes")
    } else if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked just above).
        let (a, m, x) = unsafe {
            (rate(&|k| peak256::<0>(k), 4, 1), rate(&|k| peak256::<1>(k), 4, 1), rate(&|k| peak256::<2>(k), 4, 2))
        };
        (a, m, x, "AVX2, 4 f64 lanes")
    } else {
        (f64::NAN, f64::NAN, f64::NAN, "no AVX2")
    }
}

/// `MODE` 0: 8 chains of adds; 1: 8 chains of multiplies; 2: 8 chains each doing one add and one multiply.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn peak512<const MODE: u8>(iters: usize) -> f64 {
    use std::arch::x86_64::*;
    let c = _mm512_set1_pd(std::hint::black_box(1.0000001));
    let e = _mm512_set1_pd(std::hint::black_box(1e-9));
    let mut a = [_mm512_set1_pd(1.0); 8];
    for (k, v) in a.iter_mut().enumerate() {
        *v = _mm512_set1_pd(1.0 + k as f64);
    }
    for _ in 0..iters {
        for v in a.iter_mut() {
            *v = match MODE {
                0 => _mm512_add_pd(*v, e),
                1 => _mm512_mul_pd(*v, c),
                _ => _mm512_add_pd(_mm512_mul_pd(*v, c), e),
            };
        }
    }
    let mut s = 0.0;
    for v in a {
        let mut l = [0.0f64; 8];
        // SAFETY: `l` holds 8 f64.
        unsafe { _mm512_storeu_pd(l.as_mut_ptr(), v) };
        s += l.iter().sum::<f64>();
    }
    s
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn peak256<const MODE: u8>(iters: usize) -> f64 {
    use std::arch::x86_64::*;
    let c = _mm256_set1_pd(std::hint::black_box(1.0000001));
    let e = _mm256_set1_pd(std::hint::black_box(1e-9));
    let mut a = [_mm256_set1_pd(1.0); 8];
    for (k, v) in a.iter_mut().enumerate() {
        *v = _mm256_set1_pd(1.0 + k as f64);
    }
    for _ in 0..iters {
        for v in a.iter_mut() {
            *v = match MODE {
                0 => _mm256_add_pd(*v, e),
                1 => _mm256_mul_pd(*v, c),
                _ => _mm256_add_pd(_mm256_mul_pd(*v, c), e),
            };
        }
    }
    let mut s = 0.0;
    for v in a {
        let mut l = [0.0f64; 4];
        // SAFETY: `l` holds 4 f64.
        unsafe { _mm256_storeu_pd(l.as_mut_ptr(), v) };
        s += l.iter().sum::<f64>();
    }
    s
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    println!("scores_roofline measures x86-64 vector throughput; nothing to do on this target");
}
