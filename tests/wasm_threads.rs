//! The threaded WebAssembly build (feature `threads`): the rayon pool starts in a worker and really runs
//! work on more than one thread. Run with scripts/test-wasm.sh (nightly + build-std, see wasm-threads.toml).
#![cfg(all(target_arch = "wasm32", feature = "threads"))]

use wasm_bindgen_test::*;

// Rayon blocks (Atomics.wait), which the browser forbids on the main thread: run the test in a worker.
wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
async fn pool_starts_and_runs_on_several_threads() {
    wasm_bindgen_futures::JsFuture::from(tunelab::wasm::init_thread_pool(2)).await.expect("initThreadPool");
    assert!(tunelab::wasm::threads_supported());
    assert_eq!(tunelab::wasm::num_threads(), 2);
    assert_eq!(rayon::current_num_threads(), 2);
    // Many small jobs: with two pool threads both must pick some up (work stealing), and every job
    // runs on a pool thread (index 0 or 1), never on the calling worker.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let ids = tunelab::wasm::probe_threads(512);
        assert_eq!(ids.len(), 512);
        assert!(ids.iter().all(|&t| t == 0 || t == 1), "{ids:?}");
        seen.extend(ids);
        if seen.len() > 1 {
            break;
        }
    }
    assert_eq!(seen.len(), 2, "only thread(s) {seen:?} ran jobs");
}
