// The time estimate shown before Run: the core's cost model of the current settings
// (`summary.cost` of the worker's `check`: the run's work per phase, in multiply-adds, and any seconds fixed by
// the config; src/experiments/cost.rs) times a rate in seconds per multiply-add measured on THIS device:
//   1. the rate of earlier runs of the same kind and phase mix (remembered in localStorage after every complete
//      run: its seconds over its work), else
//   2. a calibration the worker runs once per page (`calibrate`: a short SGLD chain, whose cost is counted in the
//      same unit, gradient evaluations x dimension, a few tens of ms off the main thread) times the kind's
//      factor (seconds per multiply-add of the kind over the calibration's; KIND_FACTOR, measured by
//      tests/e2e/time-estimate-bench.mjs: docs/benchmarks.md).
// While a run goes, `refine` blends that estimate with the run's own rate (its elapsed time over the share of
// its work done), which takes over as the run proceeds. Pure (no DOM); the storage is passed in.

/**
 * The core's cost model (`summary.cost`).
 * @typedef {{work: number, unit: string, seconds: number, unknown: string|null,
 *   phases: {name: string, count: number, unit: string, per: number, work: number, basis: string}[]}} Cost
 */

/**
 * Seconds per multiply-add of each kind over the calibration's (the SGLD chain's): how much slower (or faster)
 * a kind's counted work runs than the calibration loop. Fitted to the tab defaults of one run of
 * tests/e2e/time-estimate-bench.mjs (single-threaded page, 2026-11-27 16:41 UTC, load average 3.5-4.5 on the 2-core
 * development machine: a two-thread job at low priority beside it), the first with the calibration below run
 * until its time stops falling: each factor is the one before times that run's real time over its estimate,
 * rounded. The factors before were fitted with the fastest of three calibration runs, which often timed the
 * engine's baseline code (see calibrate), and moved with it: these are 2.0-2.6x those fitted at 16:19 UTC and
 * 0.9-1.7x those fitted at 10:15 UTC (load 5.5-7). The lesson steps are not used to
 * fit them (the lr-schedule trace-model fits' weight in the core's cost model was set from native times of the tab
 * default and the LR lesson's first step, src/experiments/lr_schedule/). docs/benchmarks.md, "Time estimates",
 * reports a later run of the script against these factors.
 * @type {Record<string, number>}
 */
export const KIND_FACTOR = { tune: 1.16, compare: 1.54, bandit: 2.7, hoag: 1.29, 'lr-schedule': 0.36, 'step-size': 0.46, tvo: 0.95 };

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
 * @returns {{seconds: number|null, source: 'runs'|'calibration'|null, rate: number|null}}
 */
export function estimate(kind, cost, calibration, rates) {
  if (!cost || cost.unknown || !(cost.work >= 0)) return { seconds: null, source: null, rate: null };
  const known = rates[rateKey(kind, cost)];
  const rate = known ? known.rate : calibration != null ? calibration * (KIND_FACTOR[kind] ?? 1) : null;
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
 * worker (off the main thread): the fastest run of the chain once its time has stopped falling. The first runs
 * execute the engine's baseline code: in Chromium here (`node tests/e2e/calibration-bench.mjs`, 2026-11-27 16:40 UTC,
 * three pages) twelve runs in a row took 53-75, 23-33, 15-21 ms and then 14.5-16.5 ms, so the fastest of three (the rule before) was 1.0-1.4x
 * the steady time and moved between pages. Now: at least 4 and at most 10 runs, until the last two are within 10%
 * of the fastest.
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
      while (runs.length < 10) {
        runs.push((await client.bench('sgld', CALIBRATION)).ms);
        const min = Math.min(...runs);
        if (runs.length >= 4 && runs.slice(-2).every((t) => t <= 1.1 * min)) break;
      }
      const ms = Math.min(...runs);
      return ms > 0 ? ms / 1000 / CALIBRATION_WORK : null;
    })().catch(() => null);
    calibrations.set(client, p);
  }
  return p;
}
