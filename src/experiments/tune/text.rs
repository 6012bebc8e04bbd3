//! The tune kind's terminal text: the table of a complete run (`tunelab tune`).

use crate::experiments::sgmcmc::Report;
use crate::experiments::text::{plural, rounded, row};

/// Rounds, the best arm with its posterior summary, and the compute.
pub fn table(report: &Report) -> String {
    let mut t = String::new();
    row!(t, "tuner: {}   metric: {}   arms: {}", report.tuner, report.metric, report.arms.len());
    for r in &report.rounds {
        row!(t, "  round {}: {}, budget {:.3e} per arm", r.round, plural(r.arms.len(), "arm"), r.budget);
    }
    match &report.best {
        Some(b) => {
            row!(
                t,
                "best arm {}: h = {:.3e}, batch = {} ({:.2}% of N), L = {}, score = {:.4}",
                b.arm,
                b.step,
                b.batch,
                100.0 * b.batch_fraction,
                b.leapfrog,
                b.score
            );
            let k = b.posterior.mean.len().min(5);
            row!(t, "  posterior mean[..{k}] = {:?}", rounded(&b.posterior.mean[..k], 4));
            row!(t, "  posterior std [..{k}] = {:?}", rounded(&b.posterior.std[..k], 4));
            if let Some(r) = b.test_rmse {
                row!(t, "  held-out RMSE of the posterior-mean rating: {r:.4}");
            }
            if let Some(c) = &b.calibration {
                row!(
                    t,
                    "  held-out ({} points, {} samples): accuracy {:.4}, ECE {:.4}, MCE {:.4} ({} bins)",
                    c.n,
                    c.samples,
                    c.accuracy,
                    c.ece,
                    c.mce,
                    c.bins
                );
            }
        }
        None => row!(t, "no arm produced a finite score (all diverged or too few samples)"),
    }
    let c = &report.compute;
    row!(
        t,
        "compute: {:.3e} sampler grad evals, {:.3e} scoring grad evals; {:.2} s sampling (summed over arms), {:.2} s scoring, {:.2} s wall, {} threads",
        c.grad_evals as f64,
        c.scoring_grad_evals as f64,
        c.seconds,
        c.scoring_seconds,
        c.wall_seconds,
        c.threads
    );
    t
}
