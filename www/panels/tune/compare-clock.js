// The time of a whole comparison, one estimate for all its tuners (not restarted for each tuner). A comparison
// runs in phases: the data and the MAP, the exact reference (MALA), then for each
// tuner its tuning run (chains, kernel, scores) and the evaluation of its choice (a fresh chain from the MAP and
// its scores). The core's cost model gives the work of every phase before the run (`summary.cost.phases`, in
// multiply-adds, named "MAP", "reference" and "<tuner>: tuning" / "...: evaluation" ...; src/experiments/cost.rs
// and compare/experiment.rs `cost`), so nothing here re-implements the core's counting. The run's events time
// the phases: the first tuner's `started` (data, MAP and reference took until then), each tuner's `progress`
// (gradient evaluations spent, the share of its tuning count done) and `done`, and the next tuner's `started`
// (its evaluation ended). The estimate converts the work left into seconds at the rates measured so far
// (tuning: seconds over the work done; evaluation: over the finished evaluations, else the tuning rate), or, before
// any was measured, at the rate the page estimated before Run (www/shared/time-estimate.js). Pure (no DOM).

/** @typedef {import('../../shared/time-estimate.js').Cost} Cost */

const TUNING = ['tuning', 'kernel', 'scoring', 'KSD pairs'];
const EVALUATION = ['evaluation', 'evaluation scores', 'evaluation KSD pairs'];

export class CompareClock {
  /**
   * @param {any} summary the core's check summary of the comparison (`tuners`, `cost`)
   * @param {number|null} [prior] seconds per multiply-add estimated before Run (null: none)
   */
  constructor(summary, prior = null) {
    /** @type {string[]} */
    this.names = summary?.tuners ?? [];
    /** @type {Cost|null} */
    this.cost = summary?.cost && !summary.cost.unknown ? summary.cost : null;
    this.prior = prior;
    const phases = this.cost?.phases ?? [];
    /** @param {string} name @param {string[]} parts @param {'work'|'count'} [what] */
    const sum = (name, parts, what = 'work') => phases.filter((p) => parts.some((q) => p.name === `${name}: ${q}`)).reduce((s, p) => s + p[what], 0);
    /** Work of the phases before the first tuner (MAP, reference). */
    this.preWork = phases.filter((p) => !p.name.includes(': ')).reduce((s, p) => s + p.work, 0);
    this.plans = this.names.map((name) => ({ tuneWork: sum(name, TUNING), tuneCount: sum(name, ['tuning'], 'count'), evalWork: sum(name, EVALUATION), fixed: 0 }));
    // Seconds budgets are time, not work: shared by the tuners whose chains count no work.
    const timed = this.plans.filter((p) => p.tuneCount === 0).length;
    this.plans.forEach((p) => { p.fixed = p.tuneCount === 0 && timed > 0 ? (this.cost?.seconds ?? 0) / timed : 0; });
    /** @type {{start: number, done: number|null, spent: number}[]} per tuner */
    this.tuners = [];
    /** @type {number|null} seconds at which the first tuner started (data, MAP and reference before it) */
    this.firstStart = null;
  }

  /**
   * A tuner's event at `t` s, with its run model's arms (their gradient evaluations so far).
   * @param {any} ev @param {number} t @param {{grad_evals: number}[]} arms
   */
  tuner(ev, t, arms) {
    const i = ev.index ?? 0;
    if (ev.type === 'started') {
      this.firstStart ??= t;
      this.tuners[i] = { start: t, done: null, spent: 0 };
      return;
    }
    const tu = this.tuners[i];
    if (!tu) return;
    tu.spent = Math.max(tu.spent, arms.reduce((s, a) => s + a.grad_evals, 0));
    if (ev.type === 'done') tu.done = t;
  }

  /** Share of tuner i's tuning work done (1 once done). @param {number} i */
  tuneFrac(i) {
    const tu = this.tuners[i];
    const p = this.plans[i];
    if (!tu || !p) return 0;
    if (tu.done != null) return 1;
    return p.tuneCount > 0 ? Math.min(1, tu.spent / p.tuneCount) : 0;
  }

  /** Seconds per multiply-add of the tuning phases so far (null before any work was measured). @param {number} t */
  tuneRate(t) {
    let sec = 0; let work = 0;
    this.tuners.forEach((tu, i) => {
      const w = this.tuneFrac(i) * (this.plans[i]?.tuneWork ?? 0);
      if (tu && w > 0) { sec += (tu.done ?? t) - tu.start - (this.plans[i].fixed ?? 0) * this.tuneFrac(i); work += w; }
    });
    return work > 0 && sec > 0 ? sec / work : null;
  }

  /** Seconds per multiply-add of the finished evaluations (null before one finished). */
  evalRate() {
    let sec = 0; let work = 0;
    this.tuners.forEach((tu, i) => {
      const next = this.tuners[i + 1];
      if (tu?.done != null && next && this.plans[i]?.evalWork > 0) { sec += next.start - tu.done; work += this.plans[i].evalWork; }
    });
    return work > 0 ? sec / work : null;
  }

  /**
   * The estimated total seconds of the whole comparison at `t` s, or null while there is no rate (no estimate
   * before Run and no tuning work measured yet) or no cost model. The time before the first tuner is measured
   * once it started.
   * @param {number} t
   */
  total(t) {
    if (!this.cost || this.plans.length === 0) return null;
    const rate = this.tuneRate(t) ?? this.prior;
    if (rate == null) return null;
    const evalRate = this.evalRate() ?? rate;
    let total = this.firstStart ?? this.preWork * rate;
    this.plans.forEach((p, i) => {
      const tu = this.tuners[i];
      const next = this.tuners[i + 1];
      // Tuning: measured when done, else the time so far plus the work left at the rate.
      const left = (1 - this.tuneFrac(i)) * (p.tuneWork * rate + p.fixed);
      const tuning = tu?.done != null ? tu.done - tu.start : (tu ? t - tu.start : 0) + left;
      // Evaluation: measured when the next tuner started, else its work at the evaluation rate.
      const ew = p.evalWork * evalRate;
      const evaluation = next ? next.start - /** @type {number} */ (tu?.done ?? next.start) : tu?.done != null ? Math.max(t - tu.done, ew) : ew;
      total += tuning + evaluation;
    });
    return Math.max(total, t);
  }
}
