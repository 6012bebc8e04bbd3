// The generated reading under the step-size panel's result (GP-UCB choosing an SG-MCMC step size against fixed
// steps), from the report's numbers only. Pure (no DOM): tests check it against the report.
import { fmtSci, fmtStep, fmtTimes as times } from '../../shared/format.js';

/**
 * The reading of the step-size panel's report (GP-UCB against fixed step sizes, compared by the KSD of the
 * samples pooled over the last `tail` fraction of windows): GP-UCB's rank among all runs (not only how many fixed
 * steps it beats), the best run's margin, and, when a fixed step wins, the measured reason: where GP-UCB's steps
 * were in the pooled windows compared with the winning step.
 * @param {any} report the core's step-size report {gp_ucb, fixed}
 * @param {number} [tail] the pooled fraction of windows (the config's `tail`, 0.25 by default)
 * @returns {string[]} sentences
 */
export function readStep(report, tail = 0.25) {
  const out = [];
  const gp = report?.gp_ucb;
  const fixed = report?.fixed ?? [];
  if (!gp) return ['No GP-UCB run in the report.'];
  const ok = (/** @type {any} */ r) => r.tail_ksd != null && Number.isFinite(r.tail_ksd);
  const all = [gp, ...fixed].filter(ok).sort((a, b) => a.tail_ksd - b.tail_ksd);
  const h = (/** @type {number} */ x) => fmtStep(x);
  const stepOf = (/** @type {any} */ r) => r.steps?.[0];
  if (!ok(gp)) {
    out.push(`GP-UCB's chain diverged (${gp.diverged_windows} window${gp.diverged_windows === 1 ? '' : 's'}): it has no pooled KSD${all.length ? `; the best fixed step, h = ${h(stepOf(all[0]))}, scored ${fmtSci(all[0].tail_ksd)}` : ''}.`);
    return out;
  }
  const rank = all.indexOf(gp) + 1;
  const beaten = fixed.filter((f) => !ok(f) || f.tail_ksd > gp.tail_ksd).length;
  const bestFixed = fixed.filter(ok).sort((a, b) => a.tail_ksd - b.tail_ksd)[0];
  if (rank === 1) {
    out.push(`GP-UCB has the lowest pooled KSD of the last windows: ${fmtSci(gp.tail_ksd)}, below every one of the ${fixed.length} fixed step sizes`
      + (bestFixed ? `; the best fixed step, h = ${h(stepOf(bestFixed))}, scored ${fmtSci(bestFixed.tail_ksd)} (${times(bestFixed.tail_ksd / gp.tail_ksd)} GP-UCB's).` : '.'));
    return out;
  }
  out.push(`GP-UCB ranks ${rank} of ${all.length} by the pooled KSD of the last windows: ${fmtSci(gp.tail_ksd)}, against ${fmtSci(bestFixed.tail_ksd)} for the fixed step h = ${h(stepOf(bestFixed))} `
    + `(${times(gp.tail_ksd / bestFixed.tail_ksd)} lower than GP-UCB's). It beats ${beaten} of the ${fixed.length} fixed steps, but not the best one.`);
  // The measured reason: GP-UCB's steps in the pooled windows against the winning step.
  const steps = (gp.steps ?? []).filter((/** @type {number} */ x) => Number.isFinite(x) && x > 0);
  const k = Math.max(1, Math.min(steps.length, Math.ceil(steps.length * tail)));
  const last = steps.slice(steps.length - k);
  if (last.length) {
    const lg = last.map((x) => Math.log10(x)).sort((a, b) => a - b);
    const med = lg[Math.floor(lg.length / 2)];
    const target = Math.log10(stepOf(bestFixed));
    const near = lg.filter((v) => Math.abs(v - target) <= 0.5).length;
    const dist = Math.abs(med - target);
    const range = lg[0] === lg[lg.length - 1] ? `stayed at ${h(10 ** med)}` : `ranged over ${h(10 ** lg[0])} … ${h(10 ** lg[lg.length - 1])} (median ${h(10 ** med)})`;
    out.push(`Why, measured: in the ${k} pooled windows GP-UCB's step ${range}, `
      + `${near} of ${k} within half a decade of h = ${h(stepOf(bestFixed))}`
      + (dist > 0.25 ? `: its steps sit ${+dist.toFixed(1)} decade${+dist.toFixed(1) === 1 ? '' : 's'} ${med < target ? 'below' : 'above'} the winning step, so its pooled samples ${med < target ? 'mix more slowly' : 'carry more discretisation bias'}.`
        : near < k ? ': it was still trying other steps in the windows that are pooled, and those windows\' samples raise its KSD.' : '.'));
  }
  if (gp.diverged_windows) out.push(`GP-UCB's chain diverged in ${gp.diverged_windows} window${gp.diverged_windows === 1 ? '' : 's'}.`);
  return out;
}
