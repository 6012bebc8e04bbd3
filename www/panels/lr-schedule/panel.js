// The learning-rate-schedule panel (Picheny, Dutordoir, Artemev & Durrande 2020): constant rates and
// exponential decays against dynamic tuning of one run with a GP trace model (src/lrsched). Live: each
// method's loss trace as it finishes, with its learning rate under it, and the dynamic tuner's kept run at
// every interval boundary; after the run: the predicted trace band of the tuned schedule and the final loss of
// every method.
import { Panel } from '../panel.js';
import { el, nextFrame, perFrame } from '../../shared/dom.js';
import { MultitaskView } from './multitask.js';
import { parseNumbers } from '../../shared/hash.js';
import { LineChart, legend, alignSeries, OTHERS_GREY } from '../../shared/charts.js';
import { CanvasPlot } from '../../shared/canvas.js';
import { fmtSci } from '../../shared/format.js';
import { lrReading } from './reading.js';
import { bestBaselines, lineStyles, BEST_K } from './lines.js';

export class LrPanel extends Panel {
  constructor(ctx) {
    super(ctx);
    this.name = 'lr-schedule';
    this.kind = 'lr-schedule';
    this.prefix = 'lr';
    this.title = 'Learning-rate schedules with a GP trace model';
    this.tab = 'LR schedules';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'How fast should a network learn at each stage of training: a fixed rate, a rate that decays, or one adjusted while it trains?',
      first: 'Press Run. The table compares the final loss of each schedule; the chart shows how the chosen rates change over training.',
    };
    /** whether the learning-rate chart waits to be rebuilt (redraw builds one chart per call) */
    this.lrStale = false;
    /**
     * Redraws the live charts in a task after the next frame, once for every batch of events before it: the
     * events' draining and a chart's construction never share a task (the learning-rate lesson's first step: 25 ms
     * of draining plus 28 ms of uPlot's first build in one 53-56 ms task). A redraw still queued
     * when the result arrives is dropped (`finish` draws it).
     */
    this.scheduleRedraw = perFrame((rebuild) => { if (!this.report) this.redraw(rebuild); });
    this.intro = 'A piecewise-constant learning rate over the intervals of one training run. Constant rates (spread in log space) and exponential '
      + 'decays run alongside the dynamic tuner, which runs Q copies in parallel, keeps the best at each boundary and gives the copies the rates '
      + 'that minimise quantiles of the GP-predicted loss. Same initial weights; every baseline schedule gets the best of Q runs (matched compute).';
    // The default is the core's `digits` preset with fewer schedules (4 constant rates and 2 x 2 decays instead
    // of 5 and 4 x 3) and Q = 4 instead of 6: the preset took 13.7 s natively on one thread, this about 5 s
    // (`node scripts/dev/page-timings.mjs`).
    this.readyText = 'Ready. The default run (the digits network with 8 schedules and Q = 4) takes a few seconds; the digits preset is the full size.';
    this.presetHelp = 'The core’s presets (tunelab lr-schedule --preset NAME).';
    this.presets = [['digits', 'Digits, neural network: full size, 17 schedules, Q = 6 (5 s natively on one thread)'], ['digits-logreg', 'Digits, softmax regression'], ['noisy-quadratic', 'Noisy quadratic (decay helps)'],
      ['mnist-multitask', 'MNIST multi-task warm start (Sec. 4): 4 previous binary tasks, new task 8 v 9 (9 s natively on one thread)']];
    this.defaults = {
      problem: 'mlp', data: 'digits', label: 'y', hidden: 32, qdim: 20, qnoise: 1, optimizer: 'sgd', constant: 4, decays: 2, factors: '0.3, 0.03',
      dynamic: true, q: 4, intervals: 10, steps: 40, batch: 16, lrlo: 0.001, lrhi: 3, seed: 7,
      mt: false, mtpc: 200, mtsrc: 4, mttgt: 6,
    };
    const nq = (s) => s.problem === 'noisy-quadratic';
    const mt = (s) => s.mt && !nq(s);
    this.fields = [
      { key: 'problem', label: 'Problem', type: 'select', options: [['mlp', 'Digits: neural network (tanh)'], ['logreg', 'Digits: softmax regression'], ['noisy-quadratic', 'Noisy quadratic']] },
      { key: 'data', label: 'Data', type: 'select', options: [['digits', 'Digits (8×8, 10 classes)'], ['upload', 'Upload a CSV']], show: (s) => !nq(s) && !mt(s) },
      { key: 'label', label: 'Label column', type: 'text', show: (s) => !nq(s) && !mt(s) && s.data === 'upload', help: 'Class labels 0, 1, 2, …; other columns are features.' },
      { key: 'hidden', label: 'Hidden units', type: 'int', min: 1, max: 512, show: (s) => s.problem === 'mlp' },
      { key: 'qdim', label: 'Dimension', type: 'int', min: 1, max: 10000, show: nq },
      { key: 'qnoise', label: 'Gradient noise', type: 'num', min: 0, max: 100, show: nq },
      { key: 'optimizer', label: 'Optimiser', type: 'select', options: [['sgd', 'SGD'], ['adam', 'Adam']] },
      { key: 'constant', label: 'Constant rates', type: 'int', min: 0, max: 20, help: 'How many constant rates, spread in log space over the bounds (0 = none).' },
      { key: 'decays', label: 'Decay starts', type: 'int', min: 0, max: 10, help: 'Exponential decays: starting rates from the middle of the bounds to the top (0 = none).' },
      { key: 'factors', label: 'Decay factors', type: 'text', show: (s) => s.decays > 0, help: 'Total decay over the run, each in (0, 1), comma-separated.' },
      { key: 'dynamic', label: 'Dynamic GP tuner (their Algorithm 1)', type: 'bool', show: (s) => !mt(s) },
      { key: 'q', label: 'Parallel runs Q', type: 'int', min: 2, max: 64, show: (s) => s.dynamic && !mt(s) },
      { key: 'intervals', label: 'Intervals', type: 'int', min: 2, max: 200 },
      { key: 'steps', label: 'Steps per interval', type: 'int', min: 1, max: 100000 },
      { key: 'batch', label: 'Batch size', type: 'int', min: 1, max: 100000 },
      { key: 'lrlo', label: 'Lowest rate', type: 'num', min: 1e-9, max: 1000 },
      { key: 'lrhi', label: 'Highest rate', type: 'num', min: 1e-9, max: 1000 },
      { key: 'seed', label: 'Seed', type: 'int', min: 0, max: 2 ** 31 },
      { key: 'mt', label: 'Multi-task warm start (Sec. 4)', type: 'bool', show: (s) => !nq(s), help: 'Binary MNIST tasks 0 v 1, 2 v 3, 4 v 5, 6 v 7 (previous) and 8 v 9 (new), real digits pooled to 7×7; the baselines run on the new task.' },
      { key: 'mtpc', label: 'Digits per class', type: 'int', min: 10, max: 1200, show: mt },
      { key: 'mtsrc', label: 'Algorithm 2 runs per previous task', type: 'int', min: 1, max: 50, show: mt },
      { key: 'mttgt', label: 'Runs per tuner on the new task', type: 'int', min: 1, max: 33, show: mt },
    ];
    this.groups = [
      { legend: 'Problem', keys: ['problem', 'data', 'label', 'hidden', 'qdim', 'qnoise', 'optimizer'], extra: () => this.uploadRows((s) => s.problem !== 'noisy-quadratic' && s.data === 'upload') },
      { legend: 'Methods', keys: ['constant', 'decays', 'factors', 'dynamic', 'q'] },
      { legend: 'Training run', keys: ['intervals', 'steps', 'batch', 'lrlo', 'lrhi', 'seed'] },
      { legend: 'Multi-task (Sec. 4)', keys: ['mt', 'mtpc', 'mtsrc', 'mttgt'] },
    ];
  }

  validate(s) {
    const out = [];
    if (s.decays > 0 && !parseNumbers(s.factors)) out.push('Decay factors: give numbers in (0, 1), separated by commas.');
    const multi = s.mt && s.problem !== 'noisy-quadratic';
    // The core's candidates (MultitaskSpec): 9 constants and 8 decay starts times the decay factors.
    const nCand = 9 + 8 * (s.decays > 0 ? (parseNumbers(s.factors)?.length ?? 1) : 1);
    if (multi && s.mttgt > nCand) out.push(`Runs per tuner on the new task: at most the ${nCand} candidate schedules.`);
    if (!multi && s.problem !== 'noisy-quadratic' && s.data === 'upload') { const why = this.fileMissing('Problem → CSV file'); if (why) out.push(why); }
    if (!multi && s.constant === 0 && s.decays === 0 && !s.dynamic) out.push('Choose at least one method: constant rates, decays or the dynamic tuner.');
    return out;
  }

  isCoreConfig(c) { return typeof c.problem === 'object' && ('intervals' in c || 'dynamic' in c || 'optimizer' in c || 'lr_bounds' in c); }

  toConfig(s) {
    const problem = s.problem === 'mlp' ? { kind: 'mlp', hidden: s.hidden } : s.problem === 'logreg' ? { kind: 'logreg' }
      : { kind: 'noisy-quadratic', dim: s.qdim, noise: s.qnoise };
    const multi = s.mt && s.problem !== 'noisy-quadratic';
    const data = s.data === 'upload' && s.problem !== 'noisy-quadratic' && !multi ? { source: 'upload', label: s.label || 'y' } : { source: 'digits' };
    /** @type {Record<string, any>} */
    const out = {
      problem, data, optimizer: s.optimizer, intervals: s.intervals, steps_per_interval: s.steps, batch: s.batch,
      records_per_interval: Math.min(4, s.steps), lr_bounds: [s.lrlo, s.lrhi], constant: s.constant, decay_starts: s.decays,
      decay_factors: s.decays > 0 ? (parseNumbers(s.factors) ?? []) : [0.1], dynamic: { enabled: s.dynamic && !multi, runs: s.q }, seed: s.seed,
    };
    // Sec. 4 (the core's MultitaskSpec; its other fields at their defaults): the initial design N_0 is at most the
    // runs on the previous tasks (four of them).
    if (multi) out.multitask = { per_class: s.mtpc, source_runs: s.mtsrc, initial_runs: Math.min(4, 4 * s.mtsrc), target_runs: s.mttgt };
    return out;
  }

  fromConfig(c) {
    const p = c.problem ?? {};
    const out = {};
    if (p.kind === 'mlp') Object.assign(out, { problem: 'mlp', hidden: p.hidden ?? 32 });
    else if (p.kind === 'logreg') out.problem = 'logreg';
    else if (p.kind === 'noisy-quadratic') Object.assign(out, { problem: 'noisy-quadratic', qdim: p.dim ?? 20, qnoise: p.noise ?? 1 });
    if (c.data?.source === 'upload') Object.assign(out, { data: 'upload', label: c.data.label ?? 'y' });
    else if (c.data?.source === 'digits') out.data = 'digits';
    const map = { optimizer: 'optimizer', intervals: 'intervals', steps_per_interval: 'steps', batch: 'batch', constant: 'constant', decay_starts: 'decays', seed: 'seed' };
    for (const [k, key] of Object.entries(map)) if (c[k] != null) out[key] = c[k];
    if (c.lr_bounds) { out.lrlo = c.lr_bounds[0]; out.lrhi = c.lr_bounds[1]; }
    if (c.decay_factors) out.factors = c.decay_factors.join(', ');
    if (c.dynamic) { out.dynamic = c.dynamic.enabled ?? true; if (c.dynamic.runs != null) out.q = c.dynamic.runs; }
    out.mt = !!c.multitask;
    if (c.multitask) Object.assign(out, { mtpc: c.multitask.per_class ?? 200, mtsrc: c.multitask.source_runs ?? 4, mttgt: c.multitask.target_runs ?? 6 });
    return out;
  }

  // ---------------------------------------------------------------- charts

  buildCharts(host) {
    const P = (k) => this.id(k);
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const lossHost = el('div', { class: 'chart chart-main', id: P('chart-loss'), role: 'img', 'aria-label': 'Training loss of each method against optimiser steps, log scale' });
    const lrHost = el('div', { class: 'chart chart-lr', id: P('chart-lr'), role: 'img', 'aria-label': 'Learning rate of each method against optimiser steps, log scale' });
    host.append(this.card('loss', 'Loss traces with the learning rate under them',
      this.legendEl, lossHost, el('h3', { text: 'Learning rate' }), lrHost,
      el('p', { class: 'help', text: `Black: the dynamic tuner (dots: the kept run at each boundary, live). In colour, labelled at their ends: the ${BEST_K} best baselines (always the best constant rate and the best decay; decays dashed); thin grey: every other schedule (all of them are in the table below). Grey band: 5–95% of the loss predicted by the trace model along the tuned schedule (recursive sampling from the start).` })));
    this.loss = new LineChart(lossHost, { xLabel: 'optimiser step', yLabel: 'training loss', yLog: true, empty: 'Press Run: each method’s trace appears when it finishes.' });
    this.lr = new LineChart(lrHost, { xLabel: 'optimiser step', yLabel: 'learning rate', yLog: true, stepped: true, empty: 'The schedules appear here.' });

    this.barCanvas = el('canvas', { class: 'detail-canvas bars', id: P('bars'), role: 'img', 'aria-label': 'Final training loss of every method, bars' });
    this.table = el('table', { class: 'arms', id: P('table') },
      el('thead', {}, el('tr', {}, ...['method', 'final loss', 'test loss', 'diverged', 'runs', 'optimiser steps'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    host.append(this.card('final', 'Final loss of every method',
      el('div', { class: 'two-col' }, el('div', { class: 'bars-wrap' }, this.barCanvas),
        el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'Final loss per method (scrollable; the dynamic tuner first, then by final loss)' }, this.table)),
      this.readingEl = el('div', { class: 'reading', id: P('reading'), 'aria-live': 'polite' })));
    this.mt = new MultitaskView(P, (k, t, ...c) => this.card(k, t, ...c));
    host.append(this.mt.el);
    this.ro = new ResizeObserver(() => { this.drawBars(); this.mt.drawLocations(); });
    this.ro.observe(this.barCanvas);
  }

  begin(config) {
    this.lrStale = false;
    this.names = [];
    this.traces = [];
    this.live = [];
    this.report = null;
    this.intervals = config.intervals;
    this.stepsPer = config.steps_per_interval;
    this.mt.begin(!!config.multitask);
    this.table.tBodies[0].replaceChildren();
    this.readingEl.replaceChildren();
    this.loss.clear('Starting… the baselines run in parallel, then the dynamic tuner interval by interval.');
    this.lr.clear('The schedules appear here.');
    this.drawBars();
  }

  /** Each method's line style: the dynamic tuner, the best BEST_K baselines so far, the others grey. */
  styles() {
    const finals = this.names.map((n, i) => {
      const t = this.traces[i];
      return this.report?.methods[i]?.final_loss ?? (t?.length ? t[t.length - 1].loss : null);
    });
    return lineStyles(this.names, bestBaselines(this.names, finals));
  }

  onEvents(events, elapsed) {
    let rebuild = false;
    for (const ev of events) {
      switch (ev.type) {
        case 'started': this.names = ev.methods; this.traces = ev.methods.map(() => null); rebuild = true; break;
        case 'method-done': this.traces[ev.method] = ev.trace; break;
        case 'interval-done': this.live.push({ step: (ev.interval + 1) * this.stepsPer, loss: ev.best_loss }); break;
        case 'done': break;
        default: this.unknownEvents.push(ev.type);
      }
    }
    const done = this.traces.filter(Boolean).length;
    const dyn = this.names.some((n) => n.startsWith('dynamic'));
    const frac = this.names.length ? (dyn ? (done / this.names.length) * 0.5 + (this.live.length / this.intervals) * 0.5 : done / this.names.length) : 0;
    this.progress(frac, `${done} of ${this.names.length} methods finished${dyn ? ` · dynamic tuner: interval ${this.live.length} of ${this.intervals}` : ''} · ${elapsed.toFixed(1)} s`);
    this.scheduleRedraw(rebuild);
  }

  /**
   * The result in several tasks (each chart, then the bars, then the table and reading), none long.
   * @param {any} report @param {number} seconds
   */
  async finish(report, seconds) {
    this.report = report;
    this.names = report.methods.map((m) => m.name);
    this.traces = report.methods.map((m) => m.trace);
    this.redraw(true);
    while (this.lrStale) { await nextFrame(); this.redraw(false); }
    await nextFrame();
    this.drawBars();
    await nextFrame();
    const best = Math.min(...report.methods.map((m) => m.final_loss));
    // The dynamic tuner's row first (it used to sit below the table's scroll), then the baselines by final loss.
    const rows = [...report.methods].sort((a, b) => Number(b.family === 'dynamic') - Number(a.family === 'dynamic') || a.final_loss - b.final_loss);
    this.table.tBodies[0].replaceChildren(...rows.map((m) => el('tr', { class: [m.final_loss === best ? 'best' : '', m.family === 'dynamic' ? 'dynamic' : ''].join(' ').trim() || null },
      el('th', { scope: 'row', class: 'name', text: m.name }), el('td', { text: fmtSci(m.final_loss) }), el('td', { text: fmtSci(m.test_loss) }),
      el('td', { text: m.diverged ? 'yes' : 'no' }), el('td', { text: String(m.family === 'dynamic' ? report.dynamic?.runs ?? 1 : m.repeat_finals?.length || 1) }),
      el('td', { text: String(m.compute_steps) }))));
    this.readingEl.replaceChildren(el('h3', { text: 'Reading (generated from this run’s numbers)' }),
      ...lrReading(report).map((t) => el('p', { text: t })));
    const dyn = report.methods.find((m) => m.family === 'dynamic');
    const parts = [report.best_constant && `best constant ${fmtSci(report.best_constant.final_loss)}`, report.best_decay && `best decay ${fmtSci(report.best_decay.final_loss)}`, dyn && `dynamic ${fmtSci(dyn.final_loss)}`].filter(Boolean);
    if (report.multitask) {
      await nextFrame();
      const f = await this.mt.show(report.multitask);
      parts.unshift(`on the new task ${f.newTask}, lowest ${fmtSci(f.winner.best)} (${f.winner.name})`);
    }
    this.message(`Done in ${seconds.toFixed(1)} s. Final training loss: ${parts.join(', ')}.`, 'info');
    this.progress(1, `Done · ${report.intervals} intervals × ${report.steps_per_interval} steps · ${seconds.toFixed(1)} s`);
  }

  items() {
    const out = [];
    this.names.forEach((name, i) => {
      const t = this.traces[i];
      if (t) out.push({ name, i, x: t.map((p) => p.step), y: t.map((p) => p.loss), lr: t.map((p) => p.lr) });
      else if (name.startsWith('dynamic') && this.live.length) out.push({ name: `${name} (kept run, live)`, i, x: this.live.map((p) => p.step), y: this.live.map((p) => p.loss), live: true });
    });
    return out;
  }

  /**
   * Draws the loss and learning-rate charts. At most one chart is built (uPlot's constructor, 15-30 ms of main
   * thread with 18 lines) per call: a second one is left for the next frame (`lrStale`), so that the run's first
   * events or its result never build both in one task (44-53 ms measured).
   * @param {boolean} rebuild
   */
  redraw(rebuild) {
    if (!this.names.length) return;
    const styles = this.styles();
    // Grey lines first (under), then the singled-out baselines, the dynamic tuner on top.
    const styleOf = (/** @type {any} */ it) => styles.get(this.names[it.i]);
    const rank = (/** @type {any} */ it) => (styleOf(it).group ? 0 : this.names[it.i].startsWith('dynamic') ? 2 : 1);
    const items = this.items().sort((a, b) => rank(a) - rank(b));
    const series = items.map((it) => ({ label: it.name, ...styleOf(it), points: !!it.live }));
    const lossItems = items.map((it) => ({ x: it.x, y: it.y }));
    const pb = this.report?.dynamic;
    if (pb && pb.predicted_bands.length) {
      series.push(/** @type {any} */ ({ label: 'predicted median (5–95% band)', color: '#5b6470', width: 1, dash: [2, 3], band: true }));
      lossItems.push(/** @type {any} */ ({ x: pb.boundary_steps, y: pb.predicted_bands.map((b) => b.median), lo: pb.predicted_bands.map((b) => b.lo), hi: pb.predicted_bands.map((b) => b.hi) }));
    }
    const pos = (v) => Number.isFinite(v) && v > 0;
    const lossData = alignSeries(lossItems, pos);
    const withLr = items.filter((it) => it.lr);
    const lrSeries = withLr.map((it) => ({ label: it.name, ...styleOf(it) }));
    const lrData = alignSeries(withLr.map((it) => ({ x: it.x, y: it.lr })), pos);
    let built = false;
    if (rebuild || !this.loss.u || this.loss.series.length !== series.length) { this.loss.reset(series, lossData); built = true; } else this.loss.setData(lossData);
    if (lrSeries.length) {
      const need = rebuild || this.lrStale || !this.lr.u || this.lr.series.length !== lrSeries.length;
      if (need && built) {
        this.lrStale = true;
        this.scheduleRedraw(false);
      } else if (need) { this.lr.reset(lrSeries, lrData); this.lrStale = false; } else this.lr.setData(lrData);
    } else this.lrStale = false;
    // One legend entry for all the grey lines; the singled-out ones and the dynamic tuner by name.
    const others = series.filter((s) => s.group === 'others').length;
    const named = series.filter((s) => !s.group && !s.band);
    const shown = [...named.filter((s) => s.direct === 'dynamic'), ...named.filter((s) => s.direct !== 'dynamic'), ...(others ? [{ label: `${others} other schedule${others === 1 ? '' : 's'} (grey; all in the table)`, color: OTHERS_GREY }] : []),
      ...series.filter((s) => s.band)];
    legend(this.legendEl, shown);
  }

  drawBars() {
    const c = this.barCanvas;
    const ms = this.report?.methods;
    if (!ms) {
      const plot = new CanvasPlot(c, { x: [0, 1], y: [0, 1] });
      plot.ctx.fillStyle = '#5b6470'; plot.ctx.font = '13px system-ui, sans-serif'; plot.ctx.textAlign = 'center';
      plot.ctx.fillText('The final losses appear after the run.', plot.W / 2, plot.H / 2);
      return;
    }
    const finite = ms.map((m) => m.final_loss).filter((v) => Number.isFinite(v) && v > 0);
    const lo = Math.min(...finite) / 2; const hi = Math.max(...finite) * 1.5;
    const labelW = 150;
    const plot = new CanvasPlot(c, { x: [lo, hi], y: [ms.length - 0.5, -0.5], xLog: true, xLabel: 'final training loss (log)', yLabel: '', yTicks: false, pad: { l: labelW, r: 16, t: 8, b: 40 } });
    const { ctx } = plot;
    const h = Math.max(4, (plot.height / ms.length) * 0.7);
    const styles = this.styles();
    ms.forEach((m, i) => {
      const y = plot.py(i);
      const { color } = styles.get(m.name) ?? { color: OTHERS_GREY };
      const v = Number.isFinite(m.final_loss) && m.final_loss > 0 ? m.final_loss : hi;
      ctx.fillStyle = color; ctx.fillRect(plot.left, y - h / 2, plot.px(v) - plot.left, h);
      ctx.fillStyle = '#1b1f24'; ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
      ctx.fillText(m.name.length > 24 ? m.name.slice(0, 23) + '…' : m.name, plot.left - 6, y);
    });
    plot.axes();
  }

  chartData() {
    return {
      loss: this.items().map((it) => ({ name: it.name, x: it.x, y: it.y, live: !!it.live })),
      lr: this.items().filter((it) => it.lr).map((it) => ({ name: it.name, y: it.lr })),
      bands: this.report?.dynamic?.predicted_bands ?? null,
      final: this.report?.methods.map((m) => ({ name: m.name, final_loss: m.final_loss })) ?? null,
      reading: this.report ? lrReading(this.report) : null,
      multitask: this.mt.chartData(),
    };
  }

  canvases() { return [this.loss.canvas(), this.lr.canvas(), this.barCanvas, ...this.mt.canvases()]; }
}
