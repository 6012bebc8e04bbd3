// End-to-end: the bandit, HOAG and learning-rate-schedule comparisons run in the page from the core presets
// (edited smaller where needed), fill the chart and the table with every method, and Stop works there too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, foreignRequests } from './helpers.mjs';

let env; let page; let requests;
before(async () => {
  env = await launch({ isolation: true });
  ({ page, requests } = await openPage(env.context, env.url));
});
after(async () => { await env?.close(); });

async function runLab(value, edit = (c) => c) {
  await page.selectOption('#lab-preset', value);
  await page.waitForSelector(`#lab-config[data-preset="${value}"]`, { state: 'attached' });
  const cfg = edit(JSON.parse(await page.inputValue('#lab-config')));
  // The config editor is a closed <details>: open it as a user would, then edit.
  if (!(await page.$eval('details.lab-config', (d) => d.open))) await page.click('details.lab-config summary');
  await page.fill('#lab-config', JSON.stringify(cfg, null, 2));
  const runs = await page.evaluate(() => window.__tunelab.labRuns ?? 0);
  await page.click('#lab-run');
  await page.waitForFunction((n) => (window.__tunelab.labRuns ?? 0) > n, runs, { timeout: 180_000 });
  const msg = await page.textContent('#lab-message');
  assert.match(msg, /^Done/, msg);
  return page.evaluate(() => ({ data: window.__tunelab.labChartData, report: window.__tunelab.labReport.report }));
}

function checkChart(data, n) {
  assert.equal(data.length, n + 1);
  for (let s = 1; s <= n; s++) assert.ok(data[s].some((y) => y != null && Number.isFinite(y)), `series ${s} is empty`);
}

test('bandits: D-TTTS and baselines on a Beta reservoir, regret per algorithm', async () => {
  const { data, report } = await runLab('bandit:beta-reservoir', (c) => ({ ...c, rounds: 200, repeats: 4 }));
  const n = report.algorithms.length;
  assert.equal(n, 6);
  checkChart(data, n);
  assert.equal(await page.locator('#lab-table tbody tr').count(), n);
  assert.ok(report.algorithms.some((a) => /uniform/i.test(a.name)), 'uniform allocation is the floor');
});

test('bandits: D-TTTS choosing SG-MCMC configurations by KSD (table of runs first), regret per algorithm', async () => {
  const { data, report } = await runLab('bandit:sgmcmc-ksd', (c) => ({ ...c, problem: { ...c.problem, pool: 12, replicates: 2, iterations: 400 }, rounds: 150, repeats: 4 }));
  const n = report.algorithms.length;
  assert.deepEqual(report.algorithms.map((a) => a.name), ['d-ttts', 'd-ttts (most pulled)', 'ttts', 'successive-halving', 'hyperband', 'uniform']);
  checkChart(data, n);
  assert.match(report.problem, /pool of 12 x 2 runs/);
  assert.ok(report.algorithms.every((a) => a.recommended.every((r) => /h=/.test(r.label))));
  assert.equal(await page.locator('#lab-table tbody tr').count(), n);
  // the experiment and the edited config are in the URL: a reload restores both
  const hash = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
  assert.equal(hash.get('lab'), 'bandit:sgmcmc-ksd');
  assert.equal(JSON.parse(hash.get('lab.config')).problem.pool, 12);
  await page.reload();
  await page.waitForSelector('#lab-config[data-preset="bandit:sgmcmc-ksd"]', { state: 'attached' });
  assert.equal(await page.inputValue('#lab-preset'), 'bandit:sgmcmc-ksd');
  assert.equal(JSON.parse(await page.inputValue('#lab-config')).problem.pool, 12);
  assert.match(await page.textContent('#lab-message'), /restored from the link/);
});

test('HOAG against grid, random and Bayesian search on logistic regression', async () => {
  const { data, report } = await runLab('hoag:logreg');
  const n = report.methods.length;
  assert.ok(n >= 4, `${n} methods`);
  checkChart(data, n);
  assert.equal(await page.locator('#lab-table tbody tr').count(), n);
});

test('learning-rate schedules on the noisy quadratic', async () => {
  const { data, report } = await runLab('lrsched:noisy-quadratic');
  const n = report.methods.length;
  assert.ok(n >= 3, `${n} methods`);
  checkChart(data, n);
  assert.equal(await page.locator('#lab-table tbody tr').count(), n);
});

test('Stop works for these runs, and nothing left 127.0.0.1', async () => {
  await page.selectOption('#lab-preset', 'lrsched:digits');
  await page.waitForSelector('#lab-config[data-preset="lrsched:digits"]', { state: 'attached' });
  const runs = await page.evaluate(() => window.__tunelab.labRuns ?? 0);
  await page.click('#lab-run');
  await page.waitForTimeout(300);
  await page.click('#lab-stop');
  await page.waitForFunction((n) => (window.__tunelab.labRuns ?? 0) > n, runs, { timeout: 5_000 });
  assert.match(await page.textContent('#lab-message'), /Stopped/);
  assert.equal(await page.isEnabled('#lab-run'), true);
  assert.deepEqual(foreignRequests(requests), []);
});
