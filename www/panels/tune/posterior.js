// The tune panel's view of the chosen arm's posterior: its card and posterior table, the trace and the marginal
// histogram of one coordinate (uPlot), and, for a 2-D toy model, the samples over the density's contours
// (canvas); the header lines of its traces CSV. Drawing only.
import { Chart, axis, OKABE_ITO, steppedPaths } from '../../shared/charts.js';
import { fmtSci } from '../../shared/format.js';
import { $, nextFrame } from '../../shared/dom.js';
import { configHash } from '../../shared/export.js';
import { renderBest, renderPosterior, inChunks } from './views.js';


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
      series: [{}, { label: 'count', stroke: OKABE_ITO[0], fill: OKABE_ITO[0] + '55', width: 1, paths: steppedPaths(), points: { show: false } }],
    }, [edges, [...counts, counts[counts.length - 1] ?? 0]]);
  }
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

/**
 * Shows a run's chosen arm: its card and posterior table (views.js), the coordinate menu with the trace and the
 * histogram of the chosen coordinate, and, for a 2-D toy model, the samples over the density's contours.
 * @param {{trace: TraceChart, hist: HistChart, client: import('../../client.js').ComputeClient, message: (text: string) => void, split?: boolean}} view
 *   split: the trace and the histogram in frames of their own (a run's result)
 * @param {{config: any, report: any, samples: Float64Array, dim: number}} r
 */
export async function showPosterior({ trace, hist, client, message, split = false }, { config, report, samples, dim }) {
  const d = dim ?? 0;
  renderBest($('best'), report);
  renderPosterior($('post-table').tBodies[0], report?.best?.posterior, null);
  const sel = /** @type {HTMLSelectElement} */ ($('coord'));
  // The menu is built in chunks too (one option per coordinate: 5,000 for PMF); the first coordinate is drawn now.
  inChunks(sel, d, (j) => new Option(`θ${j + 1}`, String(j)));
  sel.disabled = d === 0;
  /** @param {boolean} [frames] the trace and the histogram in frames of their own (a run's result) */
  const drawCoord = async (frames = false) => {
    const j = Number(sel.value || 0);
    const n = Math.floor(samples.length / d);
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = samples[i * d + j];
    const label = sel.options[j]?.text ?? `θ${j + 1}`;
    // A run's result: the table and menu, the trace chart and the histogram each in a frame of their own (in one
    // task they took 45 ms of CPU for pmf-page on an idle machine: two uPlot charts and the table's layout).
    if (frames) await nextFrame();
    trace.draw(col, label);
    if (frames) await nextFrame();
    hist.draw(col, label);
  };
  sel.onchange = () => { drawCoord(); };
  if (d > 0 && samples?.length) await drawCoord(split); else { trace.clear(); hist.clear(); }
  const wrap = $('density-wrap');
  if (d === 2 && config.data?.source === 'none' && samples.length >= 2) {
    try {
      drawDensity(/** @type {HTMLCanvasElement} */ ($('density')), await client.densityGrid(config.model, samples), samples);
      wrap.hidden = false;
    } catch (err) {
      wrap.hidden = true;
      message(`Could not draw the density: ${/** @type {Error} */ (err).message}`);
    }
  } else wrap.hidden = true;
}

/**
 * The header lines of the traces CSV: whose samples these are and what was cut (the report keeps 500 evenly
 * spaced rows of the chosen arm's thinned chain; the posterior summary used all of it).
 * @param {{config: any, report: any, samples: Float64Array, dim: number}} r
 */
export function tracesNote(r) {
  const b = r.report?.best;
  const rows = Math.floor(r.samples.length / Math.max(1, r.dim));
  const kept = b?.posterior?.n ?? rows;
  const who = r.report?.name ? `${r.report.name}'s` : 'the';
  return [
    `tunelab traces of ${who} chosen arm #${b?.arm} (h = ${b?.step}, batch ${b?.batch_fraction}), config ${configHash(r.config)}`,
    rows < kept
      ? `${rows} evenly spaced rows of the ${kept} thinned samples the run kept for this arm (about every ${Math.round(kept / rows)}th); the page's posterior mean and std use all ${kept}`
      : `all ${rows} thinned samples the run kept for this arm`,
  ];
}
