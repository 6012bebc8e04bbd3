// The widget's page (bundled by scripts/dev/build-widget.mjs into tunelab/_widget/app.js; runs inside the iframe
// www/widget/loader.js makes): the shims first, then the page's modules in index.html's order (embed mode and
// lessons, then the panels), then what the Python call asked for:
// - a config or a preset loaded into the panel (and run);
// - a report (`tunelab.show`), opened by the page's own "Open a report" path (www/shared/open-report.js
//   `openReport`: parsed strictly in the worker, drawn by its tab's `showOpened`); nothing runs;
// - a lesson file's text (`tunelab.widget(lesson=FILE)`), opened as the page opens a picked file (www/embed.js
//   `openLocalLesson`: the core parses and checks it; a broken file shows its file:line error and runs nothing).
import { bridge } from './shims.js';
import { openLocalLesson } from '../embed.js';
import '../main.js';
import { openReport, PANEL_OF_KIND } from '../shared/open-report.js';

const hooks = /** @type {any} */ (window).__tunelab;

/** Keeps the iframe as tall as the page, so the notebook scrolls and the page does not. */
function followHeight() {
  const measure = () => bridge.resize(document.body.scrollHeight + 2);
  new ResizeObserver(measure).observe(document.body);
  measure();
}

/** Resolves once the page's modules have wired it (www/embed.js starts on DOMContentLoaded). */
const domReady = () => (document.readyState === 'loading'
  ? new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }))
  : Promise.resolve());

async function start() {
  const payload = bridge.payload ?? {};
  const shown = payload.report ? PANEL_OF_KIND[payload.report.kind] : null;
  const panel = shown ?? payload.panel ?? hooks.panel;
  const entry = hooks.panels?.[panel];
  if (!entry) throw new Error(`this page has no panel “${panel}”`);
  bridge.report({ state: 'starting', panel });
  if (payload.report) {
    await openReport(payload.report.text, { name: payload.report.name, origin: 'shown by tunelab.show' });
    bridge.report({ state: 'shown', runState: entry.runState });
    return;
  }
  if (payload.lesson) {
    await domReady();
    await openLocalLesson(payload.lesson);
    const lesson = hooks.lesson ?? {};
    if (lesson.status === 'invalid') throw new Error(lesson.message);
    bridge.report({ state: 'ready', panel: lesson.panel ?? panel, runState: hooks.panels?.[lesson.panel]?.runState ?? entry.runState });
    return;
  }
  if (payload.preset || payload.config) await entry.load(payload.preset ?? payload.config);
  bridge.report({ state: 'ready', runState: entry.runState });
  if (payload.run) {
    await hooks.client.ready();
    const out = await entry.run();
    bridge.report({ state: out ? 'ran' : 'failed', runState: entry.runState, runs: entry.runs });
  }
}

followHeight();
start().catch((e) => {
  const message = e instanceof Error ? e.message : String(e);
  // A lesson's own box already says why it did not open; anything else is said on the panel's run bar.
  if (hooks.lesson?.status !== 'invalid') hooks.panels?.[hooks.panel]?.panel?.message(`The widget could not start: ${message}`, 'error');
  bridge.report({ state: 'error', error: message });
});
