// End-to-end: the HOAG kernel-ridge preset (two hyperparameters: the heat map with trajectories, the
// suboptimality, validation and tolerance charts) runs in the HOAG tab and every chart has data. (The main
// thread's longest task during this run is measured by the browser benchmark, tests/e2e/bench.mjs, not here:
// no timing in tests.)
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

describe('HOAG kernel ridge: the charts draw', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page } = await openPage(env.context, env.url, '#panel=hoag'));
  });
  after(async () => { await env?.close(); });

  test('the preset runs and its charts have data', async () => {
    await page.evaluate(() => window.__tunelab.panels.hoag.load('kernel-ridge'));
    const envelope = await page.evaluate(() => window.__tunelab.panels.hoag.run());
    assert.equal(envelope?.status, 'complete', await page.textContent('#hoag-message'));
    const data = await page.evaluate(() => window.__tunelab.panels.hoag.lastChartData);
    assert.ok(data.suboptimality.length >= 2 && data.suboptimality.every((s) => s.x.length > 0 && s.y.length > 0), JSON.stringify(data).slice(0, 400));
    assert.ok(data.validation.every((s) => s.y.length > 0));
    assert.ok(data.landscape, 'the heat map has a landscape');
  });
});
