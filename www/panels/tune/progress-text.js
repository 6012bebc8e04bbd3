// The tune panel's progress line (progress that moves from the first second, named phases, a comparison's
// whole-run share and time): pure text from the run's model and the comparison's clock line.
/** @typedef {import('./run.js').RunModel} RunModel */

/** @param {number} x */
const fmtRate = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));
/**
 * What the core does before round 1, named (never a silent 0%): the chains' starting point (the posterior
 * mode when `start` is `map`) and, for a comparison, the exact reference (MALA) drawn before the first tuner.
 * @param {any} config the run's tune or compare config
 */
export function prepText(config) {
  const parts = config.data?.source === 'none' ? ['setting up the target'] : ['loading the data'];
  if ((config.start ?? 'map') === 'map') parts.push('finding the posterior mode (MAP) the chains start from');
  const refs = config.kind === 'compare' ? (config.reference_samples ?? 20000) : 0;
  if (refs > 0) parts.push(`drawing the exact reference (${refs.toLocaleString('en-US')} MALA draws)`);
  return `Preparing: ${parts.join(', then ')}. Round 1 starts after that.`;
}

/**
 * The progress bar's fraction and line for a run at its model's state.
 * @param {RunModel} model the run's folded events
 * @param {any} cmp a comparison's whole-run line (CompareMode.line), or null for one tune run
 * @param {boolean} comparing a comparison is running (with or without the core's plans)
 * @returns {[number, string]}
 */
export function progressLine(model, cmp, comparing) {
  const total = model.expectedTotal();
  const spent = model.spent();
  // Diverged arms stop early, so a finished run can have spent less than the schedule: it is 100% done.
  const frac = model.done ? 1 : total > 0 ? Math.min(1, spent / total) : 0;
  const t = model.elapsed;
  const { iters, grad_evals } = model.totals();
  const expected = cmp ? (cmp.total != null ? ` of about ${cmp.total.toFixed(0)} s for the whole comparison` : '')
    : frac > 0.02 && !model.done ? ` of about ${(t / frac).toFixed(1)} s` : '';
  const who = cmp ? cmp.who : comparing ? `${model.tuner} · ` : '';
  if (!model.done && model.stoppedAt == null && spent === 0) {
    // Started, but no arm has finished its first chunk (the core reports a chunk when every arm of the round ran it).
    return [0, `${who}Round ${model.round + 1} · ${t.toFixed(1)} s · running the first chunk of every arm: progress moves when all of them have run it.`];
  }
  if (model.stoppedAt != null) {
    return [0, `${who}Stopped at round ${model.round + 1} of ${model.schedule.length} · ${model.stoppedAt.toFixed(1)} s · ${Math.round(frac * 100)}% of the schedule done.`];
  }
  if (cmp?.final) return [1, `${who}Done · ${cmp.final}.`];
  if (cmp?.evaluating) {
    const chain = cmp.share != null ? `, ${Math.round(cmp.share * 100)}% of it run` : '';
    return [cmp.frac, `${who}tuning done; evaluating its choice (${cmp.on}${chain}) · ${t.toFixed(1)} s${expected}${cmp.total != null ? ` · ${Math.round(cmp.frac * 100)}% of it` : ''}`];
  }
  // Without the core's plans (an older build) a comparison shows its tuner's own share, named so.
  const whole = cmp?.total != null;
  const shown = whole && !model.done ? cmp.frac : model.done ? 1 : frac;
  const own = cmp ? cmp.since : t;
  return [shown, `${who}${model.done ? 'Done' : `Round ${model.round + 1}`} · ${t.toFixed(1)} s${expected} · ` +
    `${Math.round(shown * 100)}%${whole ? ' of it' : cmp ? ' of this tuner' : ''} · ${fmtRate(iters / Math.max(own, 1e-3))} it/s · ${fmtRate(grad_evals / Math.max(own, 1e-3))} grad evals/s`];
}
