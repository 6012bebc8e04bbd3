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
    /// Built-in preset: beta-reservoir, tvo-schedule, branin or logreg-sgd.
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
    /// Show progress on stderr.
    #[arg(long)]
    pub progress: bool,
}

pub fn run(args: BanditArgs) -> Result<()> {
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
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = cancel.clone();
        // a second Ctrl-C (or a failure to install the handler) falls back to the default behaviour
        let _ = ctrlc::set_handler(move || c.store(true, std::sync::atomic::Ordering::Relaxed));
    }
    let progress = args.progress;
    let mut observer = |e: &BanditEvent| {
        if progress {
            if let BanditEvent::Progress { round, rounds, .. } = e {
                eprintln!("round {round}/{rounds}");
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
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report).map_err(|e| Error::Io(e.to_string()))?;
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{path}: {e}")))?;
        println!("report written to {path}");
    }
    Ok(())
}
