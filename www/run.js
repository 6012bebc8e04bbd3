// RunModel: folds the driver's events (docs/ARCHITECTURE.md) and the final report into what the page draws.
// Pure (no DOM), so tests, embed mode and the compare mode share it.

/** Normalises an arm description from the core ({id, step, batch, leapfrog, ...}). */
function armFrom(a, i) {
  return {
    id: a.id ?? i, step: a.step ?? a.h ?? NaN, batch: a.batch ?? NaN, leapfrog: a.leapfrog ?? a.L ?? 1,
    status: 'running', points: [], rounds: [], iters: 0, grad_evals: 0, seconds: 0, score: null, samples: 0,
  };
}

export class RunModel {
  constructor(unit, thin) {
    this.unit = unit;          // budget unit of the config: 'grad_evals' | 'seconds' | 'iterations'
    this.thin = thin;
    this.arms = [];
    this.byId = new Map();
    this.schedule = [];        // per round: {arms, budget}
    this.round = 0;
    this.roundsDone = [];      // [{round, survivors: [ids], ran: [ids]}]
    this.boundaries = [];      // [{round, x}] compute at the end of each round, for the chart
    this.best = null;
    this.done = false;
    this.unknown = [];         // event types this page does not know (reported, never silently dropped)
    this.elapsed = 0;
  }

  /** Total compute the schedule asks for (budget units), when known. */
  expectedTotal() {
    return this.schedule.reduce((s, r) => s + (r.arms ?? 0) * (r.budget ?? 0), 0);
  }

  /** Compute spent so far, in budget units, summed over arms. */
  spent() {
    const key = this.unit === 'iterations' ? 'iters' : this.unit;
    return this.arms.reduce((s, a) => s + (a[key] ?? 0), 0);
  }

  totals() {
    return this.arms.reduce((t, a) => ({ iters: t.iters + a.iters, grad_evals: t.grad_evals + a.grad_evals }), { iters: 0, grad_evals: 0 });
  }

  arm(id) { return this.byId.get(id); }

  /** Applies one driver event; returns true when the page should redraw the arms. */
  apply(ev) {
    switch (ev.type) {
      case 'started': {
        const list = Array.isArray(ev.arms) ? ev.arms : [];
        this.arms = list.map(armFrom);
        this.byId = new Map(this.arms.map((a) => [a.id, a]));
        this.schedule = (ev.schedule ?? []).map((r) => ({ arms: r.arms ?? r.n_arms ?? r.size, budget: r.budget ?? r.budget_per_arm }));
        return true;
      }
      case 'arm-progress': {
        const a = this.arm(ev.arm);
        if (!a) return false;
        a.iters = ev.iters ?? a.iters;
        a.grad_evals = ev.grad_evals ?? a.grad_evals;
        a.seconds = ev.seconds ?? a.seconds;
        a.samples = Math.floor(a.iters / Math.max(1, this.thin));
        this.round = ev.round ?? this.round;
        return false;
      }
      case 'arm-scored': {
        const a = this.arm(ev.arm);
        if (!a) return false;
        const score = Number.isFinite(ev.score) ? ev.score : Infinity;
        a.points.push([ev.compute, score, ev.round]);
        a.rounds.push({ round: ev.round, score });
        a.score = score;
        if (!Number.isFinite(score)) a.status = 'diverged';
        return true;
      }
      case 'pruned': {
        for (const id of ev.arms ?? []) {
          const a = this.arm(id);
          if (a && a.status !== 'diverged') { a.status = 'pruned'; a.prunedAt = ev.round; }
          else if (a) a.prunedAt = ev.round;
        }
        return true;
      }
      case 'round-finished': {
        const ran = this.arms.filter((a) => a.rounds.some((r) => r.round === ev.round)).map((a) => a.id);
        this.roundsDone.push({ round: ev.round, survivors: ev.survivors ?? [], ran });
        const xs = this.arms.flatMap((a) => a.points.filter((p) => p[2] === ev.round).map((p) => p[0])).filter((x) => x > 0);
        if (xs.length) this.boundaries.push({ round: ev.round, x: Math.max(...xs) });
        return true;
      }
      case 'done':
        this.done = true;
        return true;
      default:
        this.unknown.push(ev.type);
        return false;
    }
  }

  /** Takes the final report: statuses, scores and the best arm come from it (the source of truth). */
  applyReport(report) {
    for (const ra of report.arms ?? []) {
      let a = this.arm(ra.id);
      if (!a) { a = armFrom(ra, this.arms.length); this.arms.push(a); this.byId.set(a.id, a); }
      a.step = ra.step ?? a.step;
      a.batch = ra.batch ?? a.batch;
      a.leapfrog = ra.leapfrog ?? a.leapfrog;
      a.status = typeof ra.status === 'string' ? ra.status : (ra.status?.kind ?? a.status);
      const scores = ra.scores ?? [];
      if (scores.length) a.score = scores[scores.length - 1];
      for (const k of ['iters', 'grad_evals', 'seconds', 'samples']) if (ra[k] != null) a[k] = ra[k];
    }
    this.best = report.best?.arm ?? null;
    this.done = true;
  }
}
