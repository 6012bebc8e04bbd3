// End-to-end: embed mode. The embed URL shows only the listed control groups and result sections of the
// tuning panel in a 640 x 480 frame, with an "Open full playground" link carrying the state; a lesson on another
// tuner shows that tuner's panel (its Run and results in the frame) and runs there; an old `show=labs` link
// still opens. The Embed dialog writes an iframe snippet and a plain link and copies them (clipboard, or selection
// when the clipboard is blocked); the snippet, pasted into a course page on another origin (127.0.0.2), loads and
// runs the MAMBA lesson to completion and says why it runs single-threaded there; an isolated course page gets
// threads in the iframe when the playground's host sends COEP + CORP cross-origin, and the iframe is blocked when
// it does not.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, coursePage, pageWith, nonLoopback, playgroundFrame, lessonDone, panelRunDone, panelView, hasPoints } from './embed-helpers.mjs';
import { resultOf } from '../../www/lessons.js';
import { LESSONS } from './lesson-files.mjs';

const visible = (page, sel) => page.locator(sel).first().isVisible();

describe('embed mode', () => {
  let b; let pg;
  before(async () => {
    b = await browser({ viewport: { width: 640, height: 480 }, permissions: ['clipboard-read', 'clipboard-write'] });
    pg = await playground({ isolation: true });
  });
  after(async () => { await b?.close(); await pg?.close(); });

  test('the embed URL renders only the listed controls and sections, fits 640 x 480, links to the full page', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${pg.url}#seed=7&embed=1&controls=data,arms,run&show=chart,best`);
    await page.waitForFunction(() => window.__tunelab?.mode != null);
    // Header and footer are gone; the embed bar says which mode it runs and why.
    assert.equal(await visible(page, 'header.site-header'), false);
    assert.equal(await visible(page, 'footer.site-footer'), false);
    assert.equal(await visible(page, '#embed-bar'), true);
    // Plain words for students; the technical reason behind the details link.
    assert.match(await page.textContent('#embed-mode'), /^Runs in your browser on (\d+ threads|one thread)$/);
    assert.match(await page.textContent('#embed-why-text'), /^Threads: \d+ · cross-origin isolated/);
    // Only the listed control groups.
    const shown = await page.$$eval('#settings fieldset[data-group]', (fs) => fs.filter((f) => f.offsetParent !== null).map((f) => f.dataset.group));
    assert.deepEqual(shown, ['data', 'arms']);
    assert.equal(await visible(page, '#run'), true);
    assert.equal(await visible(page, '#copy-link'), false);
    assert.equal(await visible(page, '#copy-embed'), false);
    // Only the listed result sections (the run bar with progress and messages always stays).
    for (const [sel, on] of [['#chart-ksd', true], ['#best', true], ['#bracket', false], ['#arms-table', false], ['#post-table', false], ['#export-config', false], ['#progress', true]]) {
      assert.equal(await visible(page, sel), on, sel);
    }
    // Compact: nothing wider than the frame; the run bar and the chart start within the first screen.
    assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no horizontal scroll at 640 px');
    const runTop = await page.locator('#run').boundingBox();
    assert.ok(runTop.y + runTop.height <= 480, `Run button below the fold: ${JSON.stringify(runTop)}`);
    // "Open full playground": same settings, no embed flags, new tab; follows later changes.
    await page.fill('#n', '1234');
    const href = await page.evaluate(() => { const a = document.getElementById('open-full'); a.dispatchEvent(new MouseEvent('mouseenter')); return a.href; });
    assert.equal(await page.getAttribute('#open-full', 'target'), '_blank');
    const h = new URLSearchParams(new URL(href).hash.slice(1));
    assert.equal(h.get('seed'), '7');
    assert.equal(h.get('n'), '1234');
    for (const k of ['embed', 'controls', 'show', 'autorun']) assert.equal(h.has(k), false, k);
    // The page keeps its embed flags in its own URL while settings change (a reload stays embedded).
    assert.match(page.url(), /embed=1/);
    assert.match(page.url(), /controls=data%2Carms%2Crun/);
    assert.deepEqual(errors, []);
    await page.close();
    // An empty control list leaves results only, full width.
    const p2 = await b.context.newPage();
    await p2.goto(`${pg.url}#embed=1&controls=&show=chart`);
    await p2.waitForFunction(() => window.__tunelab?.mode != null);
    assert.equal(await visible(p2, '#settings'), false);
    assert.equal(await visible(p2, '#run'), false);
    const chart = await p2.locator('#chart-ksd').boundingBox();
    assert.ok(chart.width > 560, `chart fills the frame: ${chart.width}`);
    await p2.close();
  });

  test('a lesson on another tuner: the dialog writes an embed of that panel; at 640 x 480 it shows its Run and results, and runs there', async () => {
    const page = await b.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${pg.url}#lesson=d-ttts`);
    await page.waitForFunction(() => window.__tunelab?.mode != null && window.__tunelab.lesson?.status === 'ready');
    await page.click('#copy-embed');
    await page.check('#embed-autorun');
    const src = (await page.inputValue('#embed-snippet')).match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&');
    const h = new URLSearchParams(new URL(src).hash.slice(1));
    assert.equal(h.get('controls'), 'run');
    assert.equal(h.has('show'), false);
    assert.equal(h.get('lesson'), 'd-ttts');
    assert.equal(h.get('autorun'), '1');
    await page.close();
    const frame = await b.context.newPage(); // the context's viewport: 640 x 480
    const errors = [];
    frame.on('pageerror', (e) => errors.push(String(e)));
    await frame.goto(src);
    await frame.waitForFunction(() => ['running', 'done'].includes(window.__tunelab?.lesson?.status));
    // The Bandits panel with the lesson box; the tuning panel and the tab bar are not shown.
    assert.equal(await visible(frame, '#lesson'), true);
    assert.equal(await visible(frame, '#panel-bandit'), true);
    assert.equal(await frame.getAttribute('#tab-bandit', 'aria-selected'), 'true');
    for (const sel of ['#panel-tune', '#modes', '#chart-ksd', '#settings fieldset[data-group="arms"]']) assert.equal(await visible(frame, sel), false, sel);
    // Settings folded away (a button opens them), the panel's Run and its chart in the first screen.
    assert.equal(await frame.evaluate(() => [...document.querySelectorAll('#panel-bandit form > fieldset')].some((f) => f.offsetParent !== null)), false);
    assert.equal(await visible(frame, '#lesson-settings'), true);
    const run = await frame.locator('#bandit-run').boundingBox();
    assert.ok(run && run.y >= 0 && run.y + run.height <= 480, `Run outside the frame: ${JSON.stringify(run)}`);
    assert.ok(await frame.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no horizontal scroll at 640 px');
    const result = await lessonDone(frame);
    assert.equal(result.status, 'done', result.message);
    const view = await panelView(frame, 'bandit');
    assert.ok(view.runs >= 1);
    assert.ok(hasPoints(view.lastChartData));
    assert.equal(view.resultsInViewport, true, JSON.stringify(view.results));
    assert.deepEqual(resultOf(view.lastReport).algorithms.map((a) => a.kind), ['d-ttts', 'ttts', 'successive-halving', 'uniform', 'random']);
    assert.ok(await frame.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), 'no horizontal scroll after the run');
    // The settings open on demand.
    await frame.click('#lesson-settings');
    assert.equal(await frame.evaluate(() => [...document.querySelectorAll('#panel-bandit form > fieldset')].some((f) => f.offsetParent !== null)), true);
    assert.deepEqual(errors, []);
    await frame.close();
  });

  test('every lesson on another tuner embeds at 640 x 480: its tab, the lesson box, its Run in the frame, no horizontal scroll', async () => {
    for (const lesson of LESSONS.filter((l) => l.panel !== 'tune')) {
      const page = await b.context.newPage();
      await page.goto(`${pg.url}#embed=1&lesson=${lesson.id}&controls=run`);
      await page.waitForFunction(() => window.__tunelab?.lesson?.status === 'ready');
      const view = await panelView(page, lesson.panel);
      assert.equal(view.tabSelected, 'true', lesson.id);
      assert.equal(view.sectionVisible, true, lesson.id);
      assert.equal(view.lessonInPanel, true, lesson.id);
      assert.equal(await visible(page, '#lesson'), true, lesson.id);
      const run = await page.locator(`#panel-${lesson.panel} .runbar button.primary`).boundingBox();
      assert.ok(run && run.y >= 0 && run.y + run.height <= 480 && run.x + run.width <= 640, `${lesson.id}: Run outside the frame ${JSON.stringify(run)}`);
      assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= innerWidth), `${lesson.id}: no horizontal scroll`);
      await page.close();
    }
  });

  test('#embed=1&lesson=d-ttts&autorun=1 runs in the Bandits panel; an old show=labs link still opens', async () => {
    const page = await b.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pg.url}#embed=1&lesson=d-ttts&autorun=1`);
    const result = await lessonDone(page);
    assert.equal(result.status, 'done', result.message);
    const view = await panelView(page, 'bandit');
    assert.equal(view.tabSelected, 'true');
    assert.equal(view.sectionVisible, true);
    assert.ok(view.runs >= 1 && hasPoints(view.lastChartData));
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.runs), 0);
    await page.close();
    // `labs` (the removed "More tuners" card) is ignored like any unknown section.
    const old = await b.context.newPage();
    old.on('pageerror', (e) => errors.push(String(e)));
    await old.goto(`${pg.url}#embed=1&controls=&show=labs,chart`);
    await old.waitForFunction(() => window.__tunelab?.mode != null);
    assert.deepEqual(await old.evaluate(() => window.__tunelab.embed.options.show), ['chart']);
    assert.equal(await visible(old, '#chart-ksd'), true);
    assert.deepEqual(errors, []);
    await old.close();
  });

  test('the layout grows with a larger frame', async () => {
    const page = await b.context.newPage();
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.goto(`${pg.url}#embed=1&controls=arms,run&autorun=1&n=500&budget=200000`);
    await page.waitForFunction(() => window.__tunelab?.mode != null);
    const big = await page.locator('#chart-ksd').boundingBox();
    assert.ok(big.width > 800, `chart width ${big.width} at 1200 px`);
    assert.ok(big.height > 400, `chart height ${big.height} at 800 px`);
    // autorun=1 starts the run once the worker is ready.
    await panelRunDone(page, 'tune', 1);
    assert.ok(resultOf(await page.evaluate(() => window.__tunelab.panels.tune.lastReport))?.best);
    await page.close();
  });

  test('the Embed dialog writes an iframe snippet and a link for the current state and copies them', async () => {
    const page = await b.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${pg.url}#lesson=mamba`);
    await page.waitForFunction(() => window.__tunelab?.mode != null);
    await page.fill('#seed', '11');
    await page.click('#copy-embed');
    assert.equal(await visible(page, '#embed-dialog'), true);
    await page.check('#embed-autorun');
    await page.selectOption('#embed-size', '640x480');
    const snippet = await page.inputValue('#embed-snippet');
    assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/#[^"]+" width="640" height="480" title="tunelab lesson: MAMBA[^"]*" allow="cross-origin-isolated"/);
    const src = snippet.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&');
    const h = new URLSearchParams(new URL(src).hash.slice(1));
    assert.equal(h.get('embed'), '1');
    assert.equal(h.get('autorun'), '1');
    assert.equal(h.get('lesson'), 'mamba');
    assert.equal(h.get('controls'), 'arms,tuner,run');
    // A lesson's embed names the lesson, whose file holds its settings: a snippet of a few hundred characters.
    assert.equal(h.has('seed'), false);
    assert.ok(snippet.length < 400, `${snippet.length}: ${snippet}`);
    const link = await page.inputValue('#embed-link');
    assert.match(link, /^<a href="[^"]+" target="_blank" rel="noopener">Open the tunelab lesson: MAMBA/);
    assert.doesNotMatch(link, /embed=1/);
    // Clipboard API.
    await page.click('#copy-snippet');
    await page.waitForSelector('#embed-status[data-result]');
    assert.equal(await page.getAttribute('#embed-status', 'data-result'), 'copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
    // Clipboard blocked (as in many frames): the text is selected for Ctrl+C, or copied by execCommand.
    await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('blocked', 'NotAllowedError')); });
    await page.evaluate(() => { delete document.getElementById('embed-status').dataset.result; });
    await page.click('#copy-plain-link');
    await page.waitForSelector('#embed-status[data-result]');
    assert.ok(['copied', 'selected'].includes(await page.getAttribute('#embed-status', 'data-result')));
    const sel = await page.evaluate(() => { const t = document.getElementById('embed-link'); return [t.selectionStart, t.selectionEnd, t.value.length]; });
    assert.deepEqual(sel, [0, sel[2], sel[2]]);
    await page.click('#embed-close');
    assert.equal(await visible(page, '#embed-dialog'), false);
    await page.close();
  });
});

/** Takes the snippet the page's Embed dialog writes for the MAMBA lesson (autorun, controls arms + run). */
async function lessonSnippet(context, url) {
  const page = await context.newPage();
  await page.goto(`${url}#lesson=mamba`);
  await page.waitForFunction(() => window.__tunelab?.mode != null);
  await page.click('#copy-embed');
  await page.uncheck('#embed-dialog input[name="controls"][value="tuner"]');
  await page.check('#embed-autorun');
  const snippet = await page.inputValue('#embed-snippet');
  await page.close();
  return snippet;
}

describe('the copied snippet in a course page on another origin', () => {
  test('non-isolated course page (127.0.0.2): the lesson loads, runs to completion, single thread, says why', async () => {
    const b = await browser();
    const pg = await playground({ isolation: true });
    try {
      const snippet = await lessonSnippet(b.context, pg.url);
      const course = await coursePage(pageWith(snippet));
      try {
        const page = await b.context.newPage();
        await page.goto(course.url);
        const frame = await playgroundFrame(page);
        const lesson = await lessonDone(frame);
        assert.equal(lesson.status, 'done', lesson.message);
        const r = await frame.evaluate(() => ({ report: window.__tunelab.panels.tune.lastReport, mode: window.__tunelab.mode, iso: crossOriginIsolated, plain: document.getElementById('embed-mode').textContent, text: document.getElementById('embed-why-text').textContent }));
        r.report = resultOf(r.report);
        assert.equal(r.report.arms.length, 18);
        assert.deepEqual(r.report.rounds.map((x) => x.arms.length), [18, 6]);
        assert.ok(r.report.best && Number.isInteger(r.report.best.arm));
        assert.equal(r.iso, false);
        assert.equal(r.mode.flavour, 'single');
        assert.equal(r.plain, 'Runs in your browser on one thread');
        assert.match(r.text, /^Single thread · inside a frame: threads need the embedding page to be cross-origin isolated/);
        // Only the snippet's groups are shown inside the frame.
        const shown = await frame.$$eval('#settings fieldset[data-group]', (fs) => fs.filter((f) => f.offsetParent !== null).map((f) => f.dataset.group));
        assert.deepEqual(shown, ['arms']);
        assert.deepEqual(nonLoopback(b.requests), []);
        assert.ok(b.requests.some((u) => u.startsWith('http://127.0.0.2')) && b.requests.some((u) => u.startsWith('http://127.0.0.1')));
      } finally { await course.close(); }
    } finally { await b.close(); await pg.close(); }
  });

  test('isolated course page + allow="cross-origin-isolated" + host with COEP and CORP cross-origin: threads in the iframe', async () => {
    const b = await browser();
    const pg = await playground({ isolation: true, corp: 'cross-origin' });
    try {
      const snippet = await lessonSnippet(b.context, pg.url);
      const course = await coursePage(pageWith(snippet), { isolated: true });
      const noAllow = await coursePage(pageWith(snippet.replace(' allow="cross-origin-isolated"', '')), { isolated: true });
      try {
        const page = await b.context.newPage();
        await page.goto(course.url);
        assert.equal(await page.evaluate(() => crossOriginIsolated), true);
        const frame = await playgroundFrame(page);
        const lesson = await lessonDone(frame);
        assert.equal(lesson.status, 'done', lesson.message);
        const r = await frame.evaluate(() => ({ iso: crossOriginIsolated, info: window.__tunelab.info, text: document.getElementById('embed-why-text').textContent }));
        assert.equal(r.iso, true);
        assert.equal(r.info.flavour, 'parallel');
        assert.ok(r.info.threads >= 1);
        assert.match(r.text, /^Threads: \d+ · cross-origin isolated/);
        // Without the allow attribute the same page gets a single thread.
        const page2 = await b.context.newPage();
        await page2.goto(noAllow.url);
        const f2 = await playgroundFrame(page2);
        assert.equal(await f2.evaluate(() => crossOriginIsolated), false);
        assert.equal(await f2.evaluate(() => window.__tunelab.info.flavour), 'single');
        assert.deepEqual(nonLoopback(b.requests), []);
      } finally { await course.close(); await noAllow.close(); }
    } finally { await b.close(); await pg.close(); }
  });

  test('isolated course page + a host without CORP cross-origin: the browser blocks the iframe (documented limit)', async () => {
    const b = await browser();
    const pg = await playground({ isolation: true }); // CORP same-origin
    try {
      const snippet = await lessonSnippet(b.context, pg.url);
      const course = await coursePage(pageWith(snippet), { isolated: true });
      try {
        const page = await b.context.newPage();
        await page.goto(course.url);
        const frame = await (await page.waitForSelector('iframe')).contentFrame();
        await page.waitForTimeout(2000);
        assert.equal(await frame.evaluate(() => typeof window.__tunelab).catch(() => 'undefined'), 'undefined');
      } finally { await course.close(); }
    } finally { await b.close(); await pg.close(); }
  });
});
