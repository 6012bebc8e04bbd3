//! The HOAG kind's terminal text: progress messages and the table of a complete run (`tunelab hoag`).

use super::{HoagEvent, HoagReport};
use crate::experiments::text::{rounded, row};

/// The method running, and each method's final outer loss.
pub fn message(d: &HoagEvent) -> Option<String> {
    match d {
        HoagEvent::Progress { name, .. } => Some(name.clone()),
        HoagEvent::MethodDone { name, final_loss, .. } => Some(format!("{name}: outer loss {final_loss:.6}")),
        _ => None,
    }
}

/// The problem, the landscape's minimum, and one line per method.
pub fn table(r: &HoagReport) -> String {
    let mut t = String::new();
    row!(
        t,
        "{:?}: train/test/validation = {}/{}/{}, {} features; hyperparameters: {}",
        r.problem,
        r.n_train,
        r.n_test,
        r.n_validation,
        r.n_features,
        r.hyper_names.join(", ")
    );
    if let Some(l) = &r.landscape {
        row!(t, "landscape minimum: outer loss {:.6} at {:?}", l.min, rounded(&l.argmin, 2));
    }
    row!(
        t,
        "{:<30} {:>18} {:>12} {:>12} {:>10} {:>8} {:>8}  stopped",
        "method",
        "hyperparameters",
        "outer loss",
        "valid. loss",
        "cost",
        "iters",
        "seconds"
    );
    for m in &r.methods {
        row!(
            t,
            "{:<30} {:>18} {:>12.6} {:>12.6} {:>10} {:>8} {:>8.3}  {}",
            m.name,
            format!("{:?}", rounded(&m.final_hyper, 2)),
            m.final_loss,
            m.final_validation_loss,
            m.cost,
            m.trace.len(),
            m.seconds,
            m.stopped
        );
    }
    t
}
