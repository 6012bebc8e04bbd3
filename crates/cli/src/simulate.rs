//! `tunelab simulate logistic|linear --n N --d D --seed S --out FILE.csv`: write simulated data
//! (header `x1..xd,y`).

use clap::{Args, ValueEnum};
use tunelab::data::{simulate_linear, simulate_logistic};
use tunelab::{rng, Error, Result};

/// Which simulator.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SimModel {
    /// The paper's logistic-regression data: x ~ N(0, I), theta ~ N(0, I), y ~ Bernoulli(sigmoid(x.theta)).
    Logistic,
    /// Linear regression: x ~ N(0, I), theta ~ N(0, I), y = x.theta + noise_sd * N(0, 1).
    Linear,
}

/// Arguments of `tunelab simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Model to simulate from.
    #[arg(value_enum)]
    pub model: SimModel,
    /// Number of rows.
    #[arg(long, default_value_t = 10_000)]
    pub n: usize,
    /// Number of features.
    #[arg(long, default_value_t = 10)]
    pub d: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Noise standard deviation (linear only).
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub noise_sd: f64,
    /// Output CSV file (`-` for stdout).
    #[arg(long)]
    pub out: String,
    /// Also write the true parameter vector to this CSV file (one row).
    #[arg(long)]
    pub theta_out: Option<String>,
}

/// Run `tunelab simulate`.
pub fn run(args: &SimulateArgs) -> Result<()> {
    let mut r = rng::stream(args.seed, 0);
    let (ds, theta) = match args.model {
        SimModel::Logistic => simulate_logistic(args.n, args.d, &mut r)?,
        SimModel::Linear => simulate_linear(args.n, args.d, args.noise_sd, &mut r)?,
    };
    let io = |path: &str, e: std::io::Error| Error::Io(format!("cannot write {path}: {e}"));
    if args.out == "-" {
        let stdout = std::io::stdout();
        let mut w = std::io::BufWriter::new(stdout.lock());
        ds.write_csv(&mut w).map_err(|e| io("stdout", e))?;
    } else {
        let f = std::fs::File::create(&args.out).map_err(|e| io(&args.out, e))?;
        let mut w = std::io::BufWriter::new(f);
        ds.write_csv(&mut w).map_err(|e| io(&args.out, e))?;
        std::io::Write::flush(&mut w).map_err(|e| io(&args.out, e))?;
    }
    if let Some(path) = &args.theta_out {
        let text = tunelab::data::matrix_csv_string(&theta, theta.len(), Some(&ds.feature_names));
        std::fs::write(path, text).map_err(|e| io(path, e))?;
    }
    Ok(())
}
