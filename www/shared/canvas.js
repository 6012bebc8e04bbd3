// The page's plain-canvas plots, for what uPlot does not draw (heat maps, scatter with colour by round, bars,
// a 1-D GP posterior): a canvas sized to its box with linear or log axes, a colour bar and a key.
// Used by the bandit, HOAG, learning-rate and step-size panels. Drawing only.
import { FONT, seqColor, lineRamp } from './charts.js';
import { drawMark } from './marks.js';
import { fmtSci, fmtTick } from './format.js';

/** Height (CSS pixels) of the strip above a plot that holds its key and colour bar. */
const KEY_STRIP = 34;

/** A canvas sized to its box (device pixels) with a plot frame and linear or log axes. */
export class CanvasPlot {
  /**
   * @param {HTMLCanvasElement} canvas
   * `keys`: a strip above the plot area for the key and the colour bar (keyBox, colorBar), so they cover no data.
   * @param {{x: number[], y: number[], xLog?: boolean, yLog?: boolean, xLabel?: string, yLabel?: string, yTicks?: boolean, pad?: {l: number, r: number, t: number, b: number}, keys?: boolean}} opts
   */
  constructor(canvas, { x: [x0, x1], y: [y0, y1], xLog = false, yLog = false, xLabel = '', yLabel = '', yTicks = true, pad = { l: 64, r: 14, t: 12, b: 42 }, keys = false }) {
    if (keys) pad = { ...pad, t: Math.max(pad.t, KEY_STRIP) };
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
      // Each tick as a multiple of the step (a running sum drifts: "-2.78e-17" for 0).
      for (let k = Math.ceil(a / s); k * s <= b + 1e-9 * span; k++) out.push(k === 0 ? 0 : +(k * s).toPrecision(12));
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

  /** Markers of one shape (www/shared/marks.js), optionally outlined (on a heat map). */
  marks(xs, ys, { shape = 'circle', color = '#000', r = 3.5, stroke = null } = {}) {
    this.clip((ctx) => {
      xs.forEach((x, i) => {
        const y = ys[i];
        if (!Number.isFinite(x) || !Number.isFinite(y)) return;
        drawMark(ctx, shape, this.px(x), this.py(y), r, color);
        if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke(); }
      });
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


/**
 * A horizontal colour bar for `ramp` (seqColor: areas; lineRamp: small marks on white) from `lo` to `hi`, drawn
 * at the canvas' top-right corner.
 */
export function colorBar(plot, lo, hi, label, hiSuffix = '', ramp = seqColor) {
  const { ctx } = plot;
  ctx.save();
  ctx.font = '11px system-ui, sans-serif';
  const text = `${label}: ${fmtSci(lo)} – ${fmtSci(hi)}${hiSuffix}`;
  const w = Math.max(Math.min(140, plot.width * 0.35), ctx.measureText(text).width);
  // In the strip above the plot when it has one (covers no data), else in the plot's top-right corner.
  const strip = plot.pad.t >= KEY_STRIP;
  const x = plot.left + plot.width - w - (strip ? 0 : 6); const y = strip ? 3 : plot.top + 6;
  if (!strip) { ctx.fillStyle = 'rgba(255,255,255,.9)'; ctx.fillRect(x - 3, y - 3, w + 6, 29); }
  for (let i = 0; i < w; i++) { ctx.fillStyle = ramp(i / (w - 1)); ctx.fillRect(x + i, y, 1, 9); }
  ctx.fillStyle = '#1b1f24'; ctx.textBaseline = 'top'; ctx.textAlign = 'left';
  ctx.fillText(text, x, y + 11);
  ctx.restore();
}

/**
 * A small key, [[colour, text]]: in one row in the strip above the plot when it has one (so it covers no data),
 * else in the plot's top-left corner.
 */
export function keyBox(plot, items) {
  const { ctx } = plot;
  ctx.save();
  ctx.font = '11px system-ui, sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
  if (plot.pad.t >= KEY_STRIP) {
    let x = plot.left;
    for (const [c, t] of items) {
      ctx.strokeStyle = c; ctx.lineWidth = 3; ctx.beginPath(); ctx.moveTo(x, 10); ctx.lineTo(x + 16, 10); ctx.stroke();
      ctx.fillStyle = '#1b1f24'; ctx.fillText(t, x + 20, 10);
      x += 34 + ctx.measureText(t).width;
    }
    ctx.restore();
    return;
  }
  const w = Math.max(...items.map(([, t]) => ctx.measureText(t).width)) + 30;
  ctx.fillStyle = 'rgba(255,255,255,.85)'; ctx.fillRect(plot.left + 6, plot.top + 6, w, items.length * 15 + 6);
  items.forEach(([c, t], i) => {
    const y = plot.top + 14 + i * 15;
    ctx.strokeStyle = c; ctx.lineWidth = 3; ctx.beginPath(); ctx.moveTo(plot.left + 10, y); ctx.lineTo(plot.left + 26, y); ctx.stroke();
    ctx.fillStyle = '#1b1f24'; ctx.fillText(t, plot.left + 30, y);
  });
  ctx.restore();
}

/** The range of the finite values of `arrays`, padded by 5% ([0, 1] when there is none). @param {...number[]} arrays */
function extent(...arrays) {
  let lo = Infinity; let hi = -Infinity;
  for (const a of arrays) for (const v of a) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!Number.isFinite(lo)) return [0, 1];
  const pad = (hi - lo) * 0.05 || 0.5;
  return [lo - pad, hi + pad];
}

/** GP posterior on a 1-D grid (band, mean, truth if any) with the chosen points coloured by round. */
export function drawGp1d(canvas, g, xLabel = 'arm x', yLabel = 'reward', timeLabel = 'round') {
  const rewards = g.points.map((p) => p.reward);
  const plot = new CanvasPlot(canvas, { x: [g.grid[0], g.grid[g.grid.length - 1]], y: extent(g.lo, g.hi, g.truth ?? [], rewards), xLabel, yLabel, keys: true });
  plot.band(g.grid, g.lo, g.hi, 'rgba(86,180,233,.30)');
  const truth = g.truth?.length ? g.truth : null;
  if (truth) plot.line(g.grid, truth, { color: '#000', width: 1.5, dash: [5, 4] });
  plot.line(g.grid, g.mean, { color: '#0072B2', width: 2.2 });
  const n = Math.max(1, ...g.points.map((p) => p.round));
  // Dots on white: the line ramp (every colour at least 3.6:1 on white), not the cividis ramp's pale end.
  for (const p of g.points) plot.dot(p.x, p.reward, { color: lineRamp((p.round - 1) / Math.max(1, n - 1)), r: 3.5, stroke: '#fff' });
  plot.axes();
  colorBar(plot, 1, n, timeLabel, '', lineRamp);
  keyBox(plot, truth ? [['#0072B2', 'GP mean ±2 sd'], ['#000', 'true reward (dashed)']] : [['#0072B2', 'GP mean ±2 sd']]);
}
