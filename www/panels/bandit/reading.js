// The reading of a bandit report, generated from its numbers only (no hard-coded outcome): who won on final
// simple regret, by how much, with the bands over repeats; where D-TTTS stands and, when it loses, the measured
// reason in this problem (good arms rare among the arms it tried, or too few pulls per arm for binarised rewards
// to separate the good arms: a budget too short for arm-adding to pay off). Pure (no DOM) so tests can check it.
import { fmtSci } from '../../shared/format.js';

/** @param {number} x @param {number} n */
const pct = (x, n) => (n > 0 ? `${Math.round((100 * x) / n)}%` : '–');
/** @param {any} s a {mean, lo, hi} summary */
const band = (s) => `${fmtSci(s.mean)} [${fmtSci(s.lo)}, ${fmtSci(s.hi)}]`;
/** The report keeps the statistics of at most this many arms per algorithm, the most pulled (MAX_ARM_STATS,
 * src/experiments/bandit/charts.rs). */
export const ARM_STATS_CAP = 200;

/**
 * How the per-arm statistics of repeat 0 are named: "the 40 arms it pulled in repeat 0", or, when the report
 * kept only the most pulled, "the 200 most-pulled arms of repeat 0 (the report keeps at most 200)".
 * @param {number} kept arms in the report's statistics
 */
export const armsKept = (kept) => (kept >= ARM_STATS_CAP
  ? `the ${kept} most-pulled arms of repeat 0 (the report keeps at most ${ARM_STATS_CAP})`
  : `the ${kept} arms it pulled in repeat 0`);

/** @param {any} a an algorithm report */
const lastDistinct = (a) => { const m = a.distinct_arms?.mean ?? []; return m.length ? m[m.length - 1] : NaN; };

/**
 * The numbers the reading is built from (exported for tests).
 * @param {any} report the core's bandit report
 */
export function banditFacts(report) {
  const algos = report?.algorithms ?? [];
  if (!algos.length) return null;
  const rounds = report.rounds?.[report.rounds.length - 1] ?? 0;
  const repeats = report.config?.repeats ?? algos[0].recommended?.length ?? 0;
  const winner = algos.reduce((b, a) => (a.final_simple_regret.mean < b.final_simple_regret.mean ? a : b));
  const dttts = algos.find((a) => a.kind === 'd-ttts' && !/most pulled/.test(a.name)) ?? algos.find((a) => a.kind === 'd-ttts') ?? null;
  /** @type {any} */
  const f = { rounds, repeats, winner, dttts, algos };
  if (!dttts) return f;
  f.dtttsArms = lastDistinct(dttts);
  f.winnerArms = lastDistinct(winner);
  const opt = dttts.recommended?.[0]?.optimum;
  const arms = dttts.charts?.arms ?? [];
  // "as good as the winner's pick": within the winner's mean final regret of the optimum (at least 0.005)
  f.eps = Math.max(0.005, winner.final_simple_regret.mean);
  f.tried = arms.length;
  f.good = Number.isFinite(opt) ? arms.filter((x) => opt - x.true_value <= f.eps).length : NaN;
  // the coin's sd near the optimum: at the optimum, or eps below it when the optimum is 1 (a reservoir's top)
  const v = Math.min(1 - f.eps, Math.max(0, Number.isFinite(opt) ? opt : 0.5));
  f.coinSd = Math.sqrt(v * (1 - v));
  f.pullsNeeded = (2 * f.coinSd / f.eps) ** 2;
  f.perArm = rounds / Math.max(1, f.dtttsArms);
  f.winnerPerArm = rounds / Math.max(1, f.winnerArms);
  f.lost = dttts !== winner && dttts.final_simple_regret.mean > winner.final_simple_regret.mean;
  f.overlap = dttts.final_simple_regret.lo <= winner.final_simple_regret.hi;
  f.rare = f.tried > 0 && f.good / f.tried < 0.1;
  return f;
}

/**
 * Sentences reading a bandit report.
 * @param {any} report
 * @returns {string[]}
 */
export function readBandit(report) {
  const f = banditFacts(report);
  if (!f) return [];
  const out = [];
  const w = f.winner;
  out.push(`${w.name} has the lowest final simple regret after ${f.rounds} pulls: ${band(w.final_simple_regret)} (mean [95% band] over ${f.repeats} repeats).`);
  const others = f.algos.filter((a) => a !== w);
  // The winner is said to win only where its band separates from the runner-up's.
  let separated = true;
  if (others.length) {
    const second = others.reduce((b, a) => (a.final_simple_regret.mean < b.final_simple_regret.mean ? a : b));
    separated = second.final_simple_regret.lo > w.final_simple_regret.hi;
    const sep = separated ? 'the bands do not overlap' : 'the bands overlap, so the order is within the noise of these repeats';
    out.push(`Runner-up: ${second.name} at ${band(second.final_simple_regret)}; ${sep}.`);
  }
  const d = f.dttts;
  if (!d) return out;
  if (!f.lost) {
    out.push(`${separated ? 'D-TTTS wins here' : 'D-TTTS has the lowest mean here, a tie with the runner-up'}. It tried ${Math.round(f.dtttsArms)} distinct arms (${f.perArm.toFixed(1)} pulls each on average)`
      + (f.tried ? `; ${f.good} of ${armsKept(f.tried)} (${pct(f.good, f.tried)}) are within ${fmtSci(f.eps)} of the optimum` : '')
      + (f.rare ? ', so good arms are rare and trying many arms pays off.' : '.'));
    return out;
  }
  out.push(`D-TTTS loses: ${band(d.final_simple_regret)}, ${fmtSci(d.final_simple_regret.mean - w.final_simple_regret.mean)} more regret than ${w.name}`
    + (f.overlap ? ' (the bands overlap).' : ' (the bands do not overlap).'));
  out.push(`It tried ${Math.round(f.dtttsArms)} distinct arms in ${f.rounds} pulls (${f.perArm.toFixed(1)} pulls per arm) while ${w.name} pulled ${Math.round(f.winnerArms)} (${f.winnerPerArm.toFixed(1)} each).`);
  out.push(f.rare
    ? `Good arms are rare here: only ${f.good} of ${armsKept(f.tried).replace('it pulled', 'D-TTTS pulled')} (${pct(f.good, f.tried)}) are within ${fmtSci(f.eps)} of the optimum (the winner's regret, at least 0.005).`
    : `Good arms are not rare here: ${f.good} of ${armsKept(f.tried).replace('it pulled', 'D-TTTS pulled')} (${pct(f.good, f.tried)}) are within ${fmtSci(f.eps)} of the optimum (the winner's regret, at least 0.005).`);
  out.push(`Confirming one is the cost: a binarised reward near the optimum is a coin flip with sd ${fmtSci(f.coinSd)}, so separating arms ${fmtSci(f.eps)} apart takes about ${fmtSci(f.pullsNeeded)} pulls each against ${f.perArm.toFixed(1)}: the budget is too short for arm-adding to pay off.`);
  return out;
}

/** Readable hyper-parameter names of a continuous arm, by problem. @param {any} problem the config's problem */
function pointNames(problem, d) {
  if (problem?.kind === 'tvo-schedule') return Array.from({ length: d }, (_, i) => `λ${i + 1}`);
  if (problem?.kind === 'function') return d === 1 ? ['x'] : Array.from({ length: d }, (_, i) => `x${i + 1}`);
  return Array.from({ length: d }, (_, i) => `x${i + 1}`);
}

/**
 * The recommendation of one repeat as readable text: the configuration when the problem names it, else the
 * arm with its coordinates named and 3 significant digits; then its true value against the optimum.
 * @param {any} r a `recommended[]` entry
 * @param {any} problem the config's problem
 */
export function recText(r, problem) {
  if (!r || r.arm == null) return '–';
  const v = r.value != null ? ` · value ${fmtSci(r.value)} of ${fmtSci(r.optimum)}` : '';
  if (r.label) return `${r.label}${v}`;
  if (Array.isArray(r.arm)) {
    const names = pointNames(problem, r.arm.length);
    return `${r.arm.map((x, i) => `${names[i]} = ${fmtSci(x)}`).join(', ')}${v}`;
  }
  return `arm #${r.arm}${v}`;
}
