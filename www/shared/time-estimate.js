// The time estimate shown before Run: the core's cost model of the current settings
// (`summary.cost` of the worker's `check`: the run's work per phase, in multiply-adds, and any seconds fixed by
// the config; src/experiments/cost.rs) times a rate in seconds per multiply-add measured on THIS device:
//   1. the rate of earlier runs of the same kind and phase mix (remembered in localStorage after every complete
//      run: its seconds over its work), else
//   2. a calibration the worker runs once per page (`calibrate`: a short SGLD chain, whose cost is counted in the
//      same unit, gradient evaluations x dimension, a few tens of ms off the main thread) times each phase's
//      factor (seconds per multiply-add of the phase's kind and class over the calibration's; MODEL, fitted to runs
//      measured by tests/e2e/time-estimate-bench.mjs: docs/benchmarks.md).
// While a run goes, `refine` blends that estimate with the run's own rate (its elapsed time over the share of
// its work done), which takes over as the run proceeds. Pure (no DOM); the storage is passed in.

/**
 * The core's cost model (`summary.cost`).
 * @typedef {{work: number, unit: string, seconds: number, unknown: string|null,
 *   phases: {name: string, count: number, unit: string, per: number, work: number, basis: string}[]}} Cost
 */

/**
 * The class of a phase's work within its kind, where one kind's phases run at different speeds per counted
 * multiply-add: the Stein discrepancy's sample pairs (a vectorised pair loop), FSSD-opt's location fit and the
 * scores of the samples (full-data gradients: one vectorised pass over the rows per sample, without a chain's
 * per-step work) against the chains' gradient evaluations (tune, compare, step-size); a bandit's GP-UCB updates, its TTTS / D-TTTS
 * updates and exact recommendations, its problem's model trainings and SG-MCMC table; a learning-rate run's
 * training, trace records and trace-model fits; TVO's training against its evaluations. Other phases: their kind's
 * class ''.
 * @param {string} kind @param {{name: string, unit: string}} phase @returns {string}
 */
export function phaseClass(kind, phase) {
  const stem = phase.name.replace(/^.*: /, '');
  switch (kind) {
    case 'tune': case 'compare': case 'step-size':
      return phase.unit === 'sample pairs' ? 'pairs' : phase.unit === 'location evaluations' ? 'fssd' : /scor(e|ing)/.test(stem) ? 'scores' : '';
    case 'bandit':
      if (phase.name.startsWith('table: ')) return 'table';
      if (phase.unit === 'posterior evaluations') return 'recommend';
      if (/gp-ucb/.test(phase.name)) return 'gp';
      if (/ttts/.test(phase.name)) return 'ttts';
      return phase.unit === 'trainings' ? 'trainings' : '';
    case 'lr-schedule':
      return stem === 'trace records' ? 'records' : stem === 'trace model fits' ? 'fits' : '';
    case 'tvo':
      return stem === 'training' ? '' : 'evaluation';
    default:
      return '';
  }
}

/**
 * The model that turns the core's counted work into seconds at the calibration's rate (seconds per multiply-add of
 * the SGLD calibration chain):
 * - `kind`: seconds per multiply-add of each kind's class '' over the calibration's; `phase`: the same for the other
 *   classes of `phaseClass` (a class missing here takes its kind's factor);
 * - `gradOverhead`: multiply-adds a chain's gradient evaluation of one data point costs beyond the model's own (`per`)
 *   in the SG-MCMC kinds (the minibatch index draw, the link function, the loop: what the small models' chains, logistic
 *   regression with d = 5-10, spend besides their dot products, against a network's thousands per point);
 * - `epochOverhead`: multiply-adds an image-epoch of the TVO kind's training costs beyond its network's (`per`);
 * - `runWork`: multiply-adds every run costs beyond its phases (the worker's messages, the report, the first draw,
 *   the results drawn), most of a run of a tenth of a second.
 * Fitted by `node scripts/dev/time-estimate-fit.mjs` to the runs committed in docs/time-estimates/ (every Preset menu
 * entry and every tests/e2e/maintask.mjs case, each on a fresh single-threaded page); tests/e2e/time-estimate-fit.test.mjs
 * checks every one of those runs within 2x at these values, and docs/benchmarks.md ("Time estimates") lists them.
 */
export const MODEL = {
  kind: { tune: 0.541, compare: 0.132, bandit: 0.355, hoag: 1.55, 'lr-schedule': 0.71, 'step-size': 0.451, tvo: 0.416 },
  /** @type {Record<string, Record<string, number>>} */
  phase: {
    tune: { scores: 0.0504, pairs: 0.0501, fssd: 1 }, compare: { scores: 0.937, pairs: 1.7, fssd: 2.18 },
    'step-size': { scores: 1.1, pairs: 0.137 },
    bandit: { gp: 0.232, table: 0.0502, trainings: 0.372, ttts: 0.0504, recommend: 0.0789 },
    'lr-schedule': { records: 0.195, fits: 0.732 },
    tvo: { evaluation: 0.831 },
  },
  gradOverhead: 65.7,
  epochOverhead: 62_200,
  runWork: 4.8e7,
};
/** @typedef {typeof MODEL} Model */

/** @type {Record<string, number>} */
export const KIND_FACTOR = MODEL.kind;
export const PHASE_FACTOR = MODEL.phase;
export const GRAD_OVERHEAD = MODEL.gradOverhead;
export const EPOCH_OVERHEAD = MODEL.epochOverhead;
export const RUN_WORK = MODEL.runWork;

/** The factor of one phase. @param {string} kind @param {{name: string, unit: string}} phase @param {Model} [model] */
export function phaseFactor(kind, phase, model = MODEL) {
  const c = phaseClass(kind, phase);
  return (c ? model.phase[kind]?.[c] : undefined) ?? model.kind[kind] ?? 1;
}

/**
 * A phase's work at the calibration's rate: its multiply-adds times its factor, plus the model's overhead per
 * gradient evaluation in the SG-MCMC kinds and per image-epoch of TVO's training.
 * @param {string} kind @param {{name: string, unit: string, count: number, work: number}} phase @param {Model} [model]
 */
export function phaseWork(kind, phase, model = MODEL) {
  const extra = (kind === 'tune' || kind === 'compare' || kind === 'step-size') && phase.unit === 'gradient evaluations' && phaseClass(kind, phase) === '' ? phase.count * model.gradOverhead
    : kind === 'tvo' && phase.unit === 'image-epochs' ? phase.count * model.epochOverhead : 0;
  return (phase.work + extra) * phaseFactor(kind, phase, model);
}

/**
 * The calibration chain (src/benchkit.rs `sgld_ms`: SGLD on simulated logistic regression, no intercept) and its
 * work in the cost model's unit: iterations x batch x dimension multiply-adds (one gradient evaluation of a
 * d-dimensional logistic regression: d), as the tune kind counts its chains.
 */
export const CALIBRATION = { n: 2000, d: 10, iters: 8000, batch: 0.02, chains: 1, seed: 1 };
export const CALIBRATION_WORK = CALIBRATION.iters * Math.round(CALIBRATION.batch * CALIBRATION.n) * CALIBRATION.d;

const STORE_KEY = 'tunelab.time.rates';

/**
 * The key of a rate: the kind and its phases' names without tuner prefixes (compare: "MAMBA-KSD: tuning" ->
 * "tuning"), so a run teaches the rate of the same kind of work.
 * @param {string} kind @param {Cost} cost
 */
export function rateKey(kind, cost) {
  const names = [...new Set((cost?.phases ?? []).map((p) => p.name.replace(/^.*: /, '')))].sort();
  return `${kind}|${names.join(',')}`;
}

/**
 * Remembered rates (seconds per multiply-add) by key, with the run count behind each.
 * @param {Storage|null} [store]
 * @returns {Record<string, {rate: number, runs: number}>}
 */
export function loadRates(store = globalThis.localStorage ?? null) {
  try { return JSON.parse(store?.getItem(STORE_KEY) ?? '{}') ?? {}; } catch { return {}; }
}

/**
 * Remembers a complete run's rate: its seconds (minus the seconds its config fixes) over its work, averaged with
 * the earlier runs of the key (the newer weighs half).
 * @param {string} kind @param {Cost} cost @param {number} seconds @param {Storage|null} [store]
 */
export function rememberRun(kind, cost, seconds, store = globalThis.localStorage ?? null) {
  if (!cost || !(cost.work > 0) || cost.unknown || !(seconds > 0)) return null;
  const rate = Math.max(seconds - (cost.seconds ?? 0), 0.001) / cost.work;
  const all = loadRates(store);
  const key = rateKey(kind, cost);
  const old = all[key];
  all[key] = old ? { rate: Math.sqrt(old.rate * rate), runs: old.runs + 1 } : { rate, runs: 1 };
  try { store?.setItem(STORE_KEY, JSON.stringify(all)); } catch { /* private mode: the rate lives for this page only */ }
  return all[key];
}

/**
 * The seconds a config takes, from its cost and the rates: `{seconds, source}` (`source`: 'runs' when an earlier
 * run of the same key gave the rate, 'calibration', or null without a rate or a cost model).
 * @param {string} kind @param {Cost|null|undefined} cost @param {number|null} calibration seconds per
 * multiply-add of the calibration chain (null: not measured yet) @param {Record<string, {rate: number, runs: number}>} rates
 * @param {Model} [model] the model's factors (MODEL; scripts/dev/time-estimate-fit.mjs tries others)
 * @returns {{seconds: number|null, source: 'runs'|'calibration'|null, rate: number|null}}
 */
export function estimate(kind, cost, calibration, rates, model = MODEL) {
  if (!cost || cost.unknown || !(cost.work >= 0)) return { seconds: null, source: null, rate: null };
  const known = rates[rateKey(kind, cost)];
  // The calibration's rate times each phase's factor, as one rate over the whole work (its weighted mean).
  const factor = cost.work > 0 && cost.phases?.length
    ? (model.runWork + cost.phases.reduce((s, p) => s + phaseWork(kind, p, model), 0)) / cost.work : model.kind[kind] ?? 1;
  const rate = known ? known.rate : calibration != null ? calibration * factor : null;
  if (rate == null) return { seconds: null, source: null, rate: null };
  return { seconds: cost.work * rate + (cost.seconds ?? 0), source: known ? 'runs' : 'calibration', rate };
}

/**
 * The estimate during a run: the estimate before it (`prior` seconds) blended with the run's own extrapolation
 * (`elapsed / frac`), the run's weight growing with its share done; never less than the time so far.
 * @param {number|null} prior @param {number} elapsed @param {number} frac share of the work done (0..1)
 */
export function refine(prior, elapsed, frac) {
  const f = Math.max(0, Math.min(1, frac));
  if (f >= 1) return elapsed;
  const own = f > 0 ? elapsed / f : null;
  if (prior == null) return own != null && f > 0.02 ? Math.max(own, elapsed) : null;
  if (own == null) return Math.max(prior, elapsed);
  const w = Math.min(1, 2 * f);
  return Math.max(elapsed, (1 - w) * prior + w * own);
}

/** "about 12 s", "about 3 min", "under a second". @param {number} s */
export function fmtAbout(s) {
  if (!(s >= 0)) return '';
  if (s < 1) return 'under a second';
  if (s < 60) return `about ${s < 10 ? s.toFixed(0) : (Math.round(s / 5) * 5).toFixed(0)} s`;
  const m = s / 60;
  return `about ${m < 10 ? m.toFixed(1).replace(/\.0$/, '') : Math.round(m)} min`;
}

/** Work in multiply-adds, readable: "3.2e9". @param {number} w */
export const fmtWork = (w) => (w >= 1e4 ? w.toExponential(1).replace('e+', 'e') : String(Math.round(w)));

/** @type {WeakMap<object, Promise<number|null>>} one calibration per worker client */
const calibrations = new WeakMap();

/**
 * The calibration (seconds per multiply-add of the SGLD chain) on this device, measured once per client by the
 * worker (off the main thread): the fastest run of the chain. The first runs execute the engine's baseline code: in
 * Chromium here (`node tests/e2e/calibration-bench.mjs`, 2026-11-27 16:40 UTC, three pages) twelve runs in a row
 * took 53-75, 23-33, 15-21 ms and then 14.5-16.5 ms. And a short window can fall wholly inside another process's
 * burst on a loaded machine: with the rule before (4-10 runs of about 5 ms, until the last two were within 10% of
 * the fastest), pages of one run of `time-estimate-bench.mjs presets` (2026-11-29 04:19 UTC, load average 3-4 on 2
 * cores) measured 1.5e-9 s per multiply-add on most pages and 2.6-2.8e-9 on three, whose estimates came out
 * 1.7-1.9x high. Now: at least 4 runs and 250 ms of runs (at most 80 runs), the fastest of them.
 * Resolves with null when the worker cannot run it.
 * @param {{bench: (kind: 'sgld', params: Record<string, number>) => Promise<{ms: number}>}} client
 * @returns {Promise<number|null>}
 */
export function calibrate(client) {
  let p = calibrations.get(client);
  if (!p) {
    p = (async () => {
      /** @type {number[]} */
      const runs = [];
      let spent = 0;
      while (runs.length < 80 && (runs.length < 4 || spent < 250)) {
        const ms = (await client.bench('sgld', CALIBRATION)).ms;
        runs.push(ms);
        spent += ms;
      }
      const ms = Math.min(...runs);
      return ms > 0 ? ms / 1000 / CALIBRATION_WORK : null;
    })().catch(() => null);
    calibrations.set(client, p);
  }
  return p;
}
