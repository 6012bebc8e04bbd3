//! WebAssembly binding layer (wasm-bindgen). It converts types and errors and nothing else: every
//! computation lives in the pure core. Used by the page's worker (`www/worker.js`).
//!
//! Conventions:
//! - Every [`crate::Error`] becomes a JS `Error` whose `message` is the core's message and whose `name` says
//!   the kind (`DataError`, `ConfigError`, `NumericalError`, `CancelledError`, `IoError`).
//! - Configs and reports cross as plain JS objects (serde-wasm-bindgen); sample matrices and traces cross as
//!   `Float64Array` (row-major, with their shape alongside).
//! - A Rust panic is printed to the console by `console_error_panic_hook` and surfaces in JS as a
//!   `RuntimeError` (`unreachable`) thrown by the call; the worker reports it to the page.
//! - With the `threads` feature, `initThreadPool(n)` (from wasm-bindgen-rayon) starts the rayon pool.

use wasm_bindgen::prelude::*;

#[cfg(feature = "threads")]
pub use wasm_bindgen_rayon::init_thread_pool;

/// Converts a core error into a JS `Error` with the core's message and a kind-specific `name`.
pub fn to_js_error(e: crate::Error) -> JsValue {
    let name = match &e {
        crate::Error::Data(_) => "DataError",
        crate::Error::Config(_) => "ConfigError",
        crate::Error::Numerical(_) => "NumericalError",
        crate::Error::Cancelled => "CancelledError",
        crate::Error::Io(_) => "IoError",
    };
    let err = js_sys::Error::new(&e.to_string());
    err.set_name(name);
    err.into()
}

fn ser_err(e: serde_wasm_bindgen::Error) -> JsValue {
    to_js_error(crate::Error::config(e.to_string()))
}

/// Serialises a value to a plain JS object (maps as objects, u64 as numbers).
fn to_js<T: serde::Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
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

/// Returns a core error of the given kind (to test the error conversion).
#[wasm_bindgen]
pub fn error_for_test(kind: &str, msg: &str) -> Result<(), JsValue> {
    let e = match kind {
        "data" => crate::Error::data(msg),
        "config" => crate::Error::config(msg),
        "numerical" => crate::Error::numerical(msg),
        "cancelled" => crate::Error::Cancelled,
        _ => crate::Error::Io(msg.to_string()),
    };
    Err(to_js_error(e))
}

/// Round-trips a `Float64Array` through Rust (`x -> a*x + b`), to test the typed-array conversion.
#[wasm_bindgen]
pub fn affine_f64(xs: &[f64], a: f64, b: f64) -> Vec<f64> {
    xs.iter().map(|x| a * x + b).collect()
}

#[allow(dead_code)]
fn _assert_to_js_compiles() -> Result<JsValue, JsValue> {
    to_js(&[1.0f64])
}
