// The TVO panel's chart data and styles (drawing only; the numbers are the report's or the live window records).
// Figure 4 of Nguyen et al. (2020) plots test log p(x) per method; on the page's small runs the seven curves end
// within 0.1 nats of each other and overlap, so the page shows by default each method's DIFFERENCE from the linear
// schedule, seed by seed (paired: same weights and minibatches), with a band over seeds.
import { LINE_COLOURS } from '../../shared/charts.js';
import { MARKS } from '../../shared/marks.js';

/** The methods of the core (src/tvo/run.rs TvoMethod), in its order, with their page labels. */
export const METHODS = [
  ['gp-ucb', 'GP-UCB (time-varying, permutation-invariant; the paper)'],
  ['gp-ucb-no-perm', 'GP-UCB without permutation invariance (ablation)'],
  ['gp-ucb-stationary', 'GP-UCB, stationary kernel (ablation)'],
  ['random', 'Random sorted schedule each window (ablation)'],
  ['log-uniform', 'Log-uniform from β₁ = 0.025'],
  ['linear', 'Linear on [0, 1]'],
  ['moments', 'Moments schedule (Brekelmans et al.)'],
];
export const METHOD_KEYS = METHODS.map(([k]) => k);

/** The reference the difference view subtracts (the paper's simplest fixed schedule). */
export const REFERENCE = 'linear';

/**
 * A method's colour, marker and line: GP-UCB black and thick, its ablations and random schedules dashed, one
 * marker shape per method (so no two are told apart by colour alone); its key is its direct label.
 * @param {string} m
 */
export function styleOf(m) {
  const i = Math.max(0, METHOD_KEYS.indexOf(m));
  const mark = MARKS[i % MARKS.length];
  if (m === 'gp-ucb') return { color: '#000000', width: 3, mark, direct: m };
  return { color: LINE_COLOURS[(i - 1) % LINE_COLOURS.length], width: 1.8, mark, direct: m, dash: m.startsWith('gp-ucb') || m === 'random' ? [6, 4] : undefined };
}

/** Colours of the schedule points β₁ … β_{d−1}: distinct hues, each at least 3:1 on white. */
export const BETA_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#7A52A8', '#B07800', '#CC79A7', '#000000'];

/**
 * Per method, the per-window mean over seeds of `value(seed's record, window, seed)` with its min and max over
 * seeds; windows where some seed has no record yet are left out.
 * @param {Map<string, any[]>} records key `${method}#${repeat}` -> window records
 * @param {string[]} methods @param {number} repeats
 * @param {(m: string, r: number, w: number) => number|null} value
 */
export function seedCurves(records, methods, repeats, value) {
  return methods.map((m) => {
    const reps = [...Array(repeats).keys()].map((r) => records.get(`${m}#${r}`) ?? []);
    const n = Math.min(...reps.map((v) => v.length));
    /** @type {number[]} */ const x = [];
    /** @type {(number|null)[]} */ const y = []; /** @type {(number|null)[]} */ const lo = []; /** @type {(number|null)[]} */ const hi = [];
    for (let w = 0; w < n; w++) {
      const vs = /** @type {number[]} */ (reps.map((_, r) => value(m, r, w)).filter((v) => v != null && Number.isFinite(v)));
      x.push(reps[0][w].epoch);
      y.push(vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null);
      lo.push(vs.length ? Math.min(...vs) : null); hi.push(vs.length ? Math.max(...vs) : null);
    }
    return { name: m, x, y, lo, hi };
  });
}

/**
 * Test log p(x) per method (`diff` false), or its difference from the reference's at the same window and seed
 * (`diff` true; null where the reference has no record yet).
 * @param {Map<string, any[]>} records @param {string[]} methods @param {number} repeats @param {boolean} diff
 */
export function logpxCurves(records, methods, repeats, diff) {
  const at = (/** @type {string} */ m, /** @type {number} */ r, /** @type {number} */ w) => records.get(`${m}#${r}`)?.[w]?.test_log_px ?? null;
  return seedCurves(records, methods, repeats, (m, r, w) => {
    const v = at(m, r, w);
    if (!diff || v == null) return v;
    const ref = at(REFERENCE, r, w);
    return ref == null ? null : v - ref;
  });
}
