//! `tunelab sample --data D.csv --model logistic --sampler sgld --step H --batch B --iters K --seed S
//! --out samples.csv [--scores G.csv]`: run one SG-MCMC chain and write its kept samples (one per row,
//! header `theta1..thetad`), optionally with the full-data scores at each kept sample.

use clap::{Args, ValueEnum};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tunelab::data::{read_csv, write_matrix_csv, CsvOptions};
use tunelab::model::{build_target, full_scores, ModelSpec, Target};
use tunelab::sampler::{
    find_map, BatchSize, Budget, Chain, ChainStatus, ControlVariate, MapOptions, SamplerKind, SamplerParams,
};
use tunelab::{rng, Error, Result};

/// Where the chain starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Start {
    /// The MAP (found by L-BFGS with full-data gradients), as in the paper.
    Map,
    /// The origin.
    Zero,
}

/// Arguments of `tunelab sample`.
#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Data CSV (header row; numeric columns). Not used by the data-free models.
    #[arg(long)]
    pub data: Option<String>,
    /// Model: logistic, linear, bnn (need --data) or gaussian, banana, mixture (data-free).
    #[arg(long, default_value = "logistic")]
    pub model: String,
    /// Prior variance of the model (default: the model's own, 10 for logistic).
    #[arg(long, allow_hyphen_values = true)]
    pub prior_var: Option<f64>,
    /// Name of the label column.
    #[arg(long, default_value = "y")]
    pub label: String,
    /// Standardise the features (mean 0, sd 1) after reading.
    #[arg(long)]
    pub standardize: bool,
    /// Sampler: sgld, sgld-cv, sghmc, sghmc-cv, sgnht, sgnht-cv.
    #[arg(long, default_value = "sgld")]
    pub sampler: String,
    /// Step size h (SGLD: theta += h * grad + sqrt(2h) * xi).
    #[arg(long, allow_hyphen_values = true)]
    pub step: f64,
    /// Batch size: a fraction of N in (0, 1], a count > 1, or a percentage like 10%.
    #[arg(long, default_value = "0.1")]
    pub batch: String,
    /// Leapfrog steps per sample (SGHMC).
    #[arg(long, default_value_t = 10)]
    pub leapfrog: usize,
    /// SGHMC friction alpha.
    #[arg(long, default_value_t = 0.01, allow_hyphen_values = true)]
    pub friction: f64,
    /// SGNHT thermostat constant a.
    #[arg(long, default_value_t = 0.01, allow_hyphen_values = true)]
    pub thermostat_a: f64,
    /// Draw minibatches with replacement (default: without).
    #[arg(long)]
    pub with_replacement: bool,
    /// Budget: number of iterations (SGHMC: samples of L steps each).
    #[arg(long, conflicts_with_all = ["grad_evals", "seconds"], value_parser = parse_count)]
    pub iters: Option<u64>,
    /// Budget: data points touched by gradient estimates.
    #[arg(long, conflicts_with_all = ["iters", "seconds"], value_parser = parse_count)]
    pub grad_evals: Option<u64>,
    /// Budget: wall-clock seconds of sampling.
    #[arg(long, conflicts_with_all = ["iters", "grad_evals"], allow_hyphen_values = true)]
    pub seconds: Option<f64>,
    /// Keep every T-th iteration.
    #[arg(long, default_value_t = 1)]
    pub thin: usize,
    /// Start at the MAP or at zero.
    #[arg(long, value_enum, default_value_t = Start::Map)]
    pub start: Start,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output CSV of kept samples (`-` for stdout).
    #[arg(long)]
    pub out: String,
    /// Also write the full-data gradients of the log posterior at each kept sample to this CSV.
    #[arg(long)]
    pub scores: Option<String>,
}

fn write_matrix(path: &str, values: &[f64], d: usize, header: &[String]) -> Result<()> {
    let io = |e: std::io::Error| Error::Io(format!("cannot write {path}: {e}"));
    if path == "-" {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        write_matrix_csv(&mut w, values, d, Some(header)).map_err(io)?;
        std::io::Write::flush(&mut w).map_err(io)
    } else {
        let f = std::fs::File::create(path).map_err(io)?;
        let mut w = std::io::BufWriter::new(f);
        write_matrix_csv(&mut w, values, d, Some(header)).map_err(io)?;
        std::io::Write::flush(&mut w).map_err(io)
    }
}

/// A count written as an integer or in scientific notation (`20000000`, `2e7`).
fn parse_count(s: &str) -> std::result::Result<u64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number"))?;
    if !(v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 9.2e18) {
        return Err(format!("`{s}` is not a whole non-negative number"));
    }
    Ok(v as u64)
}

/// Run `tunelab sample`.
pub fn run(args: &SampleArgs) -> Result<()> {
    let kind: SamplerKind = args.sampler.parse()?;
    let budget = match (args.iters, args.grad_evals, args.seconds) {
        (Some(k), None, None) => Budget::Iterations(k),
        (None, Some(g), None) => Budget::GradEvals(g),
        (None, None, Some(s)) => Budget::Seconds(s),
        (None, None, None) => return Err(Error::config("give a budget: --iters K, --grad-evals G or --seconds T")),
        _ => return Err(Error::config("give only one of --iters, --grad-evals, --seconds")),
    }
    .validate()?;
    if args.thin == 0 {
        return Err(Error::config("--thin must be at least 1"));
    }
    // Model.
    let mut spec = serde_json::Map::new();
    spec.insert("kind".into(), serde_json::Value::String(args.model.clone()));
    if let Some(v) = args.prior_var {
        spec.insert("prior_var".into(), serde_json::json!(v));
    }
    let spec: ModelSpec = serde_json::from_value(serde_json::Value::Object(spec))
        .map_err(|e| Error::config(format!("--model {}: {e}", args.model)))?;
    let data = match (&args.data, spec.needs_data()) {
        (Some(path), true) => {
            Some(Arc::new(read_csv(path, &CsvOptions { label: args.label.clone(), standardize: args.standardize })?))
        }
        (None, true) => return Err(Error::config(format!("model {} needs --data FILE.csv", spec.kind()))),
        (Some(_), false) => return Err(Error::config(format!("model {} is data-free; drop --data", spec.kind()))),
        (None, false) => None,
    };
    let target: Arc<dyn Target> = build_target(&spec, data)?;
    let t: &dyn Target = target.as_ref();
    let d = t.dim();
    // Sampler parameters.
    let params = SamplerParams {
        kind,
        step: args.step,
        batch: args.batch.parse::<BatchSize>()?,
        leapfrog: args.leapfrog,
        friction: args.friction,
        thermostat_a: args.thermostat_a,
        with_replacement: args.with_replacement,
    }
    .validate(t.n_data())?;
    // MAP: for the start point and/or the control variate.
    let mut rng = rng::stream(args.seed, 0);
    let zero = vec![0.0; d];
    let mut map_note = String::new();
    let map = if args.start == Start::Map || kind.is_cv() {
        let init = tunelab::experiments::sgmcmc::posterior::map_init(&spec, d, &mut rng);
        let r = find_map(t, &init, &MapOptions::default(), &mut rng)?;
        map_note = format!(
            "; MAP {} after {} L-BFGS iterations (max |grad| {:.2e})",
            if r.converged { "converged" } else { "NOT converged" },
            r.iters,
            r.grad_norm
        );
        Some(r.theta)
    } else {
        None
    };
    let cv = match (&map, kind.is_cv()) {
        (Some(m), true) => Some(Arc::new(ControlVariate::new(t, m.clone())?)),
        _ => None,
    };
    let start = if args.start == Start::Map { map.clone().expect("computed above") } else { zero };
    let mut chain = Chain::new(t, params, start, cv, rng::stream(args.seed, 1))?;
    // Ctrl-C stops the chain at the next check; the samples so far are written.
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = cancel.clone();
        let _ = ctrlc::set_handler(move || c.store(true, Ordering::SeqCst));
    }
    let mut samples = Vec::new();
    let stats = chain.run(t, budget, args.thin, &mut samples, &cancel);
    let header: Vec<String> = (1..=d).map(|j| format!("theta{j}")).collect();
    write_matrix(&args.out, &samples, d, &header)?;
    if let Some(path) = &args.scores {
        let scores = full_scores(t, &samples);
        write_matrix(path, &scores, d, &header)?;
    }
    eprintln!(
        "{kind} on {}: {} iterations, {} kept, {} gradient evaluations, {:.3} s{}{}",
        t.name(),
        stats.iters,
        stats.kept,
        stats.grad_evals,
        stats.seconds,
        if stats.cancelled { " (cancelled)" } else { "" },
        map_note
    );
    match stats.status {
        ChainStatus::Running => Ok(()),
        ChainStatus::Diverged { iter } => Err(Error::numerical(format!(
            "the chain diverged (non-finite values) at iteration {iter}; the {} finite samples before it were written \
             to {}; try a smaller --step",
            stats.kept, args.out
        ))),
    }
}
