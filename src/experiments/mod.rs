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
//! **A new kind is one folder and one line.** Each kind lives in `src/experiments/<kind>/` (its config, presets,
//! checked value, memory estimate, driver, report and `impl Experiment`, in `experiment.rs`); the list of kinds
//! exists once, in the [`registry!`] call below, which generates [`Kind`], [`ExperimentConfig`], [`Checked`],
//! [`Detail`] and [`Output`] and every dispatch over them. The CLI runner, the wasm binding, the worker
//! protocol and the Python layer dispatch on [`ExperimentConfig`] and need no change (the page adds one panel
//! folder, `www/panels/<kind>/`).
//!
//! Layers: `experiments` depends on the algorithms below it ([`crate::bandit`], [`crate::stein`],
//! [`crate::sampler`], [`crate::gp`], [`crate::optim`], [`crate::model`], [`crate::data`]), never the reverse.

pub mod advice;
pub mod bandit;
pub mod compare;
pub mod cost;
pub mod executor;
pub mod gp_chart;
pub mod hoag;
pub mod lr_schedule;
pub mod partial;
pub mod sgmcmc;
pub mod step_size;
pub mod text;
pub mod tune;
pub mod tvo;

use crate::data::{self, CsvOptions, Dataset};
use crate::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use web_time::Instant;

/// One experiment, as the core implements it. `Self` is the **checked** experiment: it can only be built by
/// [`Experiment::check`], so [`Experiment::run`] never sees an unchecked config.
pub trait Experiment: Sized {
    /// The config (serde JSON, without the `kind` tag).
    type Config: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// The typed detail of this kind's progress events.
    type Detail: Clone + std::fmt::Debug + PartialEq + Serialize;
    /// The result of a complete run (read back from a report file by [`crate::report_file`]).
    type Output: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned;
    /// The kind's name: the `kind` tag of its JSON config (kebab-case).
    const NAME: &'static str;
    /// The unit of `done` / `total` in this kind's progress events (see [`Experiment::unit`]).
    const UNIT: &'static str;
    /// The names of the built-in presets ([`Experiment::preset`]).
    const PRESETS: &'static [&'static str];
    /// The kind's name for people (messages, the page's lesson menu): what it tunes and by which method.
    const LABEL: &'static str;
    /// The page's panel that shows this kind's runs and reports (`www/panels/<PANEL>/`): the kind's own unless
    /// it shares another's (a comparison shows in the tuning panel).
    const PANEL: &'static str = Self::NAME;
    /// The config fields (JSON paths) that panel shows and sets: the only ones a lesson step may patch
    /// ([`crate::lesson`]). `a.*` covers every field under `a`. None: a lesson cannot change the config.
    const PANEL_FIELDS: &'static [&'static str] = &[];

    /// The unit of `done` / `total` of this checked config's progress events: [`Experiment::UNIT`] unless the
    /// config decides it (a tune run counts its budget's unit: gradient evaluations, iterations or seconds).
    fn unit(&self) -> &'static str {
        Self::UNIT
    }
    /// The built-in preset `name`.
    fn preset(name: &str) -> Result<Self::Config>;
    /// Checks every value of the config once (linfa style).
    fn check(config: Self::Config) -> Result<Self>;
    /// The config, with every default filled in.
    fn config(&self) -> &Self::Config;
    /// What the core computed from the config (arm counts, rounds, grids), for the page and the CLI.
    fn summary(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// The run's work before it runs, per phase ([`cost::Cost`]); the summary carries it as `cost`.
    fn cost(&self) -> cost::Cost;
    /// The user data set this config needs (a CSV file or an upload), if any.
    fn data_request(&self) -> Option<DataRequest> {
        None
    }
    /// Runs the experiment. `progress(done, total, detail)` is called on the calling thread; `stop` is checked
    /// between chunks of work (then the run returns `Error::Cancelled`).
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, Self::Detail),
        stop: &AtomicBool,
    ) -> Result<Self::Output>;
    /// [`Experiment::run`] continuing from a saved state and saving the state after every round
    /// ([`executor::Rounds`]). The kinds whose run is made of rounds implement it; the others refuse a resume or
    /// a checkpoint rather than ignore it.
    fn run_rounds(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, Self::Detail),
        stop: &AtomicBool,
        rounds: executor::Rounds,
    ) -> Result<Self::Output> {
        if rounds.is_used() {
            return Err(Error::config(format!("{} runs cannot be checkpointed or resumed", Self::NAME)));
        }
        self.run(inputs, progress, stop)
    }

    /// True when running this config reads the MNIST digits ([`crate::data::mnist`]). A host that cannot read
    /// files (the page's worker) fetches and installs the digits first. Each kind's typed data source says it,
    /// naming every variant, so a new data source must decide (`tests/mnist_page.rs` checks every preset).
    fn needs_mnist(config: &Self::Config) -> bool;
    /// The shipped data sets (`data/`: digits, breast cancer, wine, diabetes) running this config reads. The wasm
    /// build does not compile them in: the page's worker fetches these files first ([`crate::data::shipped`]).
    /// Each kind names every variant of its data sources (`tests/mnist_page.rs` runs every preset and checks
    /// that what it read is listed).
    fn shipped(config: &Self::Config) -> Vec<crate::data::Shipped>;
    /// Points the config at a CSV file (`--data FILE --label COL`), for the kinds that take user data.
    fn use_csv(config: &mut Self::Config, path: &str, label: &str, standardize: bool) -> Result<()> {
        let _ = (config, path, label, standardize);
        Err(Error::config(format!("the {} experiment takes no data file", Self::NAME)))
    }
    /// Overrides the seed (`--seed`).
    fn set_seed(config: &mut Self::Config, seed: u64);

    /// A short line about a progress detail for a terminal's progress bar, where one helps.
    fn message(detail: &Self::Detail) -> Option<String> {
        let _ = detail;
        None
    }
    /// A phase of the run with a progress of its own, shown instead of the run's (a comparison's exact
    /// reference, before its first tuner).
    fn stage(detail: &Self::Detail) -> Option<Stage> {
        let _ = detail;
        None
    }
    /// True when this detail ends a round (a front end may then write the report so far).
    fn ends_round(detail: &Self::Detail) -> bool {
        let _ = detail;
        false
    }
    /// The plain-text table of a complete run (what the CLI prints on stdout); empty for none.
    fn table(config: &Self::Config, output: &Self::Output) -> String {
        let _ = (config, output);
        String::new()
    }
}

/// A phase of a run with its own progress ([`Experiment::stage`]): what it is, the line shown meanwhile, done,
/// total and unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// The phase (a new one restarts a front end's elapsed time and ETA).
    pub what: &'static str,
    /// What a progress bar says during it (`MAMBA-KSD: evaluation chain from the MAP`).
    pub label: String,
    pub done: f64,
    pub total: f64,
    pub unit: &'static str,
}

/// What a front end needs to know of a kind without its types: the registry's one description of it (the CLI's
/// help, the page's generated `www/kinds.js`, Python's `tunelab.kinds()`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindInfo {
    /// The `kind` tag ([`Experiment::NAME`]).
    pub name: &'static str,
    /// The name for people ([`Experiment::LABEL`]).
    pub label: &'static str,
    /// The unit of its progress events ([`Experiment::UNIT`]).
    pub unit: &'static str,
    /// Its built-in presets ([`Experiment::PRESETS`]).
    pub presets: &'static [&'static str],
    /// The page's panel that shows it ([`Experiment::PANEL`]).
    pub panel: &'static str,
}

/// Checks `config` once and runs it: the whole contract in one call, for any kind
/// (`experiments::check_and_run::<HoagExperiment>(cfg, Inputs::default(), &mut |e| ..., &stop)`). Front ends
/// that show the check's summary or ask for data first call [`Experiment::check`] and [`Experiment::run`].
pub fn check_and_run<E: Experiment>(
    config: E::Config,
    inputs: Inputs,
    observer: &mut dyn FnMut(&E::Detail),
    stop: &AtomicBool,
) -> Result<E::Output> {
    E::check(config)?.run(inputs, &mut |_, _, detail| observer(&detail), stop)
}

/// The one list of experiment kinds: `Variant => checked experiment type`. Everything that enumerates kinds
/// (the config enum and its `kind` tag, the checked enum, event details, outputs, names, units, presets and
/// every dispatch) is generated from it. The variant's kebab-case name is the JSON tag and must equal the
/// experiment's [`Experiment::NAME`] (checked by a test).
macro_rules! registry {
    ($($v:ident => $e:ty),* $(,)?) => {
        /// The experiment kinds (the `kind` tag of a config).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(rename_all = "kebab-case")]
        pub enum Kind { $($v),* }

        impl Kind {
            pub const ALL: [Kind; [$(stringify!($v)),*].len()] = [$(Kind::$v),*];

            /// The kebab-case name (as in JSON).
            pub fn name(self) -> &'static str {
                match self { $(Kind::$v => <$e as Experiment>::NAME),* }
            }
            /// The unit of `done` / `total` in this kind's progress events.
            pub fn progress_unit(self) -> &'static str {
                match self { $(Kind::$v => <$e as Experiment>::UNIT),* }
            }
            /// The preset names of this kind (for help texts and the page's menus).
            pub fn preset_names(self) -> &'static [&'static str] {
                match self { $(Kind::$v => <$e as Experiment>::PRESETS),* }
            }
            /// The kind's name for people ([`Experiment::LABEL`]).
            pub fn label(self) -> &'static str {
                match self { $(Kind::$v => <$e as Experiment>::LABEL),* }
            }
            /// The page's panel that shows this kind ([`Experiment::PANEL`]).
            pub fn panel(self) -> &'static str {
                match self { $(Kind::$v => <$e as Experiment>::PANEL),* }
            }
            /// The config fields that panel sets ([`Experiment::PANEL_FIELDS`]).
            pub fn panel_fields(self) -> &'static [&'static str] {
                match self { $(Kind::$v => <$e as Experiment>::PANEL_FIELDS),* }
            }
            /// The JSON Schema of this kind's config (without `kind`; see [`crate::schema`]).
            #[cfg(feature = "schema")]
            pub fn config_schema(self, generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                match self { $(Kind::$v => generator.root_schema_for::<<$e as Experiment>::Config>()),* }
            }
        }

        impl Detail {
            /// See [`Experiment::message`].
            pub fn message(&self) -> Option<String> {
                match self { $(Detail::$v(d) => <$e as Experiment>::message(d)),* }
            }
            /// See [`Experiment::stage`].
            pub fn stage(&self) -> Option<Stage> {
                match self { $(Detail::$v(d) => <$e as Experiment>::stage(d)),* }
            }
            /// See [`Experiment::ends_round`].
            pub fn ends_round(&self) -> bool {
                match self { $(Detail::$v(d) => <$e as Experiment>::ends_round(d)),* }
            }
        }

        /// A config of any kind: the one JSON document (`{"kind": "hoag", ...the kind's fields}`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(tag = "kind", rename_all = "kebab-case")]
        #[allow(clippy::large_enum_variant)]
        pub enum ExperimentConfig { $($v(<$e as Experiment>::Config)),* }

        /// A checked experiment of any kind (obtained only from [`ExperimentConfig::check`]).
        pub enum Checked { $($v($e)),* }

        /// The typed detail of a progress event: the experiment kind's own event.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Detail { $($v(<$e as Experiment>::Detail)),* }

        /// The result of a complete run: the kind's own report.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        #[allow(clippy::large_enum_variant)]
        pub enum Output { $($v(<$e as Experiment>::Output)),* }

        impl Output {
            /// The plain-text table of a complete run of `config` ([`Experiment::table`]; empty when `config` is of
            /// another kind).
            pub fn table(&self, config: &ExperimentConfig) -> String {
                match (self, config) {
                    $((Output::$v(o), ExperimentConfig::$v(c)) => <$e as Experiment>::table(c, o),)*
                    #[allow(unreachable_patterns)]
                    _ => String::new(),
                }
            }
            /// Reads the result of a `kind` report back (see [`crate::report_file`]: `null` reads as NaN where a
            /// number is expected); the error names the path.
            pub fn from_value(kind: Kind, value: &serde_json::Value) -> std::result::Result<Self, String> {
                match kind { $(Kind::$v => crate::report_file::result_from_value(value).map(Output::$v)),* }
            }
        }

        impl ExperimentConfig {
            /// The built-in preset `name` of an experiment kind.
            pub fn preset(kind: Kind, name: &str) -> Result<Self> {
                let made = match kind { $(Kind::$v => <$e as Experiment>::preset(name).map(ExperimentConfig::$v)),* };
                made.map_err(|e| if kind.preset_names().contains(&name) { e } else { unknown_preset(kind, name) })
            }
            pub fn kind(&self) -> Kind {
                match self { $(ExperimentConfig::$v(_) => Kind::$v),* }
            }
            /// See [`Experiment::needs_mnist`].
            pub fn needs_mnist(&self) -> bool {
                match self { $(ExperimentConfig::$v(c) => <$e as Experiment>::needs_mnist(c)),* }
            }
            /// See [`Experiment::shipped`].
            pub fn shipped(&self) -> Vec<crate::data::Shipped> {
                match self { $(ExperimentConfig::$v(c) => <$e as Experiment>::shipped(c)),* }
            }
            /// Points the experiment at a CSV file (`--data FILE --label COL`), for the kinds that take user data.
            pub fn use_csv(&mut self, path: &str, label: &str, standardize: bool) -> Result<()> {
                match self { $(ExperimentConfig::$v(c) => <$e as Experiment>::use_csv(c, path, label, standardize)),* }
            }
            /// Overrides the seed (`--seed`).
            pub fn set_seed(&mut self, seed: u64) {
                match self { $(ExperimentConfig::$v(c) => <$e as Experiment>::set_seed(c, seed)),* }
            }
            /// Parses the body of a config of `kind` (the document without its tag), every value error with its
            /// path ([`crate::strict`]).
            pub(crate) fn parse_body(kind: Kind, body: &serde_json::Value) -> std::result::Result<Self, String> {
                match kind { $(Kind::$v => Ok(ExperimentConfig::$v(crate::strict::parse_located(body)?))),* }
            }
            /// Checks the config once into a [`Checked`] experiment.
            pub fn check(self) -> Result<Checked> {
                match self { $(ExperimentConfig::$v(c) => Ok(Checked::$v(<$e as Experiment>::check(c)?))),* }
            }
        }

        impl Checked {
            pub fn kind(&self) -> Kind {
                match self { $(Checked::$v(_) => Kind::$v),* }
            }
            /// The config as it will run (every default filled in).
            pub fn config(&self) -> ExperimentConfig {
                match self { $(Checked::$v(e) => ExperimentConfig::$v(e.config().clone())),* }
            }
            /// What the core computed from the config (see [`Experiment::summary`]), with its cost model as
            /// `cost` ([`Experiment::cost`]).
            pub fn summary(&self) -> serde_json::Value {
                let mut s = match self { $(Checked::$v(e) => e.summary()),* };
                if !s.is_object() {
                    s = serde_json::json!({});
                }
                s["cost"] = self.cost().to_json();
                s
            }
            /// The run's cost model (see [`Experiment::cost`]).
            pub fn cost(&self) -> cost::Cost {
                match self { $(Checked::$v(e) => e.cost()),* }
            }
            /// The user data this experiment needs, if any.
            pub fn data_request(&self) -> Option<DataRequest> {
                match self { $(Checked::$v(e) => e.data_request()),* }
            }
            /// The unit of `done` / `total` in progress events ([`Experiment::unit`]).
            pub fn progress_unit(&self) -> &'static str {
                match self { $(Checked::$v(e) => e.unit()),* }
            }
            fn run_kind(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, Detail), stop: &AtomicBool, rounds: executor::Rounds) -> Result<Output> {
                match self {
                    $(Checked::$v(e) => e.run_rounds(inputs, &mut |d, t, x| progress(d, t, Detail::$v(x)), stop, rounds).map(Output::$v)),*
                }
            }
        }
    };
}

registry! {
    Tune => tune::TuneExperiment,
    Compare => compare::CompareExperiment,
    Bandit => bandit::BanditExperiment,
    Hoag => hoag::HoagExperiment,
    LrSchedule => lr_schedule::LrExperiment,
    StepSize => step_size::StepExperiment,
    Tvo => tvo::TvoExperiment,
}

/// An unknown preset name: the kind's presets, and the nearest one when it is one or two edits away.
fn unknown_preset(kind: Kind, name: &str) -> Error {
    let names = kind.preset_names();
    let near = names
        .iter()
        .map(|n| (strsim::damerau_levenshtein(n, name), *n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 4))
        .min();
    let hint = match near {
        Some((_, n)) => format!("; did you mean '{n}'?"),
        None => String::new(),
    };
    Error::config(format!(
        "unknown {} preset '{name}'{hint} ({} presets: {})",
        kind.name(),
        kind.name(),
        names.join(", ")
    ))
}

impl Kind {
    /// The registry's description of this kind.
    pub fn info(self) -> KindInfo {
        KindInfo {
            name: self.name(),
            label: self.label(),
            unit: self.progress_unit(),
            presets: self.preset_names(),
            panel: self.panel(),
        }
    }

    /// Parses a kind name (the CLI's and the binding's `kind` argument).
    pub fn parse(name: &str) -> Result<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
            let near = Kind::ALL
                .into_iter()
                .map(|k| (strsim::damerau_levenshtein(k.name(), name), k.name()))
                .filter(|(d, _)| *d <= 2)
                .min();
            let hint = near.map(|(_, n)| format!("; did you mean '{n}'?")).unwrap_or_default();
            Error::config(format!(
                "unknown experiment kind '{name}'{hint} (known: {})",
                Kind::ALL.map(Kind::name).join(", ")
            ))
        })
    }
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
        // The JSON Schema an editor validates the file with (schemas/*.schema.json) is not a field.
        crate::strict::skip_schema_key(value);
        let obj = value.as_object_mut().ok_or_else(|| Error::config("a config must be a JSON object"))?;
        match (obj.get("kind"), default_kind) {
            (Some(serde_json::Value::String(k)), d) => {
                let k = Kind::parse(k)?;
                if let Some(d) = d.filter(|d| *d != k) {
                    return Err(Error::config(format!(
                        "this command runs '{}' experiments, the config says '{}'",
                        d.name(),
                        k.name()
                    )));
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
                )));
            }
        }
        parse_strict(value)
    }

    /// The preset names of a kind (for help texts and the page's menus).
    pub fn preset_names(kind: Kind) -> &'static [&'static str] {
        kind.preset_names()
    }
}

/// Parses an experiment config (a JSON object whose `kind` names a known kind) strictly. The kind's own
/// config is parsed without the tag, so serde_path_to_error sees its fields (the tagged `ExperimentConfig`
/// would buffer the whole document); unknown fields are then probed on the whole document.
fn parse_strict(value: &serde_json::Value) -> Result<ExperimentConfig> {
    let kind = Kind::parse(value.get("kind").and_then(serde_json::Value::as_str).unwrap_or_default())?;
    let mut body = value.clone();
    if let Some(obj) = body.as_object_mut() {
        obj.remove("kind");
    }
    let located = |e| Error::config(format!("config: {e}"));
    let typed = ExperimentConfig::parse_body(kind, &body).map_err(located)?;
    crate::strict::refuse_unknown(value, &typed).map_err(|e| Error::config(format!("config: {e}")))?;
    Ok(typed)
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
    /// The request of a `csv` (with a path) or `upload` source of a labelled table; label `y` by default.
    pub fn labelled(path: Option<&String>, label: &Option<String>) -> DataRequest {
        DataRequest { path: path.cloned(), label: label.clone().unwrap_or_else(|| "y".into()), format: DataFormat::Csv }
    }
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
            DataFormat::Svmlight => {
                Inputs { sparse: Some(data::sparse::parse_svmlight(text, None)?), ..Inputs::default() }
            }
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
    pub reference: Option<crate::experiments::compare::SavedReference>,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Ran to the end; `result` holds the kind's report.
    Complete,
    /// Stopped by the user; `reached` holds the progress events up to the stop.
    Stopped,
    /// Failed with an error (only in `finished` events: a failed run returns the error).
    Failed,
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
    /// The envelope's format version ([`crate::report_file::REPORT_FORMAT`]): a reader refuses a newer one.
    pub format: u32,
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
    /// Runs the experiment (see the module docs). A stop returns `Ok` with `status: stopped`; any other
    /// failure returns the error (after a `finished` event with `status: failed`).
    pub fn run(&self, inputs: Inputs, observer: &mut dyn FnMut(&Event), stop: &AtomicBool) -> Result<Report> {
        self.run_resumable(inputs, observer, stop, None, None)
    }

    /// [`Checked::run`] continuing a checkpoint (`resume`, written for this config) and handing a
    /// [`executor::Checkpoint`] to `checkpoint` after every round (the caller writes it). The report of a resumed
    /// run is the report of the run never stopped (timings aside).
    pub fn run_resumable(
        &self,
        inputs: Inputs,
        observer: &mut dyn FnMut(&Event),
        stop: &AtomicBool,
        resume: Option<&executor::Checkpoint>,
        checkpoint: Option<executor::OnCheckpoint<'_>>,
    ) -> Result<Report> {
        let config = serde_json::to_value(self.config()).map_err(|e| Error::config(e.to_string()))?;
        if let Some(c) = resume {
            if c.experiment_config()? != self.config() {
                return Err(Error::config("the checkpoint was written by a run of another config"));
            }
        }
        let mut save = checkpoint.map(|f| {
            move |rounds: usize, state: serde_json::Value| {
                f(&executor::Checkpoint {
                    format: executor::CHECKPOINT_FORMAT,
                    version: env!("CARGO_PKG_VERSION").into(),
                    config: config.clone(),
                    rounds,
                    state,
                })
            }
        });
        let rounds = executor::Rounds {
            resume: resume.map(|c| c.state.clone()),
            checkpoint: save.as_mut().map(|f| f as executor::OnRound),
        };
        if inputs.reference.is_some() && self.kind() != Kind::Compare {
            return Err(Error::config(format!(
                "a saved reference is an input of compare runs, not of {} runs",
                self.kind().name()
            )));
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
            self.run_kind(inputs, &mut progress, stop, rounds)
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
            format: crate::report_file::REPORT_FORMAT,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry's one list: each kind's JSON tag (the variant's kebab-case name) is its `NAME`, names
    /// parse back, and every listed preset builds.
    #[test]
    fn registry_names_tags_and_presets_agree() {
        for kind in Kind::ALL {
            let tag = serde_json::to_value(kind).unwrap();
            assert_eq!(tag.as_str(), Some(kind.name()), "{kind:?}");
            assert_eq!(Kind::parse(kind.name()).unwrap(), kind);
            assert!(!kind.preset_names().is_empty(), "{kind:?} lists no preset");
            for name in kind.preset_names() {
                let cfg =
                    ExperimentConfig::preset(kind, name).unwrap_or_else(|e| panic!("{}/{name}: {e}", kind.name()));
                assert_eq!(cfg.kind(), kind);
                let json = serde_json::to_value(&cfg).unwrap();
                assert_eq!(json["kind"].as_str(), Some(kind.name()));
            }
        }
        assert!(Kind::parse("no-such-kind").is_err());
    }
}
