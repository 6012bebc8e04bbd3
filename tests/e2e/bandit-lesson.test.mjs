// End-to-end: the D-TTTS lesson (`#lesson=d-ttts`, www/lessons.js) is true. Each step that runs is run in the
// page with the lesson's seed, and the claims of its text are checked against the numbers the run produces; the
// bandit panel's reading (www/panels/bandit/reading.js) is checked against the same report: it names the method with
// the lowest final simple regret, quotes its numbers, and when D-TTTS loses gives a reason built from them.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, panelRunDone, nonLoopback } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';
import { armsKept, ARM_STATS_CAP } from '../../www/panels/bandit/reading.js';

const lesson = LESSONS.find((l) => l.id === 'd-ttts');
const by = (r, kind) => r.algorithms.find((a) => a.kind === kind);
const fin = (a) => a.final_simple_regret.mean;
const arms = (a) => a.distinct_arms.mean.at(-1);

/** Runs the step shown (after applying its patch, if any): the report, the page's reading, and what the
 * page's modules (www/panels/bandit/reading.js, www/shared/charts.js: they import uPlot, so they are evaluated in the page)
 * make of the report. */
async function runStep(page, runs) {
  await page.click('#bandit-run');
  await panelRunDone(page, 'bandit', runs, 180_000);
  const report = resultOf(await page.evaluate(() => window.__tunelab.panels.bandit.lastReport));
  const reading = await page.textContent('#bandit-reading');
  const derived = await page.evaluate(async (r) => {
    const m = await import('/www/panels/bandit/reading.js');
    const c = await import('/www/shared/format.js');
    const { dttts, winner, algos, ...f } = m.banditFacts(r);
    return {
      reading: m.readBandit(r).join(' '),
      facts: { ...f, winnerName: winner.name, dtttsName: dttts?.name ?? null },
      recs: r.algorithms.map((a) => m.recText(a.recommended[0], r.config.problem)),
      best: c.fmtSci(Math.min(...r.algorithms.map((a) => a.final_simple_regret.mean))),
      pullsNeeded: c.fmtSci(m.banditFacts(r).pullsNeeded),
    };
  }, report);
  return { report, reading, derived };
}

/** The reading shown is the one generated from the report, and its claims hold. */
function checkReading({ report, reading, derived }) {
  assert.equal(reading.trim(), derived.reading);
  const f = derived.facts;
  const best = Math.min(...report.algorithms.map(fin));
  const winner = report.algorithms.find((a) => a.name === f.winnerName);
  assert.equal(fin(winner), best);
  assert.ok(reading.startsWith(`${winner.name} has the lowest final simple regret after ${report.rounds.at(-1)} pulls: ${derived.best} [`), reading);
  if (f.lost) {
    assert.match(reading, /D-TTTS loses/);
    assert.ok(reading.includes(`It tried ${Math.round(arms(by(report, 'd-ttts')))} distinct arms`), reading);
    assert.ok(reading.includes(`${f.rare ? 'Good arms are rare here' : 'Good arms are not rare here'}${f.rare ? ': only' : ':'} ${f.good} of ${armsKept(f.tried).replace('it pulled', 'D-TTTS pulled')}`), reading);
    // D-TTTS tried more arms than the report keeps (254 > 200): the reading says so rather than "the 200 arms".
    if (f.tried >= ARM_STATS_CAP) assert.match(reading, /the 200 most-pulled arms of repeat 0 \(the report keeps at most 200\)/);
    assert.ok(reading.includes(`takes about ${derived.pullsNeeded} pulls each against ${f.perArm.toFixed(1)}: the budget is too short for arm-adding to pay off`), reading);
  } else {
    // "wins" only where the bands separate from the runner-up's; otherwise a tie is named.
    const second = report.algorithms.filter((a) => a !== winner).reduce((b, a) => (fin(a) < fin(b) ? a : b));
    const separated = second.final_simple_regret.lo > winner.final_simple_regret.hi;
    assert.match(reading, separated ? /D-TTTS wins here/ : /D-TTTS has the lowest mean here, a tie with the runner-up/);
  }
  return f;
}

describe('the D-TTTS lesson is true', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground({ isolation: true }); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('every step\'s claims hold on its run; the reading matches the report', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=d-ttts`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    assert.equal(await page.textContent('#lesson-step-no'), `Step 1 of ${lesson.steps.length}`);

    // Step 2: Beta(1, 1).
    await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-text'), lesson.steps[1].text);
    const s2 = await runStep(page, 1);
    const r2 = s2.report;
    const [d2, t2, sh2, u2, rs2] = ['d-ttts', 'ttts', 'successive-halving', 'uniform', 'random'].map((k) => by(r2, k));
    // "TTTS and uniform allocation split the pulls over a fixed draw of √500 ≈ 23 arms, successive halving over 32"
    assert.equal(arms(t2), 23); assert.equal(arms(u2), 23); assert.equal(arms(sh2), 32);
    // "D-TTTS ... tries hundreds of arms" / "random search: 500 arms, one pull each"
    assert.ok(arms(d2) >= 200 && arms(d2) < 500, String(arms(d2)));
    assert.equal(arms(rs2), 500);
    // "random search has the largest regret"
    assert.equal(Math.max(...r2.algorithms.map(fin)), fin(rs2));
    // "here D-TTTS does not beat TTTS"
    assert.ok(fin(d2) > fin(t2), `${fin(d2)} vs ${fin(t2)}`);
    checkReading(s2);
    // the recommended column is readable: no raw arrays, 3 significant digits
    const recs = await page.$$eval('#bandit-table td.rec', (tds) => tds.map((t) => t.textContent));
    assert.deepEqual(recs, s2.derived.recs);
    assert.ok(recs.every((t) => /^arm #\d+ · value /.test(t)), recs.join(' | '));

    // Step 3: Beta(1, 3), good arms rare.
    await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-text'), lesson.steps[2].text);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__tunelab.panels.bandit.state.b === 3);
    const s3 = await runStep(page, 2);
    const r3 = s3.report;
    const [d3, t3] = ['d-ttts', 'ttts'].map((k) => by(r3, k));
    // "D-TTTS now tries more arms than with Beta(1, 1)"
    assert.ok(arms(d3) > arms(d2), `${arms(d3)} vs ${arms(d2)}`);
    // "every method's regret grows" and "its regret relative to TTTS grows"
    for (const a of r3.algorithms) assert.ok(fin(a) > fin(by(r2, a.kind)), a.name);
    assert.ok(fin(d3) / fin(t3) > fin(d2) / fin(t2), `${fin(d3) / fin(t3)} vs ${fin(d2) / fin(t2)}`);
    checkReading(s3);

    // Step 4: a real problem, the kernel classifier on wine.
    await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-text'), lesson.steps[3].text);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__tunelab.panels.bandit.state.problem === 'hpo');
    const s4 = await runStep(page, 3);
    const r4 = s4.report;
    assert.match(r4.problem, /kernel ridge classifier on wine/);
    const [d4, sh4] = ['d-ttts', 'successive-halving'].map((k) => by(r4, k));
    // "successive halving beats D-TTTS here"
    assert.ok(fin(sh4) < fin(d4), `${fin(sh4)} vs ${fin(d4)}`);
    // "the reading says why: good arms are common, the budget is too short to tell them apart"
    // "few of the arms D-TTTS tried are as good as the winner's pick" (under 10%), "a coin flip with sd about
    // 0.13", "far more pulls than the 2-3 it gives each arm"
    const f4 = checkReading(s4);
    assert.equal(f4.lost, true);
    assert.ok(f4.good / f4.tried < 0.1, `${f4.good} of ${f4.tried}`);
    assert.ok(Math.abs(f4.coinSd - 0.13) < 0.015, String(f4.coinSd));
    assert.ok(f4.perArm >= 2 && f4.perArm <= 3, String(f4.perArm));
    assert.ok(f4.pullsNeeded > 10 * f4.perArm, `${f4.pullsNeeded} vs ${f4.perArm}`);
    // hyper-parameters named in the recommended column
    const recs4 = await page.$$eval('#bandit-table td.rec', (tds) => tds.map((t) => t.textContent));
    assert.ok(recs4.every((t) => /^C = [\d.e+-]+, gamma = [\d.e+-]+ · value /.test(t)), recs4.join(' | '));

    assert.deepEqual(errors, []);
    assert.deepEqual(nonLoopback(b.requests), []);
    await page.close();
  });
});
