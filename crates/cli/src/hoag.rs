//! `tunelab hoag --config FILE.json | --preset logreg|kernel-ridge [--data FILE.csv --label y] [--out R.json]`:
//! HOAG against grid search, random search, Bayesian optimisation and iterative differentiation.

use clap::Args;
use std::sync::atomic::AtomicBool;
use tunelab::data::{read_csv, CsvOptions, Dataset};
use tunelab::hoag::{self, HoagConfig, HoagData, HoagEvent, HoagReport};
use tunelab::{Error, Result};

/// Arguments shared by `tunelab hoag` and `tunelab lr-schedule` (the presets are listed in each command's help).
#[derive(Args, Debug)]
pub struct RunnerArgs {
    /// JSON configuration file (`HoagConfig` / `LrConfig`).
    #[arg(long, conflicts_with = "preset")]
    pub config: Option<String>,
    /// Built-in preset (see the command's description).
    #[arg(long)]
    pub preset: Option<String>,
    /// Run on this CSV file instead of the configured data.
    #[arg(long)]
    pub data: Option<String>,
    /// Label column of `--data` (default `y`).
    #[arg(long)]
    pub label: Option<String>,
    /// Write the JSON report here.
    #[arg(long)]
    pub out: Option<String>,
    /// Print progress on stderr (one line per method / per interval).
    #[arg(long)]
    pub progress: bool,
}

/// Arguments of `tunelab hoag`.
pub type HoagArgs = RunnerArgs;

pub(crate) fn load_config<T: serde::de::DeserializeOwned>(path: &str) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
    serde_json::from_str(&text).map_err(|e| Error::config(format!("{path}: {e}")))
}

pub(crate) fn write_json<T: serde::Serialize>(path: &str, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Io(e.to_string()))?;
    std::fs::write(path, text).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))
}

fn read_data(path: &str, label: Option<&str>) -> Result<Dataset> {
    let opts = CsvOptions { label: label.unwrap_or("y").to_string(), standardize: false };
    read_csv(path, &opts)
}

/// Run `tunelab hoag`.
pub fn run(args: &HoagArgs) -> Result<()> {
    let mut cfg: HoagConfig = match (&args.config, &args.preset) {
        (Some(path), _) => load_config(path)?,
        (None, Some(name)) => HoagConfig::preset(name)?,
        (None, None) => return Err(Error::config("give --config FILE.json or --preset logreg|kernel-ridge")),
    };
    let data = if let Some(path) = &args.data {
        cfg.data = HoagData::Csv { path: path.clone(), label: args.label.clone() };
        Some(read_data(path, args.label.as_deref())?)
    } else if let HoagData::Csv { path, label } = &cfg.data {
        Some(read_data(path, label.as_deref())?)
    } else {
        None
    };
    let cancel = AtomicBool::new(false);
    let progress = args.progress;
    let mut observer = |e: &HoagEvent| {
        if progress {
            if let HoagEvent::MethodDone { name, final_loss, .. } = e {
                eprintln!("done: {name}: final outer loss {final_loss:.6}");
            }
        }
    };
    let report = hoag::run_with_data(&cfg, data.as_ref(), &mut observer, &cancel)?;
    print_table(&report);
    if let Some(out) = &args.out {
        write_json(out, &report)?;
        println!("report written to {out}");
    }
    Ok(())
}

fn print_table(r: &HoagReport) {
    println!(
        "{:?}: train/test/validation = {}/{}/{}, {} features; hyperparameters: {}",
        r.problem,
        r.n_train,
        r.n_test,
        r.n_validation,
        r.n_features,
        r.hyper_names.join(", ")
    );
    if let Some(l) = &r.landscape {
        println!("landscape minimum: outer loss {:.6} at {:?}", l.min, round(&l.argmin));
    }
    println!(
        "{:<30} {:>18} {:>12} {:>12} {:>10} {:>8} {:>8}  stopped",
        "method", "hyperparameters", "outer loss", "valid. loss", "cost", "iters", "seconds"
    );
    for m in &r.methods {
        println!(
            "{:<30} {:>18} {:>12.6} {:>12.6} {:>10} {:>8} {:>8.3}  {}",
            m.name,
            format!("{:?}", round(&m.final_hyper)),
            m.final_loss,
            m.final_validation_loss,
            m.cost,
            m.trace.len(),
            m.seconds,
            m.stopped
        );
    }
}

fn round(v: &[f64]) -> Vec<f64> {
    v.iter().map(|a| (a * 100.0).round() / 100.0).collect()
}
