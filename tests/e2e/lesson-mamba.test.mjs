// End-to-end (issue 16, "lessons that are true"): the 'mamba' lesson, step by step on its own seed. Each step's
// run is checked against what the step's text claims: 18 arms (9 step sizes x 2 batches) drawn as 18 lines; the
// rounds 18 -> 6 and the chosen arm the best of the last round; the too-large and too-small steps scoring worse
// than the chosen one in round 1 (the text says which, measured); eta = 2 gives 18 -> 9 -> 4 -> 2; FSSD runs with
// the same rounds and its scores on another scale.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, panelRunDone } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';

const lesson = LESSONS.find((l) => l.id === 'mamba');
const report = (page) => page.evaluate(() => window.__tunelab.panels.tune.lastReport).then(resultOf);
const stepText = (page) => page.textContent('#lesson-text');
/** The arm's score in round r (null = infinite). */
const scoreIn = (a, r) => a.scores?.[r] ?? Infinity;

describe('the mamba lesson: every step\'s claim holds on its run', () => {
  let b; let pg; let page;
  before(async () => {
    b = await browser(); pg = await playground({ isolation: true });
    page = await b.context.newPage();
    await page.goto(`${pg.url}#lesson=mamba`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
  });
  after(async () => { await b?.close(); await pg?.close(); });

  let first;
  test('steps 1-3: 18 arms as 18 lines; 18 -> 6 arms; the chosen arm is the best of the last round; the grid ends score worse', async () => {
    await page.click('#run');
    await panelRunDone(page, 'tune', 1);
    first = await report(page);
    // Step 1: "Each line is one arm".
    assert.match(await stepText(page), /Each line is one arm/);
    // The chart drew one path (line and markers) per arm with a finite score, and all 18 arms have one.
    const lines = await page.evaluate(() => window.__tunelab.panels.tune.panel.scoreChart.lines);
    assert.equal(first.arms.length, 18);
    assert.equal(lines, first.arms.filter((a) => a.scores.some((s) => s != null && Number.isFinite(s) && s > 0)).length);
    assert.equal(lines, 18);
    assert.equal(new Set(first.arms.map((a) => a.step)).size, 9);
    assert.equal(new Set(first.arms.map((a) => a.batch_fraction)).size, 2);
    // Step 2: "all 18 arms get a small budget, then only the best third (η = 3) go on with η times more (here 18 → 6
    // arms) ... the chosen arm is the best of the last round".
    await page.click('#lesson-next');
    const t2 = await stepText(page);
    assert.match(t2, /here 18 → 6 arms/);
    assert.deepEqual(first.rounds.map((r) => r.arms.length), [18, 6]);
    assert.ok(first.rounds[1].budget >= 3 * first.rounds[0].budget * 0.99, JSON.stringify(first.rounds));
    const last = first.rounds.length - 1;
    const finalists = first.arms.filter((a) => first.rounds[last].arms.includes(a.id));
    const bestOfLast = finalists.reduce((x, y) => (scoreIn(y, last) < scoreIn(x, last) ? y : x));
    assert.equal(first.best.arm, bestOfLast.id);
    // The survivors of round 1 are its best third.
    const r1 = [...first.arms].sort((x, y) => scoreIn(x, 0) - scoreIn(y, 0)).slice(0, 6).map((a) => a.id).sort((x, y) => x - y);
    assert.deepEqual([...first.rounds[1].arms].sort((x, y) => x - y), r1);
    // Step 3: the ends of the step grid score worse than the chosen arm in round 1 (per batch size): the largest
    // steps by bias, the smallest by barely moving.
    await page.click('#lesson-next');
    const t3 = await stepText(page);
    const chosen = first.arms.find((a) => a.id === first.best.arm);
    const steps = [...new Set(first.arms.map((a) => a.step))].sort((x, y) => x - y);
    for (const batch of new Set(first.arms.map((a) => a.batch_fraction))) {
      const big = first.arms.find((a) => a.batch_fraction === batch && a.step === steps[steps.length - 1]);
      const small = first.arms.find((a) => a.batch_fraction === batch && a.step === steps[0]);
      assert.ok(scoreIn(big, 0) > scoreIn(chosen, 0), `largest step (batch ${batch}): ${scoreIn(big, 0)} vs chosen ${scoreIn(chosen, 0)}`);
      assert.ok(scoreIn(small, 0) > scoreIn(chosen, 0), `smallest step (batch ${batch}): ${scoreIn(small, 0)} vs chosen ${scoreIn(chosen, 0)}`);
    }
    assert.match(t3, /too large/);
    assert.match(t3, /too small/);
    // The chosen step is inside the grid, not at an end.
    assert.ok(chosen.step > steps[0] && chosen.step < steps[steps.length - 1], `chosen h = ${chosen.step}`);
  });

  test('step 4: eta = 2 gives 4 rounds, 18 -> 9 -> 4 -> 2', async () => {
    await page.click('#lesson-next');
    assert.match(await stepText(page), /Expect 4 rounds instead of 2 \(18 → 9 → 4 → 2 arms\): more rounds, each pruning fewer arms, for the same total budget of the chosen arm/);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__tunelab.panels.tune.state.eta === 2);
    await page.click('#run');
    await panelRunDone(page, 'tune', 2);
    const r = await report(page);
    assert.deepEqual(r.rounds.map((x) => x.arms.length), [18, 9, 4, 2]);
    // "for the same total budget of the chosen arm (summed over the rounds it ran: its last round is shorter)".
    const total = (rep) => rep.rounds.reduce((s, x) => s + x.budget, 0);
    assert.ok(Math.abs(total(r) - total(first)) <= 1e-9 * total(first), `${total(r)} vs ${total(first)}`);
    assert.ok(r.rounds[r.rounds.length - 1].budget < first.rounds[first.rounds.length - 1].budget);
    const chosen = r.arms.find((a) => a.id === r.best.arm);
    assert.ok(chosen.grad_evals >= 0.95 * total(r), `chosen arm ran ${chosen.grad_evals} of ${total(r)}`);
  });

  test('step 5: FSSD runs the same rounds, its scores on another scale than the KSD', async () => {
    await page.click('#lesson-next');
    assert.match(await stepText(page), /Scores are on another scale/);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__tunelab.panels.tune.state.metric === 'fssd');
    await page.click('#run');
    await panelRunDone(page, 'tune', 3);
    const r = await report(page);
    assert.equal(r.metric, 'fssd');
    assert.deepEqual(r.rounds.map((x) => x.arms.length), [18, 6]);
    const med = (rep) => { const s = rep.arms.map((a) => scoreIn(a, 0)).filter(Number.isFinite).sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
    const ratio = med(r) / med(first);
    assert.ok(ratio > 2 || ratio < 0.5, `median round-1 score FSSD / KSD = ${ratio}`);
  });
});
