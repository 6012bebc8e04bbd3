//! WebAssembly bindings for the tuner panels (`www/panels/`) that complement the runners in [`crate::wasm`]
//! (`run_bandit`, `run_hoag`, `run_lrsched`, `runner_preset`): each `*_check` parses a config, validates it
//! the way the runner will and returns it with every default filled in, so the page can report a bad setting
//! before a run and show what the core will run. Errors become JS `Error`s with the core's message and a
//! kind-specific `name` ([`crate::wasm::to_js_error`]).

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

/// A bandit config as the core reads it: parsed, validated (the floor algorithm added to `algorithms`), with
/// every default filled in.
#[wasm_bindgen]
pub fn bandit_check(config: JsValue) -> Result<JsValue, JsValue> {
    let mut cfg: crate::bandit::BanditConfig = from_js(config, "bandit config")?;
    cfg.algorithms = cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}

/// A HOAG config parsed, validated and written back with every default filled in.
#[wasm_bindgen]
pub fn hoag_check(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: crate::hoag::HoagConfig = from_js(config, "HOAG config")?;
    cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}

/// A learning-rate-schedule config parsed, validated and written back with every default filled in.
#[wasm_bindgen]
pub fn lr_check(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: crate::lrsched::LrConfig = from_js(config, "lr-schedule config")?;
    cfg.validate().map_err(to_js_error)?;
    to_js(&cfg)
}
