// The time of a whole comparison (issue 26, item 1: the ETA restarted for each tuner, "47.3 s of about 94.6 s"
// on a 58 s run). A comparison runs in phases: loading the data and the MAP, the exact reference (MALA), then
// for each tuner its tuning rounds and the fresh evaluation chain of its choice. The core's `check` gives the
// cost model of the tuners' phases before the run (`summary.plans`: each tuner's budget unit, arms and rounds;
// `summary.evaluation`: the evaluation chain's budget; src/experiments/compare/experiment.rs `summary`), and
// the run's events time them: the first tuner's `started` (data, MAP and reference took until then: the
// reference shows its own progress meanwhile), each tuner's `progress` (gradient evaluations spent) and `done`,
// and the next tuner's `started` (its evaluation ended). The estimate converts
// the work left into seconds at the rates measured so far: seconds per gradient evaluation of the tuning
// phases (scoring included); an evaluation chain (one chain of the chosen step and batch) at its chosen arm's
// own compute seconds per gradient evaluation, which the progress events report per arm (before a tuner has
// chosen, the mean over the arms run so far), times the ratio of measured to predicted over the evaluations
// already run. Pure (no DOM).

/**
 * Data points one iteration of an arm touches (the core's `SamplerParams::grad_evals_per_iter`,
 * src/sampler/params.rs): the batch (twice for control variates unless it is the full data), times the leapfrog
 * steps for SGHMC. Only needed to convert an iterations budget (App. B's grid points) into gradient evaluations.
 * @param {any} arm an arm of a `started` event (`batch`: its count, with `batch_fraction`) or of the check's arm
 * list (`batch`: the core's spec, a fraction <= 1, a count, or {count: 1}) @param {string} sampler
 * @param {number} n training points
 */
export function gradPerIter(arm, sampler, n) {
  const spec = arm.batch;
  const count = arm.batch_fraction != null ? spec : typeof spec === 'object' ? spec.count : spec <= 1 ? Math.round(spec * n) : spec;
  const leapfrog = arm.leapfrog;
  const b = Math.min(Math.max(1, count), Math.max(1, n));
  const cv = sampler.endsWith('-cv') && b < n ? 2 : 1;
  return b * cv * (sampler.startsWith('sghmc') ? Math.max(1, leapfrog ?? 1) : 1);
}

/** The unit of a budget spec ({grad_evals: x} | {iterations: x} | {seconds: x}) and its amount. @param {any} b */
const unitOf = (b) => (b?.grad_evals != null ? ['grad-evals', b.grad_evals] : b?.iterations != null ? ['iterations', b.iterations] : b?.seconds != null ? ['seconds', b.seconds] : [null, 0]);

export class CompareClock {
  /**
   * @param {any} summary the core's check summary of the comparison (null fields: no estimate for them)
   * @param {any} config the comparison's config (sampler kind) @param {number} threads the worker's threads
   */
  constructor(summary, config, threads = 1) {
    /** @type {{name: string, unit: string|null, plan: any}[]} */
    this.plans = summary?.plans ?? [];
    this.evaluation = summary?.evaluation ?? null;
    this.sampler = String(config?.sampler?.kind ?? 'sgld');
    this.threads = Math.max(1, threads);
    this.nData = 0;
    /** @type {{start: number, done: number|null, spent: number, chainSec: number, bestRate: number|null, work: number|null, arms: any[]}[]} per tuner */
    this.tuners = [];
    /** @type {number|null} seconds at which the first tuner started (data, MAP and reference before it) */
    this.firstStart = null;
  }

  /**
   * A tuner's event at `t` s, with its run model's arms (their gradient evaluations and compute seconds so far,
   * from the progress events).
   * @param {any} ev @param {number} t @param {{id: number, grad_evals: number, seconds: number}[]} arms
   */
  tuner(ev, t, arms) {
    const i = ev.index ?? 0;
    if (ev.type === 'started') {
      this.firstStart ??= t;
      this.nData = ev.n_data ?? this.nData;
      // The exact work of this tuner's schedule, from its own arms (batch counts known now).
      this.tuners[i] = { start: t, done: null, spent: 0, chainSec: 0, bestRate: null, work: this.work(this.plans[i], ev.schedule, ev.arms), arms: ev.arms };
      return;
    }
    const tu = this.tuners[i];
    if (!tu) return;
    tu.spent = Math.max(tu.spent, arms.reduce((s, a) => s + a.grad_evals, 0));
    tu.chainSec = Math.max(tu.chainSec, arms.reduce((s, a) => s + (a.seconds ?? 0), 0));
    if (ev.type === 'done') {
      tu.done = t;
      const b = arms.find((a) => a.id === ev.best);
      tu.bestRate = b && b.grad_evals > 0 && b.seconds > 0 ? b.seconds / b.grad_evals : null;
    }
  }

  /**
   * Gradient evaluations of a tuner's schedule (rounds of `arms` x `budget` in the plan's unit); seconds budgets
   * return null (timed directly, see `tuneSeconds`).
   * @param {any} plan @param {any[]} [schedule] @param {any[]} [arms]
   */
  work(plan, schedule = plan?.plan?.rounds, arms = plan?.plan?.arms) {
    if (!plan || !schedule) return null;
    const units = schedule.reduce((s, r) => s + r.arms * r.budget, 0);
    if (plan.unit === 'grad-evals') return units;
    if (plan.unit === 'iterations') return units * this.meanGradPerIter(arms);
    return null;
  }

  /** Mean data points per iteration over arms (the core's arm list or a started event's). @param {any[]} [arms] */
  meanGradPerIter(arms) {
    const n = this.nData || 1;
    const per = (arms ?? []).map((a) => gradPerIter(a, this.sampler, n));
    return per.length ? per.reduce((s, x) => s + x, 0) / per.length : n;
  }

  /** Seconds per gradient evaluation of the tuning phases so far (null before any gradient evaluation). @param {number} t */
  tuneRate(t) {
    let sec = 0; let work = 0;
    this.tuners.forEach((tu) => { if (tu && tu.spent > 0) { sec += (tu.done ?? t) - tu.start; work += tu.spent; } });
    return work > 0 && sec > 0 ? sec / work : null;
  }

  /** Gradient evaluations of tuner i's evaluation chain (null: none, or a seconds budget). @param {number} i */
  evalWork(i) {
    const [unit, amount] = unitOf(this.evaluation?.budget);
    if (unit === 'grad-evals') return amount;
    if (unit === 'iterations') return amount * this.meanGradPerIter(this.tuners[i]?.arms ?? this.plans[i]?.plan?.arms);
    return null;
  }

  /** Compute seconds per gradient evaluation of one chain, from the arms' own seconds (null before any). */
  chainRate() {
    let sec = 0; let work = 0;
    this.tuners.forEach((tu) => { if (tu) { sec += tu.chainSec; work += tu.spent; } });
    return work > 0 && sec > 0 ? sec / work : null;
  }

  /**
   * Predicted seconds per gradient evaluation of tuner i's evaluation chain: its chosen arm's own rate (the mean
   * of the chosen arms so far, or of every arm, before it chose), times measured / predicted over the finished
   * evaluations (1 before one finished).
   * @param {number} i
   */
  evalRate(i) {
    const chosen = this.tuners.map((tu) => tu?.bestRate).filter((r) => r != null);
    const mean = chosen.length ? chosen.reduce((s, r) => s + r, 0) / chosen.length : this.chainRate();
    const base = (j) => this.tuners[j]?.bestRate ?? mean;
    let measured = 0; let predicted = 0;
    this.tuners.forEach((tu, j) => {
      const next = this.tuners[j + 1];
      const w = this.evalWork(j);
      const r = base(j);
      if (tu?.done != null && next && w && r) { measured += next.start - tu.done; predicted += w * r; }
    });
    const r = base(i);
    return r == null ? null : r * (predicted > 0 ? measured / predicted : 1);
  }

  /**
   * The estimated total seconds of the whole comparison at `t` s, or null while it cannot be estimated (before
   * the first tuner's first chunk: during the data, MAP and reference phases, whose own progress the page shows;
   * or without the core's plans). The time before the first tuner is measured, not estimated.
   * @param {number} t
   */
  total(t) {
    if (this.firstStart == null || this.plans.length === 0) return null;
    const rate = this.tuneRate(t);
    if (rate == null) return null;
    const [unit, amount] = unitOf(this.evaluation?.budget);
    let total = this.firstStart;
    for (let i = 0; i < this.plans.length; i++) {
      const tu = this.tuners[i];
      const next = this.tuners[i + 1];
      const work = tu?.work ?? this.work(this.plans[i]);
      // Tuning: measured when done, else the time so far plus the work left at the measured rate.
      const secs = this.tuneSeconds(i);
      const left = work != null ? Math.max(0, work - (tu?.spent ?? 0)) * rate : (secs ?? 0) - (tu ? t - tu.start : 0);
      const tuning = tu?.done != null ? tu.done - tu.start : (tu ? t - tu.start : 0) + Math.max(0, left);
      // Evaluation: measured when the next tuner started (or the clock is past it), else its work at the rate.
      const ew = !this.evaluation ? 0 : unit === 'seconds' ? amount : (this.evalWork(i) ?? 0) * (this.evalRate(i) ?? rate);
      const evaluation = next ? next.start - /** @type {number} */ (tu?.done ?? next.start) : tu?.done != null ? Math.max(t - tu.done, ew) : ew;
      total += tuning + evaluation;
    }
    return Math.max(total, t);
  }

  /** Seconds of a seconds-budget tuner's schedule (its arms share the threads). @param {number} i */
  tuneSeconds(i) {
    const p = this.plans[i];
    if (p?.unit !== 'seconds') return null;
    return p.plan.rounds.reduce((s, r) => s + r.arms * r.budget, 0) / this.threads;
  }
}
