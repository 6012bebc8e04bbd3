// The second view of the MAMBA chart, made for many arms (the paper's 56): an arms x rounds heat map of the
// scores. One row per arm (grouped by batch size, step size ascending inside a group), one column per round of
// the schedule; a cell's colour is the arm's score in that round on a log colour scale (the key at the top),
// hatched while the arm runs and is not scored yet, a cross where the score is infinite (diverged or too few
// samples), blank where the arm did not run (pruned before). The chosen arm's row is outlined. Drawing only:
// the numbers are the RunModel's (www/panels/tune/run.js), i.e. the worker's events.
import { fmtSci, fmtTick, fmtStep, fmtBatch } from '../../shared/format.js';
import { rampColor } from '../../shared/charts.js';

/** Sequential colour of a score position t in [0, 1] (0 = lowest score = best): dark blue .. light yellow. @param {number} t */
export const heatColor = (t) => rampColor([[8, 48, 107], [33, 113, 181], [107, 174, 214], [199, 233, 180], [255, 255, 204]], t);

/**
 * The rows and cells of the heat map (pure: tests and the chart data hook use it).
 * @param {import('./run.js').RunModel} model
 * @returns {{rows: any[], rounds: number, lo: number, hi: number, cells: {row: number, round: number, score: number|null, running: boolean}[]}}
 */
export function heatData(model) {
  const rows = [...model.arms].sort((a, b) => b.batch - a.batch || a.step - b.step || (a.leapfrog ?? 1) - (b.leapfrog ?? 1));
  const rounds = Math.max(model.schedule.length, ...model.arms.map((a) => a.rounds.length), 1);
  /** @type {{row: number, round: number, score: number|null, running: boolean}[]} */
  const cells = [];
  const pending = new Set(model.pending().map((p) => p.arm));
  let lo = Infinity; let hi = -Infinity;
  rows.forEach((a, i) => {
    for (const r of a.rounds) {
      const s = Number.isFinite(r.score) ? r.score : null;
      if (s != null && s > 0) { lo = Math.min(lo, s); hi = Math.max(hi, s); }
      cells.push({ row: i, round: r.round, score: s, running: false });
    }
    if (pending.has(a.id) && !a.rounds.some((r) => r.round === model.round)) cells.push({ row: i, round: model.round, score: null, running: true });
  });
  return { rows, rounds, lo, hi, cells };
}

/**
 * Draws the heat map of `model` on `canvas` (its CSS width; the height follows the number of arms).
 * `metric` names the score on the colour key. Returns a summary for tests: rows, rounds, scored cells, running
 * cells, the colour key's range and the axis titles.
 * @param {HTMLCanvasElement} canvas @param {import('./run.js').RunModel} model @param {string} metric
 */
export function drawHeat(canvas, model, metric) {
  const { rows, rounds, lo, hi, cells } = heatData(model);
  const dpr = window.devicePixelRatio || 1;
  const rowH = Math.max(7, Math.min(18, Math.floor(420 / Math.max(1, rows.length))));
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  // The right margin holds the chosen arm's label whole ("◀ chosen #N", bold), measured in its font.
  const chosenText = model.done && model.best != null ? `◀ chosen #${model.best}` : '';
  ctx.font = 'bold 11px system-ui, sans-serif';
  const chosenW = chosenText ? ctx.measureText(chosenText).width : 0;
  const pad = { l: 150, r: Math.max(78, Math.ceil(chosenW) + 12), t: 58, b: 44 };
  const W = Math.max(320, Math.round(canvas.getBoundingClientRect().width || canvas.parentElement?.clientWidth || 640));
  const H = pad.t + rows.length * rowH + pad.b;
  canvas.style.height = `${H}px`;
  canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
  const cw = (W - pad.l - pad.r) / rounds;
  const has = Number.isFinite(lo);
  const [a, b] = has ? [Math.log10(lo), Math.log10(hi)] : [0, 1];
  const tOf = (/** @type {number} */ s) => (b > a ? (Math.log10(s) - a) / (b - a) : 0.5);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  // Key: the colour scale of the scores (log), above the grid.
  const kx = pad.l; const kw = Math.min(260, W - pad.l - pad.r); const ky = 8;
  for (let i = 0; i < kw; i++) { ctx.fillStyle = heatColor(i / (kw - 1)); ctx.fillRect(kx + i, ky, 1, 10); }
  ctx.strokeStyle = '#8a939d'; ctx.lineWidth = 1; ctx.strokeRect(kx - 0.5, ky - 0.5, kw + 1, 11);
  ctx.fillStyle = '#1b1f24'; ctx.textAlign = 'left';
  const keyText = has ? `${metric} of the round's samples (log scale): ${fmtSci(lo)} (best, dark) … ${fmtSci(hi)}` : `${metric}: no score yet (scores come at the end of each round)`;
  ctx.fillText(keyText, kx, ky + 20);
  // Other marks of the key, right of the scale.
  let mx = kx + kw + 14;
  if (mx + 150 < W) {
    ctx.fillStyle = '#f3f4f6'; ctx.fillRect(mx, ky, 12, 10); hatch(ctx, mx, ky, 12, 10);
    ctx.fillStyle = '#1b1f24'; ctx.fillText('running', mx + 16, ky + 5); mx += 70;
    cross(ctx, mx, ky, 12, 10); ctx.fillStyle = '#1b1f24'; ctx.fillText('∞ (diverged)', mx + 16, ky + 5);
  }
  // Grid background: rounds an arm did not reach stay light grey.
  ctx.fillStyle = '#f6f7f9'; ctx.fillRect(pad.l, pad.t, rounds * cw, rows.length * rowH);
  for (const c of cells) {
    const x = pad.l + c.round * cw; const y = pad.t + c.row * rowH;
    if (c.running) { hatch(ctx, x + 1, y + 0.5, cw - 2, rowH - 1); continue; }
    if (c.score == null || !(c.score > 0)) { cross(ctx, x + 1, y + 0.5, cw - 2, rowH - 1); continue; }
    ctx.fillStyle = heatColor(tOf(c.score));
    ctx.fillRect(x + 1, y + 0.5, cw - 2, rowH - 1);
    if (rowH >= 12 && cw >= 60) {
      ctx.fillStyle = tOf(c.score) < 0.45 ? '#fff' : '#1b1f24'; ctx.textAlign = 'center';
      ctx.fillText(fmtSci(c.score), x + cw / 2, y + rowH / 2);
    }
  }
  // Row labels: the batch at the first row of its group (with a separator), the step size on every row that fits.
  const every = Math.max(1, Math.ceil(10 / rowH));
  ctx.textAlign = 'right';
  rows.forEach((arm, i) => {
    const y = pad.t + i * rowH + rowH / 2;
    const first = i === 0 || rows[i - 1].batch !== arm.batch;
    if (first) {
      ctx.strokeStyle = '#5b6470'; ctx.lineWidth = 1;
      if (i > 0) { ctx.beginPath(); ctx.moveTo(6, pad.t + i * rowH); ctx.lineTo(pad.l + rounds * cw, pad.t + i * rowH); ctx.stroke(); }
      ctx.fillStyle = '#1b1f24'; ctx.textAlign = 'left'; ctx.font = 'bold 11px system-ui, sans-serif';
      ctx.fillText(`batch ${fmtBatch(arm.batch)}`, 6, y);
      ctx.font = '11px system-ui, sans-serif'; ctx.textAlign = 'right';
    }
    if (i % every === 0) {
      ctx.fillStyle = '#3d4650';
      ctx.fillText(`h ${fmtStep(arm.step)}${(arm.leapfrog ?? 1) > 1 ? ` L${arm.leapfrog}` : ''}`, pad.l - 6, y);
    }
  });
  // The chosen arm: its row outlined, named at the right.
  const bi = model.done && model.best != null ? rows.findIndex((r) => r.id === model.best) : -1;
  if (bi >= 0) {
    ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
    ctx.strokeRect(pad.l, pad.t + bi * rowH, rounds * cw, rowH);
    ctx.fillStyle = '#000'; ctx.textAlign = 'left'; ctx.font = 'bold 11px system-ui, sans-serif';
    ctx.fillText(chosenText, pad.l + rounds * cw + 4, pad.t + bi * rowH + rowH / 2);
    ctx.font = '11px system-ui, sans-serif';
  }
  // x axis: one column per round, with its compute per arm.
  ctx.fillStyle = '#1b1f24'; ctx.textAlign = 'center';
  for (let r = 0; r < rounds; r++) {
    const budget = model.schedule[r]?.budget;
    ctx.fillText(`round ${r + 1}${budget ? ` · ${fmtTick(budget)}` : ''}`, pad.l + (r + 0.5) * cw, pad.t + rows.length * rowH + 12);
  }
  const unit = model.unit === 'grad_evals' ? 'gradient evaluations' : model.unit === 'seconds' ? 'seconds' : 'iterations';
  const xTitle = `round of successive halving · ${unit} per arm in the round`;
  const yTitle = 'arm (batch size, step size h)';
  ctx.fillText(xTitle, pad.l + (rounds * cw) / 2, H - 10);
  ctx.textAlign = 'left'; ctx.fillStyle = '#3d4650';
  ctx.fillText(yTitle, 6, pad.t - 10);
  ctx.strokeStyle = '#3d4650'; ctx.lineWidth = 1; ctx.strokeRect(pad.l - 0.5, pad.t - 0.5, rounds * cw + 1, rows.length * rowH + 1);
  return {
    rows: rows.length, rounds, scored: cells.filter((c) => !c.running).length, running: cells.filter((c) => c.running).length,
    key: has ? [lo, hi] : null, keyText, xTitle, yTitle, best: bi >= 0 ? model.best : null,
    // The chosen arm's label: its text, where it starts and its width, and the canvas' width (CSS pixels).
    chosen: bi >= 0 ? { text: chosenText, x: pad.l + rounds * cw + 4, w: chosenW, canvasW: W } : null,
    // Where the rows are (CSS pixels in the canvas), for a click on a cell (drill.js).
    hit: { left: pad.l, right: pad.l + rounds * cw, top: pad.t, rowH, ids: rows.map((r) => r.id) },
  };
}

/** Diagonal hatching in a cell (an arm running, not scored yet). */
function hatch(/** @type {CanvasRenderingContext2D} */ ctx, /** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ w, /** @type {number} */ h) {
  ctx.save();
  ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
  ctx.strokeStyle = '#7c8591'; ctx.lineWidth = 1;
  ctx.beginPath();
  for (let d = -h; d < w; d += 5) { ctx.moveTo(x + d, y + h); ctx.lineTo(x + d + h, y); }
  ctx.stroke();
  ctx.restore();
}

/** A cross in a cell (infinite score). */
function cross(/** @type {CanvasRenderingContext2D} */ ctx, /** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ w, /** @type {number} */ h) {
  ctx.save();
  ctx.fillStyle = '#fde0dd'; ctx.fillRect(x, y, w, h);
  ctx.strokeStyle = '#b2182b'; ctx.lineWidth = 1.2;
  const cx = x + w / 2; const cy = y + h / 2; const r = Math.min(w, h) / 2 - 1;
  ctx.beginPath(); ctx.moveTo(cx - r, cy - r); ctx.lineTo(cx + r, cy + r); ctx.moveTo(cx + r, cy - r); ctx.lineTo(cx - r, cy + r); ctx.stroke();
  ctx.restore();
}
