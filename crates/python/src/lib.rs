//! `tunelab._core`: thin PyO3 bindings of the tunelab core (convert types and errors, nothing else). The
//! Python-facing API (keyword defaults, dicts, docs) is `python/tunelab/__init__.py`.
//!
//! - numpy arrays come in without copies (`PyReadonlyArray2<f64>` of C-contiguous float64; the Python layer
//!   calls `np.ascontiguousarray(x, dtype=np.float64)`, which copies only when the caller's array is not that);
//! - every computation releases the GIL (`Python::detach`);
//! - configs, events and reports cross as JSON text (the one serde document of the core; the Python layer
//!   turns them into dicts with `json.loads`);
//! - core errors become `tunelab.DataError` / `ConfigError` / `NumericalError` / `IoError` (subclasses of
//!   `tunelab.TunelabError`) with the core's message.

use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use tunelab::experiments::{self, Event, ExperimentConfig, Inputs, Kind};
use tunelab::stein::{self, Estimator, FssdKernel, KernelScale, KsdOptions};
use tunelab::experiments::tune::asktell::{score_arm, AskTell, AskTellConfig};
use tunelab::Error;

create_exception!(tunelab, TunelabError, PyException, "An error reported by the tunelab core.");
create_exception!(tunelab, DataError, TunelabError, "A problem with data (shapes, files, values).");
create_exception!(tunelab, ConfigError, TunelabError, "A configuration value is missing, out of range or inconsistent.");
create_exception!(tunelab, NumericalError, TunelabError, "A numerical failure that could not be recovered from.");
create_exception!(tunelab, IoError, TunelabError, "Reading or writing a file failed.");

/// A core error as a Python exception carrying the core's message (what the CLI prints after `error: `).
fn py_err(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Data(_) => DataError::new_err(msg),
        Error::Config(_) => ConfigError::new_err(msg),
        Error::Numerical(_) => NumericalError::new_err(msg),
        Error::Io(_) => IoError::new_err(msg),
        Error::Cancelled => pyo3::exceptions::PyKeyboardInterrupt::new_err(msg),
    }
}

fn json_err(e: serde_json::Error) -> PyErr { py_err(Error::config(e.to_string())) }

/// The row-major data of an `n x d` array without a copy (C-contiguous float64 only).
fn slice<'a>(a: &'a PyReadonlyArray2<'_, f64>, name: &str) -> PyResult<(&'a [f64], usize, usize)> {
    let (n, d) = (a.shape()[0], a.shape()[1]);
    let s = a.as_slice().map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous float64 array")))?;
    Ok((s, n, d))
}

fn same_shape(x: (usize, usize), g: (usize, usize)) -> PyResult<()> {
    if x != g {
        return Err(py_err(Error::data(format!(
            "samples have {} rows x {} columns but scores have {} rows x {} columns; the scores must be one gradient per sample",
            x.0, x.1, g.0, g.1
        ))));
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
        return Err(py_err(Error::data(format!("locations have {dv} columns but the samples have {d}; locations live in the sample space"))));
    }
    let r = py.detach(|| stein::fssd(x, g, d, v, &kernel)).map_err(py_err)?;
    Ok((r.fssd_sq, r.fssd_sq_u, r.j))
}

/// The preset names of every kind, as JSON `{kind: [names]}`.
#[pyfunction]
fn presets() -> String {
    let m: serde_json::Map<String, serde_json::Value> =
        Kind::ALL.iter().map(|k| (k.name().to_string(), serde_json::json!(ExperimentConfig::preset_names(*k)))).collect();
    serde_json::Value::Object(m).to_string()
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

/// Runs a config (JSON text) and returns the report envelope (JSON text).
///
/// The run goes on a Rust thread with the GIL released; this thread waits for its events, calls `progress`
/// with each event's JSON text (when given) and checks for signals (`Python::check_signals`) at least every
/// 50 ms. Ctrl-C (KeyboardInterrupt) or an exception raised by `progress` sets the stop flag: the run returns
/// `status: "stopped"` with what it reached. After a KeyboardInterrupt the stopped report is returned; an
/// exception of `progress` is raised once the run has stopped.
#[pyfunction]
#[pyo3(signature = (config, progress=None, csv_text=None, csv_path=None, label=None, threads=None))]
fn run(
    py: Python<'_>,
    config: &str,
    progress: Option<Bound<'_, PyAny>>,
    csv_text: Option<String>,
    csv_path: Option<String>,
    label: Option<String>,
    threads: Option<usize>,
) -> PyResult<String> {
    let mut cfg = ExperimentConfig::from_json(config, None).map_err(py_err)?;
    if let Some(path) = &csv_path {
        cfg.use_csv(path, label.as_deref().unwrap_or("y"), false).map_err(py_err)?;
    }
    let checked = cfg.check().map_err(py_err)?;
    let inputs = match (checked.data_request(), csv_text) {
        (Some(req), Some(text)) => req.inputs(&text).map_err(py_err)?,
        (Some(req), None) if req.path.is_some() => experiments::read_requested_inputs(&req).map_err(py_err)?,
        (Some(_), None) => {
            return Err(py_err(Error::config("the config asks for an uploaded data set: pass data=CSV_TEXT or csv=PATH")))
        }
        (None, _) => Inputs::default(),
    };
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(py_err(Error::config("threads must be at least 1")));
        }
        b = b.num_threads(t);
    }
    let pool = b.build().map_err(|e| py_err(Error::config(format!("thread pool: {e}"))))?;
    let stop = AtomicBool::new(false);
    let (tx, mut rx) = mpsc::channel::<String>();
    let mut callback_error: Option<PyErr> = None;
    let result = std::thread::scope(|s| {
        let (checked, stop, pool) = (&checked, &stop, &pool);
        let worker = s.spawn(move || {
            let mut observer = |e: &Event| {
                if let Ok(text) = serde_json::to_string(e) {
                    let _ = tx.send(text);
                }
            };
            pool.install(|| checked.run(inputs, &mut observer, stop))
        });
        loop {
            // The receiver is Send but not Sync: move it into the GIL-free closure and back.
            let (msg, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match msg {
                Ok(text) => {
                    if let (Some(cb), None) = (&progress, &callback_error) {
                        if let Err(e) = cb.call1((text,)) {
                            callback_error = Some(e);
                            stop.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if py.check_signals().is_err() {
                // KeyboardInterrupt: stop the run; it returns the stopped report (documented in tunelab.run).
                stop.store(true, Ordering::SeqCst);
            }
        }
        py.detach(|| worker.join())
    });
    let result = match result {
        Ok(r) => r,
        Err(_) => return Err(PyException::new_err("the tunelab run panicked")),
    };
    if let Some(e) = callback_error {
        return Err(e);
    }
    let report = match result {
        Ok(r) => r,
        Err(Error::Cancelled) => return Err(py_err(Error::Cancelled)),
        Err(e) => return Err(py_err(e)),
    };
    serde_json::to_string(&report).map_err(json_err)
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
        let cfg: AskTellConfig = serde_json::from_str(config).map_err(|e| py_err(Error::config(e.to_string())))?;
        Ok(Self { inner: AskTell::new(cfg).map_err(py_err)? })
    }

    /// `(round, arms, budget)` of the round to run, or `None` when finished.
    fn ask(&mut self) -> Option<(usize, Vec<usize>, f64)> { self.inner.ask().map(|a| (a.round, a.arms, a.budget)) }

    /// `(score, rows scored)` of one arm's samples and scores under the run's kernel.
    fn score(&self, py: Python<'_>, samples: PyReadonlyArray2<'_, f64>, scores: PyReadonlyArray2<'_, f64>) -> PyResult<(f64, usize)> {
        let (x, n, d) = slice(&samples, "samples")?;
        let (g, ng, dg) = slice(&scores, "scores")?;
        same_shape((n, d), (ng, dg))?;
        let inner = &self.inner;
        py.detach(|| inner.score(x, g, d)).map_err(py_err)
    }

    /// Tells the round: a list of `(arm, samples, scores)`; returns the pruned arms.
    fn tell(&mut self, py: Python<'_>, results: Vec<(usize, PyReadonlyArray2<'_, f64>, PyReadonlyArray2<'_, f64>)>) -> PyResult<Vec<usize>> {
        let mut rows = Vec::with_capacity(results.len());
        let mut dim = None;
        for (arm, x, g) in &results {
            let (xs, n, d) = slice(x, "samples")?;
            let (gs, ng, dg) = slice(g, "scores")?;
            same_shape((n, d), (ng, dg)).map_err(|e| DataError::new_err(format!("arm {arm}: {e}")))?;
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
    fn tell_scores(&mut self, scores: Vec<(usize, f64)>) -> PyResult<Vec<usize>> { self.inner.tell_scores(&scores).map_err(py_err) }

    /// Tells the round's `[(arm, score, rows)]` as returned by `score` (on workers); returns the pruned arms.
    fn tell_scored(&mut self, scored: Vec<(usize, f64, usize)>) -> PyResult<Vec<usize>> { self.inner.tell_scored(&scored).map_err(py_err) }

    /// The report so far (JSON text).
    fn report(&self) -> PyResult<String> { serde_json::to_string(&self.inner.report()).map_err(json_err) }

    /// The planned rounds (JSON text).
    fn plan(&self) -> PyResult<String> { serde_json::to_string(self.inner.plan()).map_err(json_err) }

    /// The run's kernel (JSON text).
    fn kernel(&self) -> PyResult<String> { serde_json::to_string(self.inner.kernel()).map_err(json_err) }
}

/// `(score, rows)` of one arm under the kernel of an ask/tell config (JSON): what `AskTell.score` computes,
/// for workers that hold no `AskTell` (Ray tasks).
#[pyfunction]
fn score_arm_with(py: Python<'_>, config: &str, samples: PyReadonlyArray2<'_, f64>, scores: PyReadonlyArray2<'_, f64>) -> PyResult<(f64, usize)> {
    let cfg: AskTellConfig = serde_json::from_str(config).map_err(|e| py_err(Error::config(e.to_string())))?;
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
    let reports: Vec<tunelab::experiments::bandit::BanditReport> =
        parts.iter().map(|t| serde_json::from_str(t).map_err(|e| py_err(Error::config(format!("a bandit report: {e}"))))).collect::<PyResult<_>>()?;
    let merged = py.detach(|| tunelab::experiments::bandit::merge_reports(&reports)).map_err(py_err)?;
    serde_json::to_string(&merged).map_err(json_err)
}

#[pymodule]
#[pyo3(name = "_core")]
fn tunelab_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TunelabError", py.get_type::<TunelabError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("NumericalError", py.get_type::<NumericalError>())?;
    m.add("IoError", py.get_type::<IoError>())?;
    m.add_function(wrap_pyfunction!(ksd, m)?)?;
    m.add_function(wrap_pyfunction!(fssd, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
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
