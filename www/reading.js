// A short reading of a tune (or compare) report, generated from its numbers only: who won, by how much, at
// what compute; when a baseline beats MAMBA in a comparison, it says so with the numbers. Pure (no DOM), so
// tests can check it against the report.
import { fmtSci } from './charts.js';
import { fmtStep, fmtBatch } from './views.js';

/** "3.2×" for a ratio (≥ 1). @param {number} r */
const times = (r) => `${r >= 10 ? Math.round(r) : +r.toFixed(1)}×`;
/** An arm as "#15 (h = 1e-6, batch 0.1%)". @param {any} a */
const armText = (a) => `#${a.arm ?? a.id} (h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch_fraction)})`;
/** A count as 50.4M, 812k or 950. @param {number} x */
const fmtCount = (x) => (x >= 1e9 ? `${+(x / 1e9).toPrecision(3)}G` : x >= 1e6 ? `${+(x / 1e6).toPrecision(3)}M` : x >= 1e4 ? `${+(x / 1e3).toPrecision(3)}k` : String(Math.round(x)));
/** Total gradient evaluations of a report (sampling and scoring). @param {any} r */
export const totalGrad = (r) => (r.compute?.grad_evals ?? 0) + (r.compute?.scoring_grad_evals ?? 0);

/**
 * The reading of one tuning run's report: the chosen arm and its score, the runner-up of the last round and
 * the ratio of their scores, arms pruned and diverged, and whether the chosen step sits at an end of the grid.
 * @param {any} report the core's tune report (result of a `tune` run, or one entry of a comparison)
 * @returns {string[]} sentences
 */
export function readTune(report) {
  const out = [];
  const arms = report?.arms ?? [];
  const metric = String(report?.metric ?? 'score').toUpperCase();
  const b = report?.best;
  const diverged = arms.filter((a) => a.status === 'diverged').length;
  if (!b) {
    out.push(`No arm could be chosen: ${diverged} of ${arms.length} arms diverged and the others have no finite score.`);
    return out;
  }
  const rounds = report.rounds ?? [];
  const last = rounds[rounds.length - 1];
  const lastScore = (/** @type {any} */ a) => { const s = a.scores?.[a.scores.length - 1]; return s == null ? Infinity : s; };
  const finalists = arms.filter((a) => last?.arms.includes(a.id)).sort((x, y) => lastScore(x) - lastScore(y));
  out.push(`${String(report.tuner ?? 'The tuner').replace(/^mamba/, 'MAMBA')} chose arm ${armText(b)}: ${metric} ${fmtSci(b.score)}, the lowest of the ${finalists.length} arm${finalists.length === 1 ? '' : 's'} in round ${rounds.length}.`);
  const second = finalists.find((a) => a.id !== b.arm);
  if (second) {
    const s2 = lastScore(second);
    out.push(Number.isFinite(s2) && b.score > 0
      ? `The runner-up, arm ${armText(second)}, scored ${fmtSci(s2)}: ${times(s2 / b.score)} the chosen arm's ${metric}.`
      : `The runner-up, arm ${armText(second)}, has no finite score.`);
  }
  const pruned = arms.filter((a) => a.status === 'pruned').length;
  if (rounds.length > 1) out.push(`Of ${arms.length} arms, ${pruned} were pruned over ${rounds.length} rounds${diverged ? ` and ${diverged} diverged (too large a step)` : ''}.`);
  else if (diverged) out.push(`${diverged} of ${arms.length} arms diverged (too large a step).`);
  // The chosen step at an end of the grid: the best step may lie beyond it.
  const steps = arms.map((a) => a.step);
  const lo = Math.min(...steps); const hi = Math.max(...steps);
  if (hi > lo && b.step === lo) out.push(`The chosen step is the smallest on the grid (${fmtStep(lo)}): a smaller one might score better; extend the range down.`);
  else if (hi > lo && b.step === hi) out.push(`The chosen step is the largest on the grid (${fmtStep(hi)}): a larger one might score better; extend the range up.`);
  return out;
}

/**
 * The reading of a comparison: tuners ranked by the KSD of their chosen arm's samples (the core's evaluation,
 * one estimator for all), the winner's margin and compute, and, when a baseline beats MAMBA-KSD, by how much
 * and at what compute.
 * @param {{entries: any[]}} result
 * @returns {string[]} sentences
 */
export function readCompare(result) {
  const out = [];
  const entries = (result?.entries ?? []).filter((e) => e.best && Number.isFinite(e.evaluation?.ksd));
  const none = (result?.entries ?? []).filter((e) => !e.best).map((e) => e.name);
  if (!entries.length) return ['No tuner chose an arm with a finite KSD.'];
  const ranked = [...entries].sort((x, y) => x.evaluation.ksd - y.evaluation.ksd);
  const [w, next] = ranked;
  out.push(`Judged by the KSD of each chosen arm's samples (one estimator for every tuner), ${w.name} did best: ${fmtSci(w.evaluation.ksd)} with arm ${armText(w.best)}`
    + (next ? `; next ${next.name}, ${fmtSci(next.evaluation.ksd)} (${times(next.evaluation.ksd / w.evaluation.ksd)} higher).` : '.'));
  const mamba = entries.find((e) => e.name === 'MAMBA-KSD');
  if (mamba && mamba !== w) {
    const c = totalGrad(w) / Math.max(1, totalGrad(mamba));
    out.push(`${w.name} beats MAMBA-KSD here: KSD ${fmtSci(w.evaluation.ksd)} against ${fmtSci(mamba.evaluation.ksd)} (${times(mamba.evaluation.ksd / w.evaluation.ksd)} lower), `
      + `${c >= 1 ? `at ${times(c)} MAMBA's compute` : `with ${times(1 / c)} less compute than MAMBA`} (${fmtCount(totalGrad(w))} against ${fmtCount(totalGrad(mamba))} gradient evaluations).`);
  } else if (mamba && next) {
    const c = totalGrad(next) / Math.max(1, totalGrad(mamba));
    out.push(`MAMBA-KSD used ${c >= 1 ? `${times(c)} less compute than` : `${times(1 / c)} the compute of`} ${next.name} (${fmtCount(totalGrad(mamba))} against ${fmtCount(totalGrad(next))} gradient evaluations).`);
  }
  if (none.length) out.push(`${none.join(', ')} chose no arm.`);
  return out;
}
