// End-to-end (issue 26 item 2, "no main-thread task over 50 ms, also when results render"): for every tab's
// default, the tune default as a comparison and every page preset (tests/e2e/maintask.mjs CASES), a Chromium
// trace of the page's main thread from Run until the results are drawn; no task may take over 50 ms of thread
// CPU time (`tdur` of the trace's RunTask events). CPU, not wall time: on this 2-core machine shared with the
// worker's threads and other jobs a task's wall time counts the time it waited for a core (wall times of 2-7x
// the CPU time were measured); the test prints both, `npm run bench` too (docs/benchmarks.md).
// Sizes: the defaults as the page has them; paper-logreg-page at a fifth of its budget and tvo mnist-page at 3 of
// 10 epochs (the same tables and charts, fewer points); mnist-bnn-page at full size (its result's size was the
// long task: 2.5 million sample values cloned in 200-330 ms before www/worker.js sent them as transferred
// Float64Arrays); pmf-page as a comparison and as one tune run (5,000 posterior coordinates); the D-TTTS
// lesson's runs.
// Checked to fail: with www/worker.js's packSamples returning before it packs (the samples cloned again), the
// pmf-page and mnist-bnn-page cases fail (pmf-page in both of its runs: 76 and 82 ms; docs/benchmarks.md).
// The pmf-page tune run also checks that the virtualised posterior table still shows every coordinate.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';
import { CASES, LESSON_CASES, traceRun } from './maintask.mjs';

const BOUND_CPU_MS = 50;
// The lessons: the D-TTTS lesson's three runs (the issue measured 0.6-0.8 s freezes there); LONGTASK_LESSONS=1
// adds every lesson's runs (about 2 min more; `npm run bench` measures them all, docs/benchmarks.md).
const lessons = LESSON_CASES.filter((c) => process.env.LONGTASK_LESSONS === '1' || c.id.startsWith('lesson d-ttts'));
// LONGTASK_CASES=pmf-page,tvo: only the cases whose id contains one of these.
const only = (process.env.LONGTASK_CASES ?? '').split(',').filter(Boolean);

describe('no main-thread task over 50 ms of CPU from Run until the results are drawn', () => {
  let env;
  before(async () => { env = await launch({ isolation: true }); });
  after(async () => { await env?.close(); });

  for (const c of [...CASES, ...lessons].filter((x) => !only.length || only.some((f) => x.id.includes(f)))) {
    test(c.id, { timeout: 840_000 }, async () => {
      // One run: a task over the bound fails the test. (Until the HOAG default's results draw built its three
      // charts a frame apart, a second run was allowed when the first went over: 57 then 49 ms in one loaded run,
      // uPlot's _commit of the three charts in one task; www/panels/hoag/panel.js `redraw` now builds one per
      // frame, as the learning-rate panel does.)
      const { page, consoleErrors } = await openPage(env.context, env.url);
      try {
        const r = await traceRun(env.context, page, c, { patch: c.quick, timeout: 360_000 });
        const lc = r.longestCpu; const lw = r.longestWall;
        console.log(`# ${c.id}: run ${r.runS.toFixed(1)} s, ${r.tasks} main-thread tasks; longest by CPU ${lc?.cpu_ms} ms (wall ${lc?.wall_ms} ms), longest by wall ${lw?.wall_ms} ms (CPU ${lw?.cpu_ms} ms); ${r.over50Wall} over 50 ms of wall time${r.cpuOver50.length ? `; over the bound: ${JSON.stringify(lc)}` : ''}`);
        assert.equal(r.state, 'done');
        // The trace saw the main thread, with a CPU time for every task (else the bound could not fail).
        assert.ok(r.tasks >= 10, `main-thread tasks traced: ${r.tasks}`);
        // Tasks without a thread time (tdur) cannot be bounded by CPU; they are printed with their wall times. In the
        // merged build's runs of 2026-11-29, 3-5% of tasks came without tdur in every case, each a few microseconds of
        // wall time (earlier runs: at most 1 of 625); their share is printed, and none may be over the bound by wall
        // time (a task's CPU time is at most its wall time), so none can pass unmeasured.
        if (r.withCpu < r.tasks) console.log(`# ${c.id}: ${r.tasks - r.withCpu} of ${r.tasks} tasks without tdur; longest by wall: ${Math.max(...r.noCpu.map((t) => t.dur_ms))} ms`);
        assert.deepEqual(r.noCpu.filter((t) => t.dur_ms > BOUND_CPU_MS), [], `a task without tdur is over ${BOUND_CPU_MS} ms of wall time: ${JSON.stringify(r.noCpu)}`);
        assert.deepEqual(consoleErrors, []);
        if (c.id === 'pmf-page as one tune run') await virtualisedTable(page);
        assert.deepEqual(r.cpuOver50, [], `tasks over ${BOUND_CPU_MS} ms of CPU; the longest: ${JSON.stringify(lc)}`);
      } finally { await page.close(); }
    });
  }
});

/**
 * The 5,000-row posterior table holds the rows in view; scrolled to its end it shows the last coordinate where a
 * full table would put it. @param {import('playwright-core').Page} page
 */
async function virtualisedTable(page) {
  const mean = await page.evaluate(() => window.__tunelab.panels.tune.lastReport.result.best.posterior.mean.length);
  assert.equal(mean, 5000);
  const rows = await page.locator('#post-table tbody tr:not(.spacer)').count();
  assert.ok(rows > 0 && rows < 500, `rows in the DOM: ${rows}`);
  assert.equal(await page.textContent('#post-table tbody tr:not(.spacer) td'), 'θ1');
  await page.evaluate(() => { const w = document.getElementById('post-table').closest('.table-wrap'); w.scrollTop = w.scrollHeight; });
  await page.waitForFunction(() => [...document.querySelectorAll('#post-table tbody tr:not(.spacer) td:first-child')].some((td) => td.textContent === 'θ5000'), null, { timeout: 10_000 });
  const gap = await page.evaluate(() => {
    const w = document.getElementById('post-table').closest('.table-wrap');
    const last = [...document.querySelectorAll('#post-table tbody tr:not(.spacer)')].pop();
    return w.getBoundingClientRect().bottom - last.getBoundingClientRect().bottom;
  });
  assert.ok(Math.abs(gap) < 30, `last row ${gap} px from the box's bottom`);
}
