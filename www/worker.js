// The compute worker: owns the wasm module and (threaded flavour) the rayon pool. The page only draws.
// Protocol: see protocol.js. One request runs at a time (the page queues nothing while a run is going;
// a cancel terminates this worker, or sets the shared cancel flag when the page is cross-origin isolated).
import { REQUEST, EVENT, PROGRESS_INTERVAL_MS, describeError } from './protocol.js';

let wasm = null;      // the wasm-bindgen module once initialised
let flavour = null;

const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

function postError(id, e, fatal = false) {
  let { name, message } = describeError(e);
  // A trap (Rust panic, out of memory) surfaces as a WebAssembly.RuntimeError: attach the panic message.
  if (e instanceof WebAssembly.RuntimeError || name === 'RuntimeError') {
    let panic = null;
    try { panic = wasm?.last_panic?.() ?? null; } catch { /* the instance may be unusable */ }
    message = panic ? `the computation crashed (Rust panic): ${panic}` : `the computation crashed: ${message}`;
    name = 'PanicError';
    fatal = true;
  }
  post({ type: EVENT.ERROR, id, name, message, fatal });
}

async function init({ flavour: wanted, threads, panicChannel }) {
  const url = wanted === 'parallel' ? '../pkg-parallel/tunelab.js' : '../pkg/tunelab.js';
  const mod = await import(url);
  await mod.default();
  if (panicChannel) mod.set_panic_channel(panicChannel);
  if (wanted === 'parallel') {
    if (!mod.threads_supported()) throw new Error('pkg-parallel was not built with threads');
    await mod.initThreadPool(threads);
  }
  wasm = mod;
  flavour = wanted;
  post({ type: EVENT.READY, flavour, threads: mod.num_threads(), version: mod.version() });
}

/** Forwards driver events, throttled: progress of the same arm is coalesced; a message at most every 100 ms. */
function makeObserver(id, cancelView, coalesce = true) {
  const t0 = performance.now();
  let buffer = [];
  let last = 0;
  const flush = () => {
    if (buffer.length === 0) return;
    post({ type: EVENT.PROGRESS, id, events: buffer, elapsed: (performance.now() - t0) / 1000 });
    buffer = [];
    last = performance.now();
  };
  const observer = (ev) => {
    if (coalesce && ev.type === 'progress') {
      // Progress events carry cumulative counters of every arm of the round: keep only the newest one.
      const i = buffer.findIndex((b) => b.type === 'progress');
      if (i >= 0) buffer.splice(i, 1);
      buffer.push(ev);
    } else {
      buffer.push(ev);
    }
    if (ev.type === 'done' || performance.now() - last >= PROGRESS_INTERVAL_MS) flush();
    // A truthy return value asks the core to stop at the end of the current chunk.
    return cancelView ? Atomics.load(cancelView, 0) !== 0 : false;
  };
  return { observer, flush };
}

function requireWasm() {
  if (!wasm) throw new Error('the compute module is not initialised yet');
  return wasm;
}

async function handle(msg) {
  switch (msg.type) {
    case REQUEST.INIT:
      try { await init(msg); } catch (e) {
        const { message } = describeError(e);
        post({ type: EVENT.ERROR, id: null, name: 'InitError', message: `could not start the ${msg.flavour} build: ${message}`, fatal: true });
      }
      return;
    case REQUEST.PREVIEW_CSV: {
      const w = requireWasm();
      const result = w.csv_preview(msg.text, msg.label ?? undefined, !!msg.standardize, msg.model ?? undefined, msg.rows ?? 8);
      post({ type: EVENT.RESULT, id: msg.id, result });
      return;
    }
    case REQUEST.RUN_TUNE: {
      const w = requireWasm();
      const cancelView = msg.cancel ? new Int32Array(msg.cancel) : null;
      const { observer, flush } = makeObserver(msg.id, cancelView);
      const t0 = performance.now();
      const result = w.tune(msg.config, msg.csv ?? undefined, observer);
      flush();
      result.worker_seconds = (performance.now() - t0) / 1000;
      const transfer = [result.samples.buffer];
      post({ type: EVENT.RESULT, id: msg.id, result }, transfer);
      return;
    }
    case REQUEST.COMPARE_CONFIGS:
      post({ type: EVENT.RESULT, id: msg.id, result: requireWasm().compare_configs(msg.config) });
      return;
    case REQUEST.PRESET:
      post({ type: EVENT.RESULT, id: msg.id, result: requireWasm().preset(msg.name) });
      return;
    case REQUEST.RUN_RUNNER: {
      const w = requireWasm();
      const cancelView = msg.cancel ? new Int32Array(msg.cancel) : null;
      // Every event of these runners carries new points (trace points, regret checkpoints): batch, never drop.
      const { observer, flush } = makeObserver(msg.id, cancelView, false);
      let result;
      switch (msg.runner) {
        case 'bandit': result = w.run_bandit(msg.config, msg.csv ?? undefined, observer); break;
        case 'hoag': result = w.run_hoag(msg.config, msg.csv ?? undefined, msg.label ?? undefined, observer); break;
        case 'lrsched': result = w.run_lrsched(msg.config, msg.csv ?? undefined, msg.label ?? undefined, observer); break;
        default: throw new Error(`unknown runner "${msg.runner}"`);
      }
      flush();
      post({ type: EVENT.RESULT, id: msg.id, result });
      return;
    }
    case REQUEST.RUNNER_PRESET:
      post({ type: EVENT.RESULT, id: msg.id, result: requireWasm().runner_preset(msg.runner, msg.name) });
      return;
    case REQUEST.NORMALIZE_CONFIG:
      post({ type: EVENT.RESULT, id: msg.id, result: requireWasm().normalize_config(msg.config) });
      return;
    case REQUEST.PROBE_THREADS: {
      const w = requireWasm();
      const ids = w.probe_threads(msg.tasks ?? 64);
      post({ type: EVENT.RESULT, id: msg.id, result: { threads: w.num_threads(), indices: Array.from(ids) } });
      return;
    }
    case REQUEST.BENCH: {
      const w = requireWasm();
      const p = msg.params ?? {};
      let ms;
      switch (msg.kind) {
        case 'ksd': ms = w.bench_ksd(p.n ?? 1000, p.d ?? 10, p.seed ?? 1); break;
        case 'sgld': ms = w.bench_sgld(p.n ?? 10000, p.d ?? 10, p.iters ?? 10000, p.batch ?? 0.01, p.chains ?? 1, p.seed ?? 1); break;
        default: throw new Error(`unknown benchmark "${msg.kind}"`);
      }
      post({ type: EVENT.RESULT, id: msg.id, result: { kind: msg.kind, ms, threads: w.num_threads(), flavour } });
      return;
    }
    case REQUEST.DENSITY_GRID: {
      const w = requireWasm();
      const result = w.density_grid(msg.model, msg.samples, msg.nx ?? 100, msg.ny ?? 100);
      post({ type: EVENT.RESULT, id: msg.id, result });
      return;
    }
    case REQUEST.CRASH_TEST: {
      const w = requireWasm();
      if (msg.what === 'panic') w.panic_for_test('deliberate panic for a test');
      else if (msg.what === 'error') w.error_for_test('data', 'deliberate data error for a test');
      else throw new Error('deliberate JS error for a test');
      return;
    }
    case REQUEST.RUN_STEP_TUNE: {
      const w = requireWasm();
      const { observer, flush } = makeObserver(msg.id, msg.cancel ? new Int32Array(msg.cancel) : null, false);
      const result = w.step_tune_run(msg.config, observer);
      flush();
      post({ type: EVENT.RESULT, id: msg.id, result });
      return;
    }
    case REQUEST.CHECK_TUNER_CONFIG: {
      const w = requireWasm();
      const check = { bandit: w.bandit_check, hoag: w.hoag_check, lrsched: w.lr_check, 'step-tune': w.step_tune_defaults }[msg.runner];
      if (!check) throw new Error(`unknown runner "${msg.runner}"`);
      post({ type: EVENT.RESULT, id: msg.id, result: check(msg.config) });
      return;
    }
    default:
      post({ type: EVENT.ERROR, id: msg?.id ?? null, name: 'ProtocolError', message: `unknown request type "${msg?.type}"`, fatal: false });
  }
}

self.addEventListener('message', async (e) => {
  const msg = e.data;
  // wasm-bindgen-rayon's helpers use their own message types on nested workers, never on this one.
  try {
    await handle(msg);
  } catch (err) {
    postError(msg?.id ?? null, err);
  }
});
self.addEventListener('messageerror', () => {
  post({ type: EVENT.ERROR, id: null, name: 'ProtocolError', message: 'a message from the page could not be read', fatal: false });
});
