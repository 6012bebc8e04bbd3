// The panel registry: one panel per experiment kind, each in its own folder (www/panels/<kind>/panel.js and the
// modules it imports). A tab bar (index.html, #modes) switches between the SG-MCMC tuning panel (section#panel-tune,
// its markup and tab in index.html) and the other panels, which are built inside #tuner-panels with a tab each
// (made here from the panel's `tab` label). The active panel is `panel=NAME` in the URL hash (none = tune); each
// panel keeps its settings under its own namespace (tune: unprefixed keys; bandit.*, hoag.*, lr.*, step.*,
// tvo.*), so links reproduce a panel run. A new kind's panel: its folder, its import below and its entry in
// PANELS.
//
// One hook per panel for lessons, embed mode and tests: window.__tunelab.panels[name], name 'tune' | 'bandit' |
// 'hoag' | 'lr-schedule' | 'step-size' | 'tvo':
//   load(config) -> Promise<state>  switches to the panel and fills its settings from `config`: a core preset
//                                   name, the core's config JSON (with or without `kind`), {preset: NAME,
//                                   ...partial state} or a partial state ({rounds: 100});
//   run() -> Promise<envelope report> (stopped: {status: 'stopped'}; failed: null, see errors), stop(), show();
//   read-only: state, running, runState (idle | checking | running | stopped | failed | done), runs, lastReport (the envelope), lastChartData, errors, section, panel.
// window fires 'tunelab:panels-ready' once window.__tunelab.panels is filled (tune included).
import { TunePanel } from './tune/panel.js';
import { BanditPanel } from './bandit/panel.js';
import { HoagPanel } from './hoag/panel.js';
import { LrPanel } from './lr-schedule/panel.js';
import { StepPanel } from './step-size/panel.js';
import { TvoPanel } from './tvo/panel.js';
import { editHash, hashParams, paramsOf, readFields, unknownKeys } from '../shared/hash.js';
import { el } from '../shared/dom.js';
import { EMBED_KEYS } from '../embed.js';
import { DEFAULTS as TUNE_DEFAULTS, FIELDS as TUNE_FIELDS, parseHash } from './tune/state.js';

/** The panels in tab order (the first, tune, is the page's default); each names itself (`name`). */
const PANELS = [TunePanel, BanditPanel, HoagPanel, LrPanel, StepPanel, TvoPanel];

/**
 * Builds the panels and wires the tab bar. `hooks` is window.__tunelab.
 * @param {{client: import('../client.js').ComputeClient, hooks: any}} args
 */
export function installPanels({ client, hooks }) {
  // The link as opened: the panels write their settings back to the hash as they are built.
  const opened = paramsOf(location.hash);
  const root = /** @type {HTMLElement} */ (document.getElementById('tuner-panels'));
  const tablist = /** @type {HTMLElement} */ (document.querySelector('#modes [role="tablist"]'));
  hooks.panels = {};
  /** @type {Record<string, import('./panel.js').Panel>} */
  const panels = {};
  /** @type {string[]} the panels' names, in tab order */
  const names = [];
  /** @param {string} self */
  const busy = (self) => {
    const other = names.find((n) => n !== self && (panels[n]?.current || panels[n]?.starting));
    return other ? panels[other].title : null;
  };
  const ctx = { client, hooks, busy };
  for (const Kind of PANELS) {
    const p = new Kind(ctx);
    const name = p.name;
    names.push(name);
    const entry = { state: null, running: false, runState: 'idle', runs: 0, lastReport: null, lastChartData: null, unknownEvents: [] };
    hooks.panels[name] = entry;
    panels[name] = p;
    if (!document.getElementById(`tab-${name}`)) {
      tablist.append(el('button', { type: 'button', role: 'tab', id: `tab-${name}`, 'data-panel': name, 'aria-controls': `panel-${name}`, 'aria-selected': 'false', tabindex: '-1', text: p.tab || p.title }));
    }
    p.render(root);
    Object.defineProperty(entry, 'errors', { get: () => p.errors, enumerable: true });
    Object.defineProperty(entry, 'section', { get: () => p.section, enumerable: true });
    Object.assign(entry, {
      panel: p,
      show: () => show(name),
      run: () => p.run(),
      stop: () => p.stop(),
      /** @param {any} config */
      load: (config) => { show(name); return p.load(config); },
    });
  }
  const tabs = /** @type {HTMLElement[]} */ ([...tablist.querySelectorAll('[role="tab"]')]);

  /** @param {string} mode */
  function show(mode, { focus = false, write = true } = {}) {
    if (!names.includes(mode)) mode = 'tune';
    for (const t of tabs) {
      const on = t.dataset.panel === mode;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      if (on && focus) t.focus();
    }
    for (const n of names) panels[n].section.hidden = n !== mode;
    document.body.dataset.panel = mode;
    hooks.panel = mode;
    if (write) editHash((p) => { if (mode === 'tune') p.delete('panel'); else p.set('panel', mode); });
  }
  tabs.forEach((t, i) => {
    t.addEventListener('click', () => show(t.dataset.panel ?? 'tune'));
    t.addEventListener('keydown', (e) => {
      const k = /** @type {Record<string, number>} */ ({ ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 })[e.key];
      if (k == null) return;
      e.preventDefault();
      show(tabs[(k + tabs.length) % tabs.length].dataset.panel ?? 'tune', { focus: true });
    });
  });
  window.addEventListener('hashchange', () => {
    show(hashParams().get('panel') ?? 'tune', { write: false });
    for (const n of names) panels[n].syncFromHash();
  });
  document.addEventListener('keydown', (e) => {
    const p = panels[hooks.panel];
    if (!p) return;
    if (e.key === 'Escape' && (p.current || p.entry.running)) p.stop();
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !p.current) p.run();
  });
  checkLink(opened, panels, names, hooks);
  show(hashParams().get('panel') ?? 'tune', { write: false });
  // Modules that load after the page (lessons, embed mode) can wait for this instead of polling.
  window.dispatchEvent(new CustomEvent('tunelab:panels-ready', { detail: { names } }));
  return { panels, show };
}

/**
 * Strict links: a hash key no module reads (an old link whose setting was removed or renamed, or a
 * typo) and a value a field cannot read are not silently dropped. The page opens with the rest and says which
 * it ignored, with the nearest known name ("`etta`: unknown setting, ignored; did you mean `eta`?"), in a note
 * under the tab bar (#url-notice); the unknown keys leave the URL, so a copied link holds the settings shown.
 * `hooks.link` = {unknown: [{key, suggestion}], invalid: ['key=value']} (empty lists for a clean link).
 * The known keys: `panel`, embed mode's and lessons' (www/embed.js), the tuning panel's settings (unprefixed)
 * and every other panel's fields under its namespace.
 * @param {URLSearchParams} params the hash as the page was opened
 * @param {Record<string, import('./panel.js').Panel>} panels @param {string[]} names @param {any} hooks
 */
function checkLink(params, panels, names, hooks) {
  const known = new Set(['panel', ...EMBED_KEYS, ...Object.keys(TUNE_DEFAULTS), ...TUNE_FIELDS.map((f) => f.key)]);
  /** @type {string[]} */
  const invalid = parseHash('#' + params.toString()).invalid.map((k) => `${k}=${params.get(k)}`);
  for (const n of names) {
    const p = panels[n];
    if (!p.prefix) continue;
    for (const f of p.fields) known.add(`${p.prefix}.${f.key}`);
    for (const k of readFields(params, p.fields, p.defaults, `${p.prefix}.`).invalid) invalid.push(`${p.prefix}.${k}=${params.get(`${p.prefix}.${k}`)}`);
  }
  const unknown = unknownKeys(params, known);
  hooks.link = { unknown, invalid };
  if (!unknown.length && !invalid.length) return;
  if (unknown.length) editHash((q) => { for (const { key } of unknown) q.delete(key); });
  const code = (/** @type {string} */ t) => el('code', { text: t });
  /** @type {(Node|string)[]} */
  const parts = ['This link has settings this page does not read; it opened with the rest. '];
  unknown.forEach(({ key, suggestion }, i) => {
    parts.push(i ? '; ' : '', code(key), ': unknown setting, ignored');
    if (suggestion) parts.push('; did you mean ', code(suggestion), '?');
  });
  if (unknown.length) parts.push('. ');
  if (invalid.length) {
    parts.push(invalid.length === 1 ? 'A value it could not read (the default is used): ' : 'Values it could not read (the defaults are used): ');
    invalid.forEach((kv, i) => parts.push(i ? ', ' : '', code(kv)));
    parts.push('.');
  }
  document.getElementById('modes')?.after(el('p', { id: 'url-notice', class: 'message info url-notice', role: 'status' }, ...parts));
}
