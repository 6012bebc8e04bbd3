// The tuner panels next to the SG-MCMC tuning page: a tab bar (index.html, #modes) switches between the
// tuning page (main#panel-tune) and the bandit, HOAG, learning-rate-schedule and SG-MCMC step-size (GP-UCB)
// panels, which are built here inside #tuner-panels. The active panel is `panel=NAME` in the URL hash; each panel keeps its settings under
// its own namespace (bandit.*, hoag.*, lr.*, step.*), so links reproduce a panel run.
//
// Hook for lessons and embed mode: window.__tunelab.panels[name], name 'bandit' | 'hoag' | 'lr-schedule' | 'step-size':
//   load(config) -> Promise<state>  switches to the panel and fills its settings from `config`: a core preset
//                                   name ('beta-reservoir'), the core's config JSON (as `tunelab bandit --config`),
//                                   {preset: NAME, ...partial state} or a partial state ({rounds: 100});
//   run() -> Promise, stop(), show(); read-only: state, running, runs, lastReport, lastChartData, errors.
// window fires 'tunelab:panels-ready' once window.__tunelab.panels is filled (end of main.js).
import { BanditPanel } from './bandit.js';
import { HoagPanel } from './hoag.js';
import { LrPanel } from './lrsched.js';
import { StepPanel } from './steptune.js';
import { editHash, hashParams } from './common.js';

export const PANEL_NAMES = ['bandit', 'hoag', 'lr-schedule', 'step-size'];
const MODES = ['tune', ...PANEL_NAMES];

/** Builds the panels and wires the tab bar. `hooks` is window.__tunelab (the tuning page's hooks). */
export function installPanels({ client, hooks }) {
  const root = document.getElementById('tuner-panels');
  const tabs = [...document.querySelectorAll('#modes [role="tab"]')];
  if (!root || tabs.length === 0) return null;
  hooks.panels = {};
  const panels = {};
  const busy = (self) => {
    if (hooks.running) return 'SG-MCMC tuning';
    const other = PANEL_NAMES.find((n) => n !== self && panels[n]?.current);
    return other ? panels[other].title : null;
  };
  const ctx = { client, hooks, busy };
  for (const [name, Cls] of [['bandit', BanditPanel], ['hoag', HoagPanel], ['lr-schedule', LrPanel], ['step-size', StepPanel]]) {
    const entry = { state: null, running: false, runs: 0, lastReport: null, lastChartData: null, unknownEvents: [] };
    hooks.panels[name] = entry;
    const p = new Cls(ctx);
    panels[name] = p;
    p.render(root);
    Object.defineProperty(entry, 'errors', { get: () => p.errors, enumerable: true });
    Object.assign(entry, {
      panel: p,
      show: () => show(name),
      run: () => p.run(),
      stop: () => p.stop(),
      async load(config) {
        show(name);
        if (typeof config === 'string') await p.loadPreset(config);
        else if (config && typeof config === 'object' && typeof config.preset === 'string') {
          const { preset, ...rest } = config;
          await p.loadPreset(preset);
          if (Object.keys(rest).length) p.applyConfig(rest);
        } else if (config) p.applyConfig(config);
        return { ...p.state };
      },
    });
  }

  const tunePanel = document.getElementById('panel-tune');
  function show(mode, { focus = false, write = true } = {}) {
    if (!MODES.includes(mode)) mode = 'tune';
    for (const t of tabs) {
      const on = t.dataset.panel === mode;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      if (on && focus) t.focus();
    }
    if (tunePanel) tunePanel.hidden = mode !== 'tune';
    for (const n of PANEL_NAMES) panels[n].section.hidden = n !== mode;
    document.body.dataset.panel = mode;
    hooks.panel = mode;
    if (write) editHash((p) => { if (mode === 'tune') p.delete('panel'); else p.set('panel', mode); });
  }
  tabs.forEach((t, i) => {
    t.addEventListener('click', () => show(t.dataset.panel));
    t.addEventListener('keydown', (e) => {
      const k = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (k == null) return;
      e.preventDefault();
      show(tabs[(k + tabs.length) % tabs.length].dataset.panel, { focus: true });
    });
  });
  window.addEventListener('hashchange', () => {
    show(hashParams().get('panel') ?? 'tune', { write: false });
    for (const n of PANEL_NAMES) panels[n].syncFromHash();
  });
  document.addEventListener('keydown', (e) => {
    const p = panels[hooks.panel];
    if (!p) return;
    if (e.key === 'Escape' && p.current) p.stop();
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !p.current) p.run();
  });
  show(hashParams().get('panel') ?? 'tune', { write: false });
  // Modules that load after the page (lessons, embed mode) can wait for this instead of polling.
  window.dispatchEvent(new CustomEvent('tunelab:panels-ready', { detail: { names: PANEL_NAMES } }));
  return { panels, show };
}
