//! The threaded WebAssembly build (feature `threads`): the rayon pool starts in a worker and really runs
//! work on more than one thread. Run with scripts/dev/test-wasm.sh (nightly + build-std, see wasm-threads.toml).
#![cfg(all(target_arch = "wasm32", feature = "threads"))]

use wasm_bindgen_test::*;

// Rayon blocks (Atomics.wait), which the browser forbids on the main thread: run the test in a worker.
wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// Starts the global pool once for the module (rayon has one global pool; the tests may run in any order).
async fn ensure_pool() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STARTED: AtomicBool = AtomicBool::new(false);
    if !STARTED.swap(true, Ordering::SeqCst) {
        wasm_bindgen_futures::JsFuture::from(tunelab_wasm::init_thread_pool(2)).await.expect("initThreadPool");
    }
}

#[wasm_bindgen_test]
async fn pool_starts_and_runs_on_several_threads() {
    ensure_pool().await;
    assert!(tunelab_wasm::threads_supported());
    assert_eq!(tunelab_wasm::num_threads(), 2);
    assert_eq!(rayon::current_num_threads(), 2);
    // Many small jobs: with two pool threads both must pick some up (work stealing), and every job
    // runs on a pool thread (index 0 or 1), never on the calling worker.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let ids = tunelab_wasm::probe_threads(512);
        assert_eq!(ids.len(), 512);
        assert!(ids.iter().all(|&t| t == 0 || t == 1), "{ids:?}");
        seen.extend(ids);
        if seen.len() > 1 {
            break;
        }
    }
    assert_eq!(seen.len(), 2, "only thread(s) {seen:?} ran jobs");
}

#[wasm_bindgen_test]
async fn a_tune_run_on_the_pool_matches_the_gradient_budget_schedule() {
    ensure_pool().await;
    let cfg = js_sys::JSON::parse(
        r#"{"kind":"tune","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},"model":{"kind":"logistic"},
        "sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},"batch":[0.1,0.05,0.02]},
        "tuner":{"kind":"mamba","eta":3},"budget":{"grad_evals":40000},"metric":{"kind":"ksd","max_samples":100},
        "thin":2,"seed":9}"#,
    )
    .unwrap();
    let noop = js_sys::Function::new_no_args("");
    let out = tunelab_wasm::run(cfg, None, &noop).expect("run on the pool");
    let envelope = js_sys::Reflect::get(&out, &"report".into()).unwrap();
    let report = js_sys::Reflect::get(&envelope, &"result".into()).unwrap();
    let rounds = js_sys::Array::from(&js_sys::Reflect::get(&report, &"rounds".into()).unwrap());
    // 9 arms, eta 3: two rounds of 9 and 3 arms.
    assert_eq!(rounds.length(), 2);
    let threads =
        js_sys::Reflect::get(&js_sys::Reflect::get(&report, &"compute".into()).unwrap(), &"threads".into()).unwrap();
    assert_eq!(threads.as_f64(), Some(2.0));
}
