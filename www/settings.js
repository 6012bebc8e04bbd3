// The settings form <-> page state. No knowledge of runs; reusable by embed mode (which hides fieldsets).
import { DEFAULTS, normalise, armCount, mambaPlan, logSteps, parseNumberList, usesLeapfrog } from './state.js';

/** Writes a state into the form controls (named after the state keys). */
export function writeForm(form, state) {
  for (const key of Object.keys(DEFAULTS)) {
    const el = form.elements.namedItem(key);
    if (!el) continue;
    if (el.type === 'checkbox') el.checked = !!state[key];
    else if (el.tagName === 'SELECT' && key === 'label') {
      if (![...el.options].some((o) => o.value === state.label)) {
        el.append(new Option(state.label, state.label));
      }
      el.value = state.label;
    } else el.value = String(state[key]);
  }
  updateVisibility(form, state);
}

/** Reads the form into a state; invalid fields keep their previous value and are marked aria-invalid. */
export function readForm(form, prev) {
  const s = { ...prev };
  const bad = [];
  for (const key of Object.keys(DEFAULTS)) {
    const el = form.elements.namedItem(key);
    if (!el) continue;
    let ok = true;
    if (el.type === 'checkbox') s[key] = el.checked;
    else if (el.type === 'number') {
      const v = Number(el.value);
      ok = el.value !== '' && Number.isFinite(v) && (el.min === '' || v >= Number(el.min)) && (el.max === '' || v <= Number(el.max));
      if (ok && el.step === '1' && !Number.isInteger(v)) ok = false;
      if (ok) s[key] = v;
    } else if (key === 'batch' || key === 'L') {
      ok = parseNumberList(el.value) !== null;
      if (ok) s[key] = el.value.trim();
    } else s[key] = el.value;
    el.setAttribute('aria-invalid', ok ? 'false' : 'true');
    if (!ok) bad.push(key);
  }
  return { state: normalise(s), bad };
}

/** Shows the controls that apply to the current data source, sampler and tuner. */
export function updateVisibility(form, state) {
  for (const el of form.querySelectorAll('[data-show]')) el.hidden = !el.dataset.show.split(' ').includes(state.data);
  for (const el of form.querySelectorAll('[data-show-sampler]')) el.hidden = !el.dataset.showSampler.split(' ').includes(state.sampler);
  for (const el of form.querySelectorAll('[data-show-model]')) el.hidden = !el.dataset.showModel.split(' ').includes(state.model);
  for (const el of form.querySelectorAll('[data-show-tuner]')) el.hidden = state.compare ? false : !el.dataset.showTuner.split(' ').includes(state.tuner);
}

/** A sentence describing the arms and, for MAMBA, the rounds (shown before a run). */
export function describeArms(state) {
  const m = armCount(state);
  const steps = logSteps(state).length;
  const batches = parseNumberList(state.batch)?.length ?? 0;
  const ls = usesLeapfrog(state.sampler) ? parseNumberList(state.L)?.length ?? 0 : 1;
  const parts = `${steps} step sizes × ${batches} batch sizes` + (usesLeapfrog(state.sampler) ? ` × ${ls} L` : '');
  if (m === 0) return { m, text: 'No arms: check the step range and batch sizes.' };
  let text = `${m} arm${m === 1 ? '' : 's'} (${parts}).`;
  if (state.compare) text += ' Compare runs MAMBA-KSD, MAMBA-FSSD, grid search (log-loss, KSD) and the heuristic.';
  else if (state.tuner === 'mamba') {
    const { rounds, sizes } = mambaPlan(m, state.eta);
    text += ` MAMBA: ${rounds} round${rounds === 1 ? '' : 's'}, ${sizes.join(' → ')} arms.`;
  } else if (state.tuner === 'heuristic') text += ' The heuristic runs one arm: h = 1/N, 10% batch.';
  else if (state.tuner === 'random') text += ` Random search runs ${state.rarms} of them.`;
  return { m, text };
}
