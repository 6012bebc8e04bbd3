// Embed mode, the "Embed" dialog, the runtime mode explanation and guided lessons.
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
//   lesson=ID           a built-in guided lesson (lessons/ID.md, www/lessons.js): mamba, gp-ucb, d-ttts, hoag, lr-schedule
//   lesson-url=URL      a lesson file on this or another site (that site must allow this page by CORS)
//   step=N              the lesson step to show (1-based)
//   sw=0                do not register the isolation service worker (www/coi.js)
import { parseHash, formatHash, hashExtras, DEFAULTS } from './panels/tune/state.js';
import { BUILTIN_LESSONS, BUILTIN_PANEL, PANEL_NAMES, builtinUrl, fetchLesson, firstDiff, panelOf, pastedLesson, readLessonFile, resultOf } from './lessons.js';
import { el, $, docText } from './shared/dom.js';
import { hashParams, editHash } from './shared/hash.js';

/** Control groups of the tuning panel (fieldsets of its settings form, plus the Run/Stop buttons). */
export const CONTROL_GROUPS = ['presets', 'data', 'model', 'arms', 'tuner', 'run'];
/** Result sections of the tuning panel, by the id of an element inside each. */
export const SHOW_SECTIONS = { chart: 'chart-ksd', bracket: 'bracket', best: 'best', table: 'arms-table', posterior: 'post-table', compare: 'compare-table', export: 'export-config' };
/** The hash keys this module owns. */
export const EMBED_KEYS = ['embed', 'controls', 'show', 'autorun', 'lesson', 'lesson-url', 'step', 'sw'];

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
  lesson: params.get('lesson') ?? params.get('lesson-url') ?? null,
  step: Math.max(1, Number.parseInt(params.get('step') ?? '1', 10) || 1),
};

// The registry fires this once, at the end of main.js: listen now (this module runs first), never poll.
const panelsReady = new Promise((resolve) => window.addEventListener('tunelab:panels-ready', resolve, { once: true }));

// Keep our keys in the URL when the tuning panel writes its settings back (state.js formatHash).
for (const k of EMBED_KEYS) if (params.has(k)) hashExtras[k] = params.get(k);

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

/**
 * The embed URL for the current settings: short enough for a course page. A lesson's embed names only the lesson
 * (`lesson=ID` or `lesson-url=URL`: the lesson file holds its settings); otherwise only the settings that differ
 * from the tuning panel's defaults are written (every other panel writes only its changed keys).
 */
export function embedUrl({ controls = CONTROL_GROUPS, show = Object.keys(SHOW_SECTIONS), autorun = false, lesson = hashExtras.lesson, lessonUrl = hashExtras['lesson-url'] } = {}, state = currentState()) {
  const p = new URLSearchParams();
  p.set('embed', '1');
  if (lesson) p.set('lesson', lesson);
  else if (lessonUrl) p.set('lesson-url', lessonUrl);
  else {
    const defaults = new URLSearchParams(formatHash(DEFAULTS).slice(1));
    for (const [k, v] of pageParams(state)) if (!EMBED_KEYS.includes(k) && defaults.get(k) !== v) p.set(k, v);
  }
  if (controls.length !== CONTROL_GROUPS.length) p.set('controls', controls.join(','));
  if (show.length !== Object.keys(SHOW_SECTIONS).length) p.set('show', show.join(','));
  if (autorun) p.set('autorun', '1');
  return `${baseUrl()}#${p}`;
}

const escAttr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The iframe snippet for a course page. */
export function iframeSnippet(url, { width = 800, height = 600, title = 'tunelab playground' } = {}) {
  const w = typeof width === 'number' ? String(width) : width;
  return `<iframe src="${escAttr(url)}" width="${escAttr(w)}" height="${escAttr(height)}" title="${escAttr(title)}" `
    + 'allow="cross-origin-isolated" loading="lazy"></iframe>';
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
    el('details', { class: 'embed-why', id: 'embed-why' }, el('summary', { text: 'details' }), el('p', { id: 'embed-why-text' })),
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
    // Plain words for students; the technical reason (threads, isolation) behind the details link.
    m.textContent = n > 1 ? `Runs in your browser on ${n} threads` : 'Runs in your browser on one thread';
    const w = $('embed-why-text');
    if (w) w.textContent = `${label} · ${why}`;
    m.dataset.flavour = info?.flavour ?? '';
    m.dataset.threads = String(n);
    m.title = `${label} · ${why}`;
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
    const lesson = lessonHooks.id && current?.key && !current.key.startsWith('local:') ? { title: $('lesson-h')?.textContent ?? lessonHooks.id } : null;
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
/** What the tests and the embed read: the lesson on screen and how it is doing. */
const lessonHooks = { id: null, panel: null, source: null, status: 'none', message: '', runs: 0, report: null, step: 0, expects: [], reveal: null };
/** The lesson on screen: its teardown. @type {{close: () => void, key: string}|null} */
let current = null;

/** The registry's panel `name` (www/panels/registry.js), once the page has filled it; null if it has none. */
async function findPanel(name) {
  await Promise.race([panelsReady, new Promise((r) => setTimeout(r, 10_000))]);
  const p = win.__tunelab?.panels?.[name];
  return p && typeof p.load === 'function' && typeof p.run === 'function' ? p : null;
}

/** Where the lesson box goes before its panel is known: on top of the page's main content. */
const lessonHost = () => ($('settings') ?? document.querySelector('main') ?? document.body);

/**
 * A lesson that could not be opened: one message (for a lesson file, `file:line: what`), nothing runs.
 * @param {string} title @param {string} message @param {string} status
 */
function lessonMessage(title, message, status) {
  current?.close();
  const box = el('section', { class: 'lesson card', id: 'lesson', 'data-status': status, 'aria-labelledby': 'lesson-h' },
    el('h2', { id: 'lesson-h', text: title }),
    el('p', { class: 'lesson-status bad', id: 'lesson-status', role: 'alert', text: message }));
  lessonHost().prepend(box);
  Object.assign(lessonHooks, { id: null, panel: null, status, message, report: null });
  win.__tunelab.lesson = lessonHooks;
  current = { close: () => box.remove(), key: '' };
  document.body.classList.add('has-lesson');
}

/**
 * Opens a lesson from its text: the core parses and checks it (www/client.js `lesson`), then its box drives the
 * panel. Any error is one message; nothing runs.
 * @param {{name: string, text: string}} source @param {{step?: number, key?: string, autorun?: boolean, link?: URLSearchParams|null}} [opts]
 */
async function openLesson(source, { step = 1, key = '', autorun = false, link = null } = {}) {
  const hooks = win.__tunelab;
  Object.assign(lessonHooks, { status: 'loading', message: '', source: source.name });
  hooks.lesson = lessonHooks;
  let lesson;
  try {
    await hooks.client.ready();
    lesson = await hooks.client.lesson(source.name, source.text);
  } catch (e) {
    lessonMessage('This lesson cannot be opened', String(/** @type {any} */ (e)?.message ?? e), 'invalid');
    if (current) current.key = key;
    return;
  }
  current?.close();
  current = lessonPanel(lesson, source, { step, autorun, link });
  current.key = key;
}

/**
 * Opens the lesson the URL names (`lesson=ID` or `lesson-url=URL`), if it is not the one on screen. Runs when
 * the page starts and on every hash change, so a lesson link works from any state.
 */
async function lessonFromHash({ autorun = false, link = null } = {}) {
  const p = hashParams();
  const id = p.get('lesson');
  const url = p.get('lesson-url');
  const key = id ? `id:${id}` : url ? `url:${url}` : '';
  if (!key || key === current?.key) return;
  if (current) current.key = key; // a second hash change while this one loads does not open it twice
  const step = Math.max(1, Number.parseInt(p.get('step') ?? '1', 10) || 1);
  for (const k of ['lesson', 'lesson-url', 'step']) delete hashExtras[k];
  if (id) hashExtras.lesson = id; else hashExtras['lesson-url'] = /** @type {string} */ (url);
  if (id && !BUILTIN_LESSONS.includes(id)) {
    lessonMessage('Lesson not found', `There is no built-in lesson "${id}". Lessons: ${BUILTIN_LESSONS.join(', ')}.`, 'unknown');
    current && (current.key = key);
    return;
  }
  let source;
  try {
    source = await fetchLesson(id ? builtinUrl(id) : /** @type {string} */ (url));
    if (id) source.name = `lessons/${id}.md`;
  } catch (e) {
    lessonMessage('This lesson cannot be opened', String(/** @type {any} */ (e)?.message ?? e), 'invalid');
    current && (current.key = key);
    return;
  }
  await openLesson(source, { step, key, autorun, link });
}

/**
 * A lesson opened from a file or pasted text (and the notebook widget's `tunelab.widget(lesson=FILE)`): not in the
 * URL (a link cannot carry it). @param {{name: string, text: string}} source
 */
export function openLocalLesson(source) {
  for (const k of ['lesson', 'lesson-url', 'step']) delete hashExtras[k];
  editHash((p) => { p.delete('lesson'); p.delete('lesson-url'); p.delete('step'); });
  return openLesson(source, { key: `local:${Date.now()}` });
}

/**
 * The box of a checked lesson (the core's `CheckedLesson`: front matter, steps, and each step's config with
 * every default filled in). Returns its teardown. `opts.link`: the hash the page was opened with, whose explicit
 * settings win over the lesson's (a copied link reproduces what was on screen); null for a lesson opened later.
 * @param {any} lesson @param {{name: string, text: string}} source @param {{step: number, autorun: boolean, link: URLSearchParams|null}} opts
 */
function lessonPanel(lesson, source, opts) {
  const hooks = win.__tunelab;
  const steps = /** @type {any[]} */ (lesson.steps);
  const name = panelOf(lesson.kind);
  const tune = name === BUILTIN_PANEL;
  let step = Math.min(opts.step, steps.length);
  const off = new AbortController();
  /** @type {MutationObserver|null} */
  let mo = null;
  Object.assign(lessonHooks, { id: lesson.id, panel: name, source: source.name, status: 'loading', message: '', runs: 0, report: null, expects: [], reveal: null });
  hooks.lesson = lessonHooks;
  /** @type {(text: string) => DocumentFragment} */
  let md = (text) => { const f = document.createDocumentFragment(); f.append(text); return f; };
  const mdReady = import('./shared/markdown.js').then((m) => { md = m.renderMarkdown; }, () => {});

  const stepNo = el('p', { class: 'lesson-step-no', id: 'lesson-step-no' });
  const stepTitle = el('h3', { id: 'lesson-step-title' });
  const stepText = el('div', { class: 'lesson-text', id: 'lesson-text' });
  const predictBox = el('fieldset', { class: 'lesson-predict', id: 'lesson-predict', hidden: true });
  const revealBox = el('div', { class: 'lesson-reveal', id: 'lesson-reveal', role: 'status', 'aria-live': 'polite', hidden: true });
  const expectBox = el('ul', { class: 'lesson-expect', id: 'lesson-expect', hidden: true, 'aria-label': 'Checks of this run' });
  const applyBtn = el('button', { type: 'button', id: 'lesson-apply', hidden: true });
  const runBtn = el('button', { type: 'button', id: 'lesson-run', class: 'primary' }, 'Run');
  // The accessible names start with the visible words (WCAG 2.5.3, label in name); the arrows are decoration.
  const prev = el('button', { type: 'button', id: 'lesson-prev', title: 'Previous step' }, el('span', { 'aria-hidden': 'true', text: '← ' }), 'Back');
  const next = el('button', { type: 'button', id: 'lesson-next', title: 'Next step' }, 'Next', el('span', { 'aria-hidden': 'true', text: ' →' }));
  const status = el('p', { class: 'lesson-status', id: 'lesson-status', role: 'status', 'aria-live': 'polite' });
  const cite = el('div', { class: 'lesson-cite', id: 'lesson-cite' });
  const intro = el('div', { class: 'lesson-intro', id: 'lesson-intro' });
  const meta = el('p', { class: 'lesson-meta', id: 'lesson-meta', text: `${source.name}${lesson.minutes ? ` · about ${lesson.minutes} min` : ''}` });
  // Keyboard order: the step's Back / Next sit on its number line, before its text; after Next come the step's
  // prediction (one stop), Apply (when the step changes settings) and Run: Next to Run in at most 3 Tabs.
  const body = el('div', { class: 'lesson-body', id: 'lesson-body' },
    meta, intro,
    el('div', { class: 'lesson-stepbar' }, stepNo, el('div', { class: 'buttons lesson-nav', role: 'group', 'aria-label': 'Lesson steps' }, prev, next)),
    stepTitle, stepText, predictBox,
    el('div', { class: 'buttons wrap lesson-actions' }, applyBtn, runBtn),
    status, revealBox, expectBox,
    cite);
  const toggle = el('button', { type: 'button', class: 'lesson-toggle', id: 'lesson-toggle', 'aria-expanded': 'true', 'aria-controls': 'lesson-body' }, 'Hide');
  toggle.addEventListener('click', () => {
    const open = body.hidden;
    body.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Hide' : 'Show';
  });
  const box = el('section', { class: 'lesson card', id: 'lesson', 'aria-labelledby': 'lesson-h', 'data-lesson': lesson.id, 'data-panel': name, 'data-status': 'loading' },
    el('div', { class: 'lesson-head' }, el('p', { class: 'lesson-kicker', text: 'Guided lesson' }), toggle),
    el('h2', { id: 'lesson-h', text: lesson.title }),
    body);
  lessonHost().prepend(box);
  document.body.classList.add('has-lesson');
  mdReady.then(() => {
    if (lesson.intro) intro.replaceChildren(md(lesson.intro));
    if (lesson.cite) cite.replaceChildren(el('span', { text: 'Paper: ' }), ...md(lesson.cite).childNodes);
    render();
  });

  const setStatus = (/** @type {string} */ s, /** @type {string} */ msg) => {
    lessonHooks.status = s;
    lessonHooks.message = msg ?? '';
    box.dataset.status = s;
    status.textContent = msg ?? '';
    status.className = `lesson-status ${s === 'missing-panel' || s === 'error' || s === 'invalid' ? 'bad' : ''}`;
  };

  /** The line a step's config comes from (its patch, or the last patch before it). @param {number} i */
  const configLine = (i) => steps.slice(0, i + 1).reverse().find((s) => s.patch)?.patch_line ?? 1;

  const render = () => {
    const s = steps[step - 1];
    stepNo.textContent = `Step ${step} of ${steps.length}`;
    stepTitle.textContent = s.title;
    stepText.replaceChildren(md(s.text));
    applyBtn.hidden = !s.patch;
    applyBtn.textContent = s.apply ?? 'Apply this change';
    // A Back or Next that turns disabled under the keyboard hands its focus to the other one (else it falls to the
    // document's start).
    const focused = document.activeElement;
    prev.disabled = step === 1;
    next.disabled = step === steps.length;
    if (focused === next && next.disabled && !prev.disabled) prev.focus();
    else if (focused === prev && prev.disabled && !next.disabled) next.focus();
    box.dataset.step = String(step);
    lessonHooks.step = step;
    revealBox.hidden = true;
    expectBox.hidden = true;
    const choice = s.predict?.type === 'choice' ? s.predict : null;
    predictBox.hidden = !choice;
    if (choice) {
      predictBox.replaceChildren(el('legend', { text: choice.question }),
        ...choice.options.map((/** @type {string} */ o, /** @type {number} */ i) => el('label', { class: 'check-item' },
          el('input', { type: 'radio', name: 'lesson-predict', value: o, id: `lesson-predict-${i}` }), ` ${o}`)));
    }
    if (current?.key && !current.key.startsWith('local:')) {
      hashExtras.step = String(step); // kept when the tuning panel rewrites the hash
      editHash((p) => p.set('step', String(step)));
    }
    // A step may ask to pick an arm before the run (www/panels/tune/drill.js shows the arms to pick from).
    const arm = s.predict?.type === 'arm';
    document.body.dataset.lessonPredict = String(arm);
    window.dispatchEvent(new CustomEvent('tunelab:lesson-step', { detail: { lesson: lesson.id, step, predict: arm } }));
  };
  prev.addEventListener('click', () => { if (step > 1) { step--; render(); } });
  next.addEventListener('click', () => { if (step < steps.length) { step++; render(); } });

  /** @type {any} */
  let panel = null;
  const showResults = () => {
    const r = panel?.section?.querySelector('.results') ?? panel?.section;
    const rect = r?.getBoundingClientRect();
    if (rect && (rect.top > innerHeight - 120 || rect.bottom < 0)) r.scrollIntoView({ block: 'start' });
  };

  /**
   * After a complete run, when the lesson box sits beside the results: the panel's first chart wholly in view (a
   * small embed's run bar grows with the run's message and pushes the chart past the bottom), scrolling this document only (window.scrollTo: never the page
   * that embeds it), no further than keeps the chart's top below the run bar when the bar is sticky at the top
   * (it holds the verdict line).
   */
  const revealChart = () => {
    // Stacked (a narrow window): the lesson box heads the results and stays in view (showResults).
    if (box.closest('.results')) return;
    const chart = /** @type {HTMLElement|undefined} */ ([...(panel?.section?.querySelectorAll('.results .chart') ?? [])].find((e) => /** @type {HTMLElement} */ (e).offsetParent !== null));
    const r = chart?.getBoundingClientRect();
    if (!r || r.bottom <= innerHeight) return;
    const bar = /** @type {HTMLElement|null} */ (panel.section.querySelector('.results > .runbar'));
    const barH = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().height : 0;
    const dy = Math.min(r.bottom - innerHeight + 4, Math.max(0, r.top - barH - 4));
    if (dy > 0) window.scrollTo({ top: scrollY + dy, behavior: 'auto' });
  };

  /** After a complete run: the step's expect lines and the reveal of its prediction. @param {any} report */
  const afterRun = async (report) => {
    requestAnimationFrame(() => requestAnimationFrame(revealChart));
    const i = step - 1;
    const s = steps[i];
    const choice = s.predict?.type === 'choice' ? s.predict : null;
    if (choice) {
      const picked = /** @type {HTMLInputElement|null} */ (predictBox.querySelector('input:checked'))?.value ?? null;
      const right = picked === choice.answer;
      lessonHooks.reveal = { picked, answer: choice.answer, right };
      revealBox.replaceChildren(
        el('p', { class: right ? 'ok' : '', text: picked == null ? `You did not pick. The answer: ${choice.answer}.`
          : right ? `Your prediction, ${picked}, was right.` : `You predicted ${picked}; the answer: ${choice.answer}.` }),
        md(choice.reveal));
      revealBox.hidden = false;
    }
    if (!s.expect.length) return;
    try {
      const out = await hooks.client.lessonExpect(source.name, source.text, i, report);
      lessonHooks.expects = out;
      expectBox.replaceChildren(...out.map((/** @type {any} */ o) => el('li', { class: o.pass ? 'pass' : 'fail', 'data-line': String(o.line) },
        `${o.pass ? '✓' : '✗'} ${o.text}${o.pass ? ` (${JSON.stringify(o.actual)})` : `: ${o.message}`}`)));
      expectBox.hidden = false;
    } catch (e) {
      lessonHooks.expects = [];
    }
  };

  let was = false;
  /** @type {{report: any, errors: number}|null} */
  let seen = null;
  const snapshot = () => ({ report: panel.lastReport ?? null, errors: panel.errors?.length ?? 0 });
  const settle = (/** @type {any} */ returned) => {
    const before = seen ?? { report: null, errors: 0 };
    seen = snapshot();
    const report = panel.lastReport ?? returned ?? null;
    if (report && report !== before.report && report.status !== 'stopped') {
      lessonHooks.runs++;
      lessonHooks.report = report;
      const best = resultOf(report)?.best;
      setStatus('done', tune ? (best ? `Done: arm #${best.arm} chosen. Read the chart, the bracket and the table, then go on.` : 'Done.')
        : 'Done: compare the methods on the charts, then go on.');
      afterRun(report);
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
    if (now) { seen = seen ?? snapshot(); setStatus('running', 'Running…'); revealBox.hidden = true; expectBox.hidden = true; showResults(); } else settle(undefined);
  };

  const run = async () => {
    if (!panel || panel.running || lessonHooks.status === 'invalid') return;
    seen = snapshot();
    setStatus('running', 'Running…');
    showResults();
    let returned;
    try {
      returned = await panel.run();
    } catch (e) {
      setStatus('error', `The run failed: ${/** @type {any} */ (e)?.message ?? e}`);
      return;
    }
    if (lessonHooks.status === 'running') { was = false; settle(returned); }
  };
  runBtn.addEventListener('click', run);

  /**
   * Loads step `i`'s config into the panel, then checks that the panel holds exactly that config (the core's
   * check of what the panel would run against the lesson's): a field the panel cannot show is an error at the
   * step's line, so the page never runs another experiment than `tunelab lesson check`. @param {number} i
   */
  const loadStep = async (i) => {
    const want = lesson.configs[i];
    await panel.load(structuredClone(want));
    const p = panel.panel;
    if (!p?.experiment) return;
    const got = (await hooks.client.check(p.experiment(p.state))).config;
    const d = firstDiff(want, got);
    if (d) {
      throw Object.assign(new Error(`${source.name}:${configLine(i)}: step ${i + 1}: the ${PANEL_NAMES[name] ?? name} panel cannot show \`${d.path}\` = ${JSON.stringify(d.want)} (it would run ${JSON.stringify(d.got)})`), { lesson: true });
    }
  };

  applyBtn.addEventListener('click', async () => {
    const s = steps[step - 1];
    if (!s.patch || !panel) return;
    try {
      await loadStep(step - 1);
      setStatus('ready', `Changed: ${s.apply ?? 'this step\'s settings'}. Press Run.`);
    } catch (e) {
      setStatus(/** @type {any} */ (e)?.lesson ? 'invalid' : 'error', `${/** @type {any} */ (e)?.lesson ? '' : 'The change could not be applied: '}${/** @type {any} */ (e)?.message ?? e}`);
    }
  });

  /** The box on top of the panel's settings (wide) or of its results (narrow: stacked under the settings). */
  const place = () => {
    const form = panel?.section?.querySelector('form');
    const results = panel?.section?.querySelector('.results');
    if (!form || !results) {
      (panel?.section ?? lessonHost()).prepend(box);
      return;
    }
    const put = () => {
      if (panel.section.hidden) return;
      const stacked = Math.abs(results.getBoundingClientRect().left - form.getBoundingClientRect().left) < 20;
      const host = stacked ? results : form;
      if (box.parentElement !== host) host.prepend(box);
    };
    put();
    addEventListener('resize', put, { signal: off.signal });
    if (options.embed && !tune) foldSettings(panel);
  };

  render();
  const start = async () => {
    panel = await findPanel(name);
    if (off.signal.aborted) return;
    panel?.show?.();
    place();
    if (!panel) {
      runBtn.disabled = true;
      applyBtn.disabled = true;
      await mdReady; // the steps and the citation are shown before the lesson says what it is missing
      if (off.signal.aborted) return;
      setStatus('missing-panel', `This lesson needs the ${PANEL_NAMES[name] ?? name} panel, which this build of the playground does not have yet. `
        + 'The steps below still describe the experiment.');
      return;
    }
    // The lesson's Run runs the panel as the run bar's Run does; it stays in the box, after the step's Apply, so a
    // keyboard reaches it from Next in a few Tabs (the run bar's Run is at the end of the panel's settings).
    seen = snapshot();
    mo = new MutationObserver(onRunning);
    for (const target of [panel.section, document.body]) if (target) mo.observe(target, { attributes: true, attributeFilter: ['data-running'] });
    // Settings the link gives explicitly win over the lesson's (a copied link reproduces what was on screen):
    // the tune panel's unprefixed keys, another panel's namespaced ones (`bandit.rounds=...`).
    const prefix = panel.panel?.prefix;
    const link = opts.link ?? new URLSearchParams();
    const fromLink = tune ? [...link.keys()].filter((k) => k in DEFAULTS)
      : prefix ? [...link.keys()].filter((k) => k.startsWith(`${prefix}.`)).map((k) => k.slice(prefix.length + 1)) : [];
    const linkState = { ...(panel.panel?.state ?? panel.state ?? {}) };
    try {
      await loadStep(step - 1);
    } catch (e) {
      runBtn.disabled = true;
      applyBtn.disabled = true;
      const msg = /** @type {any} */ (e)?.message ?? String(e);
      setStatus('invalid', /** @type {any} */ (e)?.lesson ? msg : `The ${PANEL_NAMES[name] ?? name} panel could not load this lesson: ${msg}`);
      return;
    }
    await mdReady; // the steps are shown as Markdown before the lesson says it is ready
    if (off.signal.aborted) return;
    const keep = Object.fromEntries(fromLink.filter((k) => k in linkState).map((k) => [k, linkState[k]]));
    if (Object.keys(keep).length) await panel.load(keep);
    setStatus('ready', 'Loaded. Press Run to start.');
    showResults();
    if (opts.autorun) await run();
  };
  start();
  return {
    key: '',
    close: () => {
      off.abort();
      mo?.disconnect();
      box.remove();
      panel?.section?.querySelector('#lesson-settings')?.remove();
      delete document.body.dataset.lessonPredict;
      window.dispatchEvent(new CustomEvent('tunelab:lesson-step', { detail: { lesson: null, step: 0, predict: false } }));
    },
  };
}

/**
 * The header's Lessons menu: the built-in lessons (their titles and what they teach, read from their files by
 * the core's parser) and three ways to open one's own: a file (or drop one on the page), pasted text, a web
 * address. Following a built-in lesson's link (`#lesson=ID`) opens it without reloading the page.
 */
function lessonsMenu() {
  const list = $('lessons-list');
  if (!list) return;
  const menu = /** @type {HTMLDetailsElement} */ ($('lessons-menu'));
  const items = el('ol', { id: 'lessons-builtin' }, ...BUILTIN_LESSONS.map((id) => el('li', {},
    el('a', { href: `#lesson=${encodeURIComponent(id)}`, 'data-lesson': id },
      el('strong', { text: id }), el('span', { class: 'teaches', text: '' }), el('span', { class: 'meta', text: '' })))));
  const mark = () => {
    const at = hashParams().get('lesson');
    for (const a of items.querySelectorAll('a')) a.toggleAttribute('aria-current', a.dataset.lesson === at);
    for (const a of items.querySelectorAll('a[aria-current]')) a.setAttribute('aria-current', 'page');
  };
  for (const a of items.querySelectorAll('a')) a.addEventListener('click', () => { menu.open = false; });
  // Titles from the files themselves, once, when the menu first opens (parsed only: nothing is checked or run).
  let filled = false;
  const fill = async () => {
    if (filled) return;
    filled = true;
    const hooks = win.__tunelab;
    await hooks.client?.ready?.().catch(() => {});
    await Promise.all(BUILTIN_LESSONS.map(async (id) => {
      const a = items.querySelector(`a[data-lesson="${id}"]`);
      try {
        const src = await fetchLesson(builtinUrl(id));
        const l = await hooks.client.lesson(`lessons/${id}.md`, src.text);
        a.querySelector('strong').textContent = l.title;
        a.querySelector('.teaches').textContent = l.teaches;
        a.querySelector('.meta').textContent = `${PANEL_NAMES[l.kind] ?? l.kind} · ${l.steps.length} steps${l.minutes ? ` · about ${l.minutes} min` : ''}`;
      } catch (e) {
        a.querySelector('.meta').textContent = `Could not read lessons/${id}.md: ${/** @type {any} */ (e)?.message ?? e}`;
      }
    }));
    list.dataset.filled = 'true';
  };
  menu.addEventListener('toggle', () => { if (menu.open) fill(); });

  const fileInput = /** @type {HTMLInputElement} */ (el('input', { type: 'file', id: 'lesson-file', accept: '.md,.markdown,.txt,text/markdown,text/plain', class: 'sr-only', tabindex: '-1' }));
  const fileBtn = el('button', { type: 'button', id: 'lesson-open-file' }, 'Open a lesson file…');
  fileBtn.addEventListener('click', () => fileInput.click());
  const fromFile = async (/** @type {File} */ f) => {
    menu.open = false;
    try { await openLocalLesson(await readLessonFile(f)); } catch (e) { lessonMessage('This lesson cannot be opened', String(/** @type {any} */ (e)?.message ?? e), 'invalid'); }
  };
  fileInput.addEventListener('change', () => { const f = fileInput.files?.[0]; fileInput.value = ''; if (f) fromFile(f); });
  const paste = /** @type {HTMLTextAreaElement} */ (el('textarea', { id: 'lesson-paste', rows: '4', spellcheck: 'false', 'aria-label': 'Lesson text (Markdown)', placeholder: '---\ntitle: …\nkind: tune\npreset: demo\n---\n## First step\n…' }));
  const pasteBtn = el('button', { type: 'button', id: 'lesson-open-paste' }, 'Open the pasted lesson');
  pasteBtn.addEventListener('click', async () => {
    menu.open = false;
    try { await openLocalLesson(pastedLesson(paste.value)); } catch (e) { lessonMessage('This lesson cannot be opened', String(/** @type {any} */ (e)?.message ?? e), 'invalid'); }
  });
  const urlIn = /** @type {HTMLInputElement} */ (el('input', { type: 'url', id: 'lesson-url-input', placeholder: 'https://…/lesson.md', 'aria-label': 'Address of a lesson file' }));
  const urlBtn = el('button', { type: 'button', id: 'lesson-open-url' }, 'Open');
  urlBtn.addEventListener('click', () => {
    if (!urlIn.value.trim()) return;
    menu.open = false;
    editHash((p) => { p.delete('lesson'); p.delete('step'); p.set('lesson-url', urlIn.value.trim()); });
    lessonFromHash();
  });
  list.replaceChildren(items,
    el('div', { class: 'lesson-own', id: 'lesson-own' },
      el('h2', { text: 'Your own lesson' }),
      el('p', { class: 'help' }, 'A Markdown file (', el('a', { href: new URL('docs/write-a-lesson.html', document.baseURI).href, target: '_blank', rel: 'noopener' }, 'how to write one'), '): open it, drop it on the page, paste it or give its address.'),
      el('div', { class: 'buttons wrap' }, fileBtn, fileInput),
      paste, el('div', { class: 'buttons wrap' }, pasteBtn),
      el('div', { class: 'row' }, urlIn, urlBtn)));
  const summary = document.querySelector('#lessons-menu > summary');
  if (summary) summary.textContent = `Lessons (${BUILTIN_LESSONS.length})`;
  mark();
  window.addEventListener('hashchange', mark);
  // A lesson file dropped anywhere on the page (a CSV goes to the panel's own file input, not here).
  const isLessonFile = (/** @type {File} */ f) => /\.(md|markdown|txt)$/i.test(f.name);
  document.addEventListener('dragover', (e) => { if ([...(e.dataTransfer?.items ?? [])].some((i) => i.kind === 'file')) e.preventDefault(); });
  document.addEventListener('drop', (e) => {
    const f = e.dataTransfer?.files?.[0];
    if (!f || !isLessonFile(f)) return;
    e.preventDefault();
    fromFile(f);
  });
  // Closes on Escape and on a click elsewhere.
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
  hooks.embed = { options: { ...options }, isolationReport, embedUrl, fullPageUrl, iframeSnippet };
  if (options.embed) {
    document.body.classList.add('embed');
    embedBar();
    hideGroups();
    if (!options.lesson) panelsReady.then(() => foldSettings(hooks.panels?.[hooks.panel]));
  } else {
    embedDialog();
    lessonsMenu();
  }
  // A lesson link opens its lesson, when the page starts and whenever the hash names another one.
  lessonFromHash({ autorun: options.autorun, link: params });
  window.addEventListener('hashchange', () => { lessonFromHash(); });
  if (options.autorun && !options.lesson) autorun().catch(() => {});
  hooks.client?.ready().then(() => { hooks.mode = showMode(); }, () => {});
  if (win.__tunelabCoi) win.__tunelabCoi.onchange = () => { if (hooks.info) hooks.mode = showMode(); };
}

// Deferred modules run in document order before DOMContentLoaded: main.js has wired the page by then.
if (win.__tunelab) init();
else document.addEventListener('DOMContentLoaded', init, { once: true });
