// End-to-end: the HOAG lesson (#lesson=hoag) runs in the page (single-threaded build) and every step's claims
// hold for the numbers the run produces: one hyperparameter and its landscape (step 1); every curve is the
// accurate held-out loss of the method's current choice, HOAG's own view at its loose first solve is not
// (step 2); the passes to a relative suboptimality of 1e-3 quoted in step 3 are the run's, and the panel's
// generated reading names the winner and the numbers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, nonLoopback, lessonDone } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';

const LESSON = LESSONS.find((l) => l.id === 'hoag');

/** Passes (and seconds) until the accurate curve first reaches a relative suboptimality of 1e-3. */
function passesTo(report, name) {
  const m = report.methods.find((x) => x.name === name);
  assert.ok(m, `method ${name} in the report`);
  const ref = Math.abs(report.reference_optimum);
  const hit = m.trace.find((p) => p.suboptimality / ref <= 1e-3);
  return hit ? hit.cost : Infinity;
}

describe('the HOAG lesson', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground(); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('each step\'s claims hold for the run\'s numbers', { timeout: 180_000 }, async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=hoag&autorun=1`);
    const status = await lessonDone(page);
    assert.equal(status.status, 'done', status.message);
    const report = resultOf(await page.evaluate(() => window.__tunelab.panels.hoag.lastReport));
    assert.ok(report && report.methods.length === 8, 'a report with the eight default methods');

    // Step 1: one hyperparameter; the landscape is drawn on the lesson's grid.
    assert.match(LESSON.steps[0].text, /One hyperparameter/);
    assert.equal(report.hyper_names.length, 1);
    assert.equal(report.landscape.axes[0].length, LESSON.config.landscape_points);

    // Step 2: curves at accurate inner solutions (suboptimality = accurate loss - reference, unclamped); HOAG's
    // own loss at its loose first solve (ε_1 = 0.1) differs from its accurate curve.
    assert.match(LESSON.steps[1].text, /accurate inner solution/);
    for (const m of report.methods) {
      for (const p of m.trace) assert.ok(Math.abs(p.suboptimality - (p.best_outer_loss - report.reference_optimum)) <= 1e-15, m.name);
    }
    const h0 = report.methods[0].trace[0];
    assert.notEqual(h0.outer_loss, h0.best_outer_loss);

    // Step 3: the quoted passes are this run's.
    const all = Object.fromEntries(report.methods.map((x) => [x.name, passesTo(report, x.name)]));
    const m = LESSON.steps[2].text.match(/after (\d+) passes over the training data, Bayesian optimisation after (\d+) and the exact variant after (\d+); grid search never does/);
    assert.ok(m, LESSON.steps[2].text);
    assert.equal(passesTo(report, 'HOAG (exponential)'), Number(m[1]), JSON.stringify(all));
    assert.equal(passesTo(report, 'Bayesian optimisation (EI)'), Number(m[2]), JSON.stringify(all));
    assert.equal(passesTo(report, 'HOAG (exact)'), Number(m[3]), JSON.stringify(all));
    assert.equal(passesTo(report, 'grid search'), Infinity);
    assert.match(LESSON.steps[2].text, /within a few tens of passes/);
    assert.ok(Number(m[1]) < 100);

    // The panel's generated reading: winner, the numbers, one seed.
    const reading = await page.textContent('#hoag-reading');
    // The winner is the method with the fewest passes in this run (with the paper's inner cap and step rule a
    // cubic or quadratic tolerance sequence can beat the exponential one).
    const [wName, wPasses] = Object.entries(all).reduce((a, o) => (o[1] < a[1] ? o : a));
    assert.ok(reading.startsWith(`${wName} reached a relative suboptimality of 0.001 first, after ${wPasses} passes`), reading);
    // The runner-up family is the fastest non-HOAG method of this run (iterative differentiation or BO).
    const others = report.methods.filter((x) => !/^HOAG/.test(x.name)).map((x) => [x.name, passesTo(report, x.name)]);
    const [rName, rPasses] = others.reduce((a, o) => (o[1] < a[1] ? o : a));
    const ru = reading.match(/times fewer passes than (.+?) \((\d+)\)\./);
    assert.ok(ru, reading);
    assert.equal(ru[1].toLowerCase(), rName.toLowerCase(), JSON.stringify(all));
    assert.equal(Number(ru[2]), rPasses, JSON.stringify(all));
    assert.match(reading, new RegExp(`This is one seed \\(${report.seed}\\)`));
    assert.deepEqual(errors, []);
    assert.deepEqual(nonLoopback(b.requests), []);
    await page.close();
  });
});
