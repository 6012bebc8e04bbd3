// The learning-rate panel's multi-task view (Picheny et al. Sec. 4; src/experiments/lr_schedule/multitask), shown
// when the run's config has `multitask`: the new task's lowest final loss after each run of the two warm starts
// of Sec. 4.4, the cold Algorithm 2 and random search, against the best of every candidate schedule run once;
// the task locations w_t the GP learnt (Sec. 4.1); Algorithm 2's α = 0.5 recommendation on each previous task
// against the candidates there. Drawing only: every number comes from the report.
import { el, nextFrame } from '../../shared/dom.js';
import { LineChart, legend, alignSeries, seriesStyle } from '../../shared/charts.js';
import { CanvasPlot } from '../../shared/canvas.js';
import { drawMark } from '../../shared/marks.js';
import { fmt3 } from '../../shared/format.js';
import { mtFacts, taskName } from './reading.js';

const REF = { label: '', color: '#5b6470', width: 1.5, dash: [4, 4] };

export class MultitaskView {
  /** @param {(key: string) => string} id the panel's element ids @param {(key: string, title: any, ...children: any[]) => HTMLElement} card */
  constructor(id, card) {
    this.legendEl = el('div', { class: 'legend', 'aria-hidden': 'true' });
    const host = el('div', { class: 'chart chart-small', id: id('chart-mt'), role: 'img', 'aria-label': 'Lowest final training loss on the new task after each run, one line per tuner, log scale' });
    this.locCanvas = /** @type {HTMLCanvasElement} */ (el('canvas', { class: 'detail-canvas', id: id('mt-loc'), role: 'img', 'aria-label': 'Task locations learnt by the multi-task GP, a point per task' }));
    this.table = el('table', { class: 'arms', id: id('mt-table') },
      el('thead', {}, el('tr', {}, ...['previous task', 'Algorithm 2 runs', 'best of its runs', 'α = 0.5 recommendation', 'best candidate', 'rank of the recommendation'].map((t) => el('th', { scope: 'col', text: t })))),
      el('tbody'));
    this.el = card('mt', ['Multi-task warm start', ' (Picheny et al. Sec. 4)'],
      el('p', { class: 'help', text: 'Algorithm 2 learns one GP over the previous tasks’ training traces, each task at a learnt location w_t in the plane; a new task then starts from what they taught (the two warm starts of Sec. 4.4) or from nothing (cold Algorithm 2), against random search over the candidate schedules. Each tuner gets the same number of runs on the new task.' }),
      this.legendEl, host,
      el('h3', { text: 'Learnt task locations w_t' }), el('div', { class: 'land-wrap' }, this.locCanvas),
      el('p', { class: 'help', text: 'Each point is labelled: black, the previous tasks after Algorithm 2; in colour, the new task where each warm start placed it. Only distances matter (the kernel exp(−‖w − w′‖²/2) is unchanged by rotating or shifting every point): nearby tasks share their traces more.' }),
      el('div', { class: 'table-wrap', tabindex: 0, 'aria-label': 'Algorithm 2 on each previous task (scrollable)' }, this.table));
    this.chart = new LineChart(host, { xLabel: 'runs on the new task', yLabel: 'lowest final training loss', yLog: true, xInt: true, empty: 'Appears when the run ends.' });
    /** @type {any} */
    this.mt = null;
    /** @type {any} the facts of `mt` (reading.js `mtFacts`), once per report */
    this.facts = null;
    this.el.hidden = true;
  }

  /** A new run: shown (empty) for a multi-task config, hidden otherwise. @param {boolean} on */
  begin(on) {
    this.mt = null;
    this.facts = null;
    this.el.hidden = !on;
    this.table.tBodies[0].replaceChildren();
    this.legendEl.replaceChildren();
    this.chart.clear('Algorithm 2 runs on the previous tasks first, then the tuners on the new task: this view appears when the run ends.');
    if (on) this.placeholder();
  }

  placeholder() {
    const plot = new CanvasPlot(this.locCanvas, { x: [0, 1], y: [0, 1] });
    plot.ctx.fillStyle = '#5b6470'; plot.ctx.font = '13px system-ui, sans-serif'; plot.ctx.textAlign = 'center';
    plot.ctx.fillText('The locations appear when the run ends.', plot.W / 2, plot.H / 2);
  }

  /** The report's multi-task part, a chart per frame; resolves with its facts. @param {any} mt LrReport.multitask */
  async show(mt) {
    this.mt = mt;
    this.el.hidden = false;
    const f = this.facts = mtFacts(mt);
    const tuners = [mt.universal, mt.learn_location, mt.cold, mt.random];
    const n = mt.target_runs;
    const series = [...tuners.map((t, i) => ({ label: t.name, ...seriesStyle(i), points: true })),
      { ...REF, label: `best of the ${f.candidates} candidate schedules, each run once (${f.candidates} runs): ${fmt3(f.bestCand)}` }];
    const items = [...tuners.map((t) => ({ x: t.best_so_far.map((/** @type {number} */ _, /** @type {number} */ k) => k + 1), y: t.best_so_far })),
      { x: [1, n], y: [f.bestCand, f.bestCand] }];
    this.chart.reset(series, alignSeries(items, (/** @type {number} */ v) => Number.isFinite(v) && v > 0));
    legend(this.legendEl, series);
    await nextFrame();
    this.drawLocations();
    await nextFrame();
    this.table.tBodies[0].replaceChildren(...f.prev.map((p) => el('tr', {},
      el('th', { scope: 'row', class: 'name', text: p.task }), el('td', { text: String(p.runs) }), el('td', { text: fmt3(p.bestRun) }),
      el('td', { text: fmt3(p.recommended) }), el('td', { text: fmt3(p.bestCandidate) }), el('td', { text: `${p.rank} of ${p.of}` }))));
    return f;
  }

  drawLocations() {
    const mt = this.mt;
    if (!mt || this.el.hidden) return;
    const prev = mt.locations;
    const news = [[mt.universal, 0], [mt.learn_location, 1]].filter(([t]) => t.location);
    const all = [...prev, ...news.map(([t]) => t.location)];
    const xs = all.map((w) => w[0]); const ys = all.map((w) => w[1]);
    const pad = (/** @type {number[]} */ v) => { const lo = Math.min(...v); const hi = Math.max(...v); const p = (hi - lo) * 0.15 || 0.5; return [lo - p, hi + p]; };
    const plot = new CanvasPlot(this.locCanvas, { x: pad(xs), y: pad(ys), xLabel: 'w₁', yLabel: 'w₂' });
    plot.axes();
    const newName = taskName(mt.tasks.at(-1));
    // Labels placed where they cover no point and no other label (the first free of eight places around the
    // point; tasks often sit close together).
    const pts = [...prev.map((/** @type {number[]} */ w, /** @type {number} */ t) => ({ w, text: taskName(mt.tasks[t]), color: '#1b1f24', shape: 'circle', r: 5 })),
      ...news.map(([t, i]) => ({ w: t.location, text: `${newName} (${i === 0 ? 'universal' : 'learn location'})`, color: seriesStyle(i).color, shape: seriesStyle(i).mark, r: 6 }))];
    plot.clip((ctx) => {
      ctx.font = '12px system-ui, sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
      const xy = pts.map((p) => [plot.px(p.w[0]), plot.py(p.w[1])]);
      for (const [k, p] of pts.entries()) drawMark(ctx, p.shape, xy[k][0], xy[k][1], p.r, p.color);
      /** @type {number[][]} boxes [x0, y0, x1, y1] taken by points and placed labels */
      const taken = xy.map(([x, y]) => [x - 6, y - 6, x + 6, y + 6]);
      const hit = (/** @type {number[]} */ b) => b[0] < plot.left || b[2] > plot.left + plot.width || b[1] < plot.top || b[3] > plot.top + plot.height
        || taken.some((o) => b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]);
      for (const [k, p] of pts.entries()) {
        const w = ctx.measureText(p.text).width; const h = 14; const [x, y] = xy[k];
        // Eight places around the point, then the same farther out (joined to the point by a thin line).
        /** @type {number[][]} */
        const places = [];
        for (const r of [9, 24, 42, 62]) {
          places.push([r, -h / 2], [r, -h - r / 2], [r, r / 2], [-w - r, -h / 2], [-w - r, -h - r / 2], [-w - r, r / 2], [-w / 2, -h - r], [-w / 2, r]);
        }
        const found = places.map(([dx, dy]) => [x + dx, y + dy, x + dx + w, y + dy + h]).find((b) => !hit(b));
        const box = found ?? [x + 9, y - h / 2, x + 9 + w, y + h / 2];
        taken.push(box);
        const cx = Math.max(box[0], Math.min(x, box[2])); const cy = Math.max(box[1], Math.min(y, box[3]));
        if (Math.hypot(cx - x, cy - y) > 12) {
          ctx.strokeStyle = p.color; ctx.lineWidth = 0.75; ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(cx, cy); ctx.stroke();
        }
        ctx.fillStyle = p.color; ctx.fillText(p.text, box[0], (box[1] + box[3]) / 2);
      }
    });
  }

  canvases() { return this.mt && !this.el.hidden ? [this.chart.canvas(), this.locCanvas] : []; }

  chartData() {
    const mt = this.mt; const f = this.facts;
    if (!mt || !f) return null;
    return { best_so_far: [mt.universal, mt.learn_location, mt.cold, mt.random].map((t) => ({ name: t.name, y: t.best_so_far })), best_candidate: f.bestCand, locations: mt.locations, previous: f.prev };
  }
}
