//! WebAssembly bindings of the bandit, HOAG and learning-rate-schedule tuners (the page's panels, see
//! `www/panels/`). Same conventions as [`crate::wasm`]: configs and reports cross as plain JS objects
//! (serde-wasm-bindgen, JSON compatible), every [`crate::Error`] becomes a JS `Error` with the core's message
//! and a kind-specific `name`, and events go to a JS callback on the calling thread.
//!
//! Observer contract (all three runners): `on_event(event)` is called with each core event as a plain object
//! (tag `type`). A truthy return value asks the core to stop at its next check (between chunks of rounds,
//! outer iterations or intervals) and the call then throws a `CancelledError`; if `on_event` throws, the run
//! stops and that exception is rethrown.

use std::sync::atomic::{AtomicBool, Ordering};

use wasm_bindgen::prelude::*;

use crate::wasm::to_js_error;

fn to_js<T: serde::Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    let s = serde_wasm_bindgen::Serializer::json_compatible();
    v.serialize(&s).map_err(|e| to_js_error(crate::Error::config(e.to_string())))
}

fn from_js<T: serde::de::DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Err(to_js_error(crate::Error::config(format!("{what}: no configuration given"))));
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| to_js_error(crate::Error::config(format!("{what}: {e}"))))
}

/// Runs `body` with an observer that forwards events to `on_event` and turns a truthy answer into the cancel
/// flag; a JS exception thrown by `on_event` wins over the core's result.
fn with_observer<E, R>(
    on_event: &js_sys::Function,
    body: impl FnOnce(&mut dyn FnMut(&E), &AtomicBool) -> crate::Result<R>,
) -> Result<R, JsValue>
where
    E: serde::Serialize,
{
    let cancel = AtomicBool::new(false);
    let mut js_failure: Option<JsValue> = None;
    let result = {
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
        body(&mut observer, &cancel)
    };
    if let Some(e) = js_failure {
        return Err(e);
    }
    result.map_err(to_js_error)
}

/// Parses user CSV text for HOAG / lrsched (`label` column, default `y`).
fn parse_upload(text: Option<String>, label: Option<String>, standardize: bool) -> Result<Option<crate::data::Dataset>, JsValue> {
    match text {
        None => Ok(None),
        Some(t) => {
            let opts = crate::data::CsvOptions {
                label: label.unwrap_or_else(|| crate::data::CsvOptions::default().label),
                standardize,
            };
            crate::data::parse_csv(&t, &opts).map(Some).map_err(to_js_error)
        }
    }
}

// ------------------------------------------------------------------------------------------------ bandits

/// Runs a bandit comparison (`BanditConfig` JSON as a JS object); events `started` / `progress` / `done`
/// go to `on_event`. Returns the `BanditReport` as a plain object.
#[wasm_bindgen]
pub fn bandit_run(config: JsValue, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let cfg: crate::bandit::BanditConfig = from_js(config, "bandit config")?;
    let report = with_observer(on_event, |obs, cancel| crate::bandit::run(&cfg, obs, cancel))?;
    to_js(&report)
}

/// A bandit config as the core reads it: parsed, validated (the floor algorithm added to `algorithms`), with
/// every default filled in.
#[wasm_bindgen]
pub fn bandit_check(config: JsValue) -> Result<JsValue, JsValue> {
    let mut cfg: crate::bandit::BanditConfig = from_js(config, "bandit config")?;
    cfg.algorithms = cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}

/// The built-in bandit preset `name` (`beta-reservoir`, `tvo-schedule`, `branin`, `logreg-sgd`).
#[wasm_bindgen]
pub fn bandit_preset(name: &str) -> Result<JsValue, JsValue> {
    to_js(&crate::bandit::BanditConfig::preset(name).map_err(to_js_error)?)
}

// ------------------------------------------------------------------------------------------------ HOAG

/// Runs a HOAG comparison (`HoagConfig`); `csv_text` is the uploaded file for `data.source = "upload"`
/// (label column `data.label`, default `y`). Events `started` / `landscape` / `progress` / `method-done` /
/// `done` go to `on_event`. Returns the `HoagReport`.
#[wasm_bindgen]
pub fn hoag_run(config: JsValue, csv_text: Option<String>, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let cfg: crate::hoag::HoagConfig = from_js(config, "HOAG config")?;
    let data = match &cfg.data {
        crate::hoag::HoagData::Upload { label } => {
            if csv_text.is_none() {
                return Err(to_js_error(crate::Error::config("HOAG: data source 'upload' needs a CSV file")));
            }
            parse_upload(csv_text, label.clone(), false)?
        }
        _ => None,
    };
    let report = with_observer(on_event, |obs, cancel| crate::hoag::run_with_data(&cfg, data.as_ref(), obs, cancel))?;
    to_js(&report)
}

/// A HOAG config parsed, validated and written back with every default filled in.
#[wasm_bindgen]
pub fn hoag_check(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: crate::hoag::HoagConfig = from_js(config, "HOAG config")?;
    cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}

/// The built-in HOAG preset `name` (`logreg`, `kernel-ridge`).
#[wasm_bindgen]
pub fn hoag_preset(name: &str) -> Result<JsValue, JsValue> {
    to_js(&crate::hoag::HoagConfig::preset(name).map_err(to_js_error)?)
}

// ------------------------------------------------------------------------------------------------ lr schedules

/// Runs a learning-rate-schedule comparison (`LrConfig`); `csv_text` for `data.source = "upload"` (class
/// labels 0, 1, 2, ... in column `data.label`, default `y`). Events `started` / `method-done` /
/// `interval-done` / `done` go to `on_event`. Returns the `LrReport`.
#[wasm_bindgen]
pub fn lr_run(config: JsValue, csv_text: Option<String>, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let cfg: crate::lrsched::LrConfig = from_js(config, "lr-schedule config")?;
    let data = match &cfg.data {
        crate::lrsched::LrData::Upload { label } => {
            if csv_text.is_none() {
                return Err(to_js_error(crate::Error::config("lr-schedule: data source 'upload' needs a CSV file")));
            }
            parse_upload(csv_text, label.clone(), false)?
        }
        _ => None,
    };
    let report = with_observer(on_event, |obs, cancel| crate::lrsched::run_with_data(&cfg, data.as_ref(), obs, cancel))?;
    to_js(&report)
}

/// A learning-rate-schedule config parsed, validated and written back with every default filled in.
#[wasm_bindgen]
pub fn lr_check(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: crate::lrsched::LrConfig = from_js(config, "lr-schedule config")?;
    cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}

/// The built-in learning-rate-schedule preset `name` (`digits`, `digits-logreg`, `noisy-quadratic`).
#[wasm_bindgen]
pub fn lr_preset(name: &str) -> Result<JsValue, JsValue> {
    to_js(&crate::lrsched::LrConfig::preset(name).map_err(to_js_error)?)
}
