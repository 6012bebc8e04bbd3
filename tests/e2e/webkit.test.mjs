// End-to-end in WebKit (the engine of Safari): WebKitGTK's MiniBrowser driven by Debian's WebKitWebDriver
// (webkit2gtk-driver) with selenium-webdriver, under Xvfb (tests/e2e/driver.mjs; setup.sh installs the packages).
// A small suite: the page starts threaded on a server with the isolation headers, every tab's default runs to the
// end with a report, a drawn chart and no page error, a lesson runs, and the determinism cases give the native
// report (tests/e2e/determinism-lib.mjs, the tolerances of the Chromium and Firefox suites). WebDriver classic
// gives no console events: the driver hooks console.error, `error` and `unhandledrejection` in each page it opens
// (an error before the page's first script call is not seen).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './driver.mjs';
import { TABS, ready, assertDefaultRuns, runLesson } from './scenarios.mjs';
import { playground } from './embed-helpers.mjs';
import { CASES, RTOL, RTOL_BY_KIND, compare, label, native, runInPage } from './determinism-lib.mjs';

describe('WebKit (WebKitGTK MiniBrowser over WebKitWebDriver)', () => {
  /** @type {import('./driver.mjs').Browser} */
  let wk; let pg;
  /** @type {import('./driver.mjs').Tab} */
  let tab;
  before(async () => {
    pg = await playground({ isolation: true });
    wk = await openBrowser('webkit');
    tab = await wk.open(pg.url);
    await ready(tab);
  });
  after(async () => { await wk?.close(); await pg?.close(); });

  test('it is WebKit, cross-origin isolated, on the threaded build with SharedArrayBuffer', async () => {
    const s = await tab.evaluate(() => ({ ua: navigator.userAgent, iso: crossOriginIsolated, sab: typeof SharedArrayBuffer, info: window.__tunelab.info, cores: navigator.hardwareConcurrency, lang: navigator.language }));
    assert.match(s.ua, /AppleWebKit\/[\d.]+/);
    assert.doesNotMatch(s.ua, /Chrome|Firefox/);
    assert.equal(s.iso, true);
    assert.equal(s.sab, 'function');
    assert.equal(s.info.flavour, 'parallel');
    assert.equal(s.info.threads, Math.min(s.cores, 16));
  });

  for (const name of TABS) {
    test(`the ${name} tab's default runs to the end: report, chart, message, no error`, async () => {
      await assertDefaultRuns(tab, name);
    });
  }

  test('the MAMBA lesson runs in the tuning tab', async () => {
    const l = await runLesson(tab, pg.url, 'mamba');
    assert.equal(l.status, 'done', l.message);
    assert.equal(l.panel, 'tune');
    assert.deepEqual(tab.errors, []);
  });

  test('threaded wasm in WebKit gives the native report for every determinism case', async () => {
    await tab.goto('about:blank');
    await tab.goto(pg.url);
    await ready(tab);
    const reports = await runInPage(tab);
    for (const c of CASES) {
      const n = native(c);
      const w = reports[label(c)];
      assert.equal(w.status, 'complete', label(c));
      const rel = compare(n.result, w.result, `${label(c)} result`, RTOL_BY_KIND[c.kind] ?? RTOL);
      compare(n.config, w.config, `${label(c)} config`);
      console.log(`# webkit determinism ${label(c)}: largest relative float difference ${rel.toExponential(2)}`);
    }
    assert.deepEqual(tab.errors, []);
  });
});
