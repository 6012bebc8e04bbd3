// The typed message protocol between the page and the compute worker (www/worker.js).
// Every message is a plain object with a `type` tag; both sides switch on it exhaustively and report any
// unknown tag as an error instead of ignoring it.
//
// Requests (page -> worker):
//   {type: 'init', flavour: 'parallel'|'single', threads: number, panicChannel: string}
//   {type: 'preview-csv', id, text: string, label: string, standardize: boolean, model: ModelSpec|null, rows: number}
//   {type: 'run-tune', id, config: TuneConfig, csv: string|null, cancel?: SharedArrayBuffer}
//   {type: 'compare-configs', id, config: TuneConfig}      -> [{name, config}] (the paper's tuners)
//   {type: 'preset', id, name: string}                     -> TuneConfig of a core preset
//   {type: 'normalize-config', id, config}                 -> the config validated, with the core's defaults filled in
//   {type: 'run-runner', id, runner: 'bandit'|'hoag'|'lrsched', config, csv: string|null, label: string|null, cancel?}
//   {type: 'runner-preset', id, runner, name}              -> the runner's preset config
//   {type: 'probe-threads', id, tasks: number}
//   {type: 'bench', id, kind: 'ksd'|'sgld', params: object}
//   {type: 'density-grid', id, model: ModelSpec, samples: Float64Array, nx, ny}   (2-D targets: log density grid)
//   {type: 'crash-test', id, what: 'panic'|'error'|'throw'}   (tests: a Rust panic / core error / JS throw)
//   {type: 'check-tuner-config', id, runner, config}     -> the runner's config validated, defaults filled in
//   {type: 'run-step-tune', id, config: StepTuneConfig, cancel?}  -> StepTuneReport (GP-UCB step size of one chain);
//      progress: every event (fixed-done, window, done), batched
//
// Events (worker -> page):
//   {type: 'ready', flavour, threads, version}
//   {type: 'progress', id, events: DriverEvent[], elapsed: number}   (throttled: at most every 100 ms)
//   {type: 'result', id, result}
//   {type: 'error', id: number|null, name: string, message: string, fatal: boolean}
//      fatal = the wasm instance cannot be trusted any more (panic, failed init): the page restarts the worker.

export const REQUEST = Object.freeze({
  INIT: 'init',
  PREVIEW_CSV: 'preview-csv',
  RUN_TUNE: 'run-tune',
  COMPARE_CONFIGS: 'compare-configs',
  PRESET: 'preset',
  NORMALIZE_CONFIG: 'normalize-config',
  RUN_RUNNER: 'run-runner',
  RUNNER_PRESET: 'runner-preset',
  PROBE_THREADS: 'probe-threads',
  BENCH: 'bench',
  DENSITY_GRID: 'density-grid',
  CRASH_TEST: 'crash-test',
  CHECK_TUNER_CONFIG: 'check-tuner-config',
  RUN_STEP_TUNE: 'run-step-tune',
});

export const EVENT = Object.freeze({
  READY: 'ready',
  PROGRESS: 'progress',
  RESULT: 'result',
  ERROR: 'error',
});

/** Minimum time between two progress messages (ms): the page redraws at most this often. */
export const PROGRESS_INTERVAL_MS = 100;

/** Serialises any thrown value into {name, message}. */
export function describeError(e) {
  if (e instanceof Error) return { name: e.name || 'Error', message: e.message || String(e) };
  if (typeof e === 'string') return { name: 'Error', message: e };
  try { return { name: 'Error', message: JSON.stringify(e) }; } catch { return { name: 'Error', message: String(e) }; }
}
