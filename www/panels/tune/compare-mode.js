// Compare mode of the tune panel: the comparison reads as one comparison. While it
// runs, the progress line gives the time of the WHOLE comparison (reference, every tuner, every evaluation;
// compare-clock.js) and the tuners' table marks who runs; when it ends, the "who won, at what cost" card at the
// top (compare-card.js) gives the verdict, and its buttons choose which tuner's run the chart, bracket, arms
// table, chosen arm and posterior show (the first tuner that chose an arm, until one is picked).
import { $, nextFrame } from '../../shared/dom.js';
import { renderCompare } from './views.js';
import { renderCompareCard } from './compare-card.js';
import { CompareClock } from './compare-clock.js';

export class CompareMode {
  /** @param {any} panel the TunePanel */
  constructor(panel) {
    this.panel = panel;
    /** @type {CompareClock|null} */
    this.clock = null;
    /** @type {ReturnType<typeof setInterval>|undefined} */
    this.ticker = undefined;
    this.t0 = 0;
    this.evalKind = 'fresh-from-map';
    /** @type {{t: number, total: number, tuner: number}[]} every estimate shown (the page's hook `timeEstimates`) */
    this.log = [];
    /** @type {any} the finished comparison's result, config and envelope */
    this.done = null;
    this.shown = -1;
    /** @type {{index: number, done: number, total: number}|null} the last evaluation chain's progress (core event `evaluation`) */
    this.evalProgress = null;
  }

  /** A comparison starts: its tuners wait in the table, the card waits for the verdict, the clock starts. @param {any} config */
  begin(config) {
    const p = this.panel;
    p.compareEntries = (p.summary?.tuners ?? []).map((/** @type {string} */ name) => ({ name, report: null, error: null }));
    // Before any phase is timed, the clock converts the core's cost at the rate estimated before Run.
    this.clock = new CompareClock(p.summary, p.runEstimate?.rate ?? null);
    this.t0 = performance.now();
    this.evalKind = config.evaluation?.kind ?? 'fresh-from-map';
    this.done = null;
    this.shown = -1;
    this.evalProgress = null;
    p.hooks.timeEstimates = this.log = [];
    $('cmp-card').hidden = false;
    $('cmp-verdict').textContent = 'Running: the verdict appears when every tuner has run and its choice has been evaluated.';
    const table = /** @type {HTMLTableElement} */ ($('cmp-summary'));
    table.tHead?.replaceChildren();
    table.tBodies[0].replaceChildren();
    $('cmp-ksd-note').textContent = '';
    armsHeads('each tuner\'s tuning run, as it runs');
    this.renderTable();
    clearInterval(this.ticker);
    // No event comes while an evaluation chain runs: the line's clock moves on its own, once a second.
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  /** A tune run: the card goes. */
  hide() { this.clock = null; this.stop(); $('cmp-card').hidden = true; armsHeads(null); }

  /** The run ended (done, stopped or failed): the clock stops; a comparison that did not finish has no verdict. */
  stop() {
    clearInterval(this.ticker);
    this.ticker = undefined;
    if (this.clock && !this.done) $('cmp-verdict').textContent = 'No verdict: the comparison did not finish (the tuners that ran are in the table at the bottom).';
  }

  tick() {
    const m = this.panel.model;
    if (!m || this.done || m.stoppedAt != null) return;
    m.elapsed = (performance.now() - this.t0) / 1000;
    this.panel.drawStats(m);
  }

  renderTable() { renderCompare($('compare-table').tBodies[0], this.panel.compareEntries.filter(Boolean)); }

  /**
   * The exact reference's own progress, before any tuner runs: MALA iterations done of its total, and the time
   * it still needs at the rate so far.
   * @param {{done: number, total: number, unit: string}} ev @param {number} elapsed seconds since Run
   */
  reference(ev, elapsed) {
    const frac = ev.total > 0 ? Math.min(1, ev.done / ev.total) : 0;
    const left = frac > 0 ? ` · about ${Math.max(0, (elapsed * (1 - frac)) / frac).toFixed(0)} s left of it` : '';
    const whole = this.clock?.total(elapsed);
    const then = whole != null ? `; the whole comparison about ${whole.toFixed(0)} s (the core's cost model at this device's rate)` : '; the tuners\' time is estimated once the first one runs';
    this.panel.progress(frac, `Drawing the exact reference before the tuners run: ${ev.done.toLocaleString('en-US')} of ${ev.total.toLocaleString('en-US')} ${ev.unit} · ${elapsed.toFixed(1)} s${left}${then}.`);
  }

  /** The core's progress of a tuner's fresh evaluation chain (`{type: "evaluation", index, done, total, unit}`). @param {any} ev */
  evaluation(ev) { this.evalProgress = { index: ev.index ?? 0, done: ev.done, total: ev.total }; }

  /** A tuner's event (after the panel's model took it): the table's running marks and the clock. @param {any} ev @param {number} elapsed */
  tuner(ev, elapsed) {
    const p = this.panel;
    let entry = p.compareEntries[ev.index];
    if (!entry) entry = p.compareEntries[ev.index] = { name: ev.tuner, report: null, error: null };
    const running = ev.type !== 'done';
    if (entry.running !== running) { entry.running = running; this.renderTable(); }
    this.clock?.tuner(ev, elapsed, p.model?.arms ?? []);
  }

  /**
   * The progress line's parts for a comparison: who runs (tuner k of n, or its evaluation), the whole
   * comparison's estimated time and the share of it done; null when there is no estimate yet.
   * @param {import('./run.js').RunModel} m @returns {{who: string, total: number|null, frac: number, evaluating: boolean, final: string|null, since: number, on?: string, share?: number|null}}
   */
  line(m) {
    const p = this.panel;
    const n = p.compareEntries.length;
    const k = Math.max(0, p.models.indexOf(m)) + 1;
    const t = m.elapsed;
    const total = this.done ? null : this.clock?.total(t) ?? null;
    if (total != null && (this.log.at(-1)?.t ?? -1) < t) this.log.push({ t, total, tuner: k - 1 });
    if (this.done) {
      // The real time against the first estimate shown (the check of the cost model a reader can see).
      const first = this.log[0];
      const est = first ? `; estimated ${first.total.toFixed(0)} s at ${first.t.toFixed(1)} s` : '';
      return { who: `${m.tuner} shown · `, total: null, frac: 1, evaluating: false, final: `the whole comparison took ${this.done.seconds.toFixed(1)} s${est}`, since: t };
    }
    const since = t - (this.clock?.tuners[k - 1]?.start ?? 0);
    // The evaluation runs on a fresh chain from the MAP unless the config evaluates the tuning chain.
    const on = this.evalKind === 'tuning-chain' ? 'on its tuning chain' : 'a fresh chain from the MAP';
    // The evaluation chain's own share done, from the core's `evaluation` events of this tuner.
    const ep = this.evalProgress?.index === k - 1 ? this.evalProgress : null;
    const share = ep && ep.total > 0 ? Math.min(1, ep.done / ep.total) : null;
    return { who: `${m.tuner} (tuner ${k} of ${n}) · `, total, frac: total ? Math.min(1, t / total) : 0, evaluating: m.done, final: null, since, on, share };
  }

  /**
   * The comparison's result: every tuner's row, the card and its verdict; the first tuner that chose an arm is
   * shown below (in the tasks that follow the table's: www/panels/tune/panel.js showReport).
   * @param {any} result @param {any} config @param {number} seconds @param {any} envelope
   */
  async finish(result, config, seconds, envelope) {
    const p = this.panel;
    this.stop();
    this.done = { result, config, seconds, envelope };
    p.compareEntries = result.entries.map((/** @type {any} */ e) => ({ name: e.name, report: e, error: null }));
    this.renderTable();
    p.hooks.compare = result.entries.map((/** @type {any} */ e) => ({ name: e.name, best: e.best ?? null, error: null }));
    const first = result.entries.findIndex((/** @type {any} */ e) => e.best);
    await nextFrame();
    await this.show(first >= 0 ? first : 0, true);
    p.hooks.compareCard = { verdict: $('cmp-verdict').textContent, shown: this.shown };
    // The verdict card in view, below the run bar (not in embed mode or a lesson: revealResults' rules).
    const card = $('cmp-card');
    if (!card.hidden && !document.documentElement.classList.contains('embed') && !document.body.classList.contains('embed') && !p.section.querySelector('.results #lesson')) p.scrollBelowBar(card);
  }

  /**
   * Shows tuner `i`'s run below the card (chart, bracket, arms table, chosen arm, posterior); resolves once drawn.
   * `split` (the comparison's result): over several tasks (www/panels/tune/panel.js showReport); without it (a
   * click on a tuner's button) at once.
   * @param {number} i @param {boolean} [split] @returns {Promise<void>}
   */
  async show(i, split = false) {
    const d = this.done;
    const p = this.panel;
    if (!d) return;
    const report = d.result.entries[i];
    if (!report) return;
    this.shown = i;
    renderCompareCard(d.result, d.config, i, (j) => this.show(j));
    if (split) await nextFrame();
    if (this.shown !== i) return;
    // The worker sends the samples as a Float64Array (www/worker.js packSamples); a report loaded otherwise may hold an array.
    const samples = report.best?.samples;
    const drawn = p.showReport(report, samples instanceof Float64Array ? samples : Float64Array.from(samples ?? []), report.best?.dim ?? 0, d.config, d.seconds, d.envelope, p.models[i] ?? null, split);
    $('ksd-sub').textContent = `(${report.name}'s tuning run: its own ${String(report.metric ?? '').toUpperCase()} score of each arm against ${p.xLabel().replace(/ per arm$/, '')}, log scales; the card above compares the tuners)`;
    armsHeads(`${report.name}'s tuning run`);
    if (p.hooks.compareCard) p.hooks.compareCard.shown = i;
    await drawn;
  }
}

/**
 * The arms card's title and score column: in a comparison they are one tuner's tuning run and its own scores
 * (not comparable across tuners: the card at the top compares them); `null` restores the tune run's.
 * @param {string|null} run
 */
function armsHeads(run) {
  $('h-table').textContent = run ? `Arms of ${run}` : 'Arms';
  const th = /** @type {HTMLTableElement} */ ($('arms-table')).tHead?.rows[0]?.cells[4];
  if (th) th.textContent = run ? 'tuning score' : 'score';
}
