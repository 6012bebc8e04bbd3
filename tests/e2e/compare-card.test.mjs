// End-to-end (issue 26, items 1 and 11: compare mode reads as one comparison): a small comparison with an exact
// reference runs; the "who won, at what cost" card is the first card of the results, its numbers are the
// report's (ξ, the evaluation KSD, gradient evaluations, speed-up over grid (KSD), wall time), it shows one KSD
// per tuner and no speed-up on grid rows, its verdict names the tuner the reading names; its buttons show another
// tuner's run below. While it runs, the progress line estimates the WHOLE comparison: the estimate does not
// drop when the second tuner starts (the old line restarted per tuner) and stays within a factor of the real time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

/** A small comparison (five tuners, six arms, n = 1,000) with an exact reference of 500 MALA draws: long enough
 * (5-10 s) for the progress line to show several estimates per tuner. */
const CMP = '#data=simulate&n=1000&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-3&hby=1&batch=0.1,0.01'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=1000000&metric=ksd&msamples=100&thin=5&start=map&seed=1&compare=1&refs=500';

describe('compare mode: one comparison', () => {
  let env; let page; let consoleErrors; let seen;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page, consoleErrors } = await openPage(env.context, env.url, CMP));
    await page.waitForFunction(() => /Compare runs/.test(document.getElementById('arm-count').textContent ?? ''));
    // Every text of the progress line, with the time it showed.
    await page.evaluate(() => {
      const out = (window.__statsSeen = []);
      const node = document.getElementById('stats');
      new MutationObserver(() => { if (out.at(-1) !== node.textContent) out.push(node.textContent); })
        .observe(node, { childList: true, characterData: true, subtree: true });
    });
    const t0 = Date.now();
    await page.click('#run');
    await page.waitForFunction(() => window.__tunelab.runs >= 1 && !window.__tunelab.running, null, { timeout: 240_000 });
    seen = { texts: await page.evaluate(() => window.__statsSeen), wall: (Date.now() - t0) / 1000 };
  });
  after(async () => { await env?.close(); });

  test('after Run the verdict is in view, below the sticky run bar (1280 x 900)', async () => {
    const where = () => {
      const v = /** @type {HTMLElement} */ (document.getElementById('cmp-verdict')).getBoundingClientRect();
      const bar = /** @type {HTMLElement} */ (document.querySelector('#panel-tune .runbar'));
      const b = bar.getBoundingClientRect();
      const sticky = getComputedStyle(bar).position === 'sticky' && b.top < innerHeight / 2;
      return { top: v.top, bottom: v.bottom, height: v.height, barBottom: sticky ? b.bottom : 0, vh: innerHeight, y: scrollY };
    };
    // The page scrolls once the card is drawn (compare-mode.js); wait for it, then say where the verdict is.
    await page.waitForFunction(() => {
      const v = /** @type {HTMLElement} */ (document.getElementById('cmp-verdict')).getBoundingClientRect();
      const bar = /** @type {HTMLElement} */ (document.querySelector('#panel-tune .runbar'));
      const b = bar.getBoundingClientRect();
      const top = getComputedStyle(bar).position === 'sticky' && b.top < innerHeight / 2 ? b.bottom : 0;
      return v.height > 0 && v.top >= top - 1 && v.bottom <= innerHeight + 1;
    }, null, { timeout: 10_000 }).catch(() => {});
    const r = await page.evaluate(where);
    assert.ok(r.height > 0 && r.top >= r.barBottom - 1 && r.bottom <= r.vh + 1, JSON.stringify(r));
    assert.ok(r.y > 0, `the page scrolled to the card: ${JSON.stringify(r)}`);
  });

  test('the card is the first card of the results and its numbers are the report\'s', async () => {
    const r = await page.evaluate(async () => {
      const { fmtSci, fmtTimes } = await import('/www/shared/format.js');
      const res = window.__tunelab.panels.tune.lastReport.result;
      const card = document.getElementById('cmp-card');
      // The results' cards after the run bar and the tab's "Start here" introduction.
      const cards = [...document.querySelectorAll('#results > section.card:not(.start-here), #results > .two-col')].filter((c) => !c.hidden);
      const total = (e) => e.compute.grad_evals + e.compute.scoring_grad_evals;
      const grid = res.entries.find((e) => e.name === 'grid (KSD)');
      const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
      return {
        first: cards[0] === card, hidden: card.hidden,
        heads: [...card.querySelectorAll('thead th')].map((th) => th.textContent),
        rows: [...card.querySelectorAll('tbody tr')].map((tr) => ({
          tuner: tr.dataset.tuner,
          cells: Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.textContent])),
          ksdCells: tr.querySelectorAll('td[data-col="ksd"]').length,
        })),
        expected: res.entries.map((e) => ({
          tuner: e.name,
          cells: {
            xi: fmtSci(e.evaluation.xi), ksd: fmtSci(e.evaluation.ksd), grad: int.format(total(e)),
            speed: e.name.startsWith('grid') ? '' : fmtTimes(total(grid) / total(e)), wall: e.compute.wall_seconds.toFixed(2),
          },
        })),
        note: document.getElementById('cmp-ksd-note').textContent,
        verdict: document.getElementById('cmp-verdict').textContent,
        reading: document.getElementById('reading').textContent,
        entries: res.entries.map((e) => ({ name: e.name, ksd: e.evaluation.ksd, xi: e.evaluation.xi, fresh: e.evaluation.fresh_run })),
        table: [...document.querySelectorAll('#compare-table tbody tr')].map((tr) => ({ tuner: tr.dataset.tuner, speed: tr.querySelector('[data-cell="speed"]')?.textContent, speedLL: tr.querySelector('[data-cell="speed-ll"]')?.textContent })),
        // the paper's speed-up: grid (log-loss)'s gradient evaluations over each tuner's, from the report
        speedLL: Object.fromEntries(res.entries.map((e) => [e.name, (total(res.entries.find((x) => x.name === 'grid (log-loss)')) / total(e)).toFixed(2)])),
      };
    });
    assert.equal(r.hidden, false);
    assert.ok(r.first, 'the card is the first results card');
    assert.deepEqual(r.rows.map((x) => x.tuner), ['MAMBA-KSD', 'MAMBA-FSSD', 'grid (log-loss)', 'grid (KSD)', 'heuristic']);
    assert.deepEqual(r.rows.map(({ tuner, cells }) => ({ tuner, cells })), r.expected);
    // One KSD per tuner: one cell, one column title naming a KSD, FSSD or score.
    for (const row of r.rows) assert.equal(row.ksdCells, 1);
    assert.deepEqual(r.heads.filter((h) => /KSD|FSSD|score/i.test(h)), ['KSD (evaluation)']);
    // Its definition: the fresh evaluation chain from the MAP, its length, the burn-in, the kernel.
    assert.ok(r.entries.every((e) => e.fresh), 'every tuner was evaluated on a fresh chain');
    assert.match(r.note, /^Speed-up vs grid: grid \(KSD\)'s gradient evaluations \(sampling and scoring while tuning\) ÷ this tuner's, not given for grid searches\. KSD \(evaluation\): the kernel Stein discrepancy of a fresh evaluation chain of each tuner's chosen step, batch and L from the MAP \(10,000,000 gradient evaluations, no burn-in removed; up to 1,000 samples evenly thinned\), with full-data gradients and the IMQ kernel/);
    // No speed-up on the grid rows, in the card and in the table below.
    for (const row of r.rows.filter((x) => x.tuner.startsWith('grid'))) assert.equal(row.cells.speed, '');
    assert.equal(r.table.find((x) => x.tuner === 'grid (log-loss)')?.speed, '–');
    assert.equal(r.table.find((x) => x.tuner === 'grid (KSD)')?.speed, 'reference');
    // The paper's speed-up (against grid (log-loss)) beside it: the report's ratio on the tuners' rows, none on grid (KSD).
    assert.equal(r.table.find((x) => x.tuner === 'grid (log-loss)')?.speedLL, 'reference');
    assert.equal(r.table.find((x) => x.tuner === 'grid (KSD)')?.speedLL, '–');
    for (const row of r.table.filter((x) => !x.tuner.startsWith('grid'))) assert.equal(row.speedLL, `${r.speedLL[row.tuner]}×`, row.tuner);
    // The verdict: one seed said; the KSD winner is the reading's "did best"; a loss of MAMBA-KSD is said.
    assert.match(r.verdict, /^One seed \(no band: differences within 5% are called a tie\)\. ξ: .*; KSD: .*; compute: MAMBA-KSD used ([\d.]+× (fewer|more)|about as many) gradient evaluations (than|as) grid \(KSD\)\.$/);
    const readWinner = /\), (.+?) did best: /.exec(r.reading)?.[1];
    const ksdPart = /; KSD: (.+?) lowest/.exec(r.verdict)?.[1];
    assert.equal(ksdPart, readWinner, `${r.verdict} | ${r.reading}`);
    const lowest = (key) => [...r.entries].filter((e) => Number.isFinite(e[key])).sort((a, b) => a[key] - b[key]);
    for (const [label, key] of [['ξ', 'xi'], ['KSD', 'ksd']]) {
      const [w] = lowest(key);
      const m = r.entries.find((e) => e.name === 'MAMBA-KSD');
      const part = r.verdict.split('; ').find((p) => (label === 'ξ' ? p.includes('ξ: ') : p.startsWith('KSD: '))) ?? '';
      const tie = Math.abs(w[key] - m[key]) <= 0.05 * Math.min(w[key], m[key]);
      if (w.name !== 'MAMBA-KSD' && m[key] !== w[key]) assert.match(part, tie ? /: a tie$/ : /MAMBA-KSD loses \([\d.]+× higher\)$/, part);
      else assert.match(part, new RegExp(`${label}: MAMBA-KSD lowest`), part);
    }
    assert.deepEqual(consoleErrors, []);
  });

  test('a tuner\'s button shows its run below the card: chart, chosen arm, arms table', async () => {
    const before = await page.evaluate(() => ({ shown: window.__tunelab.compareCard.shown, best: document.getElementById('best').textContent }));
    assert.equal(before.shown, 0);
    assert.match(before.best, /MAMBA-KSD: /);
    await page.click('#cmp-summary tbody tr[data-tuner="grid (KSD)"] button');
    const after = await page.evaluate(() => ({
      shown: window.__tunelab.compareCard.shown, best: document.getElementById('best').textContent,
      shownReport: window.__tunelab.lastResult.report.name, arms: document.getElementById('arms-table').tBodies[0].rows.length,
      head: document.getElementById('h-table').textContent, pressed: document.querySelector('#cmp-summary tr[data-tuner="grid (KSD)"] button').getAttribute('aria-pressed'),
      gridArms: window.__tunelab.panels.tune.lastReport.result.entries[3].arms.length,
    }));
    assert.equal(after.shown, 3);
    assert.equal(after.shownReport, 'grid (KSD)');
    assert.match(after.best, /grid \(KSD\): /);
    assert.equal(after.arms, after.gridArms);
    assert.equal(after.head, 'Arms of grid (KSD)\'s tuning run');
    assert.equal(after.pressed, 'true');
  });

  test('the progress line estimates the whole comparison, not each tuner anew', async () => {
    const { eta, real } = await page.evaluate(() => ({ eta: window.__tunelab.timeEstimates, real: window.__tunelab.panels.tune.lastReport.compute.wall_seconds }));
    const texts = seen.texts;
    assert.ok(texts.some((t) => /^MAMBA-FSSD \(tuner 2 of 5\) · Round \d+ · [\d.]+ s of about \d+ s for the whole comparison · \d+% of it · /.test(t)), texts.join(' | '));
    assert.ok(texts.some((t) => /tuning done; evaluating its choice \(a fresh chain from the MAP\)/.test(t)), texts.join(' | '));
    assert.match(texts.at(-1), /^MAMBA-KSD shown · Done · the whole comparison took [\d.]+ s; estimated \d+ s at [\d.]+ s\.$/);
    // The estimates: none before the first tuner ran; then every tuner's.
    assert.ok(eta.length >= 5, JSON.stringify(eta));
    assert.deepEqual([...new Set(eta.map((e) => e.tuner))], [0, 1, 2, 3, 4]);
    // How good the estimates are is tested without real time, on synthetic events (compare-clock.test.mjs): a test
    // against this run's wall time would be a timing in a test (the helper's first version allowed a factor of 3,
    // 1.5 from the third tuner on, and a 25% drop at the second tuner, which the threaded build failed).
    assert.ok(eta.every((e) => Number.isFinite(e.total) && e.total > 0 && real > 0), JSON.stringify(eta));
  });

  test('a comparison stopped before its end has no verdict, and says so', async () => {
    await page.click('#run');
    // Stop as soon as the comparison has started (its card says "Running: "), not after its first estimate: with
    // two test files at a time on a loaded machine, the Stop after the first estimate landed once after this small
    // comparison (5-10 s) had finished, and the card showed its verdict.
    await page.waitForFunction(() => window.__tunelab.running
      && /^Running: /.test(document.getElementById('cmp-verdict')?.textContent ?? ''), null, { timeout: 60_000 });
    await page.click('#stop');
    await page.waitForFunction(() => !window.__tunelab.running, null, { timeout: 10_000 });
    assert.equal(await page.textContent('#cmp-verdict'), 'No verdict: the comparison did not finish (the tuners that ran are in the table at the bottom).');
  });
});
