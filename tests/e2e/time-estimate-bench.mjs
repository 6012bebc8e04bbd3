// The time estimate shown before Run against the real time (issue 26, item 1): for every tab's default and every
// lesson step (www/lessons.js, its changes applied in order as a student would), the estimate the run bar shows
// before Run (the core's cost model, `summary.cost`, at this device's rate: www/shared/time-estimate.js), the same cost at
// the calibration alone (what a first visit shows), and the real time from Run to the results drawn. A
// measurement on a shared machine, not a test (tests/e2e/time-estimate.test.mjs checks what is stable); the output goes
// to docs/benchmarks.md ("Time estimates").
//   node tests/e2e/time-estimate-bench.mjs [threads]   (default: the page without isolation, one thread, as issue 26 sizes the
//   defaults; threads: the isolated page, the threaded build)
//   node tests/e2e/time-estimate-bench.mjs presets cases out=docs/time-estimates/single-DATE.json   (what the
//   committed measurements are: every Preset menu entry and every maintask case, each on a fresh page)
import { launch } from './helpers.mjs';
import { LESSONS } from './lesson-files.mjs';
import { CASES, loadCase } from './maintask.mjs';
import fs from 'node:fs';
import { estimate } from '../../www/shared/time-estimate.js';
import os from 'node:os';

const threads = process.argv.includes('threads');
// `presets`: every preset of every tab's Preset menu instead (each in a fresh page, no remembered rate: the
// estimate a first visit shows).
const presetsMode = process.argv.includes('presets');
// `cases`: tests/e2e/maintask.mjs CASES (every tab's default, compare mode, the page presets; each case's smaller
// variant where it has one), each in a fresh page as in presets mode. With `presets`, both.
const casesMode = process.argv.includes('cases');
// `out=FILE`: also write the rows (JSON) to FILE (docs/time-estimates/, read by scripts/dev/time-estimate-predict.mjs
// and tests/e2e/time-estimate-fit.test.mjs).
const outFile = process.argv.find((a) => a.startsWith('out='))?.slice(4);
const TABS = ['tune', 'step-size', 'hoag', 'tvo', 'lr-schedule', 'bandit'];
const env = await launch(threads ? { isolation: true } : { isolation: false, serviceWorkers: 'block' });
/** @type {any[]} */
const rows = [];

/** Waits for the estimate of the panel's current settings (after the debounced check), then runs and times it. */
async function measure(page, name, label) {
  await page.waitForTimeout(700);
  await page.waitForFunction((n) => { const p = window.__tunelab.panels[n]; const e = p.estimate; return !p.running && p.runState !== 'checking' && e && (e.seconds != null || e.why); }, name, { timeout: 120_000 });
  const est = await page.evaluate((n) => window.__tunelab.panels[n].estimate, name);
  const t0 = Date.now();
  const out = await page.evaluate(async (n) => { const r = await window.__tunelab.panels[n].panel.run(); return r?.status ?? 'failed'; }, name);
  const wall = (Date.now() - t0) / 1000;
  const took = await page.evaluate((n) => window.__tunelab.panels[n].timing, name);
  const calibrated = est.work != null && est.calibration != null
    ? estimate(est.kind, { work: est.work, unit: 'multiply-adds', seconds: est.fixed ?? 0, unknown: null, phases: est.phases }, est.calibration, {}).seconds : null;
  const row = { label, kind: est.kind, status: out, work: est.work, shown: est.seconds, source: est.source, calibrated, calibration: est.calibration, seconds: took?.seconds ?? wall, why: est.why,
    phases: est.phases.map((/** @type {any} */ p) => [p.name, p.unit, p.work, p.count]) };
  rows.push(row);
  const f = (v) => (v == null ? '–' : v.toFixed(1));
  console.log(`${label.padEnd(44)} ${String(est.kind).padEnd(11)} work ${est.work?.toExponential(2) ?? '–'} · shown ${f(row.shown)} s (${row.source ?? row.why}) · calibration ${f(calibrated)} s · real ${f(row.seconds)} s · shown / real ${row.shown != null ? (row.shown / row.seconds).toFixed(2) : '–'}${out !== 'complete' ? ` [${out}]` : ''}`);
}

try {
  const page = await env.context.newPage();
  await page.goto(env.url);
  await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
  const info = await page.evaluate(() => window.__tunelab.info);
  console.log(`# ${new Date().toISOString()} · ${info.flavour}, ${info.threads} thread(s) · load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} · ${os.cpus().length} CPUs`);
  if (presetsMode) {
    /** @type {[string, string][]} */
    const all = await page.evaluate(() => Object.entries(window.__tunelab.panels).flatMap(([n, p]) => (n === 'tune'
      ? [...document.querySelectorAll('#preset option')].map((o) => /** @type {HTMLOptionElement} */ (o).value)
      : p.panel.presets.map((/** @type {[string, string]} */ x) => x[0])).filter(Boolean).map((v) => [n, v])));
    const filter = (process.env.PRESETS ?? '').split(',').filter(Boolean);
    for (const [name, preset] of all.filter(([n, v]) => !filter.length || filter.some((f) => `${n}:${v}`.includes(f)))) {
      const pp = await env.context.newPage();
      await pp.goto(env.url);
      await pp.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
      await pp.evaluate(async ([n, v]) => { localStorage.removeItem('tunelab.time.rates'); const p = window.__tunelab.panels[n]; p.show(); await p.load(v); }, [name, preset]);
      await measure(pp, name, `preset ${name} ${preset}`);
      await pp.close();
    }
  }
  for (const c of casesMode ? CASES : []) {
    const cp = await env.context.newPage();
    await cp.goto(env.url);
    await cp.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await loadCase(cp, c);
    await cp.evaluate((n) => window.__tunelab.panels[n].panel.flushEstimate?.(), c.panel);
    await measure(cp, c.panel, `case ${c.id}`);
    await cp.close();
  }
  for (const name of presetsMode || casesMode ? [] : TABS) {
    await page.evaluate((n) => window.__tunelab.panels[n].show(), name);
    await measure(page, name, `tab ${name} (default)`);
    if (name === 'tune') {
      // The tuning tab's default as a comparison (its Compare box).
      await page.click('#compare');
      await measure(page, name, 'tab tune, compare (default)');
      await page.click('#compare');
    }
    if (name === 'lr-schedule') {
      // A page preset whose cost model leaves a part out (the multi-task GP fits; docs/HOAG-LRSCHED.md).
      await page.evaluate(() => window.__tunelab.panels['lr-schedule'].load('mnist-multitask'));
      await measure(page, name, 'preset lr-schedule mnist-multitask');
    }
  }
  for (const lesson of presetsMode || casesMode ? [] : LESSONS) {
    const lp = await env.context.newPage();
    await lp.goto(`${env.url}#lesson=${lesson.id}`);
    await lp.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready', null, { timeout: 60_000 });
    await measure(lp, lesson.panel, `lesson ${lesson.id}, step 1`);
    for (const [i, s] of lesson.steps.entries()) {
      if (i === 0) continue;
      await lp.click('#lesson-next');
      if (!s.patch) continue;
      await lp.click('#lesson-apply');
      await lp.waitForFunction(() => /Changed/.test(document.getElementById('lesson-status')?.textContent ?? ''), null, { timeout: 30_000 });
      await measure(lp, lesson.panel, `lesson ${lesson.id}, step ${i + 1} (${s.apply ?? 'change'})`);
    }
    await lp.close();
  }
  console.log(`# load average after: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(JSON.stringify(rows));
  if (outFile) fs.writeFileSync(outFile, `${JSON.stringify(rows, null, 0).replace(/\},\{"label"/g, '},\n{"label"')}\n`);
} finally { await env.close(); }
