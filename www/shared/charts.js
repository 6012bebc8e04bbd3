// The chart wrapper (typed by JSDoc; uPlot itself is untyped here).
// The one chart wrapper of the page: uPlot (vendored, no CDN) creation and sizing, log-axis ticks, legends,
// series styles, plain-canvas plots (heat maps, densities, scatter) and PNG export with titles and legends.
// Used by the tune panel and every other panel. Drawing only: all numbers come from the worker.
// @ts-ignore -- vendored at serve / build time (node_modules/uplot/dist), no type declarations
import uPlot from '../../vendor/uplot/uPlot.esm.js';
import { el } from './dom.js';

/** Okabe–Ito colours, in the order batch sizes get them (largest batch first). */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

const FONT = '12px system-ui, sans-serif';
const AXIS = { stroke: '#3d4650', grid: { stroke: '#e6e9ed', width: 1 }, ticks: { stroke: '#c9cfd6', width: 1 }, font: FONT, labelFont: FONT };

/** A number for labels: 3 significant digits, exponent form when very large or small. */
export const fmtSci = (v) => (v == null ? '' : !Number.isFinite(v) ? '–' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(2) : String(+v.toPrecision(3)));

function sizeOf(e) {
  const r = e.getBoundingClientRect();
  return { width: Math.max(200, Math.floor(r.width)), height: Math.max(120, Math.floor(r.height)) };
}

/** Replaces a chart host's content with a placeholder sentence. */
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

/**
 * Tick label: short and exact for the 1-2-5 values logSplits picks: 1e-5, 2e-3, 0.05, 3, 200, 5e4, 2e6 (no
 * "1.05e+6"). Values with more digits fall back to fmtSci.
 */
export function fmtTick(v) {
  if (v == null || !Number.isFinite(v)) return '';
  if (v === 0) return '0';
  const k = Math.floor(Math.log10(Math.abs(v)) + 1e-9);
  const m = +(v / 10 ** k).toPrecision(3);
  if (Math.abs(m * 10 ** k - v) > 1e-6 * Math.abs(v)) return fmtSci(v);
  if (Math.abs(k) >= 3) return `${m}e${k}`;
  return String(+v.toPrecision(3));
}

/**
 * Log-axis splits with readable values: whole decades when the range spans several (every second or third
 * when crowded), else 1-2-5 (or 1..9) times a power of ten, else a few plain steps inside one decade.
 * At most about one label per 70 px (x) or 36 px (y).
 */
export function logSplits(u, axisIdx, min, max) {
  if (!(min > 0 && max > min)) return [min];
  const horizontal = (u?.axes?.[axisIdx]?.side ?? (axisIdx === 0 ? 2 : 3)) % 2 === 0;
  const px = u?.bbox ? (horizontal ? u.bbox.width : u.bbox.height) / (window.devicePixelRatio || 1) : 400;
  const most = Math.max(2, Math.floor(px / (horizontal ? 70 : 36)));
  const inRange = (v) => v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9);
  const a = Math.floor(Math.log10(min)); const b = Math.ceil(Math.log10(max));
  const withMantissas = (ms) => {
    const out = [];
    for (let e = a; e <= b; e++) for (const m of ms) { const v = +(m * 10 ** e).toPrecision(6); if (inRange(v)) out.push(v); }
    return out;
  };
  for (const ms of [[1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    const out = withMantissas(ms);
    if (out.length >= 3 && out.length <= most) return out;
    if (out.length > most) {
      const decades = withMantissas([1]);
      if (decades.length >= 2) {
        const step = Math.ceil(decades.length / most);
        return decades.filter((_, i) => i % step === 0);
      }
      return out.filter((_, i) => i % Math.ceil(out.length / most) === 0);
    }
  }
  // A narrow range: plain nice steps.
  const span = max - min; const p = 10 ** Math.floor(Math.log10(span / 3)); const r = span / p;
  const s = p * (r > 15 ? 5 : r > 6 ? 2 : 1);
  const out = [];
  for (let v = Math.ceil(min / s) * s; v <= max; v += s) out.push(+v.toPrecision(6));
  return out.length ? out.filter((_, i) => i % Math.ceil(out.length / most) === 0) : [min];
}

/** Log-axis options (shared ticks and labels). */
// uPlot's own log filter would hide every label but the decades: logSplits already chose readable ones.
const LOG_AXIS = { splits: logSplits, values: (u, v) => v.map(fmtTick), filter: (u, splits) => splits };

/**
 * An axis: `{label, log, int, size}`; log axes get whole-decade ticks, int axes whole-number steps.
 * @param {{label?: string, log?: boolean, int?: boolean, size?: number}} [opts]
 */
export function axis({ label = '', log = false, int = false, size } = {}) {
  return { ...AXIS, label, values: (u, v) => v.map(fmtSci), ...(size ? { size } : {}), ...(log ? LOG_AXIS : {}), ...(int ? { incrs: INT_INCRS } : {}) };
}

/** A log scale padded by `pad` around the data (`fallback` when there is none). */
export const logScale = (pad = 1.3, fallback = [0.1, 10]) => ({
  distr: 3, range: (u, min, max) => (min == null || !(min > 0) ? fallback : min === max ? [min / 2, max * 2] : [min / pad, max * pad]),
});

/**
 * The uPlot wrapper every chart uses: sized to its host (and kept so), a placeholder when empty, no uPlot
 * legend (the page draws its own, which export keeps), no drag-zoom.
 */
export class Chart {
  constructor(host, empty = 'Press Run.') {
    this.host = host;
    this.el = host;
    this.empty = empty;
    this.u = null;
    /** @type {{width: number, height: number}|null} the host's size as the ResizeObserver last saw it */
    this.size = null;
    this.ro = new ResizeObserver((entries) => {
      const r = entries[entries.length - 1]?.contentRect;
      // Hidden (0 x 0) hosts keep their last size.
      if (r && r.width > 0) this.size = { width: Math.max(200, Math.floor(r.width)), height: Math.max(120, Math.floor(r.height)) };
      if (this.u) this.u.setSize(this.size ?? sizeOf(this.host));
    });
    this.ro.observe(host);
    placeholder(host, empty);
  }

  /** Builds a new uPlot from `opts` (width, height, legend and cursor defaults added) and `data`. */
  mount(opts, data) {
    this.u?.destroy();
    this.host.replaceChildren();
    // The observed size when there is one: reading the layout here would force it in the middle of a run's DOM
    // updates (20-30 ms with the 56-arm tables).
    this.u = new uPlot({ ...(this.size ?? sizeOf(this.host)), legend: { show: false }, cursor: { drag: { x: false, y: false } }, ...opts }, data, this.host);
    return this.u;
  }

  clear(text = this.empty) { this.u?.destroy(); this.u = null; placeholder(this.host, text); }
  setData(data) { this.u?.setData(data); }
  canvas() { return this.u?.ctx.canvas ?? null; }
}

/**
 * A line chart with one series per entry (optionally a band between lo and hi).
 * series: [{label, color, width?, dash?, band?: boolean, points?: boolean}].
 */
export class LineChart extends Chart {
  /**
   * @param {HTMLElement} host
   * @param {{xLabel?: string, yLabel?: string, xLog?: boolean, yLog?: boolean, empty?: string, stepped?: boolean, xInt?: boolean}} [opts]
   */
  constructor(host, { xLabel, yLabel, xLog = false, yLog = false, empty = 'Press Run.', stepped = false, xInt = false } = {}) {
    super(host, empty);
    this.xLabel = xLabel; this.yLabel = yLabel; this.xLog = xLog; this.yLog = yLog; this.stepped = stepped; this.xInt = xInt;
    this.series = [];
  }

  /** Starts a chart for `series`; `data` in alignSeries' layout. */
  reset(series, data) {
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
        useries.push({ label: `${s.label} lo`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false } });
        useries.push({ label: `${s.label} hi`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false } });
        bands.push({ series: [i + 2, i + 1], fill: s.color + '2e' });
      }
    }
    this.mount({
      scales: { x: { time: false, ...(this.xLog ? logScale() : {}) }, y: this.yLog ? logScale() : {} },
      axes: [axis({ label: this.xLabel, log: this.xLog, int: this.xInt }), axis({ label: this.yLabel, log: this.yLog, size: 62 })],
      series: useries,
      bands,
    }, data ?? [[], ...useries.slice(1).map(() => [])]);
  }
}

/**
 * A legend: coloured swatches with labels (decorative; charts carry their own aria-label). An item may carry
 * `ramp` (colours of a sequential scale, drawn as a gradient) or `mark` (a marker glyph before its line).
 */
export function legend(host, series) {
  host.replaceChildren(...series.map((s) => {
    const sw = s.ramp
      ? el('span', { class: 'sw ramp', style: `border-color:${s.color};background:linear-gradient(to right, ${s.ramp.join(', ')})` })
      : el('span', { class: `sw${s.dash ? ' dashed' : ''}${s.faded ? ' faded' : ''}`, style: `border-color:${s.color}` });
    return el('span', { class: 'item' }, ...(s.mark ? [el('span', { class: 'mark', style: `color:${s.color}`, text: s.mark })] : []), sw, s.label);
  }));
}


/** Colours for n series from the Okabe–Ito palette (black last; repeats with a dash pattern beyond 8). */
export function seriesStyle(i) {
  const pal = [0, 1, 2, 3, 4, 5, 7, 6].map((k) => OKABE_ITO[k]);
  return { color: pal[i % pal.length], dash: i >= pal.length ? [6, 4] : undefined };
}

/** Marker shapes and line dashes of batch sizes (largest batch first), on the chart and in its legend. */
export const BATCH_MARKS = ['circle', 'square', 'triangle', 'diamond', 'cross'];
const MARK_GLYPH = { circle: '●', square: '■', triangle: '▲', diamond: '◆', cross: '✚' };
const BATCH_DASH = [[], [7, 4], [2, 3], [9, 3, 2, 3], [4, 4]];

/** Widths of canvas texts by font and text (measureText's first calls on a new canvas cost 10-20 ms). */
const TEXT_WIDTHS = new Map();
function textWidth(ctx, text) {
  const key = `${ctx.font}|${text}`;
  let w = TEXT_WIDTHS.get(key);
  if (w === undefined) { w = ctx.measureText(text).width; TEXT_WIDTHS.set(key, w); }
  return w;
}

/** Draws one marker (device pixels): filled, or hollow for an arm still running. */
export function drawMark(ctx, shape, x, y, r, color, hollow = false) {
  ctx.beginPath();
  if (shape === 'square') ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  else if (shape === 'triangle') { ctx.moveTo(x, y - r * 1.1); ctx.lineTo(x + r, y + r * 0.75); ctx.lineTo(x - r, y + r * 0.75); ctx.closePath(); }
  else if (shape === 'diamond') { ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r * 1.2); ctx.lineTo(x - r, y); ctx.closePath(); }
  else if (shape === 'cross') { const w = r * 0.4; ctx.rect(x - r, y - w, 2 * r, 2 * w); ctx.rect(x - w, y - r, 2 * w, 2 * r); }
  else ctx.arc(x, y, r, 0, 2 * Math.PI);
  if (hollow) { ctx.fillStyle = '#fff'; ctx.fill(); ctx.strokeStyle = color; ctx.lineWidth = 1.5 * (window.devicePixelRatio || 1); ctx.stroke(); }
  else { ctx.fillStyle = color; ctx.fill(); }
}

/**
 * Each arm's score against the compute it has spent (both log scale), one line per arm: colour = step size
 * (a sequential ramp, small steps dark), marker and dash = batch size, pruned arms fade, the chosen arm is
 * drawn thick and black, dashed vertical lines mark the ends of rounds (planned ones lighter). The x axis
 * covers the whole schedule from the start. Arms of the current round that are running but not scored yet
 * (scores come at a round's end) are hollow markers at their compute so far: at their last score, or in a
 * strip along the top in round one.
 */
export class ScoreChart extends Chart {
  /** @param {HTMLElement} host @param {{onHover?: (arm: any) => void}} [opts] */
  constructor(host, { onHover } = {}) {
    super(host, 'Press Run: each arm’s score appears here as it is computed.');
    this.onHover = onHover;
    this.arms = [];
    this.batches = [];
    this.steps = [0, 0];
    this.boundaries = [];
    this.planEnds = [];
    this.planLo = null;
    this.pending = [];
    this.pendingKey = '';
    this.best = null;
    this.scored = false;
    /** @type {(number|null)[]} the shown scores' extent (the y range) */
    this.yExt = [null, null];
    /** @type {number|null} index of the arm under the cursor */
    this.focused = null;
    /** arms drawn (a line or a marker) in the last draw */
    this.lines = 0;
  }

  /** Position of an arm's step size on the ramp, 0 (smallest) .. 1. */
  stepT(arm) {
    const [lo, hi] = this.steps;
    return hi > lo ? (Math.log10(arm.step) - lo) / (hi - lo) : 0.5;
  }

  /** Colour of an arm: its step size on the sequential ramp (the light yellow end is kept out). */
  colorOf(arm) { return seqColor(0.85 * this.stepT(arm)); }

  batchIndex(arm) { return Math.max(0, this.batches.indexOf(arm.batch)); }
  markOf(arm) { return BATCH_MARKS[this.batchIndex(arm) % BATCH_MARKS.length]; }
  dashOf(arm) { return BATCH_DASH[this.batchIndex(arm) % BATCH_DASH.length]; }

  /** The legend: the step-size ramp, one marker and dash per batch size, then chosen, pruned, running, rounds. */
  legendItems(fmtBatch, fmtStep = fmtSci) {
    const [lo, hi] = this.steps;
    const ramp = this.arms.length
      ? [{ label: `step size h ${fmtStep(10 ** lo)} … ${fmtStep(10 ** hi)}`, color: seqColor(0.42), ramp: [0, 0.21, 0.42, 0.64, 0.85].map(seqColor) }] : [];
    return [...ramp,
      ...this.batches.map((b, i) => ({ label: `batch ${fmtBatch(b)}`, color: '#3d4650', mark: MARK_GLYPH[BATCH_MARKS[i % BATCH_MARKS.length]], dash: i % BATCH_DASH.length > 0, dashStyle: BATCH_DASH[i % BATCH_DASH.length] })),
      { label: 'chosen arm', color: '#000' }, { label: 'pruned', color: '#7c8591', faded: true },
      { label: 'running, not scored yet', color: '#3d4650', mark: '○' }, { label: 'end of a round', color: '#5b6470', dash: true }];
  }

  /**
   * Starts a new chart for a run over `arms` ([{id, step, batch, leapfrog}]); `schedule` ([{budget}], the
   * core's plan) fixes the x range and the planned round ends from the start.
   */
  reset(arms, xLabel, yLabel, schedule = []) {
    this.arms = arms;
    this.best = null;
    this.boundaries = [];
    this.pending = [];
    this.pendingKey = '';
    this.scored = false;
    this.yExt = [null, null];
    this.focused = null;
    this.lines = 0;
    this.batches = [...new Set(arms.map((a) => a.batch))].sort((a, b) => b - a);
    const ls = arms.map((a) => Math.log10(a.step)).filter(Number.isFinite);
    this.steps = ls.length ? [Math.min(...ls), Math.max(...ls)] : [0, 0];
    let acc = 0;
    this.planEnds = schedule.map((r) => (acc += r.budget));
    this.planLo = schedule.length ? schedule[0].budget / 8 : null;
    const self = this;
    const dpr = () => window.devicePixelRatio || 1;
    // One hidden uPlot series (the scores' extent, for the scales and the cursor); the arms' lines and markers
    // are drawn in the draw hook, one canvas path per arm from the arms' own point arrays. uPlot with one series
    // per arm re-aligned and re-pathed all 56 series on every update (about 20 ms of main thread per redraw).
    const series = [{ label: xLabel }, { label: 'scores', stroke: 'rgba(0,0,0,0)', width: 0, points: { show: false }, paths: () => null }];
    const plugin = {
      hooks: {
        draw: [(u) => {
          // A replaced chart may still have a draw queued (uPlot commits in a microtask): only the current one draws.
          if (self.u && u !== self.u) return;
          const ctx = u.ctx;
          const { left, top, width, height } = u.bbox;
          const inX = (px) => Number.isFinite(px) && px >= left - 1 && px <= left + width + 1;
          ctx.save();
          ctx.beginPath(); ctx.rect(left - 8 * dpr(), top - 8 * dpr(), width + 16 * dpr(), height + 16 * dpr()); ctx.clip();
          // Round ends: measured ones dark, planned ones light.
          ctx.font = `${Math.round(11 * dpr())}px system-ui, sans-serif`;
          ctx.setLineDash([5 * dpr(), 4 * dpr()]);
          ctx.lineWidth = dpr();
          // Labels left of their line, at the bottom; one that would overlap the previous goes up a row.
          let lastRight = -Infinity;
          let row = 0;
          this.planEnds.forEach((planned, round) => {
            const done = self.boundaries.find((b) => b.round === round);
            const px = u.valToPos(done ? done.x : planned, 'x', true);
            if (!inX(px)) return;
            ctx.strokeStyle = done ? '#5b6470' : '#b8bfc8';
            ctx.fillStyle = done ? '#3d4650' : '#8a939d';
            ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, top + height); ctx.stroke();
            ctx.textAlign = 'right';
            const text = `round ${round + 1} ${done ? 'ended' : 'ends'}`;
            const w = textWidth(ctx, text);
            row = px - 4 * dpr() - w < lastRight + 4 * dpr() ? row + 1 : 0;
            lastRight = px;
            ctx.fillText(text, px - 4 * dpr(), top + height - (6 + 14 * row) * dpr());
          });
          // The arms: one path each (colour = step size, dash = batch), the chosen arm thick and on top; while
          // the cursor is on an arm, the others are faded.
          const r = 3.2 * dpr();
          const pos = self.positions(u, true);
          ctx.lineJoin = 'round';
          ctx.save();
          ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
          let lines = 0;
          const order = [...pos.keys()].sort((a, b) => Number(a === self.focused) - Number(b === self.focused) || Number(self.arms[a].id === self.best) - Number(self.arms[b].id === self.best));
          for (const i of order) {
            const pts = pos.get(i) ?? [];
            if (pts.length === 0) continue;
            const arm = self.arms[i];
            lines++;
            ctx.globalAlpha = self.focused != null && i !== self.focused ? 0.35 : 1;
            if (pts.length < 2) continue;
            ctx.strokeStyle = self.strokeOf(arm);
            ctx.lineWidth = (arm.id === self.best ? 3.5 : i === self.focused ? 2.5 : 1.5) * dpr();
            ctx.setLineDash(self.dashOf(arm).map((v) => v * dpr()));
            ctx.beginPath();
            pts.forEach(([px, py], k) => (k ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
            ctx.stroke();
          }
          ctx.restore();
          ctx.setLineDash([]);
          self.lines = lines;
          // Scored points: the arm's colour (step size) and its batch's marker.
          for (const i of order) {
            const arm = self.arms[i];
            ctx.globalAlpha = self.focused != null && i !== self.focused ? 0.35 : 1;
            const c = self.strokeOf(arm);
            for (const [px, py] of pos.get(i) ?? []) if (inX(px)) drawMark(ctx, self.markOf(arm), px, py, arm.id === self.best ? r * 1.4 : r, c);
          }
          ctx.globalAlpha = 1;
          // Running arms: hollow markers at their compute so far.
          let strip = 0;
          for (const p of self.pending) {
            const arm = self.arms.find((a) => a.id === p.arm);
            if (!arm) continue;
            const px = u.valToPos(p.x, 'x', true);
            const py = p.y != null && Number.isFinite(p.y) && p.y > 0 ? u.valToPos(p.y, 'y', true) : top + 9 * dpr();
            if (p.y == null) strip++;
            if (inX(px) && Number.isFinite(py)) drawMark(ctx, self.markOf(arm), px, py, r, self.colorOf(arm), true);
          }
          if (strip) {
            const xs = self.pending.filter((p) => p.y == null).map((p) => u.valToPos(p.x, 'x', true)).filter(inX);
            const at = xs.length ? Math.max(...xs) : left;
            ctx.fillStyle = '#3d4650'; ctx.textAlign = at > left + width * 0.6 ? 'right' : 'left';
            ctx.textBaseline = 'middle';
            ctx.fillText(`${strip} arm${strip === 1 ? '' : 's'} running · scored when the round ends`, at + (ctx.textAlign === 'left' ? 10 : -10) * dpr(), top + 9 * dpr());
          }
          ctx.restore();
        }],
        // Hover: the arm whose line or marker is nearest the cursor (within 16 px) is focused and read out.
        setCursor: [(u) => {
          const { left: cx, top: cy } = u.cursor;
          const i = cx == null || cx < 0 ? null : self.nearest(u, cx, cy, 16);
          if (i !== self.focused) { self.focused = i; u.redraw(false); }
          if (i != null) self.onHover?.(self.arms[i]);
        }],
      },
    };
    // x: the data and the whole planned schedule (so the axis does not jump as rounds end).
    const xRange = (u, min, max) => {
      const lo = Math.min(...[min, self.planLo, ...self.pending.map((p) => p.x)].filter((v) => v > 0));
      const hi = Math.max(...[max, self.planEnds[self.planEnds.length - 1]].filter((v) => v > 0));
      return Number.isFinite(lo) && Number.isFinite(hi) ? (hi > lo ? [lo / 1.6, hi * 1.6] : [lo / 2, lo * 2]) : [1, 10];
    };
    const yRange = logScale(1.5).range;
    const yAxis = axis({ label: yLabel, log: true, size: 60 });
    const yValues = yAxis.values;
    this.mount({
      // No time axis here: skips uPlot's date-format setup (regex templates, ~5 ms per chart).
      fmtDate: () => () => '',
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, distr: 3, range: xRange }, y: { distr: 3, range: (u) => yRange(u, self.yExt[0], self.yExt[1]) } },
      // No score yet: no y ticks (the fallback range would be made up).
      axes: [axis({ label: xLabel, log: true }), { ...yAxis, values: (u, v) => (self.scored ? yValues(u, v) : v.map(() => '')) }],
      series,
      plugins: [plugin],
    }, [[], []]);
  }

  /** An arm's scored points a log-log chart can show: [[x, y]]. */
  static shown(arm) {
    return arm.points.filter((p) => Number.isFinite(p[0]) && p[0] > 0 && Number.isFinite(p[1]) && p[1] > 0);
  }

  /** Each arm's shown points in pixels (device pixels with `canvas`, else CSS pixels of the plot area), by arm index. */
  positions(u, canvas = false) {
    /** @type {Map<number, number[][]>} */
    const out = new Map();
    this.arms.forEach((arm, i) => {
      out.set(i, ScoreChart.shown(arm).map((p) => [u.valToPos(p[0], 'x', canvas), u.valToPos(p[1], 'y', canvas)]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)));
    });
    return out;
  }

  /** Index of the arm whose line or marker is nearest (cx, cy) (plot-area CSS pixels), within `prox`; else null. */
  nearest(u, cx, cy, prox) {
    let best = null; let bestD = prox * prox;
    const seg = (ax, ay, bx, by) => {
      const dx = bx - ax; const dy = by - ay; const l = dx * dx + dy * dy;
      const t = l > 0 ? Math.max(0, Math.min(1, ((cx - ax) * dx + (cy - ay) * dy) / l)) : 0;
      const ex = ax + t * dx - cx; const ey = ay + t * dy - cy;
      return ex * ex + ey * ey;
    };
    for (const [i, pts] of this.positions(u)) {
      for (let k = 0; k < pts.length; k++) {
        const d = k ? seg(pts[k - 1][0], pts[k - 1][1], pts[k][0], pts[k][1]) : seg(pts[0][0], pts[0][1], pts[0][0], pts[0][1]);
        if (d <= bestD) { bestD = d; best = i; }
      }
    }
    return best;
  }

  strokeOf(arm) {
    if (arm.id === this.best) return '#000000';
    const c = this.colorOf(arm).replace('rgb(', 'rgba(').replace(')', ',');
    const faded = arm.status === 'pruned' || arm.status === 'diverged';
    return `${c}${faded ? 0.3 : 1})`;
  }

  /**
   * The running arms ([{arm, x, y|null}]: compute so far, last score or null before the first); redraws only
   * when they changed. Returns them.
   */
  setPending(pending) {
    const key = pending.map((p) => `${p.arm}:${p.x}:${p.y}`).join(',');
    if (key === this.pendingKey) return this.pending;
    this.pending = pending;
    this.pendingKey = key;
    this.u?.redraw(false);
    return pending;
  }

  /**
   * Redraws with the arms' current points ([[compute, score]]) and statuses. Returns the points aligned on their
   * x values ([xs, ys of arm 0, ...], for the page's test hooks; the chart draws from the arms' own arrays).
   */
  update({ boundaries = [], best = null, pending = this.pending } = {}) {
    if (!this.u) return null;
    this.boundaries = boundaries;
    this.best = best;
    this.pending = pending;
    this.pendingKey = pending.map((p) => `${p.arm}:${p.x}:${p.y}`).join(',');
    let xlo = Infinity; let xhi = -Infinity; let ylo = Infinity; let yhi = -Infinity;
    const shown = this.arms.map((a) => ScoreChart.shown(a));
    for (const pts of shown) for (const [x, y] of pts) { xlo = Math.min(xlo, x); xhi = Math.max(xhi, x); ylo = Math.min(ylo, y); yhi = Math.max(yhi, y); }
    this.scored = ylo <= yhi;
    this.yExt = this.scored ? [ylo, yhi] : [null, null];
    // The hidden series holds the extent only: uPlot's x range and cursor come from it.
    this.u.setData(!this.scored ? [[], []] : xlo < xhi ? [[xlo, xhi], [ylo, yhi]] : [[xlo], [ylo]]);
    return alignSeries(shown.map((pts) => ({ x: pts.map((p) => p[0]), y: pts.map((p) => p[1]) })));
  }
}

/** Trace of one coordinate against the sample index. */
export class TraceChart extends Chart {
  constructor(host) { super(host, 'The chosen arm’s trace appears after a run.'); }
  draw(values, label) {
    this.mount({
      scales: { x: { time: false } },
      axes: [axis({ label: 'sample index (after thinning)', int: true }), axis({ label: `${label} (parameter value)`, size: 60 })],
      series: [{}, { label, stroke: OKABE_ITO[0], width: 1, points: { show: false } }],
    }, [Array.from(values, (_, i) => i + 1), Array.from(values)]);
  }
}

/** Histogram counts of `values` over `bins` equal bins: {edges, counts}. */
export function histogram(values, bins = 30) {
  let lo = Infinity; let hi = -Infinity;
  for (const v of values) { if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
  if (!Number.isFinite(lo)) return { edges: [0, 1], counts: [0] };
  if (hi === lo) { lo -= 0.5; hi += 0.5; }
  const w = (hi - lo) / bins;
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    counts[Math.min(bins - 1, Math.floor((v - lo) / w))]++;
  }
  return { edges: Array.from({ length: bins + 1 }, (_, i) => lo + i * w), counts };
}


/** Marginal histogram of one coordinate. */
export class HistChart extends Chart {
  constructor(host) { super(host, 'The marginal histogram appears after a run.'); }
  draw(values, label) {
    const bins = Math.max(10, Math.min(40, Math.round(Math.sqrt(values.length))));
    const { edges, counts } = histogram(values, bins);
    this.mount({
      scales: { x: { time: false } },
      axes: [axis({ label: `${label} (parameter value)` }), axis({ label: 'samples per bin', size: 60 })],
      series: [{}, { label: 'count', stroke: OKABE_ITO[0], fill: OKABE_ITO[0] + '55', width: 1, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }],
    }, [edges, [...counts, counts[counts.length - 1] ?? 0]]);
  }
}

/** A canvas sized to its box (device pixels) with a plot frame and linear or log axes. */
export class CanvasPlot {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{x: number[], y: number[], xLog?: boolean, yLog?: boolean, xLabel?: string, yLabel?: string, yTicks?: boolean, pad?: {l: number, r: number, t: number, b: number}}} opts
   */
  constructor(canvas, { x: [x0, x1], y: [y0, y1], xLog = false, yLog = false, xLabel = '', yLabel = '', yTicks = true, pad = { l: 64, r: 14, t: 12, b: 42 } }) {
    const dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    const W = Math.max(240, Math.round(r.width || 600)); const H = Math.max(160, Math.round(r.height || 300));
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    const tf = (v, log) => (log ? Math.log10(v) : v);
    this.canvas = canvas; this.ctx = ctx; this.W = W; this.H = H; this.pad = pad;
    this.xLog = xLog; this.yLog = yLog; this.xLabel = xLabel; this.yLabel = yLabel; this.yTicks = yTicks;
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

  /** Many dots of one style: one clip and one path (a dot each would clip and restore each time). */
  dots(xs, ys, { color = '#000', r = 3.5, stroke = null } = {}) {
    this.clip((ctx) => {
      ctx.beginPath();
      xs.forEach((x, i) => {
        const y = ys[i];
        if (!Number.isFinite(x) || !Number.isFinite(y)) return;
        const X = this.px(x); const Y = this.py(y);
        ctx.moveTo(X + r, Y); ctx.arc(X, Y, r, 0, 2 * Math.PI);
      });
      ctx.fillStyle = color; ctx.fill();
      if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke(); }
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


/** Contour segments of a grid (row-major ny x nx over [x0,x1] x [y0,y1]) at `level`, by marching squares. */
export function contourSegments(z, nx, ny, [x0, x1, y0, y1], level) {
  const segs = [];
  const dx = (x1 - x0) / (nx - 1); const dy = (y1 - y0) / (ny - 1);
  const at = (i, j) => z[j * nx + i];
  const lerp = (a, b, va, vb) => a + (b - a) * ((level - va) / (vb - va));
  for (let j = 0; j < ny - 1; j++) {
    for (let i = 0; i < nx - 1; i++) {
      const v = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
      if (!v.every(Number.isFinite)) continue;
      const xa = x0 + i * dx; const ya = y0 + j * dy;
      const c = [[xa, ya], [xa + dx, ya], [xa + dx, ya + dy], [xa, ya + dy]];
      const pts = [];
      for (let e = 0; e < 4; e++) {
        const a = e; const b = (e + 1) % 4;
        if ((v[a] >= level) !== (v[b] >= level)) {
          pts.push([lerp(c[a][0], c[b][0], v[a], v[b]), lerp(c[a][1], c[b][1], v[a], v[b])]);
        }
      }
      if (pts.length === 2) segs.push(pts);
      else if (pts.length === 4) { segs.push([pts[0], pts[1]], [pts[2], pts[3]]); }
    }
  }
  return segs;
}

/** Draws samples (row-major n x 2) over density contours on a canvas. grid = {z (log density), nx, ny, bounds}. */
export function drawDensity(canvas, grid, samples) {
  const ctx = canvas.getContext('2d');
  const W = canvas.width; const H = canvas.height; const pad = 30;
  const [x0, x1, y0, y1] = grid.bounds;
  const px = (x) => pad + ((x - x0) / (x1 - x0)) * (W - 2 * pad);
  const py = (y) => H - pad - ((y - y0) / (y1 - y0)) * (H - 2 * pad);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, W, H);
  // Levels at fixed drops below the maximum log density: 0.5, 1, 2, 3, 4.5 (nested HPD-like regions).
  let zmax = -Infinity;
  for (const v of grid.z) if (Number.isFinite(v)) zmax = Math.max(zmax, v);
  const drops = [0.5, 1, 2, 3, 4.5, 6];
  ctx.lineWidth = 1.2;
  drops.forEach((dz, k) => {
    ctx.strokeStyle = `rgba(0,114,178,${0.9 - k * 0.12})`;
    ctx.beginPath();
    for (const [[ax, ay], [bx, by]] of contourSegments(grid.z, grid.nx, grid.ny, grid.bounds, zmax - dz)) {
      ctx.moveTo(px(ax), py(ay));
      ctx.lineTo(px(bx), py(by));
    }
    ctx.stroke();
  });
  ctx.fillStyle = 'rgba(213,94,0,0.55)';
  const n = samples.length / 2;
  const step = Math.max(1, Math.floor(n / 3000));
  for (let s = 0; s < n; s += step) {
    const x = samples[2 * s]; const y = samples[2 * s + 1];
    if (x < x0 || x > x1 || y < y0 || y > y1) continue;
    ctx.fillRect(px(x) - 1.5, py(y) - 1.5, 3, 3);
  }
  ctx.strokeStyle = '#3d4650';
  ctx.strokeRect(pad, pad, W - 2 * pad, H - 2 * pad);
  ctx.fillStyle = '#3d4650';
  ctx.font = '12px system-ui, sans-serif';
  ctx.fillText(`θ₁ ∈ [${fmtSci(x0)}, ${fmtSci(x1)}]`, pad, H - 8);
  ctx.save(); ctx.translate(12, H - pad); ctx.rotate(-Math.PI / 2); ctx.fillText(`θ₂ ∈ [${fmtSci(y0)}, ${fmtSci(y1)}]`, 0, 0); ctx.restore();
}

// ------------------------------------------------------------------------------------------ PNG export

/** The title of a chart canvas on the page: its card's heading and its own sub-heading, if any. */
function titleOf(canvas) {
  const card = canvas.closest('section.card, figure, .card');
  const h2 = card?.querySelector('h2')?.textContent?.trim() ?? '';
  const h3 = canvas.closest('div:not(.chart)')?.querySelector(':scope > h3')?.textContent?.trim() ?? '';
  return [h2, h3].filter(Boolean).join(' — ');
}

/** The legend entries shown next to a chart canvas (the `.legend` of its card): [{label, color, dash}]. */
function legendOf(canvas) {
  const box = canvas.closest('section.card')?.querySelector('.legend');
  if (box?.hidden) return [];
  return [...(box?.children ?? [])].map((item) => {
    const sw = item.querySelector('.sw');
    return { label: item.textContent.trim(), color: sw?.style.borderColor || '#000', dash: sw?.classList.contains('dashed') ?? false };
  });
}

/**
 * One PNG of the given chart canvases stacked vertically on white, each under its title and legend (read
 * from the page: the card's heading and `.legend`). Resolves with a Blob.
 */
export function chartsPng(canvases, footer = '') {
  const list = canvases.filter(Boolean).map((canvas) => ({ canvas, title: titleOf(canvas), legend: legendOf(canvas) }));
  const dpr = window.devicePixelRatio || 1;
  const line = Math.round(18 * dpr);
  const head = (f) => (f.title ? line : 0) + (f.legend.length ? line : 0);
  const w = Math.max(...list.map((f) => f.canvas.width), 1);
  const h = (list.reduce((s, f) => s + head(f) + f.canvas.height + 10, 0) + (footer ? line : 0)) || 1;
  const out = Object.assign(document.createElement('canvas'), { width: w, height: h });
  const ctx = out.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.textBaseline = 'middle';
  let y = 0;
  for (const f of list) {
    if (f.title) {
      ctx.fillStyle = '#1b1f24'; ctx.font = `bold ${Math.round(13 * dpr)}px system-ui, sans-serif`;
      ctx.fillText(f.title, 8 * dpr, y + line / 2); y += line;
    }
    if (f.legend.length) {
      ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
      let x = 8 * dpr;
      for (const it of f.legend) {
        ctx.strokeStyle = it.color; ctx.lineWidth = 3 * dpr; ctx.setLineDash(it.dash ? [4 * dpr, 3 * dpr] : []);
        ctx.beginPath(); ctx.moveTo(x, y + line / 2); ctx.lineTo(x + 16 * dpr, y + line / 2); ctx.stroke();
        ctx.fillStyle = '#1b1f24'; ctx.fillText(it.label, x + 20 * dpr, y + line / 2);
        x += 30 * dpr + ctx.measureText(it.label).width;
      }
      ctx.setLineDash([]);
      y += line;
    }
    ctx.drawImage(f.canvas, 0, y);
    y += f.canvas.height + 10;
  }
  // The footer: what made the figure (the config's hash).
  if (footer) {
    ctx.fillStyle = '#3d4650'; ctx.font = `${Math.round(11 * dpr)}px system-ui, sans-serif`;
    ctx.fillText(footer, 8 * dpr, y + line / 2);
  }
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}
