//! `tunelab._core`: thin PyO3 bindings of the tunelab core (convert types and errors, nothing else). The
//! Python-facing API (keyword defaults, dicts, docs) is `python/tunelab/__init__.py`.
//!
//! - numpy arrays come in without copies (`PyReadonlyArray2<f64>` of C-contiguous float64; the Python layer
//!   calls `np.ascontiguousarray(x, dtype=np.float64)`, which copies only when the caller's array is not that);
//! - every computation releases the GIL (`Python::detach`);
//! - configs, events and reports cross as JSON text (the one serde document of the core; the Python layer
//!   turns them into dicts with `json.loads`);
//! - core errors become `tunelab.DataError` / `ConfigError` (also `ValueError`s), `NumericalError` (also a
//!   `RuntimeError`) or `IoError` (also an `OSError`), all `tunelab.TunelabError`, with the core's message. The
//!   classes are defined in Python (`python/tunelab/_errors.py`: each has two bases, which PyO3's
//!   `create_exception!` cannot give) and looked up here when an error is raised.

use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use tunelab::experiments::tune::asktell::{score_arm, AskTell, AskTellConfig};
use tunelab::experiments::{self, Event, ExperimentConfig, Inputs, Kind};
use tunelab::stein::{self, Estimator, FssdKernel, KernelScale, KsdOptions};
use tunelab::Error;

/// A core error as a Python exception carrying the core's message (what the CLI prints after `error: `): the
/// class of the same name in `tunelab._errors`.
fn py_err(e: Error) -> PyErr {
    let msg = e.to_string();
    let name = match e {
        Error::Data(_) => "DataError",
        Error::Config(_) => "ConfigError",
        Error::Numerical(_) => "NumericalError",
        Error::Io(_) => "IoError",
        Error::Cancelled => return PyKeyboardInterrupt::new_err(msg),
    };
    Python::attach(|py| {
        match py.import("tunelab._errors").and_then(|m| m.getattr(name)).and_then(|t| Ok(t.cast_into::<PyType>()?)) {
            Ok(ty) => PyErr::from_type(ty, msg),
            Err(e) => e,
        }
    })
}

fn json_err(e: serde_json::Error) -> PyErr {
    py_err(Error::config(e.to_string()))
}

/// Parses the keyword arguments of `tunelab.Mamba` (a JSON object the Python layer made of them); an error names
/// the keyword argument (`max_samples=`) in the user's terms, without the position in that JSON text (`at line 1
/// column 78` means nothing there).
fn parse_keywords(config: &str) -> PyResult<AskTellConfig> {
    let de = &mut serde_json::Deserializer::from_str(config);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().iter().next().map(|s| s.to_string()).filter(|k| !k.is_empty() && k != "?");
        let m = e.into_inner().to_string();
        let m = m.rsplit_once(" at line ").map_or(m.as_str(), |p| p.0);
        let what = match key {
            Some(k) => format!("the keyword argument {k}= of tunelab.Mamba"),
            None => "a keyword argument of tunelab.Mamba".into(),
        };
        py_err(Error::config(format!("{what}: {}", tunelab::strict::plain_types(m))))
    })
}

/// The row-major data of an `n x d` array without a copy (C-contiguous float64 only).
fn slice<'a>(a: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<(&'a [f64], usize, usize)> {
    let (n, d) = (a.shape()[0], a.shape()[1]);
    let s = a.as_slice().map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous float64 array")))?;
    Ok((s, n, d))
}

fn same_shape(x: (usize, usize), g: (usize, usize)) -> PyResult<()> {
    shape_check(x, g).map_err(py_err)
}

fn shape_check(x: (usize, usize), g: (usize, usize)) -> tunelab::Result<()> {
    if x != g {
        return Err(Error::data(format!(
            "samples have {} rows x {} columns but scores have {} rows x {} columns; the scores must be one gradient per sample",
            x.0, x.1, g.0, g.1
        )));
    }
    Ok(())
}

fn parse_scale(s: &str) -> PyResult<KernelScale> {
    match s {
        "fixed" => Ok(KernelScale::Fixed),
        "median" => Ok(KernelScale::Median),
        "median-precond" | "median_precond" => Ok(KernelScale::MedianPrecond),
        other => Err(py_err(Error::config(format!("unknown scale '{other}' (known: fixed, median, median-precond)")))),
    }
}

fn parse_estimator(s: &str) -> PyResult<Estimator> {
    match s {
        "v" | "V" => Ok(Estimator::V),
        "u" | "U" => Ok(Estimator::U),
        "linear" => Ok(Estimator::Linear),
        other => Err(py_err(Error::config(format!("unknown estimator '{other}' (known: v, u, linear)")))),
    }
}

/// KSD of samples with scores: `(ksd, ksd_sq, n, d, c)` (c: the kernel scale used, after the median heuristic).
#[pyfunction]
#[pyo3(signature = (samples, scores, c, beta, scale, estimator))]
fn ksd(
    py: Python<'_>,
    samples: PyReadonlyArray2<'_, f64>,
    scores: PyReadonlyArray2<'_, f64>,
    c: f64,
    beta: f64,
    scale: &str,
    estimator: &str,
) -> PyResult<(f64, f64, usize, usize, f64)> {
    let opts = KsdOptions { c, beta, scale: parse_scale(scale)?, estimator: parse_estimator(estimator)? };
    let (x, n, d) = slice(&samples, "samples")?;
    let (g, ng, dg) = slice(&scores, "scores")?;
    same_shape((n, d), (ng, dg))?;
    let v = py.detach(|| stein::ksd(x, g, d, &opts)).map_err(py_err)?;
    Ok((v.ksd, v.ksd_sq, v.n, v.d, v.c))
}

/// FSSD^2 (V- and U-statistics) at the given locations: `(fssd_sq, fssd_sq_u, j)`.
#[pyfunction]
#[pyo3(signature = (samples, scores, locations, gauss_sigma2=None, imq_c=None, imq_beta=None))]
fn fssd(
    py: Python<'_>,
    samples: PyReadonlyArray2<'_, f64>,
    scores: PyReadonlyArray2<'_, f64>,
    locations: PyReadonlyArray2<'_, f64>,
    gauss_sigma2: Option<f64>,
    imq_c: Option<f64>,
    imq_beta: Option<f64>,
) -> PyResult<(f64, f64, usize)> {
    let kernel = match (gauss_sigma2, imq_c, imq_beta) {
        (Some(s2), None, None) => FssdKernel::Gauss { sigma2: s2 },
        (None, Some(c), Some(beta)) => FssdKernel::Imq { c, beta },
        _ => return Err(py_err(Error::config("give either gauss_sigma2 or both imq_c and imq_beta"))),
    };
    let (x, n, d) = slice(&samples, "samples")?;
    let (g, ng, dg) = slice(&scores, "scores")?;
    same_shape((n, d), (ng, dg))?;
    let (v, _j, dv) = slice(&locations, "locations")?;
    if dv != d {
        return Err(py_err(Error::data(format!(
            "locations have {dv} columns but the samples have {d}; locations live in the sample space"
        ))));
    }
    let r = py.detach(|| stein::fssd(x, g, d, v, &kernel)).map_err(py_err)?;
    Ok((r.fssd_sq, r.fssd_sq_u, r.j))
}

/// The preset names of every kind, as JSON `{kind: [names]}`.
#[pyfunction]
fn presets() -> String {
    let m: serde_json::Map<String, serde_json::Value> = Kind::ALL
        .iter()
        .map(|k| (k.name().to_string(), serde_json::json!(ExperimentConfig::preset_names(*k))))
        .collect();
    serde_json::Value::Object(m).to_string()
}

/// Every kind of the core's registry (name, label, progress unit, presets, page panel), as a JSON list.
#[pyfunction]
fn kinds() -> String {
    serde_json::to_string(&Kind::ALL.map(Kind::info)).unwrap_or_default()
}

/// The preset `name` of `kind`, as a JSON config.
#[pyfunction]
fn preset(kind: &str, name: &str) -> PyResult<String> {
    let cfg = ExperimentConfig::preset(Kind::parse(kind).map_err(py_err)?, name).map_err(py_err)?;
    serde_json::to_string(&cfg).map_err(json_err)
}

/// The config (JSON) with its seed replaced (`--seed` of the CLI), for runs over seeds.
#[pyfunction]
fn with_seed(config: &str, seed: u64) -> PyResult<String> {
    let mut cfg = ExperimentConfig::from_json(config, None).map_err(py_err)?;
    cfg.set_seed(seed);
    serde_json::to_string(&cfg).map_err(json_err)
}

/// Checks a config: `{kind, config (defaults filled), summary, data, unit}` as JSON.
#[pyfunction]
fn check(config: &str) -> PyResult<String> {
    let checked = ExperimentConfig::from_json(config, None).and_then(|c| c.check()).map_err(py_err)?;
    Ok(serde_json::json!({
        "kind": checked.kind(),
        "config": checked.config(),
        "summary": checked.summary(),
        "data": checked.data_request(),
        "unit": checked.progress_unit(),
    })
    .to_string())
}

/// Runs a config (JSON text): `(report envelope as JSON text, pending exception or None, warnings)`. A stopped
/// run's envelope carries the `result` it reached (`tunelab::experiments::partial`); the warnings are the
/// core's advice about the data and the result (`tunelab::experiments::advice`), for `warnings.warn`.
///
/// The run goes on a Rust thread with the GIL released; this thread waits for its events, calls `progress`
/// with each event's JSON text (when given) and checks for signals (`Python::check_signals`) at least every
/// 50 ms. A signal's exception (Ctrl-C: KeyboardInterrupt) or an exception raised by `progress` sets the stop
/// flag: the run returns `status: "stopped"` with what it reached, and that first exception comes back next
/// to the stopped report for the Python layer to raise with the report attached (`tunelab.run`).
///
/// Data: `csv_path` points the config's data source at a CSV file (the CLI's `--data`; an error for a config
/// that reads no data); `csv_text` is the text of an upload and is an error unless the config's data source
/// is an upload.
///
/// `checkpoint`: a file the run's state is written to after every round (atomically); `resume`: a checkpoint
/// file to continue (written for this config): the report is the uninterrupted run's, bit for bit.
#[pyfunction]
#[pyo3(signature = (config, progress=None, csv_text=None, csv_path=None, label=None, threads=None, standardize=false, checkpoint=None, resume=None))]
#[allow(clippy::too_many_arguments, reason = "one argument per keyword of tunelab.run")]
fn run(
    py: Python<'_>,
    config: &str,
    progress: Option<Bound<'_, PyAny>>,
    csv_text: Option<String>,
    csv_path: Option<String>,
    label: Option<String>,
    threads: Option<usize>,
    standardize: bool,
    checkpoint: Option<String>,
    resume: Option<String>,
) -> PyResult<(String, Option<Py<PyAny>>, Vec<String>)> {
    let resume = resume.as_deref().map(experiments::executor::Checkpoint::read).transpose().map_err(py_err)?;
    let mut cfg = ExperimentConfig::from_json(config, None).map_err(py_err)?;
    if let Some(path) = &csv_path {
        cfg.use_csv(path, label.as_deref().unwrap_or("y"), standardize)
            .map_err(|e| py_err(Error::config(format!("data={path:?} is not used: {}", bare(&e)))))?;
    }
    let checked = cfg.check().map_err(py_err)?;
    let kind = checked.kind().name();
    let inputs = match (checked.data_request(), csv_text) {
        (Some(req), Some(text)) if req.path.is_none() => req.inputs(&text).map_err(py_err)?,
        (Some(req), Some(_)) => {
            return Err(py_err(Error::config(format!(
                "data= (a table) is not used: this {kind} config reads the file {:?}; pass data=PATH to run on another file, or make its data source an upload",
                req.path.unwrap_or_default()
            ))))
        }
        (None, Some(_)) => {
            return Err(py_err(Error::config(format!(
                "data= is not used: this {kind} config takes no uploaded data set (its data source is built in or simulated)"
            ))))
        }
        (Some(req), None) if req.path.is_some() => experiments::read_requested_inputs(&req).map_err(py_err)?,
        (Some(_), None) => {
            return Err(py_err(Error::config("the config asks for an uploaded data set: pass data= (a CSV path, CSV text, a DataFrame or an array)")))
        }
        (None, None) => Inputs::default(),
    };
    let mut warnings: Vec<String> = experiments::advice::data_warning(&checked.config(), &inputs).into_iter().collect();
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(py_err(Error::config("the keyword argument threads= must be at least 1")));
        }
        b = b.num_threads(t);
    }
    let pool = b.build().map_err(|e| py_err(Error::config(format!("thread pool: {e}"))))?;
    let stop = AtomicBool::new(false);
    let (tx, mut rx) = mpsc::channel::<String>();
    // The first exception of the callback or of a signal handler: it stops the run.
    let mut pending: Option<PyErr> = None;
    let mut callback_failed = false;
    let result = std::thread::scope(|s| {
        let (checked, stop, pool) = (&checked, &stop, &pool);
        let worker = s.spawn(move || {
            // A progress event in a phase with a progress of its own carries that phase as `stage` (the core's
            // `Detail::stage`: what, label, done, total, unit), so the progress bar needs no kind's details.
            let mut observer = |e: &Event| {
                let stage = match e {
                    Event::Progress { detail, .. } => detail.stage(),
                    _ => None,
                };
                let text = match (stage, serde_json::to_value(e)) {
                    (Some(st), Ok(mut v)) => {
                        v["stage"] = serde_json::json!(st);
                        Ok(v.to_string())
                    }
                    _ => serde_json::to_string(e),
                };
                if let Ok(text) = text {
                    let _ = tx.send(text);
                }
            };
            let mut save = checkpoint.as_deref().map(|path| move |c: &experiments::executor::Checkpoint| c.write(path));
            pool.install(|| {
                checked.run_resumable(
                    inputs,
                    &mut observer,
                    stop,
                    resume.as_ref(),
                    save.as_mut()
                        .map(|f| f as &mut dyn FnMut(&experiments::executor::Checkpoint) -> tunelab::Result<()>),
                )
            })
        });
        loop {
            // The receiver is Send but not Sync: move it into the GIL-free closure and back.
            let (msg, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match msg {
                Ok(text) => {
                    // After a signal the callback still sees the events up to `finished` (a bar closes);
                    // after its own exception it is not called again.
                    if let (Some(cb), false) = (&progress, callback_failed) {
                        if let Err(e) = cb.call1((text,)) {
                            callback_failed = true;
                            pending.get_or_insert(e);
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if let Err(e) = py.check_signals() {
                // Ctrl-C (KeyboardInterrupt): stop the run; the stopped report comes back with it (tunelab.run).
                pending.get_or_insert(e);
                stop.store(true, Ordering::SeqCst);
            }
        }
        py.detach(|| worker.join())
    });
    let result = match result {
        Ok(r) => r,
        Err(_) => return Err(PyException::new_err("the tunelab run panicked")),
    };
    let report = match (result, pending) {
        (Ok(r), pending) => {
            warnings.extend(experiments::advice::result_warnings(&r));
            let text = if r.status == experiments::Status::Stopped {
                serde_json::to_string(&experiments::partial::report_value(&r).map_err(json_err)?)
            } else {
                serde_json::to_string(&r)
            };
            (text.map_err(json_err)?, pending.map(|e| e.into_value(py).into_any()), warnings)
        }
        (Err(_), Some(e)) => return Err(e),
        (Err(e), None) => return Err(py_err(e)),
    };
    Ok(report)
}

/// A core error's message without the class prefix (`invalid configuration: `) it gets from `Display`.
fn bare(e: &Error) -> String {
    match e {
        Error::Data(m) | Error::Config(m) | Error::Numerical(m) | Error::Io(m) => m.clone(),
        Error::Cancelled => e.to_string(),
    }
}

/// MAMBA ask/tell for samplers written in Python (core: `tunelab::experiments::tune::asktell`). The Python class
/// `tunelab.Mamba` wraps it.
#[pyclass(name = "AskTell", module = "tunelab._core")]
struct PyAskTell {
    inner: AskTell,
}

#[pymethods]
impl PyAskTell {
    /// `config`: the JSON of `AskTellConfig` (`arms`, `budget`, `eta`, `kernel`, `precond_sd`, `c`, `beta`,
    /// `scale`, `estimator`, `max_samples`).
    #[new]
    fn new(config: &str) -> PyResult<Self> {
        let cfg = parse_keywords(config)?;
        Ok(Self { inner: AskTell::new(cfg).map_err(py_err)? })
    }

    /// `(round, arms, budget)` of the round to run, or `None` when finished.
    fn ask(&mut self) -> Option<(usize, Vec<usize>, f64)> {
        self.inner.ask().map(|a| (a.round, a.arms, a.budget))
    }

    /// `(score, rows scored)` of one arm's samples and scores under the run's kernel.
    fn score(
        &self,
        py: Python<'_>,
        samples: PyReadonlyArray2<'_, f64>,
        scores: PyReadonlyArray2<'_, f64>,
    ) -> PyResult<(f64, usize)> {
        let (x, n, d) = slice(&samples, "samples")?;
        let (g, ng, dg) = slice(&scores, "scores")?;
        same_shape((n, d), (ng, dg))?;
        let inner = &self.inner;
        py.detach(|| inner.score(x, g, d)).map_err(py_err)
    }

    /// Tells the round: a list of `(arm, samples, scores)`; returns the pruned arms.
    fn tell(
        &mut self,
        py: Python<'_>,
        results: Vec<(usize, PyReadonlyArray2<'_, f64>, PyReadonlyArray2<'_, f64>)>,
    ) -> PyResult<Vec<usize>> {
        let mut rows = Vec::with_capacity(results.len());
        let mut dim = None;
        for (arm, x, g) in &results {
            let (xs, n, d) = slice(x, "samples")?;
            let (gs, ng, dg) = slice(g, "scores")?;
            shape_check((n, d), (ng, dg)).map_err(|e| {
                py_err(match e {
                    Error::Data(m) => Error::Data(format!("arm {arm}: {m}")),
                    e => e,
                })
            })?;
            if dim.is_some_and(|d0| d0 != d) {
                return Err(py_err(Error::data(format!("arm {arm} has {d} columns, other arms {}", dim.unwrap_or(0)))));
            }
            dim = Some(d);
            rows.push((*arm, xs, gs));
        }
        let inner = &mut self.inner;
        py.detach(|| inner.tell(&rows, dim.unwrap_or(1))).map_err(py_err)
    }

    /// Tells the round's scores computed elsewhere (`[(arm, score)]`); returns the pruned arms.
    fn tell_scores(&mut self, scores: Vec<(usize, f64)>) -> PyResult<Vec<usize>> {
        self.inner.tell_scores(&scores).map_err(py_err)
    }

    /// Tells the round's `[(arm, score, rows)]` as returned by `score` (on workers); returns the pruned arms.
    fn tell_scored(&mut self, scored: Vec<(usize, f64, usize)>) -> PyResult<Vec<usize>> {
        self.inner.tell_scored(&scored).map_err(py_err)
    }

    /// The report so far (JSON text).
    fn report(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner.report()).map_err(json_err)
    }

    /// The planned rounds (JSON text).
    fn plan(&self) -> PyResult<String> {
        serde_json::to_string(self.inner.plan()).map_err(json_err)
    }

    /// The run's kernel (JSON text).
    fn kernel(&self) -> PyResult<String> {
        serde_json::to_string(self.inner.kernel()).map_err(json_err)
    }
}

/// `(score, rows)` of one arm under the kernel of an ask/tell config (JSON): what `AskTell.score` computes,
/// for workers that hold no `AskTell` (Ray tasks).
#[pyfunction]
fn score_arm_with(
    py: Python<'_>,
    config: &str,
    samples: PyReadonlyArray2<'_, f64>,
    scores: PyReadonlyArray2<'_, f64>,
) -> PyResult<(f64, usize)> {
    let cfg = parse_keywords(config)?;
    let kernel = cfg.kernel().map_err(py_err)?;
    let (x, n, d) = slice(&samples, "samples")?;
    let (g, ng, dg) = slice(&scores, "scores")?;
    same_shape((n, d), (ng, dg))?;
    py.detach(|| score_arm(&kernel, cfg.max_samples, x, g, d)).map_err(py_err)
}

/// Merges the bandit reports (JSON texts of the envelopes' `result`) of runs over disjoint `repeat_range`s
/// covering all repeats into the full run's report (JSON), the same bits as one run of all repeats.
#[pyfunction]
fn merge_bandit(py: Python<'_>, parts: Vec<String>) -> PyResult<String> {
    let reports: Vec<tunelab::experiments::bandit::BanditReport> = parts
        .iter()
        .map(|t| serde_json::from_str(t).map_err(|e| py_err(Error::config(format!("a bandit report: {e}")))))
        .collect::<PyResult<_>>()?;
    let merged = py.detach(|| tunelab::experiments::bandit::merge_reports(&reports)).map_err(py_err)?;
    serde_json::to_string(&merged).map_err(json_err)
}

#[pymodule]
#[pyo3(name = "_core")]
fn tunelab_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ksd, m)?)?;
    m.add_function(wrap_pyfunction!(fssd, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(preset, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(with_seed, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(score_arm_with, m)?)?;
    m.add_function(wrap_pyfunction!(merge_bandit, m)?)?;
    m.add_class::<PyAskTell>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
