// The bandit panel: GP-UCB (Nguyen et al. 2020), TTTS / D-TTTS (Shang, Kaufmann & Valko 2019), successive
// halving and Hyperband against the uniform / random floor, on problems with a known optimum (src/bandit).
// Live: mean simple and cumulative regret over the repeats as the chunks arrive; after the run: the bands
// over repeats, regret against compute, and per algorithm the GP posterior (1-D), the chosen schedules
// (ordered arms) or the pulls and posterior of each arm (discrete arms). The `sgmcmc-ksd` problem tunes SG-MCMC
// configurations on the user's data (built-in or an uploaded CSV): its table of sampler runs is reported first.
import { Panel } from '../panel.js';
import { el, nextFrame } from '../../shared/dom.js';
import { parseNumbers } from '../../shared/hash.js';
import { LineChart, legend, alignSeries, seriesStyle, placeholder } from '../../shared/charts.js';

/** The grey of the algorithms not highlighted on the regret charts (3.7:1 on white, WCAG's 3:1 for graphics). */
const CONTEXT_GREY = '#7c8591';
import { CanvasPlot, keyBox, drawGp1d } from '../../shared/canvas.js';
import { MARK_GLYPH } from '../../shared/marks.js';
import { fmtSci } from '../../shared/format.js';
import { readBandit, recText, ARM_STATS_CAP } from './reading.js';

const DISCRETE = ['reservoir', 'bernoulli', 'logreg-sgd', 'sgmcmc-ksd', 'hpo'];
// Real tuning problems of the page; the MNIST networks are the core's presets' problems (`tunelab bandit --preset mlp-mnist`,
// `mlp-mnist-poster`, `mlp-mnist-poster-adam`), whose presets (200 pulls x 8 repeats) take minutes natively.
const HPO = [['svm-breast-cancer', 'RBF SVM on breast cancer: C, gamma (the poster\'s box)'], ['svm-wine', 'RBF SVM on wine: C, gamma (the poster\'s box)'],
  ['kr-breast-cancer', 'RBF kernel ridge classifier on breast cancer: C, gamma'], ['kr-wine', 'RBF kernel ridge classifier on wine: C, gamma'],
  ['mlp-digits', 'Neural network on the 8x8 digits: learning rate, width, L2, batch'],
  ['mlp-mnist', 'Neural network on 1,000 MNIST digits (7x7): learning rate, width, L2, batch'],
  ['mlp-mnist-poster', 'Neural network on MNIST, the D-TTTS poster\'s box (width, alpha, learning rate), 4 epochs of SGD'],
  ['mlp-mnist-poster-adam', 'Neural network on MNIST, the poster\'s box trained as scikit-learn does (Adam, up to 200 epochs: slow, minutes per repeat)']];
/** The problem of each MNIST network option: the core's presets' (src/experiments/bandit/hpo/spec.rs, `HpoSpec::mlp`, `mlp_poster`, `mlp_poster_adam`). */
const MNIST = { mnist: { per_class: 100 } };
const POSTER = { kind: 'hpo', model: 'mlp', data: MNIST, log10_lr: [-5, -1], width: [5, 50], width_scale: 'uniform', alpha: [0, 0.9], batch: [200, 200] };
/** @type {Record<string, object>} */
const MLP_PROBLEMS = {
  'mlp-digits': { kind: 'hpo', model: 'mlp', data: 'digits' },
  'mlp-mnist': { kind: 'hpo', model: 'mlp', data: MNIST, log10_l2: [-6, -1] },
  'mlp-mnist-poster': POSTER,
  'mlp-mnist-poster-adam': { ...POSTER, solver: 'adam', epochs: 200 },
};
/** The HPO option of an `mlp` problem (its data and box). @param {any} p */
function mlpOption(p) {
  if (typeof p.data !== 'object' || !p.data?.mnist) return 'mlp-digits';
  if (!p.alpha) return 'mlp-mnist';
  return p.solver === 'adam' ? 'mlp-mnist-poster-adam' : 'mlp-mnist-poster';
}
const SAMPLERS = [['sgld', 'SGLD'], ['sgld-cv', 'SGLD-CV'], ['sghmc', 'SGHMC'], ['sghmc-cv', 'SGHMC-CV'], ['sgnht', 'SGNHT'], ['sgnht-cv', 'SGNHT-CV']];
const ALGOS = [
  ['d-ttts', 'D-TTTS'], ['d-ttts-mp', 'D-TTTS (recommend most pulled)'], ['ttts', 'TTTS'],
  ['successive-halving', 'Successive halving'], ['hyperband', 'Hyperband'], ['uniform', 'Uniform (floor, always run)'],
  ['gp-ucb', 'GP-UCB (time-varying)'], ['gp-ucb-noninvariant', 'GP-UCB, non-invariant kernel'],
  ['gp-ucb-stationary', 'GP-UCB, stationary'], ['random', 'Random search (a new arm per pull; floor of box problems)'],
];
const DISCRETE_ALGOS = ['d-ttts', 'd-ttts-mp', 'ttts', 'successive-halving', 'hyperband', 'uniform'];
const floorOf = (problem) => (DISCRETE.includes(problem) ? 'uniform' : 'random');

/** Number list "0.1, 0.5,0.9" -> numbers, or null. */
export class BanditPanel extends Panel {
  constructor(ctx) {
    super(ctx);
    this.name = 'bandit';
    this.kind = 'bandit';
    this.prefix = 'bandit';
    this.title = 'Bandit tuners and their regret';
    this.tab = 'Bandits';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'You can afford only a limited number of tries. Which way of spending them finds the best option fastest, '
        + 'compared with simply trying everything equally?',
      first: 'Press Run with the default problem. Lower curves are better: they lose less by not yet having found the best option.',
    };
    this.intro = 'Pick a problem whose optimum is known and the algorithms to compare; every algorithm runs the same seeded repeats, '
      + 'so the regret curves (mean over repeats, band = ±1.96 standard errors, clipped to the range of the repeats) compare like with like. '
      + 'Uniform allocation or random search always runs as the floor to beat. “SG-MCMC configurations by KSD” tunes samplers on your data: '
      + 'every configuration is run first (a table of real runs), then the tuners pull from it, so regret is exact.';
    this.readyText = 'Ready. The small default run takes a few seconds.';
    this.presetHelp = 'The core’s presets (tunelab bandit --preset NAME) at full size, each with its time natively on one thread (scripts/dev/page-timings.mjs --presets, 2026-11-27 on an idle 2-core machine; the page on one thread takes 1.3-2x as long).';
    this.presets = [['beta-reservoir', 'Beta reservoir: D-TTTS, TTTS, SH, Hyperband (4 s)'], ['tvo-schedule', 'TVO schedule surrogate (closed form, not the TVO): GP-UCB ablations (5 s)'],
      ['branin', 'Branin: GP-UCB vs random search (1 s)'], ['logreg-sgd', 'Logistic regression by SGD: tune step and L2 (5 s)'],
      ['sgmcmc-ksd', 'SG-MCMC configurations by KSD: D-TTTS, TTTS, SH, Hyperband (5 s)'],
      ['svm-breast-cancer', 'RBF SVM (C, gamma) on breast cancer: the poster\'s SVM tuning (36 s)'], ['svm-wine', 'RBF SVM (C, gamma) on wine (15 s)'],
      ['kernel-ridge-breast-cancer', 'Kernel ridge classifier (C, gamma) on breast cancer, the former stand-in (39 s)'], ['kernel-ridge-wine', 'Kernel ridge classifier (C, gamma) on wine (10 s)'],
      ['mlp-digits', 'Neural network (lr, width, L2, batch) on the 8x8 digits (10 s)']];
    this.defaults = {
      problem: 'reservoir', a: 1, b: 1, means: '0.1, 0.3, 0.5, 0.7, 0.75', function: 'wave1d', noise: 0.1, drift: 0, d: 3, rate: 0.04,
      algos: ['d-ttts', 'ttts', 'successive-halving', 'uniform'], rounds: 300, repeats: 8, seed: 1,
      data: 'simulate', label: 'y', n: 1000, dim: 5, samplers: ['sgld', 'sgld-cv', 'sghmc', 'sgnht-cv'], steplo: -6, stephi: -2,
      pool: 40, reps: 3, iters: 1000, hpo: 'kr-wine',
    };
    const sg = (s) => s.problem === 'sgmcmc-ksd';
    const sgSim = (s) => sg(s) && s.data === 'simulate';
    const isFn = (s) => s.problem === 'function';
    this.fields = [
      { key: 'problem', label: 'Problem', type: 'select', options: [['reservoir', 'Bernoulli arms from a Beta reservoir'], ['bernoulli', 'Fixed Bernoulli arms'],
        ['function', 'Test function with noise'], ['tvo-schedule', 'TVO schedule surrogate (closed form, not the TVO)'], ['logreg-sgd', 'Logistic regression by SGD (digits)'], ['sgmcmc-ksd', 'SG-MCMC configurations by KSD (your data)'],
        ['hpo', 'Real tuning: train a model per pull (kernel classifier, network)']] },
      { key: 'hpo', label: 'Model and data', type: 'select', options: HPO, show: (s) => s.problem === 'hpo',
        help: 'Each pull trains the model with the arm\'s hyper-parameters on a fresh random fold; the reward is the validation accuracy (binarised for TTTS / D-TTTS). An arm\'s true value is its mean accuracy over 10 fixed folds.' },
      { key: 'data', label: 'Data', type: 'select', show: sg, options: [['simulate', 'Simulated logistic data'], ['upload', 'Upload a CSV (labels 0 / 1)']] },
      { key: 'label', label: 'Label column', type: 'text', show: (s) => sg(s) && s.data === 'upload', help: 'Values 0 and 1 (logistic regression); the other columns are features, standardised.' },
      { key: 'n', label: 'Rows n', type: 'int', min: 20, max: 100000, show: sgSim },
      { key: 'dim', label: 'Features d', type: 'int', min: 1, max: 100, show: sgSim },
      { key: 'samplers', label: 'Samplers in the reservoir', type: 'checks', options: SAMPLERS, show: sg },
      { key: 'steplo', label: 'log₁₀ step from', type: 'num', min: -12, max: 1, show: sg, help: 'Step sizes are drawn log-uniformly between these two.' },
      { key: 'stephi', label: 'log₁₀ step to', type: 'num', min: -12, max: 1, show: sg },
      { key: 'pool', label: 'Configurations in the pool', type: 'int', min: 2, max: 2000, show: sg },
      { key: 'reps', label: 'Runs per configuration', type: 'int', min: 1, max: 20, show: sg, help: 'A pull returns the reward of one of these runs; the arm’s value is their mean.' },
      { key: 'iters', label: 'Iterations per run', type: 'int', min: 20, max: 25000, show: sg, help: 'Every 5th sample is kept and scored by the KSD.' },
      { key: 'a', label: 'Beta a', type: 'num', min: 0.01, max: 100, show: (s) => s.problem === 'reservoir' },
      { key: 'b', label: 'Beta b', type: 'num', min: 0.01, max: 100, show: (s) => s.problem === 'reservoir' },
      { key: 'means', label: 'Arm means', type: 'text', show: (s) => s.problem === 'bernoulli', help: 'Comma-separated, each in [0, 1].' },
      { key: 'function', label: 'Function', type: 'select', show: isFn,
        options: [['wave1d', 'Wave (1-D)'], ['branin', 'Branin (2-D)'], ['hartmann3', 'Hartmann-3'], ['hartmann6', 'Hartmann-6'], ['rosenbrock', 'Rosenbrock (2-D)']] },
      { key: 'noise', label: 'Noise sd', type: 'num', min: 0, max: 100, show: (s) => isFn(s) || s.problem === 'tvo-schedule' },
      { key: 'drift', label: 'Drift', type: 'num', min: 0, max: 100, show: isFn, help: 'Above 0 the optimum moves over time (time-varying problem).' },
      { key: 'd', label: 'Schedule points d', type: 'int', min: 1, max: 10, show: (s) => s.problem === 'tvo-schedule' },
      { key: 'rate', label: 'Drift rate', type: 'num', min: 0, max: 10, show: (s) => s.problem === 'tvo-schedule', help: 'How fast the best schedule moves as training goes on.' },
      { key: 'algos', label: 'Algorithms', type: 'checks', options: ALGOS, enabled: (s, v) => this.algoApplies(s, v) },
      { key: 'rounds', label: 'Rounds', type: 'int', min: 1, max: 100000 },
      { key: 'repeats', label: 'Repeats (seeds)', type: 'int', min: 1, max: 1000 },
      { key: 'seed', label: 'Seed', type: 'int', min: 0, max: 2 ** 31 },
    ];
    this.groups = [
      { legend: 'Problem', keys: ['problem', 'hpo', 'a', 'b', 'means', 'function', 'noise', 'drift', 'd', 'rate', 'data', 'label', 'n', 'dim'],
        extra: () => this.uploadRows((s) => sg(s) && s.data === 'upload') },
      { legend: 'SG-MCMC reservoir', keys: ['samplers', 'steplo', 'stephi', 'pool', 'reps', 'iters'] },
      { legend: 'Algorithms', keys: ['algos'] },
      { legend: 'Budget', keys: ['rounds', 'repeats', 'seed'] },
    ];
    this.curves = [];
  }

  algoApplies(s, v) {
    if (v === 'random') return true;
    const discrete = DISCRETE.includes(s.problem);
    if (discrete !== DISCRETE_ALGOS.includes(v)) return false;
    if (v === 'gp-ucb-noninvariant') return s.problem === 'tvo-schedule';
    return true;
  }

  /** Keeps the algorithm list consistent with the problem: applicable ones only, the floor always in. */
  normalise() {
    const s = this.state;
    let algos = s.algos.filter((v) => this.algoApplies(s, v));
    if (algos.filter((v) => v !== floorOf(s.problem)).length === 0) {
      algos = DISCRETE.includes(s.problem) ? ['d-ttts', 'ttts', 'successive-halving'] : s.problem === 'tvo-schedule'
        ? ['gp-ucb', 'gp-ucb-noninvariant', 'gp-ucb-stationary'] : ['gp-ucb', 'gp-ucb-stationary'];
    }
    if (!algos.includes(floorOf(s.problem))) algos.push(floorOf(s.problem));
    this.state = { ...s, algos: ALGOS.map(([v]) => v).filter((v) => algos.includes(v)) };
    for (const [v] of ALGOS) /** @type {HTMLInputElement} */ (document.getElementById(`${this.id('algos')}-${v}`)).checked = this.state.algos.includes(v);
  }

  afterRefresh() {
    const floor = /** @type {HTMLInputElement} */ (document.getElementById(`${this.id('algos')}-${floorOf(this.state.problem)}`));
    if (floor) { floor.checked = true; floor.disabled = true; }
  }

  writeForm() { super.writeForm(); this.normalise(); this.refresh(); }

  validate(s) {
    const out = [];
    if (s.problem === 'bernoulli' && !(parseNumbers(s.means)?.length >= 2)) out.push('Arm means: give at least two numbers, separated by commas.');
    if (s.algos.length === 0) out.push('Choose at least one algorithm.');
    if (s.problem === 'sgmcmc-ksd') {
      if (s.samplers.length === 0) out.push('Choose at least one sampler for the reservoir.');
      if (s.steplo > s.stephi) out.push('log₁₀ step: “from” must not exceed “to”.');
      if (s.data === 'upload') { const why = this.fileMissing('Problem → CSV file'); if (why) out.push(why); }
    }
    return out;
  }

  isCoreConfig(c) { return 'problem' in c && typeof c.problem === 'object'; }

  toConfig(s) {
    const problem = (() => {
      switch (s.problem) {
        case 'reservoir': return { kind: 'reservoir', a: s.a, b: s.b };
        case 'bernoulli': return { kind: 'bernoulli', means: parseNumbers(s.means) ?? [] };
        case 'function': return { kind: 'function', function: s.function, noise_sd: s.noise, drift: s.drift };
        case 'tvo-schedule': return { kind: 'tvo-schedule', d: s.d, rate: s.rate, noise_sd: s.noise };
        case 'sgmcmc-ksd': {
          const data = s.data === 'upload' ? { source: 'upload', name: this.csvName || '', label: s.label || 'y', standardize: true }
            : { source: 'simulate', n: s.n, d: s.dim, seed: 0 };
          return { kind: 'sgmcmc-ksd', data, samplers: s.samplers, log10_step: [s.steplo, s.stephi], pool: s.pool, replicates: s.reps, iterations: s.iters };
        }
        case 'hpo': return MLP_PROBLEMS[s.hpo] ?? { kind: 'hpo', model: s.hpo.startsWith('svm-') ? 'svm' : 'kernel-ridge', data: s.hpo.endsWith('breast-cancer') ? 'breast-cancer' : 'wine' };
        default: return { kind: 'logreg-sgd' };
      }
    })();
    const algorithms = s.algos.filter((v) => this.algoApplies(s, v)).map((v) => (v === 'd-ttts-mp'
      ? { kind: 'd-ttts', recommend: 'most-pulled', label: 'd-ttts (most pulled)' } : { kind: v }));
    return { problem, algorithms, rounds: s.rounds, repeats: s.repeats, seed: s.seed };
  }

  fromConfig(c) {
    const p = c.problem ?? {};
    const out = { rounds: c.rounds, repeats: c.repeats ?? 10, seed: c.seed ?? 0 };
    switch (p.kind) {
      case 'reservoir': Object.assign(out, { problem: 'reservoir', a: p.a, b: p.b }); break;
      case 'bernoulli': Object.assign(out, { problem: 'bernoulli', means: (p.means ?? []).join(', ') }); break;
      case 'function': Object.assign(out, { problem: 'function', function: p.function, noise: p.noise_sd ?? 0.1, drift: p.drift ?? 0 }); break;
      case 'tvo-schedule': Object.assign(out, { problem: 'tvo-schedule', d: p.d ?? 3, rate: p.rate ?? 0.04, noise: p.noise_sd ?? 0.1 }); break;
      case 'logreg-sgd': out.problem = 'logreg-sgd'; break;
      case 'hpo': Object.assign(out, { problem: 'hpo', hpo: p.model === 'mlp' ? mlpOption(p) : `${p.model === 'svm' ? 'svm' : 'kr'}-${p.data === 'breast-cancer' ? 'breast-cancer' : 'wine'}` }); break;
      case 'sgmcmc-ksd': {
        out.problem = 'sgmcmc-ksd';
        const d = p.data ?? { source: 'simulate', n: 1000, d: 5 };
        if (d.source === 'upload') Object.assign(out, { data: 'upload', label: d.label ?? 'y' });
        else if (d.source === 'simulate') Object.assign(out, { data: 'simulate', n: d.n ?? 1000, dim: d.d ?? 5 });
        if (p.samplers) out.samplers = p.samplers.filter((k) => SAMPLERS.some(([v]) => v === k));
        if (p.log10_step) Object.assign(out, { steplo: p.log10_step[0], stephi: p.log10_step[1] });
        for (const [k, key] of [['pool', 'pool'], ['replicates', 'reps'], ['iterations', 'iters']]) if (p[k] != null) out[key] = p[k];
        break;
      }
      default: break;
    }
    out.algos = (c.algorithms ?? []).map((a) => (a.kind === 'd-ttts' && a.recommend === 'most-pulled' ? 'd-ttts-mp' : a.kind))
      .filter((v) => ALGOS.some(([k]) => k === v));
    return out;
  }

  // ---------------------------------------------------------------- charts

  buildCharts(host) {
    const P = (k) => this.id(k);
    this.xSel = el('select', { id: P('xaxis') }, el('option', { value: 'rounds', text: 'rounds' }), el('option', { value: 'compute', text: 'compute (after the run)' }));
    this.logBox = el('input', { type: 'checkbox', id: P('ylog') });
    // Highlight one algorithm: its line and band in colour, the others thin grey lines (still told apart by their
    // markers and dashes), so that four crossing curves with bands do not tangle. The paper's D-TTTS by default.
    this.focusSel = /** @type {HTMLSelectElement} */ (el('select', { id: P('focus') }, el('option', { value: '', text: 'all alike' })));
    this.focusSel.addEventListener('change', () => { this.focusChosen = true; this.redraw(true); });
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const simpleHost = el('div', { class: 'chart chart-small', id: P('chart-simple'), role: 'img', 'aria-label': 'Simple regret of each algorithm against rounds: mean over repeats with a band' });
    const cumHost = el('div', { class: 'chart chart-small', id: P('chart-cumulative'), role: 'img', 'aria-label': 'Cumulative regret of each algorithm against rounds: mean over repeats with a band' });
    host.append(this.card('regret', ['Regret ', '(mean over repeats; band ±1.96 s.e., clipped to the repeats’ range)'],
      el('div', { class: 'chart-controls' },
        el('label', { for: P('xaxis'), text: 'x axis' }), this.xSel,
        el('label', { class: 'inline-check' }, this.logBox, 'log y'),
        el('label', { for: P('focus'), text: 'highlight' }), this.focusSel),
      this.legendEl,
      el('div', { class: 'two-col' },
        el('div', {}, el('h3', { text: 'Simple regret (optimum − value of the recommended arm)' }), simpleHost),
        el('div', {}, el('h3', { text: 'Cumulative regret (sum of optimum − value pulled)' }), cumHost))));
    this.simple = new LineChart(simpleHost, { xLabel: 'round', yLabel: 'simple regret', xInt: true, empty: 'Press Run: the regret curves grow here live.' });
    this.cumulative = new LineChart(cumHost, { xLabel: 'round', yLabel: 'cumulative regret', xInt: true, empty: 'One line per algorithm.' });
    this.xSel.addEventListener('change', () => this.redraw(true));
    this.logBox.addEventListener('change', () => this.redraw(true));

    this.algoSel = el('select', { id: P('detail-algo'), disabled: true });
    this.detail = el('div', { class: 'detail' }, el('p', { class: 'placeholder', text: 'After a run: the GP posterior (1-D problems), the chosen schedules (ordered arms) or the pulls and posterior of each arm (discrete arms), from repeat 0.' }));
    host.append(this.card('detail', ['What an algorithm did ', '(repeat 0)'],
      el('div', { class: 'row inline' }, el('label', { for: P('detail-algo'), text: 'Algorithm' }), this.algoSel),
      this.detail));
    this.algoSel.addEventListener('change', () => this.drawDetail());

    this.table = el('table', { class: 'arms', id: P('table') },
      el('thead', {}, el('tr', {}, ...['algorithm', 'simple regret', '95% band', 'cumulative regret', '95% band', 'distinct arms', 'compute', 'GP failures', 'recommended (repeat 0)'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    host.append(this.card('table', 'Final regret', el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'Final regret per algorithm (scrollable)' }, this.table),
      this.readingEl = el('div', { class: 'reading', id: P('reading'), 'aria-live': 'polite' }, el('p', { class: 'placeholder', text: 'After a run: who won, by how much, and why.' }))));

    // Distinct arms pulled over rounds (the poster's "effective arms"), after the run.
    const armsHost = el('div', { class: 'chart chart-small', id: P('chart-distinct'), role: 'img', 'aria-label': 'Distinct arms pulled by each algorithm against rounds: mean over repeats with a band' });
    this.distinctLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    host.append(this.card('distinct', ['Arms explored ', '(distinct arms pulled so far; mean over repeats, band ±1.96 s.e.)'],
      this.distinctLegend, armsHost));
    this.distinct = new LineChart(armsHost, { xLabel: 'round', yLabel: 'distinct arms pulled', xInt: true, empty: 'After the run: how many arms each algorithm tried.' });
  }

  begin() {
    this.curves = [];
    this.report = null;
    this.xSel.value = 'rounds';
    this.algoSel.disabled = true;
    this.algoSel.replaceChildren();
    placeholder(this.detail, 'Waiting for the run to finish…');
    this.table.tBodies[0].replaceChildren();
    this.simple.clear('Starting…');
    this.cumulative.clear('Starting…');
    this.distinct.clear('After the run: how many arms each algorithm tried.');
    this.readingEl.replaceChildren(el('p', { class: 'placeholder', text: 'Running: the reading of the result appears when the run ends.' }));
    this.reading = null;
  }

  onEvents(events, elapsed) {
    // A batch with the start builds one chart now and leaves the other (and the data) to the next frame: the
    // redraw at the end of the batch would build the second chart in the same task (52-55 ms of CPU for the
    // D-TTTS lesson's step 4 on an idle machine, where the first events arrive together).
    let rebuilt = false;
    for (const ev of events) {
      switch (ev.type) {
        case 'started':
          this.curves = ev.algorithms.map((name) => ({ name, rounds: [], simple: [], simpleLo: [], simpleHi: [], cumulative: [], cumulativeLo: [], cumulativeHi: [] }));
          this.totalRounds = ev.rounds;
          this.repeats = ev.repeats;
          this.redraw(true);
          rebuilt = true;
          break;
        case 'progress':
          for (const c of ev.curves) {
            const cur = this.curves.find((k) => k.name === c.name);
            if (!cur) continue;
            cur.rounds.push(...c.rounds);
            cur.simple.push(...c.simple_regret); cur.simpleLo.push(...c.simple_lo); cur.simpleHi.push(...c.simple_hi);
            cur.cumulative.push(...c.cumulative_regret); cur.cumulativeLo.push(...c.cumulative_lo); cur.cumulativeHi.push(...c.cumulative_hi);
          }
          this.progress(ev.round / ev.rounds, `Round ${ev.round} of ${ev.rounds} · ${this.repeats} repeats × ${this.curves.length} algorithms · ${elapsed.toFixed(1)} s`);
          break;
        case 'preparing':
          if (this.state.problem === 'hpo') {
            // a real tuning problem: the reference configurations' true values (the optimum) before the first round
            this.progress(ev.total ? ev.done / ev.total : 0, `Computing the optimum first: ${ev.done} of ${ev.total} reference configurations (10 trainings each) · ${elapsed.toFixed(1)} s`);
            this.simple.clear(`Reference configurations: ${ev.done} of ${ev.total}…`);
            break;
          }
          // the SG-MCMC table: every configuration's runs before the first round
          this.progress(ev.total ? ev.done / ev.total : 0, `Running every configuration first: ${ev.done} of ${ev.total} sampler runs · ${elapsed.toFixed(1)} s`);
          this.simple.clear(`Running the configurations: ${ev.done} of ${ev.total} sampler runs…`);
          break;
        case 'done': break;
        default: this.unknownEvents.push(ev.type);
      }
    }
    // After a rebuild the queued frame's redraw (`stale`) builds the other chart and sets both charts' data.
    if (!rebuilt) this.redraw(false);
  }

  /**
   * The result in three tasks (the regret charts; the per-algorithm charts; the table, reading and distinct-arms
   * chart): 33-42 ms of main thread in one task before.
   * @param {any} report @param {number} seconds
   */
  async finish(report, seconds) {
    this.report = report;
    this.xSel.value = 'rounds';
    this.redraw(true);
    while (this.stale?.size) { await nextFrame(); this.redraw(false); }
    await nextFrame();
    this.algoSel.replaceChildren(...report.algorithms.map((a, i) => el('option', { value: String(i), text: a.name })));
    const first = report.algorithms.findIndex((a) => a.charts?.gp_1d || a.charts?.schedules || a.charts?.arms);
    this.algoSel.value = String(Math.max(0, first));
    this.algoSel.disabled = false;
    this.drawDetail();
    await nextFrame();
    const tb = this.table.tBodies[0];
    const best = Math.min(...report.algorithms.map((a) => a.final_simple_regret.mean));
    tb.replaceChildren(...report.algorithms.map((a) => el('tr', { class: a.final_simple_regret.mean === best ? 'best' : null, 'data-algo': a.name },
      el('th', { scope: 'row', class: 'name', text: a.name }),
      el('td', { text: fmtSci(a.final_simple_regret.mean) }), el('td', { text: `[${fmtSci(a.final_simple_regret.lo)}, ${fmtSci(a.final_simple_regret.hi)}]` }),
      el('td', { text: fmtSci(a.final_cumulative_regret.mean) }), el('td', { text: `[${fmtSci(a.final_cumulative_regret.lo)}, ${fmtSci(a.final_cumulative_regret.hi)}]` }),
      el('td', { text: a.distinct_arms?.mean?.length ? String(Math.round(a.distinct_arms.mean[a.distinct_arms.mean.length - 1])) : '–' }),
      el('td', { text: `${fmtSci(a.compute.units[a.compute.units.length - 1] ?? NaN)} ${a.compute.unit}` }),
      el('td', { text: String(a.failures) }),
      el('td', { class: 'rec', text: recText(a.recommended?.[0], report.config?.problem) }))));
    this.reading = readBandit(report);
    this.readingEl.replaceChildren(el('p', { text: this.reading.join(' ') }));
    this.drawDistinct();
    const lowest = report.algorithms.find((a) => a.final_simple_regret.mean === best);
    this.message(`Done in ${seconds.toFixed(1)} s: lowest final simple regret ${fmtSci(best)} (${lowest?.name}).`, 'info');
    this.progress(1, `Done · ${report.rounds[report.rounds.length - 1]} rounds · ${report.config.repeats} repeats · ${seconds.toFixed(1)} s`);
  }

  /** Series for the regret charts: live means, or the report's mean and band. */
  regretItems(which) {
    const r = this.report;
    const compute = this.xSel.value === 'compute' && r;
    if (r) {
      return r.algorithms.map((a) => {
        const c = which === 'simple' ? a.simple_regret : a.cumulative_regret;
        return { name: a.name, x: compute ? a.compute.units : r.rounds, y: c.mean, lo: c.lo, hi: c.hi };
      });
    }
    return this.curves.map((c) => (which === 'simple'
      ? { name: c.name, x: c.rounds, y: c.simple, lo: c.simpleLo, hi: c.simpleHi }
      : { name: c.name, x: c.rounds, y: c.cumulative, lo: c.cumulativeLo, hi: c.cumulativeHi }));
  }

  /**
   * The two regret charts. At most one is built (uPlot's constructor) per call, the other in the next frame
   * (`stale`): both in one task took 35-42 ms of main thread at the run's first events.
   * @param {boolean} rebuild
   */
  redraw(rebuild) {
    if (!this.stale) this.stale = new Set();
    const log = this.logBox.checked;
    const keep = log ? (v) => Number.isFinite(v) && v > 0 : Number.isFinite;
    const names = (this.report?.algorithms.map((a) => a.name)) ?? this.curves.map((c) => c.name);
    if (names.length === 0) return;
    const focus = this.focusOf(names);
    const series = names.map((n, i) => (focus && n !== focus
      ? { label: n, ...seriesStyle(i), color: CONTEXT_GREY, band: false, width: 1 }
      : { label: n, ...seriesStyle(i), band: true, width: focus ? 2.5 : n === 'uniform' || n === 'random' ? 1.5 : 2 }));
    const unit = this.report?.algorithms[0]?.compute.unit ?? 'pulls';
    const xLabel = this.xSel.value === 'compute' && this.report ? unit : 'round';
    if (rebuild) this.stale = new Set(['simple', 'cumulative']);
    let built = false;
    for (const [chart, which] of /** @type {[LineChart, string][]} */ ([[this.simple, 'simple'], [this.cumulative, 'cumulative']])) {
      const data = alignSeries(this.regretItems(which), keep);
      if (this.stale.has(which) || !chart.u || chart.yLog !== log || chart.xLabel !== xLabel) {
        if (built) { this.stale.add(which); continue; }
        built = true;
        this.stale.delete(which);
        chart.yLog = log; chart.xLabel = xLabel;
        chart.reset(series, data);
      } else chart.setData(data);
    }
    if (this.stale.size && !this.redrawQueued) {
      this.redrawQueued = true;
      requestAnimationFrame(() => { this.redrawQueued = false; this.redraw(false); });
    }
    legend(this.legendEl, series);
  }

  /**
   * The algorithm the regret charts highlight: the menu's choice once the student made one, else D-TTTS (the
   * paper's method) when it runs, else none; the menu lists the algorithms of the run.
   * @param {string[]} names @returns {string}
   */
  focusOf(names) {
    const sel = /** @type {HTMLSelectElement} */ (this.focusSel);
    const have = [...sel.options].slice(1).map((o) => o.value);
    if (have.join('\n') !== names.join('\n')) {
      const keep = sel.value;
      sel.replaceChildren(el('option', { value: '', text: 'all alike' }), ...names.map((n) => el('option', { value: n, text: n })));
      sel.value = names.includes(keep) ? keep : '';
    }
    if (!this.focusChosen) sel.value = names.includes('d-ttts') ? 'd-ttts' : '';
    return sel.value;
  }

  /** Distinct arms pulled against rounds, per algorithm (after the run). */
  drawDistinct() {
    const r = this.report;
    if (!r || !r.algorithms.some((a) => a.distinct_arms?.mean?.length)) return;
    const series = r.algorithms.map((a, i) => ({ label: a.name, ...seriesStyle(i), band: true, width: 2 }));
    const data = alignSeries(r.algorithms.map((a) => ({ name: a.name, x: r.rounds, y: a.distinct_arms.mean, lo: a.distinct_arms.lo, hi: a.distinct_arms.hi })), Number.isFinite);
    this.distinct.reset(series, data);
    legend(this.distinctLegend, series);
  }

  chartData() {
    const pick = (which) => this.regretItems(which).map((s) => ({ name: s.name, x: s.x, mean: s.y, lo: s.lo ?? null, hi: s.hi ?? null }));
    return { x: this.xSel.value, simple: pick('simple'), cumulative: pick('cumulative'), detail: this.detailKind ?? null };
  }

  canvases() {
    return [this.simple.canvas(), this.cumulative.canvas(), this.distinct.canvas(), ...this.detail.querySelectorAll('canvas')];
  }

  // ---------------------------------------------------------------- per-algorithm charts (canvas)

  drawDetail() {
    const a = this.report?.algorithms[Number(this.algoSel.value)];
    this.detailKind = null;
    if (!a) return;
    const ch = a.charts ?? {};
    const parts = [];
    if (ch.gp_1d) parts.push(['gp_1d', 'GP posterior of the reward after the last round, chosen points coloured by round (their Figure 2)']);
    if (ch.schedules) parts.push(['schedules', 'Chosen schedule points over rounds (dots) and the optimal schedule at each round (lines) (their Figure 3)']);
    // The report keeps the most-pulled arms only (ARM_STATS_CAP): the captions and axes say which arms are shown.
    const which = ch.arms?.length >= ARM_STATS_CAP
      ? `showing ${ch.arms.length} arms, not all: the ${ch.arms.length} most pulled in repeat 0 (${a.name} pulled ${Math.round(a.distinct_arms?.mean?.at(-1) ?? ch.arms.length)} distinct arms per repeat on average; the report keeps at most ${ARM_STATS_CAP} per algorithm)`
      : `all ${ch.arms?.length ?? 0} arms pulled in repeat 0`;
    if (ch.arms?.length) parts.push(['pulls', `Pulls per arm: ${which}, sorted by true mean`], ['posterior', `Mean reward per arm: ${which}; true mean (black), posterior mean and ±2 sd (blue) or mean reward (amber)`]);
    if (!parts.length) { placeholder(this.detail, `No per-arm chart for ${a.name}: it keeps no GP on a 1-D box, no ordered arms and no discrete arm statistics.`); return; }
    const labelled = ch.arms?.some((x) => x.label);
    this.detailKind = parts.map((p) => p[0]).join(',');
    this.detail.replaceChildren(...parts.map(([k, label]) => el('figure', { class: 'detail-fig' },
      el('canvas', { class: 'detail-canvas', 'data-kind': k, role: 'img', 'aria-label': `${a.name}: ${label}` }), el('figcaption', { text: label }))));
    for (const c of this.detail.querySelectorAll('canvas')) {
      const k = c.dataset.kind;
      if (k === 'gp_1d') drawGp1d(c, ch.gp_1d);
      else if (k === 'schedules') drawSchedules(c, ch.schedules);
      else if (k === 'pulls') drawPulls(c, ch.arms, armAxis(ch.arms.length));
      else drawPosterior(c, ch.arms, armAxis(ch.arms.length));
    }
    if (labelled) this.detail.append(armTable(a.name, ch.arms));
  }
}

/** The most pulled configurations of repeat 0 with what they are (SG-MCMC sampler, step, batch and KSD). */
function armTable(name, arms) {
  const top = [...arms].sort((x, y) => y.pulls - x.pulls || y.true_value - x.true_value).slice(0, 12);
  const best = Math.max(...arms.map((x) => x.true_value));
  return el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': `${name}: most pulled configurations (scrollable)` },
    el('table', { class: 'arms arm-configs' },
      el('caption', { text: `${name}: the 12 most pulled configurations (repeat 0)` }),
      el('thead', {}, el('tr', {}, ...['configuration', 'pulls', 'mean reward', 'true value'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody', {}, ...top.map((x) => el('tr', { class: x.true_value === best ? 'best' : null },
        el('th', { scope: 'row', class: 'name', text: x.label ?? `arm ${x.arm}` }), el('td', { text: String(x.pulls) }),
        el('td', { text: x.mean_reward == null ? '–' : fmtSci(x.mean_reward) }), el('td', { text: fmtSci(x.true_value) }))))));
}

function drawSchedules(canvas, s) {
  const d = s.chosen[0]?.length ?? 0;
  const plot = new CanvasPlot(canvas, { x: [s.rounds[0] ?? 1, s.rounds[s.rounds.length - 1] ?? 2], y: [0, 1], xLabel: 'round', yLabel: 'schedule point', keys: true });
  for (let j = 0; j < d; j++) {
    const { color, mark } = seriesStyle(j);
    if (s.optimal.length) plot.line(s.rounds, s.optimal.map((o) => o[j]), { color, width: 2 });
    plot.marks(s.rounds, s.chosen.map((c) => c[j]), { shape: mark, color, r: 2.8 });
  }
  plot.axes();
  // Each point's marker named in the key as well as its colour.
  keyBox(plot, Array.from({ length: d }, (_, j) => [seriesStyle(j).color, `point ${j + 1} ${MARK_GLYPH[seriesStyle(j).mark]}`]));
}

const sortedArms = (arms) => [...arms].sort((a, b) => b.true_value - a.true_value);

/** The x-axis title of the per-arm charts: how many arms, and which. @param {number} n */
const armAxis = (n) => (n >= ARM_STATS_CAP ? `the ${n} most-pulled arms, sorted by true mean (best first)` : `arm (all ${n}, sorted by true mean, best first)`);

function drawPulls(canvas, arms, xLabel) {
  const list = sortedArms(arms);
  const max = Math.max(1, ...list.map((a) => a.pulls));
  const plot = new CanvasPlot(canvas, { x: [-0.5, list.length - 0.5], y: [0, max * 1.05], xLabel, yLabel: 'pulls' });
  const w = Math.max(1, plot.width / list.length - 1);
  plot.clip((ctx) => {
    ctx.fillStyle = '#0072B2';
    list.forEach((a, i) => { const x = plot.px(i) - w / 2; const y = plot.py(a.pulls); ctx.fillRect(x, y, w, plot.py(0) - y); });
  });
  plot.axes();
}

/** Beyond this many arms, per-arm error bars touch and make a wall: the ±2 sd bars become one band. */
const BARS_UP_TO = 40;

/**
 * Each arm's posterior (Beta: mean ± 2 sd) or mean reward against its true mean, arms sorted by true mean. Up to
 * BARS_UP_TO arms an error bar each; beyond, the bars become one band over the sorted arms and the true means a
 * line, so the chart does not turn into a solid wall. A key in the corner names each mark.
 */
function drawPosterior(canvas, arms, xLabel) {
  const list = sortedArms(arms);
  const plot = new CanvasPlot(canvas, { x: [-0.5, list.length - 0.5], y: [0, 1], xLabel, yLabel: 'mean reward', keys: true });
  const post = list.map((a) => {
    if (a.alpha == null || a.beta == null) return null;
    const s = a.alpha + a.beta; const m = a.alpha / s; const sd = Math.sqrt((a.alpha * a.beta) / (s * s * (s + 1)));
    return { m, lo: Math.max(0, m - 2 * sd), hi: Math.min(1, m + 2 * sd) };
  });
  const wall = list.length > BARS_UP_TO;
  if (wall) {
    // The band over each run of consecutive arms with a posterior.
    for (let i = 0; i < post.length;) {
      if (!post[i]) { i++; continue; }
      let j = i;
      while (j + 1 < post.length && post[j + 1]) j++;
      const xs = []; const lo = []; const hi = [];
      for (let k = i; k <= j; k++) { xs.push(k); lo.push(post[k].lo); hi.push(post[k].hi); }
      plot.band(xs, lo, hi, 'rgba(0,114,178,.22)');
      i = j + 1;
    }
  }
  const xsPost = []; const ysPost = []; const xsMean = []; const ysMean = [];
  list.forEach((a, i) => {
    const p = post[i];
    if (p) {
      if (!wall) plot.line([i, i], [p.lo, p.hi], { color: 'rgba(0,114,178,.55)', width: 2 });
      xsPost.push(i); ysPost.push(p.m);
    } else if (a.mean_reward != null) { xsMean.push(i); ysMean.push(a.mean_reward); }
  });
  const r = wall ? 1.8 : 2.6;
  plot.dots(xsPost, ysPost, { color: '#0072B2', r });
  plot.dots(xsMean, ysMean, { color: '#B07800', r });
  if (wall) plot.line(list.map((_, i) => i), list.map((a) => a.true_value), { color: '#000', width: 1.5 });
  else plot.dots(list.map((_, i) => i), list.map((a) => a.true_value), { color: '#000', r: 1.8 });
  plot.axes();
  keyBox(plot, [['#000', wall ? 'true mean (line)' : 'true mean (small black dots)'],
    ...(xsPost.length ? [['#0072B2', wall ? 'posterior mean (dots), ±2 sd (band)' : 'posterior mean ±2 sd (bars)']] : []),
    ...(xsMean.length ? [['#B07800', 'mean reward (no posterior)']] : [])]);
}
