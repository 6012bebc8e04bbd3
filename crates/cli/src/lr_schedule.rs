//! `tunelab lr-schedule --config FILE.json | --preset digits|digits-logreg|noisy-quadratic
//! [--data FILE.csv --label y] [--out R.json]`: constant rates, exponential decays and the dynamic GP tuner.

use std::sync::atomic::AtomicBool;
use tunelab::data::{read_csv, CsvOptions};
use tunelab::lrsched::{self, LrConfig, LrData, LrEvent, LrReport};
use tunelab::{Error, Result};

use super::hoag::{load_config, write_json};

/// Arguments of `tunelab lr-schedule`.
pub type LrScheduleArgs = super::hoag::RunnerArgs;

/// Run `tunelab lr-schedule`.
pub fn run(args: &LrScheduleArgs) -> Result<()> {
    let mut cfg: LrConfig = match (&args.config, &args.preset) {
        (Some(path), _) => load_config(path)?,
        (None, Some(name)) => LrConfig::preset(name)?,
        (None, None) => return Err(Error::config("give --config FILE.json or --preset digits")),
    };
    if let Some(path) = &args.data {
        cfg.data = LrData::Csv { path: path.clone(), label: args.label.clone() };
    }
    let data = match &cfg.data {
        LrData::Csv { path, label } => {
            let opts = CsvOptions { label: label.clone().unwrap_or_else(|| "y".into()), standardize: false };
            Some(read_csv(path, &opts)?)
        }
        _ => None,
    };
    let cancel = AtomicBool::new(false);
    let progress = args.progress;
    let mut observer = |e: &LrEvent| {
        if progress {
            if let LrEvent::IntervalDone { interval, best_loss, lrs, .. } = e {
                eprintln!("interval {interval}: best loss {best_loss:.5}, rates {:?}", lrs.iter().map(|l| format!("{l:.2e}")).collect::<Vec<_>>());
            }
        }
    };
    let report = lrsched::run_with_data(&cfg, data.as_ref(), &mut observer, &cancel)?;
    print_table(&report);
    if let Some(out) = &args.out {
        write_json(out, &report)?;
        println!("report written to {out}");
    }
    Ok(())
}

fn print_table(r: &LrReport) {
    println!(
        "{:?} with {:?}: {} intervals x {} steps, learning rates in [{:.1e}, {:.1e}]",
        r.problem, r.optimizer, r.intervals, r.steps_per_interval, r.lr_bounds[0], r.lr_bounds[1]
    );
    println!("{:<30} {:>12} {:>12} {:>9} {:>10}  schedule (first, last)", "method", "final loss", "test loss", "diverged", "steps");
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
