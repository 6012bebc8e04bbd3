// Accessibility (WCAG 2.1 AA): axe-core (npm, injected from node_modules/axe-core/axe.min.js) over every tab
// after its default run, every lesson (its box on top of its tab) and the embedded page (a lesson embed after its
// run, a tab embed), in Chromium through the shared driver (tests/e2e/driver.mjs). No serious or critical
// violation, and none of the best-practice rules the page keeps (content inside landmarks, one `main`, a
// level-one heading; scenarios.mjs AXE_ALSO). Each violation is reported with its rule and failing nodes.
// Checked to fail: with the lesson's Back button named "Previous step" again (label-content-name-mismatch) and
// with the pruned-arm grey #989a9c on the page's background (color-contrast).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser } from './driver.mjs';
import { TABS, ready, runDefault, openLesson, axeViolations } from './scenarios.mjs';
import { playground } from './embed-helpers.mjs';
import { LESSONS } from '../../www/lessons.js';

/** @param {any[]} v */
const show = (v) => JSON.stringify(v, null, 1);

describe('axe-core: no serious or critical violation on any tab, lesson or embed', () => {
  /** @type {import('./driver.mjs').Browser} */
  let b; let pg;
  before(async () => { pg = await playground({ isolation: true }); b = await openBrowser('chromium'); });
  after(async () => { await b?.close(); await pg?.close(); });

  describe('every tab after its default run', () => {
    /** @type {import('./driver.mjs').Tab} */
    let tab;
    before(async () => { tab = await b.open(pg.url); await ready(tab); });
    after(async () => { await tab?.close(); });
    for (const name of TABS) {
      test(name, async () => {
        const r = await runDefault(tab, name);
        assert.equal(r.runState, 'done', JSON.stringify(r));
        const v = await axeViolations(tab);
        console.log(`# axe ${name} tab: ${v.length} rules violated (${v.map((x) => `${x.id} ${x.impact} x${x.count}`).join(', ')})`);
        assert.deepEqual(v, [], show(v));
      });
    }
  });

  describe('every lesson, as it opens', () => {
    /** @type {import('./driver.mjs').Tab} */
    let tab;
    before(async () => { tab = await b.open('about:blank'); });
    after(async () => { await tab?.close(); });
    for (const l of LESSONS) {
      test(l.id, async () => {
        await openLesson(tab, pg.url, l.id);
        const v = await axeViolations(tab);
        console.log(`# axe lesson ${l.id}: ${v.length} rules violated (${v.map((x) => `${x.id} ${x.impact} x${x.count}`).join(', ')})`);
        assert.deepEqual(v, [], show(v));
      });
    }
  });

  describe('the embedded page', () => {
    for (const [what, hash, done] of [
      ['a lesson embed after its run (#lesson=mamba&embed=1&controls=run&autorun=1)', '#lesson=mamba&embed=1&controls=run&autorun=1',
        () => window.__tunelab?.lesson?.status === 'done'],
      ['a tab embed after its run (#panel=hoag&embed=1&autorun=1)', '#panel=hoag&embed=1&autorun=1',
        () => window.__tunelab?.panels?.hoag?.runs >= 1 && !window.__tunelab.panels.hoag.running],
    ]) {
      test(/** @type {string} */ (what), async () => {
        const tab = await b.open(pg.url + hash);
        try {
          await tab.waitFor(/** @type {() => boolean} */ (done), undefined, 180_000);
          const v = await axeViolations(tab);
          console.log(`# axe embed ${hash}: ${v.length} rules violated (${v.map((x) => `${x.id} ${x.impact} x${x.count}`).join(', ')})`);
          assert.deepEqual(v, [], show(v));
          assert.deepEqual(tab.errors, []);
        } finally { await tab.close(); }
      });
    }
  });
});
