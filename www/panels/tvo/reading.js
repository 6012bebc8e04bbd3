// The generated reading under the TVO panel's result (Nguyen et al. 2020, GP-UCB choosing the TVO's schedule):
// who has the best test log p(x), by how much, the band over seeds (paired: every method of a seed shares the
// initial weights, the minibatches and the test draws), and, when GP-UCB loses, the measured reasons in this
// run: how much it still explores late in training (spread of its beta_1, against random schedules), and how
// much of a window's reward the schedule explains at all (the reward's training trend against the residual
// around it). Built from the report's numbers only. Pure: no DOM, importable from node (tests/e2e).
import { fmt3 } from '../../shared/format.js';

/** Nats, 3 decimals (log p(x) of the digits is about -18: differences are hundredths). @param {number} v */
export const nats = (v) => (Number.isFinite(v) ? v.toFixed(3) : String(v));

/** @param {number[]} v */
const mean = (v) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
/** Sample standard deviation (0 for fewer than two values). @param {number[]} v */
export const sd = (v) => {
  if (v.length < 2) return 0;
  const m = mean(v);
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1));
};

/**
 * Diagnostics of a report (as scripts/reproduce/tvo/table.mjs computes them for docs/tvo.md): the spread of beta_1 over
 * the second half of the windows per method, and the reward's training trend (mean over the methods of a seed
 * at each window, the first window skipped: its reward is the initial jump of every method) against the
 * residual reward - trend (what the schedules changed, plus noise).
 * @param {any} r a TvoReport
 */
export function tvoDiagnostics(r) {
  const runs = (r.runs ?? []).filter((/** @type {any} */ t) => !t.diverged);
  /** @param {string} name */
  const spread = (name) => {
    const b = runs.filter((/** @type {any} */ t) => t.method === name)
      .flatMap((/** @type {any} */ t) => t.windows.slice(Math.floor(t.windows.length / 2)).map((/** @type {any} */ w) => w.schedule[1]));
    return b.length ? sd(b) : null;
  };
  /** @type {number[]} */ const trend = [];
  /** @type {number[]} */ const resid = [];
  for (const rep of [...new Set(runs.map((/** @type {any} */ t) => t.repeat))]) {
    const rs = runs.filter((/** @type {any} */ t) => t.repeat === rep);
    const nw = Math.min(...rs.map((/** @type {any} */ t) => t.windows.length));
    for (let w = 1; w < nw; w++) {
      const m = mean(rs.map((/** @type {any} */ t) => t.windows[w].reward));
      trend.push(m);
      for (const t of rs) resid.push(t.windows[w].reward - m);
    }
  }
  return {
    spreadGp: spread('gp-ucb'),
    spreadRandom: spread('random'),
    trendSd: trend.length > 1 ? sd(trend) : null,
    residSd: resid.length > 1 ? sd(resid) : null,
    windows: Math.max(0, ...runs.map((/** @type {any} */ t) => t.windows.length)),
  };
}

/**
 * The facts the reading states.
 * @param {any} r a TvoReport (the envelope's `result`)
 */
export function tvoFacts(r) {
  const ok = (r.summary ?? []).filter((/** @type {any} */ m) => Number.isFinite(m.log_px_mean));
  const ranked = [...ok].sort((a, b) => b.log_px_mean - a.log_px_mean);
  const winner = ranked[0] ?? null;
  const gp = ok.find((/** @type {any} */ m) => m.method === 'gp-ucb') ?? null;
  const others = ok.filter((/** @type {any} */ m) => m.method !== 'gp-ucb');
  const bestOther = [...others].sort((a, b) => b.log_px_mean - a.log_px_mean)[0] ?? null;
  const seeds = gp ? gp.log_px.length : winner ? winner.log_px.length : 0;
  /** @type {any} */
  const f = { winner, gp, bestOther, ranked, seeds, gpWon: !!gp && winner === gp, d: r.d, iwaeK: r.iwae_k };
  if (gp && bestOther) {
    // paired over seeds: GP-UCB minus the best other method (positive = GP-UCB better)
    const n = Math.min(gp.log_px.length, bestOther.log_px.length);
    const diff = gp.log_px.slice(0, n).map((/** @type {number} */ v, /** @type {number} */ i) => v - bestOther.log_px[i]);
    f.paired = { n, mean: mean(diff), sd: sd(diff), lo: Math.min(...diff), hi: Math.max(...diff), ahead: diff.filter((v) => v > 0).length };
    f.gpRank = ranked.indexOf(gp) + 1;
    f.klLowest = [...ok].sort((a, b) => a.kl_mean - b.kl_mean)[0];
  }
  f.range = ranked.length > 1 ? ranked[0].log_px_mean - ranked[ranked.length - 1].log_px_mean : 0;
  f.diag = tvoDiagnostics(r);
  return f;
}

/**
 * The reading: sentences built from {@link tvoFacts}.
 * @param {any} r a TvoReport
 * @returns {string[]}
 */
export function tvoReading(r) {
  const f = tvoFacts(r);
  const out = [];
  if (!f.winner) return ['Every run diverged: no test log p(x) to compare.'];
  const band = (/** @type {any} */ m) => (m.log_px.length > 1 ? ` ± ${nats(m.log_px_sd)} (sd over ${m.log_px.length} seeds)` : '');
  const seedsNote = f.seeds > 1 ? '' : ' One seed only, so there is no band over seeds: set Seeds (repeats) to 3 or more before trusting a difference this small.';
  if (!f.gp || !f.bestOther) {
    out.push(`Best test log p(x): ${f.winner.method}, ${nats(f.winner.log_px_mean)} nats${band(f.winner)} (IWAE, K = ${f.iwaeK}).${seedsNote}`);
    return out;
  }
  const { gp, bestOther: b, paired: p } = f;
  const pairedText = p.n > 1
    ? ` Paired over the ${p.n} seeds (same initial weights, minibatches and test draws) GP-UCB minus ${b.method} is ${nats(p.mean)} ± ${nats(p.sd)} nats, between ${nats(p.lo)} and ${nats(p.hi)}; GP-UCB is ahead on ${p.ahead} of ${p.n} seeds.`
    : '';
  if (f.gpWon) {
    out.push(`GP-UCB has the best test log p(x): ${nats(gp.log_px_mean)} nats${band(gp)} against ${nats(b.log_px_mean)} for the next best, ${b.method}: ${nats(gp.log_px_mean - b.log_px_mean)} nats higher (IWAE, K = ${f.iwaeK}, d = ${f.d}).${pairedText}${seedsNote}`);
  } else {
    // A gap that rounds to 0.000 nats is a tie at the precision shown, not a loss worth a headline.
    const gap = b.log_px_mean - gp.log_px_mean;
    const tie = nats(gap) === nats(0);
    out.push(`${tie ? 'GP-UCB is not first here, by a tie' : 'GP-UCB loses here'}: test log p(x) ${nats(gp.log_px_mean)} nats${band(gp)}, rank ${f.gpRank} of ${f.ranked.length}; the best is ${b.method} with ${nats(b.log_px_mean)}${band(b)}, ${tie ? 'less than 0.001 nats higher: equal at three decimals' : `${nats(gap)} nats higher`} (IWAE, K = ${f.iwaeK}, d = ${f.d}).${pairedText}${seedsNote}`);
  }
  const kl = f.klLowest === gp
    ? `GP-UCB has the lowest test KL (log p(x) − ELBO): ${fmt3(gp.kl_mean)} nats, against ${fmt3(Math.min(...f.ranked.filter((/** @type {any} */ m) => m !== gp).map((/** @type {any} */ m) => m.kl_mean)))} for the next lowest.`
    : `Lowest test KL (log p(x) − ELBO): ${f.klLowest.method}, ${fmt3(f.klLowest.kl_mean)} nats; GP-UCB ${fmt3(gp.kl_mean)}.`;
  out.push(`All ${f.ranked.length} methods lie within ${nats(f.range)} nats of each other on a log p(x) of about ${nats(f.winner.log_px_mean)}. ${kl}`);
  const g = f.diag;
  if (!f.gpWon) {
    const why = [];
    if (g.spreadGp != null) {
      why.push(`GP-UCB still explores late in training: over the second half of the ${g.windows} windows its β₁ has a standard deviation of ${fmt3(g.spreadGp)}${g.spreadRandom != null ? ` (random schedules: ${fmt3(g.spreadRandom)})` : ''}`);
    }
    if (g.trendSd != null && g.residSd != null) {
      why.push(`a window's reward is mostly the training trend shared by all methods (sd ${fmt3(g.trendSd)} over windows), not the schedule (sd ${fmt3(g.residSd)} of the reward around that trend, noise included), so ${g.windows} windows give the GP little signal about the schedule`);
    }
    if (why.length) out.push(`Measured reasons in this run: ${why.join('; ')}.`);
  }
  return out;
}
