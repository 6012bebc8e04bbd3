//! Can the plain IMQ KSD see a spread that is 20% too wide? (`scripts/reproduce/mamba/kernel-scale.sh`)
//!
//! The MAMBA paper scores arms by the IMQ KSD (sec. 2.2.1) without giving c and beta; SGMCMCJax's `imq_KSD` uses
//! c = 1, beta = -1/2 and the V-statistic ("plain" in tunelab). On the paper-logreg preset (logistic regression,
//! d = 10, the preset's 8,000 training points; the paper used N = 10^6) the posterior std is about 0.03 per
//! coordinate, so a kernel of scale c = 1 is almost flat over the posterior. This example takes exact posterior
//! draws (tunelab's MALA reference sampler from the MAP), widens or narrows them about their mean by a factor f
//! (f = 1.2: every std 20% too large), and scores each set with the plain kernel and with tunelab's run kernel
//! (Laplace-preconditioned, c = 1 on that scale, U-statistic, moment term), over 10 seeds.
//!
//! It prints, per kernel and factor, the mean and sd of the score over the seeds; the shift of the mean from f = 1
//! in units of the sd at f = 1 (what decides a comparison between arms, whose draws are independent); and in how
//! many seeds the widened (or narrowed) copy of the same draws scored worse than the exact ones.
use std::sync::atomic::AtomicBool;
use tunelab::experiments::sgmcmc;
use tunelab::experiments::sgmcmc::{metric, run_kernel::RunKernel};
use tunelab::experiments::tune::{self, KsdKernel, MetricKind};
use tunelab::rng::stream;
use tunelab::sampler::reference_sample_stoppable;
use tunelab::stein::{ksd, KsdOptions};

const SEEDS: u64 = 10;
const DRAWS: usize = 1000;
const FACTORS: [f64; 5] = [0.8, 0.98, 1.0, 1.02, 1.2];

fn main() {
    let cfg = tune::presets::preset("paper-logreg").expect("preset");
    let problem = sgmcmc::Posterior::build(&cfg, None).expect("posterior");
    let target = problem.train.as_ref();
    let d = problem.dim;
    let run_metric = MetricKind::Ksd {
        kernel: Some(KsdKernel::Run),
        scale: None,
        estimator: None,
        c: None,
        beta: None,
        moment: None,
    };
    let run_kernel =
        RunKernel::for_metric(&run_metric, target, &problem.map).expect("run kernel").expect("a run kernel");
    let plain = KsdOptions::reference(1.0, -0.5);
    // scores[kernel][factor][seed]
    let mut scores = vec![vec![Vec::new(); FACTORS.len()]; 2];
    let mut post_sd = 0.0;
    for seed in 0..SEEDS {
        let mut rng = stream(seed, 0x6b73);
        let stop = AtomicBool::new(false);
        let res =
            reference_sample_stoppable(target, &problem.map, DRAWS, 2000, 5, &stop, &mut rng).expect("reference run");
        let x = res.samples;
        let mean: Vec<f64> = (0..d).map(|k| x.chunks_exact(d).map(|r| r[k]).sum::<f64>() / DRAWS as f64).collect();
        post_sd += (0..d)
            .map(|k| (x.chunks_exact(d).map(|r| (r[k] - mean[k]).powi(2)).sum::<f64>() / (DRAWS - 1) as f64).sqrt())
            .sum::<f64>()
            / (d as f64 * SEEDS as f64);
        for (fi, &f) in FACTORS.iter().enumerate() {
            let y: Vec<f64> =
                x.chunks_exact(d).flat_map(|r| r.iter().zip(&mean).map(move |(v, m)| m + f * (v - m))).collect();
            let s = metric::score_vectors(target, &y, None, &mut rng);
            scores[0][fi].push(ksd(&y, &s, d, &plain).expect("plain KSD").ksd);
            scores[1][fi].push(RunKernel::rank_value(&run_kernel.ksd(&y, &s, d).expect("run KSD")));
        }
    }
    println!(
        "paper-logreg posterior (d = {d}, {} training points), {DRAWS} exact draws per seed, {SEEDS} seeds",
        problem.n_data
    );
    println!("mean posterior std per coordinate: {post_sd:.4}");
    println!();
    println!("| kernel | factor f (std error) | score: mean | sd over seeds | (mean - mean at f = 1) / sd at f = 1 | seeds scoring worse than f = 1 (same draws) |");
    println!("|---|---|---|---|---|---|");
    let one = FACTORS.iter().position(|&f| f == 1.0).expect("f = 1 is listed");
    for (ki, name) in ["plain (c = 1, beta = -1/2, V)", "run (tunelab default)"].iter().enumerate() {
        for (fi, &f) in FACTORS.iter().enumerate() {
            let v = &scores[ki][fi];
            let m = v.iter().sum::<f64>() / v.len() as f64;
            let sd = (v.iter().map(|a| (a - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
            let at_one = &scores[ki][one];
            let m1 = at_one.iter().sum::<f64>() / at_one.len() as f64;
            let sd1 = (at_one.iter().map(|a| (a - m1).powi(2)).sum::<f64>() / (at_one.len() - 1) as f64).sqrt();
            let worse = if fi == one {
                "-".to_string()
            } else {
                format!("{}/{}", (0..v.len()).filter(|&i| v[i] > scores[ki][one][i]).count(), v.len())
            };
            println!(
                "| {name} | {f} ({:+.0}%) | {m:.4} | {sd:.4} | {:.2} | {worse} |",
                (f - 1.0) * 100.0,
                (m - m1) / sd1
            );
        }
    }
}
