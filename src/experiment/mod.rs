//! The one experiment contract. Every tuner of tunelab — MAMBA and its comparison, the bandits, HOAG, the
//! learning-rate schedules and the step-size tuner — is an [`Experiment`]:
//!
//! 1. a serde config with a `kind` ([`ExperimentConfig`], the one JSON document for the CLI, the worker, the
//!    page URL and Python), **checked once** into a validated value ([`Checked`]; the only way to get one is
//!    [`ExperimentConfig::check`]), which also tells what the core computed from it ([`Checked::summary`]: arm
//!    count, rounds, grids) and which data it needs ([`Checked::data_request`]);
//! 2. **run** with its inputs (a data set parsed once at the boundary, [`Inputs`]), an observer and a stop flag
//!    ([`Checked::run`]): the observer receives one event vocabulary ([`Event`]: `started`, `progress` with
//!    `done` / `total` and a typed `detail`, `finished`) on the calling thread;
//! 3. returns one **report** envelope ([`Report`]: `kind`, `status`, `config`, `compute`, `result`). A stopped
//!    run returns `status: "stopped"` with the progress it reached (`reached`) instead of an error.
//!
//! A new tuner is one [`Experiment`] implementation (plus one page panel): the CLI runner, the wasm binding,
//! the worker protocol and the Python layer dispatch on [`ExperimentConfig`] and need no change.

mod kinds;

pub use kinds::{BanditExperiment, CompareConfig, CompareExperiment, HoagExperiment, LrExperiment, StepExperiment, TuneExperiment, TvoExperiment};

use crate::data::{self, CsvOptions, Dataset};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use web_time::Instant;

/// The experiment kinds (the `kind` tag of a config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// MAMBA or a baseline tuning an SG-MCMC sampler (`tunelab tune`).
    Tune,
    /// The paper's comparison of SG-MCMC tuners on one problem (`tunelab compare`).
    Compare,
    /// Bandit tuners with exact regret (`tunelab bandit`).
    Bandit,
    /// HOAG against its baselines (`tunelab hoag`).
    Hoag,
    /// Learning-rate schedules by a GP trace model (`tunelab lr-schedule`).
    LrSchedule,
    /// GP-UCB choosing an SG-MCMC step size window by window (`tunelab bandit --preset sgld-step`).
    StepSize,
    /// A VAE trained by the TVO while GP-UCB chooses its schedule (`tunelab run --kind tvo --preset digits`).
    Tvo,
}

impl Kind {
    pub const ALL: [Kind; 7] = [Kind::Tune, Kind::Compare, Kind::Bandit, Kind::Hoag, Kind::LrSchedule, Kind::StepSize, Kind::Tvo];

    /// The kebab-case name (as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tune => "tune",
            Kind::Compare => "compare",
            Kind::Bandit => "bandit",
            Kind::Hoag => "hoag",
            Kind::LrSchedule => "lr-schedule",
            Kind::StepSize => "step-size",
            Kind::Tvo => "tvo",
        }
    }

    /// Parses a kind name (the CLI's and the binding's `kind` argument).
    pub fn parse(name: &str) -> Result<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
            Error::config(format!(
                "unknown experiment kind '{name}' (known: {})",
                Kind::ALL.map(Kind::name).join(", ")
            ))
        })
    }
}

/// One experiment, as the core implements it. `Self` is the **checked** experiment: it can only be built by
/// [`Experiment::check`], so [`Experiment::run`] never sees an unchecked config.
pub trait Experiment: Sized {
    /// The config (serde JSON, without the `kind` tag).
    type Config: Clone + Serialize;
    /// The typed detail of this kind's progress events.
    type Detail: Clone + Serialize + Into<Detail>;
    /// The result of a complete run.
    type Output: Serialize + Into<Output>;
    const KIND: Kind;

    /// Checks every value of the config once (linfa style).
    fn check(config: Self::Config) -> Result<Self>;
    /// The config, with every default filled in.
    fn config(&self) -> &Self::Config;
    /// What the core computed from the config (arm counts, rounds, grids), for the page and the CLI.
    fn summary(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// The user data set this config needs (a CSV file or an upload), if any.
    fn data_request(&self) -> Option<DataRequest> {
        None
    }
    /// Runs the experiment. `progress(done, total, detail)` is called on the calling thread; `stop` is checked
    /// between chunks of work (then the run returns `Error::Cancelled`).
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, Self::Detail), stop: &AtomicBool) -> Result<Self::Output>;
}

/// A config of any kind: the one JSON document (`{"kind": "hoag", ...the kind's fields}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[allow(clippy::large_enum_variant)]
pub enum ExperimentConfig {
    Tune(crate::tune::TuneConfig),
    Compare(CompareConfig),
    Bandit(crate::bandit::BanditConfig),
    Hoag(crate::hoag::HoagConfig),
    LrSchedule(crate::lrsched::LrConfig),
    StepSize(crate::bandit::sgmcmc_step::StepTuneConfig),
    Tvo(crate::tvo::TvoConfig),
}

/// A checked experiment of any kind (obtained only from [`ExperimentConfig::check`]).
pub enum Checked {
    Tune(TuneExperiment),
    Compare(CompareExperiment),
    Bandit(BanditExperiment),
    Hoag(HoagExperiment),
    LrSchedule(LrExperiment),
    StepSize(StepExperiment),
    Tvo(TvoExperiment),
}

/// Calls `$body` with `$e` bound to the experiment inside a [`Checked`].
macro_rules! each {
    ($checked:expr, $e:ident => $body:expr) => {
        match $checked {
            Checked::Tune($e) => $body,
            Checked::Compare($e) => $body,
            Checked::Bandit($e) => $body,
            Checked::Hoag($e) => $body,
            Checked::LrSchedule($e) => $body,
            Checked::StepSize($e) => $body,
            Checked::Tvo($e) => $body,
        }
    };
}

impl ExperimentConfig {
    /// Parses the JSON text of a config. `default_kind` is assumed when the document has no `kind` (the
    /// per-kind commands `tunelab hoag --config F` accept the kind's own config, as before).
    pub fn from_json(text: &str, default_kind: Option<Kind>) -> Result<Self> {
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::config(format!("config JSON: {e}")))?;
        Self::from_value(&mut value, default_kind)
    }

    /// [`Self::from_json`] on a parsed JSON value (the binding and Python hand over values).
    /// A report envelope (`{kind, status, config, ...}`, what `--out` writes) stands for its `config`, so a
    /// report reruns its experiment.
    pub fn from_value(value: &mut serde_json::Value, default_kind: Option<Kind>) -> Result<Self> {
        if value.get("status").is_some() && value.get("config").is_some_and(|c| c.get("kind").is_some()) {
            let mut config = value["config"].take();
            return Self::from_value(&mut config, default_kind);
        }
        let obj = value.as_object_mut().ok_or_else(|| Error::config("a config must be a JSON object"))?;
        match (obj.get("kind"), default_kind) {
            (Some(serde_json::Value::String(k)), d) => {
                let k = Kind::parse(k)?;
                if let Some(d) = d.filter(|d| *d != k) {
                    return Err(Error::config(format!("this command runs '{}' experiments, the config says '{}'", d.name(), k.name())));
                }
            }
            (Some(_), _) => return Err(Error::config("`kind` must be a string")),
            (None, Some(d)) => {
                obj.insert("kind".into(), serde_json::Value::String(d.name().into()));
            }
            (None, None) => {
                if let Some(near) = obj.keys().find(|k| strsim::damerau_levenshtein(k, "kind") == 1) {
                    return Err(Error::config(format!("config: `{near}`: unknown field; did you mean `kind`?")));
                }
                return Err(Error::config(format!(
                    "the config has no `kind` (one of: {})",
                    Kind::ALL.map(Kind::name).join(", ")
                )))
            }
        }
        crate::strict::experiment_config(value)
    }

    /// The built-in preset `name` of an experiment kind.
    pub fn preset(kind: Kind, name: &str) -> Result<Self> {
        Ok(match kind {
            Kind::Tune => ExperimentConfig::Tune(crate::tune::presets::preset(name)?),
            Kind::Compare => ExperimentConfig::Compare(CompareConfig::preset(name)?),
            Kind::Bandit => ExperimentConfig::Bandit(crate::bandit::BanditConfig::preset(name)?),
            Kind::Hoag => ExperimentConfig::Hoag(crate::hoag::HoagConfig::preset(name)?),
            Kind::LrSchedule => ExperimentConfig::LrSchedule(crate::lrsched::LrConfig::preset(name)?),
            Kind::StepSize => match name {
                "sgld-step" | "default" => ExperimentConfig::StepSize(Default::default()),
                other => return Err(Error::config(format!("unknown step-size preset '{other}' (known: sgld-step)"))),
            },
            Kind::Tvo => ExperimentConfig::Tvo(crate::tvo::TvoConfig::preset(name)?),
        })
    }

    /// True when running this config reads the MNIST digits ([`crate::data::mnist`]). A host that cannot read
    /// files (the page's worker) fetches and installs the digits first. Each kind's typed data source says it;
    /// the matches name every variant, so a new data source must decide here (`tests/mnist_page.rs` checks
    /// every preset of every kind).
    pub fn needs_mnist(&self) -> bool {
        use crate::bandit::config::ProblemSpec as P;
        use crate::bandit::hpo::{DigitData, HpoModel};
        let tune = |d: &crate::tune::DataSpec| matches!(d.source, crate::tune::DataSource::Mnist { .. });
        match self {
            ExperimentConfig::Tune(c) => tune(&c.data),
            ExperimentConfig::Compare(c) => tune(&c.base.data),
            ExperimentConfig::Bandit(c) => match &c.problem {
                P::SgmcmcKsd(s) => tune(&s.data),
                P::Hpo(h) => match &h.model {
                    HpoModel::Mlp { data, .. } => matches!(data, DigitData::Mnist { .. }),
                    HpoModel::KernelRidge { .. } => false,
                },
                P::Bernoulli { .. } | P::Reservoir { .. } | P::Function { .. } | P::TvoSchedule { .. } | P::LogregSgd(_) => false,
            },
            ExperimentConfig::Hoag(c) => matches!(c.data, crate::hoag::HoagData::Mnist { .. }),
            // The multi-task warm start (Picheny et al. Sec. 4) reads binary MNIST tasks whatever `data` says.
            ExperimentConfig::LrSchedule(c) => matches!(c.data, crate::lrsched::LrData::Mnist { .. }) || c.multitask.is_some(),
            ExperimentConfig::StepSize(_) => false,
            ExperimentConfig::Tvo(c) => matches!(c.data, crate::tvo::TvoData::Mnist { .. }),
        }
    }

    /// The preset names of a kind (for help texts and the page's menus).
    pub fn preset_names(kind: Kind) -> &'static [&'static str] {
        match kind {
            Kind::Tune | Kind::Compare => crate::tune::presets::PRESETS,
            Kind::Bandit => &crate::bandit::config::PRESETS,
            Kind::Hoag => &["logreg", "kernel-ridge"],
            Kind::LrSchedule => &["digits", "digits-logreg", "noisy-quadratic"],
            Kind::StepSize => &["sgld-step"],
            Kind::Tvo => &["digits", "mnist", "mnist-page"],
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            ExperimentConfig::Tune(_) => Kind::Tune,
            ExperimentConfig::Compare(_) => Kind::Compare,
            ExperimentConfig::Bandit(_) => Kind::Bandit,
            ExperimentConfig::Hoag(_) => Kind::Hoag,
            ExperimentConfig::LrSchedule(_) => Kind::LrSchedule,
            ExperimentConfig::StepSize(_) => Kind::StepSize,
            ExperimentConfig::Tvo(_) => Kind::Tvo,
        }
    }

    /// Points the experiment at a CSV file (`--data FILE --label COL`), for the kinds that take user data.
    pub fn use_csv(&mut self, path: &str, label: &str, standardize: bool) -> Result<()> {
        use crate::tune::DataSource;
        let tune_data = |d: &mut crate::tune::DataSpec| {
            d.source = DataSource::Csv { path: path.into() };
            d.label = label.into();
            d.standardize |= standardize;
        };
        match self {
            ExperimentConfig::Tune(c) => tune_data(&mut c.data),
            ExperimentConfig::Compare(c) => tune_data(&mut c.base.data),
            ExperimentConfig::Bandit(c) => match &mut c.problem {
                crate::bandit::ProblemSpec::SgmcmcKsd(spec) => tune_data(&mut spec.data),
                _ => return Err(Error::config("--data applies to the bandit problem sgmcmc-ksd only")),
            },
            ExperimentConfig::Hoag(c) => c.data = crate::hoag::HoagData::Csv { path: path.into(), label: Some(label.into()) },
            ExperimentConfig::LrSchedule(c) => {
                c.data = crate::lrsched::LrData::Csv { path: path.into(), label: Some(label.into()) }
            }
            ExperimentConfig::StepSize(_) => return Err(Error::config("the step-size experiment runs on simulated data only")),
            ExperimentConfig::Tvo(_) => return Err(Error::config("the tvo experiment trains on the built-in digits or MNIST")),
        }
        Ok(())
    }

    /// Overrides the seed (`--seed`).
    pub fn set_seed(&mut self, seed: u64) {
        match self {
            ExperimentConfig::Tune(c) => c.seed = seed,
            ExperimentConfig::Compare(c) => c.base.seed = seed,
            ExperimentConfig::Bandit(c) => c.seed = seed,
            ExperimentConfig::Hoag(c) => c.seed = seed,
            ExperimentConfig::LrSchedule(c) => c.seed = seed,
            ExperimentConfig::StepSize(c) => c.seed = seed,
            ExperimentConfig::Tvo(c) => c.seed = seed,
        }
    }

    /// Checks the config once into a [`Checked`] experiment.
    pub fn check(self) -> Result<Checked> {
        Ok(match self {
            ExperimentConfig::Tune(c) => Checked::Tune(TuneExperiment::check(c)?),
            ExperimentConfig::Compare(c) => Checked::Compare(CompareExperiment::check(c)?),
            ExperimentConfig::Bandit(c) => Checked::Bandit(BanditExperiment::check(c)?),
            ExperimentConfig::Hoag(c) => Checked::Hoag(HoagExperiment::check(c)?),
            ExperimentConfig::LrSchedule(c) => Checked::LrSchedule(LrExperiment::check(c)?),
            ExperimentConfig::StepSize(c) => Checked::StepSize(StepExperiment::check(c)?),
            ExperimentConfig::Tvo(c) => Checked::Tvo(TvoExperiment::check(c)?),
        })
    }
}

/// The user data a checked config asks for: read `path` (CLI) or the uploaded text (page), parse it once with
/// [`DataRequest::parse`] and pass it in [`Inputs`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataRequest {
    /// The CSV file named by the config (`None`: an upload).
    pub path: Option<String>,
    /// The label column (CSV only).
    pub label: String,
    /// The file's format: `csv` (default), `svmlight` (sparse, labels first on each line) or
    /// `ratings` (`user,item,rating` rows for the PMF model).
    #[serde(default)]
    pub format: DataFormat,
}

/// The format of a requested data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DataFormat {
    #[default]
    Csv,
    /// svmlight / libsvm text, parsed into a CSR matrix ([`crate::data::sparse`]).
    Svmlight,
    /// A ratings file (`user,item,rating`, parsed by `data::ratings::parse_ratings`) for the PMF model, rather
    /// than a labelled feature table.
    Ratings,
}

impl DataRequest {
    /// Parses CSV text with this request's label column (standardisation, when asked, happens in the core
    /// with training-split statistics); a ratings request parses `user,item,rating` rows. For a `svmlight`
    /// request use [`DataRequest::inputs`].
    pub fn parse(&self, text: &str) -> Result<Dataset> {
        match self.format {
            DataFormat::Svmlight => {
                return Err(Error::config("this config asks for an svmlight file: parse it with DataRequest::inputs"))
            }
            DataFormat::Ratings => return data::ratings::parse_ratings(text),
            DataFormat::Csv => {}
        }
        data::parse_csv(text, &CsvOptions { label: self.label.clone(), standardize: false })
    }
    /// Parses the file's text in the request's format into the [`Inputs`] of a run.
    pub fn inputs(&self, text: &str) -> Result<Inputs> {
        Ok(match self.format {
            DataFormat::Csv | DataFormat::Ratings => Inputs { data: Some(self.parse(text)?), ..Inputs::default() },
            DataFormat::Svmlight => Inputs { sparse: Some(data::sparse::parse_svmlight(text, None)?), ..Inputs::default() },
        })
    }
}

/// What a run is given besides its config.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The user's data set, parsed at the boundary (see [`Checked::data_request`]).
    pub data: Option<Dataset>,
    /// A sparse data set (a request of format `svmlight`).
    pub sparse: Option<data::sparse::SparseDataset>,
    /// Compare runs only: an exact reference saved by an earlier comparison of the same data, model, seed and
    /// reference size (checked against [`CompareConfig::reference_key`]); it replaces the MALA run.
    pub reference: Option<crate::tune::compare::SavedReference>,
}

/// The typed detail of a progress event: the experiment kind's own event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Detail {
    Tune(crate::tune::Event),
    Compare(kinds::CompareDetail),
    Bandit(crate::bandit::BanditEvent),
    Hoag(crate::hoag::HoagEvent),
    LrSchedule(crate::lrsched::LrEvent),
    StepSize(crate::bandit::sgmcmc_step::StepEvent),
    Tvo(crate::tvo::TvoEvent),
}

/// The one event vocabulary of every experiment (serde tag `type`, kebab-case), delivered on the calling thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// The run starts (after the config was checked and the inputs loaded).
    Started { kind: Kind, summary: serde_json::Value },
    /// Work done so far out of `total` (the kind's own unit, see [`Checked::progress_unit`]) and what happened.
    Progress { done: f64, total: f64, detail: Detail },
    /// The run ended (complete, stopped or failed).
    Finished { status: Status, seconds: f64 },
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Ran to the end; `result` holds the kind's report.
    Complete,
    /// Stopped by the user; `reached` holds the progress events up to the stop.
    Stopped,
    /// Failed with an error (only in `finished` events: a failed run returns the error).
    Failed,
}

/// The result of a complete run: the kind's own report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum Output {
    Tune(crate::tune::Report),
    Compare(crate::tune::compare::Comparison),
    Bandit(crate::bandit::BanditReport),
    Hoag(crate::hoag::HoagReport),
    LrSchedule(crate::lrsched::LrReport),
    StepSize(crate::bandit::sgmcmc_step::StepTuneReport),
    Tvo(crate::tvo::TvoReport),
}

/// Compute spent by a run, as every kind measures it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compute {
    /// Wall-clock seconds of the whole run (not reproducible across machines).
    pub wall_seconds: f64,
    /// Threads of the pool the run used.
    pub threads: usize,
    /// Work done and planned, in `unit`.
    pub done: f64,
    pub total: f64,
    pub unit: &'static str,
}

/// The one report envelope.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub kind: Kind,
    pub status: Status,
    /// The config that ran, every default filled in.
    pub config: ExperimentConfig,
    pub compute: Compute,
    /// The kind's report (`null` when stopped).
    pub result: Option<Output>,
    /// Stopped runs: every progress detail up to the stop (what was reached); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reached: Vec<Detail>,
}

impl Checked {
    pub fn kind(&self) -> Kind {
        match self {
            Checked::Tune(_) => Kind::Tune,
            Checked::Compare(_) => Kind::Compare,
            Checked::Bandit(_) => Kind::Bandit,
            Checked::Hoag(_) => Kind::Hoag,
            Checked::LrSchedule(_) => Kind::LrSchedule,
            Checked::StepSize(_) => Kind::StepSize,
            Checked::Tvo(_) => Kind::Tvo,
        }
    }

    /// The config as it will run (every default filled in).
    pub fn config(&self) -> ExperimentConfig {
        match self {
            Checked::Tune(e) => ExperimentConfig::Tune(e.config().clone()),
            Checked::Compare(e) => ExperimentConfig::Compare(e.config().clone()),
            Checked::Bandit(e) => ExperimentConfig::Bandit(e.config().clone()),
            Checked::Hoag(e) => ExperimentConfig::Hoag(e.config().clone()),
            Checked::LrSchedule(e) => ExperimentConfig::LrSchedule(e.config().clone()),
            Checked::StepSize(e) => ExperimentConfig::StepSize(e.config().clone()),
            Checked::Tvo(e) => ExperimentConfig::Tvo(e.config().clone()),
        }
    }

    /// What the core computed from the config (see [`Experiment::summary`]).
    pub fn summary(&self) -> serde_json::Value {
        each!(self, e => e.summary())
    }

    /// The user data this experiment needs, if any.
    pub fn data_request(&self) -> Option<DataRequest> {
        each!(self, e => e.data_request())
    }

    /// The unit of `done` / `total` in progress events.
    pub fn progress_unit(&self) -> &'static str {
        match self {
            Checked::Tune(_) => "arm-chunks",
            Checked::Compare(_) => "tuners",
            Checked::Bandit(_) => "rounds",
            Checked::Hoag(_) => "methods",
            Checked::LrSchedule(_) => "methods",
            Checked::StepSize(_) => "windows",
            Checked::Tvo(_) => "windows",
        }
    }

    /// Runs the experiment (see the module docs). A stop returns `Ok` with `status: stopped`; any other
    /// failure returns the error (after a `finished` event with `status: failed`).
    pub fn run(&self, inputs: Inputs, observer: &mut dyn FnMut(&Event), stop: &AtomicBool) -> Result<Report> {
        if inputs.reference.is_some() && self.kind() != Kind::Compare {
            return Err(Error::config(format!("a saved reference is an input of compare runs, not of {} runs", self.kind().name())));
        }
        let wall = Instant::now();
        let unit = self.progress_unit();
        observer(&Event::Started { kind: self.kind(), summary: self.summary() });
        let mut reached: Vec<Detail> = Vec::new();
        let (mut done, mut total) = (0.0, 0.0);
        let result = {
            let mut progress = |d: f64, t: f64, detail: Detail| {
                (done, total) = (d, t);
                let ev = Event::Progress { done: d, total: t, detail };
                observer(&ev);
                if let Event::Progress { detail, .. } = ev {
                    reached.push(detail);
                }
            };
            each!(self, e => e
                .run(inputs, &mut |d, t, detail| progress(d, t, detail.into()), stop)
                .map(Into::into))
        };
        let seconds = wall.elapsed().as_secs_f64();
        let (status, result) = match result {
            Ok(out) => (Status::Complete, Some(out)),
            Err(Error::Cancelled) => (Status::Stopped, None),
            Err(e) => {
                observer(&Event::Finished { status: Status::Failed, seconds });
                return Err(e);
            }
        };
        observer(&Event::Finished { status, seconds });
        if status == Status::Complete {
            reached.clear();
        }
        Ok(Report {
            kind: self.kind(),
            status,
            config: self.config(),
            compute: Compute { wall_seconds: seconds, threads: rayon::current_num_threads(), done, total, unit },
            result,
            reached,
        })
    }
}

/// Reads a data file for a [`DataRequest`] that names a path, in the request's format (native front ends);
/// an upload request gives empty inputs.
pub fn read_requested_inputs(req: &DataRequest) -> Result<Inputs> {
    match &req.path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
            req.inputs(&text).map_err(|e| match e {
                Error::Data(m) => Error::Data(format!("{path}: {m}")),
                e => e,
            })
        }
        None => Ok(Inputs::default()),
    }
}

/// Reads a data file for a [`DataRequest`] that names a path (native front ends).
pub fn read_requested(req: &DataRequest) -> Result<Option<Dataset>> {
    match &req.path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
            req.parse(&text).map(Some)
        }
        None => Ok(None),
    }
}
