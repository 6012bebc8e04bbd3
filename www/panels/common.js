// Shared parts of the tuner panels (bandits, HOAG, learning-rate schedules): the settings form built from a
// field list, settings in the URL hash under a namespace ("bandit.rounds=..."), Run / Stop through the compute
// worker, the run bar, exports, and chart helpers (uPlot for live line charts, a plain canvas for heat maps,
// coloured scatter plots and bars). Drawing only: every number comes from the worker.
import uPlot from '../../vendor/uplot/uPlot.esm.js';
import { OKABE_ITO, fmtSci } from '../charts.js';
import { download, toJson, canvasesToPng } from '../export.js';

export { OKABE_ITO, fmtSci };

export { el } from '../dom.js';
export { hashParams, editHash } from '../hash.js';
import { el } from '../dom.js';

/** Parses one field's raw hash value; undefined when invalid. */
export function parseField(f, raw) {
  switch (f.type) {
    case 'select': return f.options.some(([v]) => v === raw) ? raw : undefined;
    case 'bool': return raw === '1' ? true : raw === '0' ? false : undefined;
    case 'checks': {
      if (raw === '') return [];
      const xs = raw.split(',');
      return xs.every((x) => f.options.some(([v]) => v === x)) ? xs : undefined;
    }
    case 'int': { const v = Number(raw); return Number.isInteger(v) && v >= f.min && v <= f.max ? v : undefined; }
    case 'num': { const v = Number(raw); return Number.isFinite(v) && v >= f.min && v <= f.max ? v : undefined; }
    default: return raw;
  }
}

const formatField = (f, v) => (f.type === 'bool' ? (v ? '1' : '0') : f.type === 'checks' ? v.join(',') : String(v));

// ------------------------------------------------------------------------------------------ charts

const FONT = '12px system-ui, sans-serif';
const AXIS = { stroke: '#3d4650', grid: { stroke: '#e6e9ed', width: 1 }, ticks: { stroke: '#c9cfd6', width: 1 }, font: FONT, labelFont: FONT };

function sizeOf(e) {
  const r = e.getBoundingClientRect();
  return { width: Math.max(200, Math.floor(r.width)), height: Math.max(140, Math.floor(r.height)) };
}

export function placeholder(e, text) {
  e.replaceChildren(el('p', { class: 'placeholder', text }));
}

/**
 * Aligns series with their own x values on the union of the x values (null where a series has no point):
 * items = [{x: [], y: [], lo?: [], hi?: []}] -> [xs, y0, (lo0, hi0,) y1, ...] in uPlot's layout.
 * `keep(v)` drops values a log axis cannot show (they become gaps).
 */
export function alignSeries(items, keep = Number.isFinite) {
  const xs = [...new Set(items.flatMap((s) => s.x.filter(Number.isFinite)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const out = [xs];
  for (const s of items) {
    const cols = s.lo && s.hi ? [s.y, s.lo, s.hi] : [s.y];
    for (const col of cols) {
      const ys = new Array(xs.length).fill(null);
      s.x.forEach((x, i) => { const v = col[i]; if (index.has(x) && v != null && keep(v)) ys[index.get(x)] = v; });
      out.push(ys);
    }
  }
  return out;
}

/** Whole-number tick steps (rounds, windows, iterations). */
const INT_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 1e4, 2e4, 2.5e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7];

/** Tick label: powers of ten as 1e-5 (or 0.01 ... 100), others as fmtSci. */
export function fmtTick(v) {
  if (v == null || !Number.isFinite(v)) return '';
  const e = Math.log10(Math.abs(v));
  if (Math.abs(e - Math.round(e)) < 1e-9) { const k = Math.round(e); return Math.abs(k) >= 3 ? `1e${k}` : String(10 ** k); }
  return fmtSci(v);
}

/** Log-axis splits: whole decades, at most ~6 labels; inside one decade, 4 log-spaced values. */
export function logSplits(u, axisIdx, min, max) {
  if (!(min > 0 && max > min)) return [min];
  const a = Math.ceil(Math.log10(min) - 1e-9); const b = Math.floor(Math.log10(max) + 1e-9);
  if (b - a >= 1) {
    const step = Math.ceil((b - a + 1) / 6);
    const out = [];
    for (let e = a; e <= b; e += step) out.push(10 ** e);
    return out;
  }
  const l0 = Math.log10(min); const l1 = Math.log10(max);
  return [0.1, 0.37, 0.63, 0.9].map((f) => +(10 ** (l0 + f * (l1 - l0))).toPrecision(2));
}

/**
 * A uPlot line chart with one series per entry (optionally a band) and its own legend (toggle by click).
 * series: [{label, color, width?, dash?, band?: boolean, points?: boolean}].
 */
export class LineChart {
  constructor(host, { xLabel, yLabel, xLog = false, yLog = false, empty = 'Press Run.', stepped = false, xInt = false } = {}) {
    this.host = host;
    Object.assign(this, { xLabel, yLabel, xLog, yLog, empty, stepped, xInt });
    this.u = null;
    this.series = [];
    this.ro = new ResizeObserver(() => { if (this.u) this.u.setSize(sizeOf(this.host)); });
    this.ro.observe(host);
    placeholder(host, empty);
  }

  clear(text = this.empty) { this.u?.destroy(); this.u = null; placeholder(this.host, text); }

  /** Starts a chart for `series`; `data` in alignSeries' layout. */
  reset(series, data) {
    this.u?.destroy();
    this.host.replaceChildren();
    this.series = series;
    const useries = [{ label: this.xLabel }];
    const bands = [];
    for (const s of series) {
      const i = useries.length;
      useries.push({
        label: s.label, stroke: s.color, width: s.width ?? 2, dash: s.dash, spanGaps: true,
        points: { show: s.points ?? false, size: 6, stroke: s.color, fill: s.color },
        paths: this.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined,
      });
      if (s.band) {
        useries.push({ label: `${s.label} lo`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false }, legend: false });
        useries.push({ label: `${s.label} hi`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false } });
        bands.push({ series: [i + 2, i + 1], fill: s.color + '2e' });
      }
    }
    const logAxis = { splits: logSplits, values: (u, v) => v.map(fmtTick), filter: undefined };
    const logRange = (u, min, max) => (min == null || !(min > 0) ? [0.1, 10] : min === max ? [min / 2, max * 2] : [min / 1.3, max * 1.3]);
    const { width, height } = sizeOf(this.host);
    this.u = new uPlot({
      width, height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: false, ...(this.xLog ? { distr: 3, range: logRange } : {}) },
        y: this.yLog ? { distr: 3, range: logRange } : {},
      },
      axes: [
        { ...AXIS, label: this.xLabel, values: (u, v) => v.map(fmtSci), ...(this.xLog ? logAxis : {}), ...(this.xInt ? { incrs: INT_INCRS } : {}) },
        { ...AXIS, label: this.yLabel, size: 62, values: (u, v) => v.map(fmtSci), ...(this.yLog ? logAxis : {}) },
      ],
      series: useries,
      bands,
    }, data ?? [[], ...useries.slice(1).map(() => [])], this.host);
  }

  setData(data) { this.u?.setData(data); }

  canvas() { return this.u?.ctx.canvas ?? null; }
}

/** A legend: coloured swatches with labels (decorative; charts carry their own aria-label). */
export function legend(host, series) {
  host.replaceChildren(...series.map((s) => el('span', {},
    el('span', { class: `sw${s.dash ? ' dashed' : ''}`, style: `border-color:${s.color}` }), s.label)));
}

/** A canvas sized to its box (device pixels) with a plot frame and linear or log axes. */
export class CanvasPlot {
  constructor(canvas, { x: [x0, x1], y: [y0, y1], xLog = false, yLog = false, xLabel = '', yLabel = '', yTicks = true, pad = { l: 64, r: 14, t: 12, b: 42 } }) {
    const dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    const W = Math.max(240, Math.round(r.width || 600)); const H = Math.max(160, Math.round(r.height || 300));
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    const tf = (v, log) => (log ? Math.log10(v) : v);
    Object.assign(this, { canvas, ctx, W, H, pad, xLog, yLog, xLabel, yLabel, yTicks });
    this.x0 = tf(x0, xLog); this.x1 = tf(x1, xLog); this.y0 = tf(y0, yLog); this.y1 = tf(y1, yLog);
    if (this.x1 === this.x0) { this.x0 -= 0.5; this.x1 += 0.5; }
    if (this.y1 === this.y0) { this.y0 -= 0.5; this.y1 += 0.5; }
    this.tf = tf;
  }
  get left() { return this.pad.l; }
  get top() { return this.pad.t; }
  get width() { return this.W - this.pad.l - this.pad.r; }
  get height() { return this.H - this.pad.t - this.pad.b; }
  px(x) { return this.left + ((this.tf(x, this.xLog) - this.x0) / (this.x1 - this.x0)) * this.width; }
  py(y) { return this.top + this.height - ((this.tf(y, this.yLog) - this.y0) / (this.y1 - this.y0)) * this.height; }

  /** Frame, ticks and labels. */
  axes() {
    const { ctx } = this;
    ctx.save();
    ctx.strokeStyle = '#3d4650'; ctx.fillStyle = '#3d4650'; ctx.lineWidth = 1; ctx.font = FONT;
    ctx.strokeRect(this.left, this.top, this.width, this.height);
    const ticks = (a, b, log) => {
      if (log) {
        const out = [];
        for (let e = Math.ceil(a); e <= Math.floor(b) + 1e-9; e++) out.push(e);
        if (out.length >= 2) return out;
      }
      const span = b - a; const step = 10 ** Math.floor(Math.log10(span / 5)); const m = span / step;
      const s = step * (m > 40 ? 10 : m > 20 ? 5 : m > 8 ? 2 : 1);
      const out = [];
      for (let v = Math.ceil(a / s) * s; v <= b + 1e-9 * span; v += s) out.push(+v.toPrecision(12));
      return out;
    };
    ctx.textAlign = 'center'; ctx.textBaseline = 'top';
    for (const t of ticks(this.x0, this.x1, this.xLog)) {
      const x = this.left + ((t - this.x0) / (this.x1 - this.x0)) * this.width;
      ctx.beginPath(); ctx.moveTo(x, this.top + this.height); ctx.lineTo(x, this.top + this.height + 4); ctx.stroke();
      ctx.fillText(this.xLog ? fmtTick(10 ** t) : fmtSci(t), x, this.top + this.height + 6);
    }
    ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
    for (const t of this.yTicks ? ticks(Math.min(this.y0, this.y1), Math.max(this.y0, this.y1), this.yLog) : []) {
      const y = this.top + this.height - ((t - this.y0) / (this.y1 - this.y0)) * this.height;
      ctx.beginPath(); ctx.moveTo(this.left - 4, y); ctx.lineTo(this.left, y); ctx.stroke();
      ctx.fillText(this.yLog ? fmtTick(10 ** t) : fmtSci(t), this.left - 6, y);
    }
    ctx.textAlign = 'center'; ctx.textBaseline = 'bottom';
    ctx.fillText(this.xLabel, this.left + this.width / 2, this.H - 4);
    ctx.save(); ctx.translate(13, this.top + this.height / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = 'middle';
    ctx.fillText(this.yLabel, 0, 0); ctx.restore();
    ctx.restore();
  }

  /** Clips drawing to the plot area while `fn` runs. */
  clip(fn) {
    const { ctx } = this;
    ctx.save(); ctx.beginPath(); ctx.rect(this.left, this.top, this.width, this.height); ctx.clip();
    fn(ctx); ctx.restore();
  }

  line(xs, ys, { color = '#000', width = 1.5, dash = [] } = {}) {
    this.clip((ctx) => {
      ctx.strokeStyle = color; ctx.lineWidth = width; ctx.setLineDash(dash);
      ctx.beginPath();
      let pen = false;
      xs.forEach((x, i) => {
        const y = ys[i];
        if (!Number.isFinite(x) || !Number.isFinite(y)) { pen = false; return; }
        const X = this.px(x); const Y = this.py(y);
        if (pen) ctx.lineTo(X, Y); else ctx.moveTo(X, Y);
        pen = true;
      });
      ctx.stroke();
    });
  }

  band(xs, lo, hi, color) {
    this.clip((ctx) => {
      ctx.fillStyle = color; ctx.beginPath();
      xs.forEach((x, i) => { const X = this.px(x); const Y = this.py(hi[i]); if (i) ctx.lineTo(X, Y); else ctx.moveTo(X, Y); });
      for (let i = xs.length - 1; i >= 0; i--) ctx.lineTo(this.px(xs[i]), this.py(lo[i]));
      ctx.closePath(); ctx.fill();
    });
  }

  dot(x, y, { color = '#000', r = 3.5, stroke = null } = {}) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    this.clip((ctx) => {
      ctx.fillStyle = color; ctx.beginPath(); ctx.arc(this.px(x), this.py(y), r, 0, 2 * Math.PI); ctx.fill();
      if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke(); }
    });
  }
}

/** Cividis-like sequential colour map (colour-blind safe, dark blue -> yellow), t in [0, 1]. */
export function seqColor(t) {
  const stops = [[0, 32, 77], [60, 77, 110], [124, 123, 120], [188, 175, 111], [255, 234, 70]];
  const u = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(u)); const f = u - i;
  const c = stops[i].map((a, k) => Math.round(a + f * (stops[i + 1][k] - a)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** A horizontal colour bar for `seqColor` from `lo` to `hi`, drawn at the canvas' top-right corner. */
export function colorBar(plot, lo, hi, label, hiSuffix = '') {
  const { ctx } = plot;
  ctx.save();
  ctx.font = '11px system-ui, sans-serif';
  const text = `${label}: ${fmtSci(lo)} – ${fmtSci(hi)}${hiSuffix}`;
  const w = Math.max(Math.min(140, plot.width * 0.35), ctx.measureText(text).width);
  const x = plot.left + plot.width - w - 6; const y = plot.top + 6;
  ctx.fillStyle = 'rgba(255,255,255,.9)'; ctx.fillRect(x - 3, y - 3, w + 6, 29);
  for (let i = 0; i < w; i++) { ctx.fillStyle = seqColor(i / (w - 1)); ctx.fillRect(x + i, y, 1, 9); }
  ctx.fillStyle = '#1b1f24'; ctx.textBaseline = 'top'; ctx.textAlign = 'left';
  ctx.fillText(text, x, y + 11);
  ctx.restore();
}

/** A small key in the plot's top-left corner: [[colour, text]]. */
export function keyBox(plot, items) {
  const { ctx } = plot;
  ctx.save();
  ctx.font = '11px system-ui, sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
  const w = Math.max(...items.map(([, t]) => ctx.measureText(t).width)) + 30;
  ctx.fillStyle = 'rgba(255,255,255,.85)'; ctx.fillRect(plot.left + 6, plot.top + 6, w, items.length * 15 + 6);
  items.forEach(([c, t], i) => {
    const y = plot.top + 14 + i * 15;
    ctx.strokeStyle = c; ctx.lineWidth = 3; ctx.beginPath(); ctx.moveTo(plot.left + 10, y); ctx.lineTo(plot.left + 26, y); ctx.stroke();
    ctx.fillStyle = '#1b1f24'; ctx.fillText(t, plot.left + 30, y);
  });
  ctx.restore();
}

// ------------------------------------------------------------------------------------------ the panel

/**
 * A tuner panel. Subclasses give `name` (registry name), `runner` (the worker's runner: bandit, hoag, lrsched), `prefix` (hash
 * namespace), `title`, `fields` (settings), `defaults`, `presets` ([value, label] of core presets),
 * `toConfig(state)`, `fromConfig(config)` (core config -> state), `validate(state)` (messages),
 * `buildCharts(host)`, `begin(config)`, `onEvents(events)`, `finish(report)`, `canvases()` and `chartData()`.
 */
export class Panel {
  constructor(ctx) {
    this.client = ctx.client;
    this.hooks = ctx.hooks;
    this.busy = ctx.busy;
    this.current = null;
    this.lastReport = null;
    this.lastConfig = null;
    this.csvText = null;
    this.csvName = '';
    this.runs = 0;
    this.errors = [];
    this.unknownEvents = [];
  }

  id(k) { return `${this.prefix}-${k}`; }
  $(k) { return document.getElementById(this.id(k)); }

  // ---------------------------------------------------------------- settings

  /** State from the hash (namespaced keys), defaults for missing or invalid values. */
  readHash() {
    const p = hashParams();
    const s = { ...this.defaults };
    for (const f of this.fields) {
      const raw = p.get(`${this.prefix}.${f.key}`);
      if (raw == null) continue;
      const v = parseField(f, raw);
      if (v !== undefined) s[f.key] = v;
    }
    return s;
  }

  writeHash() {
    editHash((p) => { for (const f of this.fields) p.set(`${this.prefix}.${f.key}`, formatField(f, this.state[f.key])); });
  }

  fieldRow(f) {
    const id = this.id(f.key);
    const help = f.help ? el('p', { class: 'help', id: `${id}-help`, text: f.help }) : null;
    let row;
    if (f.type === 'checks') {
      row = el('fieldset', { class: 'checks', 'data-key': f.key },
        el('legend', { class: 'sr-only', text: f.label }),
        ...f.options.map(([v, label]) => el('label', { class: 'check-item' },
          el('input', { type: 'checkbox', name: f.key, value: v, id: `${id}-${v}` }), label)));
    } else if (f.type === 'bool') {
      row = el('div', { class: 'row check', 'data-key': f.key }, el('input', { type: 'checkbox', id, name: f.key }), el('label', { for: id, text: f.label }));
    } else {
      const input = f.type === 'select'
        ? el('select', { id, name: f.key }, ...f.options.map(([v, label]) => el('option', { value: v, text: label })))
        : el('input', {
          id, name: f.key, type: f.type === 'text' ? 'text' : 'number', spellcheck: f.type === 'text' ? 'false' : null,
          min: f.min, max: f.max, step: f.step ?? (f.type === 'int' ? 1 : 'any'),
          inputmode: f.type === 'int' ? 'numeric' : f.type === 'num' ? 'decimal' : null, 'aria-describedby': help ? `${id}-help` : null,
        });
      row = el('div', { class: 'row', 'data-key': f.key }, el('label', { for: id, text: f.label }), input);
    }
    return help ? [row, help] : [row];
  }

  writeForm() {
    for (const f of this.fields) {
      const v = this.state[f.key];
      if (f.type === 'checks') {
        for (const [opt] of f.options) { const c = document.getElementById(`${this.id(f.key)}-${opt}`); c.checked = v.includes(opt); }
      } else if (f.type === 'bool') this.$(f.key).checked = !!v;
      else { const e = this.$(f.key); e.value = String(v); e.removeAttribute('aria-invalid'); }
    }
    this.refresh();
  }

  /** Reads the form into the state; returns the labels of invalid fields (marked aria-invalid). */
  readForm() {
    const bad = [];
    const s = { ...this.state };
    for (const f of this.fields) {
      if (f.type === 'checks') {
        s[f.key] = f.options.map(([v]) => v).filter((v) => document.getElementById(`${this.id(f.key)}-${v}`).checked);
      } else if (f.type === 'bool') s[f.key] = this.$(f.key).checked;
      else {
        const e = this.$(f.key);
        const raw = e.value.trim();
        const v = f.type === 'text' ? raw : parseField(f, raw);
        const hidden = e.closest('.row')?.hidden;
        if (v === undefined || (f.type !== 'text' && raw === '')) {
          e.setAttribute('aria-invalid', 'true');
          if (!hidden) bad.push(`${f.label} (${f.type === 'int' ? 'a whole number' : 'a number'} from ${f.min} to ${f.max})`);
        } else { e.removeAttribute('aria-invalid'); s[f.key] = v; }
      }
    }
    this.state = s;
    return bad;
  }

  /** Shows the rows that apply (field.show(state)), enables the options that apply (field.enabled(state, v)). */
  refresh() {
    for (const f of this.fields) {
      const row = this.form.querySelector(`[data-key="${f.key}"]`);
      const shown = f.show ? f.show(this.state) : true;
      row.hidden = !shown;
      const help = document.getElementById(`${this.id(f.key)}-help`);
      if (help) help.hidden = !shown;
      if (f.type === 'checks' && f.enabled) {
        for (const [v] of f.options) {
          const c = document.getElementById(`${this.id(f.key)}-${v}`);
          const on = f.enabled(this.state, v);
          c.disabled = !on;
          c.closest('label').hidden = !on;
        }
      }
    }
    // A group none of whose settings applies (e.g. the SG-MCMC reservoir for another bandit problem) is hidden.
    for (const fs of this.form.querySelectorAll('fieldset[data-keys]')) {
      fs.hidden = fs.dataset.keys.split(',').every((k) => this.form.querySelector(`[data-key="${k}"]`)?.hidden);
    }
    if (this.uploadShow) {
      const on = this.uploadShow(this.state);
      for (const e of [this.$('file')?.closest('.row'), this.$('file-msg')]) if (e) e.hidden = !on;
    }
    this.hooks.panels[this.name].state = { ...this.state };
    this.afterRefresh?.();
  }

  // ---------------------------------------------------------------- layout

  render(root) {
    const P = (k) => this.id(k);
    this.form = el('form', { class: 'settings', id: P('settings'), 'aria-label': `${this.title} settings`, novalidate: true });
    const presetSel = el('select', { id: P('preset') },
      el('option', { value: '', text: '(current settings)' }), ...this.presets.map(([v, label]) => el('option', { value: v, text: label })));
    this.form.append(el('fieldset', {}, el('legend', { text: 'Preset' }),
      el('div', { class: 'row' }, el('label', { for: P('preset'), text: 'Start from' }), presetSel),
      el('p', { class: 'help', text: this.presetHelp })));
    for (const group of this.groups) {
      const fs = el('fieldset', {}, el('legend', { text: group.legend }));
      fs.dataset.keys = group.keys.join(',');
      for (const key of group.keys) fs.append(...this.fieldRow(this.fields.find((f) => f.key === key)));
      if (group.extra) fs.append(...group.extra());
      this.form.append(fs);
    }
    this.results = el('section', { class: 'results', 'aria-label': `${this.title} results` });
    const runbar = el('div', { class: 'runbar card' },
      el('div', { class: 'buttons' },
        el('button', { type: 'button', id: P('run'), class: 'primary', text: 'Run' }),
        el('button', { type: 'button', id: P('stop'), class: 'stop', disabled: true, text: 'Stop' }),
        el('button', { type: 'button', id: P('copy-link'), title: 'Copy a link that reproduces these settings', text: 'Copy link' })),
      el('div', { class: 'progress-wrap' },
        el('progress', { id: P('progress'), max: 1, value: 0, 'aria-label': `${this.title} run progress` }),
        el('p', { class: 'stats', id: P('stats'), text: this.readyText })),
      el('p', { class: 'message', id: P('message'), role: 'alert', 'aria-live': 'assertive' }));
    const intro = el('section', { class: 'card intro' }, el('h2', { text: this.title }), el('p', { text: this.intro }));
    this.chartsHost = el('div', { class: 'panel-charts' });
    const exportCard = el('section', { class: 'card', 'aria-labelledby': P('h-export') },
      el('h2', { id: P('h-export'), text: 'Export' }),
      el('div', { class: 'buttons wrap' },
        el('button', { type: 'button', id: P('export-config'), text: 'Config (JSON)' }),
        el('button', { type: 'button', id: P('export-report'), disabled: true, text: 'Report (JSON)' }),
        el('button', { type: 'button', id: P('export-png'), disabled: true, text: 'Charts (PNG)' })));
    this.results.append(runbar, intro, this.chartsHost, exportCard);
    this.section = el('section', { class: 'layout tuner-panel', id: `panel-${this.name}`, role: 'tabpanel', 'aria-labelledby': `tab-${this.name}`, hidden: true },
      this.form, this.results);
    root.append(this.section);
    this.buildCharts(this.chartsHost);

    this.state = this.readHash();
    this.writeForm();
    const onChange = (e) => {
      if (e.target.id === P('preset') || e.target.type === 'file') return;
      this.readForm();
      this.normalise?.(e.target);
      this.refresh();
      this.writeHash();
    };
    this.form.addEventListener('input', onChange);
    this.form.addEventListener('change', onChange);
    presetSel.addEventListener('change', async () => {
      const name = presetSel.value;
      presetSel.value = '';
      if (name) await this.loadPreset(name);
    });
    this.$('run').addEventListener('click', () => this.run());
    this.$('stop').addEventListener('click', () => this.stop());
    this.$('copy-link').addEventListener('click', async () => {
      this.writeHash();
      try { await navigator.clipboard.writeText(location.href); this.message('Link copied: it reproduces these settings and seeds.', 'info'); } catch {
        this.message(`Copy this link: ${location.href}`, 'info');
      }
    });
    // The config as the core reads it (defaults filled in): `tunelab ${runner} --config FILE` runs the same.
    this.$('export-config').addEventListener('click', async () => {
      if (this.readForm().length) { this.message('Fix the highlighted settings first.', 'error'); return; }
      try {
        const cfg = await this.client.checkRunnerConfig(this.runner, this.toConfig(this.state));
        download(`tunelab-${this.name}-config.json`, toJson(cfg), 'application/json');
      } catch (e) { this.message(`This config would not run: ${e.message}`, 'error'); }
    });
    this.$('export-report').addEventListener('click', () => this.lastReport && download(`tunelab-${this.name}-report.json`, toJson(this.lastReport), 'application/json'));
    this.$('export-png').addEventListener('click', async () => download(`tunelab-${this.name}-charts.png`, await canvasesToPng(this.canvases()), 'image/png'));
  }

  /** File input and status line for `data = upload` (the text stays in the page and the worker). */
  uploadRows(show) {
    const P = (k) => this.id(k);
    const input = el('input', { type: 'file', id: P('file'), accept: '.csv,text/csv,text/plain' });
    const status = el('p', { class: 'field-msg ok', id: P('file-msg'), 'aria-live': 'polite' });
    const row = el('div', { class: 'row', 'data-upload': '1' }, el('label', { for: P('file'), text: 'CSV file' }), input);
    this.uploadShow = show;
    input.addEventListener('change', async () => {
      const f = input.files?.[0];
      if (!f) return;
      this.csvText = await f.text();
      this.csvName = f.name;
      const header = (this.csvText.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '').split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
      const rows = this.csvText.split(/\r?\n/).filter((l) => l.trim()).length - 1;
      status.textContent = `${f.name}: ${rows} rows; columns ${header.join(', ')}. The worker checks it when you press Run.`;
      if (!header.includes(this.state.label) && header.length) {
        this.state = { ...this.state, label: header.includes('y') ? 'y' : header[header.length - 1] };
        this.writeForm();
        this.writeHash();
      }
    });
    return [row, status];
  }

  /** Re-reads the settings from the hash (back/forward, a pasted link). */
  syncFromHash() { if (!this.current) { this.state = this.readHash(); this.writeForm(); } }

  /** Fills the settings from a core preset (the worker returns the core's config). */
  async loadPreset(name) {
    try {
      const cfg = await this.client.runnerPreset(this.runner, name);
      this.applyConfig(cfg);
      this.message(`Preset “${name}” loaded (the core's \`--preset ${name}\`).`, 'info');
    } catch (e) { this.message(`Could not load the preset: ${e.message}`, 'error'); }
  }

  /** Fills the settings from a core config (or a preset name, or a partial state {key: value}). */
  applyConfig(cfg) {
    const partial = cfg && typeof cfg === 'object' && this.isCoreConfig(cfg) ? this.fromConfig(cfg) : { ...cfg };
    const s = { ...this.state };
    for (const f of this.fields) {
      if (!(f.key in partial)) continue;
      const v = partial[f.key];
      const raw = formatField(f, v);
      const ok = f.type === 'text' ? raw : parseField(f, raw);
      if (ok !== undefined) s[f.key] = ok;
    }
    this.state = s;
    this.writeForm();
    this.writeHash();
  }

  // ---------------------------------------------------------------- runs

  message(text, kind = 'info') {
    const m = this.$('message');
    m.textContent = text;
    m.className = `message ${kind}`;
    m.dataset.kind = kind;
    if (kind === 'error' && text) this.errors.push(text);
  }

  setRunning(on) {
    this.hooks.panels[this.name].running = on;
    this.$('run').disabled = on;
    this.$('stop').disabled = !on;
    this.section.dataset.running = on ? 'true' : 'false';
  }

  progress(frac, text) {
    if (frac != null) this.$('progress').value = Math.max(0, Math.min(1, frac));
    if (text != null) this.$('stats').textContent = text;
  }

  async run() {
    if (this.current) return;
    const bad = this.readForm();
    if (bad.length) { this.message(`Fix the highlighted settings first: ${bad.join(', ')}.`, 'error'); return; }
    const problems = this.validate(this.state);
    if (problems.length) { this.message(problems.join(' '), 'error'); return; }
    const other = this.busy(this.name);
    if (other) { this.message(`A ${other} run is in progress: stop it first (one run at a time).`, 'error'); return; }
    this.writeHash();
    const config = this.toConfig(this.state);
    this.message('', 'info');
    this.setRunning(true);
    const entry = this.hooks.panels[this.name];
    entry.runs = ++this.runs;
    this.progress(0, 'Starting…');
    const t0 = performance.now();
    let pending = [];
    let scheduled = false;
    const drain = () => {
      scheduled = false;
      const evs = pending; pending = [];
      if (evs.length) this.onEvents(evs, (performance.now() - t0) / 1000);
    };
    try {
      this.begin(config);
      const csv = this.uploadShow?.(this.state) ? this.csvText : null;
      const label = csv ? (config.data?.label ?? null) : null;
      const run = this.startRun(config, csv, label, (events) => {
        pending.push(...events);
        if (!scheduled) { scheduled = true; requestAnimationFrame(drain); }
      });
      this.current = run;
      const report = await run.promise;
      drain();
      this.lastReport = report;
      this.lastConfig = config;
      entry.lastReport = report;
      this.finish(report, (performance.now() - t0) / 1000);
      entry.lastChartData = this.chartData();
      this.$('export-report').disabled = false;
      this.$('export-png').disabled = false;
      this.progress(1, null);
    } catch (err) {
      drain();
      if (err.name === 'CancelledError') { this.message('Stopped. Change the settings or press Run again.', 'info'); this.progress(0, 'Stopped.'); }
      else { this.message(`The run failed: ${err.message}`, 'error'); this.progress(0, 'Failed.'); }
      entry.lastChartData = this.chartData();
    } finally {
      this.current = null;
      this.setRunning(false);
      entry.unknownEvents = [...new Set(this.unknownEvents)];
    }
  }

  /** Starts the run in the worker: {promise, cancel}. */
  startRun(config, csv, label, onProgress) { return this.client.runRunner(this.runner, config, csv, label, onProgress); }

  stop() { this.current?.cancel(); }
}

/** Colours for n series from the Okabe–Ito palette (black last; repeats with a dash pattern beyond 8). */
export function seriesStyle(i) {
  const pal = [0, 1, 2, 3, 4, 5, 7, 6].map((k) => OKABE_ITO[k]);
  return { color: pal[i % pal.length], dash: i >= pal.length ? [6, 4] : undefined };
}
