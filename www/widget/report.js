// tunelab.show(report) in the widget: a report envelope (the CLI's JSON document: kind, status, config, compute,
// result) shown in its kind's panel through the panel's own result path (`begin` then `finish`, as after a run
// in the page), with its config in the form. Nothing runs; the run bar says where the numbers come from.

/** The panel that shows a kind's report (a comparison is the tuning panel's compare mode). */
const PANEL_OF_KIND = /** @type {Record<string, string>} */ ({
  tune: 'tune', compare: 'tune', bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr-schedule', 'step-size': 'step-size', tvo: 'tvo',
});

/** @param {string} kind */
export function panelOfKind(kind) {
  const name = PANEL_OF_KIND[kind];
  if (!name) throw new Error(`a report of kind “${kind}” has no panel (known kinds: ${Object.keys(PANEL_OF_KIND).join(', ')})`);
  return name;
}

/**
 * A report's chosen-arm samples (the JSON document's flat row-major `samples` next to its `dim`: a tune report's
 * `best`) as the run's flat Float64Array and its dimension. @param {any} result
 */
function samplesOf(result) {
  const holder = Array.isArray(result?.best?.samples) ? result.best : result;
  const xs = holder?.samples;
  const dim = Number(holder?.dim ?? 0);
  if (!Array.isArray(xs) || !xs.length || !(dim > 0)) return { samples: new Float64Array(0), dim: 0 };
  return { samples: Float64Array.from(xs.flat()), dim };
}

/**
 * Shows `env` in its panel; resolves once it is drawn.
 * @param {any} hooks window.__tunelab @param {import('../protocol.js').Envelope} env
 */
export async function showReport(hooks, env) {
  const name = panelOfKind(env.kind);
  const entry = hooks.panels[name];
  const p = entry.panel;
  entry.show();
  // The form shows the report's config (what the form can express of it); loading it runs nothing.
  await entry.load({ ...env.config, kind: env.kind });
  p.lastConfig = env.config;
  if (env.status !== 'complete' || env.result == null) {
    p.lastReport = env;
    entry.lastReport = env;
    p.setRunState('stopped', 'This report is of a stopped run: it holds no result to draw.');
    p.message(`Opened from a report (${env.kind}, stopped): nothing ran here, and a stopped run's report has no result to draw.`, 'info');
    return;
  }
  const seconds = Number(env.compute?.wall_seconds ?? 0);
  p.begin(env.config);
  p.lastReport = env;
  entry.lastReport = env;
  await p.finish(env.result, seconds, { report: env, ...samplesOf(env.result) });
  entry.lastChartData = p.chartData();
  p.progress(1, `Opened from a report: its run took ${seconds.toFixed(1)} s on ${env.compute?.threads ?? '?'} thread(s) where it was made; nothing ran here.`);
  p.setRunState('done');
  // The panel's own headline of the result (its chosen arm, its winner) stays, after where it comes from.
  const said = p.bar.part('message')?.textContent ?? '';
  p.message(`Opened from a report (${env.kind}): these charts are the report's numbers; nothing ran here (Run runs its config again in this notebook).${said ? ` ${said}` : ''}`, 'info');
}
