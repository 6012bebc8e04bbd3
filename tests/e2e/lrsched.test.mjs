// End-to-end: the learning-rate lesson (#lesson=lr-schedule) runs in the page, and every claim of its steps is
// checked against the numbers the run produced; the panel's generated reading states those numbers (computed
// here again from the report, independently of www/panels/lr-schedule/reading.js), and the dynamic tuner's row of the
// results table is in view without scrolling.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, nonLoopback, lessonDone } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';
import { fmt3 } from '../../www/shared/format.js';

const lesson = LESSONS.find((l) => l.id === 'lr-schedule');

describe('learning-rate lesson', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground({ isolation: true }); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('each step\'s claims hold for the run, the reading states the run\'s numbers, the tuner\'s row is in view', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=lr-schedule&autorun=1`);
    const done = await lessonDone(page, 180_000);
    assert.equal(done.status, 'done', done.message);
    const r = resultOf(await page.evaluate(() => window.__tunelab.panels['lr-schedule'].lastReport));
    const reading = await page.textContent('#lr-reading');
    const has = (v, what) => assert.ok(reading.includes(fmt3(v)), `${what}: ${fmt3(v)} not in the reading: ${reading}`);
    const dyn = r.methods.find((m) => m.family === 'dynamic');
    const base = r.methods.filter((m) => m.family !== 'dynamic');
    const best = (fam) => base.filter((m) => m.family === fam).reduce((a, m) => (m.final_loss < a.final_loss ? m : a));
    const bestC = best('constant'); const bestD = best('exponential-decay');
    const winner = r.methods.reduce((a, m) => (m.final_loss < a.final_loss ? m : a));

    const texts = [];
    for (let i = 0; i < lesson.steps.length; i++) {
      if (i > 0) await page.click('#lesson-next');
      assert.equal(await page.textContent('#lesson-step-no'), `Step ${i + 1} of ${lesson.steps.length}`);
      texts.push(await page.textContent('#lesson-text'));
    }
    // Step 1: "Training is cut into 10 intervals."
    assert.match(texts[0], /10 intervals/);
    assert.equal(r.intervals, 10);
    // Step 2: "5 constant rates and 12 exponential decays", "Q = 6", every baseline runs 6 times, equal steps.
    assert.match(texts[1], /5 constant rates and 12 exponential decays.*Q = 6.*runs 6 times/s);
    assert.equal(base.filter((m) => m.family === 'constant').length, 5);
    assert.equal(base.filter((m) => m.family === 'exponential-decay').length, 12);
    assert.equal(r.dynamic.runs, 6);
    for (const m of base) {
      assert.equal(m.repeat_finals.length, 6, m.name);
      assert.equal(m.final_loss, Math.min(...m.repeat_finals), m.name);
      assert.equal(m.compute_steps, dyn.compute_steps, m.name);
    }
    // Step 3: "an exponential decay wins, and the dynamic tuner ends between the best decay and the best constant".
    assert.match(texts[2], /an exponential decay wins, and the dynamic tuner ends between the best decay and the best constant rate/);
    assert.equal(winner.family, 'exponential-decay');
    assert.ok(bestD.final_loss < dyn.final_loss && dyn.final_loss < bestC.final_loss, `${bestD.final_loss} ${dyn.final_loss} ${bestC.final_loss}`);
    // ... and the reading gives by how much, the band over seeds, and where the tuner falls behind.
    assert.match(reading, new RegExp(`The dynamic tuner lost: it ended at ${fmt3(dyn.final_loss)}`));
    has(dyn.final_loss / winner.final_loss, 'ratio');
    assert.ok(reading.includes(winner.name));
    has(Math.min(...winner.repeat_finals), 'band low');
    has(Math.max(...winner.repeat_finals), 'band high');
    const steps = r.dynamic.boundary_steps.slice(1);
    const at = (m, s) => m.trace.find((p) => p.step === s).loss;
    let k = steps.length - 1;
    while (k > 0 && at(dyn, steps[k - 1]) > at(winner, steps[k - 1])) k -= 1;
    assert.ok(at(dyn, steps.at(-1)) > at(winner, steps.at(-1)));
    assert.match(reading, new RegExp(`from interval ${k + 1} \\(step ${steps[k]}\\) on`));
    has(at(dyn, steps[k]), 'tuner at the boundary where it falls behind');
    // Step 4: "The winning decay starts high and ends more than 10 times lower", the tuner moves at most a decade.
    assert.match(texts[3], /ends more than 10 times lower.*at most one decade per interval/s);
    assert.ok(winner.schedule[0] / winner.schedule.at(-1) > 10, String(winner.schedule));
    for (let i = 1; i < dyn.schedule.length; i++) assert.ok(Math.abs(Math.log10(dyn.schedule[i] / dyn.schedule[i - 1])) <= 1 + 1e-9, String(dyn.schedule));
    for (const v of [winner.schedule[0], winner.schedule.at(-1), dyn.schedule[0], dyn.schedule.at(-1)]) has(v, 'rate');
    // The table: the tuner's row first and visible inside the scrolling box without scrolling.
    const row = await page.evaluate(() => {
      const wrap = document.querySelector('#lr-table').closest('.table-wrap');
      const tr = document.querySelector('#lr-table tbody tr');
      const a = wrap.getBoundingClientRect(); const t = tr.getBoundingClientRect();
      return { name: tr.querySelector('th').textContent, inside: t.top >= a.top && t.bottom <= a.bottom, scrollTop: wrap.scrollTop };
    });
    assert.equal(row.name, dyn.name);
    assert.ok(row.inside && row.scrollTop === 0, JSON.stringify(row));
    assert.deepEqual(errors, []);
    assert.deepEqual(nonLoopback(b.requests), []);
    await page.close();
  });
});
