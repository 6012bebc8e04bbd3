// Charts: uPlot (vendored, no CDN) for scores, traces and histograms; a plain canvas for 2-D densities.
// Drawing only: all numbers come from the worker.
import uPlot from '../vendor/uplot/uPlot.esm.js';

/** Okabe–Ito colours, in the order batch sizes get them (largest batch first). */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

const FONT = '12px system-ui, sans-serif';
const AXIS = { stroke: '#3d4650', grid: { stroke: '#e6e9ed', width: 1 }, ticks: { stroke: '#c9cfd6', width: 1 }, font: FONT };

function sizeOf(el) {
  const r = el.getBoundingClientRect();
  return { width: Math.max(200, Math.floor(r.width)), height: Math.max(120, Math.floor(r.height)) };
}

/** Keeps a uPlot instance sized to its container. */
function autoSize(el, getPlot) {
  const ro = new ResizeObserver(() => { const u = getPlot(); if (u) u.setSize(sizeOf(el)); });
  ro.observe(el);
  return ro;
}

function placeholder(el, text) {
  el.replaceChildren();
  const p = document.createElement('p');
  p.className = 'placeholder';
  p.textContent = text;
  el.append(p);
}

const fmtSci = (v) => (v == null ? '' : !Number.isFinite(v) ? '–' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(2) : String(+v.toPrecision(3)));

/**
 * Each arm's score against the compute it has spent (both log scale), one line per arm: colour = batch size,
 * pruned arms fade, the chosen arm is drawn thick and black, dashed vertical lines mark round boundaries.
 */
export class ScoreChart {
  constructor(el, { onHover } = {}) {
    this.el = el;
    this.onHover = onHover;
    this.u = null;
    this.arms = [];
    this.boundaries = [];
    this.best = null;
    this.ro = autoSize(el, () => this.u);
    placeholder(el, 'Press Run: each arm’s score appears here as it is computed.');
  }

  /** Colour of a batch value among the run's batch values. */
  colorOf(arm) {
    const i = this.batches.indexOf(arm.batch);
    return OKABE_ITO[(i < 0 ? 0 : i) % OKABE_ITO.length];
  }

  /** Starts a new chart for a run over `arms` ([{id, step, batch, leapfrog}]). */
  reset(arms, xLabel, yLabel) {
    this.u?.destroy();
    this.el.replaceChildren();
    this.arms = arms;
    this.best = null;
    this.boundaries = [];
    this.batches = [...new Set(arms.map((a) => a.batch))].sort((a, b) => b - a);
    const self = this;
    const series = [{ label: xLabel }];
    for (const arm of arms) {
      series.push({
        label: `arm ${arm.id}`,
        stroke: () => self.strokeOf(arm),
        width: arm.id === self.best ? 3 : 1.5,
        spanGaps: true,
        points: { show: true, size: 5, stroke: () => self.strokeOf(arm), fill: () => self.strokeOf(arm) },
      });
    }
    const boundaryPlugin = {
      hooks: {
        draw: [(u) => {
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = '#5b6470';
          ctx.fillStyle = '#3d4650';
          ctx.setLineDash([5, 4]);
          ctx.lineWidth = 1;
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          for (const { x, round } of self.boundaries) {
            const px = u.valToPos(x, 'x', true);
            if (!Number.isFinite(px) || px < u.bbox.left || px > u.bbox.left + u.bbox.width) continue;
            ctx.beginPath();
            ctx.moveTo(px, u.bbox.top);
            ctx.lineTo(px, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.fillText(`end of round ${round + 1}`, px + 4 * devicePixelRatio, u.bbox.top + u.bbox.height - 6 * devicePixelRatio);
          }
          ctx.restore();
        }],
        setCursor: [(u) => {
          const s = u.cursor.idx;
          const i = self.focused;
          if (i == null || s == null) return;
          const arm = self.arms[i - 1];
          if (!arm) return;
          self.onHover?.(arm);
        }],
        setSeries: [(u, i) => { self.focused = i; if (i != null && self.arms[i - 1]) self.onHover?.(self.arms[i - 1]); }],
      },
    };
    const { width, height } = sizeOf(this.el);
    this.u = new uPlot({
      width, height,
      legend: { show: false },
      focus: { alpha: 0.35 },
      cursor: { focus: { prox: 16 }, drag: { x: false, y: false } },
      scales: {
        // Log scales padded around the data (a round's arms share one x, so the range is often narrow).
        x: { time: false, distr: 3, range: (u, min, max) => (min == null || !(min > 0) ? [1, 10] : [min / 2, max * 2]) },
        y: { distr: 3, range: (u, min, max) => (min == null || !(min > 0) ? [0.1, 10] : [min / 1.5, max * 1.5]) },
      },
      axes: [
        { ...AXIS, label: xLabel, labelFont: FONT, values: (u, vals) => vals.map(fmtSci) },
        { ...AXIS, label: yLabel, labelFont: FONT, size: 60, values: (u, vals) => vals.map(fmtSci) },
      ],
      series,
      plugins: [boundaryPlugin],
    }, [[], ...arms.map(() => [])], this.el);
  }

  strokeOf(arm) {
    if (arm.id === this.best) return '#000000';
    const c = this.colorOf(arm);
    const faded = arm.status === 'pruned' || arm.status === 'diverged';
    return faded ? c + '40' : c; // 25% alpha for pruned arms
  }

  /** Aligned uPlot data from each arm's points ([[compute, score]]); non-positive or infinite scores are gaps. */
  static alignedData(arms) {
    const xs = [...new Set(arms.flatMap((a) => a.points.map((p) => p[0])))].filter((x) => x > 0).sort((a, b) => a - b);
    const index = new Map(xs.map((x, i) => [x, i]));
    const data = [xs];
    for (const a of arms) {
      const ys = new Array(xs.length).fill(null);
      for (const [x, y] of a.points) {
        if (index.has(x) && Number.isFinite(y) && y > 0) ys[index.get(x)] = y;
      }
      data.push(ys);
    }
    return data;
  }

  /** Redraws with the arms' current points and statuses. */
  update({ boundaries = [], best = null } = {}) {
    if (!this.u) return null;
    this.boundaries = boundaries;
    this.best = best;
    const data = ScoreChart.alignedData(this.arms);
    this.arms.forEach((arm, i) => { this.u.series[i + 1].width = arm.id === best ? 3.5 : 1.5; });
    this.u.setData(data);
    return data;
  }

  canvas() { return this.u?.ctx.canvas ?? null; }
}

/** Trace of one coordinate against the sample index. */
export class TraceChart {
  constructor(el) {
    this.el = el;
    this.u = null;
    this.ro = autoSize(el, () => this.u);
    placeholder(el, 'The chosen arm’s trace appears after a run.');
  }
  clear() { this.u?.destroy(); this.u = null; placeholder(this.el, 'The chosen arm’s trace appears after a run.'); }
  draw(values, label) {
    this.u?.destroy();
    this.el.replaceChildren();
    const xs = Array.from(values, (_, i) => i + 1);
    const { width, height } = sizeOf(this.el);
    this.u = new uPlot({
      width, height, legend: { show: false }, cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [{ ...AXIS, label: 'sample (after thinning)', labelFont: FONT }, { ...AXIS, size: 60, values: (u, v) => v.map(fmtSci) }],
      series: [{}, { label, stroke: OKABE_ITO[0], width: 1, points: { show: false } }],
    }, [xs, Array.from(values)], this.el);
  }
  canvas() { return this.u?.ctx.canvas ?? null; }
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
export class HistChart {
  constructor(el) {
    this.el = el;
    this.u = null;
    this.ro = autoSize(el, () => this.u);
    placeholder(el, 'The marginal histogram appears after a run.');
  }
  clear() { this.u?.destroy(); this.u = null; placeholder(this.el, 'The marginal histogram appears after a run.'); }
  draw(values, label) {
    this.u?.destroy();
    this.el.replaceChildren();
    const bins = Math.max(10, Math.min(40, Math.round(Math.sqrt(values.length))));
    const { edges, counts } = histogram(values, bins);
    const { width, height } = sizeOf(this.el);
    this.u = new uPlot({
      width, height, legend: { show: false }, cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [{ ...AXIS, label, labelFont: FONT, values: (u, v) => v.map(fmtSci) }, { ...AXIS, size: 50 }],
      series: [{}, { label: 'count', stroke: OKABE_ITO[0], fill: OKABE_ITO[0] + '55', width: 1, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } }],
    }, [edges, [...counts, counts[counts.length - 1] ?? 0]], this.el);
  }
  canvas() { return this.u?.ctx.canvas ?? null; }
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

export { fmtSci };

/** Several named lines over a shared x axis (each series with its own x values), with a legend. */
export class LinesChart {
  constructor(el, placeholderText, legendEl = null) {
    this.el = el;
    this.legendEl = legendEl;
    this.u = null;
    this.text = placeholderText;
    this.ro = autoSize(el, () => this.u);
    placeholder(el, placeholderText);
  }

  /** series: [{name, xs, ys}]; opts: {xLabel, yLabel, logX, logY}. Non-positive values are gaps on log axes. */
  draw(series, { xLabel = '', yLabel = '', logX = false, logY = false } = {}) {
    const key = JSON.stringify([series.map((s) => s.name), xLabel, yLabel, logX, logY]);
    const xs = [...new Set(series.flatMap((s) => s.xs))].filter((x) => Number.isFinite(x) && (!logX || x > 0)).sort((a, b) => a - b);
    const idx = new Map(xs.map((x, i) => [x, i]));
    const data = [xs, ...series.map((s) => {
      const ys = new Array(xs.length).fill(null);
      s.xs.forEach((x, i) => { const y = s.ys[i]; if (idx.has(x) && Number.isFinite(y) && (!logY || y > 0)) ys[idx.get(x)] = y; });
      return ys;
    })];
    this.data = data;
    if (this.u && this.key === key) { this.u.setData(data); return data; }
    this.u?.destroy();
    this.el.replaceChildren();
    this.key = key;
    if (this.legendEl) {
      // Our own legend (uPlot's would be cut by the fixed chart height): colour and dash per series.
      this.legendEl.replaceChildren(...series.map((s, i) => {
        const item = document.createElement('span');
        const sw = document.createElement('span');
        sw.className = `sw${i >= OKABE_ITO.length ? ' dashed' : ''}`;
        sw.style.borderColor = OKABE_ITO[i % OKABE_ITO.length];
        item.append(sw, s.name);
        return item;
      }));
    }
    const { width, height } = sizeOf(this.el);
    const logRange = (u, min, max) => (min == null || !(min > 0) ? [1, 10] : [min / 1.5, max * 1.5]);
    this.u = new uPlot({
      width, height, legend: { show: false }, cursor: { drag: { x: false, y: false } },
      focus: { alpha: 0.4 },
      scales: { x: { time: false, ...(logX ? { distr: 3, range: logRange } : {}) }, y: logY ? { distr: 3, range: logRange } : {} },
      axes: [{ ...AXIS, label: xLabel, labelFont: FONT, values: (u, v) => v.map(fmtSci) }, { ...AXIS, label: yLabel, labelFont: FONT, size: 60, values: (u, v) => v.map(fmtSci) }],
      series: [{ label: xLabel }, ...series.map((s, i) => ({
        label: s.name, stroke: OKABE_ITO[i % OKABE_ITO.length], width: 2, spanGaps: true,
        dash: i >= OKABE_ITO.length ? [6, 4] : undefined, points: { show: xs.length < 40, size: 4 },
      }))],
    }, data, this.el);
    return data;
  }

  clear() { this.u?.destroy(); this.u = null; this.key = null; this.legendEl?.replaceChildren(); placeholder(this.el, this.text); }
  canvas() { return this.u?.ctx.canvas ?? null; }
}
