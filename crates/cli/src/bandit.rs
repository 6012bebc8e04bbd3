//! `tunelab bandit`: run a bandit comparison from a JSON config or a preset, print a table, write the report.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Args;
use tunelab::bandit::{self, BanditConfig, BanditEvent};
use tunelab::{Error, Result};

/// Arguments of `tunelab bandit`.
#[derive(Args, Debug)]
pub struct BanditArgs {
    /// JSON config file (problem, algorithms, rounds, repeats, seed).
    #[arg(long, conflicts_with = "preset")]
    pub config: Option<String>,
    /// Built-in preset: beta-reservoir, tvo-schedule, branin, logreg-sgd, sgmcmc-ksd (or sgld-step).
    #[arg(long)]
    pub preset: Option<String>,
    /// Write the JSON report here.
    #[arg(long)]
    pub out: Option<String>,
    /// Override the number of repeats.
    #[arg(long)]
    pub repeats: Option<usize>,
    /// Override the number of rounds.
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Override the seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// sgmcmc-ksd only: tune the samplers on this CSV file instead of the config's data.
    #[arg(long)]
    pub data: Option<String>,
    /// Label column of --data (default y).
    #[arg(long, requires = "data")]
    pub label: Option<String>,
    /// sgmcmc-ksd only: standardise the features of --data.
    #[arg(long, requires = "data")]
    pub standardize: bool,
    /// Show progress on stderr.
    #[arg(long)]
    pub progress: bool,
    /// Run GP-UCB step-size selection for SG-MCMC (window by window, against fixed steps) from this JSON config
    /// (`{}` for the defaults); `--preset sgld-step` runs the defaults.
    #[arg(long, conflicts_with_all = ["config", "preset"])]
    pub step_config: Option<String>,
}

pub fn run(args: BanditArgs) -> Result<()> {
    if args.step_config.is_some() || args.preset.as_deref() == Some("sgld-step") {
        return run_step(&args);
    }
    let mut cfg = match (&args.config, &args.preset) {
        (Some(path), None) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{path}: {e}")))?;
            BanditConfig::from_json(&text)?
        }
        (None, Some(name)) => BanditConfig::preset(name)?,
        _ => return Err(Error::config("give --config FILE.json or --preset NAME")),
    };
    if let Some(r) = args.repeats {
        cfg.repeats = r;
    }
    if let Some(t) = args.rounds {
        cfg.rounds = t;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    if let Some(path) = &args.data {
        match &mut cfg.problem {
            bandit::ProblemSpec::SgmcmcKsd(spec) => {
                spec.data.source = tunelab::tune::config::DataSource::Csv { path: path.clone() };
                spec.data.label = args.label.clone().unwrap_or_else(|| "y".into());
                spec.data.standardize = args.standardize;
            }
            _ => return Err(Error::config("--data applies to the sgmcmc-ksd problem only")),
        }
    }
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = cancel.clone();
        // a second Ctrl-C (or a failure to install the handler) falls back to the default behaviour
        let _ = ctrlc::set_handler(move || c.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let progress = args.progress;
    let mut observer = |e: &BanditEvent| {
        if progress {
            match e {
                BanditEvent::Progress { round, rounds, .. } => eprintln!("round {round}/{rounds}"),
                BanditEvent::Preparing { done, total } => eprintln!("sampler runs {done}/{total}"),
                _ => {}
            }
        }
    };
    let report = bandit::run(&cfg, &mut observer, &cancel)?;
    println!("problem: {}  ({} rounds, {} repeats, seed {})", report.problem, cfg.rounds, cfg.repeats, cfg.seed);
    println!(
        "{:<24} {:>28} {:>28} {:>10}",
        "algorithm", "final simple regret (band)", "cumulative regret (band)", "seconds"
    );
    for a in &report.algorithms {
        let s = a.final_simple_regret;
        let c = a.final_cumulative_regret;
        println!(
            "{:<24} {:>10.4} [{:>7.4},{:>7.4}] {:>10.3} [{:>7.2},{:>7.2}] {:>10.3}{}",
            a.name,
            s.mean,
            s.lo,
            s.hi,
            c.mean,
            c.lo,
            c.hi,
            a.compute.seconds.last().copied().unwrap_or(0.0),
            if a.failures > 0 { format!("  ({} GP failures handled)", a.failures) } else { String::new() }
        );
    }
    for a in &report.algorithms {
        if let Some(label) = a.recommended.first().and_then(|r| r.label.as_ref()) {
            println!("{:<24} repeat 0 recommends {label}", a.name);
        }
    }
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report).map_err(|e| Error::Io(e.to_string()))?;
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{path}: {e}")))?;
        println!("report written to {path}");
    }
    Ok(())
}

fn run_step(args: &BanditArgs) -> Result<()> {
    use tunelab::bandit::sgmcmc_step::{run_step_tuning, StepEvent, StepTuneConfig};
    let mut cfg: StepTuneConfig = match &args.step_config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{path}: {e}")))?;
            serde_json::from_str(&text).map_err(|e| Error::config(format!("step config: {e}")))?
        }
        None => StepTuneConfig::default(),
    };
    if let Some(w) = args.rounds {
        cfg.windows = w;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    let cancel = AtomicBool::new(false);
    let progress = args.progress;
    let mut observer = |e: &StepEvent| {
        if progress {
            if let StepEvent::Window { window, step, ksd, .. } = e {
                eprintln!("window {window}: h = {step:.3e}, KSD = {ksd:?}");
            }
        }
    };
    let rep = run_step_tuning(&cfg, &mut observer, &cancel)?;
    println!("SG-MCMC step size by GP-UCB: {} windows of {} iterations", cfg.windows, cfg.window_iters);
    println!("{:<22} {:>14} {:>12} {:>10}", "run", "tail KSD", "median h", "diverged");
    let mut rows = vec![&rep.gp_ucb];
    rows.extend(rep.fixed.iter());
    for t in rows {
        let mut h = t.steps.clone();
        h.sort_by(|a, b| a.total_cmp(b));
        let med = h.get(h.len() / 2).copied().unwrap_or(f64::NAN);
        let tail = t.tail_ksd.map(|v| format!("{v:.4}")).unwrap_or_else(|| "diverged".into());
        println!("{:<22} {:>14} {:>12.3e} {:>10}", t.name, tail, med, t.diverged_windows);
    }
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&rep).map_err(|e| Error::Io(e.to_string()))?;
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{path}: {e}")))?;
        println!("report written to {path}");
    }
    Ok(())
}
