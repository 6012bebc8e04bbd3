// End-to-end: a stopped run keeps and shows what it reached, and exports it (issue 26, item 12). The tune panel
// stopped after round 1 shows that round's scores (the best arm so far, labelled partial) and every arm's row;
// a generated panel (bandits) shows the last progress update as a "Partial result (stopped)" card; both export
// the partial report (status "stopped", result null, the progress details reached).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, openPage, waitRunDone, waitArmCount } from './helpers.mjs';

/** 22 arms, MAMBA eta 2 (22 -> 11 -> 5 -> 2), a budget large enough that round 2 takes a while. */
const ETA2 = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-2.5&hby=0.25&batch=0.1,0.02'
  + '&tuner=mamba&eta=2&unit=grad_evals&budget=20000000&metric=ksd&msamples=200&thin=5&start=map&seed=3';

/** Clicks an export button and returns the downloaded file's JSON. */
async function exportJson(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
}

for (const isolation of [true, false]) {
  describe(`Stop keeps what the run reached (${isolation ? 'isolated: shared stop flag' : 'single thread: the worker is replaced'})`, () => {
    let env; let page; let consoleErrors;
    before(async () => {
      env = await launch({ isolation, serviceWorkers: isolation ? 'allow' : 'block' });
      ({ page, consoleErrors } = await openPage(env.context, env.url, ETA2));
    });
    after(async () => { await env?.close(); });

    test('tune: stopped after round 1 was scored, the page shows that round and exports the partial report', { timeout: 180_000 }, async () => {
      await waitArmCount(page, /^22 arms/);
      assert.equal(await page.isDisabled('#export-report'), true);
      await page.click('#run');
      await page.waitForFunction(() => (window.__tunelab.panels.tune.panel.model?.roundsDone.length ?? 0) >= 1, null, { timeout: 150_000 });
      await page.click('#stop');
      await waitRunDone(page, 1);
      assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.runState), 'stopped');
      // Stop was pressed once round 1 was scored; on a slow machine round 2 may have scored some arms before the
      // stop reached the workers. The texts name the last round with scores, as the page's model has it.
      const best = await page.textContent('#best');
      const head = /^Partial \(stopped in round (\d) of 4\): round (\d) scored (\d+) of its (\d+) arms\. Lowest score so far: arm #(\d+) \(h 1e-[\d.]+, batch [\d.]+%/.exec(best ?? '');
      assert.ok(head, best ?? '');
      assert.match(best, /Not the tuner's choice/);
      const reading = await page.textContent('#reading');
      assert.match(reading, /^Partial .*rank the arms reached so far from #\d+ .* to #\d+ /, reading);
      assert.doesNotMatch(reading + best, /no result to read|no arm was chosen/);
      // The round, count and arm named are the page model's: its last round with scores, how many arms that round
      // scored of those it planned, and the lowest of those scores; every arm keeps its row.
      const check = await page.evaluate(() => {
        const m = window.__tunelab.panels.tune.panel.model;
        const last = Math.max(...m.arms.flatMap((a) => a.rounds.map((r) => r.round)));
        const inLast = m.arms.map((a) => ({ id: a.id, s: a.rounds.find((r) => r.round === last)?.score })).filter((x) => x.s !== undefined);
        const ranked = inLast.filter((x) => Number.isFinite(x.s)).sort((a, b) => a.s - b.s);
        return { last, scored: inLast.length, planned: m.schedule[last].arms, lowest: ranked[0]?.id, round: m.round, partial: window.__tunelab.partial, rows: document.querySelectorAll('#arms-table tbody tr').length };
      });
      assert.equal(Number(head[1]), check.round + 1);
      assert.deepEqual([Number(head[2]), Number(head[3]), Number(head[4])], [check.last + 1, check.scored, check.planned]);
      assert.ok(check.last === 0 ? check.scored === 22 : check.scored <= check.planned, JSON.stringify(check));
      assert.equal(check.partial.bestArm, check.lowest);
      assert.equal(Number(head[5]), check.lowest);
      assert.equal(check.rows, 22);
      // The partial report exports: status stopped, no result, the 22 round-1 scores among the details reached.
      assert.equal(await page.isDisabled('#export-report'), false);
      const report = await exportJson(page, '#export-report');
      assert.equal(report.status, 'stopped');
      assert.equal(report.kind, 'tune');
      assert.equal(report.result, null);
      const scored = report.reached.filter((d) => d.type === 'arm-scored' && d.round === 0);
      assert.equal(scored.length, 22);
      assert.ok(report.reached.some((d) => d.type === 'round-finished' && d.round === 0));
      assert.ok(report.compute.done > 0 && report.compute.done < report.compute.total, JSON.stringify(report.compute));
      assert.equal(await page.isDisabled('#export-png'), false);
      // Both chart exports are on and marked partial: the score chart's SVG in its title and footer, the PNG in
      // its footer (the same exportFooter).
      assert.equal(await page.isDisabled('#export-svg'), false);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-svg')]);
      const svg = fs.readFileSync(await dl.path(), 'utf8');
      assert.match(svg, /of each arm against compute \(partial: the run was stopped at \d+%\)<\/text>/);
      assert.match(await page.evaluate(() => window.__tunelab.panels.tune.panel.exportFooter()), /· partial: the run was stopped at \d+%$/);
      // A new run clears the partial result.
      await page.click('#run');
      await page.waitForFunction(() => window.__tunelab.panels.tune.runState === 'running');
      assert.doesNotMatch(await page.textContent('#best'), /Partial/);
      await page.click('#stop');
      await waitRunDone(page, 2);
    });

    test('bandits: a stopped run shows its last progress update as a partial result and exports it', { timeout: 120_000 }, async () => {
      await page.click('#tab-bandit');
      await page.evaluate(() => window.__tunelab.panels.bandit.load({ problem: 'reservoir', a: 1, b: 1, algos: ['ttts', 'uniform'], rounds: 100000, repeats: 8, seed: 1 }));
      await page.click('#bandit-run');
      await page.waitForFunction(() => (window.__tunelab.panels.bandit.panel.curves[0]?.rounds.length ?? 0) > 0, null, { timeout: 60_000 });
      assert.equal(await page.locator('#panel-bandit .partial-card').count(), 0);
      await page.click('#bandit-stop');
      await page.waitForFunction(() => !window.__tunelab.panels.bandit.running, null, { timeout: 10_000 });
      assert.equal(await page.evaluate(() => window.__tunelab.panels.bandit.runState), 'stopped');
      const card = page.locator('#panel-bandit .partial-card');
      assert.equal(await card.count(), 1);
      assert.match(await card.locator('h2').textContent(), /^Partial result \(stopped\)$/);
      assert.match(await card.textContent(), /stopped after \d+ progress updates?; the last one .* reached:/);
      assert.ok(await card.locator('li').count() > 0);
      assert.equal(await page.isDisabled('#bandit-export-report'), false);
      const report = await exportJson(page, '#bandit-export-report');
      assert.equal(report.status, 'stopped');
      assert.equal(report.kind, 'bandit');
      assert.equal(report.result, null);
      assert.ok(report.reached.length > 0);
      // The progress line says where, by the core's count of work done (not the reset bar).
      const pct = Math.round((100 * report.compute.done) / report.compute.total);
      assert.ok(pct > 0, JSON.stringify(report.compute));
      assert.match(await page.textContent('#bandit-stats'), new RegExp(`^Stopped at ${pct}% of the run, after [\\d.]+ s\\.$`));
      // The card shows the last update of the report's `reached`.
      const last = report.reached[report.reached.length - 1];
      const shown = Object.keys(last).filter((k) => k !== 'type');
      assert.equal(await card.locator('li').count(), shown.length);
      // The next run (short) completes and the partial card goes.
      await page.fill('#bandit-rounds', '60');
      await page.click('#bandit-run');
      await page.waitForFunction(() => window.__tunelab.panels.bandit.runState === 'done', null, { timeout: 60_000 });
      assert.equal(await card.count(), 0);
      assert.deepEqual(consoleErrors, []);
    });
  });
}
