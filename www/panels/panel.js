// The panel base: one interface for every tuner (tune, bandit, HOAG, learning-rate schedules, step size).
// A panel owns its settings (in the URL hash, under its namespace), runs ONE experiment config with a `kind`
// through the compute worker (`client.run`), and draws the kind's events and report.
//
// Subclasses give `name` (registry name), `kind` (the core's experiment kind), `prefix` (hash namespace and
// element id prefix), `title`, `fields`, `groups`, `defaults`, `presets` ([value, label] of core presets),
// `toConfig(state)` (the kind's config, without `kind`), `fromConfig(config)` (core config -> partial state),
// `isCoreConfig(c)`, `validate(state)` (messages), `buildCharts(host)`, `begin(config)`,
// `onEvents(details, elapsed)`, `finish(result, seconds, run)`, `canvases()` and `chartData()`.
import { el } from '../shared/dom.js';
import { hashParams, editHash, readFields, writeFields, formatField, parseField } from '../shared/hash.js';
import { chartsPng, chartsSvg, settingsPhrases } from '../shared/chart-export.js';
import { download, toJson, configHash } from '../shared/export.js';
import { fieldRow, writeControls, readControls, refreshControls } from './fields.js';
import { RunBar } from './runbar.js';
import { startCard } from '../shared/start-here.js';
import { fmtAbout } from '../shared/time-estimate.js';
import { EstimatingPanel } from './estimate.js';
import { droppedText } from '../shared/open-report.js';
import { readUpload, notCsvText, emptyFile, otherDelimiter, toCommas, delimiterName, headerColumns, csvRows } from '../shared/upload.js';

/** @typedef {import('../protocol.js').Envelope} Envelope */
/** @typedef {import('../protocol.js').ExperimentEvent} ExperimentEvent */
/** @typedef {import('./fields.js').FormField} FormField */
/** @typedef {import('./estimate.js').PanelContext} PanelContext */
/**
 * A run's state, one per panel (`runState`; also `section.dataset.runState` and the hook's `runState`): idle
 * (nothing run, or settings/file changed since), checking (Run pressed, the core checks the settings), running,
 * stopped (partial results kept), failed (the run bar's message says why; every placeholder says so too) and
 * done. `setRunState` is the only writer, so the run bar, the chart placeholders, the reading and the export
 * buttons cannot disagree.
 * @typedef {'idle'|'checking'|'running'|'stopped'|'failed'|'done'} RunState
 */

/** What every still-empty part of the results says in a state (null: leave the panel's own placeholder). */
export const STATE_PLACEHOLDER = /** @type {Record<RunState, string|null>} */ ({
  idle: null, checking: null, running: null, done: null,
  stopped: 'Stopped before this part was reached: nothing to show. Press Run for a complete run.',
  failed: 'The run failed, so there is nothing to show here: the message above says why.',
});

/** What the placeholders of a failed run say once a new file makes the panel idle again. */
const IDLE_AFTER_FAILURE = 'Press Run: the results appear here.';

export class Panel extends EstimatingPanel {
  /** @param {PanelContext} ctx */
  constructor(ctx) {
    super(ctx);
    this.busy = ctx.busy;
    /** @type {import('../client.js').RunHandle|null} */
    this.current = null;
    this.starting = false;
    /** Stop was pressed before the run had started (while its settings were checked). */
    this.stopBeforeStart = false;
    /** @type {Envelope|null} */
    this.lastReport = null;
    /** @type {any} */
    this.lastConfig = null;
    /** @type {string|null} */
    this.csvText = null;
    this.csvName = '';
    /** @type {string|null} why the chosen file cannot be used (null: no file chosen, or a usable one) */
    this.csvProblem = null;
    this.runs = 0;
    /** @type {string[]} */
    this.errors = [];
    /** @type {string[]} */
    this.unknownEvents = [];
    /** @type {RunState} the one run state the bar, charts, reading and exports all show */
    this.runState = 'idle';
    /** the fraction of its work (the core's done / total) a stopped run reached */
    this.reachedFrac = 0;
    /** @type {string|null} the settings (and file) the results shown came from (settingsKey at Run) */
    this.resultsKey = null;
    /** whether the results shown are from other settings than the current ones */
    this.resultsStale = false;
    /** files chosen so far (a new file, even of the same name, is a change of settings) */
    this.fileSerial = 0;
    // Subclass settings (set in their constructors).
    this.name = '';
    /** @type {string} an ExperimentKind */
    this.kind = 'tune';
    this.prefix = '';
    this.title = '';
    /** the tab's label (the registry makes the tab; the title when empty) */
    this.tab = '';
    this.intro = '';
    /** @type {{question: string, first: string}|null} the tab's "Start here" card (www/shared/start-here.js) */
    this.start = null;
    this.readyText = '';
    this.presetHelp = '';
    /** @type {string[][]} [value, label] */
    this.presets = [];
    /** @type {Record<string, any>} */
    this.defaults = {};
    /** @type {Record<string, any>} */
    this.state = {};
    /** @type {FormField[]} */
    this.fields = [];
    /** @type {{legend: string, keys: string[], extra?: () => HTMLElement[]}[]} */
    this.groups = [];
    /** @type {((s: any) => boolean)|null} */
    this.uploadShow = null;
    /** @type {HTMLElement} */
    this.section = document.body;
    /** @type {HTMLFormElement} */
    this.form = /** @type {any} */ (null);
    this.bar = new RunBar((k) => this.id(k), this.errors);
  }

  /** Element id of a part of this panel. @param {string} k */
  id(k) { return this.prefix ? `${this.prefix}-${k}` : k; }
  /** @param {string} k @returns {any} */
  $(k) { return document.getElementById(this.id(k)); }

  // ---------------------------------------------------------------- hooks for subclasses
  /** @param {any} _s @returns {any} */
  toConfig(_s) { return {}; }
  /** @param {any} _c @returns {Record<string, any>} */
  fromConfig(_c) { return {}; }
  /** @param {any} _c */
  isCoreConfig(_c) { return false; }
  /** @param {any} _s @returns {string[]} */
  validate(_s) { return []; }
  /** @param {HTMLElement} _host */
  buildCharts(_host) {}
  /** @param {any} _config */
  begin(_config) {}
  /** @param {any[]} _details @param {number} _elapsed */
  onEvents(_details, _elapsed) {}
  /**
   * Shows the result; may return a promise (a panel that draws in several tasks, so that none is long): the run
   * is done once it resolves.
   * @param {any} _result @param {number} _seconds @param {import('../protocol.js').RunResult} _run
   * @returns {void|Promise<void>}
   */
  finish(_result, _seconds, _run) {}
  /** @returns {(HTMLCanvasElement|null)[]} */
  canvases() { return []; }

  /**
   * The line under exported charts: the panel and the hash of the config that made them (the report's config,
   * defaults filled in: the same as Export → Config gives for these settings).
   */
  exportFooter() {
    const config = this.lastReport?.config ?? this.lastConfig;
    const base = config ? `tunelab · ${this.title} · config ${configHash(config)}` : `tunelab · ${this.title}`;
    return this.partialNote() ? `${base} · ${this.partialNote()}` : base;
  }
  /** The run's settings (its config as the core read it) as the exports' caption: ["key: value", ...]. */
  exportCaption() {
    const config = this.lastReport?.config ?? this.lastConfig;
    return config ? settingsPhrases(config) : [];
  }
  /** "partial: the run was stopped at N%" for a stopped run's exports, in every export's footer (null otherwise). */
  partialNote() {
    return this.lastReport?.status === 'stopped' ? `partial: the run was stopped at ${Math.round(this.reachedFrac * 100)}%` : null;
  }
  /** @returns {any} */
  chartData() { return null; }
  /** @param {EventTarget|null} _target */
  normalise(_target) {}
  afterRefresh() {}

  /** Start of the names of downloaded files. */
  get filePrefix() { return `tunelab-${this.name}`; }

  /** The experiment config of a state: ONE document with its `kind`. @param {any} s */
  experiment(s) { return /** @type {import('../protocol.js').ExperimentConfig} */ ({ kind: this.kind, ...this.toConfig(s) }); }

  // ---------------------------------------------------------------- settings

  /** State from the hash (namespaced keys), defaults for missing or invalid values. */
  readHash() { return readFields(hashParams(), this.fields, this.defaults, `${this.prefix}.`).values; }

  writeHash() { editHash((p) => writeFields(p, this.fields, this.state, `${this.prefix}.`)); }

  writeForm() {
    writeControls(this.fields, this.state, (k) => this.id(k));
    this.refresh();
  }

  /** Reads the form into the state; returns the labels of invalid fields (marked aria-invalid). */
  readForm() {
    const { state, bad } = readControls(this.fields, this.state, (k) => this.id(k));
    this.state = state;
    return bad;
  }

  refresh() {
    this.markStale();
    refreshControls(this.form, this.fields, this.state, (k) => this.id(k));
    if (this.uploadShow) {
      const on = this.uploadShow(this.state);
      for (const e of [this.$('file')?.closest('.row'), this.$('file-msg')]) if (e) e.hidden = !on;
    }
    this.entry.state = { ...this.state };
    this.afterRefresh();
    this.scheduleEstimate();
  }

  // ---------------------------------------------------------------- layout

  /**
   * A result card: a section labelled by its heading (element id `h-KEY` of this panel); `title` is the heading's
   * text, or [text, note] for a smaller note after it.
   * @param {string} key @param {string|string[]} title @param {...any} children
   */
  card(key, title, ...children) {
    const [text, note] = Array.isArray(title) ? title : [title];
    return el('section', { class: 'card', 'aria-labelledby': this.id(`h-${key}`) },
      el('h2', { id: this.id(`h-${key}`), text }, note ? el('span', { class: 'h-sub', text: note }) : null), ...children);
  }

  /** Builds the panel inside `root`. @param {HTMLElement} root */
  render(root) {
    const P = (/** @type {string} */ k) => this.id(k);
    this.form = /** @type {HTMLFormElement} */ (el('form', { class: 'settings', id: P('settings'), 'aria-label': `${this.title} settings`, novalidate: true }));
    const presetSel = /** @type {HTMLSelectElement} */ (el('select', { id: P('preset') },
      el('option', { value: '', text: '(current settings)' }), ...this.presets.map(([v, label]) => el('option', { value: v, text: label }))));
    this.form.append(el('fieldset', {}, el('legend', { text: 'Preset' }),
      el('div', { class: 'row' }, el('label', { for: P('preset'), text: 'Start from' }), presetSel),
      el('p', { class: 'help', text: this.presetHelp })));
    for (const group of this.groups) {
      const fs = el('fieldset', {}, el('legend', { text: group.legend }));
      fs.dataset.keys = group.keys.join(',');
      for (const key of group.keys) fs.append(...fieldRow(/** @type {FormField} */ (this.fields.find((f) => f.key === key)), P(key)));
      if (group.extra) fs.append(...group.extra());
      this.form.append(fs);
    }
    const results = el('section', { class: 'results', 'aria-label': `${this.title} results` });
    const intro = el('section', { class: 'card intro' }, el('h2', { text: this.title }), el('p', { text: this.intro }));
    const chartsHost = el('div', { class: 'panel-charts' });
    const exportCard = this.card('export', 'Export',
      el('div', { class: 'buttons wrap' },
        el('button', { type: 'button', id: P('export-config'), text: 'Config (JSON)' }),
        el('button', { type: 'button', id: P('export-report'), disabled: true, text: 'Report (JSON)' }),
        el('button', { type: 'button', id: P('export-png'), disabled: true, text: 'Charts (PNG)' }),
        el('button', { type: 'button', id: P('export-charts-svg'), disabled: true, text: 'Charts (SVG)' })));
    results.append(this.bar.build(this.title, this.readyText), intro, chartsHost, exportCard);
    this.section = el('section', { class: 'layout tuner-panel', id: `panel-${this.name}`, role: 'tabpanel', 'aria-labelledby': `tab-${this.name}`, hidden: true },
      this.form, results);
    root.append(this.section);
    this.buildCharts(chartsHost);

    this.state = this.readHash();
    this.writeForm();
    /** @param {Event} e */
    const onChange = (e) => {
      const t = /** @type {HTMLInputElement} */ (e.target);
      if (t.id === P('preset') || t.type === 'file') return;
      this.showPreset('');
      this.readForm();
      this.normalise(t);
      this.refresh();
      this.writeHash();
    };
    this.form.addEventListener('input', onChange);
    this.form.addEventListener('change', onChange);
    presetSel.addEventListener('change', async () => {
      const name = presetSel.value;
      if (name) await this.loadPreset(name);
    });
    this.wireCommon();
  }

  /** Run bar and export buttons (every panel, generated or from index.html). */
  wireCommon() {
    // The tab's "Start here" card, under the run bar (www/shared/start-here.js).
    const card = startCard(this.name, this.tab || this.title, this.start);
    const bar = this.section.querySelector('.results > .runbar');
    if (card && bar) bar.after(card);
    this.section.dataset.runState = this.runState;
    this.entry.runState = this.runState;
    this.bar.wire({ run: () => this.run(), stop: () => this.stop(), link: () => this.writeHash() });
    // The config as the core reads it (defaults filled in): `tunelab run --config FILE` runs the same.
    this.$('export-config').addEventListener('click', async () => {
      if (this.readForm().length) { this.message('Fix the highlighted settings first.', 'error'); return; }
      try {
        const checked = await this.client.check(this.experiment(this.state));
        download(`${this.filePrefix}-config.json`, toJson(checked.config), 'application/json');
      } catch (e) { this.message(`This config would not run: ${/** @type {Error} */ (e).message}`, 'error'); }
    });
    this.$('export-report').addEventListener('click', () => this.lastReport && download(`${this.filePrefix}-report.json`, toJson(this.lastReport), 'application/json'));
    this.$('export-png').addEventListener('click', async () => download(`${this.filePrefix}-charts.png`, await chartsPng(this.canvases(), this.exportFooter(), this.exportCaption()), 'image/png'));
    this.$('export-charts-svg')?.addEventListener('click', () => download(`${this.filePrefix}-charts.svg`, chartsSvg(this.canvases(), this.exportFooter(), this.exportCaption()), 'image/svg+xml'));
  }

  /**
   * File input and status line for `data = upload` (the text stays in the page and the worker).
   * @param {(s: any) => boolean} show
   */
  uploadRows(show) {
    const P = (/** @type {string} */ k) => this.id(k);
    const input = /** @type {HTMLInputElement} */ (el('input', { type: 'file', id: P('file'), accept: '.csv,text/csv,text/plain' }));
    const status = el('p', { class: 'field-msg ok', id: P('file-msg'), 'aria-live': 'polite' });
    const row = el('div', { class: 'row', 'data-upload': '1' }, el('label', { for: P('file'), text: 'CSV file' }), input);
    this.uploadShow = show;
    input.addEventListener('change', async () => {
      const f = input.files?.[0];
      if (!f) return;
      const { name, text, why } = await readUpload(f);
      this.csvName = name;
      this.fileChanged();
      // A file that cannot be used gets one message (here, and the same one from Run).
      this.csvProblem = why ? notCsvText(name, why) : !text?.trim() ? emptyFile(name) : null;
      if (this.csvProblem) {
        this.csvText = null;
        status.textContent = this.csvProblem;
        status.className = 'field-msg';
        return;
      }
      this.csvText = text;
      status.className = 'field-msg ok';
      const d = otherDelimiter(this.csvText);
      if (d) {
        this.csvText = toCommas(this.csvText, d);
        status.textContent = `${name}: the columns were separated by ${delimiterName(d)}, not commas; read with ${delimiterName(d, true)} as the delimiter. `;
      } else status.textContent = '';
      const header = headerColumns(this.csvText);
      status.textContent += `${name}: ${csvRows(this.csvText)} rows; columns ${header.join(', ')}. The worker checks it when you press Run.`;
      if (!header.includes(this.state.label) && header.length) {
        this.state = { ...this.state, label: header.includes('y') ? 'y' : header[header.length - 1] };
        if (!header.includes('y')) status.textContent += ` No column is named “y”: the last column, “${this.state.label}”, is taken as the label.`;
        this.writeForm();
        this.writeHash();
      }
    });
    return [row, status];
  }

  /**
   * The message Run gives when the upload has no usable text: the chosen file's problem, or "choose a file"
   * when none was chosen (null when there is a text). @param {string} where the control, e.g. "Problem → CSV file"
   */
  fileMissing(where) {
    if (this.csvText) return null;
    return this.csvProblem ?? `Choose a CSV file first (${where}).`;
  }

  /** The uploaded text a run hands to the worker (the CSV upload when shown; panels with other uploads override). @param {any} s */
  uploadText(s) { return this.uploadShow?.(s) ? this.csvText : null; }

  /** The identity of the current settings and file: the experiment config as JSON and the files chosen. */
  settingsKey() {
    let config = '';
    try { config = JSON.stringify(this.experiment(this.state)); } catch { config = String(Math.random()); }
    return `${config}|${this.fileSerial}`;
  }

  /**
   * Marks the results shown as from the previous settings once the settings or the file differ from those of
   * the run that made them (and unmarks them when the settings are changed back): a note in the run bar,
   * `data-stale` on the panel (the result cards get a dashed outline) and the hook's `stale`. The results are
   * kept, never shown under the new settings' labels without the note.
   */
  markStale() {
    const shown = this.resultsKey != null && (this.runState === 'done' || this.runState === 'stopped');
    const stale = shown && !this.current && !this.starting && this.settingsKey() !== this.resultsKey;
    if (stale === this.resultsStale && this.section.dataset.stale === String(stale)) return;
    this.resultsStale = stale;
    this.section.dataset.stale = String(stale);
    if (this.entry) this.entry.stale = stale;
    const results = this.section.querySelector('.results');
    let note = /** @type {HTMLElement|null} */ (this.section.querySelector('.stale-note'));
    if (stale && !note && results) {
      // In the run bar (sticky on a laptop, fixed on a phone), so it stays in view with the results.
      note = el('p', { class: 'stale-note', role: 'status' });
      const bar = results.querySelector(':scope > .runbar');
      if (bar) bar.append(note); else results.prepend(note);
    }
    if (note) {
      note.textContent = stale ? `The results below are from the previous settings (run ${this.runs}), not these: press Run for these settings.` : '';
      note.hidden = !stale;
    }
  }

  /** Re-reads the settings from the hash (back/forward, a pasted link). */
  syncFromHash() { if (!this.current) { this.state = this.readHash(); this.writeForm(); this.showPreset(''); } }

  /**
   * The Preset menu shows the preset the settings came from (`name`), or "(current settings)" ('') once they
   * were changed after it, or came from a link. @param {string} name
   */
  showPreset(name) {
    const sel = /** @type {HTMLSelectElement|null} */ (this.$('preset'));
    if (sel) sel.value = [...sel.options].some((o) => o.value === name) ? name : '';
    if (this.entry) this.entry.preset = sel?.value || null;
  }

  /** Fills the settings from a core preset (the worker returns the core's config). @param {string} name */
  async loadPreset(name) {
    try {
      this.applyConfig(await this.client.preset(/** @type {any} */ (this.kind), name));
      this.showPreset(name);
      this.message(`Preset “${name}” loaded (the core's \`--preset ${name}\`).`, 'info');
    } catch (e) { this.showPreset(''); this.message(`Could not load the preset: ${/** @type {Error} */ (e).message}`, 'error'); }
  }

  /** Fills the settings from a core config or a partial state {key: value}. @param {any} cfg */
  applyConfig(cfg) {
    this.showPreset('');
    const core = cfg && typeof cfg === 'object' && (cfg.kind != null || this.isCoreConfig(cfg));
    const partial = core ? this.fromConfig(cfg) : { ...cfg };
    const s = { ...this.state };
    for (const f of this.fields) {
      if (!(f.key in partial)) continue;
      const raw = formatField(f, partial[f.key]);
      const ok = f.type === 'text' ? raw : parseField(f, raw);
      if (ok !== undefined) s[f.key] = ok;
    }
    this.state = s;
    this.writeForm();
    this.writeHash();
  }

  /**
   * The hook's load(): a preset name, a core config (with or without `kind`), {preset, ...partial} or a
   * partial state. Resolves with the panel's state.
   * @param {any} config
   */
  async load(config) {
    if (typeof config === 'string') await this.loadPreset(config);
    else if (config && typeof config === 'object' && typeof config.preset === 'string') {
      const { preset, ...rest } = config;
      await this.loadPreset(preset);
      if (Object.keys(rest).length) this.applyConfig(rest);
    } else if (config) this.applyConfig(config);
    return { ...this.state };
  }

  // ---------------------------------------------------------------- runs

  /** @param {string} text @param {'info'|'error'} [kind] */
  message(text, kind = 'info') { this.bar.message(text, kind); }
  /** @param {number|null} frac @param {string|null} [text] */
  progress(frac, text = null) { this.bar.progress(frac, text); }

  /** @param {boolean} on */
  setRunning(on) {
    this.entry.running = on;
    this.bar.setRunning(on);
    this.section.dataset.running = on ? 'true' : 'false';
  }

  /**
   * Moves the panel to `state`: the progress line (`text`, when given), the export buttons (a report only after
   * a done or stopped run), and, after a failure or a stop, every placeholder left in the results.
   * @param {RunState} state @param {string|null} [text]
   */
  setRunState(state, text = null) {
    this.runState = state;
    this.entry.runState = state;
    this.section.dataset.runState = state;
    if (text != null) this.bar.progress(null, text);
    const hasReport = (state === 'done' || state === 'stopped') && this.lastReport != null;
    for (const k of ['export-report', 'export-png', 'export-charts-svg']) { const b = this.$(k); if (b) b.disabled = state !== 'idle' ? !hasReport : b.disabled; }
    // Back to idle after a failure (a new file): the failure's placeholders give way to "Press Run".
    if (state === 'idle') {
      for (const p of this.section.querySelectorAll('.results .placeholder')) if (p.textContent === STATE_PLACEHOLDER.failed) p.textContent = IDLE_AFTER_FAILURE;
      this.onRunState(state, IDLE_AFTER_FAILURE);
    }
    this.markStale();
    const say = STATE_PLACEHOLDER[state];
    if (say) {
      // A stopped panel's own "Stopped: …" placeholders (where the run stopped) stay.
      for (const p of this.section.querySelectorAll('.results .placeholder')) if (!(state === 'stopped' && /^Stopped/.test(p.textContent ?? ''))) p.textContent = say;
      this.onRunState(state, say);
    }
  }

  /** A subclass's own placeholders that are not `.placeholder` elements (canvases). @param {RunState} _state @param {string} _say */
  onRunState(_state, _say) {}

  /**
   * A new file was chosen: the last run's error no longer applies (the bar's error message goes, a failed
   * state becomes idle).
   */
  fileChanged() {
    this.fileSerial++;
    this.markStale();
    this.bar.clearAnnounce();
    if (this.bar.part('message').dataset.kind === 'error') this.message('', 'info');
    if (this.runState === 'failed') this.setRunState('idle', this.readyText || 'Ready: press Run.');
  }

  /**
   * A run scrolls to the panel's first chart, so the student sees it move, on a laptop as on a phone: the chart's
   * card just below the run bar (sticky at the top on a laptop; at the bottom of a phone's screen, where the
   * message line gives the one-line verdict). Not in embed mode (an iframe must not scroll its host page) nor in
   * a lesson (its box comes first).
   */
  revealResults() {
    if (document.body.classList.contains('embed') || document.documentElement.classList.contains('embed')) return;
    // A lesson's box heads the results: the lesson keeps it in view (www/embed.js), the charts follow it.
    if (this.section.querySelector('.results #lesson')) return;
    const card = this.firstChartCard();
    if (card) this.scrollBelowBar(card);
  }

  /** The card of the first chart on screen in the results (the chart itself when it has no card), or null. */
  firstChartCard() {
    const chart = [...this.section.querySelectorAll('.results .chart, .results canvas')].find((e) => /** @type {HTMLElement} */ (e).offsetParent !== null);
    return /** @type {HTMLElement|null} */ (chart?.closest('.card') ?? chart ?? null);
  }

  /**
   * Scrolls the page so that `target` starts just below the run bar when the bar is sticky at the top (a laptop),
   * or at the top of the screen (a phone, whose bar is at the bottom); not when it is already wholly in view.
   * @param {HTMLElement} target
   */
  scrollBelowBar(target) {
    const bar = /** @type {HTMLElement|null} */ (this.section.querySelector('.results > .runbar'));
    const b = bar?.getBoundingClientRect();
    const barOnTop = !!b && getComputedStyle(/** @type {HTMLElement} */ (bar)).position === 'sticky';
    const topFree = barOnTop ? /** @type {DOMRect} */ (b).height + 8 : 0;
    const bottomFree = innerHeight - (!barOnTop && b && b.top > innerHeight / 2 ? b.height : 0);
    const r = target.getBoundingClientRect();
    if (r.top >= topFree && r.bottom <= bottomFree) return;
    window.scrollTo({ top: Math.max(0, scrollY + r.top - topFree), behavior: 'auto' });
  }

  /** Checks the form before a run; returns a message, or null when the run can start. */
  blocker() {
    const bad = this.readForm();
    if (bad.length) return `Fix the highlighted settings first: ${bad.join(', ')}.`;
    const other = this.busy(this.name);
    if (other) return `A ${other} run is in progress: stop it first (one run at a time).`;
    return null;
  }

  /** Awaited after the run has started (running = true) and before `validate` (the tune panel: the core's check). */
  async preflight() {}

  /**
   * Runs the panel's settings as ONE experiment. Resolves with the report envelope; a stopped run resolves
   * with `{status: 'stopped', result: null}`; a failed one with null (its message is in `errors`).
   * @returns {Promise<Envelope|null>}
   */
  async run() {
    if (this.current || this.starting) return null;
    const blocked = this.blocker();
    if (blocked) { this.message(blocked, 'error'); return null; }
    // Running from the click on (synchronously: embed mode and lessons watch `running`), then the checks.
    this.starting = true;
    this.stopBeforeStart = false;
    this.bar.clearAnnounce();
    this.message('', 'info');
    const before = this.runState;
    this.setRunState('checking');
    this.setRunning(true);
    try { await this.preflight(); } finally { this.starting = false; }
    const problems = this.validate(this.state);
    if (problems.length) {
      // Nothing ran: the previous state (and its results) stay; the message says what to fix.
      this.setRunning(false);
      this.setRunState(before);
      this.message(problems.join(' '), 'error');
      return null;
    }
    this.writeHash();
    await this.flushEstimate().catch(() => {});
    if (this.stopBeforeStart) {
      // Stop was pressed while the settings were being checked: nothing starts, the previous results stay.
      this.setRunning(false);
      this.setRunState(before);
      this.message('Stopped before the run started: nothing ran.', 'info');
      return null;
    }
    const config = this.experiment(this.state);
    const entry = this.entry;
    entry.runs = ++this.runs;
    this.lastReport = null;
    this.setRunState('running', 'Starting…');
    this.resultsKey = this.settingsKey();
    this.markStale();
    this.progress(0);
    // The estimate shown before Run is the one this run is checked against (the settings cannot change now).
    this.runEstimate = this.estimateInfo;
    this.entry.timing = { before: this.runEstimate?.seconds ?? null, source: this.runEstimate?.source ?? null, work: this.runEstimate?.cost?.work ?? null, seconds: null };
    const t0 = performance.now();
    /** @type {any[]} */
    let pending = [];
    /** @type {any[]} every progress detail received: what a stopped run reached (the core's `reached`) */
    const reached = [];
    const at = { done: 0, total: 0 };
    let scheduled = false;
    const drain = () => {
      scheduled = false;
      const evs = pending; pending = [];
      if (evs.length) this.onEvents(evs, (performance.now() - t0) / 1000);
    };
    try {
      this.section.querySelector('.partial-card')?.remove();
      this.section.querySelector('.run-warnings')?.remove();
      this.section.querySelector('.opened-card')?.remove();
      this.entry.opened = null;
      this.begin(config);
      this.revealResults();
      const csv = this.uploadText(this.state);
      const run = this.client.run(config, csv, (events) => {
        // The kinds' own events (the `detail` of each progress event), drawn at most once a frame.
        for (const ev of events) if (ev.type === 'progress') { pending.push(ev.detail); reached.push(ev.detail); at.done = ev.done; at.total = ev.total; }
        this.showRunEta((performance.now() - t0) / 1000, at.total > 0 ? at.done / at.total : 0);
        if (!scheduled) { scheduled = true; requestAnimationFrame(drain); }
      });
      this.current = run;
      const out = await run.promise;
      drain();
      this.lastReport = out.report;
      this.lastConfig = config;
      entry.lastReport = out.report;
      const seconds = (performance.now() - t0) / 1000;
      await this.finish(out.report.result, seconds, out);
      // The core's warnings about this run (crates/wasm `run`: unscaled features, a chosen step at the grid's
      // edge), after what the panel said of its result.
      const warnings = Array.isArray(out.warnings) ? out.warnings.filter((w) => typeof w === 'string' && w) : [];
      this.showWarnings(warnings);
      this.finishEta(seconds);
      entry.lastChartData = this.chartData();
      this.progress(1, null);
      this.setRunState('done');
      const said = this.bar.part('message')?.textContent ?? '';
      const warned = warnings.length ? ` ${warnings.length === 1 ? 'One warning' : `${warnings.length} warnings`} below the chart.` : '';
      this.bar.announce(`${this.title}: the run finished in ${seconds.toFixed(1)} s. ${said}${warned}`.trim());
      return out.report;
    } catch (err) {
      drain();
      const e = /** @type {Error} */ (err);
      entry.lastChartData = this.chartData();
      if (e.name === 'CancelledError') {
        const seconds = (performance.now() - t0) / 1000;
        // The partial report: the core's stopped envelope (result null, `reached`: the progress details up to
        // the stop), rebuilt from the events this page received (Stop does not wait for the worker's answer).
        /** @type {Envelope} */
        const partial = { format: 1, kind: config.kind, status: 'stopped', config, result: null, reached,
          compute: { wall_seconds: seconds, threads: this.client.info?.threads ?? 1, done: at.done, total: at.total, unit: '' } };
        this.lastReport = partial;
        this.lastConfig = config;
        entry.lastReport = partial;
        this.message('Stopped. What the run reached stays below (partial); change the settings or press Run again.', 'info');
        // Where the run was, by the core's own count (the bar is reset to 0 below).
        this.reachedFrac = at.total > 0 ? Math.min(1, at.done / at.total) : 0;
        this.progress(0);
        const where = this.stopped(seconds);
        const before = this.runEstimate?.seconds;
        this.bar.timeLine(`Stopped after ${seconds.toFixed(1)} s${before != null ? `; estimated ${fmtAbout(before)} before Run` : ''}.`, { state: 'stopped', total: null });
        this.showPartial(reached);
        this.setRunState('stopped', where);
        this.bar.announce(`${this.title}: the run was stopped after ${seconds.toFixed(1)} s; its partial results are shown.`);
        return partial;
      }
      this.message(`The run failed: ${e.message}`, 'error');
      this.bar.timeLine('', { state: 'failed', total: null });
      this.progress(0);
      this.setRunState('failed', 'Failed: the message below says why.');
      this.bar.announce(`${this.title}: the run failed. ${e.message}`);
      return null;
    } finally {
      this.current = null;
      this.setRunning(false);
      entry.unknownEvents = [...new Set(this.unknownEvents)];
    }
  }

  /**
   * The core's warnings about the run just finished (crates/wasm `run`, src/experiments/advice.rs: unscaled
   * features, a chosen step at the grid's edge; the CLI prints the same texts on stderr), in a box right after the
   * first chart's card: in the run bar they would make the phone's bar several lines tall, and above the chart they
   * would push it out of view.
   * @param {string[]} warnings
   */
  showWarnings(warnings) {
    this.section.querySelector('.run-warnings')?.remove();
    if (!warnings.length) return;
    const box = el('div', { class: 'run-warnings card', role: 'note' },
      el('p', { class: 'run-warnings-title', text: warnings.length === 1 ? 'Warning about this run' : `${warnings.length} warnings about this run` }),
      el('ul', {}, warnings.map((w) => el('li', { text: `${w.charAt(0).toUpperCase()}${w.slice(1)}.` }))));
    // Right after the card of the first chart (the card a run scrolls into view), else under the run bar.
    const card = this.firstChartCard();
    const bar = this.section.querySelector('.results > .runbar');
    if (card && card !== bar) card.after(box);
    else if (bar) bar.after(box);
    else this.section.querySelector('.results')?.prepend(box);
  }

  /** Stops the run; pressed while the settings are still being checked, it keeps the run from starting. */
  stop() {
    if (this.current) this.current.cancel();
    else if (this.entry.running) this.stopBeforeStart = true;
  }

  /**
   * Shows a report read from a file (www/shared/open-report.js) through the run's own path: `begin` with its
   * config, then `finish` with its result (a stopped report: its `reached` progress through `onEvents`, then the
   * stopped view), as if this page had run it; a card under the run bar says where it came from, shows its config
   * and offers "Run again here" (loads the config; nothing runs until Run). The settings stay as they were.
   * @param {import('../protocol.js').OpenedReport} opened @param {{name: string, origin: string|null, fullBytes: number}} meta
   */
  async showOpened(opened, meta) {
    if (this.current || this.starting) throw Object.assign(new Error('a run is in progress: stop it first'), { name: 'ReportError', code: 'busy' });
    const report = opened.report;
    const config = report.config;
    const seconds = report.compute?.wall_seconds ?? 0;
    this.message('', 'info');
    this.section.querySelector('.partial-card')?.remove();
    this.section.querySelector('.opened-card')?.remove();
    this.lastReport = report;
    this.lastConfig = config;
    this.entry.lastReport = report;
    this.begin(config);
    if (report.status === 'complete') {
      await this.finish(report.result, seconds, opened);
      this.entry.lastChartData = this.chartData();
      this.progress(1, null);
      this.setRunState('done');
    } else {
      const reached = report.reached ?? [];
      this.onEvents(reached, seconds);
      const c = report.compute;
      this.reachedFrac = c && c.total > 0 ? Math.min(1, c.done / c.total) : 0;
      this.progress(0);
      const where = this.stopped(seconds);
      this.showPartial(reached);
      this.entry.lastChartData = this.chartData();
      this.setRunState('stopped', where);
    }
    const dropped = droppedText(opened.dropped ?? [], opened.bytes ?? 0, meta.fullBytes);
    const card = el('section', { class: 'card opened-card', 'aria-labelledby': this.id('h-opened') },
      el('h2', { id: this.id('h-opened'), text: 'Opened from a file' }),
      el('p', { text: `${meta.name}${meta.origin ? ` (${meta.origin})` : ''}: a ${report.kind} report, ${report.status === 'complete' ? 'a complete run' : 'a stopped run'} that took ${seconds.toFixed(1)} s on ${report.compute?.threads ?? '?'} thread${report.compute?.threads === 1 ? '' : 's'} where it ran. Nothing ran in this page: what this tab shows is drawn from the file's numbers.` }),
      dropped ? el('p', { class: 'message info opened-dropped', text: dropped }) : null,
      el('details', {}, el('summary', { text: 'Its config' }), el('pre', { class: 'opened-config', text: toJson(config) })),
      el('div', { class: 'buttons' }, el('button', { type: 'button', class: 'opened-rerun', text: 'Run again here' })),
      el('p', { class: 'help', text: 'Run again here loads this config into the settings; press Run to run it in this page.' }));
    card.querySelector('.opened-rerun')?.addEventListener('click', async () => {
      await this.load(config);
      this.message('The report’s config is loaded into the settings: press Run to run it here.', 'info');
    });
    const bar = this.section.querySelector('.results > .runbar');
    const results = this.section.querySelector('.results');
    if (bar?.parentElement === results) bar.after(card); else results?.prepend(card);
    this.entry.opened = { name: meta.name, kind: report.kind, status: report.status, dropped: opened.dropped ?? [], bytes: opened.bytes ?? 0 };
    // The kind's own headline (finish's message) follows the note that nothing ran.
    const said = this.bar.part('message')?.textContent ?? '';
    this.message(`Opened ${meta.name}: a ${report.kind} report, nothing was run. ${said}`.trim(), 'info');
  }

  /**
   * A stopped run's partial result, shown under the run bar: the last progress event's data (panels whose
   * charts and tables already show the details override it). Labelled partial: the run did not finish.
   * @param {any[]} reached every progress detail received before the stop
   */
  showPartial(reached) {
    const last = reached[reached.length - 1];
    const fmt = (/** @type {any} */ v) => typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(4))
      : Array.isArray(v) ? `${v.length} value${v.length === 1 ? '' : 's'}` : v && typeof v === 'object' ? '…' : String(v);
    const rows = last ? Object.entries(last).filter(([k]) => k !== 'type').map(([k, v]) => el('li', {}, el('b', { text: `${k.replace(/_/g, ' ')}: ` }), fmt(v))) : [];
    const card = el('section', { class: 'card partial-card', 'aria-label': 'Partial result' },
      el('h2', { text: 'Partial result (stopped)' }),
      el('p', { text: last ? `The run was stopped after ${reached.length} progress update${reached.length === 1 ? '' : 's'}; the last one (${String(last.type ?? 'progress').replace(/-/g, ' ')}) reached:` : 'The run was stopped before its first progress update: nothing was reached.' }),
      rows.length ? el('ul', { class: 'partial-list' }, ...rows) : null,
      el('p', { class: 'help', text: 'Partial: the run did not finish, so these are not its results. Export → Report (JSON) saves every update reached.' }));
    const bar = this.section.querySelector('.results .runbar, .results [data-part="runbar"]');
    const results = this.section.querySelector('.results');
    if (bar?.parentElement === results) bar.after(card); else results?.prepend(card);
  }

  /**
   * A run was stopped after `seconds`: the progress line to show ("Stopped at …", where the run was). Panels
   * with a finer notion of where (rounds) override it.
   * @param {number} seconds
   */
  stopped(seconds) {
    const frac = this.reachedFrac;
    return `Stopped at ${Math.round(frac * 100)}% of the run, after ${seconds.toFixed(1)} s.`;
  }
}
