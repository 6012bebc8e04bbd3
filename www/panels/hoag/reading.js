// The generated reading under the HOAG panel's result: who reached the target relative suboptimality first, at
// what cost, and why (from the report's numbers only). Pure: no DOM.
import { fmtSci } from '../../shared/format.js';

/** Relative suboptimality the reading measures cost to (the README's target, examples/hoag_bench.rs). */
export const TARGET = 1e-3;

/**
 * Per method, what the reading is built from: passes and seconds until the relative suboptimality of the
 * accurate curve first reaches TARGET (Infinity if never), the final relative suboptimality, iterations,
 * passes per iteration and rejected steps.
 * @param {any} report a HoagReport
 */
export function hoagStats(report) {
  const ref = Math.abs(report.reference_optimum);
  return report.methods.map((m) => {
    const hit = m.trace.find((p) => p.suboptimality / ref <= TARGET);
    const last = m.trace[m.trace.length - 1];
    const iters = hit ? hit.iter : (last?.iter ?? 0);
    const passes = hit ? hit.cost : Infinity;
    return {
      name: m.name, hoag: m.name.startsWith('HOAG'), passes, seconds: hit ? hit.seconds : Infinity,
      final: last ? last.suboptimality / ref : NaN, iters,
      perIter: (hit ? hit.cost : (last?.cost ?? 0)) / Math.max(1, iters), rejected: m.rejected_steps ?? 0,
    };
  });
}

/**
 * The generated reading of a finished run: who reached a relative suboptimality of TARGET first (passes over
 * the train data), by how much against the best method of the other family, the band over seeds (one run is
 * one seed: the band comes from the script), and, when HOAG loses, the measured reason.
 * @param {any} report a HoagReport
 */
export function hoagReading(report) {
  const st = hoagStats(report);
  const by = (a, b) => a.passes - b.passes || a.seconds - b.seconds || a.final - b.final;
  const hoag = st.filter((m) => m.hoag).sort(by)[0];
  const other = st.filter((m) => !m.hoag).sort(by)[0];
  const win = [...st].sort(by)[0];
  const parts = [];
  if (!Number.isFinite(win.passes)) {
    const best = [...st].sort((a, b) => a.final - b.final)[0];
    parts.push(`No method reached a relative suboptimality of ${TARGET} within the budget; the lowest final one is ${best.name}'s (${fmtSci(best.final)}).`);
  } else {
    parts.push(`${win.name} reached a relative suboptimality of ${TARGET} first, after ${win.passes} passes over the training data (${win.seconds < 0.01 ? win.seconds.toExponential(1) : win.seconds.toFixed(2)} s).`);
    if (hoag && other) {
      const [w, l] = by(hoag, other) <= 0 ? [hoag, other] : [other, hoag];
      const ratio = Number.isFinite(l.passes) ? `${(l.passes / w.passes).toFixed(1)} times fewer passes than ${l.name} (${l.passes})` : `${l.name} never did (final ${fmtSci(l.final)})`;
      parts.push(`Best of each family: ${w.name} needed ${ratio}.`);
      if (w === other) {
        parts.push(`HOAG lost here. Measured reason: ${hoag.name} took ${hoag.iters} iterations at ${hoag.perIter.toFixed(1)} passes each (inner solve to |∇h| ≤ μ(λ)ε_k and the Hessian system), `
          + `against ${other.iters} evaluations at ${other.perIter.toFixed(1)} passes each for ${other.name}`
          + `${hoag.rejected ? `; ${hoag.rejected} step(s) were rejected by the safeguard` : ''}.`);
      }
    }
  }
  if (report.problem === 'kernel-ridge' && hoag && !(hoag.final <= TARGET)) {
    parts.push('Measured reason on the simulated kernel-ridge preset (examples/hoag_ridge_diagnose.rs, seeds 1–10 under the former protocol (C = 0.25, inner cap 1,000); the counts are in docs/hoag-bench/kernel-ridge-diagnosis.md): the outer loss over (log width, log regularisation) has several local minima; HOAG, a local method, can end in the basin of a worse local minimum, or on a flat plateau at the edge of the box (a kernel so narrow that it is the identity, where the hypergradient is 0).');
  }
  parts.push(`This is one seed (${report.seed}); bands over seeds 1–10 of the presets and real data sets are in docs/paper-hoag.md (cargo run --release --example hoag_bench).`);
  return parts.join(' ');
}

/** Final outer losses closer than this (relative) are a tie: six printed digits cannot tell them apart. */
export const TIE_REL = 1e-6;

/**
 * The methods with the lowest final outer loss, ties included (within TIE_REL of the lowest, relative).
 * @param {any} report a HoagReport @returns {{best: number, names: string[]}}
 */
export function lowestLoss(report) {
  const best = Math.min(...report.methods.map((/** @type {any} */ m) => m.final_loss));
  const tol = TIE_REL * Math.max(Math.abs(best), 1e-12);
  return { best, names: report.methods.filter((/** @type {any} */ m) => m.final_loss - best <= tol).map((/** @type {any} */ m) => m.name) };
}

/**
 * The run bar's headline of a finished run: the lowest final outer loss and who reached it; a tie (within
 * TIE_REL) names every method in it rather than one winner.
 * @param {any} report a HoagReport @param {number} seconds
 */
export function hoagHeadline(report, seconds) {
  const { best, names } = lowestLoss(report);
  const head = `Done in ${seconds.toFixed(1)} s: lowest outer loss ${best.toPrecision(5)}`;
  if (names.length > 1) return `${head}, a tie (within a relative ${TIE_REL}) between ${names.join(', ')}; the reading below compares their cost.`;
  const w = report.methods.find((/** @type {any} */ m) => m.name === names[0]);
  return `${head} (${w?.name}, ${report.hyper_names.join(', ')} = ${w?.final_hyper.map((/** @type {number} */ v) => v.toFixed(2)).join(', ')}).`;
}

/**
 * The note under the landscape, for the number of hyperparameters the run tunes. @param {number} nh
 */
export function landNote(nh) {
  const common = 'Points evaluated by each method, in the method’s colour (lines join the gradient methods’ iterates); ✕ marks the landscape minimum, drawn on top.';
  if (nh === 1) return `${common} One hyperparameter: the grey line is the outer loss over its range, the points are the methods’ evaluations.`;
  if (nh === 2) return `${common} Two hyperparameters: colours rank the outer loss over the grid (dark = low).`;
  return `${common} ${nh} hyperparameters (one per feature): the landscape runs along the diagonal, all set to the same value.`;
}
