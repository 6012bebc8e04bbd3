// The tune panel's arm drill-down: click an arm's point on the score chart, its
// bracket cell, its heat-map cell or its arms-table row (or Enter on a focused cell/row) to see, beside its score,
// what its chain did: its settings, its score per round (the arms table's numbers), its draws of θ₁, θ₂ over the
// posterior (the chosen arm's in grey for contrast) and its trace, from the report's per-arm `draws` (the core
// keeps at most `arm_draws` of each arm's last round, src/experiments/sgmcmc/samples.rs). A lesson step with
// `predict: true` (www/lessons.js) asks the student to pick the arm they expect MAMBA to choose before the run;
// the next run's end reveals the choice and what became of their pick.
import { Chart, axis, alignSeries, legend, OTHERS_GREY } from '../../shared/charts.js';
import { chartsPng, chartsSvg } from '../../shared/chart-export.js';
import { download } from '../../shared/export.js';
import { el, $ } from '../../shared/dom.js';
import { fmtSci, fmtStep, fmtBatch } from '../../shared/format.js';
import { armOutcome, scoreText } from './arm-outcome.js';

/** The batch of a summary arm (a fraction, a count, or `{count}` / `{fraction}`) as a fraction when it is one. */
const batchOf = (/** @type {any} */ b) => (typeof b === 'number' ? b : b?.fraction ?? b?.count ?? NaN);

/** The arm's colour on the draws and trace charts (Okabe–Ito vermillion / blue; the reference is grey). */
const ARM = '#D55E00';
const ARM2 = '#0072B2';

/** Points (no lines) of several series with their own x values, on one uPlot. */
class ScatterChart extends Chart {
  /** @param {HTMLElement} host @param {string} empty */
  constructor(host, empty) { super(host, empty); }
  /** @param {{x: number[], y: number[], color: string, label: string, size?: number, dash?: number[]}[]} items @param {string} xLabel @param {string} yLabel */
  draw(items, xLabel, yLabel, lines = false) {
    const data = alignSeries(items);
    this.mount({
      scales: { x: { time: false, range: (/** @type {any} */ _u, /** @type {number} */ lo, /** @type {number} */ hi) => (lo == null ? [0, 1] : lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi]) } },
      axes: [axis({ label: xLabel, int: lines }), axis({ label: yLabel, size: 56 })],
      series: [{}, ...items.map((s) => ({
        label: s.label, stroke: s.color, width: lines ? 1.25 : 0, spanGaps: true, ...(s.dash ? { dash: s.dash } : {}),
        ...(lines ? { points: { show: false } } : { paths: () => null, points: { show: true, size: s.size ?? 5, stroke: s.color, fill: s.color, width: 0 } }),
      }))],
    }, data);
  }
}

export class ArmDrill {
  /** @param {any} panel the TunePanel */
  constructor(panel) {
    this.panel = panel;
    /** @type {any} the run shown ({config, report}) */
    this.result = null;
    /** @type {number|null} */
    this.arm = null;
    /** @type {{pick: number|null, runs: number, on: boolean, revealed?: any}} the lesson's prediction */
    this.predict = { pick: null, runs: 0, on: false };
    this.card = this.build();
    this.draws = new ScatterChart($('drill-draws'), 'The arm’s draws appear here.');
    this.trace = new ScatterChart($('drill-trace'), 'The arm’s trace appears here.');
    this.wire();
  }

  /** The drill-down card, right after the score chart's card. */
  build() {
    const chartCard = $('chart-ksd').closest('section.card');
    const card = el('section', { class: 'card drill', id: 'drill-card', 'aria-labelledby': 'h-drill', hidden: true },
      el('h2', { id: 'h-drill', tabindex: '-1' }, el('span', { id: 'drill-title', text: 'Arm drill-down' }), ' ', el('span', { class: 'h-sub', id: 'drill-sub' })),
      el('div', { id: 'predict-box', class: 'predict', hidden: true, role: 'group', 'aria-labelledby': 'predict-h' },
        el('h3', { id: 'predict-h', text: 'Your prediction: which arm will MAMBA choose?' }),
        el('p', { class: 'help', id: 'predict-help', text: 'Click the arm (step size h · batch) you expect to be chosen, then press Run.' }),
        el('div', { id: 'predict-arms', class: 'predict-arms' }),
        el('p', { id: 'predict-status', 'aria-live': 'polite' })),
      el('div', { id: 'drill-body', hidden: true },
        el('dl', { id: 'drill-settings', class: 'drill-settings' }),
        el('div', { class: 'table-wrap', tabindex: '0', 'aria-label': 'The arm’s score per round (scrollable)' },
          el('table', { id: 'drill-scores', class: 'arms' },
            el('thead', {}, el('tr', {}, ...['round', 'arms in it', 'score', 'then'].map((t) => el('th', { scope: 'col', text: t })))), el('tbody'))),
        el('div', { class: 'two-col' },
          el('div', {}, el('h3', { text: 'Draws over the posterior' }), el('div', { class: 'legend', id: 'drill-legend' }),
            el('div', { id: 'drill-draws', class: 'chart chart-small', role: 'img', 'aria-label': 'The arm’s draws of θ₁ against θ₂, the chosen arm’s in grey' })),
          el('div', {}, el('h3', { text: 'Trace' }), el('div', { class: 'legend', id: 'drill-trace-legend' }),
            el('div', { id: 'drill-trace', class: 'chart chart-small', role: 'img', 'aria-label': 'The arm’s θ₁ and θ₂ against the sample index' }))),
        el('p', { class: 'help', id: 'drill-note' }),
        el('div', { class: 'buttons wrap' },
          el('button', { type: 'button', id: 'drill-png', text: 'Drill-down (PNG)' }),
          el('button', { type: 'button', id: 'drill-svg', text: 'Drill-down (SVG)' }),
          el('button', { type: 'button', id: 'drill-close', text: 'Close' }))));
    chartCard.after(card);
    return card;
  }

  wire() {
    const open = (/** @type {number|null} */ id) => { if (id != null && Number.isFinite(id)) this.choose(id); };
    const armOf = (/** @type {EventTarget|null} */ t) => { const e = /** @type {HTMLElement|null} */ (/** @type {Element} */ (t)?.closest?.('[data-arm]')); return e ? Number(e.dataset.arm) : null; };
    // Score chart: the arm whose line or marker is nearest the click (the chart's own hover rule).
    $('chart-ksd').addEventListener('click', (/** @type {MouseEvent} */ e) => {
      const c = this.panel.scoreChart; const u = c.u;
      if (!u) return;
      const r = u.over.getBoundingClientRect();
      const i = c.nearest(u, e.clientX - r.left, e.clientY - r.top, 16);
      if (i != null) open(c.arms[i].id);
    });
    for (const id of ['bracket', 'arms-table']) {
      const box = $(id);
      box.addEventListener('click', (/** @type {MouseEvent} */ e) => open(armOf(e.target)));
      box.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Enter' && armOf(e.target) != null) { e.preventDefault(); open(armOf(e.target)); } });
    }
    // Heat map: the row under the click; keyboard: arrows move along the rows, Enter opens.
    const heat = /** @type {HTMLCanvasElement} */ ($('heat-ksd'));
    heat.tabIndex = 0;
    this.heatRow = 0;
    heat.addEventListener('click', (/** @type {MouseEvent} */ e) => open(this.heatArmAt(e.offsetX, e.offsetY)));
    heat.addEventListener('keydown', (/** @type {KeyboardEvent} */ e) => {
      const hit = this.panel.hooks.heat?.hit;
      if (!hit) return;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.heatRow = Math.max(0, Math.min(hit.ids.length - 1, this.heatRow + (e.key === 'ArrowDown' ? 1 : -1)));
        $('ksd-hover').textContent = `Row ${this.heatRow + 1} of ${hit.ids.length}: arm #${hit.ids[this.heatRow]} (Enter: its drill-down)`;
      } else if (e.key === 'Enter') { e.preventDefault(); open(hit.ids[this.heatRow]); }
    });
    $('drill-close').addEventListener('click', () => this.close());
    $('drill-png').addEventListener('click', async () => download(`tunelab-arm-${this.arm}.png`, await chartsPng(this.canvases(), this.panel.exportFooter(), this.panel.exportCaption()), 'image/png'));
    $('drill-svg').addEventListener('click', () => download(`tunelab-arm-${this.arm}.svg`, chartsSvg(this.canvases(), this.panel.exportFooter(), this.panel.exportCaption()), 'image/svg+xml'));
    $('predict-arms').addEventListener('click', (/** @type {MouseEvent} */ e) => { const id = armOf(e.target); if (id != null) this.pick(id); });
    // A lesson step (www/embed.js) says whether it asks for a prediction.
    window.addEventListener('tunelab:lesson-step', (/** @type {any} */ e) => this.setPredict(!!e.detail?.predict));
    if (document.body.dataset.lessonPredict === 'true') this.setPredict(true);
    // The arms to pick from follow the core's check of the settings (it rewrites the arm count when it answers).
    new MutationObserver(() => { if (this.predict.on) this.renderPicker(); }).observe($('arm-count'), { childList: true, characterData: true, subtree: true });
  }

  /** The arm id of the heat-map row at (x, y) (CSS pixels in the canvas), or null. @param {number} x @param {number} y */
  heatArmAt(x, y) {
    const hit = this.panel.hooks.heat?.hit;
    if (!hit || x < hit.left || x > hit.right) return null;
    const row = Math.floor((y - hit.top) / hit.rowH);
    if (row < 0 || row >= hit.ids.length) return null;
    this.heatRow = row;
    return hit.ids[row];
  }

  /** An arm was clicked (or Enter on it): its drill-down, focused. @param {number} id */
  choose(id) { this.open(id, true); }

  // ---------------------------------------------------------------- prediction (a lesson step)

  /** @param {boolean} on */
  setPredict(on) {
    this.predict = { pick: on ? this.predict.pick : null, runs: this.panel.runs ?? 0, on, revealed: on ? this.predict.revealed : null };
    if (on) this.renderPicker();
    $('predict-box').hidden = !on;
    this.syncCard();
    this.hook();
  }

  /** One button per arm of the current settings (the core's check lists the grid: step-major, then batch). */
  renderPicker() {
    const arms = this.panel.summary?.arms ?? [];
    const box = $('predict-arms');
    box.replaceChildren(...arms.map((/** @type {any} */ a) => el('button', {
      type: 'button', class: 'predict-arm', 'data-arm': String(a.id), 'aria-pressed': String(a.id === this.predict.pick),
      'aria-label': `Predict arm ${a.id}: h = ${fmtStep(a.step)}, batch ${fmtBatch(batchOf(a.batch))}`,
      text: `#${a.id} · h ${fmtStep(a.step)} · ${fmtBatch(batchOf(a.batch))}`,
    })));
    if (!arms.length) box.append(el('p', { class: 'placeholder', text: 'The arms appear here once the settings are checked.' }));
  }

  /** The student's pick: kept until the next run ends. @param {number} id */
  pick(id) {
    this.predict.pick = id;
    this.predict.runs = this.panel.runs ?? 0;
    for (const b of $('predict-arms').querySelectorAll('button')) b.setAttribute('aria-pressed', String(Number(b.dataset.arm) === id));
    $('predict-status').textContent = `Your pick: arm #${id}. Press Run; the choice is revealed when the run ends.`;
    this.hook();
  }

  /** After a run: the choice, and whether the pick was chosen, pruned in which round and why. */
  reveal() {
    const p = this.predict;
    const report = this.result?.report;
    if (p.pick == null || !report || (this.panel.runs ?? 0) <= p.runs) return;
    const b = report.best;
    const outcome = armOutcome(report, p.pick);
    const chose = b ? `MAMBA chose arm #${b.arm} (h = ${fmtSci(b.step)}, batch ${fmtBatch(b.batch_fraction)}).` : 'No arm could be chosen (every arm diverged).';
    const text = `${chose} ${outcome.kind === 'chosen' ? 'Your pick was right. ' : ''}${outcome.text}`;
    $('predict-status').textContent = text;
    this.predict.revealed = { pick: p.pick, chosen: b?.arm ?? null, fate: outcome.kind, round: outcome.round ?? null, text };
    this.open(p.pick, false);
    this.hook();
  }

  // ---------------------------------------------------------------- the drill-down

  /** A finished run (tune report): rows and cells become focusable; a pending prediction is revealed. @param {any} result */
  show(result) {
    this.result = result?.report?.arms ? result : null;
    for (const e of document.querySelectorAll('#bracket li[data-arm], #arms-table tbody tr[data-arm]')) {
      e.setAttribute('tabindex', '0');
      e.setAttribute('aria-description', 'Enter: this arm’s drill-down');
    }
    if (this.arm != null && this.result) this.open(this.arm, false);
    this.reveal();
  }

  /** A new run starts: the previous run's drill-down goes. */
  clear() {
    this.result = null;
    this.arm = null;
    this.draws.clear();
    this.trace.clear();
    $('drill-body').hidden = true;
    this.syncCard();
    if (this.predict.on && this.predict.pick == null) this.renderPicker();
    this.hook();
  }

  close() { this.arm = null; $('drill-body').hidden = true; this.syncCard(); this.hook(); }

  syncCard() { this.card.hidden = $('drill-body').hidden && $('predict-box').hidden; }

  /** The drill-down of arm `id` of the run shown (`focus`: its heading takes the focus). @param {number} id @param {boolean} focus */
  open(id, focus) {
    const report = this.result?.report;
    const a = report?.arms?.find((/** @type {any} */ x) => x.id === id);
    if (!a) return;
    this.arm = id;
    const best = report.best?.arm;
    const outcome = armOutcome(report, id);
    $('drill-title').textContent = `Arm #${id}${id === best ? ' (chosen)' : ''}`;
    $('drill-sub').textContent = `(h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch_fraction)}${a.leapfrog > 1 ? `, L = ${a.leapfrog}` : ''})`;
    const dl = $('drill-settings');
    dl.replaceChildren();
    const add = (/** @type {string} */ k, /** @type {string} */ v) => dl.append(el('dt', { text: k }), el('dd', { text: v }));
    add('step size h', `${fmtSci(a.step)} (${fmtStep(a.step)})`);
    add('batch', `${fmtBatch(a.batch_fraction)} (${a.batch} points)`);
    add('leapfrog L', String(a.leapfrog));
    add('outcome', outcome.text);
    const tb = $('drill-scores').tBodies[0];
    tb.replaceChildren(...a.scores.map((/** @type {number|null} */ s, /** @type {number} */ r) => el('tr', { 'data-round': String(r) },
      el('td', { text: String(r + 1) }), el('td', { text: String(report.rounds[r]?.arms?.length ?? '–') }), el('td', { class: 'score', text: scoreText(s) }),
      el('td', { text: id === best && r === a.scores.length - 1 ? 'chosen' : a.pruned_round === r ? 'pruned' : r < a.scores.length - 1 ? 'went on' : a.status }))));
    $('drill-draws').setAttribute('aria-label', `Arm ${id}'s draws of θ₁ against θ₂ from round ${(a.draws?.round ?? 0) + 1}${id === best ? '' : ', the chosen arm’s in grey'}`);
    $('drill-trace').setAttribute('aria-label', `Arm ${id}'s θ₁ and θ₂ against the sample index`);
    this.drawCharts(report, a);
    $('drill-body').hidden = false;
    this.syncCard();
    if (focus) $('h-drill').focus();
    this.hook();
  }

  /** The arm's draws over the chosen arm's (grey) and its trace. @param {any} report @param {any} a */
  drawCharts(report, a) {
    const v = a.draws;
    const note = $('drill-note');
    if (!v || !v.index?.length) {
      this.draws.clear('This run kept no draws for this arm (arm_draws = 0, or it diverged at once).');
      this.trace.clear('No trace.');
      legend($('drill-legend'), []); legend($('drill-trace-legend'), []);
      note.textContent = '';
      return;
    }
    const c = v.coords.length;
    const col = (/** @type {any} */ w, /** @type {number} */ k) => Array.from({ length: w.index.length }, (_, i) => w.values[i * w.coords.length + k]);
    const ref = report.arms.find((/** @type {any} */ x) => x.id === report.best?.arm && x.id !== a.id)?.draws;
    const me = `arm #${a.id}, round ${v.round + 1}`;
    if (c >= 2) {
      const items = [];
      if (ref?.index?.length) items.push({ x: col(ref, 0), y: col(ref, 1), color: OTHERS_GREY, label: `chosen arm #${report.best.arm} (reference)`, size: 4 });
      items.push({ x: col(v, 0), y: col(v, 1), color: ARM, label: me, size: 5 });
      this.draws.draw(items, 'θ₁', 'θ₂');
      legend($('drill-legend'), items.map((s) => ({ color: s.color, label: s.label, mark: 'circle', width: 0 })));
    } else {
      this.draws.clear('One coordinate: its draws are the trace beside.');
      legend($('drill-legend'), []);
    }
    const idx = v.index.map(Number);
    const tItems = v.coords.map((/** @type {number} */ j, /** @type {number} */ k) => ({ x: idx, y: col(v, k), color: k ? ARM2 : ARM, label: `θ${j + 1}`, dash: k ? [6, 3] : undefined }));
    this.trace.draw(tItems, 'sample index (after thinning)', 'parameter value', true);
    legend($('drill-trace-legend'), tItems.map((s) => ({ color: s.color, label: s.label, dash: !!s.dash })));
    note.textContent = `${v.index.length} evenly spaced draws of the ${a.samples.toLocaleString('en-US')} samples this arm kept, all from round ${v.round + 1}, the last it ran`
      + `${a.scores.length ? ` (scored ${scoreText(a.scores[a.scores.length - 1])})` : ''}. The report keeps at most ${this.result.config?.arm_draws ?? report.config?.arm_draws ?? 100} per arm.`;
  }

  /** The drill-down's chart canvases (for its own export and the panel's). */
  canvases() { return $('drill-body').hidden ? [] : [this.draws.canvas(), this.trace.canvas()].filter(Boolean); }

  /** What the e2e tests read. */
  hook() {
    const a = this.result?.report?.arms?.find((/** @type {any} */ x) => x.id === this.arm);
    this.panel.hooks.drill = {
      arm: this.arm, open: !$('drill-body').hidden, draws: a?.draws?.index?.length ?? 0,
      scores: [...$('drill-scores').tBodies[0].querySelectorAll('td.score')].map((td) => td.textContent),
      predict: { on: this.predict.on, pick: this.predict.pick, revealed: this.predict.revealed ?? null },
    };
  }
}
