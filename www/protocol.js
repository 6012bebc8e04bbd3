// The typed message protocol between the page (www/client.js) and the compute worker (www/worker.js).
// Every message is a plain object with a `type` tag (a discriminated union); both sides switch on it
// exhaustively (`assertNever` in the default branch) and report an unknown tag as an error.
// Experiments cross as ONE config with a `kind` (the core's contract, src/experiments/mod.rs): the worker calls
// the binding's `run`, `check`, `preset` and `preset_names`, and nothing else for experiments.

/** @typedef {import('./kinds.js').ExperimentKind} ExperimentKind  the core's kinds (www/kinds.js, generated) */
/** @typedef {{kind: ExperimentKind} & Record<string, any>} ExperimentConfig  one config document with its kind */
/** @typedef {'parallel'|'single'} Flavour */
/** @typedef {'panic'|'pool-panic'|'error'|'throw'} CrashWhat */

/**
 * The core's report envelope.
 * @typedef {object} Envelope
 * @property {number} [format] the envelope's format version (src/report_file.rs REPORT_FORMAT)
 * @property {ExperimentKind} kind
 * @property {'complete'|'stopped'} status
 * @property {ExperimentConfig} config
 * @property {{wall_seconds: number, threads: number, done: number, total: number, unit: string}|null} compute
 * @property {any} result  the kind's report (null when stopped)
 * @property {any[]} [reached]
 */

/**
 * One event of the core's vocabulary (`run`'s onEvent).
 * @typedef {{type: 'started', kind: ExperimentKind, summary: any}
 *   | {type: 'progress', done: number, total: number, detail: {type: string} & Record<string, any>}
 *   | {type: 'finished', status: 'complete'|'stopped', seconds: number}} ExperimentEvent
 */

/** @typedef {{report: Envelope, samples: Float64Array, dim: number, warnings?: string[], worker_seconds?: number}} RunResult */
/** @typedef {{kind: ExperimentKind, config: ExperimentConfig, summary: any, data: {path: string|null, label: string}|null, unit: string}} CheckResult */

// ------------------------------------------------------------------------------------------------ requests

/** @typedef {{type: 'init', flavour: Flavour, threads: number, panicChannel: string}} InitRequest */
/** @typedef {{type: 'check', id: number, config: ExperimentConfig}} CheckRequest */
/** @typedef {{type: 'preset', id: number, kind: ExperimentKind, name: string}} PresetRequest */
/** @typedef {{type: 'preset-names', id: number, kind: ExperimentKind}} PresetNamesRequest */
/** @typedef {{type: 'run', id: number, config: ExperimentConfig, csv?: string|null, cancel?: SharedArrayBuffer|null}} RunRequest */
/** @typedef {{type: 'preview-csv', id: number, text: string, label: string, standardize: boolean, model: any, rows: number}} PreviewCsvRequest */
/** @typedef {{type: 'density-grid', id: number, model: any, samples: Float64Array, nx: number, ny: number}} DensityGridRequest */
/** @typedef {{type: 'probe-threads', id: number, tasks: number}} ProbeThreadsRequest */
/** @typedef {{type: 'bench', id: number, kind: 'ksd'|'sgld'|'part', params: Record<string, number|string>}} BenchRequest */
/** @typedef {{type: 'crash-test', id: number, what: CrashWhat}} CrashTestRequest */
/** @typedef {{type: 'lesson', id: number, name: string, text: string}} LessonRequest  parse and check a lesson file (src/lesson) */
/** @typedef {{type: 'lesson-expect', id: number, name: string, text: string, step: number, report: any}} LessonExpectRequest  a step's expect lines against a report */
/**
 * A report file to open (www/shared/open-report.js): the file itself (read in the worker) or its text; a text
 * longer than `fullBytes` is read without its samples. Nothing runs.
 * @typedef {{type: 'open-report', id: number, source: Blob|string, fullBytes: number}} OpenReportRequest
 */
/**
 * What `open-report` returns: a run's result shape (the envelope, a tune report's chosen samples as a typed array)
 * with what was left out over the size limit and the text's length.
 * @typedef {RunResult & {dropped: {path: string, parts: number, values: number}[], bytes: number}} OpenedReport
 */
/**
 * @typedef {InitRequest|CheckRequest|PresetRequest|PresetNamesRequest|RunRequest|PreviewCsvRequest
 *   |DensityGridRequest|ProbeThreadsRequest|BenchRequest|CrashTestRequest|LessonRequest|LessonExpectRequest|OpenReportRequest} Request
 */
/** @typedef {Exclude<Request, InitRequest>} IdRequest  every request but init carries an id */

// ------------------------------------------------------------------------------------------------ events

/** @typedef {{type: 'ready', flavour: Flavour, threads: number, version: string}} ReadyEvent */
/** @typedef {{type: 'progress', id: number, events: ExperimentEvent[], elapsed: number}} ProgressEvent  batched, at most every PROGRESS_INTERVAL_MS */
/** @typedef {{type: 'result', id: number, result: any}} ResultEvent */
/**
 * `fatal`: the wasm instance cannot be trusted any more (panic, failed init): the page restarts the worker.
 * `code`: the kind of a refused report file (`ReportError`s: damaged, not-a-report, unknown-kind, newer-format,
 * too-large, invalid).
 * @typedef {{type: 'error', id: number|null, name: string, message: string, fatal: boolean, code?: string}} ErrorEvent
 */
/**
 * The threaded build's module is loaded and its thread pool is starting (`initThreadPool`): the page's start
 * watchdog counts from here (see THREAD_START_MS in www/client.js).
 * @typedef {{type: 'starting-threads'}} StartingThreadsEvent
 */
/** @typedef {ReadyEvent|StartingThreadsEvent|ProgressEvent|ResultEvent|ErrorEvent} WorkerEvent */

/** Minimum time between two progress messages (ms): the page redraws at most this often. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * The exhaustiveness check of a `switch` on a union's `type`: type-checks only when every case is handled.
 * @param {never} x
 * @param {string} what
 * @returns {never}
 */
export function assertNever(x, what) {
  throw Object.assign(new Error(`unknown ${what} ${JSON.stringify(/** @type {any} */ (x)?.type)}`), { name: 'ProtocolError' });
}

/**
 * Serialises any thrown value into {name, message}.
 * @param {unknown} e
 * @returns {{name: string, message: string}}
 */
export function describeError(e) {
  if (e instanceof Error) return { name: e.name || 'Error', message: e.message || String(e) };
  if (typeof e === 'string') return { name: 'Error', message: e };
  try { return { name: 'Error', message: JSON.stringify(e) }; } catch { return { name: 'Error', message: String(e) }; }
}

/**
 * Appends an experiment event to a progress batch. Never drops a kind's detail, except tune's (and compare's)
 * per-chunk `progress` detail: it carries cumulative counters of every arm of the round, so a newer one of the
 * same tuner replaces an older one still in the batch.
 * @param {ExperimentEvent[]} batch
 * @param {ExperimentEvent} ev
 * @param {ExperimentKind|null} kind
 */
export function pushEvent(batch, ev, kind) {
  if (ev.type === 'progress' && (kind === 'tune' || kind === 'compare') && ev.detail?.type === 'progress') {
    const i = batch.findIndex((b) => b.type === 'progress' && b.detail?.type === 'progress' && b.detail.index === ev.detail.index);
    if (i >= 0) batch.splice(i, 1);
  }
  batch.push(ev);
}
