// DOM views of a run: bracket, arms table, chosen arm, posterior summary, tuner comparison.
import { fmtSci, fmtStep, fmtBatch } from '../../shared/format.js';
import { OKABE_ITO } from '../../shared/charts.js';
import { el } from '../../shared/dom.js';
import { speedUp, GRID, GRID_LL } from './compare-summary.js';
// One formatter (toLocaleString builds one per call: 30 ms of a 56-arm run's main thread).
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const fmtInt = (x) => (Number.isFinite(x) ? INT.format(Math.round(x)) : '–');

function statusText(a, best) {
  if (a.id === best) return 'best';
  if (a.status === 'pruned') return a.prunedAt != null ? `pruned after round ${a.prunedAt + 1}` : 'pruned';
  return a.status;
}

/** Colour of an arm (by step size) as on the score chart. */
function armColor(chart, a) { return chart?.colorOf ? chart.colorOf(a) : OKABE_ITO[0]; }

/**
 * The successive-halving bracket: one column per round with the arms that ran, best first. Rebuilt column by
 * column, only the columns whose content changed (a rebuilt 56-arm bracket costs a layout of the page).
 * Returns whether anything was rebuilt.
 */
export function renderBracket(container, model, chart) {
  const key = `${model.tuner}|${model.arms.length}|${model.done}|${model.best}|${model.round}|${model.roundsDone.length}|${model.arms.map((a) => `${a.status}${a.rounds.length}`).join(',')}`;
  if (/** @type {any} */ (container).__key === key && container.childElementCount) return false;
  /** @type {any} */ (container).__key = key;
  const rounds = model.roundsDone.map((r) => r.round);
  const current = model.done ? null : model.round;
  if (current != null && !rounds.includes(current) && model.arms.length) rounds.push(current);
  if (rounds.length === 0) {
    container.replaceChildren(el('p', { class: 'placeholder', text: 'The arms that survive each round appear here.' }));
    return true;
  }
  container.dataset.rounds = String(model.roundsDone.length);
  /** @type {Map<string, Element>} the columns shown now, by round */
  const have = new Map([...container.children].filter((c) => c.classList.contains('round')).map((c) => [/** @type {HTMLElement} */ (c).dataset.round ?? '', c]));
  const cols = rounds.map((r) => {
    const ran = model.arms.filter((a) => a.rounds.some((x) => x.round === r) || (r === current && a.status === 'running'));
    const scoreIn = (a) => a.rounds.find((x) => x.round === r)?.score ?? Infinity;
    ran.sort((a, b) => scoreIn(a) - scoreIn(b));
    const survivors = new Set(model.roundsDone.find((x) => x.round === r)?.survivors ?? []);
    const finished = model.roundsDone.some((x) => x.round === r);
    const items = ran.map((a) => {
      // The chosen arm is marked once: in the last round it ran.
      const lastRound = Math.max(...a.rounds.map((x) => x.round));
      const cls = [a.id === model.best && model.done && r === lastRound ? 'best' : '', finished && !survivors.has(a.id) ? 'pruned' : '', a.status === 'diverged' ? 'diverged' : ''].join(' ').trim();
      return { a, cls, text: `#${a.id} ${fmtStep(a.step)} · ${fmtBatch(a.batch)} · ${fmtSci(scoreIn(a))}` };
    });
    const colKey = items.map((i) => `${i.a.id}:${i.cls}:${i.text}:${armColor(chart, i.a)}`).join('|');
    const old = /** @type {any} */ (have.get(String(r)));
    if (old && old.__key === colKey) return old;
    const col = /** @type {any} */ (el('div', { class: 'round', 'data-round': String(r) },
      el('h3', { text: `Round ${r + 1} · ${ran.length} arm${ran.length === 1 ? '' : 's'}` })));
    col.__key = colKey;
    const ol = el('ol');
    for (const { a, cls, text } of items) {
      const li = el('li', { class: cls, 'data-arm': String(a.id), title: `arm ${a.id}: h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch)}, L = ${a.leapfrog}` }, text);
      li.style.borderLeftColor = armColor(chart, a);
      ol.append(li);
    }
    col.append(ol);
    return col;
  });
  // Unchanged columns stay in place (no new layout objects); changed ones are swapped in.
  if (cols.length !== container.children.length || cols.some((c, i) => container.children[i] !== c)) container.replaceChildren(...cols);
  return true;
}

/**
 * The results table: one row per arm, the best first, then by last score. Rows are kept per arm and only the
 * cells whose text changed are written (a rebuilt 56-row table cost 20-30 ms of layout and paint per redraw).
 * At most `budget` rows are changed (written or moved) per call, so that a frame's layout stays small while
 * both cores run the worker; returns true when the table is up to date, false when rows are left for the next
 * call.
 */
export function renderArmsTable(tbody, model, budget = Infinity) {
  const rows = [...model.arms].sort((a, b) => (a.id === model.best ? -1 : b.id === model.best ? 1 : (a.score ?? Infinity) - (b.score ?? Infinity)));
  /** @type {Map<number, HTMLTableRowElement>} */
  const have = new Map([...tbody.rows].map((tr) => [Number(tr.dataset.arm), tr]));
  let touched = 0;
  for (let i = 0; i < rows.length; i++) {
    if (touched >= budget) return false;
    const a = rows[i];
    const status = statusText(a, model.best);
    const cells = [String(a.id), fmtStep(a.step), model.nData > 1 ? `${fmtBatch(a.batch)} (${fmtInt(a.batchCount)})` : fmtBatch(a.batch),
      String(a.leapfrog ?? '–'), a.score == null ? '–' : Number.isFinite(a.score) ? fmtSci(a.score) : '∞',
      status, fmtInt(a.samples), fmtInt(a.grad_evals), Number.isFinite(a.seconds) ? a.seconds.toFixed(2) : '–'];
    let changed = false;
    let tr = have.get(a.id);
    if (!tr) tr = /** @type {HTMLTableRowElement} */ (el('tr', { 'data-arm': String(a.id) }, ...cells.map(() => el('td'))));
    const cls = a.id === model.best ? 'best' : a.status === 'pruned' ? 'pruned' : '';
    if (tr.className !== cls) { tr.className = cls; changed = true; }
    const ds = a.id === model.best ? 'best' : a.status;
    if (tr.dataset.status !== ds) { tr.dataset.status = ds; changed = true; }
    cells.forEach((text, j) => { const td = tr.cells[j]; if (td.textContent !== text) { td.textContent = text; changed = true; } });
    const sc = `status-${a.status}`;
    if (tr.cells[5].className !== sc) { tr.cells[5].className = sc; changed = true; }
    if (tbody.rows[i] !== tr) { tbody.insertBefore(tr, tbody.rows[i] ?? null); changed = true; }
    if (changed) touched++;
  }
  while (tbody.rows.length > rows.length) tbody.rows[tbody.rows.length - 1].remove();
  return true;
}

/**
 * A batch as a share of the training points and a count, read as a sentence: "10% of 800 training points (80
 * points)"; one point is the smallest batch (a fraction below one point runs one), and the full data is named.
 * @param {number} count data points per gradient @param {number} fraction count / N
 */
export function batchText(count, fraction) {
  const n = fraction > 0 ? Math.round(count / fraction) : NaN;
  const of = Number.isFinite(n) ? ` of ${fmtInt(n)} training points` : '';
  if (fraction >= 1) return `all${of.replace(' of', '')} (full batch)`;
  if (count === 1) return `${fmtBatch(fraction)}${of} (1 point): the smallest batch; a smaller fraction also runs 1 point`;
  return `${fmtBatch(fraction)}${of} (${fmtInt(count)} points)`;
}

/** The chosen arm's summary. */
export function renderBest(container, report) {
  container.replaceChildren();
  const b = report?.best;
  if (!b) { container.append(el('p', { class: 'placeholder', text: 'Run a tuner to choose an arm.' })); return; }
  const dl = el('dl');
  const add = (k, v) => dl.append(el('dt', { text: k }), el('dd', { text: v }));
  // In a comparison, the entry's name says whose choice this is.
  add('tuner', `${report.name ? `${report.name}: ` : ''}${report.tuner} (${report.metric})`);
  add('arm', `#${b.arm}`);
  add('step size h', `${fmtSci(b.step)} (${fmtStep(b.step)})`);
  add('batch', batchText(b.batch, b.batch_fraction));
  add('leapfrog L', String(b.leapfrog ?? '–'));
  // One KSD: a comparison's evaluation KSD (the same kernel and sample count for every tuner) when there is one,
  // else the tuner's own score of the arm; each named with what it is.
  const evalKsd = report.evaluation?.ksd;
  if (evalKsd != null && Number.isFinite(evalKsd)) add('KSD (evaluation)', `${fmtSci(evalKsd)}: the chosen arm's samples, one kernel for every tuner`);
  else add(`${String(report.metric ?? 'score').toUpperCase()}`, `${fmtSci(b.score)}: the tuner's own score of this arm (lower is better)`);
  const c = report.compute;
  add('gradient evaluations', `${fmtInt(c.grad_evals)} sampling + ${fmtInt(c.scoring_grad_evals)} scoring`);
  add('time', `${c.wall_seconds.toFixed(2)} s wall on ${c.threads} thread${c.threads === 1 ? '' : 's'} (scoring ${c.scoring_seconds.toFixed(2)} s)`);
  add('posterior from', `${fmtInt(b.posterior.n)} samples`);
  container.append(dl);
}

/** Rows (or menu options) built per task by `inChunks`: a few ms of DOM work, so no task of the main thread is long. */
export const CHUNK = 200;
/** @type {WeakMap<Element, number>} the current build of each container (a newer one cancels the older) */
const builds = new WeakMap();

/**
 * Fills `container` with `n` children made by `make(i)`, CHUNK per task (the first chunk now, the rest in
 * following macrotasks), so a long list (PMF's 5,000 posterior coordinates) never freezes the
 * page. A later call on the same container (or `inChunks(container, 0)`) cancels an unfinished build.
 * @param {Element} container @param {number} n @param {(i: number) => Node} [make]
 * @param {() => void} [done] called once every child is in
 */
export function inChunks(container, n, make = () => document.createTextNode(''), done) {
  const build = (builds.get(container) ?? 0) + 1;
  builds.set(container, build);
  container.replaceChildren();
  const step = (/** @type {number} */ from) => {
    if (builds.get(container) !== build) return;
    const to = Math.min(n, from + CHUNK);
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) frag.append(make(i));
    container.append(frag);
    if (to < n) setTimeout(() => step(to), 0); else done?.();
  };
  step(0);
}

/** Posterior tables longer than this are virtualised (`renderPosterior`). */
export const VIRTUAL_ROWS = 300;
/** @type {WeakMap<Element, () => void>} the scroll listener of a virtualised table, removed on the next render */
const unbind = new WeakMap();

/**
 * Posterior mean and std per coordinate. A long table (PMF's 5,000 coordinates: laying out
 * 5,000 rows froze the page for 0.4 s) is virtualised: its scroll box (`.table-wrap`, 22rem high) holds spacer
 * rows of the full height and only the rows in view (and 30 either side) as DOM, re-rendered on scroll; the
 * rows a reader scrolls to are the same. `hooks.postRows` (the test hook) is the number of coordinates.
 */
export function renderPosterior(tbody, posterior, names) {
  const mean = posterior?.mean ?? []; const std = posterior?.std ?? [];
  const n = mean.length;
  unbind.get(tbody)?.();
  unbind.delete(tbody);
  const row = (/** @type {number} */ i) => el('tr', { 'data-i': String(i) },
    el('td', { text: names?.[i] ?? `θ${i + 1}` }), el('td', { text: fmtSci(mean[i]) }), el('td', { text: fmtSci(std[i]) }));
  const wrap = /** @type {HTMLElement|null} */ (tbody.closest('.table-wrap'));
  if (n <= VIRTUAL_ROWS || !wrap) { tbody.replaceChildren(...Array.from({ length: n }, (_, i) => row(i))); return; }
  const spacer = () => el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: '3' }));
  const top = spacer(); const bottom = spacer();
  tbody.replaceChildren(top, row(0), bottom);
  // Every row has one line of nowrap text: one height for all, measured on a row (20 px until one is laid
  // out: a card off screen, `content-visibility: auto`, may not be yet; then measured again on scroll).
  const measure = () => tbody.rows[1]?.getBoundingClientRect().height ?? 0;
  let h = measure() || 20;
  let exact = measure() > 0;
  const over = 30;
  let from = -1; let to = -1;
  const draw = () => {
    if (!exact && from >= 0) { const m = measure(); if (m > 0) { h = m; exact = true; from = -1; } }
    const first = Math.max(0, Math.floor(wrap.scrollTop / h) - over);
    const last = Math.min(n, Math.ceil((wrap.scrollTop + (wrap.clientHeight || 400)) / h) + over);
    if (first === from && last === to) return;
    from = first; to = last;
    /** @type {HTMLElement} */ (top.firstChild).style.height = `${first * h}px`;
    /** @type {HTMLElement} */ (bottom.firstChild).style.height = `${(n - last) * h}px`;
    tbody.replaceChildren(top, ...Array.from({ length: last - first }, (_, k) => row(first + k)), bottom);
  };
  draw();
  wrap.addEventListener('scroll', draw, { passive: true });
  unbind.set(tbody, () => wrap.removeEventListener('scroll', draw));
}

/** The definition of the comparison's one KSD column (the evaluation's, src/tune/compare.rs `Evaluation`). */
export const KSD_EVAL = 'KSD: the kernel Stein discrepancy of the chosen arm\'s samples against the posterior, computed after tuning on each tuner\'s evaluation chain with one kernel and the same samples count for every tuner (lower is better; the card at the top defines it).';
/** The definition of the tuners' own score, shown when there is no evaluation KSD. */
const OWN_SCORE = 'tuner\'s score: each tuner\'s own score of its chosen arm (its metric, KSD or FSSD, in brackets), from the samples it drew while tuning (lower is better); no common evaluation KSD was computed.';

/**
 * The evaluation columns of a comparison (src/tune/compare.rs `Evaluation`), shown when some entry has them:
 * the paper's xi against the exact reference (Table 1), the KSD of the chosen samples under the run's one
 * kernel, held-out accuracy / ECE / MCE (Table 3) and test RMSE (Table 2).
 * @type {{key: string, head: string, title: string, get: (ev: any) => number|null|undefined}[]}
 */
export const COMPARE_EVAL_COLUMNS = [
  { key: 'xi', head: 'ξ vs exact', title: 'the paper\'s error ξ = ‖sd̂ − sd‖ / ‖sd‖ against the exact (MALA) reference', get: (ev) => ev?.xi },
  { key: 'ksd', head: 'KSD', title: KSD_EVAL, get: (ev) => ev?.ksd },
  { key: 'accuracy', head: 'accuracy', title: 'held-out accuracy of the chosen samples\' predictive', get: (ev) => ev?.calibration?.accuracy },
  { key: 'ece', head: 'ECE', title: 'held-out expected calibration error (10 bins)', get: (ev) => ev?.calibration?.ece },
  { key: 'mce', head: 'MCE', title: 'held-out maximum calibration error (10 bins)', get: (ev) => ev?.calibration?.mce },
  { key: 'rmse', head: 'test RMSE', title: 'test RMSE of the chosen samples\' posterior-mean prediction', get: (ev) => ev?.test_rmse },
];

/**
 * One row per tuner of a compare run (its chosen arm first); speed-up = grid search (KSD) compute / this tuner's,
 * and the paper's, grid search (log-loss) compute / this tuner's, on the rows of tuners other than grid searches
 * (compare-summary.js `speedUp`).
 * The evaluation columns that some entry's report has are added (and the header of `tbody`'s table rewritten).
 */
export function renderCompare(tbody, entries) {
  const total = (r) => r.compute.grad_evals + r.compute.scoring_grad_evals;
  const grid = entries.find((e) => e.name === GRID && e.report);
  const gridLL = entries.find((e) => e.name === GRID_LL && e.report);
  const reports = entries.map((e) => e.report).filter(Boolean);
  const cols = COMPARE_EVAL_COLUMNS.filter((c) => entries.some((e) => Number.isFinite(c.get(e.report?.evaluation) ?? NaN)));
  // One KSD per tuner: the evaluation's (same kernel and samples for all) when there is one, else the tuner's own
  // score; the table's caption defines it.
  const own = !cols.some((c) => c.key === 'ksd');
  const table = tbody.parentElement;
  const head = table?.querySelector('thead');
  if (head) {
    const names = [['tuner'], ['chosen arm'], ['h'], ['batch'], ['L']].concat(own ? [['tuner\'s score', OWN_SCORE]] : [], cols.map((c) => [c.head, c.title]), [['grad evals'], ['wall (s)'], ['speed-up vs grid (grad evals)', `${GRID}'s gradient evaluations (sampling and scoring) ÷ this tuner's; not given for grid searches`], ['speed-up vs grid (log-loss)', `${GRID_LL}'s gradient evaluations ÷ this tuner's: the paper's speed-up (Sec. 4.1-4.2); below 1× where that grid is cheaper; not given for grid searches`]]);
    head.replaceChildren(el('tr', {}, ...names.map(([text, title]) => el('th', { scope: 'col', text, title: title ?? null }))));
  }
  if (table) {
    const cap = table.querySelector('caption') ?? table.insertBefore(el('caption', { class: 'compare-def' }), table.firstChild);
    cap.textContent = own ? OWN_SCORE : KSD_EVAL;
  }
  tbody.replaceChildren(...entries.map((e) => {
    const r = e.report;
    const b = r?.best ?? {};
    const speed = r ? speedUp(r, reports) ?? NaN : NaN;
    const speedLL = r ? speedUp(r, reports, GRID_LL) ?? NaN : NaN;
    const state = e.error ? e.error : e.running ? 'running' : 'waiting';
    return el('tr', { 'data-tuner': e.name, 'data-arm': r?.best ? String(b.arm) : null },
      el('td', { text: e.name }), el('td', { text: r ? (r.best ? `#${b.arm}` : 'none') : own ? '–' : state }),
      el('td', { text: r ? fmtStep(b.step) : '–' }), el('td', { text: r ? fmtBatch(b.batch_fraction) : '–' }),
      el('td', { text: String(b.leapfrog ?? '–') }),
      ...(own ? [el('td', { 'data-cell': 'score', text: r ? `${fmtSci(b.score)} (${String(r.metric).toUpperCase()})` : state })] : []),
      ...cols.map((c) => { const v = c.get(r?.evaluation); return el('td', { 'data-col': c.key, text: v != null && Number.isFinite(v) ? fmtSci(v) : '–' }); }),
      el('td', { text: r ? fmtInt(total(r)) : '–' }), el('td', { text: r ? r.compute.wall_seconds.toFixed(2) : '–' }),
      el('td', { 'data-cell': 'speed', text: e === grid ? 'reference' : Number.isFinite(speed) ? `${speed.toFixed(1)}×` : '–' }),
      el('td', { 'data-cell': 'speed-ll', text: e === gridLL ? 'reference' : Number.isFinite(speedLL) ? `${speedLL.toFixed(2)}×` : '–' }));
  }));
}

/**
 * What a stopped run reached: the last round with scored arms, its best arm so far and
 * how many of the round's arms were scored, as two texts for the chosen-arm card and the reading. Partial:
 * not the tuner's choice (a complete run goes on halving), so they say so.
 * @param {import('./run.js').RunModel} m
 * @returns {{best: string, reading: string, lastRound: number|null, bestArm: number|null, scored: number}}
 */
export function partialTune(m) {
  const rounds = m.schedule.length;
  const where = `stopped in round ${m.round + 1} of ${rounds}`;
  const scoredRounds = m.arms.flatMap((a) => a.rounds.map((r) => r.round));
  const ran = m.arms.filter((a) => a.iters > 0 || a.grad_evals > 0).length;
  if (!scoredRounds.length) {
    const text = `Partial (${where}): no arm was scored yet; ${ran} of ${m.arms.length} arms ran, and the chart shows each one's compute so far.`;
    return { best: text, reading: `${text} The scores come at the end of round 1: press Run and let it reach them.`, lastRound: null, bestArm: null, scored: 0 };
  }
  const last = Math.max(...scoredRounds);
  const inLast = m.arms.map((a) => ({ a, s: a.rounds.find((r) => r.round === last)?.score })).filter((x) => x.s !== undefined);
  const ranked = inLast.filter((x) => Number.isFinite(x.s)).sort((x, y) => /** @type {number} */ (x.s) - /** @type {number} */ (y.s));
  const planned = m.schedule[last]?.arms ?? inLast.length;
  const head = `Partial (${where}): round ${last + 1} scored ${inLast.length} of its ${planned} arms.`;
  if (!ranked.length) {
    const text = `${head} None got a finite score (diverged, or too few samples).`;
    return { best: text, reading: text, lastRound: last, bestArm: null, scored: inLast.length };
  }
  const { a, s } = ranked[0];
  const arm = `#${a.id} (h ${fmtStep(a.step)}, batch ${fmtBatch(a.batch)}${a.leapfrog != null ? `, L ${a.leapfrog}` : ''}), score ${fmtSci(s)}`;
  const keep = m.schedule[last]?.keep;
  const worst = ranked[ranked.length - 1];
  const best = `${head} Lowest score so far: arm ${arm}. Not the tuner's choice: the run did not finish.`;
  const reading = `${head} Its scores rank the arms reached so far from #${a.id} (${fmtSci(s)}) to #${worst.a.id} (${fmtSci(worst.s)})`
    + `${keep && last + 1 < rounds ? `; successive halving would have kept the best ${keep} for round ${last + 2}` : ''}. `
    + 'The chart, bracket and arms table show every arm as the run left it; Export → Report (JSON) saves every event reached.';
  return { best, reading, lastRound: last, bestArm: a.id, scored: inLast.length };
}
