// End-to-end (page without isolation, pkg/): one run state across setting changes, and the run by keyboard.
// Enter on Run runs and focus is back on Run at the end; at 1280 x 800 the chart is scrolled into view below the
// sticky run bar and its one-line verdict; the end of the run is said in a polite live region;
// Run's tooltip names Ctrl+Enter. After a run, another preset marks the results "from the previous settings"
// (a note in the run bar, which stays in view; data-stale on the panel) until the next Run (here by Ctrl+Enter); on a generated
// panel (step size) a changed field marks them and changing it back unmarks them.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone } from './helpers.mjs';

const TUNE = '#data=simulate&n=300&d=2&dseed=0&model=logistic&sampler=sgld&hfrom=-4&hto=-3&hby=0.5&batch=0.1'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=20000&metric=ksd&msamples=60&thin=5&start=map&seed=3';

describe('run state and keyboard', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block', viewport: { width: 1280, height: 800 } });
    ({ page } = await openPage(env.context, env.url, TUNE));
  });
  after(async () => { await env?.close(); });

  test('Enter on Run: focus back on Run, the end announced, Ctrl+Enter on the tooltip', async () => {
    assert.match(await page.getAttribute('#run', 'title'), /Ctrl\+Enter/);
    assert.match(await page.getAttribute('#run', 'aria-keyshortcuts'), /Control\+Enter/);
    // The page's own help names the keys (the footer, on every tab).
    assert.match(await page.textContent('#keys-help'), /^Keyboard: Ctrl\+Enter \(⌘\+Enter on a Mac\) runs the shown tab's settings from any field; Esc stops the run/);
    assert.ok(await page.isVisible('#keys-help'));
    await page.waitForFunction(() => /arm/.test(document.getElementById('arm-count')?.textContent ?? ''));
    await page.focus('#run');
    await page.keyboard.press('Enter');
    await waitRunDone(page, 1);
    await page.waitForFunction(() => /finished/.test(document.getElementById('announce')?.textContent ?? ''));
    const v = await page.evaluate(() => ({ focus: document.activeElement?.id, role: document.getElementById('announce')?.getAttribute('role'),
      text: document.getElementById('announce')?.textContent, state: window.__tunelab.panels.tune.runState }));
    assert.equal(v.state, 'done');
    assert.equal(v.focus, 'run', 'focus is back on Run');
    assert.equal(v.role, 'status');
    assert.match(v.text, /^SG-MCMC tuning: the run finished in \d+\.\d s\. Done: the chosen arm is #\d+/);
    // At 1280 x 800 the run scrolled the chart into view below the sticky run bar, whose message line gives the
    // one-line verdict.
    const box = await page.evaluate(() => {
      const r = (s) => { const b = document.querySelector(s).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; };
      return { chart: r('#chart-ksd'), bar: r('#panel-tune .runbar'), msg: r('#message'), vh: innerHeight, y: scrollY };
    });
    assert.ok(box.y > 0, 'the page scrolled');
    assert.ok(box.chart.top >= box.bar.bottom - 1 && box.chart.bottom <= box.vh, `chart ${JSON.stringify(box)}`);
    assert.ok(box.msg.top >= 0 && box.msg.bottom <= box.vh, `message ${JSON.stringify(box)}`);
  });

  test('Stop pressed while the settings are being checked keeps the run from starting', async () => {
    const before = await page.evaluate(() => ({ runs: window.__tunelab.panels.tune.runs, state: window.__tunelab.panels.tune.runState }));
    // Run then Stop in one task: the run is still in its checks (its first await) when Stop comes.
    const out = await page.evaluate(async () => {
      const p = window.__tunelab.panels.tune;
      const pending = p.run();
      const checking = p.runState;
      p.stop();
      return { checking, result: await pending };
    });
    assert.equal(out.checking, 'checking');
    assert.equal(out.result, null);
    const after = await page.evaluate(() => ({ runs: window.__tunelab.panels.tune.runs, state: window.__tunelab.panels.tune.runState, running: window.__tunelab.running }));
    assert.deepEqual(after, { runs: before.runs, state: before.state, running: false });
    assert.equal(await page.textContent('#message'), 'Stopped before the run started: nothing ran.');
    assert.equal(await page.isDisabled('#stop'), true);
  });

  test('prefers-reduced-motion turns the transitions off', async () => {
    // The wide-table cue's shadow fades in (a 0.15 s transition); with reduced motion it appears at once.
    const duration = () => page.evaluate(() => {
      const cue = document.querySelector('.scroll-cue');
      return cue ? getComputedStyle(cue, '::after').transitionDuration : 'no .scroll-cue in the page';
    });
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    assert.equal(await duration(), '0.15s');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    assert.equal(await duration(), '1e-05s');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
  });

  test('another preset marks the results as from the previous settings; the next run clears the mark', async () => {
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.stale), false);
    assert.equal(await page.isVisible('#panel-tune .stale-note'), false);
    await page.selectOption('#preset', 'banana');
    await page.waitForFunction(() => window.__tunelab.panels.tune.stale === true);
    assert.equal(await page.getAttribute('#panel-tune', 'data-stale'), 'true');
    assert.ok(await page.isVisible('#panel-tune .runbar .stale-note'));
    assert.match(await page.textContent('#panel-tune .stale-note'), /from the previous settings \(run 1\), not these: press Run/);
    // The chart still shows the last run, so the note is what tells them apart.
    assert.ok(await page.evaluate(() => window.__tunelab.panels.tune.panel.scoreChart.drawn.length > 0));
    await page.focus('#budget');
    await page.keyboard.press('Control+Enter');
    await waitRunDone(page, 2);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.stale), false);
    assert.equal(await page.getAttribute('#panel-tune', 'data-stale'), 'false');
    assert.equal(await page.isVisible('#panel-tune .stale-note'), false);
  });

  test('a generated panel: a changed field marks its results, changing it back unmarks them', async () => {
    await page.click('#tab-step-size');
    await page.evaluate(() => window.__tunelab.panels['step-size'].load({ n: 200, d: 3, windows: 8, iters: 60, hlo: -5, hhi: -2, fixed: '-4, -3', seed: 2 }));
    const out = await page.evaluate(async () => (await window.__tunelab.panels['step-size'].run())?.status);
    assert.equal(out, 'complete');
    assert.equal(await page.evaluate(() => window.__tunelab.panels['step-size'].stale), false);
    await page.fill('#step-windows', '6');
    await page.dispatchEvent('#step-windows', 'change');
    await page.waitForFunction(() => window.__tunelab.panels['step-size'].stale === true);
    assert.ok(await page.isVisible('#panel-step-size .stale-note'));
    await page.fill('#step-windows', '8');
    await page.dispatchEvent('#step-windows', 'change');
    await page.waitForFunction(() => window.__tunelab.panels['step-size'].stale === false);
    assert.equal(await page.isVisible('#panel-step-size .stale-note'), false);
  });
});

describe('phone run bar (390 x 844)', () => {
  test('at most 100 px tall after a run; a long message wraps whole (not cut)', async () => {
    const env = await launch({ isolation: false, serviceWorkers: 'block', viewport: { width: 390, height: 844 } });
    try {
      const { page } = await openPage(env.context, env.url, TUNE);
      await page.waitForFunction(() => /arm/.test(document.getElementById('arm-count')?.textContent ?? ''));
      await page.click('#run');
      await waitRunDone(page, 1);
      const bar = () => page.evaluate(() => {
        const b = document.querySelector('#panel-tune .runbar').getBoundingClientRect();
        const m = document.getElementById('message');
        return { h: b.height, bottom: b.bottom, vh: innerHeight, cut: m.scrollHeight > m.clientHeight + 1, lines: Math.round(m.getBoundingClientRect().height / parseFloat(getComputedStyle(m).lineHeight)) };
      });
      const a = await bar();
      assert.ok(a.h <= 100, `run bar ${a.h} px tall`);
      assert.ok(Math.abs(a.bottom - a.vh) <= 1 && !a.cut, JSON.stringify(a));
      // Copy link's message is long (it holds the page address): it wraps onto more lines, all of it shown.
      await page.evaluate(() => document.getElementById('message').textContent = `Copy this link: ${location.href}`);
      const b = await bar();
      assert.ok(!b.cut && b.lines >= 3, JSON.stringify(b));
    } finally { await env.close(); }
  });
});
