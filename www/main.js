// The playground page: starts the compute worker, shows the runtime badge and builds the panel registry
// (www/panels/registry.js: tune, bandit, HOAG, learning-rate schedules, step size). The main thread only draws.
import { ComputeClient, detectFlavour } from './client.js';
import { DEFAULTS } from './panels/tune/state.js';
import { installPanels } from './panels/registry.js';
import { $ } from './shared/dom.js';
import { installScrollCues } from './shared/scroll.js';
import { warmCharts } from './shared/charts.js';
import { installOpenReport } from './shared/open-report.js';

/** Test, lesson and embed hooks: the page's live state (the tune panel's, for the top-level fields), read-only
 * by convention; window.__tunelab.panels[NAME] holds each panel's hook. */
const hooks = /** @type {any} */ (window).__tunelab = {
  state: null, info: null, lastChartData: null, lastResult: null, runs: 0, running: false, errors: [], unknownEvents: [],
  panel: 'tune', panels: {}, client: /** @type {ComputeClient|null} */ (null), DEFAULTS,
};

/** A worker-level error (crash, failed start): shown in the active panel's message line. @param {string} msg */
function showFatal(msg) {
  const p = hooks.panels[hooks.panel]?.panel;
  if (p) p.message(msg, 'error'); else hooks.errors.push(msg);
}

const client = new ComputeClient({ onReady: showRuntime, onFatal: showFatal });
hooks.client = client;

/** @param {import('./client.js').RuntimeInfo} info */
function showRuntime(info) {
  hooks.info = info;
  const badge = $('runtime');
  badge.classList.remove('bad');
  badge.dataset.flavour = info.flavour;
  badge.dataset.threads = String(info.threads);
  const { isolated } = detectFlavour();
  badge.textContent = info.flavour === 'parallel'
    ? `Threads: ${info.threads} (WebAssembly + rayon pool) · v${info.version}`
    : `Single thread (WebAssembly${isolated ? '' : '; page not cross-origin isolated'}) · v${info.version}`;
  badge.title = info.fallback ? `The threaded build could not start (${info.fallback}); running single-threaded.` :
    info.flavour === 'parallel' ? 'The page is cross-origin isolated, so the threaded build runs arms in parallel.' :
      'Threads need the Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy headers; this host does not send them.';
}
client.ready().catch((e) => {
  const badge = $('runtime');
  badge.classList.add('bad');
  badge.textContent = `Compute worker failed: ${e.message}`;
  showFatal(`The compute module could not start: ${e.message}`);
});

installPanels({ client, hooks });
installOpenReport();
installScrollCues(document.body);

// uPlot's code compiled before the first run needs it (charts.js warmCharts), in an idle moment.
if ('requestIdleCallback' in window) requestIdleCallback(() => warmCharts(), { timeout: 3000 }); else setTimeout(warmCharts, 1000);
