//! `tunelab tune` and `tunelab compare`: run a tuner (or the paper's comparison) from a JSON config or a preset.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tunelab::error::{Error, Result};
use tunelab::sampler::SamplerKind;
use tunelab::tune::{self, compare, presets, DataSource, Event, Problem, TuneConfig};

/// Options shared by `tune` and `compare`.
#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// JSON config (the same document the page uses).
    #[arg(long, conflicts_with = "preset")]
    pub config: Option<String>,
    /// A built-in preset: paper-logreg, digits-bnn, demo, gaussian.
    #[arg(long)]
    pub preset: Option<String>,
    /// Sampler for the preset: sgld, sgld-cv, sghmc, sghmc-cv, sgnht, sgnht-cv.
    #[arg(long)]
    pub sampler: Option<SamplerKind>,
    /// Number of simulated data points (simulated-data presets).
    #[arg(long)]
    pub n: Option<usize>,
    /// Run on this CSV file instead of the preset's data.
    #[arg(long)]
    pub data: Option<String>,
    /// Label column of --data.
    #[arg(long, default_value = "y")]
    pub label: String,
    /// Seed for everything (data, arms, scores).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Per-arm budget R in gradient evaluations (data points touched).
    #[arg(long)]
    pub grad_evals: Option<f64>,
    /// Per-arm budget R in seconds (the paper's unit; results then depend on the machine).
    #[arg(long, conflicts_with = "grad_evals")]
    pub seconds: Option<f64>,
    /// Threads in the pool (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the JSON report here.
    #[arg(long)]
    pub out: Option<String>,
    /// Show a progress bar on stderr.
    #[arg(long)]
    pub progress: bool,
}

impl ConfigArgs {
    fn config(&self) -> Result<TuneConfig> {
        let mut cfg = match (&self.config, &self.preset) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{path}: {e}")))?;
                TuneConfig::from_json(&text)?
            }
            (None, Some(p)) => presets::preset(p)?,
            (None, None) => return Err(Error::config("give --config FILE.json or --preset NAME")),
        };
        if let Some(k) = self.sampler {
            cfg.sampler.kind = k;
        }
        if let Some(n) = self.n {
            match &mut cfg.data.source {
                DataSource::Simulate { n: m, .. } => *m = n,
                _ => return Err(Error::config("--n only applies to simulated data")),
            }
        }
        if let Some(path) = &self.data {
            cfg.data.source = DataSource::Csv { path: path.clone() };
            cfg.data.label = self.label.clone();
        }
        if let Some(s) = self.seed {
            cfg.seed = s;
            if let DataSource::Simulate { seed, .. } = &mut cfg.data.source {
                *seed = s;
            }
        }
        if let Some(g) = self.grad_evals {
            cfg.budget = tune::BudgetSpec { grad_evals: Some(g), ..Default::default() };
        }
        if let Some(s) = self.seconds {
            cfg.budget = tune::BudgetSpec { seconds: Some(s), ..Default::default() };
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(Error::config("--threads must be at least 1"));
        }
        b = b.num_threads(t);
    }
    b.build().map_err(|e| Error::config(format!("thread pool: {e}")))
}

fn cancel_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    // Ctrl-C stops the run between chunks of work; a second Ctrl-C is not needed.
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::Relaxed));
    flag
}

/// Draws run progress: one tick per arm-chunk.
struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    fn new(show: bool) -> Self {
        let bar = show.then(|| {
            let b = ProgressBar::new(1);
            b.set_style(ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} arm-chunks {msg} ({elapsed})").expect("static template").progress_chars("=> "));
            b
        });
        Self { bar }
    }
    fn on(&self, prefix: &str, e: &Event) {
        let Some(b) = &self.bar else { return };
        match e {
            Event::Started { schedule, .. } => {
                b.set_prefix(prefix.to_string());
                b.set_length(schedule.iter().map(|p| (p.arms * tune::driver::CHUNKS) as u64).sum());
                b.set_position(0);
            }
            Event::Progress { arms, .. } => b.inc(arms.len() as u64),
            Event::RoundFinished { round, survivors } => b.set_message(format!("round {} done, {} left", round + 1, survivors.len())),
            Event::Done { .. } => b.finish_and_clear(),
            _ => {}
        }
    }
}

fn write_json<T: serde::Serialize>(path: &str, v: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(v).map_err(|e| Error::Io(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| Error::Io(format!("{path}: {e}")))
}

fn fmt_opt(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}")).unwrap_or_else(|| "-".into())
}

/// `tunelab tune`.
pub fn tune(args: ConfigArgs) -> Result<()> {
    let cfg = args.config()?;
    let cancel = cancel_flag();
    let bar = Bar::new(args.progress);
    let report = pool(args.threads)?.install(|| tune::run(&cfg, None, &mut |e| bar.on("tune", e), &cancel))?;
    println!("tuner: {}   metric: {}   arms: {}", report.tuner, report.metric, report.arms.len());
    for r in &report.rounds {
        println!("  round {}: {} arms, budget {:.3e} per arm", r.round + 1, r.arms.len(), r.budget);
    }
    match &report.best {
        Some(b) => {
            println!("best arm {}: h = {:.3e}, batch = {} ({:.2}% of N), L = {}, score = {:.4}", b.arm, b.step, b.batch, 100.0 * b.batch_fraction, b.leapfrog, b.score);
            let k = b.posterior.mean.len().min(5);
            println!("  posterior mean[..{k}] = {:?}", &b.posterior.mean[..k].iter().map(|v| (v * 1e4).round() / 1e4).collect::<Vec<_>>());
            println!("  posterior std [..{k}] = {:?}", &b.posterior.std[..k].iter().map(|v| (v * 1e4).round() / 1e4).collect::<Vec<_>>());
        }
        None => println!("no arm produced a finite score (all diverged or too few samples)"),
    }
    let c = &report.compute;
    println!(
        "compute: {:.3e} sampler grad evals, {:.3e} scoring grad evals; {:.2} s sampling (summed over arms), {:.2} s scoring, {:.2} s wall, {} threads",
        c.grad_evals as f64, c.scoring_grad_evals as f64, c.seconds, c.scoring_seconds, c.wall_seconds, c.threads
    );
    if let Some(out) = &args.out {
        write_json(out, &report)?;
        eprintln!("report written to {out}");
    }
    Ok(())
}

/// Options of `tunelab compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub base: ConfigArgs,
    /// Samples of the exact reference sampler (MALA) for the posterior std error; 0 to skip.
    #[arg(long, default_value_t = 20_000)]
    pub reference_samples: usize,
}

/// `tunelab compare`.
pub fn compare_cmd(args: CompareArgs) -> Result<()> {
    let cfg = args.base.config()?;
    let cancel = cancel_flag();
    let bar = Bar::new(args.base.progress);
    let tuners = compare::paper_tuners(&cfg);
    let cmp = pool(args.base.threads)?.install(|| -> Result<_> {
        let problem = Problem::build(&cfg, None)?;
        compare::compare(&tuners, &problem, args.reference_samples, &mut |name, e| bar.on(name, e), &cancel)
    })?;
    if let Some(r) = &cmp.reference {
        println!("reference: MALA, {} samples, acceptance {:.2}, {:.1} s", r.samples, r.accept_rate, r.seconds);
    }
    println!("{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11} {:>8} {:>8}", "tuner", "h", "n", "L", "KSD", "std err %", "log-loss", "grad evals", "wall s", "speedup");
    for e in &cmp.entries {
        let (h, n, l) = e.report.best.as_ref().map(|b| (format!("{:.2e}", b.step), b.batch.to_string(), b.leapfrog.to_string())).unwrap_or(("-".into(), "-".into(), "-".into()));
        let ev = &e.evaluation;
        println!(
            "{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11.3e} {:>8.2} {:>8}",
            e.name,
            h,
            n,
            l,
            fmt_opt(ev.ksd, 4),
            fmt_opt(ev.std_rel_error.map(|v| 100.0 * v), 1),
            fmt_opt(ev.test_log_loss, 4),
            ev.total_grad_evals as f64,
            e.report.compute.wall_seconds,
            fmt_opt(ev.speedup_vs_grid, 1)
        );
    }
    if let Some(out) = &args.base.out {
        write_json(out, &cmp)?;
        eprintln!("report written to {out}");
    }
    Ok(())
}
