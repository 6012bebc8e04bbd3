// What became of an arm in a tune report, in words (pure: the drill-down, its lesson reveal and the e2e tests).
import { fmtSci } from '../../shared/format.js';

/** A round's score as the arms table writes it (null in the report = +inf: diverged or too few samples). */
export const scoreText = (/** @type {number|null|undefined} */ s) => (s == null || !Number.isFinite(s) ? '∞' : fmtSci(s));

/**
 * What became of an arm in a report: chosen, pruned after round r (with its score there and the worst score
 * that went on), diverged, or a survivor not chosen. Pure (the reveal and the tests use it).
 * @param {any} report a tune report @param {number} id
 */
export function armOutcome(report, id) {
  const a = report?.arms?.find((x) => x.id === id);
  if (!a) return { kind: 'missing', text: `Arm #${id} is not in this run.` };
  const best = report.best?.arm;
  const last = a.scores.length - 1;
  const inf = (/** @type {number|null} */ s) => (s == null ? Infinity : s);
  if (id === best) return { kind: 'chosen', round: last, text: `Arm #${id} was chosen: the best score in the last round it ran (${scoreText(a.scores[last])} in round ${last + 1}).` };
  if (a.status === 'diverged') return { kind: 'diverged', round: last, text: `Arm #${id} diverged (its chain produced NaN or infinite values${a.diverged_iter != null ? ` at iteration ${a.diverged_iter}` : ''}): its score is ∞ and it was pruned first.` };
  if (a.pruned_round != null) {
    const r = a.pruned_round;
    const went = report.rounds[r + 1]?.arms ?? [];
    const kept = report.arms.filter((/** @type {any} */ x) => went.includes(x.id)).map((/** @type {any} */ x) => inf(x.scores[r]));
    const worst = kept.length ? Math.max(...kept) : null;
    return {
      kind: 'pruned', round: r,
      text: `Arm #${id} was pruned after round ${r + 1}: its score there, ${scoreText(a.scores[r])}, was above ${worst == null ? 'those of the arms that went on' : `the worst of the ${kept.length} arms that went on (${scoreText(worst)})`}; lower is better.`,
    };
  }
  return { kind: 'survivor', round: last, text: `Arm #${id} ran every round but was not chosen: its last score ${scoreText(a.scores[last])} against the chosen arm's ${scoreText(report.best?.score)}.` };
}
