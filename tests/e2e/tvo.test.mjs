// End-to-end: the TVO panel (www/panels/tvo/panel.js) and the GP-UCB lesson (`#lesson=gp-ucb`, www/lessons.js), which
// runs the real TVO experiment (a VAE trained by the thermodynamic variational objective while GP-UCB picks its
// schedule). Each step that runs is run in the page with the lesson's seed and the claims of its text are
// checked against the numbers of that run, recomputed here from the report (not through the panel's reading
// module); the panel's reading must be the one generated from the report and must agree with those numbers.
// Stop leaves "Stopped at window ..." and no stale result. MNIST (the mnist-page preset) runs as a data option.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, panelRunDone, hasPoints } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';
import { tvoReading, nats } from '../../www/panels/tvo/reading.js';

const lesson = LESSONS.find((l) => l.id === 'gp-ucb');
const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (v) => { const m = mean(v); return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)); };

/** The spread of beta_1 over the second half of the windows (first seed's and all seeds' runs of `method`). */
function lateSpread(r, method) {
  return sd(r.runs.filter((t) => t.method === method).flatMap((t) => t.windows.slice(t.windows.length / 2).map((w) => w.schedule[1])));
}

/** The reward's trend (mean over the methods of a seed at each window after the first) and the residuals. */
function trendAndResidual(r) {
  const trend = []; const resid = [];
  for (const rep of new Set(r.runs.map((t) => t.repeat))) {
    const runs = r.runs.filter((t) => t.repeat === rep);
    for (let w = 1; w < runs[0].windows.length; w++) {
      const m = mean(runs.map((t) => t.windows[w].reward));
      trend.push(m);
      for (const t of runs) resid.push(t.windows[w].reward - m);
    }
  }
  return { trend: sd(trend), resid: sd(resid) };
}

async function runStep(page, runs) {
  await page.click('#tvo-run');
  await panelRunDone(page, 'tvo', runs, 300_000);
  const report = resultOf(await page.evaluate(() => window.__tunelab.panels.tvo.lastReport));
  const reading = (await page.locator('#tvo-reading p').allTextContents()).join(' ');
  const chart = await page.evaluate(() => window.__tunelab.panels.tvo.lastChartData);
  return { report, reading, chart };
}

describe('the TVO panel and the GP-UCB lesson', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground({ isolation: true }); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('Stop ends a run with "Stopped at window …", no result is left from it', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#panel=tvo`);
    await page.waitForFunction(() => window.__tunelab?.panels?.tvo && window.__tunelab.info != null);
    await page.evaluate(() => window.__tunelab.panels.tvo.load({ epochs: 40, window: 2, methods: ['linear', 'gp-ucb'], seed: 3 }));
    const run = page.evaluate(() => window.__tunelab.panels.tvo.run());
    await page.waitForFunction(() => /Window [1-9]/.test(document.getElementById('tvo-stats')?.textContent ?? ''), null, { timeout: 120_000 });
    await page.click('#tvo-stop');
    const out = await run;
    assert.equal(out.status, 'stopped');
    assert.match(await page.textContent('#tvo-stats'), /^Stopped at window \d+ of 20 \(epoch \d+(; trained to epoch \d+ inside window \d+, not evaluated)?\), after [\d.]+ s\.$/);
    assert.equal((await page.locator('#tvo-reading p').count()), 0, 'no reading from a stopped run');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('MNIST is a data option: the mnist-page preset trains on 14×14 real digits, its state is in the URL', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#panel=tvo`);
    await page.waitForFunction(() => window.__tunelab?.panels?.tvo && window.__tunelab.info != null);
    // the browser-scale preset, cut further to two methods and two epochs to keep the test short
    await page.evaluate(() => window.__tunelab.panels.tvo.load({ preset: 'mnist-page', epochs: 2, methods: ['linear', 'gp-ucb'], iwae_k: 20 }));
    assert.equal(await page.inputValue('#tvo-data'), 'mnist');
    const hash = await page.evaluate(() => decodeURIComponent(location.hash));
    assert.match(hash, /tvo\.data=mnist/);
    assert.match(hash, /tvo\.perclass=120/);
    const out = await page.evaluate(() => window.__tunelab.panels.tvo.run());
    assert.equal(out.status, 'complete');
    const r = resultOf(await page.evaluate(() => window.__tunelab.panels.tvo.lastReport));
    assert.deepEqual([r.pixels, r.n_train, r.n_test], [196, 1000, 200]);
    assert.deepEqual(r.summary.map((m) => m.method), ['gp-ucb', 'linear']);
    for (const m of r.summary) assert.ok(Number.isFinite(m.log_px_mean) && m.log_px_mean < 0 && m.kl_mean > 0, JSON.stringify(m));
    // the URL alone restores the option
    const again = await b.context.newPage();
    await again.goto(`${pg.url}#panel=tvo&tvo.data=mnist&tvo.perclass=50`);
    await again.waitForFunction(() => window.__tunelab?.panels?.tvo);
    assert.equal(await again.inputValue('#tvo-data'), 'mnist');
    assert.equal(await again.inputValue('#tvo-perclass'), '50');
    assert.deepEqual(errors, []);
    await again.close();
    await page.close();
  });

  test('the paper\'s data and VAE are options: 28×28 MNIST, stochastic binarisation and a second hidden layer reach the core from the URL', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // small sizes (12 digits per class, one epoch, one method) keep the test short; the full size is the core's mnist-paper preset
    await page.goto(`${pg.url}#panel=tvo&tvo.data=mnist28&tvo.binarise=stochastic&tvo.hidden=16&tvo.hidden2=8&tvo.perclass=12&tvo.test=20&tvo.evalsize=20&tvo.epochs=1&tvo.window=1&tvo.methods=linear&tvo.curvek=2&tvo.iwaek=5`);
    await page.waitForFunction(() => window.__tunelab?.panels?.tvo && window.__tunelab.info != null);
    assert.equal(await page.inputValue('#tvo-data'), 'mnist28');
    assert.equal(await page.inputValue('#tvo-binarise'), 'stochastic');
    assert.equal(await page.inputValue('#tvo-hidden2'), '8');
    const out = await page.evaluate(() => window.__tunelab.panels.tvo.run());
    assert.equal(out.status, 'complete');
    const rep = await page.evaluate(() => window.__tunelab.panels.tvo.lastReport);
    assert.equal(rep.config.binarisation, 'stochastic');
    assert.deepEqual(rep.config.hidden, [16, 8]);
    assert.deepEqual(rep.config.data, { source: 'mnist', pool: 1, per_class: 12 });
    const r = resultOf(rep);
    assert.deepEqual([r.pixels, r.n_train, r.n_test], [784, 100, 20]);
    assert.ok(Number.isFinite(r.summary[0].log_px_mean) && r.summary[0].log_px_mean < 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('every step\'s claims hold on its run; the reading matches the report', async (t) => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=gp-ucb`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    const texts = [await page.textContent('#lesson-text')];
    assert.equal(texts[0], lesson.steps[0].text);
    assert.equal(await page.evaluate(() => window.__tunelab.panel), 'tvo');

    // Step 2: run the lesson's config.
    await page.click('#lesson-next');
    texts.push(await page.textContent('#lesson-text'));
    assert.equal(texts[1], lesson.steps[1].text);
    const s2 = await runStep(page, 1);
    const r = s2.report;
    // Step 1: "d = 5 terms", "Every epoch (10 windows in 10 epochs) GP-UCB picks the 4 free points".
    assert.match(texts[0], /d = 5 terms.*Every epoch \(10 windows in 10 epochs\) GP-UCB picks the 4 free points/s);
    assert.equal(r.d, 5);
    for (const t of r.runs) {
      assert.equal(t.windows.length, 10, t.method);
      assert.deepEqual(t.windows.map((w) => w.epoch), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const w of t.windows) { assert.equal(w.schedule.length, 5); assert.equal(w.schedule[0], 0); }
    }
    // Step 2: "Three methods", "every method gains more than a nat over the run", "at the end all three lie within
    // a fifth of a nat of each other", "GP-UCB ... does not finish first in this run (here random schedules tie
    // with it to a thousandth of a nat)".
    assert.match(texts[1], /Three methods.*every method gains more than a nat over the run, and at the end all three lie within a fifth of a nat of each other\. GP-UCB, the paper's method, does not finish first in this run \(here random schedules tie with it to a thousandth of a nat\)/s);
    assert.deepEqual(r.summary.map((m) => m.method), ['gp-ucb', 'random', 'linear']);
    for (const t of r.runs) {
      const gain = t.windows.at(-1).test_log_px - t.windows[0].test_log_px;
      assert.ok(gain > 1, `${t.method} gains ${gain}`);
    }
    const finals = r.summary.map((m) => m.log_px_mean);
    const range = Math.max(...finals) - Math.min(...finals);
    assert.ok(range < 0.2, `final log p(x) range ${range}`);
    const best = r.summary.reduce((a, m) => (m.log_px_mean > a.log_px_mean ? m : a));
    const gp = r.summary.find((m) => m.method === 'gp-ucb');
    assert.notEqual(best.method, 'gp-ucb');
    const rnd = r.summary.find((m) => m.method === 'random');
    assert.ok(Math.abs(rnd.log_px_mean - gp.log_px_mean) < 1e-3, `random ${rnd.log_px_mean} vs gp-ucb ${gp.log_px_mean}`);
    // The chart shows what the report holds: one log p(x) curve per method (10 windows), GP-UCB's 4 points.
    assert.equal(s2.chart.logpx.length, 3);
    for (const c of s2.chart.logpx) assert.equal(c.y.length, 10, c.name);
    assert.deepEqual(s2.chart.betas.map((x) => x.name), ['β1', 'β2', 'β3', 'β4']);
    assert.deepEqual(s2.chart.betas[0].y, r.runs.find((t) => t.method === 'gp-ucb').windows.map((w) => w.schedule[1]));
    assert.ok(hasPoints(s2.chart.integrand) && s2.chart.gp && s2.chart.gp.grid.length > 10);
    // The reading is the one generated from the report, names the winner and the gap, and says GP-UCB lost.
    assert.equal(s2.reading, tvoReading(r).join(' '));
    // The gap rounds to 0.000 nats here (see step 2's "tie"): the reading says "by a tie", not "loses".
    assert.ok(s2.reading.startsWith(`GP-UCB is not first here, by a tie: test log p(x) ${nats(gp.log_px_mean)} nats`), s2.reading);
    assert.ok(s2.reading.includes(`the best is ${best.method} with ${nats(best.log_px_mean)}, less than 0.001 nats higher: equal at three decimals`), s2.reading);
    assert.ok(s2.reading.includes(`within ${nats(range)} nats of each other`), s2.reading);
    t.diagnostic(`step 2: ${r.summary.map((m) => `${m.method} ${nats(m.log_px_mean)}`).join(', ')}`);

    // Step 3: "over the second half of training its β₁ varies more than that of the random schedules", "the
    // reward ... varies several times more over windows than the schedules move it".
    await page.click('#lesson-next');
    texts.push(await page.textContent('#lesson-text'));
    assert.match(texts[2], /over the second half of training its β₁ varies more than that of the random schedules.*varies several times more over windows than the schedules move it/s);
    const sGp = lateSpread(r, 'gp-ucb'); const sRnd = lateSpread(r, 'random');
    assert.ok(sGp > sRnd, `beta_1 spread: gp-ucb ${sGp}, random ${sRnd}`);
    const tr = trendAndResidual(r);
    assert.ok(tr.trend > 3 * tr.resid, `reward trend sd ${tr.trend}, residual sd ${tr.resid}`);
    // ... and the reading prints both comparisons with these numbers.
    const f3 = (v) => Number(v.toPrecision(3)).toString();
    assert.ok(s2.reading.includes(`its β₁ has a standard deviation of ${f3(sGp)} (random schedules: ${f3(sRnd)})`), s2.reading);
    assert.ok(s2.reading.includes(`(sd ${f3(tr.trend)} over windows), not the schedule (sd ${f3(tr.resid)} of the reward`), s2.reading);

    // Step 4: three seeds of two methods (5 epochs): a band and a paired difference over the seeds.
    await page.click('#lesson-next');
    texts.push(await page.textContent('#lesson-text'));
    assert.equal(texts[3], lesson.steps[3].text);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => /^Changed: .*\. Press Run\.$/.test(window.__tunelab.lesson.message));
    const s4 = await runStep(page, 2);
    const r4 = s4.report;
    assert.deepEqual(r4.summary.map((m) => m.method), ['gp-ucb', 'linear']);
    for (const m of r4.summary) assert.equal(m.log_px.length, 3, m.method);
    for (const t of r4.runs) assert.equal(t.windows.length, 5, t.method);
    assert.equal(s4.reading, tvoReading(r4).join(' '));
    const g4 = r4.summary[0];
    const other = r4.summary.slice(1).reduce((a, m) => (m.log_px_mean > a.log_px_mean ? m : a));
    const diff = g4.log_px.map((v, i) => v - other.log_px[i]);
    assert.ok(s4.reading.includes(`Paired over the 3 seeds (same initial weights, minibatches and test draws) GP-UCB minus ${other.method} is ${nats(mean(diff))} ± ${nats(sd(diff))} nats`), s4.reading);
    assert.ok(s4.reading.includes(`GP-UCB is ahead on ${diff.filter((v) => v > 0).length} of 3 seeds`), s4.reading);
    assert.equal(await page.locator('#tvo-table tbody tr').count(), 2);
    t.diagnostic(`step 3: beta_1 sd ${sGp} vs ${sRnd}; reward trend sd ${tr.trend} vs residual ${tr.resid}`);
    t.diagnostic(`step 4: ${s4.reading}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
