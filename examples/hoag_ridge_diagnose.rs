//! Why HOAG misses the 1e-3 target on some seeds of the simulated kernel-ridge preset (issue 15):
//!
//! ```text
//! cargo run --release --example hoag_ridge_diagnose -- [SETTING] [FIRST_SEED] [SEEDS]
//! ```
//!
//! SETTING `kernel-ridge` (default) or `diabetes`, configured as in `examples/hoag_bench.rs`. Per seed, the
//! full comparison is run as the benchmark runs it (same reference optimum), then the outer loss is mapped on
//! a fine 81 x 81 grid over the box. Printed per seed and HOAG variant: the final relative suboptimality, the
//! final hyperparameters, why it stopped, the norm of the accurate implicit hypergradient there (eq. 2,
//! tolerance 1e-10), and the local minimum of the fine grid whose basin (steepest descent between grid
//! neighbours) contains the final point, against the grid's global minimum. Also the number of strict local
//! minima of the grid (lower than their 8 neighbours).

use std::sync::atomic::AtomicBool;
use tunelab::experiments::hoag::{self, HoagBudget, HoagConfig, HoagData, MethodSpec, ProblemKind};
use tunelab::experiments::{self, Inputs};

fn config(setting: &str, seed: u64) -> HoagConfig {
    let mut c = match setting {
        "kernel-ridge" => HoagConfig::preset("kernel-ridge").expect("preset"),
        "diabetes" => {
            let mut c = HoagConfig::new(ProblemKind::KernelRidge);
            c.data = HoagData::Diabetes;
            c.budget = HoagBudget { cost: 6000, seconds: None, max_iter: 100 };
            c.landscape_points = 25;
            c
        }
        other => panic!("unknown setting {other} (kernel-ridge, diabetes)"),
    };
    if let HoagData::Simulate { seed: s, .. } = &mut c.data {
        *s = seed;
    }
    c.seed = seed;
    c
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let setting = args.get(1).map(String::as_str).unwrap_or("kernel-ridge");
    let first: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let seeds: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let cancel = AtomicBool::new(false);
    println!("`{setting}`: per seed and HOAG variant (final relative suboptimality; final (log width, log reg); stop; |implicit hypergradient| there; basin's grid minimum vs global grid minimum, relative)");
    println!();
    println!("| seed | grid minima | variant | final rel. subopt. | final λ | stop | rejected | ‖∇f‖ at final λ | basin minimum at | basin min rel. to global |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for seed in first..first + seeds {
        let cfg = config(setting, seed);
        let rep =
            experiments::check_and_run::<hoag::HoagExperiment>(cfg.clone(), Inputs::default(), &mut |_| {}, &cancel)
                .expect("run");
        let reference = rep.reference_optimum;
        // Fine landscape (only the landscape: one cheap method so the run is valid).
        let mut fine = cfg.clone();
        fine.landscape_points = 81;
        fine.methods = vec![MethodSpec::Random];
        fine.budget = HoagBudget { cost: 1, seconds: None, max_iter: 1 };
        let frep =
            experiments::check_and_run::<hoag::HoagExperiment>(fine.clone(), Inputs::default(), &mut |_| {}, &cancel)
                .expect("fine landscape");
        let l = frep.landscape.expect("landscape");
        let k = l.axes[0].len();
        let v = |i: usize, j: usize| l.values[i * k + j];
        let neighbours = |i: usize, j: usize| {
            let mut out = Vec::new();
            for di in -1i64..=1 {
                for dj in -1i64..=1 {
                    let (a, b) = (i as i64 + di, j as i64 + dj);
                    if (di, dj) != (0, 0) && a >= 0 && b >= 0 && (a as usize) < k && (b as usize) < k {
                        out.push((a as usize, b as usize));
                    }
                }
            }
            out
        };
        let minima: Vec<(usize, usize)> = (0..k)
            .flat_map(|i| (0..k).map(move |j| (i, j)))
            .filter(|&(i, j)| neighbours(i, j).iter().all(|&(a, b)| v(a, b) > v(i, j)))
            .collect();
        let global = l.min.min(reference);
        let data = hoag::builtin_data(&cfg).expect("data");
        let pr = hoag::problem_from_data(&cfg, &data).expect("problem");
        let lo = cfg.bounds[0];
        let step = (cfg.bounds[1] - cfg.bounds[0]) / (k - 1) as f64;
        for m in rep.methods.iter().filter(|m| matches!(m.spec, MethodSpec::Hoag { .. })) {
            let rel = (m.final_loss - reference) / reference;
            let (_, g) = hoag::hypergradient(pr.as_ref(), &m.final_hyper, 1e-10, 100_000);
            // The hypergradient of the box-constrained problem: components pushing out of the box vanish.
            let gproj: f64 = g
                .iter()
                .zip(&m.final_hyper)
                .map(|(gi, li)| {
                    if (*li <= cfg.bounds[0] && *gi > 0.0) || (*li >= cfg.bounds[1] && *gi < 0.0) {
                        0.0
                    } else {
                        gi * gi
                    }
                })
                .sum::<f64>()
                .sqrt();
            // Descend on the fine grid from the nearest node.
            let idx = |x: f64| (((x - lo) / step).round().max(0.0) as usize).min(k - 1);
            let (mut i, mut j) = (idx(m.final_hyper[0]), idx(m.final_hyper[1]));
            loop {
                let best = neighbours(i, j).into_iter().min_by(|a, b| v(a.0, a.1).total_cmp(&v(b.0, b.1))).unwrap();
                if v(best.0, best.1) < v(i, j) {
                    (i, j) = best;
                } else {
                    break;
                }
            }
            println!(
                "| {seed} | {} | {} | {:.1e} | ({:.2}, {:.2}) | {} | {} | {:.1e} | ({:.2}, {:.2}) | {:.1e} |",
                minima.len(),
                m.name,
                rel,
                m.final_hyper[0],
                m.final_hyper[1],
                m.stopped,
                m.rejected_steps,
                gproj,
                l.axes[0][i],
                l.axes[1][j],
                (v(i, j) - global) / global,
            );
        }
        eprintln!("seed {seed} done");
    }
}
