// The SG-MCMC tuning panel (MAMBA and its baselines, and the paper's comparison): its markup is
// section#panel-tune in index.html (element ids, `data-group` fieldsets and result sections that embed mode and
// lessons rely on); its settings are the unprefixed hash keys of state.js. It is a Panel like the others:
// ONE run of kind `tune` (or `compare`), the core's events folded by RunModel, the arm grid and MAMBA's rounds
// from the core's `check`. The page-level hooks (window.__tunelab.state, lastResult, lastChartData, runs,
// running, errors) mirror this panel.
import { Panel } from '../panel.js';
import { RunBar } from '../runbar.js';
import { el, $, nextFrame } from '../../shared/dom.js';
import { hashParams, setHash } from '../../shared/hash.js';
import { parseHash, formatHash, toTuneConfig, fromTuneConfig, BUDGET_UNITS, PAGE_PRESETS, COMPARE_PRESETS, RATINGS_SOURCES, TOY_MODELS, DEFAULTS, FIELDS, normalise } from './state.js';
import { writeForm, readForm, updateVisibility, describeArms } from './settings.js';
import { RunModel } from './run.js';
import { ScoreChart } from './score-chart.js';
import { TraceChart, HistChart, showPosterior, tracesNote } from './posterior.js';
import { legend } from '../../shared/charts.js';
import { fmtSci, fmtStep, fmtBatch } from '../../shared/format.js';
import { renderBracket, renderArmsTable, renderPosterior, partialTune, inChunks } from './views.js';
import { CompareMode } from './compare-mode.js';
import { download, tracesCsv } from '../../shared/export.js';
import { scoreSvg } from './score-svg.js';
import { TuneUpload } from './upload.js';
import { readTune, readCompare } from './reading.js';
import { drawHeat } from './heatmap.js';
import { ArmDrill } from './drill.js';
import { prepText, progressLine } from './progress-text.js';

/** @typedef {import('./state.js').TuneState} TuneState */
/** Arms-table rows changed per frame during a run (each row is ~20 layout objects). */
const DOM_ROWS = 8;

/** @param {string} u */
const unitLabel = (u) => (u === 'grad_evals' ? 'gradient evaluations' : u === 'seconds' ? 'seconds of compute' : 'iterations');
export class TunePanel extends Panel {
  /** @param {import('../panel.js').PanelContext} ctx */
  constructor(ctx) {
    super(ctx);
    this.name = 'tune';
    this.kind = 'tune';
    this.prefix = '';
    this.title = 'SG-MCMC tuning';
    this.tab = 'SG-MCMC tuning';
    /** the tab's "Start here" card: the question it answers and what to press first */
    this.start = {
      question: 'A sampler explores a model by taking many small random steps. Steps too small crawl, steps too big wander off. '
        + 'Which step size (and how much data per step) gives the most trustworthy picture of the model for a fixed amount of work?',
      first: 'Press Run. The default finishes in seconds: each line on the chart is one setting, lower is better, and the weakest half '
        + 'is dropped each round. Then try the Preset menu, or a lesson.',
    };
    this.defaults = { ...DEFAULTS };
    this.fields = /** @type {any} */ (FIELDS);
    // The page's error list is this panel's.
    this.errors = ctx.hooks.errors;
    this.bar = new RunBar((k) => this.id(k), this.errors);
    this.upload = new TuneUpload(this);
    this.uploadShow = (/** @type {any} */ s) => s.data === 'upload';
    /** @type {{ok: boolean, m: number, error: string|null}} the core's check of the current settings */
    this.checked = { ok: false, m: 0, error: null };
    /** @type {Promise<void>|null} */
    this.checking = null;
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.checkTimer = undefined;
    this.checkSeq = 0;
    /** @type {RunModel|null} */
    this.model = null;
    /** @type {RunModel[]} one per tuner of a comparison */
    this.models = [];
    /** @type {{name: string, report: any, error: string|null, running?: boolean}[]} */
    this.compareEntries = [];
    this.drawPending = false;
    this.drawFull = false;
    /** @type {RunModel|null} the model the score chart was built for */
    this.chartFor = null;
    this.lastFullDraw = 0;
    /** @type {any} */
    this.result = null;
    /** @type {any} the core's summary of the current settings (check) */
    this.summary = null;
    this.cmp = new CompareMode(this);
    /** @type {{unit: string, metric: string}|null} the axes of the run shown (set by `begin`) */
    this.shown = null;
  }

  get filePrefix() { return 'tunelab'; }

  // ---------------------------------------------------------------- settings (state.js, settings.js)

  readHash() { return parseHash(location.hash).state; }

  writeHash() {
    // Keys of other modules (panel=, bandit.*, hoag.*, lr.*, embed and lesson flags) stay in the hash.
    /** @type {Record<string, string>} */
    const foreign = {};
    for (const [k, v] of hashParams()) if (!(k in DEFAULTS)) foreign[k] = v;
    setHash(formatHash(this.state, foreign));
  }

  writeForm() {
    writeForm(this.form, this.state);
    this.refresh();
  }

  readForm() {
    const { state, bad } = readForm(this.form, /** @type {TuneState} */ (this.state));
    this.state = state;
    return bad;
  }

  refresh() {
    this.markStale();
    const s = this.state;
    this.hooks.state = { ...s };
    this.entry.state = { ...s };
    updateVisibility(this.form, s);
    if (s.data === 'upload' && !this.csvText && !this.csvProblem) {
      this.upload.message(s.model === 'pmf' ? 'Choose a ratings CSV: one user,item,rating row per rating (ids from 1; a header line, tabs or “::” are fine; MovieLens u.data works).'
        : 'Choose a CSV file: the label column must hold 0/1 for logistic regression.', 'info');
    }
    $('ksd-sub').textContent = `(${s.metric.toUpperCase()} against ${unitLabel(s.unit)}, log scales)`;
    this.scheduleCheck();
  }

  /** The core's check of the settings, shortly after the last change: arm count and rounds. */
  scheduleCheck() {
    clearTimeout(this.checkTimer);
    this.checkTimer = setTimeout(() => { this.checking = this.check(); }, 120);
  }

  /** Checks the current settings now (awaited before a run). */
  async checkNow() {
    if (this.checkTimer !== undefined) { clearTimeout(this.checkTimer); this.checkTimer = undefined; this.checking = this.check(); }
    await this.checking;
  }

  async check() {
    this.checkTimer = undefined;
    const seq = ++this.checkSeq;
    const s = { ...this.state };
    const ac = $('arm-count');
    try {
      const res = await this.client.check(toTuneConfig(s));
      if (seq !== this.checkSeq) return;
      this.summary = res.summary;
      const { m, text } = describeArms(s, res.summary);
      this.checked = { ok: true, m, error: null };
      ac.textContent = text;
      ac.dataset.arms = String(m);
      this.estimateFromCheck(res);
    } catch (e) {
      if (seq !== this.checkSeq) return;
      const msg = /** @type {Error} */ (e).message;
      this.estimateFromCheck(null);
      this.checked = { ok: false, m: 0, error: msg };
      ac.textContent = `These settings would not run: ${msg}`;
      ac.dataset.arms = '0';
    }
  }

  /** A comparison's whole-run estimate comes from its phase clock (compare-clock.js). @param {number} elapsed @param {number} frac */
  runTotal(elapsed, frac) {
    const whole = this.compareEntries.length ? this.cmp.clock?.total(elapsed) : null;
    return whole ?? super.runTotal(elapsed, frac);
  }

  /** @param {any} s */
  validate(s) {
    if (s.data === 'upload' && !this.csvText) return [this.csvProblem ?? `Choose a ${s.model === 'pmf' ? 'ratings ' : ''}CSV file first (Data → CSV file).`];
    if (this.checked.error) return [`These settings would not run: ${this.checked.error}`];
    if (this.checked.m === 0) return ['There are no arms to run: check the step range and batch sizes.'];
    return [];
  }

  /** @param {any} s */
  experiment(s) { return toTuneConfig(s); }
  /** @param {any} c */
  isCoreConfig(c) { return typeof c.arms === 'object' || typeof c.data === 'object' || typeof c.model === 'object'; }
  /** @param {any} c */
  fromConfig(c) { return fromTuneConfig(c); }

  /** @param {any} cfg */
  applyConfig(cfg) {
    super.applyConfig(cfg);
    this.state = normalise(this.state);
    this.writeForm();
    this.writeHash();
  }

  /** A core preset (defaults filled in by the core's check) or a page variant of one. @param {string} name */
  async loadPreset(name) {
    const variant = /** @type {Record<string, any>} */ (PAGE_PRESETS)[name];
    try {
      // The page's reduced versions of the paper's tables load as comparisons (their tuners and reference size).
      const preset = await this.client.preset(COMPARE_PRESETS.includes(name) ? 'compare' : 'tune', variant?.base ?? name);
      const { config } = await this.client.check(preset);
      const { base: _base, ...rest } = variant ?? {};
      this.state = normalise({ ...this.state, ...fromTuneConfig(config), ...rest });
      this.writeForm();
      this.writeHash();
      this.showPreset(name);
      const cmd = COMPARE_PRESETS.includes(name) ? 'compare' : 'tune';
      this.message(variant ? `Preset “${name}” loaded.` : `Preset “${name}” loaded (the core's \`tunelab ${cmd} --preset ${name}\`).`, 'info');
    } catch (e) { this.showPreset(''); this.message(`Could not load the preset: ${/** @type {Error} */ (e).message}`, 'error'); }
  }

  /** A run starts once the core has checked the current settings (the arm count decides whether there is one). */
  preflight() { return this.checkNow(); }

  // ---------------------------------------------------------------- layout (index.html)

  /** Binds to section#panel-tune. @param {HTMLElement} _root */
  render(_root) {
    this.section = $('panel-tune');
    this.form = $('settings');
    this.scoreChart = new ScoreChart($('chart-ksd'), {
      onHover: (/** @type {any} */ a) => {
        $('ksd-hover').textContent = `arm #${a.id}: h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch)}, L = ${a.leapfrog}, score ${a.score == null ? '–' : fmtSci(a.score)}, ${a.status}`;
      },
    });
    this.drill = new ArmDrill(this);
    this.traceChart = new TraceChart($('chart-trace'));
    this.histChart = new HistChart($('chart-hist'));
    legend($('ksd-legend'), this.scoreChart.legendItems(fmtBatch, fmtStep));
    this.state = this.readHash();
    this.writeForm();
    this.writeHash();
    const onChange = (/** @type {Event} */ e) => {
      const t = /** @type {HTMLInputElement} */ (e.target);
      if (t.id === 'file' || t.id === 'preset') return;
      this.showPreset('');
      const prev = this.state;
      const { state: s } = readForm(this.form, /** @type {TuneState} */ (this.state));
      // Choosing a toy model switches the data source to none and back.
      if (t.id === 'data' && s.data === 'none' && !TOY_MODELS.includes(s.model)) s.model = 'banana';
      if (t.id === 'data' && s.data !== 'none' && TOY_MODELS.includes(s.model)) s.model = 'logistic';
      // PMF reads ratings (simulated or uploaded); leaving them leaves PMF, and choosing another model leaves them.
      if (t.id === 'data' && s.model === 'pmf' && !RATINGS_SOURCES.includes(s.data)) s.model = s.data === 'mnist' || s.data === 'digits' ? 'bnn' : 'logistic';
      if (t.id === 'model' && s.model !== 'pmf' && s.data === 'ratings') s.data = 'simulate';
      this.state = normalise(s);
      if (this.state.data !== prev.data || this.state.model !== prev.model) writeForm(this.form, this.state);
      this.writeHash();
      this.refresh();
      if (t.id === 'label' && e.type === 'change') { const note = $('label-note'); note.textContent = `Label column: “${this.state.label}” (your choice).`; note.hidden = false; }
      if (e.type === 'change' && (t.id === 'label' || t.id === 'standardize') && this.csvText) this.upload.preview();
      if (e.type === 'change' && t.id === 'model' && this.csvText) this.upload.use(this.csvText);
    };
    this.form.addEventListener('input', onChange);
    this.form.addEventListener('change', onChange);
    $('preset').addEventListener('change', async (/** @type {Event} */ e) => {
      const sel = /** @type {HTMLSelectElement} */ (e.target);
      const name = sel.value;
      if (name) await this.loadPreset(name);
    });
    $('file').addEventListener('change', (/** @type {Event} */ e) => this.upload.onFile(/** @type {HTMLInputElement} */ (e.target)));
    this.wireCommon();
    // The chart's second view: the arms x rounds heat map (suits many arms); the choice stays on the page only.
    this.view = 'lines';
    for (const id of ['view-lines', 'view-heat']) {
      $(id).addEventListener('change', (/** @type {Event} */ e) => this.setView(/** @type {HTMLInputElement} */ (e.target).value));
    }
    $('export-traces').addEventListener('click', () => {
      const r = this.result;
      if (r?.samples?.length) download('tunelab-traces.csv', tracesCsv(r.samples, r.dim, null, tracesNote(r)), 'text/csv');
    });
    $('export-svg').addEventListener('click', () => { const svg = this.scoreSvg(); if (svg) download('tunelab-score-chart.svg', svg, 'image/svg+xml'); });
  }

  // ---------------------------------------------------------------- runs

  /** @param {boolean} on */
  setRunning(on) {
    super.setRunning(on);
    this.hooks.running = on;
    this.hooks.runs = this.runs;
    document.body.dataset.running = on ? 'true' : 'false';
    if (!on) this.cmp.stop();
  }

  /** @param {any} config */
  begin(config) {
    const compare = config.kind === 'compare';
    // The run's (or an opened report's) budget unit and metric name its axes, whatever the settings say now.
    this.shown = { unit: BUDGET_UNITS.find((u) => config.budget?.[u] != null) ?? this.state.unit, metric: String(config.metric?.kind ?? this.state.metric) };
    this.compareEntries = [];
    this.result = null;
    this.model = null;
    this.models = [];
    this.hooks.unknownEvents = [];
    this.unknownEvents = [];
    $('progress').value = 0;
    $('compare-card').hidden = !compare;
    this.clearResults();
    this.progress(0, prepText(config));
    // The comparison's tuners, as the core's check named them, wait in the table; its clock starts.
    if (compare) this.cmp.begin(config); else this.cmp.hide();
  }

  /**
   * Clears the previous run's results (chart, bracket, tables, chosen arm, posterior, comparison) so that
   * nothing of it is shown as this run's.
   */
  clearResults() {
    this.hooks.progressEvents = 0;
    this.hooks.lastChartData = null;
    this.hooks.chartPending = [];
    this.hooks.chartArms = [];
    this.hooks.lastResult = null;
    this.hooks.partial = null;
    this.hooks.compare = null;
    this.entry.lastChartData = null;
    this.scoreChart.clear('Starting: each arm appears here after the first chunk of round 1.');
    $('ksd-legend').replaceChildren();
    this.hooks.heat = null;
    { const c = /** @type {HTMLCanvasElement} */ ($('heat-ksd')); c.getContext('2d')?.clearRect(0, 0, c.width, c.height); }
    $('ksd-hover').innerHTML = '&nbsp;';
    $('bracket').replaceChildren(el('p', { class: 'placeholder', text: 'The arms that survive each round appear here.' }));
    delete $('bracket').dataset.rounds;
    delete /** @type {any} */ ($('bracket')).__key;
    $('arms-table').tBodies[0].replaceChildren();
    this.hooks.reading = null;
    $('reading').replaceChildren(el('p', { class: 'placeholder', text: 'Running: the reading of the result appears when the run ends.' }));
    $('best').replaceChildren(el('p', { class: 'placeholder', text: 'Running: the chosen arm appears when the run ends.' }));
    renderPosterior($('post-table').tBodies[0], null, null);
    this.traceChart.clear();
    this.histChart.clear();
    $('density-wrap').hidden = true;
    this.drill?.clear();
    const coord = /** @type {HTMLSelectElement} */ ($('coord'));
    inChunks(coord, 0);
    coord.disabled = true;
    /** @type {HTMLButtonElement} */ ($('export-traces')).disabled = true;
    /** @type {HTMLButtonElement} */ ($('export-svg')).disabled = true;
    if (!this.compareEntries.length) $('compare-table').tBodies[0].replaceChildren();
  }

  /** @param {number} seconds */
  stopped(seconds) {
    const m = this.model;
    if (!m) return `Stopped at the start, after ${seconds.toFixed(1)} s: no arm was run.`;
    m.stoppedAt = seconds;
    this.cmp.stop();
    this.drawStats(m);
    // What the run reached stays: the chart, the bracket and every arm's row, and the last scored round below.
    this.drawDom(m, true);
    const p = partialTune(m);
    this.hooks.partial = p;
    $('best').replaceChildren(el('p', { class: 'partial', text: p.best }));
    $('reading').replaceChildren(el('p', { class: 'partial', text: p.reading }));
    // The score chart's SVG like the PNG: both export what the run reached, marked partial.
    /** @type {HTMLButtonElement} */ ($('export-svg')).disabled = false;
    return /** @type {string} */ ($('stats').textContent);
  }

  /** The tune panel's cards already show what a stopped run reached (see `stopped`). @param {any[]} _reached */
  showPartial(_reached) {}

  /** A new run model (a tune run, or the next tuner of a comparison) and a fresh chart. @param {any} started */
  startModel(started) {
    const model = new RunModel(this.axes().unit);
    model.apply(started);
    // A comparison's tuner by its name in the comparison (the event's own `tuner` is the tuner kind).
    if (started.index != null) model.tuner = this.compareEntries[started.index]?.name ?? model.tuner;
    this.models[started.index ?? 0] = model;
    this.showModel(model, true);
  }

  /**
   * Draws `model` on a fresh chart. With `later`, the chart (a uPlot whose draw hook paints one path per arm)
   * is built by the next redraw, in a frame of its own, rather than in the frame that handles the run's first
   * events.
   * @param {RunModel} model @param {boolean} [later]
   */
  showModel(model, later = false) {
    this.model = model;
    this.hooks.chartPending = [];
    if (later) { this.chartFor = null; return; }
    this.resetChart(model);
  }

  /** A fresh score chart, legend and heat map for `model`. @param {RunModel} model */
  resetChart(model) {
    this.chartFor = model;
    this.scoreChart.reset(model.arms, this.xLabel(), this.yLabel(), model.schedule);
    legend($('ksd-legend'), this.scoreChart.legendItems(fmtBatch, fmtStep));
    this.drawHeat(model);
  }

  /** The score chart's axis titles, with units. */
  xLabel() { return `${unitLabel(this.axes().unit)} per arm`; }
  yLabel() { return `${this.axes().metric.toUpperCase()} (lower is better)`; }
  /** The budget unit and metric of the run shown (the settings' before any run). @returns {{unit: any, metric: string}} */
  axes() { return /** @type {{unit: any, metric: string}} */ (this.shown ?? { unit: this.state.unit, metric: this.state.metric }); }

  /** @param {any[]} details @param {number} elapsed */
  onEvents(details, elapsed) {
    let redraw = false;
    for (const ev of details) {
      // A comparison's first phase, the exact reference (src/experiments/compare/experiment.rs, ReferenceProgress).
      if (ev.type === 'reference' && ev.tuner == null) { this.cmp.reference(ev, elapsed); continue; }
      // A tuner's fresh evaluation chain (EvaluationProgress): its share done joins the progress line.
      if (ev.type === 'evaluation') { this.cmp.evaluation(ev); continue; }
      if (ev.type === 'started') { this.startModel(ev); redraw = true; } else if (this.model) {
        // Progress events handled so far in this run (the e2e tests check what is drawn after the first one).
        if (ev.type === 'progress') this.hooks.progressEvents = (this.hooks.progressEvents ?? 0) + 1;
        redraw = this.model.apply(ev) || redraw;
      }
      if (ev.tuner != null) this.cmp.tuner(ev, elapsed);
    }
    if (!this.model) return;
    this.model.elapsed = elapsed;
    if (this.model.unknown.length) this.hooks.unknownEvents = this.unknownEvents = [...new Set(this.model.unknown)];
    this.scheduleDraw(this.model, redraw);
  }

  /** @param {RunModel} model @param {boolean} changed */
  scheduleDraw(model, changed) {
    // Redraws on the next frame: the chart, bracket and table when arms changed (or every second, for the
    // table's live counters), the progress line always. Keeps each frame's work small.
    this.drawFull = this.drawFull || changed || performance.now() - this.lastFullDraw > 1000;
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => {
      // The model shown now (after a comparison, the chosen tuner's rather than the last one run).
      const m = this.model ?? model;
      this.drawPending = false;
      if (this.drawFull) { this.drawFull = false; this.lastFullDraw = performance.now(); this.drawRun(m); } else this.drawStats(m);
    });
  }

  /**
   * Redraws the chart now and the bracket and arms table (DOM: page layout) in the next frame, so that no
   * frame does both (with 56 arms each half costs 20-40 ms of main thread); `sync` draws all at once (the end of
   * a run).
   * @param {RunModel} model @param {boolean} [sync] @param {boolean} [dom] with `sync`: draw the bracket and table too
   *   (false: the caller draws them, in a task of their own)
   */
  drawRun(model, sync = false, dom = true) {
    const t0 = performance.now();
    if (this.chartFor !== model) {
      this.resetChart(model);
      if (!sync) {
        // The chart was built in this frame: its data, the bracket and the table follow in the next ones.
        this.recordDraw(t0);
        this.scheduleDraw(model, true);
        return;
      }
    }
    this.hooks.lastChartData = this.scoreChart.update({ boundaries: model.boundaries, best: model.done ? model.best : null, pending: model.pending(), done: model.done });
    this.hooks.chartArms = model.arms.map((a) => ({ id: a.id, status: a.status, points: a.points.length }));
    this.drawHeat(model);
    this.drawStats(model);
    if (sync) { if (dom) this.drawDom(model, true); } else if (!this.domPending) {
      this.domPending = true;
      requestAnimationFrame(() => { this.domPending = false; if (this.model) this.drawDom(this.model); });
    }
    this.recordDraw(t0);
  }

  /** Shows the lines or the heat map view of the score chart. @param {string} view */
  setView(view) {
    this.view = view === 'heat' ? 'heat' : 'lines';
    /** @type {HTMLInputElement} */ ($(this.view === 'heat' ? 'view-heat' : 'view-lines')).checked = true;
    const heat = this.view === 'heat';
    $('chart-ksd').hidden = heat;
    $('heat-wrap').hidden = !heat;
    $('ksd-legend').hidden = heat;
    if (heat && this.model) this.drawHeat(this.model);
    else if (!heat && this.model) this.scoreChart.u?.setSize({ width: Math.max(200, Math.floor($('chart-ksd').getBoundingClientRect().width)), height: Math.max(120, Math.floor($('chart-ksd').getBoundingClientRect().height)) });
  }

  /** The heat map (only while it is shown). @param {RunModel} model */
  drawHeat(model) {
    if (this.view !== 'heat') return;
    this.hooks.heat = drawHeat(/** @type {HTMLCanvasElement} */ ($('heat-ksd')), model, this.axes().metric.toUpperCase());
  }

  /**
   * The bracket and the arms table. During a run each frame does one part: the bracket when it changed, else at
   * most DOM_ROWS table rows (the rest in the following frames), so that no frame lays out the whole 56-arm
   * table while both cores run the worker. `sync` (the end of a run) brings both up to date at once.
   * @param {RunModel} model @param {boolean} [sync]
   */
  drawDom(model, sync = false) {
    const t0 = performance.now();
    const rebuilt = renderBracket($('bracket'), model, this.scoreChart);
    const complete = (rebuilt && !sync) ? false : renderArmsTable($('arms-table').tBodies[0], model, sync ? Infinity : DOM_ROWS);
    this.recordDraw(t0);
    if (!complete && !this.domPending) {
      this.domPending = true;
      requestAnimationFrame(() => { this.domPending = false; if (this.model) this.drawDom(this.model); });
    }
  }

  /** Main-thread cost of each redraw (ms), for the benchmark script; the last 200 are kept. @param {number} t0 */
  recordDraw(t0) {
    const times = (this.hooks.drawTimes ??= []);
    times.push(Math.round(performance.now() - t0));
    if (times.length > 200) times.shift();
  }

  /** @param {RunModel} model */
  drawStats(model) {
    // Running arms move on the chart after every chunk (their scores come at the round's end).
    this.hooks.chartPending = this.scoreChart.setPending(model.pending());
    // A comparison: the time and share of the WHOLE comparison (compare-mode.js), not of this tuner alone.
    const cmp = this.compareEntries.length && this.cmp.clock ? this.cmp.line(model) : null;
    const [frac, text] = progressLine(model, cmp, this.compareEntries.length > 0);
    this.progress(frac, text);
  }

  /** @param {any} result @param {number} seconds @param {import('../../protocol.js').RunResult} run */
  async finish(result, seconds, run) {
    const config = run.report.config;
    // A comparison shows one tuner's run below its card (compare-mode.js); a tune run shows itself. Both draw in
    // several tasks (nextFrame), none long.
    if (config.kind === 'compare') await this.cmp.finish(result, config, seconds, run.report);
    else await this.showReport(result, run.samples, run.dim, config, seconds, run.report, this.model, true);
    const report = this.result?.report;
    const b = report?.best;
    const chosen = config.kind === 'compare'
      ? `Done: ${result.entries.map((/** @type {any} */ e) => `${e.name} chose ${e.best ? `arm #${e.best.arm} (h = ${fmtSci(e.best.step)}, batch ${fmtBatch(e.best.batch_fraction)})` : 'no arm'}`).join('; ')}.`
      : b ? `Done: the chosen arm is #${b.arm} (h = ${fmtSci(b.step)}, batch ${fmtBatch(b.batch_fraction)}${b.leapfrog > 1 ? `, L = ${b.leapfrog}` : ''}).` : null;
    this.message(chosen ?? 'Done, but no arm could be chosen (every arm diverged).', chosen ? 'info' : 'error');
    this.showReading(config.kind === 'compare' ? readCompare(result, config) : readTune(report));
  }

  /**
   * Shows a tune report (or one entry of a comparison) in the chart, bracket, arms table, chosen arm and
   * posterior, with its run model (built from the events; null: from the report alone).
   * @param {any} report @param {Float64Array} samples @param {number} dim @param {any} config @param {number} seconds
   * `split` (a run's result): in four tasks (the chart; its data; the bracket and table; the posterior), so that
   * no main-thread task is long; a later call supersedes one still drawing. Without it (a click on a tuner of a
   * comparison), all at once.
   * @param {any} envelope the run's report envelope @param {RunModel|null} model @param {boolean} [split]
   */
  async showReport(report, samples, dim, config, seconds, envelope, model, split = false) {
    const token = this.showToken = (this.showToken ?? 0) + 1;
    if (model !== this.model || config.kind === 'compare') { if (model) this.showModel(model); else this.model = null; }
    // No model from this run's events (a report opened from a file, or a comparison's tuner the page did not
    // run): one rebuilt from the report's rounds.
    const replayed = !this.model;
    const m = /** @type {RunModel} */ (this.model ?? new RunModel(this.axes().unit));
    m.elapsed = seconds;
    if (replayed) m.replay(report); else m.applyReport(report);
    if (!this.model) { this.model = m; this.resetChart(m); }
    this.result = { config, report, samples, dim };
    this.hooks.lastResult = { config, report, dim, envelope };
    if (split) await nextFrame();
    if (token !== this.showToken) return;
    this.drawRun(m, true, false);
    if (split) await nextFrame();
    if (token !== this.showToken) return;
    this.drawDom(m, true);
    this.hooks.lastEvents = m.unknown;
    this.drill.show(this.result);
    if (split) await nextFrame();
    if (token !== this.showToken) return;
    const shown = showPosterior({ trace: this.traceChart, hist: this.histChart, client: this.client, message: (t) => this.message(t, 'error'), split }, this.result);
    $('export-traces').disabled = !samples?.length;
    $('export-svg').disabled = false;
    if (split) await shown;
  }

  /** The run's reading (sentences generated from its report, www/panels/tune/reading.js). @param {string[]} sentences */
  showReading(sentences) {
    this.hooks.reading = sentences;
    $('reading').replaceChildren(el('p', { text: sentences.join(' ') }));
  }

  chartData() { return this.hooks.lastChartData; }

  /** The score chart as SVG (title, legend, axis titles, config hash as text), or null before a run. */
  scoreSvg() {
    const m = this.model;
    if (!m || !this.lastConfig) return null;
    const c = this.scoreChart;
    return scoreSvg({
      title: `${m.tuner ? `${String(m.tuner).replace(/^mamba/, 'MAMBA')}: ` : ''}${this.axes().metric.toUpperCase()} of each arm against compute${this.partialNote() ? ` (${this.partialNote()})` : ''}`,
      xLabel: this.xLabel(), yLabel: this.yLabel(), footer: this.exportFooter(), caption: this.exportCaption(), arms: m.arms, best: m.done ? m.best : null,
      boundaries: m.boundaries, legend: c.legendItems(fmtBatch, fmtStep),
      style: { strokeOf: (a) => c.strokeOf(a), markOf: (a) => c.markOf(a), dashOf: (a) => c.dashOf(a), hollowOf: (a) => c.isOut(a) },
    });
  }

  canvases() {
    const out = [this.view === 'heat' ? /** @type {HTMLCanvasElement} */ ($('heat-ksd')) : this.scoreChart.canvas(), this.traceChart.canvas(), this.histChart.canvas()];
    if (!$('density-wrap').hidden) out.push($('density'));
    return [...out, ...this.drill.canvases()];
  }
}
