// The time of a whole comparison (issue 26, item 1: the ETA restarted for each tuner, "47.3 s of about 94.6 s"
// on a 58 s run). A comparison runs in phases: loading the data and the MAP, the exact reference (MALA), then
// for each tuner its tuning rounds and the fresh evaluation chain of its choice. The core's `check` gives the
// cost model of the tuners' phases before the run (`summary.plans`: each tuner's budget unit, arms and rounds;
// `summary.evaluation`: the evaluation chain's budget; src/experiments/compare/experiment.rs `summary`), and
// the run's events time them: the first tuner's `started` (data, MAP and reference took until then: the
// reference shows its own progress meanwhile), each tuner's `progress` (gradient evaluations spent) and `done`,
// and the next tuner's `started` (its evaluation ended). The estimate converts
// the work left into seconds at the rates measured so far: seconds per gradient evaluation of the tuning
// phases (scoring included), and of the evaluation chains once one has run (before that, the tuning rate times
// the threads: an evaluation is one chain, the tuning rounds spread their arms over every thread). Pure (no DOM).

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
    /** @type {{start: number, done: number|null, spent: number, work: number|null, arms: any[]}[]} per tuner */
    this.tuners = [];
    /** @type {number|null} seconds at which the first tuner started (data, MAP and reference before it) */
    this.firstStart = null;
  }

  /**
   * A tuner's event at `t` s; `spent` is the gradient evaluations its arms have run so far.
   * @param {any} ev @param {number} t @param {number} spent
   */
  tuner(ev, t, spent) {
    const i = ev.index ?? 0;
    if (ev.type === 'started') {
      this.firstStart ??= t;
      this.nData = ev.n_data ?? this.nData;
      // The exact work of this tuner's schedule, from its own arms (batch counts known now).
      this.tuners[i] = { start: t, done: null, spent: 0, work: this.work(this.plans[i], ev.schedule, ev.arms), arms: ev.arms };
      return;
    }
    const tu = this.tuners[i];
    if (!tu) return;
    tu.spent = Math.max(tu.spent, spent);
    if (ev.type === 'done') tu.done = t;
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
    return work > 0 ? sec / work : null;
  }

  /** Gradient evaluations of tuner i's evaluation chain (null: none, or a seconds budget). @param {number} i */
  evalWork(i) {
    const [unit, amount] = unitOf(this.evaluation?.budget);
    if (unit === 'grad-evals') return amount;
    if (unit === 'iterations') return amount * this.meanGradPerIter(this.tuners[i]?.arms ?? this.plans[i]?.plan?.arms);
    return null;
  }

  /** Seconds per gradient evaluation of the finished evaluation chains (null before one finished). */
  evalRate() {
    let sec = 0; let work = 0;
    this.tuners.forEach((tu, i) => {
      const next = this.tuners[i + 1];
      const w = this.evalWork(i);
      if (tu?.done != null && next && w) { sec += next.start - tu.done; work += w; }
    });
    return work > 0 ? sec / work : null;
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
    const evalRate = this.evalRate() ?? rate * this.threads;
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
      const ew = !this.evaluation ? 0 : unit === 'seconds' ? amount : (this.evalWork(i) ?? 0) * evalRate;
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
