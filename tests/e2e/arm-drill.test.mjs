// End-to-end (issue 26, "Beyond the anchors"): the arm drill-down. A small MAMBA run (10 arms, eta 2); clicking an
// arm's point on the score chart, its bracket cell (mouse and Enter), its heat-map row and its arms-table row opens
// the drill-down of that arm: its id and settings, its score per round equal to the report's (and the last one to
// the arms table's cell), as many draws drawn as the report kept for it, the chosen arm's draws in grey; its export
// holds its titles and legend. The mamba lesson's prediction step records the student's pick and the reveal names
// the report's chosen arm and what became of the pick. Single-threaded page (no isolation), the wasm of this tree.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, openPage, waitRunDone, waitArmCount } from './helpers.mjs';
import { fmtSci, fmtStep } from '../../www/shared/format.js';
import { armOutcome, scoreText } from '../../www/panels/tune/arm-outcome.js';
import { LESSONS } from './lesson-files.mjs';

/** 5 step sizes x 2 batches = 10 arms, MAMBA eta 2 (10 -> 5 -> 2). */
const SMALL = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-3&hby=0.5&batch=0.1,0.02'
  + '&tuner=mamba&eta=2&unit=grad_evals&budget=60000&metric=ksd&msamples=100&thin=5&start=map&seed=3';

const drill = (page) => page.evaluate(() => window.__tunelab.drill);

/** What the drill-down shows of arm `id`, checked against the report and the arms table. */
async function checkDrill(page, report, id) {
  const d = await drill(page);
  const a = report.arms.find((x) => x.id === id);
  assert.equal(d.arm, id);
  assert.equal(d.open, true);
  assert.match(await page.textContent('#drill-title'), new RegExp(`^Arm #${id}\\b`));
  assert.ok((await page.textContent('#drill-sub')).includes(`h = ${fmtStep(a.step)}`));
  assert.ok((await page.textContent('#drill-settings')).includes(fmtSci(a.step)));
  // One score per round the arm ran, as the report has them; the last is the arms table's score cell.
  assert.deepEqual(d.scores, a.scores.map(scoreText));
  assert.deepEqual(d.scores, a.scores.map((s) => (s == null ? '∞' : fmtSci(s))));
  const cell = await page.textContent(`#arms-table tbody tr[data-arm="${id}"] td:nth-child(5)`);
  assert.equal(d.scores[d.scores.length - 1], cell);
  // The draws: as many as the report kept, drawn as points (the last series; the chosen arm's first, in grey).
  assert.ok(a.draws && a.draws.index.length > 0 && a.draws.index.length <= report.config.arm_draws);
  assert.equal(d.draws, a.draws.index.length);
  const drawn = await page.evaluate(() => {
    const u = window.__tunelab.panels.tune.panel.drill.draws.u;
    return { n: u.data.length - 1, points: u.data.slice(1).map((ys) => ys.filter((v) => v != null).length), strokes: u.series.slice(1).map((s) => s.stroke()) };
  });
  assert.equal(drawn.points[drawn.points.length - 1], a.draws.index.length);
  if (id !== report.best.arm) {
    const ref = report.arms.find((x) => x.id === report.best.arm).draws;
    assert.equal(drawn.n, 2);
    assert.equal(drawn.points[0], ref.index.length);
    assert.equal(drawn.strokes[0], '#a3aab3');
  } else assert.equal(drawn.n, 1);
  const traced = await page.evaluate(() => window.__tunelab.panels.tune.panel.drill.trace.u.data[0].length);
  assert.equal(traced, a.draws.index.length);
}

describe('arm drill-down', () => {
  let env; let page; let consoleErrors; let report;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page, consoleErrors } = await openPage(env.context, env.url + SMALL));
  });
  after(async () => { await env?.close(); });

  test('the report keeps every arm\'s draws; clicking a point on the score chart opens that arm', async () => {
    await waitArmCount(page, /^10 arms/);
    await page.click('#run');
    await waitRunDone(page, 1);
    report = await page.evaluate(() => window.__tunelab.lastResult.report);
    assert.equal(report.config.arm_draws, 100);
    for (const a of report.arms) {
      assert.deepEqual(a.draws.coords, [0, 1]);
      assert.equal(a.draws.round, a.scores.length - 1);
      assert.equal(a.draws.values.length, 2 * a.draws.index.length);
    }
    // An arm whose last marker is nearest to itself (markers of different arms can coincide).
    const at = await page.evaluate(() => {
      const c = window.__tunelab.panels.tune.panel.scoreChart; const u = c.u;
      const r = u.over.getBoundingClientRect();
      for (const [i, pts] of c.positions(u)) {
        const p = pts[pts.length - 1];
        if (p && c.nearest(u, p[0], p[1], 16) === i) return { id: c.arms[i].id, x: r.left + p[0], y: r.top + p[1] };
      }
      return null;
    });
    assert.ok(at, 'an arm with a marker of its own');
    assert.equal(await page.isVisible('#drill-card'), false);
    await page.mouse.click(at.x, at.y);
    await checkDrill(page, report, at.id);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'h-drill');
  });

  test('a bracket cell (mouse and Enter), a heat-map row and an arms-table row open their arm', async () => {
    const pruned = report.arms.find((a) => a.pruned_round === 0);
    await page.click(`#bracket .round[data-round="0"] li[data-arm="${pruned.id}"]`);
    await checkDrill(page, report, pruned.id);
    // Keyboard: the cells are focusable; Enter opens.
    const other = report.arms.find((a) => a.pruned_round === 1) ?? report.arms.find((a) => a.id === report.best.arm);
    await page.focus(`#bracket .round[data-round="0"] li[data-arm="${other.id}"]`);
    await page.keyboard.press('Enter');
    await checkDrill(page, report, other.id);
    // Heat map: the third row.
    await page.check('#view-heat');
    const hit = await page.evaluate(() => window.__tunelab.heat.hit);
    assert.equal(hit.ids.length, 10);
    await page.click('#heat-ksd', { position: { x: hit.left + 4, y: hit.top + 2.5 * hit.rowH } });
    await checkDrill(page, report, hit.ids[2]);
    // Keyboard on the heat map: Down twice from the clicked row, Enter.
    await page.focus('#heat-ksd');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await checkDrill(page, report, hit.ids[4]);
    await page.check('#view-lines');
    // The chosen arm from its table row (its draws alone, no grey reference).
    await page.click(`#arms-table tbody tr[data-arm="${report.best.arm}"]`);
    await checkDrill(page, report, report.best.arm);
    assert.deepEqual(consoleErrors, []);
  });

  test('the drill-down exports with its titles and legend, and fits a 390 px phone', async () => {
    const id = report.arms.find((a) => a.id !== report.best.arm).id;
    await page.click(`#arms-table tbody tr[data-arm="${id}"]`);
    const a = report.arms.find((x) => x.id === id);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#drill-svg')]);
    assert.equal(dl.suggestedFilename(), `tunelab-arm-${id}.svg`);
    const texts = [...fs.readFileSync(await dl.path(), 'utf8').matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    assert.ok(texts.some((t) => t.startsWith(`Arm #${id}`) && t.includes('Draws over the posterior')), JSON.stringify(texts.slice(0, 6)));
    assert.ok(texts.some((t) => t.includes('Trace')));
    assert.ok(texts.includes(`arm #${id}, round ${a.scores.length}`), JSON.stringify(texts));
    assert.ok(texts.includes(`chosen arm #${report.best.arm} (reference)`));
    await page.setViewportSize({ width: 390, height: 844 });
    const fit = await page.evaluate(() => {
      const card = document.getElementById('drill-card').getBoundingClientRect();
      const draws = document.getElementById('drill-draws').getBoundingClientRect();
      return { right: card.right, width: draws.width, page: document.documentElement.scrollWidth };
    });
    assert.ok(fit.right <= 390 && fit.page <= 390, JSON.stringify(fit));
    assert.ok(fit.width >= 200, JSON.stringify(fit));
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test('the mamba lesson\'s prediction step: the pick is recorded, the run reveals the chosen arm and the pick\'s fate', async () => {
    const lesson = LESSONS.find((l) => l.id === 'mamba');
    const n = lesson.steps.findIndex((s) => s.predict) + 1;
    assert.ok(n > 0);
    const { page: p, consoleErrors: errs } = await openPage(env.context, `${env.url}#lesson=mamba&step=${n}`);
    await p.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
    assert.equal(await p.isVisible('#predict-box'), true);
    await p.click('#lesson-apply');
    await p.waitForFunction(() => window.__tunelab.panels.tune.state.seed === 1 && window.__tunelab.panels.tune.state.dseed === 1);
    // The step is applied once the lesson says so: its status line changes then, which can move the picker's
    // buttons. A click while they move can land beside them (a loaded fresh-clone run read `pick` null), so the
    // test picks after that, and after the settings' check (arm count, picker) is no longer pending.
    await p.waitForFunction(() => window.__tunelab.lesson.message.startsWith('Changed'));
    await waitArmCount(p, /^18 arms/);
    await p.waitForFunction(() => window.__tunelab.panels.tune.checkTimer === undefined
      && document.querySelectorAll('#predict-arms button').length === 18);
    // Pick the largest step with the small batch (arm ids are step-major, then batch).
    await p.click('#predict-arms button[data-arm="17"]');
    assert.equal((await p.evaluate(() => window.__tunelab.drill)).predict.pick, 17);
    assert.match(await p.textContent('#predict-status'), /^Your pick: arm #17\./);
    await p.click('#run');
    await p.waitForFunction(() => window.__tunelab.drill?.predict?.revealed != null, null, { timeout: 120_000 });
    const rep = await p.evaluate(() => window.__tunelab.lastResult.report);
    const { revealed } = (await p.evaluate(() => window.__tunelab.drill)).predict;
    const fate = armOutcome(rep, 17);
    assert.equal(revealed.pick, 17);
    assert.equal(revealed.chosen, rep.best.arm);
    assert.equal(revealed.fate, fate.kind);
    const status = await p.textContent('#predict-status');
    assert.ok(status.startsWith(`MAMBA chose arm #${rep.best.arm} `), status);
    assert.ok(status.includes(fate.text), status);
    const a17 = rep.arms.find((a) => a.id === 17);
    if (fate.kind === 'pruned') {
      assert.equal(revealed.round, a17.pruned_round);
      assert.ok(status.includes(`pruned after round ${a17.pruned_round + 1}`) && status.includes(scoreText(a17.scores[a17.pruned_round])), status);
    }
    // The pick's drill-down is open.
    assert.equal((await p.evaluate(() => window.__tunelab.drill)).arm, 17);
    assert.deepEqual(errs, []);
    await p.close();
  });
});
