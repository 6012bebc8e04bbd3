// Page state: every setting (and the seeds) as one flat object, kept in the URL hash so that a link
// reproduces a run. Pure functions only (no DOM), so embed mode (issue 7) and tests can reuse them.
//
//   state <-> hash:   parseHash(location.hash) / formatHash(state)
//   state  -> config: toTuneConfig(state) gives the core's TuneConfig JSON (docs/ARCHITECTURE.md)

/** Built-in toy targets (data-free, 2-D): drawn over their density contours after a run. */
export const TOY_MODELS = ['banana', 'mixture', 'gaussian'];
export const DATA_MODELS = ['logistic', 'linear', 'bnn'];
export const SAMPLERS = ['sgld', 'sgld-cv', 'sghmc', 'sghmc-cv', 'sgnht', 'sgnht-cv'];
export const TUNERS = ['mamba', 'grid', 'heuristic', 'random'];
export const METRICS = ['ksd', 'fssd', 'fssd-opt', 'log-loss', 'accuracy'];
export const BUDGET_UNITS = ['grad_evals', 'seconds', 'iterations'];
export const DATA_SOURCES = ['simulate', 'digits', 'upload', 'none'];

/** The built-in default: the core's `demo` preset (simulated logistic regression, N = 2000, d = 5,
 * MAMBA over 18 arms, 2e6 gradient evaluations for the best arm): a few seconds in a browser. */
export const DEFAULTS = Object.freeze({
  data: 'simulate', n: 2000, d: 5, dseed: 0, label: 'y', standardize: false, test: 0.2,
  model: 'logistic', prior: 10, hidden: 16,
  sampler: 'sgld', friction: 0.01,
  hfrom: -6, hto: -2, hby: 0.5, batch: '0.1,0.01', L: '10',
  tuner: 'mamba', eta: 3, scoring: 'round', rarms: 20,
  unit: 'grad_evals', budget: 2e6, metric: 'ksd', msamples: 500, thin: 5, start: 'map', seed: 0,
  compare: false,
});

/** Value kinds for parsing the hash; anything that fails validation falls back to the default. */
const KINDS = {
  data: ['enum', DATA_SOURCES], n: ['int', 10, 1e6], d: ['int', 1, 100], dseed: ['int', 0, 2 ** 31],
  label: ['str'], standardize: ['bool'], test: ['num', 0, 0.9],
  model: ['enum', [...DATA_MODELS, ...TOY_MODELS]], prior: ['num', 1e-6, 1e6], hidden: ['int', 1, 512],
  sampler: ['enum', SAMPLERS], friction: ['num', 1e-9, 1],
  hfrom: ['num', -12, 2], hto: ['num', -12, 2], hby: ['num', 0.01, 10], batch: ['list'], L: ['list'],
  tuner: ['enum', TUNERS], eta: ['int', 2, 10], scoring: ['enum', ['round', 'chain']], rarms: ['int', 1, 500],
  unit: ['enum', BUDGET_UNITS], budget: ['num', 1e-9, 1e12], metric: ['enum', METRICS], msamples: ['int', 2, 100000],
  thin: ['int', 1, 10000], start: ['enum', ['map', 'zero']], seed: ['int', 0, 2 ** 31], compare: ['bool'],
};

/** Parses one raw string value; returns undefined when invalid. */
function parseValue(kind, raw) {
  const [k, a, b] = kind;
  switch (k) {
    case 'enum': return a.includes(raw) ? raw : undefined;
    case 'bool': return raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : undefined;
    case 'str': return raw;
    case 'list': return parseNumberList(raw) ? raw : undefined;
    case 'int': { const v = Number(raw); return Number.isInteger(v) && v >= a && v <= b ? v : undefined; }
    case 'num': { const v = Number(raw); return Number.isFinite(v) && v >= a && v <= b ? v : undefined; }
    default: return undefined;
  }
}

/** "1, 0.1,0.01" -> [1, 0.1, 0.01]; null when empty or not all positive finite numbers. */
export function parseNumberList(s) {
  const parts = String(s).split(/[\s,;]+/).filter(Boolean);
  if (parts.length === 0) return null;
  const xs = parts.map(Number);
  return xs.every((x) => Number.isFinite(x) && x > 0) ? xs : null;
}

/** State from a location hash ("#tuner=mamba&n=2000..."); missing or invalid keys take their defaults. */
export function parseHash(hash) {
  const params = new URLSearchParams(String(hash).replace(/^#/, ''));
  const state = { ...DEFAULTS };
  const invalid = [];
  for (const [key, raw] of params) {
    if (!(key in KINDS)) continue; // other flags (embed mode, lessons) belong to other modules
    const v = parseValue(KINDS[key], raw);
    if (v === undefined) invalid.push(key); else state[key] = v;
  }
  return { state: normalise(state), invalid };
}

/** Hash keys owned by other modules (embed mode, lessons: www/embed.js), kept by formatHash so that writing the
 * settings back to the URL does not drop them. Set and delete entries; values are strings. */
export const hashExtras = {};

/** The hash for a state: every setting, in a fixed order, so a copied link reproduces the run. */
export function formatHash(state, extra = {}) {
  const params = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS)) {
    const v = state[key];
    params.set(key, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  for (const [k, v] of Object.entries({ ...hashExtras, ...extra })) if (v != null) params.set(k, String(v));
  return '#' + params.toString();
}

/** Keeps model and data source consistent (toy targets have no data; data models need data). */
export function normalise(state) {
  const s = { ...state };
  if (TOY_MODELS.includes(s.model)) s.data = 'none';
  else if (s.data === 'none') s.data = 'simulate';
  if (s.hfrom > s.hto) [s.hfrom, s.hto] = [s.hto, s.hfrom];
  return s;
}

/** Whether the sampler takes a number of leapfrog steps (SGHMC family). */
export const usesLeapfrog = (sampler) => sampler.startsWith('sghmc');

/** The log10 step sizes of the grid: from..to by `by` (inclusive of `to` up to rounding). */
export function logSteps(state) {
  const out = [];
  const n = Math.floor((state.hto - state.hfrom) / state.hby + 1e-9);
  for (let i = 0; i <= n && i < 1000; i++) out.push(Number((state.hfrom + i * state.hby).toFixed(6)));
  return out;
}

/** Number of arms the grid holds (the tuner may run fewer: heuristic = 1, random = rarms). */
export function armCount(state) {
  const batches = parseNumberList(state.batch)?.length ?? 0;
  const ls = usesLeapfrog(state.sampler) ? parseNumberList(state.L)?.length ?? 0 : 1;
  return logSteps(state).length * batches * ls;
}

/** Successive-halving plan shown before a run: arms per round for M arms and reduction factor eta. */
export function mambaPlan(m, eta) {
  const rounds = Math.max(1, Math.floor(Math.log(m) / Math.log(eta) + 1e-9));
  const sizes = [m];
  for (let r = 1; r < rounds; r++) sizes.push(Math.max(1, Math.floor(sizes[r - 1] / eta)));
  return { rounds, sizes };
}

/** The core's TuneConfig (JSON, src/tune/config.rs) for a state and a tuner kind (defaults to state.tuner). */
export function toTuneConfig(state, tuner = state.tuner) {
  const s = normalise(state);
  const data = (() => {
    switch (s.data) {
      case 'simulate': return { source: 'simulate', n: s.n, d: s.d, seed: s.dseed, test_fraction: s.test };
      case 'digits': return { source: 'digits', label: 'y', standardize: s.standardize, test_fraction: s.test };
      case 'upload': return { source: 'upload', label: s.label || 'y', standardize: s.standardize, test_fraction: s.test };
      default: return { source: 'none', test_fraction: 0 };
    }
  })();
  const model = (() => {
    switch (s.model) {
      case 'logistic': return { kind: 'logistic', prior_var: s.prior };
      case 'linear': return { kind: 'linear', prior_var: s.prior };
      case 'bnn': return { kind: 'bnn', hidden: s.hidden, prior_var: s.prior };
      case 'gaussian': return { kind: 'gaussian', d: 2 };
      default: return { kind: s.model };
    }
  })();
  const tunerCfg = (() => {
    switch (tuner) {
      case 'mamba': return { kind: 'mamba', eta: s.eta, scoring: s.scoring };
      case 'random': return { kind: 'random', arms: s.rarms };
      default: return { kind: tuner };
    }
  })();
  return {
    data, model,
    sampler: { kind: s.sampler, friction: s.friction },
    arms: {
      log10_step: { from: s.hfrom, to: s.hto, by: s.hby },
      batch: parseNumberList(s.batch) ?? [],
      leapfrog: (parseNumberList(s.L) ?? [10]).map(Math.round),
    },
    tuner: tunerCfg,
    budget: { [s.unit]: s.budget },
    metric: { kind: s.metric, max_samples: s.msamples },
    thin: s.thin, start: s.start, seed: s.seed,
  };
}

/** Presets: partial states applied over the defaults. The first four are the core's presets
 * (`tunelab tune --preset NAME` runs the same config; an end-to-end test checks they agree). */
export const PRESETS = {
  demo: { ...DEFAULTS },
  'paper-logreg': { data: 'simulate', n: 10000, d: 10, dseed: 0, test: 0.2, model: 'logistic', prior: 10, sampler: 'sgld',
    hfrom: -7.5, hto: -1, hby: 0.5, batch: '1,0.1,0.01,0.001', L: '10', tuner: 'mamba', eta: 3, scoring: 'round',
    unit: 'grad_evals', budget: 2e7, metric: 'ksd', msamples: 1000, thin: 10, start: 'map', seed: 0 },
  'digits-bnn': { data: 'digits', standardize: true, test: 0.2, model: 'bnn', hidden: 16, prior: 1, sampler: 'sgld',
    hfrom: -6, hto: -2, hby: 0.5, batch: '0.1,0.01', L: '5', tuner: 'mamba', eta: 3, scoring: 'round',
    unit: 'grad_evals', budget: 3e6, metric: 'ksd', msamples: 300, thin: 10, start: 'map', seed: 0 },
  gaussian: { data: 'none', model: 'gaussian', sampler: 'sgld', hfrom: -4, hto: 0, hby: 0.5, batch: '1', L: '5',
    tuner: 'mamba', eta: 3, scoring: 'round', unit: 'iterations', budget: 20000, metric: 'ksd', msamples: 500, thin: 5, start: 'zero', seed: 0 },
  banana: { data: 'none', model: 'banana', sampler: 'sgld', hfrom: -4, hto: 0, hby: 0.5, batch: '1', L: '5',
    tuner: 'mamba', eta: 3, scoring: 'round', unit: 'iterations', budget: 20000, metric: 'ksd', msamples: 500, thin: 5, start: 'zero', seed: 0 },
  mixture: { data: 'none', model: 'mixture', sampler: 'sgld', hfrom: -3, hto: 0.5, hby: 0.5, batch: '1', L: '5',
    tuner: 'mamba', eta: 2, scoring: 'round', unit: 'iterations', budget: 20000, metric: 'ksd', msamples: 500, thin: 5, start: 'zero', seed: 0 },
};

/** The core presets the page mirrors (name in PRESETS = name of the core preset). */
export const CORE_PRESETS = ['demo', 'paper-logreg', 'digits-bnn', 'gaussian'];
