// The LR-schedule charts' line styles: the dynamic tuner black, the best few baselines in colour with a marker and
// a direct label each, every other schedule thin and grey under one legend entry (18 lines and an 18-entry
// legend cannot be read; the table and the bars keep every schedule).
import { LINE_COLOURS, OTHERS_GREY } from '../../shared/charts.js';
import { MARKS } from '../../shared/marks.js';

/** Baselines singled out on the charts (the best constant and the best decay among them). */
export const BEST_K = 4;

/**
 * The baselines to single out, best first: the best constant rate, the best decay, then the lowest final losses
 * up to `k` (methods without a final loss yet are not chosen).
 * @param {string[]} names @param {(number|null)[]} finals final training loss per name (null: not finished)
 * @param {number} [k]
 */
export function bestBaselines(names, finals, k = BEST_K) {
  const ranked = names.map((n, i) => ({ n, v: finals[i] }))
    .filter((x) => !x.n.startsWith('dynamic') && x.v != null && Number.isFinite(x.v))
    .sort((a, b) => /** @type {number} */ (a.v) - /** @type {number} */ (b.v));
  const pick = [ranked.find((x) => x.n.startsWith('constant')), ranked.find((x) => x.n.startsWith('exp'))].filter(Boolean).map((x) => /** @type {any} */ (x).n);
  for (const x of ranked) if (pick.length < k && !pick.includes(x.n)) pick.push(x.n);
  return ranked.map((x) => x.n).filter((n) => pick.includes(n));
}

/**
 * The style of every method: {color, width, dash?, mark?, direct?, group?}; `group: 'others'` marks the grey
 * lines that share one legend entry.
 * @param {string[]} names @param {string[]} best from bestBaselines
 */
export function lineStyles(names, best) {
  /** @type {Map<string, any>} */
  const out = new Map();
  for (const n of names) {
    const r = best.indexOf(n);
    if (n.startsWith('dynamic')) out.set(n, { color: '#000000', width: 3, mark: MARKS[0], direct: 'dynamic' });
    else if (r >= 0) {
      // Decays dashed, constants solid: the family reads from the line as well.
      out.set(n, { color: LINE_COLOURS[r % LINE_COLOURS.length], width: 2, mark: MARKS[(r + 1) % MARKS.length], direct: n, dash: n.startsWith('exp') ? [6, 3] : undefined });
    } else out.set(n, { color: OTHERS_GREY, width: 1, group: 'others' });
  }
  return out;
}
