//! Warnings the front ends print (CLI on stderr, Python as `warnings.warn`) about a run whose setup or result
//! is suspect, in the user's terms:
//!
//! - [`data_warning`]: the features of a tune or compare run look unscaled (a column's mean or standard
//!   deviation beyond 10 in size) while `standardize` is off. SG-MCMC step sizes depend on the posterior's
//!   scale; with raw features of size ~500 the posterior is narrow along them and every step of a grid made
//!   for standardised data is too large or too small, so MAMBA picks a grid edge with a large KSD;
//! - [`result_warnings`]: the chosen arm's step size is the smallest or largest of the grid (the best step
//!   may lie beyond it).

use super::sgmcmc::report::Report as TuneReport;
use super::{ExperimentConfig, Inputs, Output, Report};

/// The columns' sizes beyond which features count as unscaled.
const UNSCALED: f64 = 10.0;

/// A warning when a tune or compare run reads features that look unscaled and `standardize` is off.
pub fn data_warning(config: &ExperimentConfig, inputs: &Inputs) -> Option<String> {
    let data = match config {
        ExperimentConfig::Tune(c) => &c.data,
        ExperimentConfig::Compare(c) => &c.base.data,
        _ => return None,
    };
    if data.standardize {
        return None;
    }
    let ds = inputs.data.as_ref()?;
    let (n, p) = (ds.n, ds.p);
    if n < 2 || p == 0 {
        return None;
    }
    // the column furthest from order one: (name, mean, sd)
    let mut worst: Option<(usize, f64, f64)> = None;
    for j in 0..p {
        let col = (0..n).map(|i| ds.x[i * p + j]);
        let mean = col.clone().sum::<f64>() / n as f64;
        let sd = (col.map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64).sqrt();
        let size = mean.abs().max(sd);
        if size > UNSCALED && worst.is_none_or(|(_, m, s)| size > m.abs().max(s)) {
            worst = Some((j, mean, sd));
        }
    }
    let (j, mean, sd) = worst?;
    let name = ds.feature_names.get(j).cloned().unwrap_or_else(|| format!("column {j}"));
    Some(format!(
        "the features look unscaled (feature '{name}' has mean {mean:.4} and standard deviation {sd:.4}) and standardize is off: \
         step sizes tuned on raw features are usually at the grid's edge; standardise the features \
         (CLI --standardize, Python standardize=True, or \"standardize\": true in the config's data)"
    ))
}

/// Warnings about a complete report: a chosen arm at the edge of its step-size grid.
pub fn result_warnings(report: &Report) -> Vec<String> {
    match &report.result {
        Some(Output::Tune(r)) => edge(r, None).into_iter().collect(),
        Some(Output::Compare(c)) => c.entries.iter().filter_map(|e| edge(&e.report, Some(&e.name))).collect(),
        _ => Vec::new(),
    }
}

fn edge(r: &TuneReport, tuner: Option<&str>) -> Option<String> {
    let best = r.best.as_ref()?;
    let steps: Vec<f64> = r.arms.iter().map(|a| a.info.step).collect();
    let lo = steps.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = steps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // one step size (or none): no edge to speak of
    if lo >= hi || lo.is_nan() || hi.is_nan() {
        return None;
    }
    let side = if best.step <= lo {
        "smallest"
    } else if best.step >= hi {
        "largest"
    } else {
        return None;
    };
    let who = tuner.map(|t| format!("{t}: ")).unwrap_or_default();
    let widen = if side == "smallest" { "lower" } else { "upper" };
    Some(format!(
        "{who}the chosen arm's step size h = {:.3e} is the {side} of the grid ({lo:.3e} .. {hi:.3e}): the best step may lie \
         beyond it; widen the grid's {widen} end (arms.log10_step)",
        best.step
    ))
}
