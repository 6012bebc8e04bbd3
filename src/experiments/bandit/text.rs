//! The bandit kind's terminal text: progress messages and the table of a complete run (`tunelab bandit`).

use super::{BanditConfig, BanditEvent, BanditReport};
use crate::experiments::text::row;

/// The sampler runs a bandit over SG-MCMC arms prepares before its rounds.
pub fn message(d: &BanditEvent) -> Option<String> {
    match d {
        BanditEvent::Preparing { done, total } => Some(format!("sampler runs {done}/{total}")),
        _ => None,
    }
}

/// Final simple and cumulative regret (with their bands) per algorithm, and what repeat 0 recommends.
pub fn table(cfg: &BanditConfig, report: &BanditReport) -> String {
    let mut t = String::new();
    row!(t, "problem: {}  ({} rounds, {} repeats, seed {})", report.problem, cfg.rounds, cfg.repeats, cfg.seed);
    row!(
        t,
        "{:<24} {:>28} {:>28} {:>10}",
        "algorithm",
        "final simple regret (band)",
        "cumulative regret (band)",
        "seconds"
    );
    for a in &report.algorithms {
        let (s, c) = (a.final_simple_regret, a.final_cumulative_regret);
        let failures = if a.failures > 0 { format!("  ({} GP failures handled)", a.failures) } else { String::new() };
        row!(
            t,
            "{:<24} {:>10.4} [{:>7.4},{:>7.4}] {:>10.3} [{:>7.2},{:>7.2}] {:>10.3}{failures}",
            a.name,
            s.mean,
            s.lo,
            s.hi,
            c.mean,
            c.lo,
            c.hi,
            a.compute.seconds.last().copied().unwrap_or(0.0),
        );
    }
    for a in &report.algorithms {
        if let Some(label) = a.recommended.first().and_then(|r| r.label.as_ref()) {
            row!(t, "{:<24} repeat 0 recommends {label}", a.name);
        }
    }
    t
}
