// The page's one chart wrapper (typed by JSDoc; uPlot itself is untyped here): uPlot (vendored, no CDN) creation
// and sizing, log-axis ticks, legends, series styles and colour scales, and PNG export with titles and legends.
// Every panel's line charts; plain-canvas plots are in canvas.js. Drawing only: all numbers come from the worker.
// @ts-ignore -- vendored at serve / build time (node_modules/uplot/dist), no type declarations
import uPlot from '../../vendor/uplot/uPlot.esm.js';
import { el } from './dom.js';
import { fmtSci, fmtTick } from './format.js';

/** Okabe–Ito colours, in the order batch sizes get them (largest batch first). */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

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

/** uPlot's stepped paths (a step at each x, held to the next): for step lines and histograms. */
export const steppedPaths = () => uPlot.paths.stepped({ align: 1 });

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
        paths: this.stepped ? steppedPaths() : undefined,
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

/** Cividis-like sequential colour map (colour-blind safe, dark blue -> yellow), t in [0, 1]. @param {number} t */
export const seqColor = (t) => rampColor([[0, 32, 77], [60, 77, 110], [124, 123, 120], [188, 175, 111], [255, 234, 70]], t);

// ------------------------------------------------------------------------------------------ PNG export

/** The title of a chart canvas on the page: its card's heading and its own sub-heading (or figure caption). */
function titleOf(canvas) {
  const card = canvas.closest('section.card, .card');
  const h2 = card?.querySelector('h2')?.textContent?.trim() ?? '';
  const h3 = canvas.closest('div:not(.chart)')?.querySelector(':scope > h3')?.textContent?.trim() ?? '';
  const cap = canvas.closest('figure')?.querySelector('figcaption')?.textContent?.trim() ?? '';
  return [h2, h3, cap].filter(Boolean).join(' — ');
}

/** What a canvas shows, from its own or its chart host's aria-label. */
const labelOf = (canvas) => (canvas.getAttribute('aria-label') ?? canvas.closest('[aria-label]')?.getAttribute('aria-label') ?? '').trim();

/** The legend entries shown next to a chart canvas (the `.legend` of its card): [{label, color, dash}]. */
function legendOf(canvas) {
  const box = canvas.closest('section.card')?.querySelector('.legend');
  if (box?.hidden) return [];
  return [...(box?.children ?? [])].map((item) => {
    const sw = /** @type {HTMLElement|null} */ (item.querySelector('.sw'));
    // A colour ramp (e.g. step sizes): its stops, read back from the swatch's gradient.
    const ramp = sw?.classList.contains('ramp') ? (sw.style.background.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}/gi) ?? []) : [];
    return { label: item.textContent?.trim() ?? '', color: sw?.style.borderColor || '#000', dash: sw?.classList.contains('dashed') ?? false, ramp };
  });
}

/**
 * The layout of an export, in units of `scale` CSS pixels (the PNG: device pixels; the SVG: 1): one block per
 * chart with its title (unique: a repeated heading gets the chart's own label, then a number), its legend
 * wrapped over as many lines as it needs (every entry kept), the chart, then the footer.
 * @param {(HTMLCanvasElement|null)[]} canvases @param {string} footer @param {number} scale
 */
export function exportLayout(canvases, footer, scale) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  const line = Math.round(18 * scale);
  const font = `${Math.round(11 * scale)}px system-ui, sans-serif`;
  const seen = new Map();
  const charts = canvases.filter(Boolean).map((c) => {
    const canvas = /** @type {HTMLCanvasElement} */ (c);
    let title = titleOf(canvas);
    if (seen.has(title) && labelOf(canvas)) title = title ? `${title} — ${labelOf(canvas)}` : labelOf(canvas);
    const n = (seen.get(title) ?? 0) + 1;
    seen.set(title, n);
    if (n > 1) title = `${title} (${n})`;
    return { canvas, title, legend: legendOf(canvas), cw: canvas.width * scale / (window.devicePixelRatio || 1), ch: canvas.height * scale / (window.devicePixelRatio || 1) };
  });
  const w = Math.ceil(Math.max(...charts.map((f) => f.cw), 320 * scale));
  ctx.font = font;
  let y = 0;
  const blocks = charts.map((f) => {
    const b = { ...f, titleY: -1, items: /** @type {{label: string, color: string, dash: boolean, ramp: string[], x: number, y: number}[]} */ ([]), y: 0 };
    if (f.title) { b.titleY = y + line / 2; y += line; }
    let x = 8 * scale;
    if (f.legend.length) y += line / 2;
    for (const it of f.legend) {
      const width = 30 * scale + ctx.measureText(it.label).width;
      if (x > 8 * scale && x + width > w - 8 * scale) { x = 8 * scale; y += line; }
      b.items.push({ ...it, x, y });
      x += width;
    }
    if (f.legend.length) y += line / 2;
    b.y = y;
    y += f.ch + 10 * scale;
    return b;
  });
  const footerY = footer ? y + line / 2 : -1;
  return { w, h: Math.ceil(y + (footer ? line : 0)) || 1, blocks, footer, footerY, scale, font, bold: `bold ${Math.round(13 * scale)}px system-ui, sans-serif` };
}

/**
 * One PNG of the given chart canvases stacked vertically on white, each under its title and full legend (read
 * from the page: the card's heading and `.legend`). Resolves with a Blob.
 */
export function chartsPng(canvases, footer = '') {
  const dpr = window.devicePixelRatio || 1;
  const L = exportLayout(canvases, footer, dpr);
  const out = Object.assign(document.createElement('canvas'), { width: L.w, height: L.h });
  const ctx = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, L.w, L.h);
  ctx.textBaseline = 'middle';
  for (const b of L.blocks) {
    if (b.title) { ctx.fillStyle = '#1b1f24'; ctx.font = L.bold; ctx.fillText(b.title, 8 * dpr, b.titleY); }
    ctx.font = L.font;
    for (const it of b.items) {
      /** @type {string|CanvasGradient} */
      let stroke = it.color;
      if (it.ramp.length > 1) {
        const g = ctx.createLinearGradient(it.x, 0, it.x + 16 * dpr, 0);
        it.ramp.forEach((c, i) => g.addColorStop(i / (it.ramp.length - 1), c));
        stroke = g;
      }
      ctx.strokeStyle = stroke; ctx.lineWidth = (it.ramp.length > 1 ? 6 : 3) * dpr; ctx.setLineDash(it.dash ? [4 * dpr, 3 * dpr] : []);
      ctx.beginPath(); ctx.moveTo(it.x, it.y); ctx.lineTo(it.x + 16 * dpr, it.y); ctx.stroke();
      ctx.fillStyle = '#1b1f24'; ctx.fillText(it.label, it.x + 20 * dpr, it.y);
    }
    ctx.setLineDash([]);
    ctx.drawImage(b.canvas, 0, b.y);
  }
  // The footer: what made the figure (the config's hash).
  if (footer) { ctx.fillStyle = '#3d4650'; ctx.font = L.font; ctx.fillText(footer, 8 * dpr, L.footerY); }
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}

/** @param {string} s */
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The same export as SVG: titles, every legend entry and the footer as text (searchable, editable in slides),
 * each chart as an embedded PNG image.
 * @param {(HTMLCanvasElement|null)[]} canvases @param {string} [footer]
 */
export function chartsSvg(canvases, footer = '') {
  const L = exportLayout(canvases, footer, 1);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${L.w}" height="${L.h}" viewBox="0 0 ${L.w} ${L.h}" font-family="system-ui, sans-serif">`,
    `<rect width="${L.w}" height="${L.h}" fill="#fff"/>`];
  for (const b of L.blocks) {
    if (b.title) parts.push(`<text class="title" x="8" y="${b.titleY}" dominant-baseline="middle" font-size="13" font-weight="bold" fill="#1b1f24">${esc(b.title)}</text>`);
    for (const [k, it] of b.items.entries()) {
      let stroke = esc(it.color);
      if (it.ramp.length > 1) {
        const id = `ramp-${parts.length}-${k}`;
        parts.push(`<defs><linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${it.x}" y1="0" x2="${it.x + 16}" y2="0">${it.ramp.map((c, i) => `<stop offset="${i / (it.ramp.length - 1)}" stop-color="${esc(c)}"/>`).join('')}</linearGradient></defs>`);
        stroke = `url(#${id})`;
      }
      parts.push(`<line x1="${it.x}" y1="${it.y}" x2="${it.x + 16}" y2="${it.y}" stroke="${stroke}" stroke-width="${it.ramp.length > 1 ? 6 : 3}"${it.dash ? ' stroke-dasharray="4 3"' : ''}/>`,
        `<text class="legend" x="${it.x + 20}" y="${it.y}" dominant-baseline="middle" font-size="11" fill="#1b1f24">${esc(it.label)}</text>`);
    }
    parts.push(`<image x="0" y="${b.y}" width="${b.cw}" height="${b.ch}" href="${b.canvas.toDataURL('image/png')}"/>`);
  }
  if (footer) parts.push(`<text class="footer" x="8" y="${L.footerY}" dominant-baseline="middle" font-size="11" fill="#3d4650">${esc(footer)}</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}
