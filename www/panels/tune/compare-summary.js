// The "who won, at what cost" summary of a comparison: one row per tuner with its
// quality (the paper's ξ against the exact reference when there is one, else the held-out test RMSE or
// log-loss), the ONE KSD comparable across tuners (the evaluation's), its compute (gradient evaluations and
// wall time) and its speed-up over grid search, and a one-line verdict. Pure (no DOM): the card (compare-card.js)
// draws it and tests check it against the report. Over several seeds (several reports of the same comparison)
// each value is the median with the range as its band; one seed has no band, and the verdict says so.
import { fmtSci, fmtTimes as times } from '../../shared/format.js';
import { totalGrad, tied, TIE } from './reading.js';

/** The tuner the speed-up divides by: grid search scored by the same KSD (the paper's Table 1 speed-up). */
export const GRID = 'grid (KSD)';
/** Grid searches (either scoring) get no speed-up: a grid against a grid says nothing about a tuner. @param {string} name */
export const isGrid = (name) => /^grid\b/.test(name);

/**
 * Speed-up of a tuner over grid search: grid (KSD)'s gradient evaluations (sampling and scoring) divided by this
 * tuner's; null on grid rows and when the comparison has no grid (KSD).
 * @param {any} entry a comparison entry (a tune report with `name`) @param {any[]} entries all of them
 * @param {string} [gridName] the grid to divide by (GRID by default; GRID_LL for the paper's speed-up)
 */
export function speedUp(entry, entries, gridName = GRID) {
  const grid = entries.find((e) => e?.name === gridName);
  if (!grid || !entry || isGrid(entry.name)) return null;
  return totalGrad(grid) / Math.max(1, totalGrad(entry));
}
/** The paper's baseline (Coullon, South & Nemeth 2023, Sec. 4.1-4.2 measure MAMBA's speed-up against it). */
export const GRID_LL = 'grid (log-loss)';

/**
 * The quality column of a comparison: ξ when some entry has it (an exact reference ran), else the test RMSE
 * (ratings), else the test log-loss; null when no entry has any (a toy target without test data).
 * @param {any[]} entries
 * @returns {{key: string, head: string, title: string, get: (e: any) => number|undefined}|null}
 */
export function qualityOf(entries) {
  const qs = [
    { key: 'xi', head: 'ξ vs exact', title: 'the paper\'s error ξ = ‖sd̂ − sd‖ / ‖sd‖ of the posterior sds against the exact (MALA) reference', get: (/** @type {any} */ e) => e?.evaluation?.xi },
    { key: 'rmse', head: 'test RMSE', title: 'test RMSE of the chosen samples\' posterior-mean prediction', get: (/** @type {any} */ e) => e?.evaluation?.test_rmse },
    { key: 'log_loss', head: 'test log-loss', title: 'held-out log-loss of the chosen samples\' posterior predictive', get: (/** @type {any} */ e) => e?.evaluation?.test_log_loss },
  ];
  return qs.find((q) => entries.some((e) => Number.isFinite(q.get(e) ?? NaN))) ?? null;
}

/** @typedef {{mid: number, lo: number, hi: number, n: number}} Band median and range over seeds */

/** @param {number[]} xs @returns {Band} */
function band(xs) {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return { mid: NaN, lo: NaN, hi: NaN, n: 0 };
  const h = v.length >> 1;
  return { mid: v.length % 2 ? v[h] : (v[h - 1] + v[h]) / 2, lo: v[0], hi: v[v.length - 1], n: v.length };
}

/** A band as text: "0.0347" for one seed, "0.0347 [0.031–0.040]" for several. @param {Band} b @param {(x: number) => string} [f] */
export const fmtBand = (b, f = fmtSci) => (!Number.isFinite(b.mid) ? '–' : b.n > 1 ? `${f(b.mid)} [${f(b.lo)}–${f(b.hi)}]` : f(b.mid));

/**
 * Whether two bands are a tie: over several seeds, when their ranges overlap; on one seed, within TIE of each
 * other (the reading's rule, reading.js `tied`).
 * @param {Band} a @param {Band} b
 */
export const sameBand = (a, b) => (a.n > 1 && b.n > 1 ? a.lo <= b.hi && b.lo <= a.hi : tied(a.mid, b.mid));

/**
 * The summary of one or several reports of the same comparison (one per seed).
 * @param {{entries: any[]}[]} results the comparisons' results (the `result` of compare reports), one per seed
 */
export function compareSummary(results) {
  const seeds = results.length;
  const names = (results[0]?.entries ?? []).map((e) => e.name);
  const all = results.flatMap((r) => r.entries ?? []);
  const quality = qualityOf(all);
  const rows = names.map((name) => {
    const es = results.map((r) => (r.entries ?? []).find((e) => e.name === name)).filter(Boolean);
    const of = (/** @type {(e: any) => any} */ get) => band(es.map((e) => (e.best ? get(e) : NaN) ?? NaN));
    const speeds = results.map((r) => { const e = (r.entries ?? []).find((x) => x.name === name); return speedUp(e, r.entries ?? []) ?? NaN; });
    return {
      name,
      chosen: es.filter((e) => e.best).length,
      quality: quality ? of(quality.get) : null,
      ksd: of((e) => e.evaluation?.ksd),
      grad: band(es.map(totalGrad)),
      wall: band(es.map((e) => e.compute?.wall_seconds ?? NaN)),
      speed: isGrid(name) || !names.includes(GRID) ? null : band(speeds),
    };
  });
  return { seeds, quality, rows, verdict: verdict(rows, quality, seeds), ...winnerRule(rows, quality) };
}

/** A choice whose evaluation KSD is at least this many times the lowest is flagged as far off. */
export const FAR_OFF = 100;

/**
 * The one rule that names the winner, said in words: the lowest quality measure (ξ against the exact reference,
 * else the test RMSE or log-loss: what the comparison is for), the evaluation KSD only when there is no quality
 * measure; the other columns are the cost and the sample's own check. And the extreme choices: a tuner whose
 * choice has an evaluation KSD FAR_OFF times the lowest or more (its sample is far from the posterior, whatever
 * its quality measure says), one sentence each.
 * @param {any[]} rows @param {any} quality
 * @returns {{rule: string, winner: string|null, flags: string[]}}
 */
function winnerRule(rows, quality) {
  const by = quality ? 'quality' : 'ksd';
  const ranked = rows.filter((r) => Number.isFinite(r[by]?.mid ?? NaN)).sort((x, y) => x[by].mid - y[by].mid);
  const measure = quality ? quality.head.replace(' vs exact', ' against the exact reference') : 'evaluation KSD';
  const winner = ranked[0]?.name ?? null;
  const rule = `Winner rule: the lowest ${measure}${quality ? '' : ' (no quality measure in this comparison)'}, median over seeds; a tie when within the noise said above. `
    + (winner ? `Winner: ${winner}.` : 'No tuner has that measure: no winner.');
  const ksds = rows.filter((r) => Number.isFinite(r.ksd?.mid ?? NaN) && r.ksd.mid > 0);
  const low = ksds.length ? Math.min(...ksds.map((r) => r.ksd.mid)) : NaN;
  const flags = ksds.filter((r) => r.ksd.mid >= FAR_OFF * low).map((r) => `Far off: ${r.name}'s choice has an evaluation KSD of ${fmtSci(r.ksd.mid)}, ${times(r.ksd.mid / low)} the lowest (${fmtSci(low)}): its sample is far from the posterior${quality && r.name === winner ? `, although its ${quality.head} is the lowest` : ''}.`);
  return { rule, winner, flags };
}

/**
 * The one-line verdict: per measure (quality, then the KSD) who is lowest and where MAMBA-KSD stands (loses,
 * ties within noise, or is lowest), then MAMBA-KSD's compute against grid (KSD). Ranked as the reading ranks
 * (the same order of entries, a stable sort), so both name the same tuner.
 * @param {any[]} rows @param {any} quality @param {number} seeds
 */
function verdict(rows, quality, seeds) {
  const f = (/** @type {Band} */ b) => fmtBand(b);
  const part = (/** @type {string} */ label, /** @type {(r: any) => Band|null} */ get) => {
    const ranked = rows.filter((r) => Number.isFinite(get(r)?.mid ?? NaN)).sort((x, y) => /** @type {Band} */ (get(x)).mid - /** @type {Band} */ (get(y)).mid);
    if (!ranked.length) return null;
    const w = ranked[0]; const bw = /** @type {Band} */ (get(w));
    const m = ranked.find((r) => r.name === 'MAMBA-KSD');
    if (!m) return `${label}: ${w.name} lowest (${f(bw)})`;
    const bm = /** @type {Band} */ (get(m));
    if (m === w || bm.mid === bw.mid) {
      const next = ranked.find((r) => r !== m);
      if (!next) return `${label}: MAMBA-KSD ${f(bm)}`;
      const bn = /** @type {Band} */ (get(next));
      return `${label}: MAMBA-KSD lowest (${f(bm)})${sameBand(bm, bn) ? `, a tie with ${next.name} (${f(bn)})` : `, next ${next.name} ${times(bn.mid / bm.mid)} higher`}`;
    }
    return `${label}: ${w.name} lowest (${f(bw)}), MAMBA-KSD ${f(bm)}: ${sameBand(bw, bm) ? 'a tie' : `MAMBA-KSD loses (${times(bm.mid / bw.mid)} higher)`}`;
  };
  const parts = [quality ? part(quality.head.replace(' vs exact', ''), (r) => r.quality) : null, part('KSD', (r) => r.ksd)].filter(Boolean);
  const m = rows.find((r) => r.name === 'MAMBA-KSD');
  if (m?.speed && Number.isFinite(m.speed.mid)) {
    const s = m.speed.mid;
    const ratio = tied(s, 1) ? `about as many gradient evaluations as ${GRID}` : `${s >= 1 ? `${times(s)} fewer` : `${times(1 / s)} more`} gradient evaluations than ${GRID}`;
    parts.push(`compute: MAMBA-KSD used ${ratio}${m.speed.n > 1 ? ` (median over seeds, range ${times(m.speed.lo)}–${times(m.speed.hi)})` : ''}`);
  }
  const head = seeds > 1 ? `${seeds} seeds (median [range]; overlapping ranges are a tie)` : `One seed (no band: differences within ${TIE * 100}% are called a tie)`;
  return parts.length ? `${head}. ${parts.join('; ')}.` : `${head}: no tuner chose an arm with a finite KSD.`;
}
