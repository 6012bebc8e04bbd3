// End-to-end: the HOAG kernel-ridge preset (two hyperparameters: the heat map with trajectories, the
// suboptimality, validation and tolerance charts) draws in the HOAG tab without a main-thread task over
// 200 ms, measured with a PerformanceObserver on 'longtask' entries (buffered) during the run.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

describe('HOAG kernel ridge: no long main-thread task', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page } = await openPage(env.context, env.url, '#panel=hoag'));
  });
  after(async () => { await env?.close(); });

  test('the preset runs, its charts have data, and the longest task is under 200 ms', async () => {
    await page.evaluate(() => {
      window.__longtasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration }); })
        .observe({ type: 'longtask', buffered: true });
    });
    await page.evaluate(() => window.__tunelab.panels.hoag.load('kernel-ridge'));
    const t0 = await page.evaluate(() => performance.now());
    const envelope = await page.evaluate(() => window.__tunelab.panels.hoag.run());
    assert.equal(envelope?.status, 'complete', await page.textContent('#hoag-message'));
    // Let the last frame draw and the observer deliver.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 300))));
    const data = await page.evaluate(() => window.__tunelab.panels.hoag.lastChartData);
    assert.ok(data.suboptimality.length >= 2 && data.suboptimality.every((s) => s.x.length > 0 && s.y.length > 0), JSON.stringify(data).slice(0, 400));
    assert.ok(data.validation.every((s) => s.y.length > 0));
    assert.ok(data.landscape, 'the heat map has a landscape');
    const tasks = (await page.evaluate(() => window.__longtasks)).filter((t) => t.start >= t0);
    const longest = Math.max(0, ...tasks.map((t) => t.duration));
    assert.ok(longest < 200, `longest main-thread task ${longest.toFixed(0)} ms (${tasks.length} long tasks): ${JSON.stringify(tasks)}`);
  });
});
