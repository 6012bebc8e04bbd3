//! Runs the bandit comparisons of docs/bandit-tables.md (problems x methods) and writes, per problem, its raw report
//! DIR/reports/SLUG.json: per method and repeat the final simple regret, the recommended arm's true value,
//! the cumulative regret and the distinct arms pulled (the curves and arm statistics are left out); and the
//! effective-arms data (distinct arms pulled against pulls, per reservoir and method) as DIR/effective-arms.csv.
//! The tables of docs/bandit-tables.md are generated from the reports by `python3 scripts/reproduce/doc_tables.py`.
//!
//! `cargo run --release --example bandit_tables -- [--repeats N] [--seed S] [--only NAME;...] [--out DIR]`
//! (defaults: 20 repeats, seed 1 (the reported seed; nothing was tuned on it), out = docs/results/bandit/).
//! With `--only` (exact problem names) only the named problems run; the CSV rows of the others are kept.
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

use tunelab::bandit::HalvingOptions;
use tunelab::bandit::{Recommend, TttsOptions};
use tunelab::experiments::bandit::sgmcmc_ksd::{SgmcmcKsdSpec, SgmcmcReservoirShared};
use tunelab::experiments::bandit::BanditExperiment;
use tunelab::experiments::bandit::{
    hpo::{ClassData, DigitData, HpoShared, HpoSpec},
    AlgoSpec, BanditConfig, ProblemSpec,
};
use tunelab::experiments::{self, Inputs};

fn tuners() -> Vec<AlgoSpec> {
    vec![
        // the poster's recommendation (argmax over the whole arm set) and the most-pulled variant
        AlgoSpec::DTtts(TttsOptions::default()),
        AlgoSpec::DTtts(TttsOptions {
            recommend: Recommend::MostPulled,
            label: Some("d-ttts (most pulled)".into()),
            ..Default::default()
        }),
        AlgoSpec::Ttts(TttsOptions::default()),
        AlgoSpec::SuccessiveHalving(HalvingOptions::default()),
        AlgoSpec::Hyperband(HalvingOptions::default()),
        AlgoSpec::Uniform { arms: None, label: None },
        AlgoSpec::Random { label: Some("random search".into()) },
        // last, so that every other method keeps its random streams (they follow the position in this list): the
        // pulled-only variant runs on streams of its own, so it differs from `d-ttts` by its streams as well
        AlgoSpec::DTtts(TttsOptions {
            recommend: Recommend::PosteriorPulled,
            label: Some("d-ttts (pulled only)".into()),
            ..Default::default()
        }),
    ]
}

fn cfg(problem: ProblemSpec, rounds: usize, repeats: usize, seed: u64) -> BanditConfig {
    // every repeat as one range: the report then carries each repeat's raw values (the same streams as without it)
    BanditConfig {
        problem,
        algorithms: tuners(),
        rounds,
        repeats,
        seed,
        checkpoints: Some(20),
        band: 1.96,
        repeat_range: Some((0, repeats)),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| args.iter().position(|a| a == k).and_then(|i| args.get(i + 1)).cloned();
    let repeats: usize = get("--repeats").and_then(|v| v.parse().ok()).unwrap_or(20);
    let seed: u64 = get("--seed").and_then(|v| v.parse().ok()).unwrap_or(1);
    let only: Option<Vec<String>> = get("--only").map(|v| v.split(';').map(String::from).collect());
    let out = get("--out").unwrap_or_else(|| "docs/results/bandit".into());
    let reservoir = |a: f64, b: f64, shift: f64, scale: f64| ProblemSpec::Reservoir { a, b, shift, scale };
    let problems: Vec<(&str, ProblemSpec, usize)> = vec![
        ("reservoir Beta(1,1)", reservoir(1.0, 1.0, 0.0, 1.0), 1000),
        ("reservoir Beta(3,1)", reservoir(3.0, 1.0, 0.0, 1.0), 1000),
        ("reservoir Beta(1,3)", reservoir(1.0, 3.0, 0.0, 1.0), 1000),
        ("reservoir 0.25+0.5 Beta(1,1)", reservoir(1.0, 1.0, 0.25, 0.5), 1000),
        // the poster's RBF SVM, C and gamma in [1e-5, 1e5]; kernel ridge: the stand-in the svm rows used until issue 25
        ("svm breast cancer", ProblemSpec::Hpo(HpoSpec::svm(ClassData::BreastCancer)), 300),
        ("svm wine", ProblemSpec::Hpo(HpoSpec::svm(ClassData::Wine)), 300),
        ("kernel ridge breast cancer", ProblemSpec::Hpo(HpoSpec::kernel_ridge(ClassData::BreastCancer)), 300),
        ("kernel ridge wine", ProblemSpec::Hpo(HpoSpec::kernel_ridge(ClassData::Wine)), 300),
        ("mlp digits 8x8", ProblemSpec::Hpo(HpoSpec::mlp(DigitData::Digits)), 200),
        ("mlp mnist", ProblemSpec::Hpo(HpoSpec::mlp(DigitData::Mnist { per_class: 100 })), 200),
        // the poster's MNIST box (width [5, 50], alpha [0, 0.9], lr [1e-5, 1e-1]), batch fixed at 200 (preset mlp-mnist-poster)
        ("mlp mnist poster box", ProblemSpec::Hpo(HpoSpec::mlp_poster(DigitData::Mnist { per_class: 100 })), 200),
        // the same box trained as scikit-learn's MLPClassifier by default: Adam, at most 200 epochs (preset mlp-mnist-poster-adam)
        (
            "mlp mnist poster box adam",
            ProblemSpec::Hpo(HpoSpec::mlp_poster_adam(DigitData::Mnist { per_class: 100 })),
            200,
        ),
        ("sgmcmc-ksd pool of 60", ProblemSpec::SgmcmcKsd(SgmcmcKsdSpec::default()), 1000),
        (
            "sgmcmc-ksd continuous reservoir",
            ProblemSpec::SgmcmcKsd(SgmcmcKsdSpec { continuous: true, ..SgmcmcKsdSpec::default() }),
            1000,
        ),
    ];
    let mut csv = String::from("problem,algorithm,round,distinct_mean,distinct_lo,distinct_hi\n");
    // --only: keep the other problems' rows of the existing CSV
    let mut kept_csv = String::new();
    if only.is_some() {
        if let Ok(old) = std::fs::read_to_string(format!("{out}/effective-arms.csv")) {
            kept_csv = old.lines().skip(1).map(|l| format!("{l}\n")).collect();
        }
    }
    let _ = std::fs::create_dir_all(format!("{out}/reports"));
    for (name, problem, rounds) in problems {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| name == x)) {
            kept_csv.lines().filter(|l| l.starts_with(&format!("{name},"))).for_each(|l| {
                csv.push_str(l);
                csv.push('\n');
            });
            continue;
        }
        let c = cfg(problem, rounds, repeats, seed);
        let t0 = std::time::Instant::now();
        let rep = match experiments::check_and_run::<BanditExperiment>(
            c.clone(),
            Inputs::default(),
            &mut |_| {},
            &AtomicBool::new(false),
        ) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{name}: not run: {e}");
                continue;
            }
        };
        let secs = t0.elapsed().as_secs_f64();
        let mut md = String::new();
        if let ProblemSpec::SgmcmcKsd(spec) = &c.problem {
            if spec.continuous {
                // the shape of the reservoir: how many configurations are near the optimum
                let sh = SgmcmcReservoirShared::build(spec, None, &mut |_, _| {}, &AtomicBool::new(false))
                    .expect("reservoir");
                let v = sh.reference_values();
                let (opt, n) = (sh.optimum(), v.len() as f64);
                let (sorted, frac) = shape(v, opt);
                let _ = writeln!(
                    md,
                    "Reservoir ({} reference draws, true value = mean reward of {} runs): optimum {}, median {}; \
                     fraction within 0.01 / 0.05 / 0.2 of the optimum: {} / {} / {}; fraction with value 0 (diverged or \
                     far off): {}.\n",
                    v.len(),
                    spec.truth_runs,
                    g4(opt),
                    g4(sorted[v.len() / 2]),
                    g4(frac(0.01)),
                    g4(frac(0.05)),
                    g4(frac(0.2)),
                    g4(v.iter().filter(|x| **x < 1e-3).count() as f64 / n)
                );
            }
        }
        if let ProblemSpec::Hpo(spec) = &c.problem {
            // the shape of the reservoir: the reference draws' true values (the run's own, same seed)
            let sh = HpoShared::build(spec, seed, &mut |_, _| {}, &AtomicBool::new(false)).expect("reference draws");
            let v = sh.reference_values();
            let opt = sh.optimum();
            let (sorted, frac) = shape(v, opt);
            let _ = writeln!(
                md,
                "Reservoir ({} reference draws, true value = mean validation accuracy over {} folds): optimum {}, median \
                 {}, lowest {}; fraction within 0.01 / 0.05 / 0.2 of the optimum: {} / {} / {}.\n",
                v.len(),
                spec.truth_folds,
                g4(opt),
                g4(sorted[v.len() / 2]),
                g4(sorted[0]),
                g4(frac(0.01)),
                g4(frac(0.05)),
                g4(frac(0.2))
            );
        }
        let mut algos = Vec::new();
        for a in &rep.algorithms {
            let raw = a.per_repeat.as_ref().expect("a repeat range keeps the raw values");
            let last = |v: &Vec<Vec<f64>>| -> Vec<f64> { v.iter().map(|r| *r.last().unwrap_or(&f64::NAN)).collect() };
            let value: Vec<f64> = a.recommended.iter().map(|r| r.value.unwrap_or(f64::NAN)).collect();
            let arms: Vec<serde_json::Value> = a.recommended.iter().map(|r| serde_json::json!(r.arm)).collect();
            algos.push(serde_json::json!({
                "name": a.name,
                "simple": last(&raw.simple),
                "value": value,
                "cumulative": last(&raw.cumulative),
                "distinct": last(&raw.distinct),
                "recommended_arm": arms,
            }));
            for (i, r) in rep.rounds.iter().enumerate() {
                let _ = writeln!(
                    csv,
                    "{name},{},{r},{},{},{}",
                    a.name, a.distinct_arms.mean[i], a.distinct_arms.lo[i], a.distinct_arms.hi[i]
                );
            }
        }
        let slug: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
        let json = serde_json::json!({
            "section": name,
            "rounds": rounds,
            "repeats": repeats,
            "seed": seed,
            "band": c.band,
            "problem": rep.problem,
            "note": md.trim(),
            "seconds": secs,
            "config": c,
            "algorithms": algos,
        });
        let _ =
            std::fs::write(format!("{out}/reports/{slug}.json"), serde_json::to_string(&json).expect("json") + "\n");
        eprintln!("{name}: {secs:.1} s -> {out}/reports/{slug}.json");
        let _ = std::fs::write(format!("{out}/effective-arms.csv"), &csv);
    }
    let _ = std::fs::write(format!("{out}/effective-arms.csv"), &csv);
}

fn g4(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let e = v.abs().log10().floor();
    if (-3.0..4.0).contains(&e) {
        let dec = (2.0 - e).max(0.0) as usize;
        format!("{v:.dec$}")
    } else {
        format!("{v:.2e}")
    }
}

/// A reservoir's shape from its reference draws' true values: the values sorted, and the fraction within `d` of
/// the optimum `opt` (for each `d`).
fn shape(v: &[f64], opt: f64) -> (Vec<f64>, impl Fn(f64) -> f64 + '_) {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    (sorted, move |d: f64| v.iter().filter(|x| **x >= opt - d).count() as f64 / n)
}
