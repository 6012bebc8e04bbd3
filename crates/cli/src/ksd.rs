//! `tunelab ksd --samples S.csv --scores G.csv [--c C] [--beta B] [--scale ...] [--estimator ...] [--json]`:
//! the IMQ kernel Stein discrepancy of a sample file. Default: the plain V-statistic with the given
//! `c`, `beta` and no scaling, which is what SGMCMCJax's `imq_KSD` and stein-thinning compute.

use clap::{Args, ValueEnum};
use tunelab::stein::{ksd, Estimator, KernelScale, KsdOptions};
use tunelab::{Error, Result};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScaleArg {
    /// Kernel (c^2 + |x-y|^2)^beta with the given c.
    Fixed,
    /// c = median pairwise distance (times --c), kernel (1 + |x-y|^2/c^2)^beta.
    Median,
    /// Standardise each coordinate by its sample std, then the median heuristic (library default).
    MedianPrecond,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EstimatorArg {
    /// V-statistic (1/n^2) sum_ij k0.
    V,
    /// U-statistic (1/(n(n-1))) sum_{i != j} k0.
    U,
    /// Linear-time estimate over disjoint consecutive pairs.
    Linear,
}

/// Arguments of `tunelab ksd`.
#[derive(Args, Debug)]
pub struct KsdArgs {
    /// Samples: one point per row, optional header row.
    #[arg(long)]
    pub samples: String,
    /// Scores grad log p at the samples, same shape as the samples.
    #[arg(long)]
    pub scores: String,
    /// IMQ scale c (> 0); with --scale median|median-precond it multiplies the median distance.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub c: f64,
    /// IMQ exponent beta, in (-1, 0).
    #[arg(long, default_value_t = -0.5, allow_hyphen_values = true)]
    pub beta: f64,
    /// Kernel scaling.
    #[arg(long, value_enum, default_value = "fixed")]
    pub scale: ScaleArg,
    /// Estimator of KSD^2.
    #[arg(long, value_enum, default_value = "v")]
    pub estimator: EstimatorArg,
    /// Print a JSON object instead of the bare number.
    #[arg(long)]
    pub json: bool,
}

/// Reads a numeric matrix file (one point per row, optional header).
pub fn read_matrix(path: &str) -> Result<(Vec<f64>, usize, usize)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
    tunelab::data::read_matrix_csv(&text).map_err(|e| match e {
        Error::Data(m) => Error::Data(format!("{path}: {m}")),
        other => other,
    })
}

/// Reads samples and scores and checks that they have the same shape.
pub fn read_samples_scores(samples: &str, scores: &str) -> Result<(Vec<f64>, Vec<f64>, usize, usize)> {
    let (x, n, d) = read_matrix(samples)?;
    let (s, ns, ds) = read_matrix(scores)?;
    if (n, d) != (ns, ds) {
        return Err(Error::data(format!(
            "{samples} has {n} rows x {d} columns but {scores} has {ns} rows x {ds} columns; \
             the scores must be one gradient per sample"
        )));
    }
    Ok((x, s, n, d))
}

/// Run `tunelab ksd`.
pub fn run(a: &KsdArgs) -> Result<()> {
    let (x, s, _n, d) = read_samples_scores(&a.samples, &a.scores)?;
    let scale = match a.scale {
        ScaleArg::Fixed => KernelScale::Fixed,
        ScaleArg::Median => KernelScale::Median,
        ScaleArg::MedianPrecond => KernelScale::MedianPrecond,
    };
    let estimator = match a.estimator {
        EstimatorArg::V => Estimator::V,
        EstimatorArg::U => Estimator::U,
        EstimatorArg::Linear => Estimator::Linear,
    };
    let v = ksd(&x, &s, d, &KsdOptions { c: a.c, beta: a.beta, scale, estimator })?;
    if a.json {
        let mut obj = serde_json::json!({"ksd": v.ksd, "ksd_sq": v.ksd_sq, "n": v.n, "d": v.d});
        if scale != KernelScale::Fixed {
            obj["c"] = serde_json::json!(v.c);
        }
        println!("{obj}");
    } else {
        println!("{}", v.ksd);
    }
    Ok(())
}
