// End-to-end: the time estimate before Run (www/shared/time-estimate.js, src/experiments/cost.rs). Every
// tab shows one for its settings, derived from the core's cost model (`summary.cost` of the worker's check) at a
// rate measured on this device: twice a budget is twice that phase's work and the estimate moves with the work
// at the same rate; a config whose size is unknown before the run (an upload) says so instead; a run shows its
// real time beside the estimate and teaches the rate of the next estimate. No wall time is asserted: the last
// describe asserts the estimate's ratio to the time the same run took on the same machine.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';
import { CASES, loadCase } from './maintask.mjs';
import { KIND_FACTOR } from '../../www/shared/time-estimate.js';

const PANELS = { tune: '', bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr', 'step-size': 'step', tvo: 'tvo' };
const timeId = (name) => `#${PANELS[name] ? `${PANELS[name]}-` : ''}time`;

/** The panel's estimate once its check for the current settings answered (`why` set, or seconds). */
async function estimateOf(page, name, differentFrom = null) {
  await page.waitForFunction(([n, w]) => {
    const e = window.__tunelab.panels[n].estimate;
    return e && (e.seconds != null || e.why) && JSON.stringify(e.phases) !== w;
  }, [name, differentFrom == null ? null : JSON.stringify(differentFrom.phases)], { timeout: 60_000 });
  return page.evaluate((n) => window.__tunelab.panels[n].estimate, name);
}
const phase = (e, name) => e.phases.find((p) => p.name === name);

describe('time estimate before Run', () => {
  let env; let page;
  before(async () => {
    // The single-threaded page (no isolation headers): the estimate does not depend on the flavour.
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('every tab shows an estimate from the core\'s cost at the calibrated rate', async () => {
    for (const name of Object.keys(PANELS)) {
      await page.evaluate((n) => window.__tunelab.panels[n].show(), name);
      const e = await estimateOf(page, name);
      assert.equal(e.why, null, `${name}: ${e.why}`);
      assert.ok(e.work > 0 && e.phases.length > 0, name);
      assert.ok(Math.abs(e.phases.reduce((s, p) => s + p.work, 0) - e.work) <= 1e-9 * e.work, `${name}: phases sum to the work`);
      assert.equal(e.source, 'calibration', name);
      assert.ok(e.calibration > 0 && Math.abs(e.seconds - (e.work * e.rate + e.fixed)) <= 1e-9 * e.seconds, `${name}: seconds = work x rate`);
      const line = page.locator(timeId(name));
      // A visible line of the run bar (the tune tab's `#eta` is MAMBA's reduction factor, a number input).
      assert.equal(await line.evaluate((e) => e.tagName), 'P', name);
      assert.ok(await line.isVisible(), `${name}: the time line is shown`);
      assert.match(await line.textContent(), /^Estimated time: (about \d+(\.\d)? (s|min)|under a second) \(the core's cost model/, name);
      assert.equal(Number(await line.getAttribute('data-work')), e.work, name);
    }
    // The reduction factor's input kept its value and got no text.
    assert.equal(await page.evaluate(() => document.getElementById('eta').textContent), '');
    assert.equal(await page.inputValue('#eta'), String(await page.evaluate(() => window.__tunelab.panels.tune.state.eta)));
  });

  // The estimate arrives after the page's calibration, while a student may already be reaching for Run: the
  // line's arrival (or its emptying) must not move Run. Firefox runs of the test suite clicked the old place of
  // a button that had moved down one line (17 px) and started nothing.
  test('the time line arriving or emptying never moves the Run button', async () => {
    for (const name of Object.keys(PANELS)) {
      await page.evaluate((n) => window.__tunelab.panels[n].show(), name);
      await estimateOf(page, name);
      const moved = await page.evaluate(([n, id]) => {
        const line = /** @type {HTMLElement} */ (document.querySelector(id));
        const run = /** @type {HTMLElement} */ (document.getElementById(window.__tunelab.panels[n].panel.id('run')));
        const at = () => { const r = run.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 10) / 10).join(','); };
        const text = line.textContent;
        const withLine = at();
        line.textContent = '';
        const without = at();
        line.textContent = text;
        return withLine === without ? null : `${withLine} with the line, ${without} without`;
      }, [name, timeId(name)]);
      assert.equal(moved, null, `${name}: Run moved`);
    }
  });

  test('twice the budget is twice its phase\'s work, and the estimate follows the work at the same rate', async () => {
    await page.evaluate(() => window.__tunelab.panels.hoag.show());
    const a = await estimateOf(page, 'hoag');
    const cost = Number(await page.inputValue('#hoag-cost'));
    await page.fill('#hoag-cost', String(2 * cost));
    await page.dispatchEvent('#hoag-cost', 'change');
    const b = await estimateOf(page, 'hoag', a);
    assert.equal(phase(b, 'methods').count, 2 * phase(a, 'methods').count);
    // The added work at the calibration's rate times the HOAG kind's factor (its phases have one class).
    assert.equal(b.calibration, a.calibration);
    assert.ok(Math.abs((b.seconds - a.seconds) - (b.work - a.work) * a.calibration * KIND_FACTOR.hoag) < 1e-9 * b.seconds);
    // The tuning tab: its budget field doubles the chains' gradient evaluations.
    await page.evaluate(() => window.__tunelab.panels.tune.show());
    const t = await estimateOf(page, 'tune');
    const budget = Number(await page.inputValue('#budget'));
    await page.fill('#budget', String(2 * budget));
    await page.dispatchEvent('#budget', 'change');
    const t2 = await estimateOf(page, 'tune', t);
    assert.equal(phase(t2, 'tuning').count, 2 * phase(t, 'tuning').count);
    await page.fill('#budget', String(budget));
    await page.dispatchEvent('#budget', 'change');
    await estimateOf(page, 'tune', t2);
  });

  test('compare mode estimates the whole comparison: MAP, reference and every tuner\'s phases', async () => {
    const t = await estimateOf(page, 'tune');
    await page.click('#compare');
    const c = await estimateOf(page, 'tune', t);
    assert.equal(c.kind, 'compare');
    const names = c.phases.map((p) => p.name);
    assert.ok(names.includes('MAP') && names.includes('MAMBA-KSD: tuning') && names.some((n) => /: evaluation$/.test(n)), names.join(', '));
    assert.ok(c.work > t.work);
    await page.click('#compare');
    await estimateOf(page, 'tune', c);
  });

  test('an upload has no estimate before its file is read, and says why', async () => {
    await page.evaluate(() => window.__tunelab.panels.hoag.show());
    const a = await estimateOf(page, 'hoag');
    await page.selectOption('#hoag-data', 'upload');
    const u = await estimateOf(page, 'hoag', a);
    assert.equal(u.seconds, null);
    assert.match(u.why, /known once the file is read/);
    assert.match(await page.textContent('#hoag-time'), /^Estimated time: no estimate: the data's size is known once the file is read\.$/);
    assert.equal(await page.getAttribute('#hoag-time', 'data-seconds'), null);
    await page.selectOption('#hoag-data', 'simulate');
    await estimateOf(page, 'hoag', u);
  });

  test('a run shows its real time beside the estimate, and the next estimate uses its rate', async () => {
    await page.evaluate(() => window.__tunelab.panels['step-size'].show());
    await page.fill('#step-windows', '6');
    await page.dispatchEvent('#step-windows', 'change');
    await page.fill('#step-fixed', '-4, -3');
    await page.dispatchEvent('#step-fixed', 'change');
    await page.waitForTimeout(400);
    const e = await estimateOf(page, 'step-size');
    const status = await page.evaluate(async () => (await window.__tunelab.panels['step-size'].panel.run())?.status);
    assert.equal(status, 'complete');
    const took = await page.evaluate(() => window.__tunelab.panels['step-size'].timing);
    assert.equal(took.before, e.seconds);
    assert.equal(took.work, e.work);
    assert.ok(took.seconds > 0);
    assert.match(await page.textContent('#step-time'), /^Took \d+\.\d s; estimated (about|under) .* before Run \(from the calibration\)\.$/);
    assert.equal(await page.getAttribute('#step-time', 'data-state'), 'done');
    // A change of settings: the estimate is back, now at the rate this run measured.
    await page.fill('#step-windows', '12');
    await page.dispatchEvent('#step-windows', 'change');
    const n = await estimateOf(page, 'step-size', e);
    assert.equal(n.source, 'runs');
    assert.ok(Math.abs(n.rate - took.seconds / e.work) <= 1e-9 * n.rate);
    assert.match(await page.textContent('#step-time'), /at the rate of your earlier runs\)\.$/);
  });
});

// Every tab's default, the tune default as a comparison and every page preset (tests/e2e/maintask.mjs CASES: the
// paper's tables at page size, tvo mnist-page, the learning-rate multi-task preset; the smaller variants where a
// case has one), each on a first visit (a fresh page, no remembered rate: the calibration's estimate): the estimate
// shown before Run against the time the run took. A ratio on this machine, not a time: the estimate is the core's
// work at a rate the page measures in its worker just before (the calibration chain), so a slower machine slows
// both. The goal is 2x; the band asserted is 3x, because the same case's time moved by up to 3.4x between runs here
// while its calibration did not (2026-11-29, 2-core machine shared with other builds: the step-size default took
// 1.55 s as a loaded page's first run and 0.46 s as a quieter page's sixth; mnist-bnn-page 16.9-27.9 s). The
// ratios measured and the cases not within 2x are in docs/benchmarks.md ("Time estimates").
// A wall-time ratio, so not part of the test command (a fresh-clone run of 823232a measured the step-size default at
// 3.09x where the run before gave 1.0-2.0x): run it by hand with TUNELAB_TIMING_CHECKS=1.
describe('the estimate before Run is within 3x (goal: 2x) of the time taken, for every default and page preset', { skip: process.env.TUNELAB_TIMING_CHECKS !== '1' && 'a timing check: TUNELAB_TIMING_CHECKS=1 runs it' }, () => {
  // A fresh page per case, as a first visit: a page's first runs execute the engine's baseline code (the step-size
  // default took 1.55 s as a page's first run and 0.46 s as its sixth, 2026-11-29), and the factors were fitted to
  // first runs.
  let env;
  before(async () => { env = await launch({ isolation: false, serviceWorkers: 'block' }); });
  after(async () => { await env?.close(); });

  for (const c of CASES) {
    test(c.id, { timeout: 600_000 }, async () => {
      const { page, consoleErrors } = await openPage(env.context, env.url);
      try {
        await loadCase(page, c);
        await page.waitForTimeout(400);
        await page.evaluate((n) => window.__tunelab.panels[n].panel.flushEstimate?.(), c.panel);
        await page.waitForFunction((n) => { const p = window.__tunelab.panels[n]; const e = p.estimate; return !p.running && p.runState !== 'checking' && e && (e.seconds != null || e.why); }, c.panel, { timeout: 120_000 });
        const e = await page.evaluate((n) => window.__tunelab.panels[n].estimate, c.panel);
        assert.equal(e.why, null, `${c.id}: ${e.why}`);
        assert.equal(e.source, 'calibration', c.id);
        const status = await page.evaluate(async (n) => (await window.__tunelab.panels[n].panel.run())?.status, c.panel);
        assert.equal(status, 'complete', c.id);
        const took = await page.evaluate((n) => window.__tunelab.panels[n].timing, c.panel);
        assert.equal(took.before, e.seconds, `${c.id}: the run is checked against the estimate shown`);
        const ratio = e.seconds / took.seconds;
        console.log(`# ${c.id}: estimated ${e.seconds.toFixed(2)} s, took ${took.seconds.toFixed(2)} s, estimate / took ${ratio.toFixed(2)}`);
        // The inputs of a refit of the factors (docs/benchmarks.md, "Time estimates").
        console.log(`# fit ${JSON.stringify({ label: c.id, kind: e.kind, status, work: e.work, calibration: e.calibration, calibrated: e.seconds, seconds: took.seconds, phases: e.phases.map((/** @type {any} */ p) => [p.name, p.unit, p.work, p.count]) })}`);
        assert.ok(ratio >= 1 / 3 && ratio <= 3, `${c.id}: estimated ${e.seconds.toFixed(2)} s, took ${took.seconds.toFixed(2)} s (${ratio.toFixed(2)}x)`);
        assert.deepEqual(consoleErrors, []);
      } finally { await page.close(); }
    });
  }
});
