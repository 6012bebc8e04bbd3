//! The compare kind's terminal text: progress messages and the table of a complete run (`tunelab compare`).

use super::{CompareDetail, Comparison};
use crate::experiments::sgmcmc::text::round_message;
use crate::experiments::text::{count, opt, row};
use crate::experiments::Stage;

/// The tuner's round, the exact reference's and the evaluation chain's progress.
pub fn message(d: &CompareDetail) -> Option<String> {
    Some(match d {
        CompareDetail::Tuner(c) => match round_message(&c.event) {
            Some(m) => format!("{}: {m}", c.tuner),
            None => c.tuner.clone(),
        },
        CompareDetail::Reference(r) => format!("reference sampler {}/{} {}", r.done, r.total, r.unit),
        CompareDetail::Evaluation(e) => {
            format!("{}: evaluation chain from the MAP {}/{} {}", e.tuner, count(e.done), count(e.total), e.unit)
        }
    })
}

/// The exact reference and each tuner's evaluation chain have a progress of their own.
pub fn stage(d: &CompareDetail) -> Option<Stage> {
    match d {
        CompareDetail::Reference(r) => Some(Stage {
            what: "reference sampler",
            label: "reference sampler".into(),
            done: r.done as f64,
            total: r.total as f64,
            unit: r.unit,
        }),
        // whose choice is evaluated: `MAMBA-KSD: evaluation chain from the MAP`
        CompareDetail::Evaluation(e) => Some(Stage {
            what: "evaluation chain",
            label: format!("{}: evaluation chain from the MAP", e.tuner),
            done: e.done,
            total: e.total,
            unit: e.unit,
        }),
        CompareDetail::Tuner(_) => None,
    }
}

/// The reference, then one line per tuner: its choice, the evaluation's metrics, compute and speed-up.
pub fn table(cmp: &Comparison) -> String {
    let mut t = String::new();
    if let Some(r) = &cmp.reference {
        row!(t, "reference: MALA, {} samples, acceptance {:.2}, {:.1} s", r.samples, r.accept_rate, r.seconds);
    }
    row!(
        t,
        "{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11} {:>8} {:>8} {:>8}",
        "tuner",
        "h",
        "n",
        "L",
        "KSD",
        "std err %",
        "log-loss",
        "grad evals",
        "wall s",
        "speedup",
        "vs LL"
    );
    for e in &cmp.entries {
        let (h, n, l) = e
            .report
            .best
            .as_ref()
            .map(|b| (format!("{:.2e}", b.step), b.batch.to_string(), b.leapfrog.to_string()))
            .unwrap_or(("-".into(), "-".into(), "-".into()));
        let ev = &e.evaluation;
        row!(
            t,
            "{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11.3e} {:>8.2} {:>8} {:>8}",
            e.name,
            h,
            n,
            l,
            opt(ev.ksd, 4),
            opt(ev.std_rel_error.map(|v| 100.0 * v), 1),
            opt(ev.test_log_loss, 4),
            ev.total_grad_evals as f64,
            e.report.compute.wall_seconds,
            opt(ev.speedup_vs_grid, 1),
            opt(ev.speedup_vs_grid_log_loss, 2)
        );
    }
    row!(t, "speedup: grid (KSD)'s gradient evaluations / the tuner's; vs LL: grid (log-loss)'s / the tuner's");
    if cmp.entries.iter().any(|e| e.evaluation.test_rmse.is_some()) {
        row!(t, "{:<16} {:>10}", "tuner", "test RMSE");
        for e in &cmp.entries {
            row!(t, "{:<16} {:>10}", e.name, opt(e.evaluation.test_rmse, 4));
        }
    }
    if cmp.entries.iter().any(|e| e.evaluation.calibration.is_some()) {
        row!(t, "held-out calibration (10 equal-width confidence bins):");
        row!(t, "{:<16} {:>9} {:>8} {:>8}", "tuner", "accuracy", "ECE", "MCE");
        for e in &cmp.entries {
            let c = e.evaluation.calibration.as_ref();
            row!(
                t,
                "{:<16} {:>9} {:>8} {:>8}",
                e.name,
                opt(c.map(|c| c.accuracy), 4),
                opt(c.map(|c| c.ece), 4),
                opt(c.map(|c| c.mce), 4)
            );
        }
    }
    t
}
