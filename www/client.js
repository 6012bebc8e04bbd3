// The page side of the compute worker: picks the wasm flavour, starts the worker, sends typed requests and
// routes the worker's events. Cancel stops at once: the shared flag is raised when isolated (the core stops
// after its current chunk), and the worker is terminated and replaced if it has not answered within a moment
// (always, without isolation). The page stays usable and the next run works.
import { REQUEST, EVENT } from './protocol.js';

/** Which build this page can run: threads need cross-origin isolation (SharedArrayBuffer). */
export function detectFlavour() {
  const isolated = globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
  const cores = Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 16));
  return isolated ? { flavour: 'parallel', threads: cores, isolated } : { flavour: 'single', threads: 1, isolated };
}

export class ComputeClient {
  /**
   * @param {object} opts
   * @param {(info: {flavour: string, threads: number, version: string, fallback?: string}) => void} [opts.onReady]
   * @param {(msg: string) => void} [opts.onFatal] a message the page should show (worker crashed / restarted)
   * @param {'parallel'|'single'} [opts.flavour] force a flavour (default: detectFlavour())
   */
  constructor(opts = {}) {
    this.opts = opts;
    const det = detectFlavour();
    this.flavour = opts.flavour ?? det.flavour;
    this.threads = opts.threads ?? det.threads;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onProgress}
    this.info = null;
    this.fallback = null;
    this.idle = Promise.resolve(); // a cancelled run that is still stopping
    this.panicChannelName = `tunelab-panic-${Math.random().toString(36).slice(2)}`;
    this.panicChannel = new BroadcastChannel(this.panicChannelName);
    this.panicChannel.onmessage = (e) => {
      if (e.data?.type === 'panic') this.#crash(`the computation crashed (Rust panic): ${e.data.message}`, 'PanicError');
    };
    this.#spawn();
  }

  /** Resolves with {flavour, threads, version} once the worker is ready. */
  ready() { return this.readyPromise; }

  #spawn() {
    this.worker?.terminate();
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker = worker;
    this.info = null;
    this.readyPromise = new Promise((resolve, reject) => { this.readyResolve = resolve; this.readyReject = reject; });
    this.readyPromise.catch(() => {});
    worker.onmessage = (e) => this.#onMessage(worker, e.data);
    worker.onerror = (e) => {
      e.preventDefault?.();
      if (worker !== this.worker) return;
      const msg = e.message || 'the compute worker failed to load (see the browser console)';
      if (!this.info) this.#initFailed(msg);
      else this.#crash(`the compute worker stopped: ${msg}`, 'WorkerError');
    };
    worker.onmessageerror = () => {
      if (worker === this.worker) this.#crash('a message from the compute worker could not be read', 'ProtocolError');
    };
    worker.postMessage({ type: REQUEST.INIT, flavour: this.flavour, threads: this.threads, panicChannel: this.panicChannelName });
  }

  #initFailed(message) {
    if (this.flavour === 'parallel') {
      // Threads could not start (e.g. memory could not be shared): fall back to the single-threaded build.
      this.fallback = message;
      this.flavour = 'single';
      this.threads = 1;
      const { readyResolve, readyReject } = this;
      this.#spawn();
      this.readyPromise.then(readyResolve, readyReject);
      return;
    }
    this.readyReject(new Error(message));
    this.opts.onFatal?.(message);
  }

  /** The current request fails with `message`; a fresh worker is started. */
  #crash(message, name) {
    const err = Object.assign(new Error(message), { name });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.opts.onFatal?.(message);
    this.#spawn();
  }

  #onMessage(worker, msg) {
    if (worker !== this.worker) return; // a message from a worker that was replaced
    switch (msg?.type) {
      case EVENT.READY:
        this.info = { flavour: msg.flavour, threads: msg.threads, version: msg.version, fallback: this.fallback };
        this.readyResolve(this.info);
        this.opts.onReady?.(this.info);
        return;
      case EVENT.PROGRESS:
        this.pending.get(msg.id)?.onProgress?.(msg.events, msg.elapsed);
        return;
      case EVENT.RESULT: {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.resolve(msg.result);
        return;
      }
      case EVENT.ERROR: {
        if (msg.id == null && !this.info) { this.#initFailed(msg.message); return; }
        const err = Object.assign(new Error(msg.message), { name: msg.name });
        if (msg.fatal) { this.#crash(msg.message, msg.name); return; }
        if (msg.id == null) { this.opts.onFatal?.(msg.message); return; }
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.reject(err);
        return;
      }
      default:
        this.opts.onFatal?.(`unknown message from the compute worker: ${JSON.stringify(msg?.type)}`);
    }
  }

  /** Sends a request; resolves with its result, rejects with an Error carrying the worker's message. */
  async request(type, payload = {}, onProgress = null, transfer = [], onId = null) {
    await this.idle;
    await this.readyPromise;
    const id = this.nextId++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ type, id, ...payload }, transfer);
    });
  }

  previewCsv(text, label, standardize, model, rows = 8) {
    return this.request(REQUEST.PREVIEW_CSV, { text, label, standardize, model, rows });
  }

  compareConfigs(config) { return this.request(REQUEST.COMPARE_CONFIGS, { config }); }
  preset(name) { return this.request(REQUEST.PRESET, { name }); }
  normalizeConfig(config) { return this.request(REQUEST.NORMALIZE_CONFIG, { config }); }

  /**
   * Runs a tuning config. Returns {promise, cancel}. cancel() rejects the promise with a CancelledError at
   * once and leaves the client ready for the next run: requests sent meanwhile wait until the worker has
   * stopped (shared flag, within one chunk of work) or has been replaced (no flag, or no answer in 300 ms).
   */
  runTune(config, csv, onProgress) {
    return this.#runCancellable(REQUEST.RUN_TUNE, { config, csv }, onProgress);
  }

  /** Runs a bandit / HOAG / learning-rate-schedule config ({promise, cancel}, as runTune). */
  runRunner(runner, config, csv, label, onProgress) {
    return this.#runCancellable(REQUEST.RUN_RUNNER, { runner, config, csv, label }, onProgress);
  }

  /** GP-UCB choosing an SG-MCMC step size window by window ({promise, cancel}, as runTune). */
  runStepTune(config, onProgress) { return this.#runCancellable(REQUEST.RUN_STEP_TUNE, { config }, onProgress); }

  runnerPreset(runner, name) { return this.request(REQUEST.RUNNER_PRESET, { runner, name }); }
  /** A runner config validated by the core, with its defaults filled in (rejects with the core's message). */
  checkRunnerConfig(runner, config) { return this.request(REQUEST.CHECK_TUNER_CONFIG, { runner, config }); }

  #runCancellable(type, payload, onProgress) {
    const sab = this.info?.flavour === 'parallel' && typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(4) : null;
    let rejectRun;
    let id = null;
    const promise = new Promise((resolve, reject) => {
      rejectRun = reject;
      this.request(type, { ...payload, cancel: sab }, onProgress, [], (i) => { id = i; }).then(resolve, reject);
    });
    const cancel = () => {
      const err = Object.assign(new Error('stopped'), { name: 'CancelledError' });
      rejectRun(err);
      if (id == null || !this.pending.has(id)) return;
      const worker = this.worker;
      let settle;
      this.idle = new Promise((res) => { settle = res; });
      const entry = this.pending.get(id);
      const finish = () => { clearTimeout(timer); settle(); };
      // The worker's own answer (CancelledError from the core) ends the wait.
      entry.resolve = finish;
      entry.reject = finish;
      entry.onProgress = null;
      const hard = () => {
        if (this.worker === worker) {
          this.pending.delete(id);
          this.#spawn();
        }
        this.readyPromise.then(settle, settle);
      };
      let timer = null;
      if (sab) {
        Atomics.store(new Int32Array(sab), 0, 1);
        timer = setTimeout(hard, 300);
      } else hard();
    };
    return { promise, cancel };
  }

  probeThreads(tasks = 64) { return this.request(REQUEST.PROBE_THREADS, { tasks }); }
  bench(kind, params) { return this.request(REQUEST.BENCH, { kind, params }); }
  crashTest(what) { return this.request(REQUEST.CRASH_TEST, { what }); }

  terminate() { this.worker?.terminate(); this.panicChannel.close(); }
}
