// End-to-end: guided lessons. `#lesson=mamba` loads the lesson's settings, shows its steps and paper, runs to
// completion, and its suggested changes do what the text says (eta = 2 gives 4 rounds, 18 -> 9 -> 4 -> 2);
// a link keeps the step and the changed settings. Every other lesson runs to completion when the page has its
// panel, and otherwise says which panel it needs. The panel contract (load(config), run()) is exercised with a
// stand-in panel, so the loader is tested before the real panels land.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, nonLoopback, lessonDone } from './embed-helpers.mjs';
import { LESSONS, mergeConfig } from '../../www/lessons.js';

const runDone = (page, n) => page.waitForFunction((k) => window.__tunelab.runs >= k && !window.__tunelab.running, n, { timeout: 120_000 });

describe('lessons', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground({ isolation: true }); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('#lesson=mamba: settings, steps, paper; runs; the suggested changes do what the text says; links keep the step', async () => {
    const lesson = LESSONS.find((l) => l.id === 'mamba');
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=mamba`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    const state = await page.evaluate(() => window.__tunelab.state);
    for (const [k, v] of Object.entries(lesson.state)) assert.equal(state[k], v, k);
    assert.equal(await page.textContent('#lesson-h'), lesson.title);
    assert.equal(await page.textContent('#lesson-step-no'), `Step 1 of ${lesson.steps.length}`);
    assert.match(await page.textContent('#lesson-cite'), /Coullon, South & Nemeth \(2023\)/);
    assert.match(await page.textContent('#arm-count'), /^18 arms .* MAMBA: 2 rounds, 18 → 6 arms/);
    // The steps fold away (more room for the chart in a small frame) and come back.
    await page.click('#lesson-toggle');
    assert.equal(await page.isVisible('#lesson-text'), false);
    assert.equal(await page.getAttribute('#lesson-toggle', 'aria-expanded'), 'false');
    await page.click('#lesson-toggle');
    assert.equal(await page.isVisible('#lesson-text'), true);
    await page.click('#run');
    await runDone(page, 1);
    let report = await page.evaluate(() => window.__tunelab.lastResult.report);
    assert.deepEqual(report.rounds.map((r) => r.arms.length), [18, 6]);
    // The page's own Run button drives the lesson's status too.
    await page.waitForFunction(() => window.__tunelab.lesson.status === 'done');
    assert.match(await page.textContent('#lesson-status'), new RegExp(`^Done: arm #${report.best.arm} chosen`));
    // Step 4: "Set eta = 2 ... Expect 4 rounds instead of 2 (18 -> 9 -> 4 -> 2 arms)".
    for (let i = 0; i < 3; i++) await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-step-no'), 'Step 4 of 5');
    assert.match(await page.textContent('#lesson-text'), /Expect 4 rounds instead of 2 \(18 → 9 → 4 → 2 arms\)/);
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__tunelab.state.eta === 2);
    assert.equal(await page.inputValue('#eta'), '2');
    await page.click('#run');
    await runDone(page, 2);
    report = await page.evaluate(() => window.__tunelab.lastResult.report);
    assert.deepEqual(report.rounds.map((r) => r.arms.length), [18, 9, 4, 2]);
    assert.ok(report.best);
    // The link keeps lesson, step and the changed setting; reopening it restores them.
    const link = page.url();
    assert.match(link, /lesson=mamba/);
    assert.match(link, /step=4/);
    assert.match(link, /eta=2/);
    const page2 = await b.context.newPage();
    await page2.goto(link);
    await page2.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    assert.equal(await page2.textContent('#lesson-step-no'), 'Step 4 of 5');
    assert.equal(await page2.evaluate(() => window.__tunelab.state.eta), 2);
    // Step 5: FSSD.
    await page2.click('#lesson-next');
    await page2.click('#lesson-apply');
    await page2.waitForFunction(() => window.__tunelab.state.metric === 'fssd');
    assert.equal(await page2.evaluate(() => window.__tunelab.state.eta), 3);
    await page2.click('#run');
    await runDone(page2, 1);
    assert.ok(await page2.evaluate(() => window.__tunelab.lastResult.report.best));
    assert.deepEqual(errors, []);
    await page.close();
    await page2.close();
  });

  test('every lesson URL: runs to completion when the page has its panel, otherwise names the panel it needs', async () => {
    for (const lesson of LESSONS) {
      const page = await b.context.newPage();
      await page.goto(`${pg.url}#lesson=${lesson.id}&autorun=1`);
      const result = await lessonDone(page);
      const hasPanel = lesson.panel === 'tune' || await page.evaluate((p) => !!window.__tunelab.lessonPanels?.[p], lesson.panel);
      if (hasPanel) {
        assert.equal(result.status, 'done', `${lesson.id}: ${result.message}`);
        assert.ok(result.runs >= 1);
        const r = result.report;
        assert.ok(r, `${lesson.id}: a report`);
        // The report is of the lesson's experiment.
        if (lesson.panel === 'bandit') {
          assert.deepEqual(r.algorithms.map((a) => a.kind), lesson.config.algorithms.map((a) => a.kind));
          assert.equal(r.rounds.at(-1), lesson.config.rounds);
          assert.ok(r.algorithms.every((a) => Number.isFinite(a.final_simple_regret.mean)));
        } else if (lesson.panel === 'hoag') {
          assert.equal(r.problem, 'logreg');
          assert.ok(r.methods.some((m) => /HOAG/.test(m.name)) && r.methods.length >= 3);
        } else if (lesson.panel === 'lrsched') {
          assert.equal(r.steps_per_interval, lesson.config.steps_per_interval);
          assert.ok(r.methods.some((m) => m.family === 'dynamic'));
        }
        if (lesson.panel !== 'tune') {
          assert.equal(await page.getAttribute('#lab-config', 'data-lesson'), 'true');
          assert.deepEqual(JSON.parse(await page.inputValue('#lab-config')), lesson.config);
          assert.match(await page.textContent('#lab-message'), /^Done/);
        }
      } else {
        assert.equal(result.status, 'missing-panel', lesson.id);
        assert.match(await page.textContent('#lesson-status'), new RegExp(`This lesson needs the .*${lesson.panel === 'lrsched' ? 'learning-rate' : lesson.panel === 'hoag' ? 'HOAG' : 'bandit'}.* panel`));
        assert.equal(await page.isDisabled('#lesson-run'), true);
        assert.equal(await page.textContent('#lesson-h'), lesson.title);
        assert.ok((await page.textContent('#lesson-cite')).length > 20);
      }
      await page.close();
    }
    assert.deepEqual(nonLoopback(b.requests), []);
  });

  test('the panel contract: load(config) gets the lesson config, run() is awaited, a step change reloads the panel', async () => {
    const lesson = LESSONS.find((l) => l.id === 'd-ttts');
    const ctx = b.context;
    const page = await ctx.newPage();
    // A stand-in bandit panel, registered the way a panel module would (after main.js made window.__tunelab).
    await page.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        const calls = (window.__panelCalls = []);
        const stub = {
          running: false,
          load(config) { calls.push(['load', config]); },
          async run() { calls.push(['run']); this.running = true; await new Promise((r) => setTimeout(r, 200)); this.running = false; return { algorithms: [] }; },
        };
        // Lessons find their panels in `lessonPanels` (www/panels.js puts the "More tuners" card there).
        window.__tunelab.lessonPanels = window.__tunelab.lessonPanels ?? {};
        window.__tunelab.lessonPanels.bandit = stub;
      });
    });
    await page.goto(`${pg.url}#lesson=d-ttts&autorun=1`);
    const result = await lessonDone(page);
    assert.equal(result.status, 'done', result.message);
    let calls = await page.evaluate(() => window.__panelCalls);
    assert.deepEqual(calls, [['load', lesson.config], ['run']]);
    // Step 3 suggests Beta(1, 3): the panel is reloaded with the patched config.
    await page.click('#lesson-next');
    await page.click('#lesson-next');
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__panelCalls.length === 3);
    calls = await page.evaluate(() => window.__panelCalls);
    assert.deepEqual(calls[2], ['load', mergeConfig(lesson.config, lesson.steps[2].patch)]);
    assert.deepEqual(calls[2][1].problem, { kind: 'reservoir', a: 1, b: 3 });
    await page.click('#lesson-run');
    await page.waitForFunction(() => window.__panelCalls.length === 4 && window.__tunelab.lesson.status === 'done');
    await page.close();
  });

  test('a lesson whose panel is missing says which panel it needs, and keeps its steps', async () => {
    const page = await b.context.newPage();
    // A build without the "More tuners" card: remove it before the lesson looks for its panel.
    await page.addInitScript(() => { document.addEventListener('DOMContentLoaded', () => document.getElementById('labs')?.remove()); });
    await page.goto(`${pg.url}#lesson=hoag&autorun=1`);
    const result = await lessonDone(page);
    assert.equal(result.status, 'missing-panel');
    assert.match(await page.textContent('#lesson-status'), /^This lesson needs the HOAG \(hyperparameter gradients\) panel, which this build of the playground does not have yet\./);
    assert.equal(await page.isDisabled('#lesson-run'), true);
    assert.equal(await page.textContent('#lesson-step-no'), 'Step 1 of 3');
    assert.match(await page.textContent('#lesson-cite'), /Pedregosa \(2016\)/);
    await page.close();
  });

  test('an unknown lesson says so and lists the lessons', async () => {
    const page = await b.context.newPage();
    await page.goto(`${pg.url}#lesson=nope`);
    await page.waitForSelector('#lesson-status');
    assert.match(await page.textContent('#lesson-status'), /There is no lesson "nope"\. Lessons: mamba, gp-ucb, d-ttts, hoag, lr-schedule\./);
    await page.close();
  });
});

test('mergeConfig: objects merge deeply, arrays and scalars replace', () => {
  assert.deepEqual(mergeConfig({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, e: 2 }), { a: { b: 1, c: [3] }, d: 1, e: 2 });
  assert.deepEqual(mergeConfig({ a: 1 }, undefined), { a: 1 });
  assert.equal(mergeConfig({ a: 1 }, 5), 5);
});
