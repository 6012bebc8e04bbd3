// Form fields of the panels: a settings form built from a field list (hash.js `Field`s plus a label, help,
// `show(state)` and `enabled(state, option)`), read back with validation, rows shown when they apply.
import { el } from '../shared/dom.js';
import { parseField } from '../shared/hash.js';

/**
 * @typedef {import('../shared/hash.js').Field & {label: string, help?: string, step?: number,
 *   show?: (s: any) => boolean, enabled?: (s: any, v: string) => boolean}} FormField
 */

/** The controls of one field: a row (and its help line). @param {FormField} f @param {string} id */
export function fieldRow(f, id) {
  const help = f.help ? el('p', { class: 'help', id: `${id}-help`, text: f.help }) : null;
  let row;
  if (f.type === 'checks') {
    row = el('fieldset', { class: 'checks', 'data-key': f.key },
      el('legend', { class: 'sr-only', text: f.label }),
      ...(f.options ?? []).map(([v, label]) => el('label', { class: 'check-item' },
        el('input', { type: 'checkbox', name: f.key, value: v, id: `${id}-${v}` }), label)));
  } else if (f.type === 'bool') {
    row = el('div', { class: 'row check', 'data-key': f.key }, el('input', { type: 'checkbox', id, name: f.key }), el('label', { for: id, text: f.label }));
  } else {
    const input = f.type === 'select'
      ? el('select', { id, name: f.key }, ...(f.options ?? []).map(([v, label]) => el('option', { value: v, text: label })))
      : el('input', {
        id, name: f.key, type: f.type === 'text' ? 'text' : 'number', spellcheck: f.type === 'text' ? 'false' : null,
        min: f.min, max: f.max, step: f.step ?? (f.type === 'int' ? 1 : 'any'),
        inputmode: f.type === 'int' ? 'numeric' : f.type === 'num' ? 'decimal' : null, 'aria-describedby': help ? `${id}-help` : null,
      });
    row = el('div', { class: 'row', 'data-key': f.key }, el('label', { for: id, text: f.label }), input);
  }
  return help ? [row, help] : [row];
}

/** An element by id, typed as an input. @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * Writes `state` into the fields' controls.
 * @param {FormField[]} fields @param {Record<string, any>} state @param {(key: string) => string} idOf
 */
export function writeControls(fields, state, idOf) {
  for (const f of fields) {
    const v = state[f.key];
    if (f.type === 'checks') {
      for (const [opt] of f.options ?? []) input(`${idOf(f.key)}-${opt}`).checked = v.includes(opt);
    } else if (f.type === 'bool') input(idOf(f.key)).checked = !!v;
    else { const e = input(idOf(f.key)); e.value = String(v); e.removeAttribute('aria-invalid'); }
  }
}

/**
 * Reads the controls over `prev`; returns the new state and the descriptions of invalid shown fields (marked
 * aria-invalid).
 * @param {FormField[]} fields @param {Record<string, any>} prev @param {(key: string) => string} idOf
 */
export function readControls(fields, prev, idOf) {
  /** @type {string[]} */
  const bad = [];
  const s = { ...prev };
  for (const f of fields) {
    if (f.type === 'checks') {
      s[f.key] = (f.options ?? []).map(([v]) => v).filter((v) => input(`${idOf(f.key)}-${v}`).checked);
    } else if (f.type === 'bool') s[f.key] = input(idOf(f.key)).checked;
    else {
      const e = input(idOf(f.key));
      const raw = e.value.trim();
      const v = f.type === 'text' ? raw : parseField(f, raw);
      const hidden = /** @type {HTMLElement|null} */ (e.closest('.row'))?.hidden;
      if (v === undefined || (f.type !== 'text' && raw === '')) {
        e.setAttribute('aria-invalid', 'true');
        if (!hidden) bad.push(`${f.label} (${f.type === 'int' ? 'a whole number' : 'a number'} from ${f.min} to ${f.max})`);
      } else { e.removeAttribute('aria-invalid'); s[f.key] = v; }
    }
  }
  return { state: s, bad };
}

/**
 * Shows the rows that apply (field.show(state)) and the options that apply (field.enabled(state, v)); a
 * fieldset none of whose settings applies is hidden.
 * @param {HTMLFormElement} form @param {FormField[]} fields @param {Record<string, any>} state @param {(key: string) => string} idOf
 */
export function refreshControls(form, fields, state, idOf) {
  for (const f of fields) {
    const row = /** @type {HTMLElement} */ (form.querySelector(`[data-key="${f.key}"]`));
    const shown = f.show ? f.show(state) : true;
    row.hidden = !shown;
    const help = document.getElementById(`${idOf(f.key)}-help`);
    if (help) help.hidden = !shown;
    if (f.type === 'checks' && f.enabled) {
      for (const [v] of f.options ?? []) {
        const c = input(`${idOf(f.key)}-${v}`);
        const on = f.enabled(state, v);
        c.disabled = !on;
        /** @type {HTMLElement} */ (c.closest('label')).hidden = !on;
      }
    }
  }
  for (const fs of /** @type {NodeListOf<HTMLFieldSetElement>} */ (form.querySelectorAll('fieldset[data-keys]'))) {
    fs.hidden = (fs.dataset.keys ?? '').split(',').every((k) => /** @type {HTMLElement|null} */ (form.querySelector(`[data-key="${k}"]`))?.hidden);
  }
}
