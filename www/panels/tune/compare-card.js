// The "who won, at what cost" card at the top of a comparison's results (index.html #cmp-card): the verdict,
// one row per tuner (quality, the evaluation KSD, gradient evaluations, speed-up over grid search, wall time)
// from compare-summary.js, the definition of the one KSD, and a button per tuner that shows its run in the
// chart, bracket, arms table, chosen arm and posterior below.
import { el, $ } from '../../shared/dom.js';
import { fmtTimes } from '../../shared/format.js';
import { compareSummary, fmtBand, GRID } from './compare-summary.js';
import { fmtInt } from './views.js';

/** What the speed-up divides. */
const SPEED = `Speed-up vs grid: ${GRID}'s gradient evaluations (sampling and scoring while tuning) ÷ this tuner's, not given for grid searches`;

/**
 * What the comparison's one KSD is (the evaluation's, src/experiments/compare `score_samples`, docs/papers/mamba.md
 * row on the evaluation): its kernel and its samples, from the report's own config and evaluation record.
 * @param {any} result the comparison's result @param {any} config its config
 */
export function ksdNote(result, config) {
  const kernel = config?.metric?.kernel;
  const k = kernel && kernel !== 'run'
    ? `the “${kernel}” Stein kernel the config names`
    : 'the IMQ kernel (c = 1, β = −1/2) on coordinates divided by the Laplace sds at the MAP, plus a moment term (tunelab\'s run kernel)';
  const run = (result?.entries ?? []).map((/** @type {any} */ e) => e.evaluation?.fresh_run).find(Boolean);
  const unit = (/** @type {any} */ b) => (b?.grad_evals != null ? `${fmtInt(b.grad_evals)} gradient evaluations` : b?.iterations != null ? `${fmtInt(b.iterations)} iterations` : b?.seconds != null ? `${b.seconds} s` : 'its budget');
  const burn = run && run.iters > 0 ? Math.round((100 * run.burn_in_iters) / run.iters) : 0;
  const samples = run
    ? `a fresh evaluation chain of each tuner's chosen step, batch and L from the MAP (${unit(run.budget)}, ${burn > 0 ? `the first ${burn}% of its iterations removed as burn-in` : 'no burn-in removed'}; up to 1,000 samples evenly thinned)`
    : 'the chosen arm\'s tuning chain (up to 1,000 samples evenly thinned)';
  return `KSD (evaluation): the kernel Stein discrepancy of ${samples}, with full-data gradients and ${k}: the same kernel and chain length for every tuner, so it compares across tuners (lower is better). `
    + 'Each tuner\'s own score of its arms while tuning (its KSD or FSSD) is not comparable across tuners: it is in the per-tuner detail below (chart, bracket and arms table), labelled tuning score.';
}

/**
 * Draws the card for the comparison `result` (one seed: the page runs one) and marks the tuner shown below.
 * @param {any} result @param {any} config @param {number} shown index of the entry shown below
 * @param {(i: number) => void} onShow
 * @returns {ReturnType<typeof compareSummary>}
 */
export function renderCompareCard(result, config, shown, onShow) {
  const s = compareSummary([result]);
  $('cmp-verdict').textContent = s.verdict;
  // The one winner rule and the far-off choices, under the verdict.
  let rule = document.getElementById('cmp-rule');
  if (!rule) { rule = el('p', { class: 'verdict-rule', id: 'cmp-rule' }); $('cmp-verdict').after(rule); }
  rule.textContent = [s.rule, ...s.flags].join(' ');
  rule.dataset.flags = String(s.flags.length);
  const q = s.quality;
  const heads = [['tuner'], ...(q ? [[q.head, q.title]] : []), ['KSD (evaluation)', 'defined below the table'],
    ['grad evals', 'gradient evaluations: sampling and scoring while tuning (the evaluation chain is not counted)'],
    ['speed-up vs grid', SPEED], ['wall (s)', 'wall time of the tuning run'], ['below']];
  const table = /** @type {HTMLTableElement} */ ($('cmp-summary'));
  table.tHead?.replaceChildren(el('tr', {}, ...heads.map(([text, title]) => el('th', { scope: 'col', text, title: title ?? null }))));
  table.tBodies[0].replaceChildren(...s.rows.map((r, i) => el('tr', { 'data-tuner': r.name, class: i === shown ? 'shown' : null },
    el('th', { scope: 'row', text: r.name }),
    ...(q ? [el('td', { 'data-col': q.key, text: r.quality ? fmtBand(r.quality) : '–' })] : []),
    el('td', { 'data-col': 'ksd', text: fmtBand(r.ksd) }),
    el('td', { 'data-col': 'grad', text: fmtBand(r.grad, fmtInt) }),
    el('td', { 'data-col': 'speed', text: r.speed ? fmtBand(r.speed, fmtTimes) : '' }),
    el('td', { 'data-col': 'wall', text: fmtBand(r.wall, (x) => x.toFixed(2)) }),
    el('td', {}, el('button', { type: 'button', class: 'small', 'aria-pressed': String(i === shown), disabled: r.chosen ? null : true,
      text: i === shown ? 'shown' : 'show', onclick: () => onShow(i) })))));
  $('cmp-ksd-note').textContent = `${SPEED}. ${ksdNote(result, config)}`;
  return s;
}
