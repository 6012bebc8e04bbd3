// End-to-end (issue 26 item 2, "main-thread freezes when results arrive"): a run whose result has 5,000
// posterior coordinates (the pmf-page preset's model, 200 users x 300 items x 10 latent factors, run as one
// tune at a small budget) renders without a long main-thread task. A PerformanceObserver({type: 'longtask'})
// is installed before Run. Wall time on a shared machine is not the task's CPU, so the bound is loose: no task
// over 300 ms after Run (before the fix, tasks of 435-498 ms and 319-363 ms built and laid out the 5,000-row
// posterior table and the coordinate menu, three runs; after it, 53-129 ms on a machine loaded by four agents,
// and the test command runs a nice-19 fuzz build beside it); the longest is printed. The virtualised table still shows every coordinate:
// scrolling to its end shows the last one, and the menu offers all 5,000.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone, waitArmCount } from './helpers.mjs';

describe('no long main-thread task when a large result renders', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('pmf-page model as one tune run: no task over 300 ms after Run; the posterior table is complete', { timeout: 180_000 }, async () => {
    await page.selectOption('#preset', 'pmf-page');
    await waitArmCount(page, /arms/);
    if (await page.isChecked('#compare')) await page.click('#compare');
    await page.fill('#budget', '5000');
    await page.dispatchEvent('#budget', 'change');
    const t0 = await page.evaluate(() => {
      /** @type {any} */ (window).__longtasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) /** @type {any} */ (window).__longtasks.push({ start: e.startTime, dur: e.duration }); })
        .observe({ type: 'longtask', buffered: true });
      return performance.now();
    });
    await page.click('#run');
    await waitRunDone(page, 1, 150_000);
    // The menu's options come in chunks after the run: wait for all of them, then one more second of tasks.
    await page.waitForFunction(() => document.getElementById('coord').options.length === 5000, null, { timeout: 30_000 });
    await page.waitForTimeout(1000);
    const tasks = (await page.evaluate(() => /** @type {any} */ (window).__longtasks)).filter((t) => t.start >= t0);
    const longest = Math.max(0, ...tasks.map((t) => t.dur));
    console.log(`# long tasks after Run: ${tasks.length}, longest ${longest.toFixed(0)} ms (wall time: ${tasks.map((t) => t.dur.toFixed(0)).join(', ')})`);
    assert.deepEqual(tasks.filter((t) => t.dur > 300).map((t) => Math.round(t.dur)), []);
    assert.deepEqual(await page.evaluate(() => window.__tunelab.errors), []);

    // The table holds the rows in view, not 5,000; scrolled to the end it shows the last coordinate.
    const mean = await page.evaluate(() => window.__tunelab.panels.tune.lastReport.result.best.posterior.mean.length);
    assert.equal(mean, 5000);
    const rows = await page.locator('#post-table tbody tr:not(.spacer)').count();
    assert.ok(rows > 0 && rows < 500, `rows in the DOM: ${rows}`);
    assert.equal(await page.textContent('#post-table tbody tr:not(.spacer) td'), 'θ1');
    await page.evaluate(() => { const w = document.getElementById('post-table').closest('.table-wrap'); w.scrollTop = w.scrollHeight; });
    await page.waitForFunction(() => [...document.querySelectorAll('#post-table tbody tr:not(.spacer) td:first-child')].some((td) => td.textContent === 'θ5000'), null, { timeout: 10_000 });
    // The last row is where a full table would put it: at the end of the scroll box.
    const gap = await page.evaluate(() => {
      const w = document.getElementById('post-table').closest('.table-wrap');
      const last = [...document.querySelectorAll('#post-table tbody tr:not(.spacer)')].pop();
      return w.getBoundingClientRect().bottom - last.getBoundingClientRect().bottom;
    });
    assert.ok(Math.abs(gap) < 30, `last row ${gap} px from the box's bottom`);
  });
});
