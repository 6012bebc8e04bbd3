// End-to-end: the tune panel reads at a glance (issue 16). The live MAMBA chart draws from the first chunk of
// round one, on the default settings and on the paper's preset; its legend names the step-size ramp and the
// batch markers; its log-axis ticks are short; the trace and histogram have axis titles; the bracket shows every
// round without clipping, eta = 2 included.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone, waitArmCount, framesToDraw } from './helpers.mjs';

/** Fast settings with many rounds: 22 arms, MAMBA eta 2 (22 -> 11 -> 5 -> 2). */
const ETA2 = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-2.5&hby=0.25&batch=0.1,0.02'
  + '&tuner=mamba&eta=2&unit=grad_evals&budget=100000&metric=ksd&msamples=200&thin=5&start=map&seed=3';

/** The score chart's hooks: aligned data, running arms, and the tick labels uPlot drew. */
const chartView = (page) => page.evaluate(() => {
  const t = window.__tunelab;
  const u = t.panels.tune.panel.scoreChart.u;
  return {
    data: t.lastChartData, pending: t.chartPending ?? [], runs: t.runs, running: t.running,
    ticks: u ? u.axes.map((a) => (a._values ?? []).map(String)) : [],
    labels: u ? u.axes.map((a) => a.label) : [],
  };
});
/** Drawn: a scored point in the aligned data, or a running arm's marker at its compute so far. */
const drawn = () => {
  const t = window.__tunelab;
  const scored = (t.lastChartData ?? []).slice(1).some((ys) => ys.some((v) => v != null));
  return scored || (t.chartPending ?? []).some((p) => Number.isFinite(p.x) && p.x > 0);
};

describe('the live chart and the bracket', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, consoleErrors } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  for (const preset of ['', 'paper-logreg']) {
    test(`the chart draws from the first progress event of Run (${preset || 'default settings'})`, async () => {
      if (preset) { await page.selectOption('#preset', preset); await waitArmCount(page, /^56 arms/); } else await waitArmCount(page, /arms/);
      const runs = await page.evaluate(() => window.__tunelab.runs);
      await page.click('#run');
      // Within the few frames after the first progress event (the chart is built in one frame, its data drawn
      // in the next): the running arms' markers, long before any score.
      const f = await framesToDraw(page, drawn);
      assert.ok(f.drawn && f.frames <= 4, JSON.stringify(f));
      const v = await chartView(page);
      if (v.running) {
        // Round one is running: every running arm has a marker at its compute so far, with no score yet.
        assert.ok(v.pending.length > 0);
        assert.ok(v.pending.every((p) => p.x > 0 && (p.y == null || p.y > 0)));
      }
      // Axis titles carry units; the legend names the step-size ramp and one marker per batch size.
      assert.equal(v.labels[0], 'gradient evaluations per arm');
      assert.equal(v.labels[1], 'KSD (lower is better)');
      const legend = await page.$$eval('#ksd-legend > .item', (els) => els.map((e) => ({ text: e.textContent, ramp: !!e.querySelector('.sw.ramp'), mark: e.querySelector('.mark')?.textContent ?? '' })));
      assert.ok(legend.some((l) => l.ramp && /^step size h 1e-?[\d.]+ … 1e-?[\d.]+$/.test(l.text)), JSON.stringify(legend));
      const batches = legend.filter((l) => /^.batch /.test(l.text));
      assert.equal(batches.length, preset ? 4 : 2);
      assert.equal(new Set(batches.map((b) => b.mark)).size, batches.length);
      await page.click('#stop').catch(() => {});
      await waitRunDone(page, runs + 1);
      // Log-axis ticks: short labels (1e6, 2e6, 0.05), never "1.05e+6".
      const after = await chartView(page);
      for (const t of after.ticks.flat()) assert.match(t, /^(|-?\d+(\.\d+)?(e-?\d+)?)$/, `tick "${t}"`);
      assert.ok(after.ticks[0].filter(Boolean).length >= 2, JSON.stringify(after.ticks));
    });
  }

  test('the bracket shows every round unclipped with eta = 2; trace and histogram have axis titles', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + ETA2);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await waitArmCount(page, /^22 arms/);
    await page.click('#run');
    await waitRunDone(page, 1);
    const report = await page.evaluate(() => window.__tunelab.lastResult.report);
    assert.ok(report.rounds.length >= 4, `${report.rounds.length} rounds`);
    const cols = await page.$$eval('#bracket .round', (els) => els.map((e) => e.querySelectorAll('li').length));
    assert.deepEqual(cols, report.rounds.map((r) => r.arms.length));
    // Nothing clipped: every round lies inside the bracket's box, every line fits its row.
    const geo = await page.evaluate(() => {
      const box = document.getElementById('bracket').getBoundingClientRect();
      const rounds = [...document.querySelectorAll('#bracket .round')].map((r) => r.getBoundingClientRect());
      const lis = [...document.querySelectorAll('#bracket li')].map((li) => ({ sw: li.scrollWidth, cw: li.clientWidth }));
      const ols = [...document.querySelectorAll('#bracket ol')].map((ol) => ({ sw: ol.scrollWidth, cw: ol.clientWidth }));
      return { box: { l: box.left, r: box.right }, rounds: rounds.map((r) => ({ l: r.left, r: r.right })), lis, ols };
    });
    for (const r of geo.rounds) assert.ok(r.l >= geo.box.l - 0.5 && r.r <= geo.box.r + 0.5, JSON.stringify({ r, box: geo.box }));
    assert.ok(geo.lis.every((l) => l.sw <= l.cw + 1), 'a bracket line is cut');
    assert.ok(geo.ols.every((l) => l.sw <= l.cw + 1), 'a bracket column scrolls sideways');
    // The chosen arm is in the last round, visible.
    const best = page.locator('#bracket li.best');
    assert.equal(await best.count(), 1);
    assert.equal(await best.getAttribute('data-arm'), String(report.best.arm));
    assert.ok(await best.isVisible());
    // Trace and histogram axis titles (uPlot's axes), with what they measure.
    const titles = await page.evaluate(() => {
      const p = window.__tunelab.panels.tune.panel;
      return [p.traceChart.u, p.histChart.u].map((u) => u.axes.map((a) => a.label));
    });
    assert.deepEqual(titles[0], ['sample index (after thinning)', 'θ1 (parameter value)']);
    assert.deepEqual(titles[1], ['θ1 (parameter value)', 'samples per bin']);
    assert.deepEqual(consoleErrors, []);
  });

  test('hover: the arm under the cursor is read out and drawn in front; the lines are drawn per arm in the draw hook', async () => {
    // (Runs on the eta = 2 run of the previous test.) One uPlot series holds the scores' extent; the arms are
    // paths of the chart's own draw hook, one per arm with a shown score.
    const info = await page.evaluate(() => {
      const c = window.__tunelab.panels.tune.panel.scoreChart;
      const report = window.__tunelab.lastResult.report;
      const over = c.u.over.getBoundingClientRect();
      // The chosen arm's last marker, in page coordinates.
      const i = c.arms.findIndex((a) => a.id === report.best.arm);
      const pts = c.positions(c.u).get(i);
      const [x, y] = pts[pts.length - 1];
      return { series: c.u.series.length, lines: c.lines, arms: report.arms.length, id: report.best.arm, x: over.left + x, y: over.top + y,
        shown: report.arms.filter((a) => a.scores.some((s) => s != null && Number.isFinite(s) && s > 0)).length };
    });
    assert.equal(info.series, 2);
    assert.equal(info.lines, info.shown);
    assert.ok(info.shown >= info.arms - 2, JSON.stringify(info));
    await page.mouse.move(info.x, info.y);
    await page.waitForFunction((id) => document.getElementById('ksd-hover').textContent.startsWith(`arm #${id}:`), info.id, { timeout: 5_000 });
    const focused = await page.evaluate(() => { const c = window.__tunelab.panels.tune.panel.scoreChart; return c.focused == null ? null : c.arms[c.focused].id; });
    assert.equal(focused, info.id);
    assert.match(await page.textContent('#ksd-hover'), new RegExp(`^arm #${info.id}: h = 1e-?[\\d.]+, batch [\\d.]+%, L = \\d+, score [\\d.e-]+, (survivor|best)`));
    // Away from every arm: nothing is focused.
    await page.mouse.move(0, 0);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.panel.scoreChart.focused), null);
  });

  test('no stale state: a new run clears the previous results; Stop says where it stopped', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + ETA2);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await waitArmCount(page, /^22 arms/);
    await page.click('#run');
    await waitRunDone(page, 1);
    assert.match(await page.textContent('#message'), /Done: the chosen arm is #\d+/);
    assert.ok(await page.locator('#arms-table tbody tr').count() > 0);
    // A long run starts: the previous chosen arm, tables, chart and message are gone at once.
    await page.selectOption('#preset', 'paper-logreg');
    await waitArmCount(page, /^56 arms/);
    // The page as the run begins: read in the task that starts it, right after the panel's `begin`, before any
    // event of the new run can arrive (a snapshot after the click's round trip raced the run's 'started' event,
    // whose 56 arm rows a fresh-clone run on an idle machine read as stale).
    await page.evaluate(() => {
      const p = window.__tunelab.panels.tune.panel;
      const begin = p.begin;
      p.begin = function (...args) {
        const out = begin.apply(this, args);
        p.begin = begin;
        window.__atBegin = {
          best: document.getElementById('best').textContent, message: document.getElementById('message').textContent,
          arms: document.querySelectorAll('#arms-table tbody tr').length, post: document.querySelectorAll('#post-table tbody tr').length,
          bracket: document.querySelectorAll('#bracket li').length, result: window.__tunelab.lastResult,
        };
        return out;
      };
    });
    await page.click('#run');
    await page.waitForFunction(() => window.__atBegin != null);
    const fresh = await page.evaluate(() => window.__atBegin);
    assert.doesNotMatch(fresh.best, /#\d+/, fresh.best);
    assert.doesNotMatch(fresh.message, /chosen arm/);
    assert.equal(fresh.arms, 0);
    assert.equal(fresh.post, 0);
    assert.equal(fresh.bracket, 0);
    assert.equal(fresh.result, null);
    // Stop in round one: the progress line says where the run stopped, and stays so.
    await page.waitForFunction(() => Number(document.querySelector('#progress').value) > 0, null, { timeout: 60_000 });
    await page.click('#stop');
    await waitRunDone(page, 2);
    await page.waitForTimeout(500);
    const stats = await page.textContent('#stats');
    assert.match(stats, /^Stopped at round 1 of 3 · \d+\.\d s · \d+% of the schedule done\.$/, stats);
    assert.doesNotMatch(await page.textContent('#best'), /#\d+/);
    // What it reached stays, labelled partial (tests/e2e/stop-partial.test.mjs: after a scored round).
    assert.match(await page.textContent('#best'), /^Partial \(stopped in round 1 of 3\): no arm was scored yet; \d+ of 56 arms ran/);
    assert.match(await page.textContent('#message'), /^Stopped\./);
  });
});

/** Asserts that `text` holds `prefix` followed by a number within 1% (3 significant digits shown) of `value`. */
function saysNumber(text, prefix, value) {
  const esc = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = text.match(new RegExp(`${esc}(-?[\\d.]+(?:e[-+]?\\d+)?)`));
  assert.ok(m, `"${prefix}<number>" in: ${text}`);
  assert.ok(Math.abs(Number(m[1]) - value) <= 0.01 * Math.abs(value) + 1e-12, `${prefix}${m[1]} against ${value} in: ${text}`);
}

describe('every result explained (tune panel)', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page } = await openPage(env.context, env.url, ETA2));
  });
  after(async () => { await env?.close(); });

  test('a tune run: the reading names the chosen arm, its score, the runner-up and the ratio, the pruned arms, all from the report', async () => {
    await waitArmCount(page, /^22 arms/);
    await page.click('#run');
    await waitRunDone(page, 1);
    const r = await page.evaluate(() => window.__tunelab.lastResult.report);
    const text = await page.textContent('#reading');
    const last = r.rounds[r.rounds.length - 1];
    const score = (a) => a.scores[a.scores.length - 1] ?? Infinity;
    const finalists = r.arms.filter((a) => last.arms.includes(a.id)).sort((x, y) => score(x) - score(y));
    assert.equal(finalists[0].id, r.best.arm);
    assert.match(text, new RegExp(`^MAMBA \\(eta = 2\\) chose arm #${r.best.arm} \\(h = `));
    saysNumber(text, 'KSD ', r.best.score);
    assert.match(text, new RegExp(`the lowest of the ${finalists.length} arms in round ${r.rounds.length}\\.`));
    const second = finalists[1];
    assert.match(text, new RegExp(`The runner-up, arm #${second.id} \\(`));
    saysNumber(text, 'scored ', score(second));
    const ratio = score(second) / r.best.score;
    saysNumber(text, ': ', ratio >= 10 ? Math.round(ratio) : +ratio.toFixed(1));
    const pruned = r.arms.filter((a) => a.status === 'pruned').length;
    assert.match(text, new RegExp(`Of ${r.arms.length} arms, ${pruned} were pruned over ${r.rounds.length} rounds`));
    const steps = r.arms.map((a) => a.step);
    assert.equal(/smallest on the grid/.test(text), r.best.step === Math.min(...steps));
    assert.equal(/largest on the grid/.test(text), r.best.step === Math.max(...steps));
  });

  test('compare mode: the reading ranks the tuners by the KSD of their chosen samples and says when a baseline beats MAMBA, with the numbers', async () => {
    await page.check('#compare');
    await page.click('#run');
    await waitRunDone(page, 2, 300_000);
    const res = await page.evaluate(() => window.__tunelab.panels.tune.lastReport.result);
    const text = await page.textContent('#reading');
    const ok = res.entries.filter((e) => e.best && Number.isFinite(e.evaluation?.ksd)).sort((x, y) => x.evaluation.ksd - y.evaluation.ksd);
    const [w, next] = ok;
    assert.ok(text.startsWith(`Judged by the KSD of each chosen arm's samples (one estimator for every tuner), ${w.name} did best: `), text);
    saysNumber(text, `${w.name} did best: `, w.evaluation.ksd);
    assert.match(text, new RegExp(`with arm #${w.best.arm} \\(`));
    saysNumber(text, `next ${next.name}, `, next.evaluation.ksd);
    const mamba = res.entries.find((e) => e.name === 'MAMBA-KSD');
    const total = (e) => e.compute.grad_evals + e.compute.scoring_grad_evals;
    if (w !== mamba) {
      saysNumber(text, `${w.name} beats MAMBA-KSD here: KSD `, w.evaluation.ksd);
      saysNumber(text, `${w.name} beats MAMBA-KSD here: KSD ${text.match(/beats MAMBA-KSD here: KSD (\S+)/)[1]} against `, mamba.evaluation.ksd);
      const c = total(w) / total(mamba);
      assert.match(text, c >= 1 ? /at [\d.]+× MAMBA's compute/ : /with [\d.]+× less compute than MAMBA/);
      saysNumber(text, c >= 1 ? 'at ' : 'with ', c >= 1 ? (c >= 10 ? Math.round(c) : +c.toFixed(1)) : (1 / c >= 10 ? Math.round(1 / c) : +(1 / c).toFixed(1)));
      // The measured reason, when MAMBA ran the winner's arm and did not choose it.
      const arm = mamba.arms.find((a) => a.step === w.best.step && a.batch_fraction === w.best.batch_fraction && (a.leapfrog ?? 1) === (w.best.leapfrog ?? 1));
      if (arm && arm.id !== mamba.best?.arm) assert.match(text, /Why, measured: MAMBA-KSD (pruned that arm after round \d+|kept that arm to the last round but preferred arm #\d+ \([^)]*\)), where its KSD was \S+, rank \d+ of \d+/);
    } else assert.doesNotMatch(text, /beats MAMBA/);
    // Every tuner is named with its chosen arm.
    for (const e of res.entries) assert.ok(text.includes(`${e.name}: ${e.best ? `arm #${e.best.arm} (` : 'no arm'}`), `${e.name} in: ${text}`);
    // The chosen-arm card names whose choice it shows.
    const shown = res.entries.find((e) => e.best);
    assert.ok((await page.textContent('#best')).includes(`${shown.name}: `), await page.textContent('#best'));
    assert.match(await page.textContent('#best'), new RegExp(`#${shown.best.arm}`));
    await page.uncheck('#compare');
  });
});

/** The box of an element relative to the viewport, and the viewport. */
const boxOf = (page, sel) => page.evaluate((s) => {
  const b = document.querySelector(s).getBoundingClientRect();
  return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, vh: innerHeight, vw: innerWidth, scrollY };
}, sel);
const inView = (b) => b.top >= 0 && b.bottom <= b.vh && b.left >= 0 && b.right <= b.vw && b.bottom > b.top;

describe('phone (390 px) and a small embed (640 x 480)', () => {
  test('at 390 px Run, Stop and the progress line are in view without scrolling, and stay so; nothing hides under them', async () => {
    const env = await launch({ isolation: true, viewport: { width: 390, height: 844 } });
    try {
      const { page, consoleErrors } = await openPage(env.context, env.url);
      await waitArmCount(page, /arms/);
      for (const sel of ['#run', '#stop', '#progress', '#stats']) assert.ok(inView(await boxOf(page, sel)), `${sel} in view: ${JSON.stringify(await boxOf(page, sel))}`);
      assert.equal((await boxOf(page, '#run')).scrollY, 0);
      await page.click('#run');
      await waitRunDone(page, 1);
      const best = await page.evaluate(() => window.__tunelab.lastResult.report.best.arm);
      assert.ok(inView(await boxOf(page, '#message')));
      assert.match(await page.textContent('#message'), new RegExp(`the chosen arm is #${best} `));
      // Scrolled to the end: the bar is still there, and the last card ends above it.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForTimeout(100);
      const run = await boxOf(page, '#run');
      assert.ok(run.scrollY > 1000 && inView(run), JSON.stringify(run));
      const bar = await boxOf(page, '.runbar');
      const last = await page.evaluate(() => { const cards = [...document.querySelectorAll('#results > section.card:not([hidden])')]; return cards[cards.length - 1].getBoundingClientRect().bottom; });
      assert.ok(last <= bar.top + 1, `last card ends at ${last}, the bar starts at ${bar.top}`);
      assert.deepEqual(consoleErrors, []);
    } finally { await env.close(); }
  });

  // The run bar at the top of the results column grows with the run's message (chart 309-504 px in a 480 px window
  // at scrollY 0 before the lesson scrolled its own document after a run): the chart and the verdict end in view.
  test('an embedded lesson at 640 x 480: after its run the whole chart and the chosen arm are in view', async () => {
    const env = await launch({ isolation: true, viewport: { width: 640, height: 480 } });
    try {
      const { page, consoleErrors } = await openPage(env.context, env.url, '#lesson=mamba&embed=1');
      await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
      await page.click('#run');
      await waitRunDone(page, 1);
      const best = await page.evaluate(() => window.__tunelab.lastResult.report.best.arm);
      // The lesson's scroll after the run (two frames after it ends).
      await page.waitForFunction(() => window.__tunelab.lesson.status === 'done');
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
      const chart = await boxOf(page, '#chart-ksd');
      assert.ok(inView(chart) && chart.bottom - chart.top >= 160, `chart ${JSON.stringify(chart)}`);
      assert.ok(inView(await boxOf(page, '#chart-ksd canvas')));
      const msg = await boxOf(page, '#message');
      assert.ok(inView(msg), `message ${JSON.stringify(msg)}`);
      // Not under the run bar (sticky at the top of the column, in front of the chart).
      const bar = await boxOf(page, '#panel-tune .results > .runbar');
      assert.ok(chart.top >= bar.bottom - 1, `chart ${JSON.stringify(chart)} under the run bar ${JSON.stringify(bar)}`);
      assert.match(await page.textContent('#message'), new RegExp(`the chosen arm is #${best} \\(h = `));
      assert.deepEqual(consoleErrors, []);
    } finally { await env.close(); }
  });
});
