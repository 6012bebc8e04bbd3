//! The learning-rate schedule kind's terminal text: progress messages and the table of a complete run
//! (`tunelab lr-schedule`).

use super::{LrEvent, LrReport};
use crate::experiments::text::row;

/// Each schedule's final loss, and the dynamic schedule's intervals.
pub fn message(d: &LrEvent) -> Option<String> {
    match d {
        LrEvent::MethodDone { name, final_loss, .. } => Some(format!("{name}: loss {final_loss:.5}")),
        LrEvent::IntervalDone { interval, best_loss, .. } => {
            Some(format!("interval {interval}: best loss {best_loss:.5}"))
        }
        _ => None,
    }
}

/// The problem, one line per schedule, and the best constant and decaying schedules.
pub fn table(r: &LrReport) -> String {
    let mut t = String::new();
    row!(
        t,
        "{:?} with {:?}: {} intervals x {} steps, learning rates in [{:.1e}, {:.1e}]",
        r.problem,
        r.optimizer,
        r.intervals,
        r.steps_per_interval,
        r.lr_bounds[0],
        r.lr_bounds[1]
    );
    row!(
        t,
        "{:<30} {:>12} {:>12} {:>9} {:>10}  schedule (first, last)",
        "method",
        "final loss",
        "test loss",
        "diverged",
        "steps"
    );
    for m in &r.methods {
        row!(
            t,
            "{:<30} {:>12.5} {:>12.5} {:>9} {:>10}  {:.2e} .. {:.2e}",
            m.name,
            m.final_loss,
            m.test_loss,
            m.diverged,
            m.compute_steps,
            m.schedule.first().copied().unwrap_or(f64::NAN),
            m.schedule.last().copied().unwrap_or(f64::NAN)
        );
    }
    if let Some(b) = &r.best_constant {
        row!(t, "best constant: {} ({:.5})", b.name, b.final_loss);
    }
    if let Some(b) = &r.best_decay {
        row!(t, "best decay:    {} ({:.5})", b.name, b.final_loss);
    }
    t
}
