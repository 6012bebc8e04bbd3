// The page side of the compute worker: picks the wasm flavour, starts the worker, sends typed requests and
// routes the worker's events. Cancel stops at once: the shared flag is raised when isolated (the core stops
// after its current chunk), and the worker is terminated and replaced if it has not answered within a moment
// (always, without isolation). The page stays usable and the next run works.
// A Rust panic on a rayon pool thread cannot reach the blocked worker: the panic hook posts it on a
// BroadcastChannel (one per worker instance) and the client fails the request and replaces the worker.
import { assertNever } from './protocol.js';

/** @typedef {import('./protocol.js').Request} Request */
/** @typedef {import('./protocol.js').IdRequest} IdRequest */
/** @typedef {import('./protocol.js').WorkerEvent} WorkerEvent */
/** @typedef {import('./protocol.js').ExperimentEvent} ExperimentEvent */
/** @typedef {import('./protocol.js').ExperimentConfig} ExperimentConfig */
/** @typedef {import('./protocol.js').RunResult} RunResult */
/** @typedef {{flavour: string, threads: number, version: string, fallback?: string|null}} RuntimeInfo */
/** @typedef {(events: ExperimentEvent[], elapsed: number) => void} OnProgress */
/** @typedef {{resolve: (v: any) => void, reject: (e: any) => void, onProgress: OnProgress|null}} Pending */
/** @typedef {{promise: Promise<RunResult>, cancel: () => void}} RunHandle */

/** Which build this page can run: threads need cross-origin isolation (SharedArrayBuffer). */
export function detectFlavour() {
  const isolated = globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
  const cores = Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 16));
  return isolated ? { flavour: /** @type {const} */ ('parallel'), threads: cores, isolated } : { flavour: /** @type {const} */ ('single'), threads: 1, isolated };
}

/** How long the threaded build may take to start its thread pool before the start is retried (ms; a normal start
 * takes well under a second). */
const THREAD_START_MS = 10_000;
/** An Error with a `name`. @param {string} message @param {string} name */
const named = (message, name, code = undefined) => Object.assign(new Error(message), { name }, code ? { code } : {});

export class ComputeClient {
  /**
   * @param {object} opts
   * @param {(info: RuntimeInfo) => void} [opts.onReady]
   * @param {(msg: string) => void} [opts.onFatal] a message the page should show (worker crashed / restarted)
   * @param {'parallel'|'single'} [opts.flavour] force a flavour (default: detectFlavour())
   * @param {number} [opts.threads]
   */
  constructor(opts = {}) {
    this.opts = opts;
    const det = detectFlavour();
    /** @type {'parallel'|'single'} */
    this.flavour = opts.flavour ?? det.flavour;
    this.threads = opts.threads ?? det.threads;
    this.nextId = 1;
    /** @type {Map<number, Pending>} */
    this.pending = new Map();
    /** @type {RuntimeInfo|null} */
    this.info = null;
    /** @type {string|null} */
    this.fallback = null;
    /** @type {Promise<unknown>} a cancelled run that is still stopping */
    this.idle = Promise.resolve();
    /** @type {Worker|null} */
    this.worker = null;
    /** @type {BroadcastChannel|null} */
    this.panicChannel = null;
    /** @type {Promise<RuntimeInfo>} */
    this.readyPromise = Promise.resolve(/** @type {any} */ (null));
    /** @type {(info: RuntimeInfo) => void} */
    this.readyResolve = () => {};
    /** @type {(e: Error) => void} */
    this.readyReject = () => {};
    /** Thread-pool starts that timed out (see 'starting-threads'). */
    this.threadStarts = 0;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.startTimer = undefined;
    this.#spawn();
  }

  /** Resolves with {flavour, threads, version} once the worker is ready. */
  ready() { return this.readyPromise; }

  #spawn() {
    this.worker?.terminate();
    // A fresh panic channel per worker: a late panic message from a replaced worker is not this one's crash.
    this.panicChannel?.close();
    const channelName = `tunelab-panic-${Math.random().toString(36).slice(2)}`;
    const channel = new BroadcastChannel(channelName);
    this.panicChannel = channel;
    channel.onmessage = (e) => {
      if (channel === this.panicChannel && e.data?.type === 'panic') this.#crash(`the computation crashed (Rust panic): ${e.data.message}`, 'PanicError');
    };
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
    this.#post({ type: 'init', flavour: this.flavour, threads: this.threads, panicChannel: channelName });
  }

  /** A fresh worker whose start settles the promise `ready()` already handed out. */
  #respawn() {
    const { readyResolve, readyReject } = this;
    this.#spawn();
    this.readyPromise.then(readyResolve, readyReject);
  }

  /** @param {Request} msg @param {Transferable[]} [transfer] */
  #post(msg, transfer = []) { this.worker?.postMessage(msg, transfer); }

  /** @param {string} message */
  #initFailed(message) {
    if (this.flavour === 'parallel') {
      // Threads could not start (e.g. memory could not be shared): fall back to the single-threaded build.
      this.fallback = message;
      this.flavour = 'single';
      this.threads = 1;
      this.#respawn();
      return;
    }
    this.readyReject(new Error(message));
    this.opts.onFatal?.(message);
  }

  /** The current request fails with `message`; a fresh worker is started. @param {string} message @param {string} name */
  #crash(message, name) {
    const err = named(message, name);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.opts.onFatal?.(message);
    this.#spawn();
  }

  /** @param {Worker} worker @param {WorkerEvent} msg */
  #onMessage(worker, msg) {
    if (worker !== this.worker) return; // a message from a worker that was replaced
    switch (msg?.type) {
      case 'starting-threads':
        // Firefox ESR on a loaded machine now and then never finishes starting the thread pool: the worker stays
        // silent after this message (measured 2026-11-29 with both cores busy: 1 start in 25 was not ready after
        // 20 s; with this watchdog 2 of 30 were restarted and ran threaded, scripts/dev/firefox-thread-start.mjs).
        // A start that takes longer than THREAD_START_MS is restarted once, then the single-threaded build is used.
        clearTimeout(this.startTimer);
        this.startTimer = setTimeout(() => {
          if (worker !== this.worker || this.info) return;
          console.warn(`tunelab: the thread pool did not start within ${THREAD_START_MS} ms (attempt ${this.threadStarts + 1})`);
          if (this.threadStarts++ < 1) {
            this.#respawn();
          } else {
            this.#initFailed(`the thread pool did not start within ${THREAD_START_MS / 1000} s`);
          }
        }, THREAD_START_MS);
        return;
      case 'ready':
        clearTimeout(this.startTimer);
        this.info = { flavour: msg.flavour, threads: msg.threads, version: msg.version, fallback: this.fallback };
        this.readyResolve(this.info);
        this.opts.onReady?.(this.info);
        return;
      case 'progress':
        this.pending.get(msg.id)?.onProgress?.(msg.events, msg.elapsed);
        return;
      case 'result': {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.resolve(msg.result);
        return;
      }
      case 'error': {
        if (msg.id == null && !this.info) { this.#initFailed(msg.message); return; }
        if (msg.fatal) { this.#crash(msg.message, msg.name); return; }
        if (msg.id == null) { this.opts.onFatal?.(msg.message); return; }
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.reject(named(msg.message, msg.name, msg.code));
        return;
      }
      default:
        try { assertNever(msg, 'message from the compute worker'); } catch (e) { this.opts.onFatal?.(/** @type {Error} */ (e).message); }
    }
  }

  /**
   * Sends a request (its id is added here); resolves with its result, rejects with an Error carrying the
   * worker's message.
   * @template {IdRequest['type']} T
   * @param {T} type
   * @param {Omit<Extract<IdRequest, {type: T}>, 'type'|'id'>} payload
   * @param {OnProgress|null} [onProgress]
   * @param {(id: number) => void} [onId]
   * @returns {Promise<any>}
   */
  async request(type, payload, onProgress = null, onId) {
    await this.idle;
    await this.readyPromise;
    const id = this.nextId++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.#post(/** @type {Request} */ (/** @type {unknown} */ ({ type, id, ...payload })));
    });
  }

  /** The config checked by the core, defaults filled in, with what the core computed from it (`summary`). @param {ExperimentConfig} config */
  check(config) { return this.request('check', { config }); }
  /** A core preset as a config with its kind. @param {import('./protocol.js').ExperimentKind} kind @param {string} name */
  preset(kind, name) { return this.request('preset', { kind, name }); }
  /** @param {import('./protocol.js').ExperimentKind} kind @returns {Promise<string[]>} */
  presetNames(kind) { return this.request('preset-names', { kind }); }

  /**
   * @param {string} text @param {string} label @param {boolean} standardize @param {any} model
   */
  previewCsv(text, label, standardize, model, rows = 8) {
    return this.request('preview-csv', { text, label, standardize, model, rows });
  }

  /**
   * Runs an experiment config of any kind. Returns {promise, cancel}: the promise resolves with
   * {report (the envelope), samples, dim}. cancel() rejects the promise with a CancelledError at once and
   * leaves the client ready for the next run: requests sent meanwhile wait until the worker has stopped
   * (shared flag, within one chunk of work) or has been replaced (no flag, or no answer in 300 ms).
   * @param {ExperimentConfig} config
   * @param {string|null} csv
   * @param {OnProgress|null} onProgress
   * @returns {RunHandle}
   */
  run(config, csv, onProgress) {
    const sab = this.info?.flavour === 'parallel' && typeof SharedArrayBuffer === 'function' ? new SharedArrayBuffer(4) : null;
    /** @type {(e: Error) => void} */
    let rejectRun = () => {};
    /** @type {number|null} */
    let id = null;
    let cancelled = false;
    /** @type {Promise<RunResult>} */
    const promise = new Promise((resolve, reject) => {
      rejectRun = reject;
      // Cancelled while still waiting for the worker: stop it as soon as the request is out.
      this.request('run', { config, csv, cancel: sab }, onProgress, (i) => { id = i; if (cancelled) setTimeout(cancel); }).then(resolve, reject);
    });
    const cancel = () => {
      cancelled = true;
      rejectRun(named('stopped', 'CancelledError'));
      const entry = id == null ? undefined : this.pending.get(id);
      if (id == null || !entry) return;
      const runId = id;
      const worker = this.worker;
      /** @type {(v?: unknown) => void} */
      let settle = () => {};
      this.idle = new Promise((res) => { settle = res; });
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let timer;
      const finish = () => { clearTimeout(timer); settle(); };
      // The worker's own answer (the stopped report) ends the wait.
      entry.resolve = finish;
      entry.reject = finish;
      entry.onProgress = null;
      const hard = () => {
        if (this.worker === worker) {
          this.pending.delete(runId);
          this.#spawn();
        }
        this.readyPromise.then(settle, settle);
      };
      if (sab) {
        Atomics.store(new Int32Array(sab), 0, 1);
        timer = setTimeout(hard, 300);
      } else hard();
    };
    return { promise, cancel };
  }

  /**
   * Opens a report file in the worker (read and parsed there; nothing runs): resolves with a run's result shape
   * plus what was left out over `fullBytes`; rejects with a `ReportError` whose `code` says why.
   * @param {Blob|string} source @param {number} fullBytes
   * @returns {Promise<import('./protocol.js').OpenedReport>}
   */
  openReport(source, fullBytes) { return this.request('open-report', { source, fullBytes }); }

  probeThreads(tasks = 64) { return this.request('probe-threads', { tasks }); }
  /** @param {'ksd'|'sgld'|'part'} kind @param {Record<string, number|string>} params (for 'part': {part, seed}, see src/benchkit.rs) */
  bench(kind, params) { return this.request('bench', { kind, params }); }
  /**
   * Parses and checks a lesson file with the core (src/lesson): the lesson and each step's checked config; a
   * LessonError's message is `file:line: message`. @param {string} name @param {string} text
   */
  lesson(name, text) { return this.request('lesson', { name, text }); }
  /** The outcomes of step `step`'s (0-based) expect lines against `report`. @param {string} name @param {string} text @param {number} step @param {any} report */
  lessonExpect(name, text, step, report) { return this.request('lesson-expect', { name, text, step, report }); }
  /** @param {import('./protocol.js').CrashWhat} what */
  crashTest(what) { return this.request('crash-test', { what }); }
  /** @param {any} model @param {Float64Array} samples */
  densityGrid(model, samples, nx = 120, ny = 120) { return this.request('density-grid', { model, samples, nx, ny }); }

  terminate() { this.worker?.terminate(); this.panicChannel?.close(); }
}
