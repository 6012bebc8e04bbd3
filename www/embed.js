// Embed mode, the "Embed" dialog, the runtime mode explanation and guided lessons (issue 7).
//
// Loaded as a module BEFORE www/main.js (index.html), so that a lesson link can put its settings into the URL
// hash before the page reads it, and so that it listens for `tunelab:panels-ready` before the page fires it.
// Everything else waits for DOMContentLoaded, when main.js has wired the page and its panels.
//
// Hash keys (next to the settings kept by www/panels/tune/state.js and the panels; all optional):
//   embed=1             embed mode: no header, footer or tab bar, compact layout, "Open full playground" link
//   controls=a,b,...    control groups of the tuning panel to show (embed mode; default all): presets, data,
//                       model, arms, tuner, run. A lesson on another panel shows that panel's settings when
//                       any settings group is listed, and collapses them otherwise; its Run is always shown.
//   show=a,b,...        result sections of the tuning panel to show (embed mode; default all): chart, bracket,
//                       best, table, posterior, compare, export. Unknown names (an old `labs`) are ignored.
//   autorun=1           start the run (or the lesson's run) as soon as the compute worker is ready
//   lesson=ID           a guided lesson (www/lessons.js): mamba, gp-ucb, d-ttts, hoag, lr-schedule
//   step=N              the lesson step to show (1-based)
//   sw=0                do not register the isolation service worker (www/coi.js)
import { parseHash, formatHash, normalise, hashExtras } from './panels/tune/state.js';
import { LESSONS, findLesson, mergeConfig, resultOf, PANEL_NAMES, BUILTIN_PANEL } from './lessons.js';
import { el, $, docText } from './shared/dom.js';
import { hashParams, editHash } from './shared/hash.js';

/** Control groups of the tuning panel (fieldsets of its settings form, plus the Run/Stop buttons). */
export const CONTROL_GROUPS = ['presets', 'data', 'model', 'arms', 'tuner', 'run'];
/** Result sections of the tuning panel, by the id of an element inside each. */
export const SHOW_SECTIONS = { chart: 'chart-ksd', bracket: 'bracket', best: 'best', table: 'arms-table', posterior: 'post-table', compare: 'compare-table', export: 'export-config' };
/** The hash keys this module owns. */
export const EMBED_KEYS = ['embed', 'controls', 'show', 'autorun', 'lesson', 'step', 'sw'];

/** The page's hooks live on window (www/main.js): `__tunelab` (state, panels, client), `__tunelabCoi` (coi.js). */
const win = /** @type {any} */ (window);
const params = hashParams();
const list = (key, all) => (params.has(key) ? params.get(key).split(',').map((s) => s.trim()).filter((s) => all.includes(s)) : [...all]);
const flag = (key) => params.get(key) === '1' || params.get(key) === 'true';

/** The options this page was opened with. */
export const options = {
  embed: flag('embed'),
  controls: list('controls', CONTROL_GROUPS),
  show: list('show', Object.keys(SHOW_SECTIONS)),
  autorun: flag('autorun'),
  lesson: findLesson(params.get('lesson') ?? ''),
  unknownLesson: params.has('lesson') && !findLesson(params.get('lesson')) ? params.get('lesson') : null,
  step: Math.max(1, Number.parseInt(params.get('step') ?? '1', 10) || 1),
};

// The registry fires this once, at the end of main.js: listen now (this module runs first), never poll.
const panelsReady = new Promise((resolve) => window.addEventListener('tunelab:panels-ready', resolve, { once: true }));

// Keep our keys in the URL when the tuning panel writes its settings back (state.js formatHash).
for (const k of EMBED_KEYS) if (params.has(k)) hashExtras[k] = params.get(k);

// A tuning lesson supplies every setting the link does not give explicitly, so `#lesson=mamba` alone loads the
// lesson and a copied link (which lists every setting) reproduces exactly what was on screen.
if (options.lesson?.panel === BUILTIN_PANEL) {
  const s = { ...parseHash(location.hash).state };
  for (const [k, v] of Object.entries(options.lesson.state)) if (!params.has(k)) s[k] = v;
  history.replaceState(null, '', formatHash(normalise(s)));
}
if (options.embed) document.documentElement.classList.add('embed');

// ---------------------------------------------------------------- runtime mode: threads or not, and why
/** Whether this page runs inside a frame (a cross-origin parent makes window.top unreadable, not absent). */
export function isFramed() {
  try { return window.top !== window.self; } catch { return true; }
}

/** {threads: boolean, reason: string}: why this page can or cannot use the threaded build. */
export function isolationReport() {
  const coi = win.__tunelabCoi ?? {};
  const framed = isFramed();
  if (globalThis.crossOriginIsolated === true) {
    return { threads: true, reason: coi.controlled && !coi.headersIsolated
      ? 'cross-origin isolated by the service worker (this host sends no isolation headers)'
      : 'cross-origin isolated: the host sends the COOP/COEP headers' };
  }
  if (framed) {
    return { threads: false, reason: 'inside a frame: threads need the embedding page to be cross-origin isolated too, '
      + 'and the iframe to carry allow="cross-origin-isolated"' };
  }
  const why = {
    unsupported: 'service workers are not available here (private window, not HTTPS, or file://), and the host sends no isolation headers',
    'no-storage': 'this browser blocks storage for the page, so the isolation service worker is not used',
    disabled: 'the isolation service worker is switched off by the link (sw=0) and the host sends no isolation headers',
    failed: `the isolation service worker could not register (${coi.error ?? 'unknown error'})`,
    'reload-skipped': 'the isolation service worker is installed but did not isolate this page; it reloads at most once per session',
    registering: 'the isolation service worker is being installed: the page reloads once to get threads',
  };
  return { threads: false, reason: why[coi.state] ?? 'the host sends no isolation headers (COOP/COEP)' };
}

// ---------------------------------------------------------------- clipboard with a fallback
/** Copies text; falls back to selecting it in `field` and execCommand (clipboard API blocked, e.g. in frames). */
export async function copyText(text, field) {
  try {
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch {
    if (field) {
      field.focus();
      field.select();
      try { if (document.execCommand('copy')) return 'copied'; } catch { /* fall through */ }
      return 'selected';
    }
    return 'failed';
  }
}

// ---------------------------------------------------------------- URLs
const baseUrl = () => location.href.split('#')[0];
const currentState = () => win.__tunelab?.panels?.[BUILTIN_PANEL]?.state ?? win.__tunelab?.state ?? parseHash(location.hash).state;

/** The page's hash parameters now: every panel's settings (as in the URL), the tuning settings as held. */
function pageParams(state) {
  const p = hashParams();
  for (const [k, v] of new URLSearchParams(formatHash(state).slice(1))) p.set(k, v);
  return p;
}

/** The full page for the current settings (lesson, step and panel kept; embed flags dropped). */
export function fullPageUrl(state = currentState()) {
  const p = pageParams(state);
  for (const k of ['embed', 'controls', 'show', 'autorun']) p.delete(k);
  return `${baseUrl()}#${p}`;
}

/** The embed URL for the current settings. */
export function embedUrl({ controls = CONTROL_GROUPS, show = Object.keys(SHOW_SECTIONS), autorun = false, lesson = hashExtras.lesson } = {}, state = currentState()) {
  const p = pageParams(state);
  for (const k of ['show', 'autorun', 'lesson', 'step', 'sw']) p.delete(k);
  p.set('embed', '1');
  p.set('controls', controls.join(','));
  if (show.length !== Object.keys(SHOW_SECTIONS).length) p.set('show', show.join(','));
  if (autorun) p.set('autorun', '1');
  if (lesson) p.set('lesson', lesson);
  return `${baseUrl()}#${p}`;
}

const escAttr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The iframe snippet for a course page. */
export function iframeSnippet(url, { width = 800, height = 600, title = 'tunelab playground' } = {}) {
  const w = typeof width === 'number' ? String(width) : width;
  return `<iframe src="${escAttr(url)}" width="${escAttr(w)}" height="${escAttr(height)}" title="${escAttr(title)}" `
    + 'allow="cross-origin-isolated" loading="lazy" style="border:1px solid #d8dde3;border-radius:8px;max-width:100%"></iframe>';
}

/** A plain link, for hosts that do not allow iframes. */
export function linkSnippet(url, text = 'Open the tunelab playground') {
  return `<a href="${escAttr(url)}" target="_blank" rel="noopener">${text.replace(/</g, '&lt;')}</a>`;
}

// ---------------------------------------------------------------- page wiring (after main.js)
/** Embed mode on the tuning panel: only the listed control groups and result sections; no tab bar. */
function hideGroups() {
  const form = $('settings');
  for (const g of CONTROL_GROUPS.filter((g) => g !== 'run')) {
    const fs = form?.querySelector(`[data-group="${g}"]`);
    if (fs && !options.controls.includes(g)) fs.dataset.embedHidden = '';
  }
  if (!options.controls.includes('run')) for (const id of ['run', 'stop']) $(id)?.setAttribute('data-embed-hidden', '');
  $('copy-link')?.setAttribute('data-embed-hidden', '');
  $('modes')?.setAttribute('data-embed-hidden', ''); // an embed is one instrument: the lesson or the link picks it
  for (const [name, id] of Object.entries(SHOW_SECTIONS)) {
    if (options.show.includes(name)) continue;
    const section = $(id)?.closest('section.card, .two-col > section');
    section?.setAttribute('data-embed-hidden', '');
  }
  // A comparison's "who won" card goes with its table.
  if (!options.show.includes('compare')) $('cmp-card')?.setAttribute('data-embed-hidden', '');
  // Posterior and compare sit in one card each; bracket/best share a row that collapses when both are hidden.
  for (const row of document.querySelectorAll('.results > .two-col')) {
    if ([...row.children].every((c) => c.hasAttribute('data-embed-hidden'))) row.setAttribute('data-embed-hidden', '');
  }
  // No result section and no Run: the run bar goes too.
  if (options.show.length === 0 && !options.controls.includes('run')) $('run')?.closest('.runbar')?.setAttribute('data-embed-hidden', '');
  const visible = CONTROL_GROUPS.filter((g) => g !== 'run' && options.controls.includes(g));
  if (visible.length === 0 && !options.lesson) document.body.classList.add('embed-no-controls');
  document.body.dataset.controls = options.controls.join(',');
}

function embedBar() {
  const link = el('a', { id: 'open-full', class: 'open-full', href: fullPageUrl(), target: '_blank', rel: 'noopener',
    title: 'Open these settings in the full playground (new tab)' }, 'Open full playground ↗');
  const refresh = () => { link.href = fullPageUrl(); };
  link.addEventListener('click', refresh);
  link.addEventListener('focus', refresh);
  link.addEventListener('mouseenter', refresh);
  window.addEventListener('hashchange', refresh);
  document.addEventListener('change', () => setTimeout(refresh));
  // A banner landmark with the embed's one heading (the page's header is hidden in embed mode).
  const bar = el('header', { class: 'embed-bar', id: 'embed-bar' },
    el('h1', { class: 'embed-brand', text: 'tunelab' }),
    el('span', { class: 'embed-mode', id: 'embed-mode', role: 'status', 'aria-live': 'polite', text: 'Starting…' }),
    link);
  document.body.prepend(bar);
}

function showMode() {
  const { threads, reason } = isolationReport();
  const info = win.__tunelab?.info;
  const badge = $('runtime');
  const n = info?.threads ?? 1;
  const label = info?.flavour === 'parallel' ? `Threads: ${n}` : 'Single thread';
  const why = info?.fallback ? `the threaded build could not start (${info.fallback})` : reason;
  if (badge) { badge.dataset.why = why; badge.title = `${label}: ${why}.`; }
  const m = $('embed-mode');
  if (m) {
    m.textContent = `${label} · ${why}`;
    m.dataset.flavour = info?.flavour ?? '';
    m.dataset.threads = String(n);
    m.title = m.textContent;
  }
  return { threads, reason: why, flavour: info?.flavour };
}

/**
 * Embed of another panel than the tuning one: its settings fold away (a button opens them) unless `controls=`
 * lists a settings group; its introduction goes (the lesson box or the page explains); its Run and results stay. The button goes on top of the settings, under a lesson box.
 */
function foldSettings(panel) {
  const form = panel?.section?.querySelector('form');
  if (!form || panel === win.__tunelab.panels?.[BUILTIN_PANEL] || $('lesson-settings')) return;
  panel.section.querySelector('[id$="copy-link"]')?.setAttribute('data-embed-hidden', '');
  panel.section.querySelector('.results > .intro')?.setAttribute('data-embed-hidden', ''); // the charts come first
  const sets = [...form.querySelectorAll(':scope > fieldset')];
  const toggle = el('button', { type: 'button', id: 'lesson-settings', class: 'lesson-settings', 'aria-controls': form.id || null });
  const apply = (on) => {
    for (const f of sets) f.toggleAttribute('data-embed-hidden', !on);
    toggle.setAttribute('aria-expanded', String(on));
    toggle.textContent = on ? 'Hide the settings' : 'Show the settings';
  };
  toggle.addEventListener('click', () => apply(toggle.getAttribute('aria-expanded') !== 'true'));
  const box = $('lesson');
  if (box && form.contains(box)) box.after(toggle); else form.prepend(toggle);
  apply(CONTROL_GROUPS.some((g) => g !== 'run' && options.controls.includes(g)));
}

// ---------------------------------------------------------------- "Embed" dialog (full page)
function embedDialog() {
  const hooks = win.__tunelab;
  const open = el('button', { type: 'button', id: 'copy-embed', title: 'Copy an iframe snippet or a link for a course page' }, 'Embed…');
  // One button, next to "Copy link" in the run bar of the panel on screen (it follows the tabs).
  const placeButton = () => {
    const section = hooks.panels?.[hooks.panel ?? BUILTIN_PANEL]?.section;
    const after = section?.querySelector('[id$="copy-link"]') ?? $('copy-link');
    if (after && open.previousElementSibling !== after) after.after(open);
  };
  placeButton();
  panelsReady.then(placeButton);
  new MutationObserver(placeButton).observe(document.body, { attributes: true, attributeFilter: ['data-panel'] });

  // Another panel than the tuning one (bandits, HOAG, LR schedules, step size; or a lesson on one) embeds that
  // panel, its Run and results, settings folded: the tuning panel's groups and sections do not apply to it.
  const defaults = (tuneMode) => ({ controls: tuneMode ? ['arms', 'tuner', 'run'] : ['run'],
    show: tuneMode ? ['chart', 'bracket', 'best', 'table', 'posterior'] : Object.keys(SHOW_SECTIONS) });
  const groupBox = (name, items) => el('fieldset', { class: 'embed-opts' }, el('legend', { text: name }),
    ...items.map((g) => el('label', {}, el('input', { type: 'checkbox', name, value: g }), ` ${g}`)));
  const sizes = [['640x480', '640 × 480 (small)'], ['800x600', '800 × 600'], ['100%x720', 'full width × 720']];
  const size = el('select', { id: 'embed-size' }, ...sizes.map(([v, t]) => new Option(t, v, v === '800x600', v === '800x600')));
  const autorun = el('input', { type: 'checkbox', id: 'embed-autorun' });
  const snippet = el('textarea', { id: 'embed-snippet', rows: '5', readonly: true, spellcheck: 'false', 'aria-label': 'iframe snippet' });
  const link = el('textarea', { id: 'embed-link', rows: '3', readonly: true, spellcheck: 'false', 'aria-label': 'Link snippet' });
  const status = el('p', { class: 'embed-status', id: 'embed-status', role: 'status', 'aria-live': 'polite' });
  const copyBtn = (id, field, what) => el('button', { type: 'button', id, onclick: async () => {
    const r = await copyText(field.value, field);
    status.textContent = r === 'copied' ? `${what} copied.` : `${what} selected: press Ctrl+C (⌘C) to copy.`;
    status.dataset.result = r;
  } }, `Copy ${what.toLowerCase()}`);

  const dlg = el('dialog', { id: 'embed-dialog', class: 'embed-dialog', 'aria-labelledby': 'embed-h' },
    el('h2', { id: 'embed-h', text: 'Embed these settings in a course page' }),
    el('p', { class: 'help', text: 'Paste the iframe into an LMS page, a Jupyter Book, Quarto or a blog. It opens with the current settings '
      + '(and lesson), showing only the groups ticked here. Use the link where iframes are not allowed. ' },
      el('a', { href: new URL('docs/instructors.html', document.baseURI).href, target: '_blank', rel: 'noopener' }, 'Instructor\'s guide ↗')),
    el('div', { class: 'embed-grid' },
      groupBox('controls', CONTROL_GROUPS),
      groupBox('show', Object.keys(SHOW_SECTIONS))),
    el('div', { class: 'row' }, el('label', { for: 'embed-size', text: 'Size' }), size),
    el('div', { class: 'row check' }, autorun, el('label', { for: 'embed-autorun', text: 'Run as soon as it loads' })),
    el('h3', { text: 'iframe' }), snippet, copyBtn('copy-snippet', snippet, 'Snippet'),
    el('h3', { text: 'Plain link (hosts without iframes)' }), link, copyBtn('copy-plain-link', link, 'Link'),
    status,
    el('form', { method: 'dialog' }, el('button', { type: 'submit', id: 'embed-close' }, 'Close')));
  document.body.append(dlg);

  const update = () => {
    const pick = (name) => [...dlg.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
    const [w, h] = size.value.split('x');
    const lesson = findLesson(hashExtras.lesson ?? '');
    const name = hooks.panel ?? BUILTIN_PANEL;
    const title = lesson ? `tunelab lesson: ${lesson.title}` : name === BUILTIN_PANEL ? 'tunelab playground: tune SG-MCMC samplers with MAMBA and KSD'
      : `tunelab playground: ${hooks.panels?.[name]?.panel?.title ?? PANEL_NAMES[name] ?? name}`;
    snippet.value = iframeSnippet(embedUrl({ controls: pick('controls'), show: pick('show'), autorun: autorun.checked }),
      { width: /%$/.test(w) ? w : Number(w), height: Number(h), title });
    link.value = linkSnippet(fullPageUrl(), lesson ? `Open the tunelab lesson: ${lesson.title}` : 'Open the tunelab playground');
  };
  dlg.addEventListener('change', update);
  let mode = null;
  open.addEventListener('click', () => {
    const tuneMode = (hooks.panel ?? BUILTIN_PANEL) === BUILTIN_PANEL;
    if (mode !== tuneMode) { // the defaults of the panel on screen, kept while it stays on screen
      mode = tuneMode;
      const d = defaults(tuneMode);
      for (const i of dlg.querySelectorAll('.embed-opts input')) i.checked = d[i.name].includes(i.value);
    }
    update();
    status.textContent = '';
    if (typeof dlg.showModal === 'function') dlg.showModal(); else dlg.setAttribute('open', '');
  });
}

// ---------------------------------------------------------------- lessons
const lessonHooks = { id: null, panel: null, status: 'none', message: '', runs: 0, report: null };

/** The registry's panel `name` (www/panels/registry.js), once the page has filled it; null if it has none. */
async function findPanel(name) {
  await Promise.race([panelsReady, new Promise((r) => setTimeout(r, 10_000))]);
  const p = win.__tunelab?.panels?.[name];
  return p && typeof p.load === 'function' && typeof p.run === 'function' ? p : null;
}

function lessonPanel(lesson) {
  let step = Math.min(options.step, lesson.steps.length);
  let config = lesson.config ? structuredClone(lesson.config) : null;
  const hooks = win.__tunelab;
  const tune = lesson.panel === BUILTIN_PANEL;
  Object.assign(lessonHooks, { id: lesson.id, panel: lesson.panel, status: 'loading' });
  hooks.lesson = lessonHooks;

  const stepNo = el('p', { class: 'lesson-step-no', id: 'lesson-step-no' });
  const stepTitle = el('h3', { id: 'lesson-step-title' });
  const stepText = el('p', { class: 'lesson-text', id: 'lesson-text' });
  const applyBtn = el('button', { type: 'button', id: 'lesson-apply', hidden: true });
  const runBtn = el('button', { type: 'button', id: 'lesson-run', class: 'primary' }, 'Run');
  // The accessible names start with the visible words (WCAG 2.5.3, label in name); the arrows are decoration.
  const prev = el('button', { type: 'button', id: 'lesson-prev', title: 'Previous step' }, el('span', { 'aria-hidden': 'true', text: '← ' }), 'Back');
  const next = el('button', { type: 'button', id: 'lesson-next', title: 'Next step' }, 'Next', el('span', { 'aria-hidden': 'true', text: ' →' }));
  const status = el('p', { class: 'lesson-status', id: 'lesson-status', role: 'status', 'aria-live': 'polite' });
  const body = el('div', { class: 'lesson-body', id: 'lesson-body' },
    stepNo, stepTitle, stepText,
    el('div', { class: 'buttons wrap' }, runBtn, applyBtn),
    status,
    el('div', { class: 'buttons lesson-nav' }, prev, next),
    el('p', { class: 'lesson-cite', id: 'lesson-cite' }, el('span', { text: 'Paper: ' }), ...docText(lesson.cite)));
  const toggle = el('button', { type: 'button', class: 'lesson-toggle', id: 'lesson-toggle', 'aria-expanded': 'true', 'aria-controls': 'lesson-body' }, 'Hide');
  toggle.addEventListener('click', () => {
    const open = body.hidden;
    body.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Hide' : 'Show';
  });
  const box = el('section', { class: 'lesson card', id: 'lesson', 'aria-labelledby': 'lesson-h', 'data-lesson': lesson.id, 'data-panel': lesson.panel },
    el('div', { class: 'lesson-head' }, el('p', { class: 'lesson-kicker', text: 'Guided lesson' }), toggle),
    el('h2', { id: 'lesson-h', text: lesson.title }),
    body);
  document.body.classList.add('has-lesson');

  const setStatus = (s, msg) => {
    lessonHooks.status = s;
    lessonHooks.message = msg ?? '';
    box.dataset.status = s;
    status.textContent = msg ?? '';
    status.className = `lesson-status ${s === 'missing-panel' || s === 'error' ? 'bad' : ''}`;
  };

  const render = () => {
    const s = lesson.steps[step - 1];
    stepNo.textContent = `Step ${step} of ${lesson.steps.length}`;
    stepTitle.textContent = s.title;
    stepText.replaceChildren(...docText(s.text));
    applyBtn.hidden = !s.patch;
    applyBtn.textContent = s.apply ?? 'Apply this change';
    prev.disabled = step === 1;
    next.disabled = step === lesson.steps.length;
    box.dataset.step = String(step);
    hashExtras.step = String(step); // kept when the tuning panel rewrites the hash
    editHash((p) => p.set('step', String(step)));
    // A step may ask for a prediction before the run (www/panels/tune/drill.js shows the arms to pick from).
    document.body.dataset.lessonPredict = String(!!s.predict);
    window.dispatchEvent(new CustomEvent('tunelab:lesson-step', { detail: { lesson: lesson.id, step, predict: !!s.predict } }));
  };
  prev.addEventListener('click', () => { if (step > 1) { step--; render(); } });
  next.addEventListener('click', () => { if (step < lesson.steps.length) { step++; render(); } });

  let panel = null;
  // The results of the panel: in view when the lesson loads and when a run starts (narrow layouts put the
  // panel's settings first).
  const showResults = () => {
    const r = panel?.section?.querySelector('.results') ?? panel?.section;
    const rect = r?.getBoundingClientRect();
    if (rect && (rect.top > innerHeight - 120 || rect.bottom < 0)) r.scrollIntoView({ block: 'start' });
  };

  // Every run of the panel (its own Run button, Ctrl+Enter, or the lesson's) drives the lesson's status: the
  // panel marks a run on its section (data-running; the tuning page also on body), `running` says which.
  let was = false;
  let seen = null;
  const snapshot = () => ({ report: panel.lastReport ?? null, errors: panel.errors?.length ?? 0 });
  const settle = (returned) => {
    const before = seen ?? { report: null, errors: 0 };
    seen = snapshot();
    const report = panel.lastReport ?? returned ?? null;
    if (report && report !== before.report && report.status !== 'stopped') {
      lessonHooks.runs++;
      lessonHooks.report = report;
      const best = resultOf(report)?.best;
      setStatus('done', tune ? (best ? `Done: arm #${best.arm} chosen. Read the chart, the bracket and the table, then go on.` : 'Done.')
        : 'Done: compare the methods on the charts, then go on.');
    } else if ((panel.errors?.length ?? 0) > before.errors) {
      setStatus('error', String(panel.errors.at(-1) || 'The run failed.'));
    } else {
      setStatus('ready', 'Stopped. Press Run to start again.');
    }
  };
  const onRunning = () => {
    const now = !!panel.running;
    if (now === was) return;
    was = now;
    if (now) { seen = seen ?? snapshot(); setStatus('running', 'Running…'); showResults(); } else settle();
  };
  const watch = () => {
    seen = snapshot();
    const mo = new MutationObserver(onRunning);
    for (const target of [panel.section, document.body]) if (target) mo.observe(target, { attributes: true, attributeFilter: ['data-running'] });
  };

  const run = async () => {
    if (!panel || panel.running) return;
    seen = snapshot();
    setStatus('running', 'Running…');
    showResults();
    let returned;
    try {
      returned = await panel.run();
    } catch (e) {
      setStatus('error', `The run failed: ${e?.message ?? e}`);
      return;
    }
    // The observer has settled a run that went through `running`; a refused run (or a stand-in panel) did not.
    if (lessonHooks.status === 'running') { was = false; settle(returned); }
  };
  runBtn.addEventListener('click', run);

  applyBtn.addEventListener('click', async () => {
    const s = lesson.steps[step - 1];
    if (!s.patch || !panel) return;
    try {
      if (tune) {
        await panel.load(normalise({ ...currentState(), ...s.patch }));
        setStatus('ready', `Changed: ${Object.entries(s.patch).map(([k, v]) => `${k} = ${v}`).join(', ')}. Press Run.`);
      } else {
        config = mergeConfig(config, s.patch);
        await panel.load(structuredClone(config));
        setStatus('ready', 'Changed. Press Run.');
      }
    } catch (e) {
      setStatus('error', `The change could not be applied: ${e?.message ?? e}`);
    }
  });

  /**
   * The lesson box: on top of the panel's settings column when the results sit beside it (wide), on top of the
   * results when the layout stacks them under the settings (narrow), so the results come right under the box.
   */
  const place = () => {
    const form = panel?.section?.querySelector('form');
    const results = panel?.section?.querySelector('.results');
    if (!form || !results) {
      (panel?.section ?? $('settings') ?? document.querySelector('main') ?? document.body).prepend(box);
      return;
    }
    const put = () => {
      if (panel.section.hidden) return;
      const stacked = Math.abs(results.getBoundingClientRect().left - form.getBoundingClientRect().left) < 20;
      const host = stacked ? results : form;
      if (box.parentElement !== host) host.prepend(box);
    };
    put();
    addEventListener('resize', put);
    if (options.embed && !tune) foldSettings(panel);
  };

  render();
  const start = async () => {
    panel = await findPanel(lesson.panel);
    panel?.show?.();
    place();
    if (!panel) {
      runBtn.disabled = true;
      applyBtn.disabled = true;
      setStatus('missing-panel', `This lesson needs the ${PANEL_NAMES[lesson.panel] ?? lesson.panel} panel, which this build of the playground does not have yet. `
        + 'The steps below still describe the experiment.');
      return;
    }
    // The panel's own Run button, when it is on screen, is the lesson's; a stand-in without one gets ours.
    const own = panel.section?.querySelector('.runbar button.primary');
    runBtn.hidden = !!own && !own.closest('[data-embed-hidden]');
    watch();
    await hooks.client?.ready?.().catch(() => {});
    // Settings the link gives explicitly win over the lesson's (a copied link reproduces what was on screen):
    // for the tuning panel the top of this module merged them; another panel read its namespaced keys
    // (`bandit.rate=...`) when the page started, and gets them back after the lesson's config.
    const prefix = panel.panel?.prefix;
    const fromLink = !tune && prefix ? [...params.keys()].filter((k) => k.startsWith(`${prefix}.`)).map((k) => k.slice(prefix.length + 1)) : [];
    const linkState = { ...(panel.state ?? {}) };
    try {
      await panel.load(tune ? parseHash(location.hash).state : structuredClone(config));
      const keep = Object.fromEntries(fromLink.filter((k) => k in linkState).map((k) => [k, linkState[k]]));
      if (Object.keys(keep).length) await panel.load(keep);
    } catch (e) {
      runBtn.disabled = true;
      setStatus('error', `The ${PANEL_NAMES[lesson.panel] ?? lesson.panel} panel could not load this lesson: ${e?.message ?? e}`);
      return;
    }
    setStatus('ready', tune ? 'Press Run to start.' : 'Loaded. Press Run to start.');
    showResults();
    if (options.autorun) await run();
  };
  start();
}

function unknownLessonMessage(id) {
  ($('settings') ?? document.querySelector('main') ?? document.body).prepend(el('section', { class: 'lesson card', id: 'lesson', 'data-status': 'unknown' },
    el('h2', { text: 'Lesson not found' }),
    el('p', { class: 'lesson-status bad', id: 'lesson-status', text: `There is no lesson "${id}". Lessons: ${LESSONS.map((l) => l.id).join(', ')}.` })));
}

/**
 * The header's Lessons menu: one link per lesson of www/lessons.js (`#lesson=ID`), its title and the line on
 * what it teaches. A lesson starts when the page loads with its link, so following one reloads the page.
 */
function lessonsMenu() {
  const list = $('lessons-list');
  if (!list) return;
  const current = options.lesson?.id ?? null;
  list.replaceChildren(el('ol', {}, ...LESSONS.map((l) => {
    const href = `#lesson=${encodeURIComponent(l.id)}`;
    const a = el('a', { href, 'data-lesson': l.id, 'aria-current': l.id === current ? 'page' : null },
      el('strong', { text: l.title }), el('span', { class: 'teaches', text: l.teaches }),
      el('span', { class: 'meta', text: `${PANEL_NAMES[l.panel] ?? l.panel} · ${l.steps.length} steps` }));
    a.addEventListener('click', (e) => {
      e.preventDefault();
      location.assign(`${location.pathname}${location.search}${href}`);
      location.reload();
    });
    return el('li', {}, a);
  })));
  const summary = document.querySelector('#lessons-menu > summary');
  if (summary) summary.textContent = `Lessons (${LESSONS.length})`;
  // Closes on Escape and on a click elsewhere.
  const menu = /** @type {HTMLDetailsElement} */ ($('lessons-menu'));
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && menu.open) { menu.open = false; menu.querySelector('summary')?.focus(); } });
  document.addEventListener('click', (e) => { if (menu.open && !menu.contains(/** @type {Node} */ (e.target))) menu.open = false; });
}

/** autorun=1 without a lesson: the panel on screen runs once the worker is ready. */
async function autorun() {
  const hooks = win.__tunelab;
  await panelsReady;
  const panel = hooks.panels?.[hooks.panel ?? BUILTIN_PANEL];
  await hooks.client?.ready?.();
  await panel?.run();
}

function init() {
  const hooks = win.__tunelab;
  if (!hooks) return; // main.js failed: its own error is on the page
  hooks.embed = { options: { ...options, lesson: options.lesson?.id ?? null }, isolationReport, embedUrl, fullPageUrl, iframeSnippet };
  if (options.embed) {
    document.body.classList.add('embed');
    embedBar();
    hideGroups();
    if (!options.lesson) panelsReady.then(() => foldSettings(hooks.panels?.[hooks.panel]));
  } else {
    embedDialog();
    lessonsMenu();
  }
  if (options.lesson) lessonPanel(options.lesson);
  else if (options.unknownLesson) unknownLessonMessage(options.unknownLesson);
  if (options.autorun && !options.lesson) autorun().catch(() => {});
  hooks.client?.ready().then(() => { hooks.mode = showMode(); }, () => {});
  if (win.__tunelabCoi) win.__tunelabCoi.onchange = () => { if (hooks.info) hooks.mode = showMode(); };
}

// Deferred modules run in document order before DOMContentLoaded: main.js has wired the page by then.
if (win.__tunelab) init();
else document.addEventListener('DOMContentLoaded', init, { once: true });
