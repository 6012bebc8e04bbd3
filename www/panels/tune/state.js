// Tune panel state: every setting (and the seeds) as one flat object, kept in the URL hash so that a link
// reproduces a run. Pure functions only (no DOM), so embed mode and tests can reuse them. Every value the core
// computes from a config (arm count, rounds, the step grid) comes from the core's `check`, never from here.
//
//   state <-> hash:    parseHash(location.hash) / formatHash(state)   (field maps over hash.js)
//   state <-> config:  toTuneConfig(state) / fromTuneConfig(config)   (the core's TuneConfig JSON)
import { readFields, writeFields, parseNumberList, paramsOf } from '../../shared/hash.js';

export { parseNumberList };

/** Built-in toy targets (data-free, 2-D): drawn over their density contours after a run. */
export const TOY_MODELS = ['banana', 'mixture', 'gaussian'];
export const DATA_MODELS = ['logistic', 'linear', 'bnn', 'pmf'];
export const SAMPLERS = ['sgld', 'sgld-cv', 'sghmc', 'sghmc-cv', 'sgnht', 'sgnht-cv'];
export const TUNERS = ['mamba', 'grid', 'heuristic', 'random'];
export const METRICS = ['ksd', 'fssd', 'fssd-opt', 'log-loss', 'accuracy'];
export const BUDGET_UNITS = ['grad_evals', 'seconds', 'iterations'];
export const DATA_SOURCES = ['simulate', 'digits', 'mnist', 'ratings', 'upload', 'none'];
/** Data sources a PMF model reads (ratings: simulated, or a user's user,item,rating file). */
export const RATINGS_SOURCES = ['ratings', 'upload'];
/** Core presets the menu loads as comparisons (`CompareConfig::preset`: the page's reduced versions of the
 * paper's three tables, with their tuners and exact-reference size). */
export const COMPARE_PRESETS = ['paper-logreg-page', 'mnist-bnn-page', 'pmf-page'];

/** @typedef {Record<string, any>} TuneState  the DEFAULTS' keys */

/** The built-in default: the core's `demo` preset (simulated logistic regression, N = 2000, d = 5,
 * MAMBA over 18 arms, 2e6 gradient evaluations for the best arm): a few seconds in a browser. */
export const DEFAULTS = Object.freeze({
  data: 'simulate', n: 2000, d: 5, dseed: 0, label: 'y', standardize: false, test: 0.2,
  pc: 50, pool: 2, users: 200, items: 300, nr: 6000,
  model: 'logistic', prior: 10, hidden: 16, latent: 10,
  sampler: 'sgld', friction: 0.01,
  hfrom: -6, hto: -2, hby: 0.5, batch: '0.1,0.01', L: '10',
  tuner: 'mamba', eta: 3, scoring: 'round', rarms: 20,
  unit: 'grad_evals', budget: 2e6, metric: 'ksd', msamples: 500, thin: 5, start: 'map', seed: 0,
  compare: false, refs: 0, tuners: '', gridr: false,
  // The paper's variants: the BNN's hidden activation, the PMF prior, the Stein kernel of the KSD and
  // the comparison's evaluation; the defaults are the core's.
  act: 'tanh', pprior: 'fixed', kernel: 'run', evalk: 'fresh',
});

/** @param {string[]} xs @returns {string[][]} */
const opts = (xs) => xs.map((x) => [x, x]);

/** The hash fields of the state (hash.js types); an invalid value falls back to the default. */
/** @type {import('../../shared/hash.js').Field[]} */
export const FIELDS = [
  { key: 'data', type: 'select', options: opts(DATA_SOURCES) }, { key: 'n', type: 'int', min: 10, max: 1e6 },
  { key: 'd', type: 'int', min: 1, max: 100 }, { key: 'dseed', type: 'int', min: 0, max: 2 ** 31 },
  { key: 'label', type: 'text' }, { key: 'standardize', type: 'bool' }, { key: 'test', type: 'num', min: 0, max: 0.9 },
  { key: 'model', type: 'select', options: opts([...DATA_MODELS, ...TOY_MODELS]) }, { key: 'prior', type: 'num', min: 1e-6, max: 1e6 },
  { key: 'hidden', type: 'int', min: 1, max: 512 },
  { key: 'pc', type: 'int', min: 1, max: 1000 }, { key: 'pool', type: 'int', min: 1, max: 28 },
  { key: 'users', type: 'int', min: 1, max: 100000 }, { key: 'items', type: 'int', min: 1, max: 100000 },
  { key: 'nr', type: 'int', min: 2, max: 2000000 }, { key: 'latent', type: 'int', min: 1, max: 200 },
  { key: 'sampler', type: 'select', options: opts(SAMPLERS) }, { key: 'friction', type: 'num', min: 1e-9, max: 1 },
  { key: 'hfrom', type: 'num', min: -12, max: 2 }, { key: 'hto', type: 'num', min: -12, max: 2 }, { key: 'hby', type: 'num', min: 0.01, max: 10 },
  { key: 'batch', type: 'list' }, { key: 'L', type: 'list' },
  { key: 'tuner', type: 'select', options: opts(TUNERS) }, { key: 'eta', type: 'int', min: 2, max: 10 },
  { key: 'scoring', type: 'select', options: opts(['round', 'chain']) }, { key: 'rarms', type: 'int', min: 1, max: 500 },
  { key: 'unit', type: 'select', options: opts(BUDGET_UNITS) }, { key: 'budget', type: 'num', min: 1e-9, max: 1e12 },
  { key: 'metric', type: 'select', options: opts(METRICS) }, { key: 'msamples', type: 'int', min: 2, max: 100000 },
  { key: 'thin', type: 'int', min: 1, max: 10000 }, { key: 'start', type: 'select', options: opts(['map', 'zero']) },
  { key: 'seed', type: 'int', min: 0, max: 2 ** 31 }, { key: 'compare', type: 'bool' },
  { key: 'refs', type: 'int', min: 0, max: 1000000 }, { key: 'tuners', type: 'text' }, { key: 'gridr', type: 'bool' },
  { key: 'act', type: 'select', options: opts(['tanh', 'softmax']) }, { key: 'pprior', type: 'select', options: opts(['fixed', 'hierarchical']) },
  { key: 'kernel', type: 'select', options: opts(['run', 'plain', 'per-arm']) }, { key: 'evalk', type: 'select', options: opts(['fresh', 'tuning-chain']) },
];

/**
 * State from a location hash ("#tuner=mamba&n=2000..."); missing or invalid keys take their defaults. Keys of
 * other modules (embed mode, lessons, other panels) are ignored.
 * @param {string} hash
 */
export function parseHash(hash) {
  const { values, invalid } = readFields(paramsOf(hash), FIELDS, DEFAULTS);
  return { state: normalise(/** @type {TuneState} */ (values)), invalid };
}

/** Hash keys owned by other modules (embed mode, lessons: www/embed.js), kept by formatHash so that writing the
 * settings back to the URL does not drop them. Set and delete entries; values are strings.
 * @type {Record<string, string>} */
export const hashExtras = {};

/**
 * The hash for a state: every setting, in a fixed order, so a copied link reproduces the run.
 * @param {Record<string, any>} state
 * @param {Record<string, any>} [extra]
 */
export function formatHash(state, extra = {}) {
  const params = new URLSearchParams();
  writeFields(params, FIELDS, state);
  for (const [k, v] of Object.entries({ ...hashExtras, ...extra })) if (v != null) params.set(k, String(v));
  return '#' + params.toString();
}

/**
 * Keeps model and data source consistent (toy targets have no data; data models need data). The step range
 * is left as given: the core accepts a descending log10 range.
 * @template {Record<string, any>} S
 * @param {S} state
 * @returns {S}
 */
export function normalise(state) {
  /** @type {Record<string, any>} */
  const s = { ...state };
  if (TOY_MODELS.includes(s.model)) s.data = 'none';
  else if (s.data === 'none') s.data = 'simulate';
  // PMF reads ratings; simulated ratings are for PMF only.
  if (s.model === 'pmf' && !RATINGS_SOURCES.includes(s.data)) s.data = 'ratings';
  if (s.data === 'ratings' && s.model !== 'pmf') s.model = 'pmf';
  return /** @type {S} */ (s);
}

/** Whether the sampler takes a number of leapfrog steps (SGHMC family). @param {string} sampler */
export const usesLeapfrog = (sampler) => sampler.startsWith('sghmc');

/**
 * The core's TuneConfig (JSON, src/tune/config.rs) for a state, with `kind: 'tune'`, or `kind: 'compare'`
 * when the state asks for the comparison (`reference_samples: 0`: the page skips the long exact reference run).
 * @param {Record<string, any>} state
 */
export function toTuneConfig(state) {
  const s = normalise(state);
  const data = (() => {
    switch (s.data) {
      case 'simulate': return { source: 'simulate', n: s.n, d: s.d, seed: s.dseed, test_fraction: s.test };
      case 'digits': return { source: 'digits', label: 'y', standardize: s.standardize, test_fraction: s.test };
      case 'mnist': return { source: 'mnist', per_class: s.pc, pool: s.pool, test_fraction: s.test };
      case 'ratings': return { source: 'simulate-ratings', users: s.users, items: s.items, ratings: s.nr, latent: s.latent, seed: s.dseed, label: 'rating', test_fraction: s.test };
      case 'upload': return { source: 'upload', label: s.label || 'y', standardize: s.standardize, test_fraction: s.test };
      default: return { source: 'none', test_fraction: 0 };
    }
  })();
  const model = (() => {
    switch (s.model) {
      case 'logistic': return { kind: 'logistic', prior_var: s.prior };
      case 'linear': return { kind: 'linear', prior_var: s.prior };
      // MNIST has ten classes (as the core's mnist presets say).
      case 'bnn': {
        /** @type {Record<string, any>} */
        const m = s.data === 'mnist' ? { kind: 'bnn', hidden: s.hidden, prior_var: s.prior, classes: 10 } : { kind: 'bnn', hidden: s.hidden, prior_var: s.prior };
        // The paper's network (App. B.3.1) has softmax hidden units; tanh is the core's default.
        if (s.act === 'softmax') m.activation = 'softmax';
        return m;
      }
      // The paper's hierarchical prior (App. B.2.1) with its tau = (3, 0, 4, 5), the core's default for it.
      case 'pmf': return s.pprior === 'hierarchical' ? { kind: 'pmf', latent: s.latent, prior: { kind: 'hierarchical' } } : { kind: 'pmf', latent: s.latent };
      case 'gaussian': return { kind: 'gaussian', d: 2 };
      default: return { kind: s.model };
    }
  })();
  const tuner = s.tuner === 'mamba' ? { kind: 'mamba', eta: s.eta, scoring: s.scoring }
    : s.tuner === 'random' ? { kind: 'random', arms: s.rarms } : { kind: s.tuner };
  const base = {
    data, model,
    sampler: { kind: s.sampler, friction: s.friction },
    arms: {
      log10_step: { from: s.hfrom, to: s.hto, by: s.hby },
      batch: parseNumberList(s.batch) ?? [],
      leapfrog: (parseNumberList(s.L) ?? [10]).map(Math.round),
    },
    tuner,
    budget: { [s.unit]: s.budget },
    metric: s.metric === 'ksd' && s.kernel !== 'run' ? { kind: s.metric, max_samples: s.msamples, kernel: s.kernel } : { kind: s.metric, max_samples: s.msamples },
    thin: s.thin, start: s.start, seed: s.seed,
  };
  const names = String(s.tuners ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  /** @type {Record<string, any>} */
  const cmp = { kind: 'compare', ...base, reference_samples: s.refs };
  if (names.length) cmp.tuners = names;
  // The reduced (`-page`) comparisons run the grid (log-loss) baseline for R per grid point, not App. B's
  // iterations, and each tuner's fresh evaluation chain for R, not the paper's 10-30 R (as the core's -page presets).
  if (s.gridr) {
    cmp.grid_baseline = { budget: { [s.unit]: s.budget } };
    cmp.evaluation = { kind: 'fresh-from-map', budget: { [s.unit]: s.budget } };
  }
  // The other evaluation: each choice's own tuning chain instead of a fresh chain from the MAP.
  if (s.evalk === 'tuning-chain') cmp.evaluation = { kind: 'tuning-chain' };
  /** @type {import('../../protocol.js').ExperimentConfig} */
  const config = s.compare ? /** @type {any} */ (cmp) : { kind: 'tune', ...base };
  return config;
}

/**
 * A (partial) state from a core TuneConfig (a preset, a checked config, a lesson's config). Settings the page
 * has no control for are dropped.
 * @param {Record<string, any>} c
 * @returns {Partial<TuneState>}
 */
export function fromTuneConfig(c) {
  /** @type {Record<string, any>} */
  const s = {};
  const d = c.data ?? {};
  if (d.source) s.data = d.source;
  if (d.source === 'simulate') Object.assign(s, { n: d.n, d: d.d, dseed: d.seed });
  if (d.source === 'mnist') Object.assign(s, { pc: d.per_class ?? 1000, pool: d.pool });
  if (d.source === 'simulate-ratings') Object.assign(s, { data: 'ratings', users: d.users, items: d.items, nr: d.ratings, latent: d.latent, dseed: d.seed });
  if (d.label != null) s.label = d.label;
  if (d.standardize != null) s.standardize = d.standardize;
  if (d.test_fraction != null) s.test = d.test_fraction;
  const m = c.model ?? {};
  if (m.kind) s.model = m.kind;
  if (m.prior_var != null) s.prior = m.prior_var;
  if (m.hidden != null) s.hidden = m.hidden;
  if (m.kind === 'pmf' && m.latent != null) s.latent = m.latent;
  if (m.kind === 'bnn') s.act = m.activation ?? 'tanh';
  if (m.kind === 'pmf') s.pprior = m.prior?.kind ?? 'fixed';
  if (c.sampler?.kind) s.sampler = c.sampler.kind;
  if (c.sampler?.friction != null) s.friction = c.sampler.friction;
  const step = c.arms?.log10_step;
  if (step) Object.assign(s, { hfrom: step.from, hto: step.to, hby: step.by });
  if (Array.isArray(c.arms?.batch)) s.batch = c.arms.batch.join(',');
  if (Array.isArray(c.arms?.leapfrog)) s.L = c.arms.leapfrog.join(',');
  const t = c.tuner ?? {};
  if (t.kind) s.tuner = t.kind;
  if (t.eta != null) s.eta = t.eta;
  if (t.scoring != null) s.scoring = t.scoring;
  if (t.arms != null) s.rarms = t.arms;
  const unit = BUDGET_UNITS.find((u) => c.budget?.[u] != null);
  if (unit) Object.assign(s, { unit, budget: c.budget[unit] });
  if (c.metric?.kind) s.metric = c.metric.kind;
  if (c.metric?.max_samples != null) s.msamples = c.metric.max_samples;
  if (c.metric?.kind === 'ksd') s.kernel = c.metric.kernel ?? 'run';
  for (const k of ['thin', 'seed']) if (c[k] != null) s[k] = c[k];
  if (typeof c.start === 'string') s.start = c.start;
  if (c.kind === 'compare' || c.kind === 'tune') s.compare = c.kind === 'compare';
  if (c.kind === 'compare') Object.assign(s, { refs: c.reference_samples ?? 20000, tuners: (c.tuners ?? []).join(','), gridr: c.grid_baseline?.budget != null, evalk: c.evaluation?.kind === 'tuning-chain' ? 'tuning-chain' : 'fresh' });
  else if (c.kind === 'tune') Object.assign(s, { refs: 0, tuners: '', gridr: false, evalk: 'fresh' });
  for (const k of Object.keys(s)) if (s[k] === undefined) delete s[k];
  return s;
}

/** Page-only variants of a core preset (`base`): the other 2-D toy targets. */
export const PAGE_PRESETS = {
  banana: { base: 'gaussian', model: 'banana' },
  mixture: { base: 'gaussian', model: 'mixture', hfrom: -3, hto: 0.5, eta: 2 },
};
