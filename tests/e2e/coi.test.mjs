// End-to-end: threads on a static host without isolation headers, through the vendored coi-serviceworker
// (www/coi.js registers it). The static build (dist/) served with NO headers: the first visit reloads once,
// then the page is cross-origin isolated and runs the threaded build with more than one thread; a second visit
// is isolated at once. Where the service worker cannot register (blocked by the browser, no service-worker
// API as in some private modes, switched off with #sw=0) the page stays single-threaded, never reloads, says
// why, and still runs. A server that sends the headers never registers the worker. In a frame on another
// origin (not isolated) the worker cannot help: at most one reload, then single thread.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { browser, playground, coursePage, pageWith, nonLoopback, buildDist, playgroundFrame, lessonDone } from './embed-helpers.mjs';

/** Counts document requests of the main frame (the first load and each reload; hash changes are not requests). */
function countLoads(page) {
  const c = { n: 0 };
  page.on('request', (r) => { if (r.isNavigationRequest() && r.frame() === page.mainFrame()) c.n++; });
  return c;
}

/** Runs the MAMBA lesson in `page` and checks it completes with a chosen arm. */
async function runLesson(page) {
  await page.click('#run');
  const lesson = await page.waitForFunction(() => window.__tunelab.runs >= 1 && !window.__tunelab.running, null, { timeout: 120_000 })
    .then(() => page.evaluate(() => window.__tunelab.lastResult?.report));
  assert.ok(lesson, 'the run produced a report');
  assert.equal(lesson.arms.length, 18);
  assert.ok(lesson.best && Number.isInteger(lesson.best.arm));
}

describe('static host without headers (dist/)', () => {
  let dist; let pg;
  before(async () => {
    dist = buildDist();
    pg = await playground({ root: dist, isolation: false });
  });
  after(async () => { await pg?.close(); });

  test('the service worker takes over after one reload: cross-origin isolated, threaded build, > 1 thread', async () => {
    const b = await browser();
    try {
      const page = await b.context.newPage();
      const loads = countLoads(page);
      await page.goto(`${pg.url}#lesson=mamba`);
      await page.waitForFunction(() => crossOriginIsolated === true && window.__tunelab?.info != null, null, { timeout: 30_000 });
      assert.equal(loads.n, 2, 'exactly one reload');
      const s = await page.evaluate(() => ({ coi: window.__tunelabCoi, info: window.__tunelab.info, controller: !!navigator.serviceWorker.controller }));
      assert.equal(s.controller, true);
      assert.equal(s.coi.state, 'isolated');
      assert.equal(s.coi.headersIsolated, false);
      assert.equal(s.info.flavour, 'parallel');
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      assert.equal(s.info.threads, Math.min(cores, 16));
      if (cores > 1) {
        let seen = new Set();
        for (let i = 0; i < 10 && seen.size < 2; i++) {
          const p = await page.evaluate(() => window.__tunelab.client.probeThreads(512));
          seen = new Set([...seen, ...p.indices]);
        }
        assert.ok(seen.size > 1, `the pool ran on one thread only: ${[...seen]}`);
      }
      await page.waitForFunction(() => window.__tunelab.mode != null);
      assert.match(await page.getAttribute('#runtime', 'title'), /isolated by the service worker/);
      // The lesson survived the reload (its settings are in the URL) and runs.
      assert.equal(await page.evaluate(() => window.__tunelab.lesson?.id), 'mamba');
      await runLesson(page);
      // A second visit is isolated from the start: no reload.
      const page2 = await b.context.newPage();
      const loads2 = countLoads(page2);
      await page2.goto(pg.url);
      await page2.waitForFunction(() => window.__tunelab?.info != null);
      assert.equal(await page2.evaluate(() => crossOriginIsolated), true);
      await page2.waitForTimeout(500);
      assert.equal(loads2.n, 1);
      assert.deepEqual(nonLoopback(b.requests), []);
      assert.ok(b.requests.some((u) => u.endsWith('/coi-serviceworker.js')));
    } finally { await b.close(); }
  });

  for (const [name, opts, state, why] of [
    ['service workers blocked by the browser', { serviceWorkers: 'block' }, 'failed', /isolation service worker could not register/],
    ['no service-worker API (as in some private modes)', { noApi: true }, 'unsupported', /service workers are not available here/],
    ['switched off by the link (#sw=0)', { hash: '&sw=0' }, 'disabled', /switched off by the link/],
  ]) {
    test(`${name}: single thread, no reload, says why, runs`, async () => {
      const b = await browser({ serviceWorkers: opts.serviceWorkers ?? 'allow' });
      try {
        if (opts.noApi) await b.context.addInitScript(() => { Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined }); });
        const page = await b.context.newPage();
        const loads = countLoads(page);
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`${pg.url}#lesson=mamba${opts.hash ?? ''}`);
        await page.waitForFunction((st) => window.__tunelab?.info != null && window.__tunelabCoi?.state === st, state, { timeout: 15_000 });
        await page.waitForFunction(() => window.__tunelab.mode != null);
        // The badge's explanation follows the final state (the "blocked" case gives up after 5 s).
        await page.waitForFunction((re) => new RegExp(re).test(document.getElementById('runtime').title), why.source, { timeout: 10_000 });
        const s = await page.evaluate(() => ({ iso: crossOriginIsolated, info: window.__tunelab.info }));
        assert.equal(s.iso, false);
        assert.equal(s.info.flavour, 'single');
        assert.equal(s.info.threads, 1);
        assert.match(await page.textContent('#runtime'), /Single thread/);
        await runLesson(page);
        assert.equal(loads.n, 1, 'never reloaded');
        assert.deepEqual(errors, []);
        assert.deepEqual(nonLoopback(b.requests), []);
      } finally { await b.close(); }
    });
  }

  test('in a frame on another origin (course page not isolated): at most one reload, then single thread, and it runs', async () => {
    const b = await browser();
    const course = await coursePage(pageWith(`<iframe src="${pg.url}#lesson=mamba&embed=1&controls=run&autorun=1" width="640" height="480" title="tunelab" allow="cross-origin-isolated"></iframe>`));
    try {
      const page = await b.context.newPage();
      await page.goto(course.url);
      const frame = await playgroundFrame(page);
      const lesson = await lessonDone(frame);
      assert.equal(lesson.status, 'done', lesson.message);
      const s = await frame.evaluate(() => ({ iso: crossOriginIsolated, coi: window.__tunelabCoi, info: window.__tunelab.info }));
      assert.equal(s.iso, false);
      assert.equal(s.info.flavour, 'single');
      assert.ok(['no-storage', 'reload-skipped', 'controlled', 'registering', 'failed'].includes(s.coi.state), s.coi.state);
      assert.ok(s.coi.reloads <= 1);
      // No loop: the frame's document is stable for two more seconds.
      const stamp = await frame.evaluate(() => performance.timeOrigin);
      await page.waitForTimeout(2000);
      assert.equal(await frame.evaluate(() => performance.timeOrigin), stamp);
      assert.deepEqual(nonLoopback(b.requests), []);
    } finally { await course.close(); await b.close(); }
  });
});

test('a server that sends the isolation headers never registers the service worker', async () => {
  const b = await browser();
  const pg = await playground({ isolation: true });
  try {
    const page = await b.context.newPage();
    const loads = countLoads(page);
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await page.waitForTimeout(500);
    const s = await page.evaluate(async () => ({ state: window.__tunelabCoi.state, reg: !!(await navigator.serviceWorker.getRegistration()), iso: crossOriginIsolated }));
    assert.deepEqual(s, { state: 'isolated', reg: false, iso: true });
    assert.equal(loads.n, 1);
    assert.equal(b.requests.some((u) => u.endsWith('/coi-serviceworker.js')), false);
  } finally { await b.close(); await pg.close(); }
});
