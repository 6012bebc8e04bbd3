//! The table each experiment kind prints on stdout after a complete run (one function per kind, taking the
//! kind's result).

use tunelab::experiments::bandit::{BanditConfig, BanditReport};
use tunelab::experiments::compare::Comparison;
use tunelab::experiments::hoag::HoagReport;
use tunelab::experiments::lr_schedule::LrReport;
use tunelab::experiments::step_size::{StepTuneConfig, StepTuneReport};
use tunelab::experiments::tune::Report as TuneReport;
use tunelab::experiments::{ExperimentConfig, Output, Report};

use crate::runner::plural;

/// A config value as its config file spells it (`mlp (hidden 32)`, `sgd`), not as a Rust type (`Mlp { hidden: 32
/// }`, `Sgd`).
fn config_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(serde_json::Value::Object(m)) => {
            let kind = m.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_string();
            let rest: Vec<String> = m.iter().filter(|(k, _)| *k != "kind").map(|(k, v)| format!("{k} {v}")).collect();
            if rest.is_empty() {
                kind
            } else {
                format!("{kind} ({})", rest.join(", "))
            }
        }
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// Prints the table of a complete run (nothing for a stopped one).
pub fn print(report: &Report) {
    match (&report.config, &report.result) {
        (_, Some(Output::Tune(r))) => tune(r),
        (_, Some(Output::Compare(r))) => compare(r),
        (ExperimentConfig::Bandit(c), Some(Output::Bandit(r))) => bandit(r, c),
        (_, Some(Output::Hoag(r))) => hoag(r),
        (_, Some(Output::LrSchedule(r))) => lr_schedule(r),
        (ExperimentConfig::StepSize(c), Some(Output::StepSize(r))) => step_size(r, c),
        (_, Some(Output::Tvo(r))) => tvo(r),
        _ => {}
    }
}

fn fmt_opt(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}")).unwrap_or_else(|| "-".into())
}

/// Rounds to `digits` decimals (for short vectors in a table).
fn round(v: &[f64], digits: i32) -> Vec<f64> {
    let s = 10f64.powi(digits);
    v.iter().map(|a| (a * s).round() / s).collect()
}

/// `tunelab tune`.
pub fn tune(report: &TuneReport) {
    println!("tuner: {}   metric: {}   arms: {}", report.tuner, report.metric, report.arms.len());
    for r in &report.rounds {
        println!(
            "  round {}: {}, budget {:.3e} per arm",
            r.round,
            crate::runner::plural(r.arms.len(), "arm"),
            r.budget
        );
    }
    match &report.best {
        Some(b) => {
            println!(
                "best arm {}: h = {:.3e}, batch = {} ({:.2}% of N), L = {}, score = {:.4}",
                b.arm,
                b.step,
                b.batch,
                100.0 * b.batch_fraction,
                b.leapfrog,
                b.score
            );
            let k = b.posterior.mean.len().min(5);
            println!("  posterior mean[..{k}] = {:?}", round(&b.posterior.mean[..k], 4));
            println!("  posterior std [..{k}] = {:?}", round(&b.posterior.std[..k], 4));
            if let Some(r) = b.test_rmse {
                println!("  held-out RMSE of the posterior-mean rating: {r:.4}");
            }
            if let Some(c) = &b.calibration {
                println!(
                    "  held-out ({} points, {} samples): accuracy {:.4}, ECE {:.4}, MCE {:.4} ({} bins)",
                    c.n, c.samples, c.accuracy, c.ece, c.mce, c.bins
                );
            }
        }
        None => println!("no arm produced a finite score (all diverged or too few samples)"),
    }
    let c = &report.compute;
    println!(
        "compute: {:.3e} sampler grad evals, {:.3e} scoring grad evals; {:.2} s sampling (summed over arms), {:.2} s scoring, {:.2} s wall, {}",
        c.grad_evals as f64,
        c.scoring_grad_evals as f64,
        c.seconds,
        c.scoring_seconds,
        c.wall_seconds,
        plural(c.threads, "thread")
    );
}

/// `tunelab compare`.
pub fn compare(cmp: &Comparison) {
    if let Some(r) = &cmp.reference {
        println!("reference: MALA, {} samples, acceptance {:.2}, {:.1} s", r.samples, r.accept_rate, r.seconds);
    }
    println!(
        "{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11} {:>8} {:>8}",
        "tuner", "h", "n", "L", "KSD", "std err %", "log-loss", "grad evals", "wall s", "speedup"
    );
    for e in &cmp.entries {
        let (h, n, l) = e
            .report
            .best
            .as_ref()
            .map(|b| (format!("{:.2e}", b.step), b.batch.to_string(), b.leapfrog.to_string()))
            .unwrap_or(("-".into(), "-".into(), "-".into()));
        let ev = &e.evaluation;
        println!(
            "{:<16} {:>10} {:>8} {:>4} {:>9} {:>10} {:>9} {:>11.3e} {:>8.2} {:>8}",
            e.name,
            h,
            n,
            l,
            fmt_opt(ev.ksd, 4),
            fmt_opt(ev.std_rel_error.map(|v| 100.0 * v), 1),
            fmt_opt(ev.test_log_loss, 4),
            ev.total_grad_evals as f64,
            e.report.compute.wall_seconds,
            fmt_opt(ev.speedup_vs_grid, 1)
        );
    }
    if cmp.entries.iter().any(|e| e.evaluation.test_rmse.is_some()) {
        println!("{:<16} {:>10}", "tuner", "test RMSE");
        for e in &cmp.entries {
            println!("{:<16} {:>10}", e.name, fmt_opt(e.evaluation.test_rmse, 4));
        }
    }
    if cmp.entries.iter().any(|e| e.evaluation.calibration.is_some()) {
        println!("held-out calibration (10 equal-width confidence bins):");
        println!("{:<16} {:>9} {:>8} {:>8}", "tuner", "accuracy", "ECE", "MCE");
        for e in &cmp.entries {
            let c = e.evaluation.calibration.as_ref();
            println!(
                "{:<16} {:>9} {:>8} {:>8}",
                e.name,
                fmt_opt(c.map(|c| c.accuracy), 4),
                fmt_opt(c.map(|c| c.ece), 4),
                fmt_opt(c.map(|c| c.mce), 4)
            );
        }
    }
}

/// `tunelab bandit`.
pub fn bandit(report: &BanditReport, cfg: &BanditConfig) {
    println!(
        "problem: {}  ({}, {}, seed {})",
        report.problem,
        plural(cfg.rounds, "round"),
        plural(cfg.repeats, "repeat"),
        cfg.seed
    );
    println!(
        "{:<24} {:>28} {:>28} {:>10}",
        "algorithm", "final simple regret (band)", "cumulative regret (band)", "seconds"
    );
    for a in &report.algorithms {
        let (s, c) = (a.final_simple_regret, a.final_cumulative_regret);
        let failures = if a.failures > 0 { format!("  ({} GP failures handled)", a.failures) } else { String::new() };
        println!(
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
            println!("{:<24} repeat 0 recommends {label}", a.name);
        }
    }
}

/// `tunelab step-size --preset sgld-step` (the step-size experiment).
pub fn step_size(rep: &StepTuneReport, cfg: &StepTuneConfig) {
    println!(
        "SG-MCMC step size by GP-UCB: {} of {}",
        plural(cfg.windows, "window"),
        plural(cfg.window_iters as usize, "iteration")
    );
    println!("{:<22} {:>14} {:>12} {:>10}", "run", "tail KSD", "median h", "diverged");
    for t in std::iter::once(&rep.gp_ucb).chain(rep.fixed.iter()) {
        let mut h = t.steps.clone();
        h.sort_by(|a, b| a.total_cmp(b));
        let med = h.get(h.len() / 2).copied().unwrap_or(f64::NAN);
        let tail = t.tail_ksd.map(|v| format!("{v:.4}")).unwrap_or_else(|| "diverged".into());
        println!("{:<22} {:>14} {:>12.3e} {:>10}", t.name, tail, med, t.diverged_windows);
    }
}

/// `tunelab run --kind tvo`: test log p(x) (IWAE) and test KL per schedule method, mean and sd over repeats.
pub fn tvo(r: &tunelab::experiments::tvo::TvoReport) {
    println!(
        "TVO on {} pixels: {} train / {} test images, d = {}, test log p(x) by IWAE with K = {}",
        r.pixels, r.n_train, r.n_test, r.d, r.iwae_k
    );
    println!(
        "{:<20} {:>12} {:>8} {:>10} {:>8} {:>9} {:>9}",
        "method", "log p(x)", "sd", "KL", "sd", "beta_1", "diverged"
    );
    for m in &r.summary {
        // one repeat has no spread to show: "-" rather than a standard deviation of 0.000
        let sd = |v: f64| if m.log_px.len() > 1 { format!("{v:.3}") } else { "-".into() };
        println!(
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
}

/// `tunelab hoag`.
pub fn hoag(r: &HoagReport) {
    println!(
        "{}: train/test/validation = {}/{}/{}, {}; hyperparameters: {}",
        config_name(&r.problem),
        r.n_train,
        r.n_test,
        r.n_validation,
        plural(r.n_features, "feature"),
        r.hyper_names.join(", ")
    );
    if let Some(l) = &r.landscape {
        println!("landscape minimum: outer loss {:.6} at {:?}", l.min, round(&l.argmin, 2));
    }
    println!(
        "{:<30} {:>18} {:>12} {:>12} {:>10} {:>8} {:>8}  stopped",
        "method", "hyperparameters", "outer loss", "valid. loss", "cost", "iters", "seconds"
    );
    for m in &r.methods {
        println!(
            "{:<30} {:>18} {:>12.6} {:>12.6} {:>10} {:>8} {:>8.3}  {}",
            m.name,
            format!("{:?}", round(&m.final_hyper, 2)),
            m.final_loss,
            m.final_validation_loss,
            m.cost,
            m.trace.len(),
            m.seconds,
            m.stopped
        );
    }
}

/// `tunelab lr-schedule`.
pub fn lr_schedule(r: &LrReport) {
    println!(
        "{} with {}: {} x {}, learning rates in [{:.1e}, {:.1e}]",
        config_name(&r.problem),
        config_name(&r.optimizer),
        plural(r.intervals, "interval"),
        plural(r.steps_per_interval, "step"),
        r.lr_bounds[0],
        r.lr_bounds[1]
    );
    println!(
        "{:<30} {:>12} {:>12} {:>9} {:>10}  schedule (first, last)",
        "method", "final loss", "test loss", "diverged", "steps"
    );
    for m in &r.methods {
        println!(
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
        println!("best constant: {} ({:.5})", b.name, b.final_loss);
    }
    if let Some(b) = &r.best_decay {
        println!("best decay:    {} ({:.5})", b.name, b.final_loss);
    }
}
