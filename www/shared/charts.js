// The page's one chart wrapper (typed by JSDoc; uPlot itself is untyped here): uPlot (vendored, no CDN) creation
// and sizing, log-axis ticks, legends, series styles (colour, dash and marker) and colour scales. Every panel's
// line charts; markers and direct labels are drawn by line-decor.js, plain-canvas plots by canvas.js, the PNG and
// SVG exports by chart-export.js (re-exported here). Drawing only: all numbers come from the worker.
// @ts-ignore -- vendored at serve / build time (node_modules/uplot/dist), no type declarations
import uPlot from '../../vendor/uplot/uPlot.esm.js';
import { el } from './dom.js';
import { fmtSci, fmtTick } from './format.js';
import { MARKS, MARK_GLYPH, DASHES } from './marks.js';
import { decorPlugin, labelWidth } from './line-decor.js';

export { exportLayout, chartsPng, chartsSvg, settingsPhrases } from './chart-export.js';

/** Okabe–Ito colours, in the order batch sizes get them (largest batch first). */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

/**
 * Line colours: Okabe–Ito hues kept at a contrast of at least 3:1 on white (WCAG's minimum for graphics): its
 * orange darkened to amber, its sky blue and yellow (2.3:1 and 1.3:1) replaced by a purple. Black is reserved
 * for a panel's own method where it has one, so it comes last.
 */
export const LINE_COLOURS = ['#0072B2', '#B07800', '#009E73', '#D55E00', '#CC79A7', '#7A52A8', '#000000'];

/** Grey for the lines that are not singled out ("others"). */
export const OTHERS_GREY = '#a3aab3';

/** The font of axis labels and canvas plots. */
export const FONT = '12px system-ui, sans-serif';
const AXIS = { stroke: '#3d4650', grid: { stroke: '#e6e9ed', width: 1 }, ticks: { stroke: '#c9cfd6', width: 1 }, font: FONT, labelFont: FONT };

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
 * Builds and destroys one small line chart off screen, so that the first chart a run draws does not also pay
 * for V8 compiling uPlot's code: the learning-rate lesson's first step built its first chart in one 48-59 ms
 * task (loaded machine, `node tests/e2e/profile-case.mjs "lesson lr-schedule"`; 14 ms of it in uPlot's own
 * constructor). main.js calls it once, when the page is idle after loading.
 */
export function warmCharts() {
  const host = document.createElement('div');
  host.setAttribute('aria-hidden', 'true');
  host.style.cssText = 'position:absolute;left:-10000px;top:0;width:320px;height:160px;visibility:hidden';
  document.body.append(host);
  const c = new LineChart(host, { xLabel: 'x', yLabel: 'y' });
  c.size = { width: 320, height: 160 };
  c.reset([{ label: 'a', color: '#000' }, { label: 'b', color: '#555', band: true }], alignSeries([{ x: [1, 2, 3], y: [1, 2, 3] }, { x: [1, 2, 3], y: [1, 2, 2], lo: [0, 1, 1], hi: [2, 3, 3] }]));
  c.u?.setData(c.u.data);
  c.clear();
  c.ro.disconnect();
  host.remove();
}

/** uPlot's stepped paths (a step at each x, held to the next): for step lines and histograms. */
export const steppedPaths = () => uPlot.paths.stepped({ align: 1 });

/**
 * A line chart with one series per entry (optionally a band between lo and hi), its x axis fitted to the data.
 * series: [{label, color, width?, dash?, band?: boolean, points?: boolean, mark?: string (a MARKS shape: on the
 * line, thinned, or at every point with `points`), direct?: string (a direct label at the line's end, in a gutter
 * right of the plot), endHold?: boolean (see line-decor.js), group?: string (lines deliberately drawn alike and
 * named by one legend entry, e.g. LR schedules' "others")}].
 */
/** Charts narrower than this (CSS pixels) get no direct labels. */
const DIRECT_LABELS_FROM = 480;

export class LineChart extends Chart {
  /**
   * @param {HTMLElement} host
   * @param {{xLabel?: string, yLabel?: string, xLog?: boolean, yLog?: boolean, empty?: string, stepped?: boolean, xInt?: boolean}} [opts]
   */
  constructor(host, { xLabel, yLabel, xLog = false, yLog = false, empty = 'Press Run.', stepped = false, xInt = false } = {}) {
    super(host, empty);
    this.xLabel = xLabel; this.yLabel = yLabel; this.xLog = xLog; this.yLog = yLog; this.stepped = stepped; this.xInt = xInt;
    /** @type {any[]} */
    this.series = [];
    /** @type {number[]} the uPlot series index of each of `series` */
    this.index = [];
    /** whether direct labels are drawn (wide enough) */
    this.labelled = true;
  }

  /** Starts a chart for `series`; `data` in alignSeries' layout. */
  reset(series, data) {
    this.series = series;
    this.index = [];
    const useries = [{ label: this.xLabel }];
    const bands = [];
    for (const s of series) {
      const i = useries.length;
      this.index.push(i);
      useries.push({
        label: s.label, stroke: s.color, width: s.width ?? 2, dash: s.dash, spanGaps: true,
        // Series with a marker get it from the decor plugin (line-decor.js); others keep uPlot's dots.
        points: { show: (s.points ?? false) && !s.mark, size: 6, stroke: s.color, fill: s.color },
        paths: this.stepped ? steppedPaths() : undefined,
      });
      if (s.band) {
        useries.push({ label: `${s.label} lo`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false } });
        useries.push({ label: `${s.label} hi`, stroke: s.color + '00', width: 0, spanGaps: true, points: { show: false } });
        bands.push({ series: [i + 2, i + 1], fill: s.color + '2e' });
      }
    }
    // Direct labels sit in a gutter right of the plot, as wide as the longest; not on a narrow chart (a phone),
    // where the gutter would squeeze the plot (markers and dashes still tell the series apart).
    const width = (this.size ?? sizeOf(this.host)).width;
    this.labelled = width >= DIRECT_LABELS_FROM;
    const gutter = this.labelled ? Math.max(0, ...series.map((s) => (s.direct ? labelWidth(s.direct) + 14 : 0))) : 0;
    this.mount({
      // x: exactly the data's extent (no empty stretch at either end; log axes get their own padding).
      scales: { x: { time: false, ...(this.xLog ? logScale() : { range: (/** @type {any} */ u, /** @type {number} */ min, /** @type {number} */ max) => (min == null ? [0, 1] : min === max ? [min - 0.5, max + 0.5] : [min, max]) }) }, y: this.yLog ? logScale() : {} },
      axes: [axis({ label: this.xLabel, log: this.xLog, int: this.xInt }), axis({ label: this.yLabel, log: this.yLog, size: 62 })],
      series: useries,
      bands,
      ...(gutter ? { padding: [null, gutter, null, null] } : {}),
      plugins: [decorPlugin(() => this.series, (k) => this.index[k], () => this.labelled)],
    }, data ?? [[], ...useries.slice(1).map(() => [])]);
  }
}

/**
 * A legend: coloured swatches with labels (decorative; charts carry their own aria-label). An item may carry
 * `ramp` (colours of a sequential scale, drawn as a gradient), `glyph` (a marker glyph before its line, e.g. the
 * tune chart's batch sizes) or `mark` (a marker shape of MARKS, drawn on its line as on the chart; the marker
 * alone for a series of width 0, i.e. points without a line).
 * @param {HTMLElement} host @param {any[]} series
 */
export function legend(host, series) {
  host.replaceChildren(...series.map((s) => {
    const sw = s.ramp
      ? el('span', { class: 'sw ramp', style: `border-color:${s.color};background:linear-gradient(to right, ${s.ramp.join(', ')})` })
      : el('span', { class: `sw${s.dash ? ' dashed' : ''}${s.faded ? ' faded' : ''}${s.width === 0 && s.mark ? ' noline' : ''}`, style: `border-color:${s.color}${s.mark ? `;color:${s.color}` : ''}` });
    if (s.mark && !s.ramp) { sw.dataset.mark = MARK_GLYPH[s.mark] ?? s.mark; sw.dataset.shape = s.mark; }
    return el('span', { class: 'item' }, ...(s.glyph ? [el('span', { class: 'mark', style: `color:${s.color}`, text: s.glyph })] : []), sw, s.label);
  }));
}

/**
 * The style of the i-th series: a line colour (contrast at least 3:1 on white), a marker shape and, beyond the
 * markers, a dash: no two series up to 48 share both marker and dash, so none is told apart by colour alone.
 * @param {number} i @returns {{color: string, mark: string, dash: number[]|undefined}}
 */
export function seriesStyle(i) {
  const d = DASHES[Math.floor(i / MARKS.length) % DASHES.length];
  return { color: LINE_COLOURS[i % LINE_COLOURS.length], mark: MARKS[i % MARKS.length], dash: d.length ? d : undefined };
}

/**
 * WCAG contrast ratio of an `rgb(r,g,b)` or `#rrggbb` colour against white (1 to 21).
 * @param {string} c
 */
export function contrastOnWhite(c) {
  const m = c.startsWith('#') ? [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16)) : (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const [r, g, b] = m.map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}


/**
 * A colour of a sequential scale given by its `stops` ([r, g, b] from t = 0 to t = 1, equally spaced), t in
 * [0, 1] (clamped).
 * @param {number[][]} stops @param {number} t
 */
export function rampColor(stops, t) {
  const u = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(u)); const f = u - i;
  const c = stops[i].map((a, k) => Math.round(a + f * (stops[i + 1][k] - a)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/**
 * Cividis-like sequential colour map (colour-blind safe, dark blue -> yellow), t in [0, 1], for areas (heat-map
 * cells, dots with a white rim): its light end is too pale for lines on white. @param {number} t
 */
export const seqColor = (t) => rampColor([[0, 32, 77], [60, 77, 110], [124, 123, 120], [188, 175, 111], [255, 234, 70]], t);

/**
 * A sequential colour map for LINES on white (navy -> violet -> magenta -> red-orange -> amber, lightness
 * rising monotonically): every colour has a contrast of at least 3.6:1 on white, so no step size fades into the
 * background (the cividis ramp's yellow end is 1.3:1). t in [0, 1]. @param {number} t
 */
export const lineRamp = (t) => rampColor([[0, 32, 77], [72, 56, 150], [160, 52, 140], [205, 80, 60], [200, 110, 0]], t);

