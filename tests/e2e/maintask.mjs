// The main thread while a run's results arrive and render (issue 26 item 2): a Chromium trace of the page's
// renderer main thread from Run until the results are drawn. Each top-level task is a `RunTask` trace event with
// its wall time (`dur`) and its thread CPU time (`tdur`, category disabled-by-default-devtools.timeline): on a
// machine whose two cores also run the worker's threads and other jobs, a task's wall time counts the time it
// waited for a core, its CPU time only the work the page asked for. The 50 ms bound is read on CPU time;
// `npm run bench` (tests/e2e/bench.mjs) prints both, and with `profile` a CDP CPU profile names the functions
// the longest task spent its time in. Used by tests/e2e/bench.mjs and tests/e2e/longtask-bench.mjs (measurements; tests/e2e/main-thread.test.mjs runs the same cases untimed).
import { LESSONS } from './lesson-files.mjs';

const PMF_MENU = "document.getElementById('coord').options.length >= 5000";

/**
 * The runs measured: every tab's default, the tune tab's default as a comparison, and every `-page` preset of a
 * Preset menu. `load` goes to window.__tunelab.panels[panel].load (a preset name, {preset, ...patch} or a partial
 * state); `quick` is a smaller patch with a result of the same shape (same tables, charts and row counts), for the
 * test's time budget.
 * @type {{id: string, panel: string, load?: any, quick?: any, done?: string}[]}
 */
export const CASES = [
  { id: 'tune default', panel: 'tune' },
  { id: 'tune default, compare', panel: 'tune', load: { compare: true } },
  { id: 'bandit default', panel: 'bandit' },
  { id: 'hoag default', panel: 'hoag' },
  { id: 'lr-schedule default', panel: 'lr-schedule' },
  { id: 'step-size default', panel: 'step-size' },
  { id: 'tvo default', panel: 'tvo' },
  // The page presets (comparisons of the paper's models at page size).
  // paper-logreg-page: quick at a fifth of the budget (the same 56 arms, tables and reference).
  { id: 'paper-logreg-page', panel: 'tune', load: 'paper-logreg-page', quick: { budget: 200000 } },
  // mnist-bnn-page at full size: its result's size (the tuners' chosen-arm samples, 2.5 million numbers) is
  // what made the long task.
  { id: 'mnist-bnn-page', panel: 'tune', load: 'mnist-bnn-page' },
  // pmf-page: 5,000 posterior coordinates; its coordinate menu is filled in chunks after the run.
  { id: 'pmf-page', panel: 'tune', load: 'pmf-page', done: PMF_MENU },
  // The same model as one tune run (no comparison), at a small budget: the posterior table of 5,000 rows.
  { id: 'pmf-page as one tune run', panel: 'tune', load: { preset: 'pmf-page', compare: false, budget: 5000 }, done: PMF_MENU },
  // tvo mnist-page: quick with 3 epochs instead of 10 (the same 7 methods, charts and table; fewer windows).
  { id: 'tvo mnist-page', panel: 'tvo', load: 'mnist-page', quick: { epochs: 3 } },
  // lr-schedule mnist-multitask (Sec. 4): the multi-task view's chart, location map and table after the run;
  // quick with 2 Algorithm 2 runs per previous task and 3 per tuner (the same view, fewer points).
  { id: 'lr-schedule mnist-multitask', panel: 'lr-schedule', load: 'mnist-multitask', quick: { mtsrc: 2, mttgt: 3 } },
];

/**
 * Each lesson's runs (lessons/*.md): step 1's config, then the config of each step that changes it (its patch on
 * top of the previous steps', as the lesson box's Apply button loads it).
 * @type {{id: string, panel: string, load?: any, quick?: any, done?: string}[]}
 */
export const LESSON_CASES = LESSONS.flatMap((l) => {
  const out = [{ id: `lesson ${l.id}`, panel: l.panel, load: structuredClone(l.configs[0]) }];
  l.steps.forEach((/** @type {any} */ s, /** @type {number} */ i) => {
    if (s.patch) out.push({ id: `lesson ${l.id} step ${i + 1}`, panel: l.panel, load: structuredClone(l.configs[i]) });
  });
  return out;
});

const CATEGORIES = 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline,v8.execute';

/**
 * Shows case `c`'s tab with its preset or config loaded, then `patch`, once the page's panels are ready, and waits
 * until the panel has checked its settings (the tune panel's arm count) so that Run would start.
 * @param {import('playwright-core').Page} page @param {{panel: string, load?: any}} c @param {any} [patch]
 */
export async function showCase(page, c, patch) {
  await page.waitForFunction(() => window.__tunelab?.panels?.tune != null, null, { timeout: 60_000 });
  await page.evaluate(async ({ panel, load, patch }) => {
    const p = window.__tunelab.panels[panel];
    p.show();
    if (load != null) await p.load(load);
    if (patch != null) await p.load(patch);
  }, { panel: c.panel, load: c.load ?? null, patch: patch ?? null });
  await page.waitForFunction((panel) => { const p = window.__tunelab.panels[panel]; return !p.running && p.runState !== 'checking'; }, c.panel, { timeout: 60_000 });
}

/**
 * Loads `c` into its panel (the page must be open, its panels ready), traces the renderer main thread while
 * the panel runs and its results render, and returns the main thread's tasks by wall and CPU time.
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('playwright-core').Page} page
 * @param {{id: string, panel: string, load?: any, done?: string}} c
 * @param {{patch?: any, profile?: boolean, timeout?: number, settle?: number}} [opts]
 *   patch: applied after `load` (e.g. a smaller budget); profile: also a CPU profile of the main thread
 */
export async function traceRun(context, page, c, { patch, profile = false, timeout = 600_000, settle = 1000 } = {}) {
  await showCase(page, c, patch);
  await page.waitForTimeout(300);
  const cdp = await context.newCDPSession(page);
  /** @type {any[]} */
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  if (profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
    await cdp.send('Profiler.start');
  }
  const runs0 = await page.evaluate((panel) => window.__tunelab.panels[panel].runs, c.panel);
  const w0 = Date.now();
  // Run as the button does (the panel's run(); a click on Run calls the same).
  // console.timeStamp marks the press in the trace: tasks that ended before it (the profiler's start) are not counted.
  await page.evaluate((panel) => { console.timeStamp('tunelab-run'); window.__tunelab.panels[panel].run(); }, c.panel);
  await page.waitForFunction(({ panel, n }) => { const p = window.__tunelab.panels[panel]; return p.runs > n && !p.running; },
    { panel: c.panel, n: runs0 }, { timeout, polling: 250 });
  const runS = (Date.now() - w0) / 1000;
  if (c.done) await page.waitForFunction(c.done, null, { timeout: 60_000 });
  // Whatever the panel draws after its done event (frames, idle callbacks): two frames and `settle` ms.
  await page.evaluate((ms) => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, ms)))), settle);
  const state = await page.evaluate((panel) => window.__tunelab.panels[panel].runState, c.panel);
  const cpuProfile = profile ? (await cdp.send('Profiler.stop')).profile : null;
  await cdp.send('Tracing.end');
  await traced;
  await cdp.detach().catch(() => {});
  return { runS, state, ...summarise(events, cpuProfile) };
}

/**
 * The renderer main thread's tasks in a trace: the longest by CPU and by wall, each with the trace events inside
 * it (by name, wall ms) and, with a CPU profile, the page's functions it spent its CPU in.
 * @param {any[]} events @param {any} cpuProfile
 */
export function summarise(events, cpuProfile) {
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
  const mark = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'tunelab-run');
  const from = mark ? mark.ts : -Infinity;
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && main.has(`${e.pid}:${e.tid}`) && e.dur != null && e.ts + e.dur >= from);
  const byCpu = [...tasks].sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0));
  const byWall = [...tasks].sort((a, b) => b.dur - a.dur);
  const t0 = tasks.length ? Math.min(...tasks.map((e) => e.ts)) : 0;
  /** @param {any} top */
  const describe = (top) => {
    if (!top) return null;
    const inside = {};
    for (const e of events) {
      if (e.ph !== 'X' || e === top || e.name === 'ThreadControllerImpl::RunTask' || e.pid !== top.pid || e.tid !== top.tid || e.ts < top.ts || e.ts + (e.dur ?? 0) > top.ts + top.dur) continue;
      const d = e.args?.data;
      const name = /FunctionCall|EventDispatch|TimerFire|FireAnimationFrame|FireIdleCallback|v8\.callFunction/.test(e.name)
        ? `${e.name}(${d?.functionName || d?.type || ''}${d?.url ? ' ' + d.url.replace(/^.*\/(www|node_modules)\//, '$1/') + ':' + d.lineNumber : ''})` : e.name;
      inside[name] = (inside[name] ?? 0) + (e.dur ?? 0) / 1000;
    }
    return {
      at_s: +((top.ts - t0) / 1e6).toFixed(1), wall_ms: Math.round(top.dur / 1000), cpu_ms: Math.round((top.tdur ?? 0) / 1000),
      inside: Object.entries(inside).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${v.toFixed(1)}`),
      functions: cpuProfile ? functionsIn(cpuProfile, top.ts, top.ts + top.dur) : undefined,
    };
  };
  // the end of the run's last task (s after its first), once: where a task without tdur lies against it
  const lastEndS = tasks.length ? +((Math.max(...tasks.map((x) => x.ts + x.dur)) - t0) / 1e6).toFixed(3) : 0;
  return {
    tasks: tasks.length,
    /** tasks with a thread CPU time (tdur): all of them when the trace category gives it */
    withCpu: tasks.filter((e) => e.tdur != null).length,
    /** the tasks without one (where they lie against the run's first and last task, wall ms), for the message */
    noCpu: tasks.filter((e) => e.tdur == null).map((e) => ({ at_s: +((e.ts - t0) / 1e6).toFixed(3), dur_ms: e.dur / 1000, last_end_s: lastEndS, args: e.args })),
    over50Wall: tasks.filter((e) => e.dur > 50_000).length,
    over50Cpu: tasks.filter((e) => (e.tdur ?? 0) > 50_000).length,
    longestCpu: describe(byCpu[0]),
    longestWall: describe(byWall[0]),
    /** CPU ms of the tasks over 50 ms of CPU, longest first */
    cpuOver50: byCpu.filter((e) => (e.tdur ?? 0) > 50_000).map((e) => Math.round(e.tdur / 1000)),
  };
}

/**
 * The page's functions (self time and inclusive time, ms) in a CDP CPU profile between two trace timestamps
 * (µs; the profile's clock is the trace's).
 * @param {any} profile @param {number} from @param {number} to
 */
function functionsIn(profile, from, to) {
  const byId = new Map(profile.nodes.map((/** @type {any} */ n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const ch of n.children ?? []) parent.set(ch, n.id);
  /** @param {any} n */
  const name = (n) => `${n.callFrame.functionName || '(anon)'}${n.callFrame.url ? ' ' + n.callFrame.url.replace(/^.*\/(www|node_modules)\//, '$1/') + ':' + (n.callFrame.lineNumber + 1) : ''}`;
  const self = new Map(); const incl = new Map();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length - 1; i++) {
    t += profile.timeDeltas[i];
    if (t < from || t > to) continue;
    const dt = profile.timeDeltas[i + 1] / 1000;
    const n = byId.get(profile.samples[i]);
    self.set(name(n), (self.get(name(n)) ?? 0) + dt);
    const seen = new Set();
    for (let id = profile.samples[i]; id != null; id = parent.get(id)) {
      const nm = name(byId.get(id));
      if (!/(www|node_modules)\//.test(nm) || seen.has(nm)) continue;
      seen.add(nm); incl.set(nm, (incl.get(nm) ?? 0) + dt);
    }
  }
  /** @param {Map<string, number>} m */
  const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([f, ms]) => `${ms.toFixed(1)} ${f}`);
  return { self: top(self), incl: top(incl) };
}

/**
 * Loads case `c` into its tab on a fresh page, as a first visit: no remembered rates (the estimate comes from the
 * calibration), the tab shown, its preset or config loaded, then its quick patch.
 * @param {import('playwright-core').Page} page @param {{panel: string, load?: any, quick?: any}} c
 */
export async function loadCase(page, c) {
  await page.evaluate(async ({ panel, load, quick }) => {
    localStorage.removeItem('tunelab.time.rates');
    const p = /** @type {any} */ (window).__tunelab.panels[panel];
    p.show();
    if (load != null) await p.load(load);
    if (quick != null) await p.load(quick);
  }, { panel: c.panel, load: c.load ?? null, quick: c.quick ?? null });
}
