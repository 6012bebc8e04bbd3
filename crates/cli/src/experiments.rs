//! The experiment commands: each maps its own flags onto the config and hands over to the one runner
//! ([`crate::runner::execute`]); `tunelab presets` lists the presets of every kind.

use crate::runner::{execute, execute_with, write_json, RunArgs};
use clap::Args;
use tunelab::experiments::compare::SavedReference;
use tunelab::experiments::tune::{BudgetSpec, DataSource, TuneConfig};
use tunelab::experiments::{ExperimentConfig, Kind, Output};
use tunelab::sampler::SamplerKind;
use tunelab::{Error, Result};

/// Options of `tunelab tune` (and the base of `tunelab compare`).
#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Sampler for the preset: sgld, sgld-cv, sghmc, sghmc-cv, sgnht, sgnht-cv.
    #[arg(long)]
    pub sampler: Option<SamplerKind>,
    /// Number of simulated data points (simulated-data presets).
    #[arg(long)]
    pub n: Option<usize>,
    /// Per-arm budget R in gradient evaluations (data points touched).
    #[arg(long, allow_hyphen_values = true)]
    pub grad_evals: Option<f64>,
    /// Per-arm budget R in seconds (the paper's unit; results then depend on the machine).
    #[arg(long, conflicts_with = "grad_evals", allow_hyphen_values = true)]
    pub seconds: Option<f64>,
    /// A ratings CSV (user,item,rating; MovieLens u.data works) for the pmf preset, instead of simulated ratings.
    #[arg(long)]
    pub ratings: Option<String>,
}

impl TuneArgs {
    /// Maps the tune flags onto a tune config (the base config of a comparison).
    fn apply(&self, cfg: &mut TuneConfig) -> Result<()> {
        if let Some(k) = self.sampler {
            cfg.sampler.kind = k;
        }
        if let Some(n) = self.n {
            match &mut cfg.data.source {
                DataSource::Simulate { n: m, .. } => *m = n,
                _ => return Err(Error::config("--n only applies to simulated data")),
            }
        }
        // --seed also seeds the simulated data.
        if let (Some(s), DataSource::Simulate { seed, .. }) = (self.run.seed, &mut cfg.data.source) {
            *seed = s;
        }
        if let Some(path) = &self.ratings {
            if cfg.model.kind() != "pmf" {
                return Err(Error::config("--ratings applies to the pmf model (--preset pmf)"));
            }
            cfg.data.source = DataSource::Ratings { path: path.clone() };
        }
        if let Some(g) = self.grad_evals {
            cfg.budget = BudgetSpec { grad_evals: Some(g), ..Default::default() };
        }
        if let Some(s) = self.seconds {
            cfg.budget = BudgetSpec { seconds: Some(s), ..Default::default() };
        }
        Ok(())
    }
}

/// `tunelab tune`.
pub fn tune(args: &TuneArgs) -> Result<i32> {
    execute(Some(Kind::Tune), &args.run, |cfg| match cfg {
        ExperimentConfig::Tune(c) => args.apply(c),
        _ => unreachable!("a tune command loads tune configs"),
    })
}

/// Options of `tunelab compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub base: TuneArgs,
    /// Samples of the exact reference sampler (MALA) for the posterior std error; 0 to skip (default 20000).
    #[arg(long)]
    pub reference_samples: Option<usize>,
    /// Reuse the exact reference saved in this file (it must have been made for the same data, model, seed and
    /// --reference-samples; the sampler and tuners may differ), or, if the file does not exist, compute it and
    /// save it there. scripts/reproduce/mamba/table1.sh computes it once per (N, seed) for the six samplers.
    #[arg(long)]
    pub reference: Option<String>,
}

/// `tunelab compare`.
pub fn compare(args: &CompareArgs) -> Result<i32> {
    let path = args.reference.as_deref();
    let reuse = path.is_some_and(|p| std::path::Path::new(p).exists());
    let overrides = |cfg: &mut ExperimentConfig| match cfg {
        ExperimentConfig::Compare(c) => {
            if let Some(r) = args.reference_samples {
                c.reference_samples = r;
            }
            args.base.apply(&mut c.base)
        }
        _ => unreachable!("a compare command loads compare configs"),
    };
    execute_with(
        Some(Kind::Compare),
        &args.base.run,
        overrides,
        |checked, inputs| {
            let (Some(p), true) = (path, reuse) else { return Ok(()) };
            let ExperimentConfig::Compare(c) = checked.config() else { return Ok(()) };
            if c.reference_samples == 0 {
                return Err(Error::config("--reference needs an exact reference (--reference-samples above 0)"));
            }
            let text = std::fs::read_to_string(p).map_err(|e| Error::Io(format!("cannot read {p}: {e}")))?;
            let named = |e: Error| match e {
                Error::Config(m) => Error::Config(format!("{p}: {m}")),
                e => e,
            };
            let saved = SavedReference::from_json(&text).map_err(named)?;
            // the checks the run makes (the problem's dimension aside), here to name the file
            saved.check_key(&c.reference_key()).map_err(named)?;
            saved.fits(saved.reference.std.len()).map_err(named)?;
            inputs.reference = Some(saved);
            Ok(())
        },
        |checked, report| {
            let (Some(p), false) = (path, reuse) else { return Ok(()) };
            let (ExperimentConfig::Compare(c), Some(Output::Compare(cmp))) = (checked.config(), &report.result) else {
                return Ok(());
            };
            let Some(reference) = &cmp.reference else { return Ok(()) };
            let saved = SavedReference { key: c.reference_key(), reference: reference.clone() };
            // written whole, then renamed: a reader never sees half a file
            let tmp = format!("{p}.tmp");
            write_json(&tmp, &saved)?;
            std::fs::rename(&tmp, p).map_err(|e| Error::Io(format!("cannot write {p}: {e}")))?;
            eprintln!("reference saved to {p}");
            Ok(())
        },
    )
}

/// Options of `tunelab bandit`.
#[derive(Args, Debug)]
pub struct BanditArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Override the number of repeats.
    #[arg(long)]
    pub repeats: Option<usize>,
    /// Override the number of rounds.
    #[arg(long)]
    pub rounds: Option<usize>,
}

/// Options of `tunelab step-size`.
#[derive(Args, Debug)]
pub struct StepSizeArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Override the number of windows.
    #[arg(long)]
    pub windows: Option<usize>,
}

/// `tunelab step-size`: GP-UCB choosing an SG-MCMC step size window by window, against fixed steps.
pub fn step_size(args: &StepSizeArgs) -> Result<i32> {
    execute(Some(Kind::StepSize), &args.run, |cfg| {
        if let (ExperimentConfig::StepSize(c), Some(w)) = (cfg, args.windows) {
            c.windows = w;
        }
        Ok(())
    })
}

/// `tunelab bandit`: bandit algorithms with exact regret (every kind has its own command; the step-size experiment
/// is `tunelab step-size`).
pub fn bandit(args: &BanditArgs) -> Result<i32> {
    if let Some(name) = args.run.preset.as_deref().filter(|n| Kind::StepSize.preset_names().contains(n)) {
        return Err(Error::config(format!("`{name}` is a step-size preset: run `tunelab step-size --preset {name}`")));
    }
    execute(Some(Kind::Bandit), &args.run, |cfg| {
        if let ExperimentConfig::Bandit(c) = cfg {
            c.repeats = args.repeats.unwrap_or(c.repeats);
            c.rounds = args.rounds.unwrap_or(c.rounds);
        }
        Ok(())
    })
}

/// Options of `tunelab hoag`.
#[derive(Args, Debug)]
pub struct HoagArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Run on this svmlight / libsvm file (`label index:value ...`, 1-based indices; sparse CSR, not
    /// standardised): L2 logistic regression (`problem` logreg or logreg-per-feature) on two label values; the
    /// config's data becomes `{"source": "svmlight", "path": FILE}` (progress, Ctrl-C and --out as for any run).
    #[arg(long, conflicts_with = "data")]
    pub svmlight: Option<String>,
}

/// `tunelab hoag`: the experiment runner; --svmlight sets the config's data to that sparse file.
pub fn hoag(args: &HoagArgs) -> Result<i32> {
    let Some(path) = &args.svmlight else {
        return plain(Kind::Hoag, &args.run);
    };
    execute(Some(Kind::Hoag), &args.run, |cfg| match cfg {
        ExperimentConfig::Hoag(c) => {
            c.data = tunelab::experiments::hoag::HoagData::Svmlight { path: Some(path.clone()) };
            Ok(())
        }
        _ => Err(Error::config("--svmlight needs a hoag config")),
    })
}

/// `tunelab hoag` and `tunelab lr-schedule`: no flags of their own.
pub fn plain(kind: Kind, args: &RunArgs) -> Result<i32> {
    execute(Some(kind), args, |_| Ok(()))
}

/// Options of `tunelab run`.
#[derive(Args, Debug)]
pub struct RunCmdArgs {
    /// The experiment kind (tune, compare, bandit, hoag, lr-schedule, step-size, tvo): needed with --preset; with
    /// --config, the document's `kind` must match it (and may then be omitted).
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<Kind>,
    #[command(flatten)]
    pub run: RunArgs,
}

fn parse_kind(s: &str) -> std::result::Result<Kind, String> {
    Kind::parse(s).map_err(|e| e.to_string())
}

/// `tunelab run`: any experiment from a config with a `kind` (or `--kind K --preset NAME`).
pub fn run(args: &RunCmdArgs) -> Result<i32> {
    execute(args.kind, &args.run, |_| Ok(()))
}

/// `tunelab presets [--show KIND/NAME]`.
#[derive(clap::Args, Debug)]
pub struct PresetsArgs {
    /// Print this preset's full JSON config (every default filled in), e.g. `tune/paper-logreg`; save it, edit
    /// it and run it with `tunelab run --config FILE`. Its `"$schema"` names the kind's JSON Schema, so an editor
    /// validates and completes the saved file.
    #[arg(long, value_name = "KIND/NAME")]
    pub show: Option<String>,
    /// Where `"$schema"` points: this prefix and the schema's file name (`tune.schema.json`). The default,
    /// `schemas/`, is the folder of the repository and of the built site, relative to a file saved at their root;
    /// give a URL (`https://YOUR-SITE/schemas/`) or a path for a file saved elsewhere.
    #[arg(long, value_name = "URL", default_value = "schemas/", requires = "show")]
    pub schema_base: String,
}

/// `tunelab presets`: the presets of every kind, or one preset's JSON.
pub fn presets(args: &PresetsArgs) -> Result<i32> {
    if let Some(spec) = &args.show {
        let (kind, name) = spec
            .split_once('/')
            .ok_or_else(|| Error::config(format!("--show takes KIND/NAME (e.g. tune/paper-logreg), got '{spec}'")))?;
        let kind = Kind::parse(kind)?;
        let cfg = ExperimentConfig::preset(kind, name)?;
        let mut value = serde_json::to_value(&cfg).map_err(|e| Error::Io(format!("cannot write JSON: {e}")))?;
        if let Some(obj) = value.as_object_mut() {
            // (`$` sorts before every field name: the key comes first, where editors look for it)
            let url = format!("{}{}", args.schema_base, tunelab::schema::config_file(kind));
            obj.insert(tunelab::strict::SCHEMA_KEY.into(), serde_json::Value::String(url));
        }
        let text = serde_json::to_string_pretty(&value).map_err(|e| Error::Io(format!("cannot write JSON: {e}")))?;
        println!("{text}");
        return Ok(0);
    }
    for kind in Kind::ALL {
        println!("{:<12} {}", kind.name(), ExperimentConfig::preset_names(kind).join(", "));
    }
    Ok(0)
}
