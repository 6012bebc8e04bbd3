// RunModel: folds the driver's events (src/tune/report.rs, `Event`) and the final report into what the page
// draws. Pure (no DOM), so tests, embed mode and the compare mode share it.
//
// Events: started {tuner, arms: [{id, step, batch, batch_fraction, leapfrog}], schedule: [{arms, budget, keep}],
// dim, n_data} · round-started {round, arms, budget} · progress {round, chunk, chunks, arms: [{arm, iters,
// grad_evals, seconds, samples, diverged}]} · arm-scored {round, arm, score|null, grad_evals, samples} ·
// pruned {round, arms} · round-finished {round, survivors} · done {best}

function armFrom(a) {
  return {
    id: a.id, step: a.step, batch: a.batch_fraction, batchCount: a.batch, leapfrog: a.leapfrog,
    status: 'waiting', points: [], rounds: [], iters: 0, grad_evals: 0, seconds: 0, samples: 0, score: null, prunedAt: null,
  };
}

export class RunModel {
  /** @param {'grad_evals'|'seconds'|'iterations'} unit budget unit of the config (x axis of the chart) */
  constructor(unit) {
    this.unit = unit;
    this.tuner = '';
    this.arms = [];
    this.byId = new Map();
    this.schedule = [];        // per round: {arms, budget, keep}
    this.dim = 0;
    this.nData = 0;
    this.round = 0;
    this.chunk = 0;
    this.chunks = 1;
    this.roundsDone = [];      // [{round, survivors}]
    this.boundaries = [];      // [{round, x}]: compute at the end of each round, for the chart
    this.best = null;
    this.done = false;
    this.unknown = [];         // event types this page does not know (reported, never silently dropped)
    this.elapsed = 0;
    /** @type {number|null} seconds at which the run was stopped (null: not stopped) */
    this.stoppedAt = null;
  }

  /** Total compute the schedule asks for (budget units, summed over arms). */
  expectedTotal() { return this.schedule.reduce((s, r) => s + r.arms * r.budget, 0); }

  /** Compute spent so far in budget units (summed over arms). */
  spent() {
    const key = this.unit === 'iterations' ? 'iters' : this.unit;
    return this.arms.reduce((s, a) => s + (a[key] ?? 0), 0);
  }

  totals() {
    return this.arms.reduce((t, a) => ({ iters: t.iters + a.iters, grad_evals: t.grad_evals + a.grad_evals }), { iters: 0, grad_evals: 0 });
  }

  /** An arm's compute in the budget unit (the chart's x). */
  computeOf(a) { return this.unit === 'iterations' ? a.iters : this.unit === 'seconds' ? a.seconds : a.grad_evals; }

  arm(id) { return this.byId.get(id); }

  /**
   * Arms of the current round that have run (compute > 0) but are not scored yet: [{arm, x, y}] with x their
   * compute so far and y their last score (null before their first), for the chart's live markers.
   */
  pending() {
    if (this.done) return [];
    return this.arms
      .filter((a) => a.status === 'running' && !a.rounds.some((r) => r.round === this.round) && this.computeOf(a) > 0)
      .map((a) => ({ arm: a.id, x: this.computeOf(a), y: a.rounds.length && Number.isFinite(a.score) ? a.score : null }));
  }

  /** Applies one driver event; returns true when the arms' drawing changed. */
  apply(ev) {
    switch (ev.type) {
      case 'started':
        this.tuner = ev.tuner;
        this.arms = ev.arms.map(armFrom);
        this.byId = new Map(this.arms.map((a) => [a.id, a]));
        this.schedule = ev.schedule.map((r) => ({ arms: r.arms, budget: r.budget, keep: r.keep }));
        this.dim = ev.dim;
        this.nData = ev.n_data;
        return true;
      case 'round-started':
        this.round = ev.round;
        this.chunk = 0;
        for (const id of ev.arms) { const a = this.arm(id); if (a && a.status !== 'diverged') a.status = 'running'; }
        return true;
      case 'progress':
        this.round = ev.round;
        this.chunk = ev.chunk;
        this.chunks = ev.chunks;
        for (const p of ev.arms) {
          const a = this.arm(p.arm);
          if (!a) continue;
          Object.assign(a, { iters: p.iters, grad_evals: p.grad_evals, seconds: p.seconds, samples: p.samples });
          if (p.diverged) a.status = 'diverged';
        }
        return false;
      case 'arm-scored': {
        const a = this.arm(ev.arm);
        if (!a) return false;
        a.grad_evals = Math.max(a.grad_evals, ev.grad_evals);
        a.samples = ev.samples;
        const score = ev.score ?? Infinity; // null = +inf (diverged or too few samples)
        a.points.push([this.computeOf(a), score, ev.round]);
        a.rounds.push({ round: ev.round, score });
        a.score = score;
        return true;
      }
      case 'pruned':
        for (const id of ev.arms) {
          const a = this.arm(id);
          if (!a) continue;
          a.prunedAt = ev.round;
          if (a.status !== 'diverged') a.status = 'pruned';
        }
        return true;
      case 'round-finished': {
        this.roundsDone.push({ round: ev.round, survivors: ev.survivors });
        const xs = this.arms.flatMap((a) => a.points.filter((p) => p[2] === ev.round).map((p) => p[0])).filter((x) => x > 0);
        if (xs.length) this.boundaries.push({ round: ev.round, x: Math.max(...xs) });
        return true;
      }
      case 'done':
        this.best = ev.best ?? null;
        this.done = true;
        return true;
      default:
        this.unknown.push(ev.type);
        return false;
    }
  }

  /**
   * Rebuilds the run's events from its report alone (a report opened from a file, or a comparison's tuner the page
   * did not run): the arms, every round with its arms' scores, the pruned arms and the survivors, then the final
   * report. A report keeps each arm's compute over the whole run, not at the end of each round, so an arm's
   * compute at a round is its total times the share of its budget (the rounds' `budget`s) spent by then: exact
   * at its last round, proportional before.
   * @param {any} report a tune report (src/experiments/tune/report.rs `Report`)
   */
  replay(report) {
    const rounds = report.rounds ?? [];
    const first = report.arms[0];
    const nData = first && first.batch_fraction > 0 ? Math.round(first.batch / first.batch_fraction) : 0;
    this.apply({ type: 'started', tuner: report.tuner, dim: report.best?.dim ?? 0, n_data: nData,
      arms: report.arms.map((/** @type {any} */ a) => ({ id: a.id, step: a.step, batch: a.batch, batch_fraction: a.batch_fraction, leapfrog: a.leapfrog })),
      schedule: rounds.map((/** @type {any} */ r, /** @type {number} */ k) => ({ arms: r.arms.length, budget: r.budget, keep: rounds[k + 1]?.arms.length ?? r.arms.length })) });
    const byId = new Map(report.arms.map((/** @type {any} */ a) => [a.id, a]));
    /** Each arm's budget over all the rounds it ran. */
    const planned = new Map(report.arms.map((/** @type {any} */ a) => [a.id, rounds.reduce((s, /** @type {any} */ r) => s + (r.arms.includes(a.id) ? r.budget : 0), 0)]));
    /** @type {Map<number, number>} budget spent so far, by arm */
    const spent = new Map();
    rounds.forEach((/** @type {any} */ r, /** @type {number} */ k) => {
      this.apply({ type: 'round-started', round: r.round, arms: r.arms, budget: r.budget });
      const share = (/** @type {number} */ id) => { const b = (spent.get(id) ?? 0) + r.budget; spent.set(id, b); return planned.get(id) > 0 ? b / planned.get(id) : 1; };
      const shares = new Map(r.arms.map((/** @type {number} */ id) => [id, share(id)]));
      this.apply({ type: 'progress', round: r.round, chunk: 1, chunks: 1, arms: r.arms.filter((/** @type {number} */ id) => byId.has(id)).map((/** @type {number} */ id) => {
        const a = byId.get(id); const f = shares.get(id);
        return { arm: id, iters: Math.round(a.iters * f), grad_evals: Math.round(a.grad_evals * f), seconds: a.seconds * f, samples: Math.round(a.samples * f), diverged: false };
      }) });
      for (const id of r.arms) {
        const a = byId.get(id);
        if (!a) continue;
        const j = rounds.slice(0, k + 1).filter((/** @type {any} */ q) => q.arms.includes(id)).length - 1;
        const g = Math.round(a.grad_evals * shares.get(id));
        this.apply({ type: 'arm-scored', round: r.round, arm: id, score: a.scores[j] ?? null, grad_evals: g, samples: Math.round(a.samples * shares.get(id)) });
      }
      const next = rounds[k + 1];
      if (next) {
        const gone = r.arms.filter((/** @type {number} */ id) => !next.arms.includes(id));
        if (gone.length) this.apply({ type: 'pruned', round: r.round, arms: gone });
      }
      this.apply({ type: 'round-finished', round: r.round, survivors: next ? next.arms : r.arms });
    });
    this.apply({ type: 'done', best: report.best?.arm ?? null });
    this.applyReport(report);
  }

  /** Takes the final report (the source of truth for statuses, scores and the best arm). */
  applyReport(report) {
    for (const ra of report.arms) {
      let a = this.arm(ra.id);
      if (!a) { a = armFrom(ra); this.arms.push(a); this.byId.set(a.id, a); }
      a.status = ra.status;
      a.prunedAt = ra.pruned_round;
      const scores = ra.scores.map((s) => s ?? Infinity);
      if (scores.length) a.score = scores[scores.length - 1];
      Object.assign(a, { iters: ra.iters, grad_evals: ra.grad_evals, seconds: ra.seconds, samples: ra.samples });
    }
    this.best = report.best?.arm ?? null;
    this.done = true;
  }
}
