// End-to-end (issue 25, "the CLI and the page run all of it"): the learning-rate tab runs Picheny et al.'s
// Sec. 4 (multi-task warm start) in the page from its URL settings, on the real MNIST digits the worker fetches,
// and the multi-task view shows the report's numbers: the new task's lowest loss after each run per tuner, the
// best candidate's line, a location per task, Algorithm 2's rows on the previous tasks, and a reading that names
// the winner with its value. Small sizes (20 digits per class, 1 run per previous task, 2 per tuner) keep it to
// seconds; the full size is the `mnist-multitask` preset.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';
import { fmt3 } from '../../www/shared/format.js';

const HASH = '#panel=lr-schedule&lr.mt=1&lr.mtpc=20&lr.mtsrc=1&lr.mttgt=2&lr.constant=2&lr.decays=1&lr.factors=0.1&lr.intervals=4&lr.steps=10';

describe('learning-rate tab: the multi-task warm start (Sec. 4)', () => {
  let env;
  before(async () => { env = await launch({ isolation: true }); });
  after(async () => { await env?.close(); });

  test('runs from a URL and its view shows the report\'s numbers', { timeout: 300_000 }, async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url, HASH);
    // The settings came from the URL: the multi-task group is on, the dynamic tuner's settings are hidden.
    assert.equal(await page.isChecked('#lr-mt'), true);
    assert.equal(await page.inputValue('#lr-mtpc'), '20');
    assert.equal(await page.isVisible('#lr-dynamic'), false);
    await page.click('#lr-run');
    await page.waitForFunction(() => { const p = window.__tunelab.panels['lr-schedule']; return p.runs > 0 && !p.running; }, null, { timeout: 240_000 });
    const { report, config, data, message } = await page.evaluate(() => {
      const p = window.__tunelab.panels['lr-schedule'];
      return { report: p.lastReport?.result, config: p.lastReport?.config, data: p.lastChartData, message: document.getElementById('lr-message').textContent };
    });
    assert.match(message, /^Done/, message);
    assert.deepEqual(config.multitask, { ...config.multitask, per_class: 20, source_runs: 1, initial_runs: 4, target_runs: 2 });
    const mt = report.multitask;
    assert.ok(mt, 'the report has its multi-task part');
    assert.equal(mt.tasks.length, 5);
    assert.equal(mt.source_runs.length, 4); // one run per previous task
    for (const t of [mt.universal, mt.learn_location, mt.cold, mt.random]) {
      assert.equal(t.runs.length, 2, t.name);
      assert.equal(t.best_so_far.at(-1), Math.min(...t.runs.map((r) => r.final_loss)), t.name);
    }
    // The view: shown, its chart's lines are the report's best-so-far values, a point per task on the map.
    assert.equal(await page.isVisible('#lr-chart-mt'), true);
    const bestCand = Math.min(...mt.target_grid);
    assert.deepEqual(data.multitask.best_so_far.map((s) => s.y), [mt.universal, mt.learn_location, mt.cold, mt.random].map((t) => t.best_so_far));
    assert.equal(data.multitask.best_candidate, bestCand);
    assert.equal(data.multitask.locations.length, 4);
    const legend = await page.textContent('#lr-h-mt ~ .legend');
    assert.ok(legend.includes(`best of the ${mt.target_grid.length} candidate schedules`) && legend.includes(fmt3(bestCand)), legend);
    // Algorithm 2's rows: one per previous task, its recommendation's final loss and rank among the candidates.
    const rows = await page.$$eval('#lr-mt-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal(rows.length, 4);
    rows.forEach((r, t) => {
      assert.equal(r[0], `${mt.tasks[t][0]} v ${mt.tasks[t][1]}`);
      assert.equal(r[3], fmt3(mt.recommended_final[t]));
      const rank = 1 + mt.source_grid[t].filter((v) => v < mt.recommended_final[t]).length;
      assert.equal(r[5], `${rank} of ${mt.source_grid[t].length}`);
    });
    // The reading names the winner on the new task with its value, computed here from the report.
    const tuners = [mt.universal, mt.learn_location, mt.cold, mt.random];
    const win = tuners.reduce((a, t) => (t.best_so_far.at(-1) < a.best_so_far.at(-1) ? t : a));
    const reading = await page.textContent('#lr-reading');
    assert.ok(reading.includes(`the lowest final training loss is ${fmt3(win.best_so_far.at(-1))} (${win.name})`), reading);
    assert.ok(reading.includes(`reached ${fmt3(bestCand)}`), reading);
    // The export holds the two multi-task charts.
    const canvases = await page.evaluate(() => window.__tunelab.panels['lr-schedule'].panel.canvases().length);
    assert.equal(canvases, 5);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });
});
