//! The TVO kind's terminal text: progress messages and the table of a complete run (`tunelab run --kind tvo`).

use super::{TvoEvent, TvoReport};
use crate::experiments::text::row;

/// The epoch being trained.
pub fn message(d: &TvoEvent) -> Option<String> {
    match d {
        TvoEvent::Window { epoch, .. } | TvoEvent::Epoch { epoch, .. } => Some(format!("epoch {epoch}")),
        _ => None,
    }
}

/// Test log p(x) (IWAE) and test KL per schedule method, mean and sd over repeats.
pub fn table(r: &TvoReport) -> String {
    let mut t = String::new();
    row!(
        t,
        "TVO on {} pixels: {} train / {} test images, d = {}, test log p(x) by IWAE with K = {}",
        r.pixels,
        r.n_train,
        r.n_test,
        r.d,
        r.iwae_k
    );
    row!(
        t,
        "{:<20} {:>12} {:>8} {:>10} {:>8} {:>9} {:>9}",
        "method",
        "log p(x)",
        "sd",
        "KL",
        "sd",
        "beta_1",
        "diverged"
    );
    for m in &r.summary {
        // one repeat has no spread to show: "-" rather than a standard deviation of 0.000
        let sd = |v: f64| if m.log_px.len() > 1 { format!("{v:.3}") } else { "-".into() };
        row!(
            t,
            "{:<20} {:>12.3} {:>8} {:>10.3} {:>8} {:>9.4} {:>9}",
            m.method,
            m.log_px_mean,
            sd(m.log_px_sd),
            m.kl_mean,
            sd(m.kl_sd),
            m.last_beta1,
            m.diverged
        );
    }
    t
}
