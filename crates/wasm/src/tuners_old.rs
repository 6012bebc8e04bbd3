//! WebAssembly bindings for the tuner panels (`www/panels/`) that complement the runners in [`crate::wasm`]
//! (`run_bandit`, `run_hoag`, `run_lrsched`, `runner_preset`): each `*_check` parses a config, validates it
//! the way the runner will and returns it with every default filled in, so the page can report a bad setting
//! before a run and show what the core will run. Errors become JS `Error`s with the core's message and a
//! kind-specific `name` ([`crate::wasm::to_js_error`]).

use wasm_bindgen::prelude::*;

use crate::wasm::{from_js, run_observed, to_js, to_js_error};

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

/// Runs GP-UCB choosing the step size of one SG-MCMC chain window by window, against fixed step sizes
/// (`StepTuneConfig` JSON, every field optional; the CLI's `tunelab bandit --preset sgld-step` is `{}`).
/// Events `fixed-done` / `window` / `done` go to `on_event` (truthy return = cancel, a throw is rethrown).
/// Returns the `StepTuneReport`.
#[wasm_bindgen]
pub fn step_tune_run(config: JsValue, on_event: &js_sys::Function) -> Result<JsValue, JsValue> {
    let cfg: crate::bandit::sgmcmc_step::StepTuneConfig = from_js(config, "step-size config")?;
    run_observed(on_event, |obs, cancel| crate::bandit::sgmcmc_step::run_step_tuning(&cfg, obs, cancel))
}

/// The step-size config with every default filled in (parsing only; the run validates the values).
#[wasm_bindgen]
pub fn step_tune_defaults(config: JsValue) -> Result<JsValue, JsValue> {
    let cfg: crate::bandit::sgmcmc_step::StepTuneConfig = from_js(config, "step-size config")?;
    to_js(&cfg)
}
