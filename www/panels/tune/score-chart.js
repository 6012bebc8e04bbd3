// The tune panel's score chart: each arm's score against the compute it has spent (a uPlot whose draw hook
// paints one path per arm), its batch-size markers and dashes, and its legend. Drawing only: the numbers are
// the RunModel's (run.js), i.e. the worker's events.
import { Chart, axis, logScale, alignSeries, lineRamp } from '../../shared/charts.js';
import { MARKS, MARK_GLYPH, DASHES, drawMark } from '../../shared/marks.js';
import { fmtSci } from '../../shared/format.js';
import { dodge } from '../../shared/swarm.js';

/** Marker shapes and line dashes of batch sizes (largest batch first), on the chart and in its legend. */
export const BATCH_MARKS = MARKS.slice(0, 5);
const BATCH_DASH = DASHES.slice(0, 5);

/** A scored marker's radius (CSS pixels; the chosen arm's is 1.4 times it): 3.2, down to 2.2 on a narrow plot
 * (a phone: a plot about 230 px wide, where a round of 56 arms must still spread). The least distance between two
 * markers' centres after the sideways spread (swarm.js) is a radius and the chosen arm's (1.4 radii) and a pixel,
 * so that no marker touches another. @param {number} w the plot's width (CSS pixels) */
const markR = (w) => Math.max(2.2, Math.min(3.2, w / 100));
const markGap = (/** @type {number} */ r) => 2.4 * r + 1;
/** The most of the plot's width the spread may take beside the data, at either end. */
const PAD_CAP = 0.45;

/** Colours of the chart's own texts and secondary marks on its white background (contrast 9.6:1, 6.0:1, 3.7:1). */
const INK = '#3d4650';
const MUTED_INK = '#5b6470';
const PLANNED = '#7c8591';

/** Rows of round-end labels in the strip above the plot, and a row's height (CSS pixels). */
const ROUND_ROWS = [0, 1];
const ROUND_ROW_PX = 14;

/** Widths of canvas texts by font and text (measureText's first calls on a new canvas cost 10-20 ms). */
const TEXT_WIDTHS = new Map();
function textWidth(ctx, text) {
  const key = `${ctx.font}|${text}`;
  let w = TEXT_WIDTHS.get(key);
  if (w === undefined) { w = ctx.measureText(text).width; TEXT_WIDTHS.set(key, w); }
  return w;
}

/**
 * Each arm's score against the compute it has spent (both log scale), one line per arm: colour = step size
 * (a sequential ramp, small steps dark), marker and dash = batch size, pruned arms keep their colour with open
 * (hollow) markers and thin lines, the chosen arm is drawn thick and black; the markers of a round, which all
 * stand at the same compute, are spread sideways (swarm.js) so that each is visible, dashed vertical lines mark the ends of rounds (planned ones lighter), labelled above
 * the plot area. The x axis covers the data and, while the run goes on, the whole planned schedule. Arms of the current round that are running but not scored yet
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
    this.clearRun();
    this.version = 0;
    /** re-ranges of the x axis for the spread markers at one data version (bounded) */
    this.rerange = { version: -1, n: 0 };
    /**
     * Every scored marker of the last draw, for the page's tests: arm id, point index, centre (CSS pixels of the
     * plot area), radius, the colour drawn and whether it is hollow (pruned arms).
     * @type {{arm: number, k: number, x: number, y: number, r: number, color: string, hollow: boolean}[]}
     */
    this.drawn = [];
    /** @type {{text: string, color: string}[]} the texts of the last draw (round labels, the running note) and their colours */
    this.texts = [];
  }

  /** Forgets the run drawn: its pending markers, best arm, extents, focus and marker layout. */
  clearRun() {
    this.pending = [];
    this.pendingKey = '';
    this.best = null;
    /** whether the run is over (the x axis then fits the data alone) */
    this.done = false;
    this.scored = false;
    /** @type {(number|null)[]} the shown scores' extent (the y range) */
    this.yExt = [null, null];
    /** @type {number|null} index of the arm under the cursor */
    this.focused = null;
    /** arms drawn (a line or a marker) in the last draw */
    this.lines = 0;
    /** CSS pixels the x range keeps free left and right of the data for the spread markers */
    this.padPx = [0, 0];
    /** @type {{key: string, pos: Map<number, number[][]>}|null} the last layout of the markers (device pixels) */
    this.layoutCache = null;
  }

  /** Position of an arm's step size on the ramp, 0 (smallest) .. 1. */
  stepT(arm) {
    const [lo, hi] = this.steps;
    return hi > lo ? (Math.log10(arm.step) - lo) / (hi - lo) : 0.5;
  }

  /** Colour of an arm: its step size on the line ramp (every colour at least 3.6:1 on white). */
  colorOf(arm) { return lineRamp(this.stepT(arm)); }

  batchIndex(arm) { return Math.max(0, this.batches.indexOf(arm.batch)); }
  markOf(arm) { return BATCH_MARKS[this.batchIndex(arm) % BATCH_MARKS.length]; }
  dashOf(arm) { return BATCH_DASH[this.batchIndex(arm) % BATCH_DASH.length]; }

  /** The legend: the step-size ramp, one marker and dash per batch size, then chosen, pruned, running, rounds. */
  legendItems(fmtBatch, fmtStep = fmtSci) {
    const [lo, hi] = this.steps;
    const ramp = this.arms.length
      ? [{ label: `step size h ${fmtStep(10 ** lo)} … ${fmtStep(10 ** hi)}`, color: lineRamp(0.5), ramp: [0, 0.25, 0.5, 0.75, 1].map(lineRamp) }] : [];
    return [...ramp,
      ...this.batches.map((b, i) => ({ label: `batch ${fmtBatch(b)}`, color: '#3d4650', glyph: MARK_GLYPH[BATCH_MARKS[i % BATCH_MARKS.length]], dash: i % BATCH_DASH.length > 0, dashStyle: BATCH_DASH[i % BATCH_DASH.length] })),
      { label: 'chosen arm', color: '#000' }, { label: 'pruned (open marker, thin line)', color: INK, glyph: '○' },
      { label: 'running, not scored yet (open marker along the top)', color: INK, glyph: '○' }, { label: 'end of a round', color: MUTED_INK, dash: true }];
  }

  /**
   * Starts a new chart for a run over `arms` ([{id, step, batch, leapfrog}]); `schedule` ([{budget}], the
   * core's plan) fixes the x range and the planned round ends from the start.
   */
  reset(arms, xLabel, yLabel, schedule = []) {
    this.arms = arms;
    this.boundaries = [];
    this.clearRun();
    this.drawn = [];
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
          // Round ends: measured ones dark, planned ones light; each labelled in the strip ABOVE the plot area
          // (uPlot's top padding), where no data can be, so a label never covers a point.
          ctx.font = `${Math.round(11 * dpr())}px system-ui, sans-serif`;
          ctx.textBaseline = 'alphabetic';
          ctx.lineWidth = dpr();
          /** @type {{text: string, color: string}[]} */
          const texts = [];
          /** @type {number[]} the right end of the last label in each row of the strip */
          const rowEnds = ROUND_ROWS.map(() => -Infinity);
          self.planEnds.forEach((planned, round) => {
            const done = self.boundaries.find((b) => b.round === round);
            const px = u.valToPos(done ? done.x : planned, 'x', true);
            if (!inX(px)) return;
            ctx.strokeStyle = done ? MUTED_INK : PLANNED;
            ctx.fillStyle = done ? INK : MUTED_INK;
            ctx.setLineDash([5 * dpr(), 4 * dpr()]);
            ctx.beginPath(); ctx.moveTo(px, top - 3 * dpr()); ctx.lineTo(px, top + height); ctx.stroke();
            // Centred on its line in the lowest row where it overlaps no earlier label; on a crowded strip (a phone)
            // the short label "round N", then "N" (the legend names the dashed lines).
            const place = (/** @type {string} */ t) => {
              const w = textWidth(ctx, t);
              const x0 = Math.min(Math.max(px - w / 2, left - 6 * dpr()), left + width + 6 * dpr() - w);
              return { t, w, x0, row: rowEnds.findIndex((end) => x0 > end + 6 * dpr()) };
            };
            const tries = [`round ${round + 1} ${done ? 'ended' : 'ends'}`, `round ${round + 1}`, `${round + 1}`].map(place);
            const fit = tries.find((f) => f.row >= 0) ?? { ...tries[2], row: rowEnds.length - 1 };
            const { t: text, x0, row } = fit;
            rowEnds[row] = x0 + fit.w;
            ctx.textAlign = 'left';
            ctx.fillText(text, x0, top - (5 + ROUND_ROW_PX * row) * dpr());
            texts.push({ text, color: String(ctx.fillStyle) });
          });
          ctx.restore();
          self.texts = texts;
          ctx.save();
          ctx.font = `${Math.round(11 * dpr())}px system-ui, sans-serif`;
          ctx.beginPath(); ctx.rect(left - 8 * dpr(), top - 8 * dpr(), width + 16 * dpr(), height + 16 * dpr()); ctx.clip();
          // The arms: one path each (colour = step size, dash = batch), the chosen arm thick and on top; while
          // the cursor is on an arm, the others are faded.
          const r = markR(width / dpr()) * dpr();
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
            ctx.lineWidth = (arm.id === self.best ? 3.5 : i === self.focused ? 2.5 : self.isOut(arm) ? 1 : 1.5) * dpr();
            ctx.setLineDash(self.dashOf(arm).map((v) => v * dpr()));
            ctx.beginPath();
            pts.forEach(([px, py], k) => (k ? ctx.lineTo(px, py) : ctx.moveTo(px, py)));
            ctx.stroke();
          }
          ctx.restore();
          ctx.setLineDash([]);
          self.lines = lines;
          // Scored points: the arm's colour (step size) and its batch's marker; open markers for pruned arms.
          /** @type {typeof self.drawn} */
          const drawn = [];
          for (const i of order) {
            const arm = self.arms[i];
            ctx.globalAlpha = self.focused != null && i !== self.focused ? 0.35 : 1;
            const c = self.strokeOf(arm);
            const rr = arm.id === self.best ? r * 1.4 : r;
            const hollow = self.isOut(arm);
            (pos.get(i) ?? []).forEach(([px, py], k) => {
              if (!inX(px)) return;
              drawMark(ctx, self.markOf(arm), px, py, rr, c, hollow);
              drawn.push({ arm: arm.id, k, x: (px - left) / dpr(), y: (py - top) / dpr(), r: rr / dpr(), color: c, hollow });
            });
          }
          self.drawn = drawn;
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
            ctx.fillStyle = INK; ctx.textAlign = at > left + width * 0.6 ? 'right' : 'left';
            ctx.textBaseline = 'middle';
            const text = `${strip} arm${strip === 1 ? '' : 's'} running · scored when the round ends`;
            ctx.fillText(text, at + (ctx.textAlign === 'left' ? 10 : -10) * dpr(), top + 9 * dpr());
            texts.push({ text, color: String(ctx.fillStyle) });
          }
          ctx.restore();
          // The spread markers need room beside the data's first and last x: widen the x range once if they lack it
          // (the spread depends on the scores' heights only, so the second draw needs no more).
          // A resize keeps the range (in data units), so the room (in pixels) is checked too.
          const [need, room] = self.spreadNeed(u);
          const cap = PAD_CAP * width / dpr();
          const short = room.some((v, k) => v < Math.min(need[k], cap) - 1);
          // At most three times for one set of data (a size that keeps changing cannot loop it).
          const tries = self.rerange.version === self.version ? self.rerange.n : 0;
          if ((need[0] > self.padPx[0] + 0.5 || need[1] > self.padPx[1] + 0.5 || short) && tries < 3) {
            self.padPx = [Math.max(need[0], self.padPx[0]), Math.max(need[1], self.padPx[1])];
            self.rerange = { version: self.version, n: tries + 1 };
            queueMicrotask(() => { if (self.u === u) u.setData(u.data); });
          }
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
    // x: fitted to the data (a small margin for the markers), and, while the run goes on, to the planned schedule's
    // end (so the axis does not jump as rounds end); before the first score, from a fraction of round one.
    const xRange = (u, min, max) => {
      const xs = [min, max, ...self.pending.map((p) => p.x)].filter((v) => v > 0);
      if (!self.done) xs.push(...[self.planEnds[self.planEnds.length - 1], xs.length ? null : self.planLo].filter((v) => v > 0));
      if (!xs.length) return [1, 10];
      const lo = Math.min(...xs); const hi = Math.max(...xs);
      if (!(hi > lo)) return [lo / 2, lo * 2];
      const pad = 10 ** Math.max(0.02, 0.03 * Math.log10(hi / lo));
      // Room for the spread markers (padPx, CSS pixels) beside the data: margins L and R (pixels) on a plot W
      // wide around a data span of D decades take D * W / (W - L - R) decades.
      const W = (u.bbox?.width ?? 0) / dpr();
      const D = Math.log10(hi / lo);
      const base = Math.log10(pad) * W / (D + 2 * Math.log10(pad));
      const L = Math.min(Math.max(base, self.padPx[0]), PAD_CAP * W); const R = Math.min(Math.max(base, self.padPx[1]), PAD_CAP * W);
      if (!(W > 0) || (L <= base && R <= base)) return [lo / pad, hi * pad];
      const S = D * W / (W - L - R);
      return [lo / 10 ** (L * S / W), hi * 10 ** (R * S / W)];
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
      // The strip for the round-end labels above the plot area.
      padding: [8 + ROUND_ROW_PX * ROUND_ROWS.length, null, null, null],
      series,
      plugins: [plugin],
    }, [[], []]);
  }

  /** An arm's scored points a log-log chart can show: [[x, y]]. */
  static shown(arm) {
    return arm.points.filter((p) => Number.isFinite(p[0]) && p[0] > 0 && Number.isFinite(p[1]) && p[1] > 0);
  }

  /**
   * Each arm's shown points in pixels (device pixels with `canvas`, else CSS pixels of the plot area), by arm
   * index: at their compute and score, the markers of a crowded round spread sideways (swarm.js) in the order of
   * their scores (the best keeps its x).
   */
  positions(u, canvas = false) {
    const dpr = window.devicePixelRatio || 1;
    const key = `${this.version}|${u.scales.x.min}|${u.scales.x.max}|${u.scales.y.min}|${u.scales.y.max}|${u.bbox.left}|${u.bbox.top}|${u.bbox.width}|${u.bbox.height}`;
    if (this.layoutCache?.key !== key) {
      /** @type {{i: number, k: number, x: number, y: number, s: number}[]} */
      const pts = [];
      this.arms.forEach((arm, i) => {
        ScoreChart.shown(arm).forEach((p, k) => {
          const x = u.valToPos(p[0], 'x', true); const y = u.valToPos(p[1], 'y', true);
          if (Number.isFinite(x) && Number.isFinite(y)) pts.push({ i, k, x, y, s: p[1] });
        });
      });
      pts.sort((a, b) => a.x - b.x || a.s - b.s);
      const off = dodge(pts, markGap(markR(u.bbox.width / dpr)) * dpr);
      /** @type {Map<number, number[][]>} */
      const pos = new Map(this.arms.map((_, i) => [i, []]));
      pts.forEach((p, n) => { /** @type {number[][]} */ (pos.get(p.i))[p.k] = [p.x + off[n], p.y]; });
      for (const [i, list] of pos) pos.set(i, list.filter(Boolean));
      this.layoutCache = { key, pos };
    }
    const { left, top } = u.bbox;
    const pos = this.layoutCache.pos;
    if (canvas) return pos;
    return new Map([...pos].map(([i, list]) => [i, list.map(([x, y]) => [(x - left) / dpr, (y - top) / dpr])]));
  }

  /**
   * CSS pixels the spread markers reach left of the data's first x and right of its last (with their radius),
   * and the room the plot has there now. @returns {number[][]}
   */
  spreadNeed(u) {
    const dpr = window.devicePixelRatio || 1;
    const xs = this.arms.flatMap((a) => ScoreChart.shown(a).map((p) => p[0]));
    if (!xs.length) return [[0, 0], [Infinity, Infinity]];
    const x0 = u.valToPos(Math.min(...xs), 'x', true); const x1 = u.valToPos(Math.max(...xs), 'x', true);
    let l = 0; let r = 0;
    for (const list of this.positions(u, true).values()) for (const [x] of list) { l = Math.max(l, x0 - x); r = Math.max(r, x - x1); }
    const { left, width } = u.bbox;
    const rr = 1.4 * markR(u.bbox.width / dpr);
    return [[(l / dpr) + rr, (r / dpr) + rr], [(x0 - left) / dpr, (left + width - x1) / dpr]];
  }

  /** Whether an arm is out of the race (pruned or diverged): drawn with open markers and a thin line. */
  isOut(arm) { return arm.status === 'pruned' || arm.status === 'diverged'; }

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

  /** An arm's colour: black for the chosen arm, else its step size's (at least 3.6:1 on white, pruned or not). */
  strokeOf(arm) {
    if (arm.id === this.best) return '#000000';
    return this.colorOf(arm);
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
  update({ boundaries = [], best = null, pending = this.pending, done = false } = {}) {
    if (!this.u) return null;
    this.done = done;
    this.version++;
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
