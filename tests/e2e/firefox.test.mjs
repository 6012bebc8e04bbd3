// End-to-end in Firefox: Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi (tests/e2e/driver.mjs;
// no geckodriver, no downloaded browser). What a student meets first, as the Chromium suites check it: every
// tab's default runs to the end with a report and a drawn chart and no page error, a lesson runs, the page gets
// threads on a plain static host through the isolation service worker (www/coi.js: one reload, then the threaded
// build with more than one thread), and the determinism check: Firefox's single-threaded and threaded wasm give
// the native report (the CLI's) with the tolerances of tests/e2e/determinism.test.mjs, which the Chromium builds
// meet too, and bit-identical reports to each other.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './driver.mjs';
import { TABS, ready, assertDefaultRuns, runLesson, pressLessonRun } from './scenarios.mjs';
import { playground, buildDist, nonLoopback } from './embed-helpers.mjs';
import { CASES, RTOL, RTOL_BY_KIND, compare, label, native, runInPage } from './determinism-lib.mjs';

/** @type {import('./driver.mjs').Browser} */
let ff;
before(async () => { ff = await openBrowser('firefox'); });
after(async () => { await ff?.close(); });

describe('Firefox ESR: the page on a server with the isolation headers', () => {
  let pg; let tab;
  before(async () => {
    pg = await playground({ isolation: true });
    tab = await ff.open(pg.url);
    await ready(tab);
  });
  after(async () => { await tab?.close(); await pg?.close(); });

  test('it is Firefox, cross-origin isolated, on the threaded build', async () => {
    const s = await tab.evaluate(() => ({ ua: navigator.userAgent, iso: crossOriginIsolated, info: window.__tunelab.info, cores: navigator.hardwareConcurrency }));
    assert.match(s.ua, /Firefox\/\d+/);
    assert.equal(s.iso, true);
    assert.equal(s.info.flavour, 'parallel');
    assert.equal(s.info.threads, Math.min(s.cores, 16));
  });

  for (const name of TABS) {
    test(`the ${name} tab's default runs to the end: report, chart, message, no error`, async () => {
      await assertDefaultRuns(tab, name);
    });
  }

  test('the D-TTTS lesson runs in its tab', async () => {
    const l = await runLesson(tab, pg.url, 'd-ttts');
    assert.equal(l.status, 'done', l.message);
    assert.equal(l.panel, 'bandit');
    assert.ok(l.runs >= 1);
    assert.deepEqual(tab.errors, []);
    assert.deepEqual(nonLoopback(tab.requests), []);
  });
});

describe('Firefox ESR: a static host without headers (dist/), threads through the service worker', () => {
  let pg;
  before(async () => { pg = await playground({ root: buildDist(), isolation: false }); });
  after(async () => { await pg?.close(); });

  // In the fresh-clone run of the merged main of 2026-11-29 (03:00 UTC) this test waited 60 s for isolation and
  // failed, with no record of the page's state; run alone and as part of this file on main 2e50b18 with the
  // branch's changes (04:29 UTC, load average 3-4) it passed in 2.5 s (one reload, isolated, two threads). A
  // timeout now reports the isolation script's state (window.__tunelabCoi), the service worker's registration and
  // the page's errors, so a repeat names its cause.
  test('one reload, then cross-origin isolated, the threaded build on more than one thread; the lesson runs', async () => {
    const tab = await ff.open(`${pg.url}#lesson=mamba`);
    try {
      try {
        await tab.waitFor(() => crossOriginIsolated === true && window.__tunelab?.info != null, undefined, 60_000);
      } catch (e) {
        // What the page saw: the isolation script's state, the service worker's, the worker's start.
        const s = await tab.evaluate(async () => {
          const reg = await navigator.serviceWorker?.getRegistration();
          return { coi: window.__tunelabCoi, isolated: crossOriginIsolated, controller: navigator.serviceWorker?.controller?.state ?? null,
            registration: reg ? { active: reg.active?.state ?? null, installing: reg.installing?.state ?? null, waiting: reg.waiting?.state ?? null } : null,
            info: window.__tunelab?.info ?? null, reloads: sessionStorage.getItem('tunelab-coi-reloads'), errors: null };
        }).catch((x) => String(x));
        throw new Error(`${e}; page: ${JSON.stringify(s)}; page errors: ${JSON.stringify(tab.errors)}`);
      }
      const s = await tab.evaluate(() => ({ coi: window.__tunelabCoi, info: window.__tunelab.info, controller: !!navigator.serviceWorker.controller, cores: navigator.hardwareConcurrency }));
      assert.equal(s.controller, true);
      assert.equal(s.coi.state, 'isolated');
      assert.equal(s.coi.headersIsolated, false);
      assert.equal(s.coi.reloads, 1);
      assert.equal(s.info.flavour, 'parallel');
      assert.equal(s.info.threads, Math.min(s.cores, 16));
      if (s.cores > 1) {
        /** @type {Set<number>} */
        let seen = new Set();
        for (let i = 0; i < 10 && seen.size < 2; i++) {
          const p = await tab.evaluate(() => window.__tunelab.client.probeThreads(512));
          seen = new Set([...seen, ...p.indices]);
        }
        assert.ok(seen.size > 1, `the pool ran on one thread only: ${[...seen]}`);
      }
      // The lesson's settings survived the reload (they are in the URL), and it runs.
      await tab.waitFor(() => window.__tunelab.lesson?.id === 'mamba' && window.__tunelab.lesson.status === 'ready', undefined, 60_000);
      await pressLessonRun(tab);
      await tab.waitFor(() => ['done', 'error'].includes(window.__tunelab.lesson.status), undefined, 180_000);
      const l = await tab.evaluate(() => ({ ...window.__tunelab.lesson, report: null, best: window.__tunelab.panels.tune.lastReport?.result?.best?.arm }));
      assert.equal(l.status, 'done', l.message);
      assert.ok(Number.isInteger(l.best));
      assert.deepEqual(tab.errors, []);
      assert.deepEqual(nonLoopback(tab.requests), []);
    } finally { await tab.close(); }
  });
});

describe('Firefox ESR: the same config and seed give the native report, single-threaded and threaded', () => {
  /** @type {Record<string, any>} */
  const nativeReports = {};
  /** @type {Record<string, Record<string, any>>} */
  const byBuild = {};
  before(() => { for (const c of CASES) nativeReports[label(c)] = native(c); });

  // Without isolation headers and with the service worker switched off by the link (#sw=0): single-threaded.
  for (const build of [{ name: 'single-threaded wasm', isolation: false, hash: '#sw=0', flavour: 'single' }, { name: 'threaded wasm', isolation: true, hash: '', flavour: 'parallel' }]) {
    test(`${build.name}: every case's report equals the native one`, async () => {
      const pg = await playground({ isolation: build.isolation });
      const tab = await ff.open(pg.url + build.hash);
      try {
        await ready(tab);
        assert.equal(await tab.evaluate(() => window.__tunelab.info.flavour), build.flavour);
        const reports = await runInPage(tab);
        byBuild[build.flavour] = reports;
        for (const c of CASES) {
          const n = nativeReports[label(c)];
          const w = reports[label(c)];
          assert.equal(w.status, 'complete', label(c));
          const rel = compare(n.result, w.result, `${label(c)} result`, RTOL_BY_KIND[c.kind] ?? RTOL);
          compare(n.config, w.config, `${label(c)} config`);
          console.log(`# firefox determinism ${label(c)} ${build.name}: largest relative float difference ${rel.toExponential(2)}`);
        }
        assert.deepEqual(tab.errors, []);
      } finally { await tab.close(); await pg.close(); }
    });
  }

  test('single-threaded and threaded wasm give bit-identical reports', () => {
    assert.ok(byBuild.single && byBuild.parallel, 'both builds ran');
    for (const c of CASES) compare(byBuild.single[label(c)].result, byBuild.parallel[label(c)].result, `${label(c)} result`, 0);
  });
});
