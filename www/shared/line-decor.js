// What a line chart adds to colour so that no two series are told apart by colour alone: markers on
// each line (at most about ten per line, staggered between series so they do not sit on one another), and
// direct labels at the end of each line, in a gutter right of the plot, spread apart so that none covers another
// (or any data: the gutter holds no data). A uPlot plugin; drawing only.
import { drawMark } from './marks.js';

/** Markers per line when a series has more points than this (thinned to about this many). */
const MARKS_PER_LINE = 10;
/** The direct labels' font (CSS pixels; scaled by the device pixel ratio when drawn). */
const LABEL_PX = 11;
const LABEL_FONT = (/** @type {number} */ s) => `${Math.round(LABEL_PX * s)}px system-ui, sans-serif`;

/** @type {CanvasRenderingContext2D|null} */
let measurer = null;
/** The width in CSS pixels of a direct label's text. @param {string} text */
export function labelWidth(text) {
  measurer ??= /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  measurer.font = LABEL_FONT(1);
  return measurer.measureText(text).width;
}

/**
 * @typedef {{label: string, color: string, mark?: string, points?: boolean, direct?: string|null, endHold?: boolean}} DecorSeries
 * `direct`: the series' direct label (none when null or empty); `endHold`: the last point only holds the one
 * before it to the end of the axis (no marker of its own).
 */

/**
 * Spreads label centres `ys` (sorted by the caller's order) at least `gap` apart inside [lo, hi], moving each as
 * little as it can (a forward then a backward pass). Returns the new centres in the same order.
 * @param {number[]} ys @param {number} gap @param {number} lo @param {number} hi
 */
export function spread(ys, gap, lo, hi) {
  const order = ys.map((y, i) => [y, i]).sort((a, b) => a[0] - b[0]);
  const out = order.map(([y]) => Math.min(hi, Math.max(lo, y)));
  for (let k = 1; k < out.length; k++) out[k] = Math.max(out[k], out[k - 1] + gap);
  if (out.length && out[out.length - 1] > hi) {
    out[out.length - 1] = hi;
    for (let k = out.length - 2; k >= 0; k--) out[k] = Math.min(out[k], out[k + 1] - gap);
  }
  const res = new Array(ys.length);
  order.forEach(([, i], k) => { res[i] = out[k]; });
  return res;
}

/**
 * The plugin: `series()` gives the chart's series in order with `index()` their uPlot series index; `labels()`
 * whether to draw the direct labels.
 * @param {() => DecorSeries[]} series @param {(k: number) => number} index @param {() => boolean} [labels]
 */
export function decorPlugin(series, index, labels = () => true) {
  return {
    hooks: {
      draw: [(/** @type {any} */ u) => {
        const dpr = window.devicePixelRatio || 1;
        const ctx = /** @type {CanvasRenderingContext2D} */ (u.ctx);
        const { left, top, width, height } = u.bbox;
        const xs = /** @type {number[]} */ (u.data[0]);
        const list = series();
        const ends = /** @type {{k: number, x: number, y: number}[]} */ ([]);
        ctx.save();
        ctx.beginPath(); ctx.rect(left - 6 * dpr, top - 6 * dpr, width + 12 * dpr, height + 12 * dpr); ctx.clip();
        list.forEach((s, k) => {
          const i = index(k);
          if (!u.series[i]?.show) return;
          const ys = /** @type {(number|null)[]} */ (u.data[i] ?? []);
          const at = ys.map((y, j) => (y == null ? -1 : j)).filter((j) => j >= 0);
          if (!at.length) return;
          const last = at[at.length - 1];
          ends.push({ k, x: u.valToPos(xs[last], 'x', true), y: u.valToPos(/** @type {number} */ (ys[last]), 'y', true) });
          if (!s.mark) return;
          // A last point that only holds the previous value to the end of the axis (a stepped line) gets no marker.
          if (s.endHold && at.length > 1) at.pop();
          // Every point of a scatter; else about MARKS_PER_LINE, offset per series (markers of close lines do not coincide).
          const step = s.points || at.length <= MARKS_PER_LINE + 2 ? 1 : Math.ceil(at.length / MARKS_PER_LINE);
          const offset = step > 1 ? Math.floor((k * step) / Math.max(1, list.length)) % step : 0;
          for (let n = offset; n < at.length; n += step) {
            const j = at[n];
            const px = u.valToPos(xs[j], 'x', true); const py = u.valToPos(/** @type {number} */ (ys[j]), 'y', true);
            if (Number.isFinite(px) && Number.isFinite(py)) drawMark(ctx, s.mark, px, py, 3.6 * dpr, s.color);
          }
        });
        ctx.restore();
        // Direct labels in the gutter right of the plot, each joined to its line's end by a thin leader.
        const labelled = labels() ? ends.filter((e) => list[e.k].direct && Number.isFinite(e.y)) : [];
        if (!labelled.length) return;
        ctx.save();
        ctx.font = LABEL_FONT(dpr); ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
        const ys = spread(labelled.map((e) => e.y), (LABEL_PX + 2) * dpr, top + 6 * dpr, top + height - 6 * dpr);
        const gx = left + width + 8 * dpr;
        labelled.forEach((e, n) => {
          const s = list[e.k];
          ctx.strokeStyle = s.color; ctx.lineWidth = dpr; ctx.setLineDash([]); ctx.globalAlpha = 0.6;
          ctx.beginPath(); ctx.moveTo(Math.min(e.x, left + width) + 2 * dpr, e.y); ctx.lineTo(gx - 2 * dpr, ys[n]); ctx.stroke();
          ctx.globalAlpha = 1; ctx.fillStyle = s.color;
          ctx.fillText(/** @type {string} */ (s.direct), gx, ys[n]);
        });
        ctx.restore();
      }],
    },
  };
}
