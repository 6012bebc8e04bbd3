// The generated reading under the learning-rate panel's result: which method won and by how much, the band
// over minibatch seeds, where the dynamic tuner falls behind, which baseline won and with which rates, all
// computed from the report's numbers (never hard-coded). Pure: no DOM, importable from node (tests/e2e).
import { fmt3 } from '../../shared/format.js';
import { LR_MULTITASK_SEEDS } from './measured.js';


/** @param {number[]} v */
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };
/** @param {number[]} v */
const meanLog10 = (v) => v.reduce((a, x) => a + Math.log10(x), 0) / Math.max(1, v.length);

/**
 * The facts the reading states, computed from an LrReport.
 * @param {any} r
 */
export function lrFacts(r) {
  const ms = r.methods ?? [];
  const dyn = ms.find((m) => m.family === 'dynamic') ?? null;
  const base = ms.filter((m) => m.family !== 'dynamic');
  const byLoss = (a, b) => a.final_loss - b.final_loss;
  const bestBase = [...base].sort(byLoss)[0] ?? null;
  const winner = [...ms].sort(byLoss)[0] ?? null;
  /** @type {any} */
  const f = { dyn, bestBase, winner, dynWon: !!dyn && winner === dyn };
  if (bestBase) {
    const rf = bestBase.repeat_finals?.length ? bestBase.repeat_finals : [bestBase.final_loss];
    f.baseBand = { runs: rf.length, lo: Math.min(...rf), hi: Math.max(...rf), median: median(rf) };
  }
  if (dyn && r.dynamic) {
    const last = r.dynamic.run_traces?.at(-1) ?? [];
    const ends = last.map((t) => t.at(-1)?.loss).filter(Number.isFinite);
    f.dynBand = { runs: ends.length, lo: Math.min(...ends), hi: Math.max(...ends), median: median(ends) };
    let n = 0; let inside = 0;
    for (const d of r.dynamic.decisions ?? []) {
      d.observed.forEach((y, i) => { const b = d.predicted[i]; if (b && Number.isFinite(b.lo)) { n += 1; if (b.lo <= y && y <= b.hi) inside += 1; } });
    }
    f.calibration = { n, inside };
    f.diverged = r.dynamic.diverged_intervals ?? 0;
    f.model = r.dynamic.model ?? '';
  }
  if (dyn && bestBase) {
    f.ratio = f.dynWon ? bestBase.final_loss / dyn.final_loss : dyn.final_loss / bestBase.final_loss;
    // Boundaries (interval ends) where the tuner's trace is above the best baseline's: the last interval from
    // which it stays above is where it falls behind for good.
    const at = (m, step) => m.trace.find((p) => p.step === step)?.loss;
    const steps = (r.dynamic?.boundary_steps ?? []).slice(1);
    let behind = -1;
    for (let k = steps.length - 1; k >= 0; k--) {
      const a = at(dyn, steps[k]); const b = at(bestBase, steps[k]);
      if (a != null && b != null && a > b) behind = k; else break;
    }
    if (behind >= 0) f.behind = { interval: behind + 1, step: steps[behind], dyn: at(dyn, steps[behind]), base: at(bestBase, steps[behind]) };
    f.rates = {
      baseFirst: bestBase.schedule[0], baseLast: bestBase.schedule.at(-1), baseMean: meanLog10(bestBase.schedule),
      dynFirst: dyn.schedule[0], dynLast: dyn.schedule.at(-1), dynMean: meanLog10(dyn.schedule),
    };
  }
  return f;
}

/**
 * The reading: a list of sentences built from {@link lrFacts}.
 * @param {any} r an LrReport
 * @returns {string[]}
 */
export function lrReading(r) {
  // A multi-task run (Sec. 4): the question is the new task's tuners, not the baselines against Algorithm 1.
  if (r.multitask) return mtReading(r.multitask);
  const f = lrFacts(r);
  const out = [];
  const { dyn, bestBase } = f;
  if (!f.winner) return out;
  if (!dyn) {
    out.push(`Winner: ${f.winner.name}, final training loss ${fmt3(f.winner.final_loss)} (the dynamic tuner was off).`);
    return out;
  }
  if (!bestBase) {
    out.push(`Only the dynamic tuner ran: final training loss ${fmt3(dyn.final_loss)}.`);
    return out;
  }
  if (f.dynWon) {
    out.push(`The dynamic tuner won: final training loss ${fmt3(dyn.final_loss)} against ${fmt3(bestBase.final_loss)} for the best baseline (${bestBase.name}), ${fmt3(f.ratio)} times lower.`);
  } else {
    out.push(`The dynamic tuner lost: it ended at ${fmt3(dyn.final_loss)}, ${fmt3(f.ratio)} times the final training loss of the winner, ${bestBase.name} (${fmt3(bestBase.final_loss)}).`);
  }
  const reps = f.baseBand.runs;
  out.push(`Compute: the tuner ran Q = ${r.dynamic.runs} runs in parallel (${dyn.compute_steps} optimiser steps); every baseline schedule got the best of ${reps} runs (${bestBase.compute_steps} steps)${reps === r.dynamic.runs ? ', the same compute per schedule' : ''}.`);
  if (f.baseBand && f.dynBand) {
    out.push(`Band over minibatch seeds: the ${reps} runs of ${bestBase.name} ended between ${fmt3(f.baseBand.lo)} and ${fmt3(f.baseBand.hi)} (median ${fmt3(f.baseBand.median)}); the tuner's ${f.dynBand.runs} runs of the last interval ended between ${fmt3(f.dynBand.lo)} and ${fmt3(f.dynBand.hi)}.`);
  }
  if (!f.dynWon && f.behind) {
    out.push(`Where the tuner loses: from interval ${f.behind.interval} (step ${f.behind.step}) on, its kept run stays above ${bestBase.name}: ${fmt3(f.behind.dyn)} against ${fmt3(f.behind.base)} at that boundary.`);
  }
  if (!f.dynWon && f.rates) {
    const fam = bestBase.family === 'exponential-decay' ? 'an exponential decay' : 'a constant rate';
    out.push(`Why: the winner is ${fam} from ${fmt3(f.rates.baseFirst)} to ${fmt3(f.rates.baseLast)} (mean log10 rate ${fmt3(f.rates.baseMean)}); the tuner went from ${fmt3(f.rates.dynFirst)} to ${fmt3(f.rates.dynLast)} (mean log10 rate ${fmt3(f.rates.dynMean)}). `
      + `Each copy minimises a quantile of the loss one interval ahead, so a rate whose benefit comes only later is not chosen for it, and the next rate stays within one decade of the kept run's (the paper's limit, their Sec. 3.2).`);
  }
  if (f.calibration && f.calibration.n) {
    out.push(`Trace model (${f.model}): ${f.calibration.inside} of ${f.calibration.n} one-step predictions (${fmt3((100 * f.calibration.inside) / f.calibration.n)}%) fell inside their 5–95% band.`);
  }
  if (f.diverged) out.push(`${f.diverged} intervals diverged: they were kept out of the regression and taught the failure classifier.`);
  return out;
}

/** A binary MNIST task as the page names it: [8, 9] → "8 v 9". @param {number[]} t */
export const taskName = (t) => `${t[0]} v ${t[1]}`;

/**
 * The facts of a multi-task report (Picheny et al. Sec. 4; src/experiments/lr_schedule/multitask): on the new
 * task, each tuner's lowest final loss after its runs and the best of every candidate schedule run once; on each
 * previous task, Algorithm 2's α = 0.5 recommendation against the candidates (rank, ratio).
 * @param {any} mt  LrReport.multitask
 */
export function mtFacts(mt) {
  const bestCand = Math.min(...mt.target_grid.filter(Number.isFinite));
  const tuners = [mt.universal, mt.learn_location, mt.cold, mt.random].map((t) => {
    return { name: t.name, runs: t.runs.length, best: t.best_so_far.at(-1) };
  });
  const winner = tuners.reduce((a, t) => (t.best < a.best ? t : a));
  const prev = mt.recommended_final.map((/** @type {number} */ f, /** @type {number} */ t) => {
    const grid = mt.source_grid[t].filter(Number.isFinite);
    const best = Math.min(...grid);
    const runs = mt.source_runs.filter((/** @type {any} */ r) => r.task === t).map((/** @type {any} */ r) => r.final_loss);
    return { task: taskName(mt.tasks[t]), recommended: f, bestCandidate: best, ratio: f / best, rank: 1 + grid.filter((/** @type {number} */ v) => v < f).length, of: grid.length, runs: runs.length, bestRun: runs.length ? Math.min(...runs) : NaN };
  });
  const warm = tuners.slice(0, 2); const cold = tuners[2];
  return { newTask: taskName(mt.tasks.at(-1)), candidates: mt.target_grid.length, bestCand, tuners, winner, prev, warmBeatCold: warm.filter((t) => t.best < cold.best).map((t) => t.name) };
}

/** The native result over seeds the one-seed page run is read beside (generated from the committed reports of
 * scripts/reproduce/lr-schedule/multitask.sh into measured.js). */
const M = LR_MULTITASK_SEEDS;
const SEEDS_TEXT = `over ${M.seeds.length} seeds of the ${M.preset} preset natively, universal beat cold in ${M.universal_beat_cold} and learn-location in ${M.learn_location_beat_cold}: docs/HOAG-LRSCHED.md`;

/**
 * The multi-task reading, generated from the report's numbers (one paragraph per question).
 * @param {any} mt  LrReport.multitask @returns {string[]}
 */
export function mtReading(mt) {
  const f = mtFacts(mt);
  const [uni, learn, cold, rnd] = f.tuners;
  const out = [];
  out.push(`On the new task ${f.newTask}, after ${mt.target_runs} runs each, the lowest final training loss is ${fmt3(f.winner.best)} (${f.winner.name}). `
    + `Warm start, universal: ${fmt3(uni.best)}; warm start, learn location: ${fmt3(learn.best)}; cold Algorithm 2: ${fmt3(cold.best)}; random search: ${fmt3(rnd.best)}. `
    + `The best of all ${f.candidates} candidate schedules, each run once on the new task (${f.candidates} runs), reached ${fmt3(f.bestCand)}.`);
  out.push(f.warmBeatCold.length === 2 ? `Both warm starts (Sec. 4.4) beat the cold tuner in this run (one seed; ${SEEDS_TEXT}).`
    : f.warmBeatCold.length === 1 ? `Of the two warm starts (Sec. 4.4) only ${f.warmBeatCold[0]} beats the cold tuner in this run (one seed; ${SEEDS_TEXT}).`
      : `Neither warm start (Sec. 4.4) beats the cold tuner here (${fmt3(cold.best)}): the paper's warm starts lose on this run. `
        + `Measured reason (docs/HOAG-LRSCHED.md, ${M.seeds.length} seeds natively, where universal beat cold in ${M.universal_beat_cold} and learn-location in ${M.learn_location_beat_cold}): the previous tasks help the first run only; then the warm model, made confident by the previous tasks' traces, places the new task next to one of them, predicts it from that task and proposes runs close to its earlier ones, which end worse than predicted.`);
  const ranks = f.prev.map((p) => p.rank);
  out.push(`Algorithm 2's own output, its α = 0.5 set run once on each previous task, ranks ${ranks.join(', ')} of the ${f.prev[0]?.of ?? 0} candidates there `
    + `(${f.prev.map((p) => `${p.task}: ${fmt3(p.ratio)}× the best candidate`).join('; ')}).`);
  return out;
}
