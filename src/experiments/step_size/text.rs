//! The step-size kind's terminal text: progress messages and the table of a complete run
//! (`tunelab step-size`).

use super::{StepEvent, StepTuneConfig, StepTuneReport};
use crate::experiments::text::row;

/// The step size GP-UCB chose for a window.
pub fn message(d: &StepEvent) -> Option<String> {
    match d {
        StepEvent::Window { window, step, .. } => Some(format!("window {window}: h = {step:.3e}")),
        _ => None,
    }
}

/// GP-UCB's run and each fixed step's: tail KSD, median step and diverged windows.
pub fn table(cfg: &StepTuneConfig, rep: &StepTuneReport) -> String {
    let mut t = String::new();
    row!(t, "SG-MCMC step size by GP-UCB: {} windows of {} iterations", cfg.windows, cfg.window_iters);
    row!(t, "{:<22} {:>14} {:>12} {:>10}", "run", "tail KSD", "median h", "diverged");
    for r in std::iter::once(&rep.gp_ucb).chain(rep.fixed.iter()) {
        let mut h = r.steps.clone();
        h.sort_by(|a, b| a.total_cmp(b));
        let med = h.get(h.len() / 2).copied().unwrap_or(f64::NAN);
        let tail = r.tail_ksd.map(|v| format!("{v:.4}")).unwrap_or_else(|| "diverged".into());
        row!(t, "{:<22} {:>14} {:>12.3e} {:>10}", r.name, tail, med, r.diverged_windows);
    }
    t
}
