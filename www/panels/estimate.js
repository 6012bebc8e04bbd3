// The time estimate every panel shows before Run: the core's cost of the current settings
// (`summary.cost` of the core's check, src/experiments/*/experiment.rs `cost`) at this device's rate
// (www/shared/time-estimate.js: a worker calibration, then the rate of earlier runs), refined while a run goes and
// checked against the real time after it. The base class of Panel (www/panels/panel.js), which owns the run.
import { calibrate, estimate, loadRates, refine, rememberRun, fmtAbout, fmtWork } from '../shared/time-estimate.js';

/** @typedef {{client: import('../client.js').ComputeClient, hooks: any, busy: (self: string) => string|null}} PanelContext */

export class EstimatingPanel {
  /** @param {PanelContext} ctx */
  constructor(ctx) {
    this.client = ctx.client;
    this.hooks = ctx.hooks;
    /** @type {import('./runbar.js').RunBar} the panel's run bar (Panel sets it) */
    this.bar = /** @type {any} */ (null);
    /** @type {import('../client.js').RunHandle|null} the run going on */
    this.current = null;
    this.starting = false;
    this.name = '';
    /** @type {string} an ExperimentKind */
    this.kind = 'tune';
    /** @type {Record<string, any>} */
    this.state = {};
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    this.estimateTimer = undefined;
    this.estimateSeq = 0;
    /** @type {Promise<void>} the estimate being computed */
    this.estimating = Promise.resolve();
    /**
     * The time estimate of the current settings (www/shared/time-estimate.js): the core's cost and the seconds it gives on
     * this device (null: no estimate, `why` says why).
     * @type {{kind: string, cost: import('../shared/time-estimate.js').Cost|null, seconds: number|null, source: string|null, rate: number|null, why: string|null}|null}
     */
    this.estimateInfo = null;
    /** @type {{kind: string, cost: import('../shared/time-estimate.js').Cost|null, seconds: number|null, source: string|null, rate: number|null, why: string|null}|null} the estimate the current run is checked against */
    this.runEstimate = null;
  }

  /** The hook entry of this panel (window.__tunelab.panels[name]). */
  get entry() { return this.hooks.panels[this.name]; }

  /**
   * The experiment config of a state (Panel defines it).
   * @abstract @param {any} s @returns {import('../protocol.js').ExperimentConfig}
   */
  experiment(s) { throw new Error(`experiment(${typeof s}): defined by Panel`); }

  /** The core's check of the settings shortly after the last change, for the time estimate. */
  scheduleEstimate() {
    clearTimeout(this.estimateTimer);
    this.estimateTimer = setTimeout(() => { this.estimateTimer = undefined; this.estimating = this.checkEstimate(); }, 150);
  }

  /** Runs a pending estimate now and waits for it (before a run, so the run is checked against its own settings). */
  async flushEstimate() {
    if (this.estimateTimer !== undefined) {
      clearTimeout(this.estimateTimer);
      this.estimateTimer = undefined;
      this.estimating = this.checkEstimate();
    }
    await this.estimating;
  }

  async checkEstimate() {
    const seq = ++this.estimateSeq;
    try {
      const res = await this.client.check(this.experiment(this.state));
      if (seq === this.estimateSeq) await this.showEstimate(res.kind, res.summary?.cost ?? null);
    } catch {
      if (seq === this.estimateSeq) await this.showEstimate(this.kind, null, 'no estimate: these settings would not run.');
    }
  }

  /**
   * A check the panel ran itself (the tune panel checks on every change): its result becomes the estimate shown,
   * superseding any estimate under way. @param {{kind: string, summary?: any}|null} res null: the check failed
   */
  estimateFromCheck(res) {
    this.estimateSeq++;
    this.estimating = res ? this.showEstimate(res.kind, res.summary?.cost ?? null) : this.showEstimate(this.kind, null, 'no estimate: these settings would not run.');
  }

  /**
   * Shows the time of the current settings before Run: the core's cost at this device's rate (calibration or
   * earlier runs). Leaves the line alone while a run goes (it shows the run's own estimate then).
   * @param {string} kind @param {import('../shared/time-estimate.js').Cost|null} cost @param {string|null} [why]
   */
  async showEstimate(kind, cost, why = null) {
    const seq = this.estimateSeq;
    const calibration = cost && !cost.unknown ? await calibrate(/** @type {any} */ (this.client)) : null;
    if (seq !== this.estimateSeq) return;
    const e = estimate(kind, cost, calibration, loadRates());
    const reason = why ?? (cost?.unknown ? `no estimate: ${cost.unknown}.` : e.seconds == null ? 'no estimate yet.' : null);
    this.estimateInfo = { kind, cost, seconds: e.seconds, source: e.source, rate: e.rate, why: reason };
    this.entry.estimate = { kind, seconds: e.seconds, work: cost?.work ?? null, fixed: cost?.seconds ?? 0, source: e.source, rate: e.rate, calibration, phases: cost?.phases ?? [], why: reason };
    if (this.current || this.starting) return;
    const rate = e.source === 'runs' ? 'the rate of your earlier runs' : 'a calibration on this device';
    this.bar.timeLine(e.seconds != null ? `Estimated time: ${fmtAbout(e.seconds)} (the core's cost model, ${fmtWork(cost?.work ?? 0)} multiply-adds, at ${rate}).` : `Estimated time: ${reason}`,
      { seconds: e.seconds != null ? e.seconds.toFixed(3) : null, work: cost?.work ?? null, source: e.source, state: 'before' });
  }

  /**
   * The whole run's estimated seconds at `elapsed` s with `frac` of its work done: the estimate before Run
   * refined by the run's own rate (the tune panel's comparison uses its phase clock).
   * @param {number} elapsed @param {number} frac @returns {number|null}
   */
  runTotal(elapsed, frac) { return refine(this.runEstimate?.seconds ?? null, elapsed, frac); }

  /** The estimate line while a run goes. @param {number} elapsed @param {number} frac */
  showRunEta(elapsed, frac) {
    const total = this.runTotal(elapsed, frac);
    if (total == null) return;
    const before = this.runEstimate?.seconds;
    this.bar.timeLine(`About ${fmtAbout(Math.max(0, total - elapsed)).replace(/^about /, '')} left of ${fmtAbout(total)}${before != null ? ` (estimated ${fmtAbout(before)} before Run)` : ''}.`,
      { seconds: before != null ? before.toFixed(3) : null, total: total.toFixed(3), state: 'running' });
  }

  /**
   * A complete run: its real time beside the estimate shown before Run, and its rate remembered for the next
   * estimates of this kind. @param {number} seconds
   */
  finishEta(seconds) {
    const est = this.runEstimate;
    if (est?.cost) rememberRun(est.kind, est.cost, seconds);
    this.entry.timing = { before: est?.seconds ?? null, source: est?.source ?? null, work: est?.cost?.work ?? null, seconds };
    this.bar.timeLine(`Took ${seconds.toFixed(1)} s${est?.seconds != null ? `; estimated ${fmtAbout(est.seconds)} before Run (${est.source === 'runs' ? 'from earlier runs' : 'from the calibration'})` : ''}.`,
      { seconds: est?.seconds != null ? est.seconds.toFixed(3) : null, took: seconds.toFixed(3), state: 'done' });
  }
}
