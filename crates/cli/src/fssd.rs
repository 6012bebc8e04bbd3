//! `tunelab fssd --samples S.csv --scores G.csv --locations V.csv (--gauss-sigma2 S | --imq-c C --imq-beta B) [--json]`:
//! the squared finite-set Stein discrepancy (V-statistic; the U-statistic too with `--json`).

use super::ksd::{read_matrix, read_samples_scores};
use clap::Args;
use tunelab::stein::{fssd, FssdKernel};
use tunelab::{Error, Result};

/// Arguments of `tunelab fssd`.
#[derive(Args, Debug)]
pub struct FssdArgs {
    /// Samples: one point per row, optional header row.
    #[arg(long)]
    pub samples: String,
    /// Scores grad log p at the samples, same shape as the samples.
    #[arg(long)]
    pub scores: String,
    /// Test locations: one location per row (same number of columns as the samples).
    #[arg(long)]
    pub locations: String,
    /// Gaussian kernel exp(-|x-v|^2 / (2 sigma2)) with this sigma2.
    #[arg(long, conflicts_with_all = ["imq_c", "imq_beta"], required_unless_present_any = ["imq_c", "imq_beta"], allow_hyphen_values = true)]
    pub gauss_sigma2: Option<f64>,
    /// IMQ kernel (c^2 + |x-v|^2)^beta: c.
    #[arg(long, requires = "imq_beta", allow_hyphen_values = true)]
    pub imq_c: Option<f64>,
    /// IMQ kernel (c^2 + |x-v|^2)^beta: beta in (-1, 0).
    #[arg(long, requires = "imq_c", allow_hyphen_values = true)]
    pub imq_beta: Option<f64>,
    /// Print `{"fssd_sq": ..., "fssd_sq_u": ...}` instead of the bare V-statistic.
    #[arg(long)]
    pub json: bool,
}

/// Run `tunelab fssd`.
pub fn run(a: &FssdArgs) -> Result<()> {
    let kernel = match (a.gauss_sigma2, a.imq_c, a.imq_beta) {
        (Some(s2), None, None) => FssdKernel::Gauss { sigma2: s2 },
        (None, Some(c), Some(beta)) => FssdKernel::Imq { c, beta },
        _ => return Err(Error::config("give either --gauss-sigma2 S or both --imq-c C and --imq-beta B")),
    };
    let (x, s, _n, d) = read_samples_scores(&a.samples, &a.scores)?;
    let (v, _j, dv) = read_matrix(&a.locations)?;
    if dv != d {
        return Err(Error::data(format!(
            "{} has {dv} columns but the samples have {d}; locations live in the sample space",
            a.locations
        )));
    }
    let r = fssd(&x, &s, d, &v, &kernel)?;
    if a.json {
        println!("{}", serde_json::json!({"fssd_sq": r.fssd_sq, "fssd_sq_u": r.fssd_sq_u}));
    } else {
        println!("{}", r.fssd_sq);
    }
    Ok(())
}
