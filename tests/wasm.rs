//! Browser tests of the binding layer (src/wasm.rs), single-threaded build:
//! `wasm-pack test --headless --chrome . --test wasm` (see scripts/test-wasm.sh).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn js_error(v: JsValue) -> js_sys::Error {
    v.dyn_into::<js_sys::Error>().expect("a JS Error object")
}

#[wasm_bindgen_test]
fn every_core_error_becomes_a_js_error_with_its_message_and_kind() {
    for (kind, name, prefix) in [
        ("data", "DataError", "data error: "),
        ("config", "ConfigError", "invalid configuration: "),
        ("numerical", "NumericalError", "numerical failure: "),
        ("io", "IoError", "I/O error: "),
    ] {
        let e = js_error(tunelab::wasm::error_for_test(kind, "row 3, column \"x2\": not a number").unwrap_err());
        assert_eq!(String::from(e.name()), name);
        assert_eq!(String::from(e.message()), format!("{prefix}row 3, column \"x2\": not a number"));
    }
    let e = js_error(tunelab::wasm::to_js_error(tunelab::Error::Cancelled));
    assert_eq!(String::from(e.name()), "CancelledError");
    assert_eq!(String::from(e.message()), "cancelled");
}

#[wasm_bindgen_test]
fn version_and_single_threaded_flavour() {
    assert_eq!(tunelab::wasm::version(), env!("CARGO_PKG_VERSION"));
    assert!(!tunelab::wasm::threads_supported());
    assert_eq!(tunelab::wasm::num_threads(), 1);
    // Without threads rayon runs every job on the calling thread: one distinct index at most.
    let ids = tunelab::wasm::probe_threads(16);
    assert_eq!(ids.len(), 16);
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "{ids:?}");
}
