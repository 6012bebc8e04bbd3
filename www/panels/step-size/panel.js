// The step-size panel: GP-UCB (Nguyen et al. 2020, time-varying kernel) chooses the step size of one SG-MCMC
// chain window by window, with the reward = KSD of the previous window - KSD of this one (their eq. 7 with the
// KSD as the score), against fixed step sizes run with the same random streams (src/bandit/sgmcmc_step.rs).
// Live: the GP-UCB chain's KSD and chosen step per window; after the run: every fixed step's KSD, the GP
// posterior of the reward over log10 h with the chosen steps coloured by window, and the pooled-tail KSDs.
import { Panel } from '../panel.js';
import { el } from '../../shared/dom.js';
import { parseNumbers } from '../../shared/hash.js';
import { LineChart, legend, alignSeries, seriesStyle } from '../../shared/charts.js';
import { CanvasPlot, drawGp1d } from '../../shared/canvas.js';
import { fmtSci } from '../../shared/format.js';
import { readStep } from './reading.js';

export class StepPanel extends Panel {
  constructor(ctx) {
    super(ctx);
    this.name = 'step-size';
    this.kind = 'step-size';
    this.prefix = 'step';
    this.title = 'GP-UCB step size for one SG-MCMC chain';
    this.tab = 'Step size (GP-UCB)';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'Can a sampler pick its own step size while it runs, instead of you guessing one in advance?',
      first: 'Press Run. The chart shows the step size it picks window after window, beside the same chain run with fixed step sizes.',
    };
    this.intro = 'One chain (logistic regression on simulated data, from the origin) runs window after window; GP-UCB with the time-varying '
      + 'kernel picks each window’s log10 step size, rewarded by the drop of the KSD from one window to the next. Fixed step sizes run the '
      + 'same chain with the same random streams; all are compared by the KSD of the samples pooled over the last quarter of windows.';
    this.readyText = 'Ready. The default run takes a few seconds.';
    this.presetHelp = 'The core’s defaults (tunelab step-size --preset sgld-step).';
    this.presets = [['sgld-step', 'SGLD from the origin, 40 windows (the CLI preset)']];
    this.defaults = { n: 1000, d: 5, sampler: 'sgld', batch: 0.1, windows: 40, iters: 200, hlo: -6, hhi: -2, fixed: '-6, -5, -4, -3, -2', seed: 1 };
    this.fields = [
      { key: 'n', label: 'Data points N', type: 'int', min: 10, max: 100000, help: 'Simulated logistic regression data.' },
      { key: 'd', label: 'Dimension d', type: 'int', min: 1, max: 100 },
      { key: 'sampler', label: 'Sampler', type: 'select', options: [['sgld', 'SGLD'], ['sgld-cv', 'SGLD-CV'], ['sghmc', 'SGHMC'], ['sgnht', 'SGNHT']] },
      { key: 'batch', label: 'Batch fraction', type: 'num', min: 1e-6, max: 1 },
      { key: 'windows', label: 'Windows', type: 'int', min: 3, max: 1000 },
      { key: 'iters', label: 'Iterations per window', type: 'int', min: 10, max: 1000000 },
      { key: 'hlo', label: 'Lowest log10 h', type: 'num', min: -12, max: 2 },
      { key: 'hhi', label: 'Highest log10 h', type: 'num', min: -12, max: 2 },
      { key: 'fixed', label: 'Fixed log10 h', type: 'text', help: 'The fixed step sizes to compare against, comma-separated.' },
      { key: 'seed', label: 'Seed', type: 'int', min: 0, max: 2 ** 31 },
    ];
    this.groups = [
      { legend: 'Model and sampler', keys: ['n', 'd', 'sampler', 'batch'] },
      { legend: 'Windows and step sizes', keys: ['windows', 'iters', 'hlo', 'hhi', 'fixed', 'seed'] },
    ];
  }

  validate(s) {
    const out = [];
    if (!(s.hlo < s.hhi)) out.push('The lowest log10 h must be below the highest.');
    if (!parseNumbers(s.fixed)) out.push('Fixed log10 h: give numbers separated by commas.');
    return out;
  }

  /** A core StepTuneConfig (snake_case keys, objects) rather than a partial panel state. */
  isCoreConfig(c) {
    return 'window_iters' in c || 'log10_step' in c || 'fixed_log10_steps' in c || typeof c.data === 'object' || typeof c.sampler === 'object';
  }

  toConfig(s) {
    return {
      data: { n: s.n, d: s.d }, sampler: { kind: s.sampler, batch: s.batch }, log10_step: [s.hlo, s.hhi],
      windows: s.windows, window_iters: s.iters, fixed_log10_steps: parseNumbers(s.fixed) ?? [], seed: s.seed,
    };
  }

  fromConfig(c) {
    const out = {};
    if (c.data) Object.assign(out, { n: c.data.n, d: c.data.d });
    if (c.sampler?.kind) out.sampler = c.sampler.kind;
    if (typeof c.sampler?.batch === 'number') out.batch = c.sampler.batch;
    if (c.log10_step) Object.assign(out, { hlo: c.log10_step[0], hhi: c.log10_step[1] });
    if (c.windows != null) out.windows = c.windows;
    if (c.window_iters != null) out.iters = c.window_iters;
    if (c.fixed_log10_steps) out.fixed = c.fixed_log10_steps.join(', ');
    if (c.seed != null) out.seed = c.seed;
    return out;
  }

  buildCharts(host) {
    const P = (k) => this.id(k);
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const ksdHost = el('div', { class: 'chart chart-small', id: P('chart-ksd'), role: 'img', 'aria-label': 'KSD of each window for GP-UCB and each fixed step size, log scale' });
    const stepHost = el('div', { class: 'chart chart-small', id: P('chart-step'), role: 'img', 'aria-label': 'Step size chosen by GP-UCB in each window, log scale' });
    host.append(this.card('ksd', 'KSD of each window and the step sizes',
      this.legendEl,
      el('div', { class: 'two-col' },
        el('div', {}, el('h3', { text: 'KSD of the window’s samples (log)' }), ksdHost),
        el('div', {}, el('h3', { text: 'Step size h per window (log)' }), stepHost))));
    this.ksd = new LineChart(ksdHost, { xLabel: 'window', yLabel: 'KSD', yLog: true, xInt: true, empty: 'Press Run: the fixed steps run first, then GP-UCB window by window.' });
    this.step = new LineChart(stepHost, { xLabel: 'window', yLabel: 'step size h', yLog: true, xInt: true, empty: 'GP-UCB’s choices appear here.' });
    this.gpCanvas = el('canvas', { class: 'detail-canvas', id: P('gp'), role: 'img', 'aria-label': 'GP posterior of the reward over log10 step size, chosen steps coloured by window' });
    this.table = el('table', { class: 'arms', id: P('table') },
      el('thead', {}, el('tr', {}, ...['run', 'KSD of the last windows (pooled)', 'median h', 'diverged windows', 'gradient evaluations'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    host.append(el('div', { class: 'two-col' },
      this.card('gp', 'GP posterior of the reward over log10 h', el('figure', { class: 'detail-fig' }, this.gpCanvas,
          el('figcaption', { text: 'After the last window: GP mean ±2 sd of the reward (drop in KSD), chosen steps coloured by window.' }))),
      this.card('table', 'Compared by the pooled KSD',
        el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'KSD of the pooled last windows per run (scrollable)' }, this.table),
        this.readingEl = el('div', { class: 'reading', id: P('reading'), 'aria-live': 'polite' }, el('p', { class: 'placeholder', text: 'A reading of the result, from the report’s numbers, appears after a run.' })))));
  }

  begin(config) {
    this.traces = [];
    this.live = { steps: [], ksd: [] };
    this.windows = config.windows;
    this.report = null;
    this.table.tBodies[0].replaceChildren();
    this.entry.reading = null;
    this.readingEl.replaceChildren(el('p', { class: 'placeholder', text: 'Running: the reading of the result appears when the run ends.' }));
    this.ksd.clear('The fixed step sizes run first (in parallel)…'); this.step.clear('GP-UCB’s choices appear here.');
    const plot = new CanvasPlot(this.gpCanvas, { x: [0, 1], y: [0, 1] });
    plot.ctx.fillStyle = '#5b6470'; plot.ctx.font = '13px system-ui, sans-serif'; plot.ctx.textAlign = 'center';
    plot.ctx.fillText('The GP posterior appears after the run.', plot.W / 2, plot.H / 2);
  }

  onEvents(events, elapsed) {
    let rebuild = false;
    for (const ev of events) {
      switch (ev.type) {
        case 'fixed-done': this.traces = ev.traces; rebuild = true; break;
        case 'window': this.live.steps[ev.window] = ev.step; this.live.ksd[ev.window] = ev.ksd; rebuild = rebuild || ev.window === 0; break;
        case 'done': break;
        default: this.unknownEvents.push(ev.type);
      }
    }
    const w = this.live.steps.length;
    this.progress(w / this.windows, `${this.traces.length ? 'Fixed steps done' : 'Fixed steps running'} · GP-UCB window ${w} of ${this.windows} · ${elapsed.toFixed(1)} s`);
    this.redraw(rebuild);
  }

  finish(report, seconds) {
    this.report = report;
    this.traces = report.fixed;
    this.live = { steps: report.gp_ucb.steps, ksd: report.gp_ucb.ksd };
    this.redraw(true);
    if (report.gp_posterior) drawGp1d(this.gpCanvas, report.gp_posterior, 'log10 h', 'reward (KSD drop)', 'window');
    else {
      const plot = new CanvasPlot(this.gpCanvas, { x: [0, 1], y: [0, 1] });
      plot.ctx.fillStyle = '#5b6470'; plot.ctx.font = '13px system-ui, sans-serif'; plot.ctx.textAlign = 'center';
      plot.ctx.fillText('No GP posterior in the report.', plot.W / 2, plot.H / 2);
    }
    const rows = [report.gp_ucb, ...report.fixed];
    const best = Math.min(...rows.map((r) => r.tail_ksd ?? Infinity));
    const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
    this.table.tBodies[0].replaceChildren(...rows.map((r) => el('tr', { class: r.tail_ksd === best ? 'best' : null },
      el('th', { scope: 'row', class: 'name', text: r.name }), el('td', { text: r.tail_ksd == null ? 'diverged' : fmtSci(r.tail_ksd) }),
      el('td', { text: fmtSci(median(r.steps)) }), el('td', { text: String(r.diverged_windows) }), el('td', { text: fmtSci(r.grad_evals) }))));
    // The reading, from the report's numbers: GP-UCB's rank among all runs and, when a fixed step wins, why.
    const reading = readStep(report, this.lastConfig?.tail ?? 0.25);
    this.entry.reading = reading;
    this.readingEl.replaceChildren(el('p', { text: reading.join(' ') }));
    this.message(`Done in ${seconds.toFixed(1)} s: ${reading[0]}`, 'info');
    this.progress(1, `Done · ${report.gp_ucb.steps.length} windows · ${seconds.toFixed(1)} s`);
  }

  items() {
    const windows = (n) => Array.from({ length: n }, (_, i) => i + 1);
    const gp = { name: 'GP-UCB', x: windows(this.live.steps.length), ksd: this.live.ksd.map((v) => v ?? NaN), steps: this.live.steps };
    return [gp, ...this.traces.map((t) => ({ name: t.name, x: windows(t.steps.length), ksd: t.ksd.map((v) => v ?? NaN), steps: t.steps }))];
  }

  redraw(rebuild) {
    const items = this.items();
    const series = items.map((it, i) => ({ label: it.name, ...(i === 0 ? { color: '#000000', width: 2.5, mark: 'circle' } : seriesStyle(i)), points: i === 0 }));
    const pos = (v) => Number.isFinite(v) && v > 0;
    const ksdData = alignSeries(items.map((it) => ({ x: it.x, y: it.ksd })), pos);
    const stepData = alignSeries(items.map((it) => ({ x: it.x, y: it.steps })), pos);
    if (rebuild || !this.ksd.u || this.ksd.series.length !== series.length) { this.ksd.reset(series, ksdData); this.step.reset(series, stepData); } else { this.ksd.setData(ksdData); this.step.setData(stepData); }
    legend(this.legendEl, series);
  }

  chartData() {
    return { runs: this.items().map((it) => ({ name: it.name, ksd: it.ksd, steps: it.steps })), gp: this.report?.gp_posterior ? { grid: this.report.gp_posterior.grid.length, points: this.report.gp_posterior.points.length } : null };
  }

  canvases() { return [this.ksd.canvas(), this.step.canvas(), this.gpCanvas]; }
}
