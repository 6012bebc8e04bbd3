// The tune panel's settings form <-> page state, and the sentence describing what the core computed from the
// config (`check`'s summary: the arms and MAMBA's rounds). No knowledge of runs; embed mode hides fieldsets.
import { DEFAULTS, normalise } from './state.js';
import { parseNumberList } from '../../shared/hash.js';

/** @typedef {import('./state.js').TuneState} TuneState */

/**
 * A named control of the form.
 * @param {HTMLFormElement} form
 * @param {string} key
 * @returns {HTMLInputElement|null}
 */
const control = (form, key) => /** @type {HTMLInputElement|null} */ (form.elements.namedItem(key));

/**
 * Writes a state into the form controls (named after the state keys).
 * @param {HTMLFormElement} form
 * @param {Record<string, any>} state
 */
export function writeForm(form, state) {
  for (const key of Object.keys(DEFAULTS)) {
    const el = control(form, key);
    if (!el) continue;
    if (el.type === 'checkbox') el.checked = !!state[key];
    else if (el.tagName === 'SELECT' && key === 'label') {
      const sel = /** @type {HTMLSelectElement} */ (/** @type {unknown} */ (el));
      if (![...sel.options].some((o) => o.value === state.label)) sel.append(new Option(state.label, state.label));
      sel.value = state.label;
    } else el.value = String(state[key]);
  }
  updateVisibility(form, state);
}

/**
 * Reads the form into a state; invalid fields keep their previous value and are marked aria-invalid.
 * @param {HTMLFormElement} form
 * @param {TuneState} prev
 */
export function readForm(form, prev) {
  /** @type {Record<string, any>} */
  const s = { ...prev };
  /** @type {string[]} */
  const bad = [];
  for (const key of Object.keys(DEFAULTS)) {
    const el = control(form, key);
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
  return { state: /** @type {TuneState} */ (normalise(s)), bad };
}

/**
 * Shows the controls that apply to the current data source, sampler and tuner.
 * @param {HTMLFormElement} form
 * @param {Record<string, any>} state
 */
export function updateVisibility(form, state) {
  const each = (/** @type {string} */ attr, /** @type {(v: string[]) => boolean} */ shown) => {
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (form.querySelectorAll(`[${attr}]`))) el.hidden = !shown((el.getAttribute(attr) ?? '').split(' '));
  };
  each('data-show', (v) => v.includes(state.data));
  each('data-show-sampler', (v) => v.includes(state.sampler));
  each('data-show-model', (v) => v.includes(state.model));
  each('data-show-tuner', (v) => state.compare || v.includes(state.tuner));
  each('data-show-compare', () => !!state.compare);
  each('data-show-metric', (v) => v.includes(state.metric));
}

/**
 * A sentence describing the arms and, for MAMBA, the rounds, from the core's `check` summary (tune:
 * {arm_count, rounds: [{arms, budget, keep}], arms: [{id, step, batch, leapfrog}]}; compare: {tuners, base}).
 * @param {Record<string, any>} state
 * @param {any} summary
 * @returns {{m: number, text: string}}
 */
export function describeArms(state, summary) {
  const tune = summary?.base ?? summary;
  const arms = tune?.arms ?? [];
  const m = tune?.arm_count ?? arms.length;
  if (!m) return { m: 0, text: 'No arms: check the step range and batch sizes.' };
  const distinct = (/** @type {string} */ k) => new Set(arms.map((/** @type {any} */ a) => a[k])).size;
  const leap = state.sampler.startsWith('sghmc');
  const parts = `${distinct('step')} step sizes × ${distinct('batch')} batch sizes` + (leap ? ` × ${distinct('leapfrog')} L` : '');
  let text = `${m} arm${m === 1 ? '' : 's'} (${parts}).`;
  if (summary?.tuners) text += ` Compare runs ${summary.tuners.join(', ')}.`;
  else if (state.tuner === 'mamba') {
    const rounds = tune.rounds ?? [];
    text += ` MAMBA: ${rounds.length} round${rounds.length === 1 ? '' : 's'}, ${rounds.map((/** @type {any} */ r) => r.arms).join(' → ')} arms.`;
  } else if (state.tuner === 'heuristic') text += ' The heuristic runs one arm: h = 1/N, 10% batch.';
  else if (state.tuner === 'random') text += ` Random search runs ${state.rarms} of them.`;
  return { m, text };
}
