// The widget's page (bundled by scripts/dev/build-widget.mjs into tunelab/_widget/app.js; runs inside the iframe
// www/widget/loader.js makes): the shims first, then the page's modules in index.html's order (embed mode and
// lessons, then the panels), then what the Python call asked for: a config or a preset loaded into the panel
// (and run), or a report shown in its panel's charts without running anything.
import { bridge } from './shims.js';
import '../embed.js';
import '../main.js';
import { showReport, panelOfKind } from './report.js';

const hooks = /** @type {any} */ (window).__tunelab;

/** Keeps the iframe as tall as the page, so the notebook scrolls and the page does not. */
function followHeight() {
  const measure = () => bridge.resize(document.body.scrollHeight + 2);
  new ResizeObserver(measure).observe(document.body);
  measure();
}

async function start() {
  const payload = bridge.payload ?? {};
  const panel = payload.report ? panelOfKind(payload.report.kind) : payload.panel ?? hooks.panel;
  const entry = hooks.panels?.[panel];
  if (!entry) throw new Error(`this page has no panel “${panel}”`);
  bridge.report({ state: 'starting', panel });
  if (payload.report) {
    await showReport(hooks, payload.report);
    bridge.report({ state: 'shown', runState: entry.runState });
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
  hooks.panels?.[hooks.panel]?.panel?.message(`The widget could not start: ${message}`, 'error');
  bridge.report({ state: 'error', error: message });
});
