// End-to-end: guided lessons. Each lesson URL opens the tab of its tuner (the panel of the page's registry,
// www/panels/registry.js), puts the lesson box on top of that panel with the results in view, and runs there
// to completion (the panel's `runs` grows, its chart data is not empty, its report is the lesson's experiment).
// `#lesson=mamba`: settings, steps and paper; its suggested changes do what the text says (eta = 2 gives 4
// rounds, 18 -> 9 -> 4 -> 2); a link keeps the step and the changed settings. The panel contract (load(config),
// run()) is exercised with a stand-in panel; a missing panel is named; every request stays on loopback.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, nonLoopback, lessonDone, panelRunDone, panelView, hasPoints } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';

const tuneReport = (page) => page.evaluate(() => window.__tunelab.panels.tune.lastReport).then(resultOf);

/**
 * Presses Tab until the element with id `id` has focus (at most 40 presses); returns the number of presses, or
 * Infinity with the focus path when it never got there. @param {import('playwright-core').Page} page @param {string} id
 */
async function tabsTo(page, id) {
  for (let n = 1; n <= 40; n++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((i) => document.activeElement?.id === i, id)) return n;
  }
  return Infinity;
}

describe('lessons', () => {
  let b; let pg;
  before(async () => { b = await browser(); pg = await playground({ isolation: true }); });
  after(async () => { await b?.close(); await pg?.close(); });

  test('the page links every lesson from its Lessons menu, with what each teaches; a link opens the lesson', async () => {
    const page = await b.context.newPage();
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.panels?.tune != null);
    assert.equal(await page.textContent('#lessons-menu > summary'), `Lessons (${LESSONS.length})`);
    assert.equal(await page.isVisible('#lessons-list'), false);
    await page.click('#lessons-menu > summary');
    assert.equal(await page.isVisible('#lessons-list'), true);
    // The titles come from the lesson files, read by the core's parser when the menu opens.
    await page.waitForSelector('#lessons-list[data-filled="true"]');
    const links = await page.$$eval('#lessons-builtin a', (as) => as.map((a) => ({
      href: a.getAttribute('href'), title: a.querySelector('strong').textContent, teaches: a.querySelector('.teaches').textContent, visible: a.getBoundingClientRect().height > 0,
    })));
    assert.deepEqual(links.map((l) => l.href), LESSONS.map((l) => `#lesson=${l.id}`));
    for (const [i, l] of LESSONS.entries()) {
      assert.equal(links[i].title, l.title);
      assert.equal(links[i].teaches, l.teaches);
      assert.ok(l.teaches.length > 20 && links[i].visible, l.id);
    }
    // Following one loads the lesson (on its tab).
    await page.click('#lessons-list a[data-lesson="d-ttts"]');
    await page.waitForFunction(() => window.__tunelab?.lesson?.id === 'd-ttts' && window.__tunelab.lesson.status !== 'loading');
    assert.equal(await page.textContent('#lesson-h'), LESSONS.find((l) => l.id === 'd-ttts').title);
    assert.equal(await page.getAttribute('#tab-bandit', 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#lessons-list a[data-lesson="d-ttts"]', 'aria-current'), 'page');
    await page.close();
  });

  test('#lesson=mamba: settings, steps, paper; runs in the tuning tab; the suggested changes do what the text says; links keep the step', async () => {
    const lesson = LESSONS.find((l) => l.id === 'mamba');
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#lesson=mamba`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    const state = await page.evaluate(() => window.__tunelab.panels.tune.state);
    for (const [k, v] of Object.entries(lesson.state)) assert.equal(state[k], v, k);
    assert.equal(await page.getAttribute('#tab-tune', 'aria-selected'), 'true');
    assert.equal(await page.textContent('#lesson-h'), lesson.title);
    assert.equal(await page.textContent('#lesson-step-no'), `Step 1 of ${lesson.steps.length}`);
    assert.match(await page.textContent('#lesson-cite'), /Coullon, South & Nemeth \(2023\)/);
    assert.match(await page.textContent('#arm-count'), /^18 arms .* MAMBA: 2 rounds, 18 → 6 arms/);
    // The lesson box sits in the tuning panel, with a Run of its own after the step's text (the run bar's Run runs
    // the lesson too).
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.section.contains(document.getElementById('lesson'))), true);
    assert.equal(await page.isVisible('#lesson-run'), true);
    // The steps fold away (more room for the chart in a small frame) and come back.
    await page.click('#lesson-toggle');
    assert.equal(await page.isVisible('#lesson-text'), false);
    assert.equal(await page.getAttribute('#lesson-toggle', 'aria-expanded'), 'false');
    await page.click('#lesson-toggle');
    assert.equal(await page.isVisible('#lesson-text'), true);
    await page.click('#run');
    await panelRunDone(page, 'tune', 1);
    let report = await tuneReport(page);
    assert.deepEqual(report.rounds.map((r) => r.arms.length), [18, 6]);
    // The page's own Run button drives the lesson's status too.
    await page.waitForFunction(() => window.__tunelab.lesson.status === 'done');
    assert.match(await page.textContent('#lesson-status'), new RegExp(`^Done: arm #${report.best.arm} chosen`));
    // Step 4: "Set eta = 2 ... Expect 4 rounds instead of 2 (18 -> 9 -> 4 -> 2 arms)".
    for (let i = 0; i < 3; i++) await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-step-no'), `Step 4 of ${lesson.steps.length}`);
    assert.match(await page.textContent('#lesson-text'), /Expect 4 rounds instead of 2 \(18 → 9 → 4 → 2 arms\)/);
    // By keyboard from Next (focused by its click): Tab to Apply, Enter, Tab to the lesson's Run, Enter.
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'lesson-next');
    assert.equal(await tabsTo(page, 'lesson-apply'), 1);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__tunelab.panels.tune.state.eta === 2);
    assert.equal(await page.inputValue('#eta'), '2');
    assert.equal(await tabsTo(page, 'lesson-run'), 1);
    await page.waitForFunction(() => { const p = window.__tunelab.panels.tune; return !p.running && p.runState !== 'checking'; });
    await page.keyboard.press('Enter');
    await panelRunDone(page, 'tune', 2);
    report = await tuneReport(page);
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
    assert.equal(await page2.textContent('#lesson-step-no'), `Step 4 of ${lesson.steps.length}`);
    assert.equal(await page2.evaluate(() => window.__tunelab.panels.tune.state.eta), 2);
    // Step 5: FSSD.
    await page2.click('#lesson-next');
    await page2.click('#lesson-apply');
    await page2.waitForFunction(() => window.__tunelab.panels.tune.state.metric === 'fssd');
    assert.equal(await page2.evaluate(() => window.__tunelab.panels.tune.state.eta), 3);
    await page2.click('#run');
    await panelRunDone(page2, 'tune', 1);
    assert.ok((await tuneReport(page2)).best);
    assert.deepEqual(errors, []);
    await page.close();
    await page2.close();
  });

  test('by keyboard, every step of every lesson is at most 3 Tabs from Next (or Back, on the last step) to the lesson\'s Run', async () => {
    for (const lesson of LESSONS) {
      const page = await b.context.newPage();
      await page.goto(`${pg.url}#lesson=${lesson.id}`);
      await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
      await page.focus('#lesson-next');
      for (let i = 1; i < lesson.steps.length; i++) {
        const from = await page.evaluate(() => document.activeElement?.id);
        await page.keyboard.press('Enter');
        await page.waitForFunction((n) => document.getElementById('lesson').dataset.step === String(n), i + 1);
        const s = lesson.steps[i];
        // The last step disables Next: its focus moves to Back (never to the document's start).
        const at = await page.evaluate(() => document.activeElement?.id);
        assert.equal(at, i + 1 === lesson.steps.length ? 'lesson-prev' : 'lesson-next', `${lesson.id} step ${i + 1}: focus after Next`);
        assert.equal(from, 'lesson-next');
        // What lies between: the step text's links or controls, the prediction (one stop), Apply, then Run.
        const n = await tabsTo(page, 'lesson-run');
        assert.ok(n >= 1 + (s.patch ? 1 : 0) && n <= 3, `${lesson.id} step ${i + 1}: ${n} Tabs from ${at} to the lesson's Run`);
        await page.focus('#lesson-next');
      }
      await page.close();
    }
  });

  test('every lesson URL opens the tab of its tuner and runs there to completion, results in view', async () => {
    for (const lesson of LESSONS) {
      const page = await b.context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${pg.url}#lesson=${lesson.id}&autorun=1`);
      const result = await lessonDone(page);
      assert.equal(result.status, 'done', `${lesson.id}: ${result.message}`);
      assert.ok(result.runs >= 1);
      const view = await panelView(page, lesson.panel);
      assert.equal(view.tabSelected, 'true', `${lesson.id}: the ${lesson.panel} tab is active`);
      assert.deepEqual(view.otherTabsSelected, [], `${lesson.id}: no other tab is active`);
      assert.equal(view.sectionVisible, true, `${lesson.id}: the panel is visible`);
      assert.equal(view.otherSectionsVisible, 0, `${lesson.id}: no other panel is visible`);
      assert.equal(view.resultsInViewport, true, `${lesson.id}: results in the viewport ${JSON.stringify(view.results)}`);
      assert.equal(view.lessonInPanel, true, `${lesson.id}: the lesson box is on the panel`);
      assert.ok(view.runs >= 1, `${lesson.id}: the panel ran`);
      assert.equal(view.running, false);
      assert.ok(hasPoints(view.lastChartData), `${lesson.id}: chart data`);
      assert.equal(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('lesson'), lesson.id);
      // The report is of the lesson's experiment.
      const r = resultOf(view.lastReport);
      assert.ok(r, `${lesson.id}: a report`);
      if (lesson.panel === 'bandit') {
        assert.deepEqual(r.algorithms.map((a) => a.kind), lesson.config.algorithms.map((a) => a.kind));
        assert.equal(r.rounds.at(-1), lesson.config.rounds);
        assert.ok(r.algorithms.every((a) => Number.isFinite(a.final_simple_regret.mean)));
      } else if (lesson.panel === 'hoag') {
        assert.equal(r.problem, 'logreg');
        assert.ok(r.methods.some((m) => /HOAG/.test(m.name)) && r.methods.length >= 3);
      } else if (lesson.panel === 'lr-schedule') {
        assert.equal(r.steps_per_interval, lesson.config.steps_per_interval);
        assert.ok(r.methods.some((m) => m.family === 'dynamic'));
      } else if (lesson.panel === 'tvo') {
        assert.ok(r.summary.some((m) => m.method === 'gp-ucb') && r.summary.length >= 3, `${lesson.id}: GP-UCB and baselines`);
        assert.ok(r.summary.every((m) => Number.isFinite(m.log_px_mean)), `${lesson.id}: finite test log p(x)`);
      } else {
        assert.equal(r.arms.length, 18);
        assert.ok(r.best);
      }
      assert.deepEqual(errors, [], lesson.id);
      await page.close();
    }
    assert.deepEqual(nonLoopback(b.requests), []);
  });

  test('a narrow window (settings stacked over results): the lesson box heads the results, which are scrolled into view', async () => {
    const page = await b.context.newPage();
    await page.setViewportSize({ width: 700, height: 800 });
    await page.goto(`${pg.url}#lesson=hoag&autorun=1`);
    const result = await lessonDone(page);
    assert.equal(result.status, 'done', result.message);
    const view = await panelView(page, 'hoag');
    assert.equal(view.tabSelected, 'true');
    assert.equal(view.resultsInViewport, true, JSON.stringify(view.results));
    assert.ok(view.runs >= 1 && hasPoints(view.lastChartData));
    const where = () => page.evaluate(() => {
      const box = document.getElementById('lesson');
      const r = box.getBoundingClientRect();
      return { inResults: box.parentElement.classList.contains('results') && box === box.parentElement.firstElementChild, inForm: box.parentElement.tagName === 'FORM', top: r.top };
    });
    let w = await where();
    assert.equal(w.inResults, true);
    assert.ok(w.top >= -1 && w.top < 800, `lesson box in view: ${w.top}`);
    // Wider: settings and results side by side, the box goes back on top of the settings.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForFunction(() => document.getElementById('lesson').parentElement.tagName === 'FORM');
    w = await where();
    assert.equal(w.inForm, true);
    await page.close();
  });

  test('GP-UCB step 4 ("three seeds") reaches the TVO panel; a copied link reproduces it', async () => {
    const lesson = LESSONS.find((l) => l.id === 'gp-ucb');
    const page = await b.context.newPage();
    await page.goto(`${pg.url}#lesson=gp-ucb&step=4`);
    await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    assert.equal(await page.textContent('#lesson-apply'), lesson.steps[3].apply);
    await page.click('#lesson-apply');
    await page.waitForFunction((a) => window.__tunelab.lesson.message === `Changed: ${a}. Press Run.`, lesson.steps[3].apply);
    const state = await page.evaluate(() => window.__tunelab.panels.tvo.state);
    assert.equal(state.repeats, 3);
    assert.deepEqual(state.methods, lesson.steps[3].patch.methods);
    // A copied link reproduces the changed settings: the link's tvo.* keys win over the lesson's config.
    const link = page.url();
    assert.match(link, /tvo\.repeats=3/);
    const page2 = await b.context.newPage();
    await page2.goto(link);
    await page2.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    assert.equal(await page2.textContent('#lesson-step-no'), `Step 4 of ${lesson.steps.length}`);
    const s2 = await page2.evaluate(() => window.__tunelab.panels.tvo.state);
    assert.equal(s2.repeats, 3);
    assert.equal(s2.epochs, lesson.steps[3].patch.epochs);
    assert.deepEqual(s2.methods, lesson.steps[3].patch.methods);
    await page2.close();
    await page.close();
  });

  test('the panel contract: load(config) gets the lesson config, run() is awaited, a step change reloads the panel', async () => {
    const lesson = LESSONS.find((l) => l.id === 'd-ttts');
    const page = await b.context.newPage();
    // A stand-in bandit panel, put into the registry when the page says it is filled (before the lesson reads it).
    await page.addInitScript(() => {
      window.addEventListener('tunelab:panels-ready', () => {
        const calls = (window.__panelCalls = []);
        const stub = {
          running: false, runs: 0, lastReport: null, lastChartData: null, errors: [], state: {},
          show() { calls.push(['show']); },
          load(config) { calls.push(['load', config]); return Promise.resolve({}); },
          async run() {
            calls.push(['run']);
            this.running = true;
            await new Promise((r) => setTimeout(r, 200));
            this.running = false;
            this.runs++;
            this.lastReport = { kind: 'bandit', status: 'done', config: {}, compute: {}, result: { algorithms: [] } };
            return this.lastReport;
          },
          stop() {},
        };
        window.__tunelab.panels.bandit = stub;
      }, { once: true });
    });
    await page.goto(`${pg.url}#lesson=d-ttts&autorun=1`);
    const result = await lessonDone(page);
    assert.equal(result.status, 'done', result.message);
    let calls = await page.evaluate(() => window.__panelCalls);
    assert.deepEqual(calls, [['show'], ['load', lesson.config], ['run']]);
    // The stand-in has no Run button of its own; the lesson's Run is there.
    assert.equal(await page.isVisible('#lesson-run'), true);
    // Step 3 suggests Beta(1, 3): the panel is reloaded with the patched config.
    await page.click('#lesson-next');
    await page.click('#lesson-next');
    await page.click('#lesson-apply');
    await page.waitForFunction(() => window.__panelCalls.length === 4);
    calls = await page.evaluate(() => window.__panelCalls);
    assert.deepEqual(calls[3], ['load', lesson.configs[2]]);
    const { kind, a, b: beta } = calls[3][1].problem;
    assert.deepEqual({ kind, a, b: beta }, { kind: 'reservoir', a: 1, b: 3 });
    await page.click('#lesson-run');
    await page.waitForFunction(() => window.__panelCalls.length === 5 && window.__tunelab.lesson.status === 'done' && window.__tunelab.lesson.runs === 2);
    await page.close();
  });

  test('a lesson whose panel is missing says which panel it needs, and keeps its steps', async () => {
    const page = await b.context.newPage();
    // A build without the HOAG panel: remove it from the registry before the lesson looks for it.
    await page.addInitScript(() => {
      window.addEventListener('tunelab:panels-ready', () => { delete window.__tunelab.panels.hoag; }, { once: true });
    });
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
    assert.match(await page.textContent('#lesson-status'), /There is no built-in lesson "nope"\. Lessons: mamba, gp-ucb, d-ttts, hoag, lr-schedule\./);
    await page.close();
  });
});

test('every lesson names a panel of the registry', () => {
  for (const l of LESSONS) assert.ok(['tune', 'bandit', 'hoag', 'lr-schedule', 'step-size', 'tvo'].includes(l.panel), `${l.id}: ${l.panel}`);
});

test('resultOf: the result of a report envelope, or a bare report as it is', () => {
  assert.deepEqual(resultOf({ kind: 'bandit', status: 'done', config: {}, compute: {}, result: { algorithms: [] } }), { algorithms: [] });
  assert.equal(resultOf({ kind: 'tune', status: 'stopped', result: null }), null);
  assert.deepEqual(resultOf({ best: { arm: 1 } }), { best: { arm: 1 } });
  assert.equal(resultOf(null), null);
});
