//! Why MAMBA-KSD loses on test RMSE on the `pmf-page` comparison while its samples have the lowest KSD
//! (`cargo run --release --example pmf_page_probe [SEED]`; docs/mamba-page.md's numbers: seed 0, the preset's).
//!
//! Runs the preset's comparison (MAMBA-KSD, grid by log-loss, heuristic) and an exact MALA reference from the MAP
//! on the same SIMULATED ratings, then prints for every tuner's chosen samples and for the reference draws: test
//! RMSE of the posterior-mean prediction, KSD under the comparison's kernel, the mean posterior sd per
//! coordinate split by how well the data identify it (quartiles of the Laplace sd at the MAP: the top quartile
//! sits near the prior sd 1/sqrt(6) = 0.41), the paper's xi against the reference sd, and how far the sample
//! mean is from the MAP. Writes the same numbers as JSON to docs/results/mamba/page/pmf-page-probe-seedSEED.json.
use std::sync::atomic::AtomicBool;
use tunelab::experiments::compare;
use tunelab::experiments::sgmcmc;
use tunelab::experiments::sgmcmc::{metric::thin_rows, RunKernel};
use tunelab::experiments::tune::{self};
use tunelab::experiments::{ExperimentConfig, Kind};
use tunelab::sampler::{reference_sample_observed, RefOptions};

fn main() {
    let seed: u64 = std::env::args().nth(1).map_or(0, |s| s.parse().expect("seed"));
    let ExperimentConfig::Compare(mut cc) = ExperimentConfig::preset(Kind::Compare, "pmf-page").unwrap() else {
        unreachable!()
    };
    cc.base.seed = seed;
    let problem = sgmcmc::Posterior::build(&cc.base, None).unwrap();
    let d = problem.dim;
    let test = problem.test.as_ref().unwrap();
    let train = problem.train.as_ref();
    let mut tuners = compare::paper_tuners(&cc.base);
    tuners.retain(|t| cc.tuners.contains(&t.0));
    let stop = AtomicBool::new(false);
    let cmp = compare::compare(
        &tuners,
        &problem,
        0,
        None,
        None,
        &mut |_, _| {},
        &mut |_, _| {},
        &mut |_, _, _, _| {},
        &stop,
        Default::default(),
    )
    .unwrap();

    // Exact reference: MALA from the MAP, 20,000 draws after 10,000 warm-up, thin 5; 1,000 evenly kept draws.
    let n_ref = 20_000;
    let mut draws = Vec::new();
    let mut k = 0usize;
    let mut moments = sgmcmc::samples::Moments::new(d);
    let mut r = tunelab::rng::stream(seed, (1 << 40) + 3);
    let res = reference_sample_observed(
        train,
        &problem.map,
        n_ref,
        n_ref / 2,
        5,
        &RefOptions::default(),
        &stop,
        &mut r,
        &mut |x| {
            moments.push(x);
            if k.is_multiple_of(20) {
                draws.extend_from_slice(x);
            }
            k += 1;
        },
        &mut |_, _| {},
    )
    .unwrap();
    let ref_sd = moments.std();

    let kernel = RunKernel::for_metric(&tune::MetricSpec::default().kind, train, &problem.map).unwrap().unwrap();
    let lap = kernel.precond_sd.clone();
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&a, &b| lap[a].total_cmp(&lap[b]));
    let (strong, weak) = (&order[..d / 4], &order[d - d / 4..]);
    let avg = |v: &[f64], idx: &[usize]| idx.iter().map(|&j| v[j]).sum::<f64>() / idx.len() as f64;
    let sd_of = |x: &[f64]| {
        let mut m = sgmcmc::samples::Moments::new(d);
        for row in x.chunks_exact(d) {
            m.push(row);
        }
        (m.mean.clone(), m.std())
    };
    let ksd = |x: &[f64]| RunKernel::rank_value(&kernel.ksd_target(train, &thin_rows(x, d, 1000)).unwrap());
    let from_map = |mean: &[f64]| {
        (mean.iter().zip(&problem.map).zip(&lap).map(|((m, p), l)| ((m - p) / l).powi(2)).sum::<f64>() / d as f64)
            .sqrt()
    };

    let zeros = vec![0.0; d];
    println!(
        "pmf-page, seed {seed}: d = {d}, {} training / {} test ratings (SIMULATED)",
        problem.n_data,
        test.n_data()
    );
    println!(
        "test RMSE: mean predictor {:.4}, MAP {:.4}",
        test.predictive_rmse(&zeros).unwrap(),
        test.predictive_rmse(&problem.map).unwrap()
    );
    println!(
        "Laplace sd at the MAP: strong quartile mean {:.4}, weak quartile mean {:.4} (prior sd {:.4})",
        avg(&lap, strong),
        avg(&lap, weak),
        (1.0f64 / 6.0).sqrt()
    );
    println!(
        "reference: {} MALA draws (accept {:.2}), {} kept for RMSE/KSD",
        moments.n,
        res.accept_rate,
        draws.len() / d
    );
    println!("| samples | h | batch | test RMSE | KSD | mean sd strong / weak quartile | sd / ref sd strong / weak | xi | mean - MAP (Laplace sds, rms) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut rows_json = Vec::new();
    let mut row = |name: &str, h: String, b: String, x: &[f64], sd: &[f64], mean: &[f64]| {
        let ratio = |idx: &[usize]| idx.iter().map(|&j| sd[j] / ref_sd[j]).sum::<f64>() / idx.len() as f64;
        let (rmse, score) = (test.predictive_rmse(x).unwrap(), ksd(x));
        let (xi, off) = (compare::xi_error(sd, &ref_sd), from_map(mean));
        println!(
            "| {name} | {h} | {b} | {rmse:.4} | {score:.2} | {:.4} / {:.4} | {:.2} / {:.2} | {xi:.3} | {off:.2} |",
            avg(sd, strong),
            avg(sd, weak),
            ratio(strong),
            ratio(weak),
        );
        rows_json.push(serde_json::json!({
            "name": name, "step": h, "batch": b, "test_rmse": rmse, "ksd": score,
            "sd_strong": avg(sd, strong), "sd_weak": avg(sd, weak),
            "sd_ratio_strong": ratio(strong), "sd_ratio_weak": ratio(weak), "xi": xi, "mean_from_map": off,
        }));
    };
    for e in &cmp.entries {
        let b = e.report.best.as_ref().unwrap();
        // The chain's sd from every kept sample (the report's moments) and its mean.
        row(&e.name, format!("{:.2e}", b.step), b.batch.to_string(), &b.samples, &b.posterior.std, &b.posterior.mean);
        let (_, sd_kept) = sd_of(&b.samples);
        println!(
            "|   ({} report samples; their own sd strong / weak {:.4} / {:.4}; reported test RMSE {:.4}, KSD {:.2}) |",
            b.samples.len() / d,
            avg(&sd_kept, strong),
            avg(&sd_kept, weak),
            e.evaluation.test_rmse.unwrap(),
            e.evaluation.ksd.unwrap()
        );
    }
    row("exact reference (MALA)", "-".into(), "full".into(), &draws, &ref_sd, &moments.mean);
    // The measured facts the page's reading quotes (www/panels/tune/measured.js is generated from this file by
    // scripts/reproduce/doc_tables.py): written beside the printed table.
    let facts = serde_json::json!({
        "preset": "pmf-page", "seed": seed, "d": d,
        "test_rmse_mean_predictor": test.predictive_rmse(&zeros).unwrap(),
        "test_rmse_map": test.predictive_rmse(&problem.map).unwrap(),
        "prior_sd": (1.0f64 / 6.0).sqrt(),
        "reference_draws": moments.n, "reference_accept": res.accept_rate,
        "rows": rows_json,
    });
    let out = format!("docs/results/mamba/page/pmf-page-probe-seed{seed}.json");
    let _ = std::fs::create_dir_all("docs/results/mamba/page");
    std::fs::write(&out, serde_json::to_string_pretty(&facts).unwrap() + "\n").expect("write the facts");
    eprintln!("wrote {out}");
    // MAMBA-KSD's last round: every surviving arm's score.
    let mamba = &cmp.entries[0].report;
    println!("MAMBA-KSD arms (h, batch, status, scores by round):");
    for a in &mamba.arms {
        println!("  h {:.2e} batch {} {:?} {:?}", a.info.step, a.info.batch, a.status, a.scores);
    }
}
