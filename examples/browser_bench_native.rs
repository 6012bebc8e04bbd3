//! Native counterpart of the browser benchmark (`npm run bench`): the same workloads from
//! `tunelab::benchkit`, on rayon pools of 1 and 2 threads. Usage:
//! `cargo run --release --example browser_bench_native [reps]`. Prints JSON lines.

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        pool.install(|| {
            let _ = tunelab::benchkit::ksd_ms(1000, 10, 1); // warm-up
            let ksd = median((0..reps).map(|_| tunelab::benchkit::ksd_ms(1000, 10, 1).expect("ksd").0).collect());
            let one = median((0..reps).map(|_| tunelab::benchkit::sgld_ms(10_000, 10, 10_000, 0.01, 1, 1).expect("sgld").0).collect());
            let many = median((0..reps).map(|_| tunelab::benchkit::sgld_ms(10_000, 10, 10_000, 0.01, 4, 1).expect("sgld").0).collect());
            println!(
                "{{\"target\":\"native\",\"threads\":{threads},\"ksd_n1000_d10_ms\":{ksd:.2},\"sgld_1chain_ms\":{one:.2},\"sgld_4chains_ms\":{many:.2}}}"
            );
        });
    }
    // The workloads' parts, one thread (the browser benchmark prints the same names).
    let mut parts = Vec::new();
    for part in PARTS {
        let _ = tunelab::benchkit::part_ms(part, 1); // warm-up
        let ms = median((0..reps).map(|_| tunelab::benchkit::part_ms(part, 1).expect("part")).collect());
        parts.push(format!("\"{part}\":{ms:.2}"));
    }
    println!("{{\"target\":\"native-parts\",\"threads\":1,{}}}", parts.join(","));
}

/// The parts of `tunelab::benchkit::part_ms`.
const PARTS: [&str; 5] = ["rng-range", "rng-normal", "grad", "ksd-tiles", "ksd-kernel"];
