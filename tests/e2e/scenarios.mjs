// What a student does first, as browser-agnostic steps over a driver Tab (tests/e2e/driver.mjs): run a tab's
// default, run a lesson, scan the page with axe-core. Used by the Firefox suite (tests/e2e/firefox.test.mjs),
// the WebKit suite's page steps and the accessibility suite (tests/e2e/a11y.test.mjs, Chromium).
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The tabs in the page's order (www/panels/registry.js). */
export const TABS = ['tune', 'bandit', 'hoag', 'lr-schedule', 'step-size', 'tvo'];
export const AXE = path.join(REPO, 'node_modules/axe-core/axe.min.js');

/** Waits until the page's panels are built and its compute worker has answered. @param {import('./driver.mjs').Tab} tab */
export async function ready(tab, timeout = 60_000) {
  await tab.waitFor(() => window.__tunelab?.info != null && window.__tunelab?.panels?.tvo != null, undefined, timeout);
}

/**
 * Shows tab `name`, waits until its settings are checked, presses its Run button and waits for the run's end.
 * Returns what the page shows and holds: the run state, the run bar's message, the report's kind and status,
 * and whether the chart data hold a finite point.
 * @param {import('./driver.mjs').Tab} tab @param {string} name
 */
export async function runDefault(tab, name, timeout = 180_000) {
  await tab.evaluate((n) => window.__tunelab.panels[n].show(), name);
  await tab.waitFor((n) => {
    const p = window.__tunelab.panels[n];
    const btn = /** @type {HTMLButtonElement | null} */ (document.getElementById(p.panel.id('run')));
    return !p.running && p.runState !== 'checking' && btn != null && !btn.disabled;
  }, name, 60_000);
  const runs = await tab.evaluate((n) => window.__tunelab.panels[n].runs, name);
  const id = await tab.evaluate((n) => window.__tunelab.panels[n].panel.id('run'), name);
  await tab.click(`#${id}`);
  await tab.waitFor(([n, k]) => { const p = window.__tunelab.panels[n]; return p.runs > k && !p.running; }, [name, runs], timeout);
  return tab.evaluate((n) => {
    const p = window.__tunelab.panels[n];
    /** @param {any} d @returns {boolean} */
    const hasPoints = (d) => Array.isArray(d) ? d.some((x) => (typeof x === 'number' && Number.isFinite(x)) || hasPoints(x))
      : (d && typeof d === 'object' ? Object.values(d).some(hasPoints) : false);
    return {
      runState: p.runState, message: document.getElementById(p.panel.id('message'))?.textContent ?? '',
      kind: p.lastReport?.kind, status: p.lastReport?.status, points: hasPoints(p.lastChartData), errors: [...p.errors],
    };
  }, name);
}

/**
 * Loads the page at lesson `id` (a fresh document: a link that changes only the hash would not reload it) and
 * waits until the lesson is ready.
 * @param {import('./driver.mjs').Tab} tab @param {string} url the page's address (no hash) @param {string} id
 */
export async function openLesson(tab, url, id, hash = '') {
  await tab.goto('about:blank');
  await tab.goto(`${url}#lesson=${id}${hash}`);
  await tab.waitFor((i) => window.__tunelab?.lesson?.id === i && window.__tunelab.lesson.status === 'ready', id, 60_000);
}

/**
 * The Run button a student presses in a lesson: the lesson box's own, or the panel's when that one is on screen
 * (the lesson box then hides its own). @param {import('./driver.mjs').Tab} tab @returns {Promise<string>} a selector
 */
export async function lessonRunButton(tab) {
  return tab.evaluate(() => {
    const own = /** @type {HTMLElement | null} */ (document.getElementById('lesson-run'));
    if (own && !own.hidden && own.offsetParent !== null) return '#lesson-run';
    const p = window.__tunelab.panels[window.__tunelab.lesson.panel];
    return `#${p.panel.id('run')}`;
  });
}

/**
 * Presses the lesson's Run once it can start a run: the panel idle, its settings checked (a click while the panel
 * still checks them does nothing) and the button enabled. @param {import('./driver.mjs').Tab} tab
 */
export async function pressLessonRun(tab, timeout = 60_000) {
  await tab.waitFor(() => {
    const p = window.__tunelab.panels[window.__tunelab.lesson.panel];
    const own = /** @type {HTMLButtonElement | null} */ (document.getElementById('lesson-run'));
    const btn = own && !own.hidden && own.offsetParent !== null ? own : /** @type {HTMLButtonElement | null} */ (document.getElementById(p.panel.id('run')));
    return !p.running && p.runState !== 'checking' && btn != null && !btn.disabled;
  }, undefined, timeout);
  await tab.click(await lessonRunButton(tab));
}

/**
 * Opens lesson `id` in `tab`, presses the lesson's Run and waits for its end; returns
 * window.__tunelab.lesson (status, message, runs) and the lesson's panel.
 * @param {import('./driver.mjs').Tab} tab @param {string} url the page's address (no hash) @param {string} id
 */
export async function runLesson(tab, url, id, timeout = 180_000) {
  await openLesson(tab, url, id);
  await pressLessonRun(tab);
  try {
    await tab.waitFor(() => ['done', 'error', 'missing-panel'].includes(window.__tunelab.lesson.status), undefined, timeout);
  } catch (e) {
    // What the page showed when it did not finish: the lesson, its panel and where the click landed.
    const s = await tab.evaluate(() => {
      const l = window.__tunelab.lesson; const p = window.__tunelab.panels[l.panel];
      return { lesson: { status: l.status, message: l.message, runs: l.runs }, panel: { runState: p.runState, running: p.running, runs: p.runs, errors: [...p.errors] }, active: document.activeElement?.id };
    }).catch((x) => String(x));
    throw new Error(`${e}; page: ${JSON.stringify(s)}`);
  }
  return tab.evaluate(() => { const l = window.__tunelab.lesson; return { status: l.status, message: l.message, runs: l.runs, panel: l.panel }; });
}

/** Rules of axe-core's best practices the page keeps too (moderate impact): content in landmarks, one `main`, a heading. */
export const AXE_ALSO = ['region', 'landmark-one-main', 'page-has-heading-one'];

/**
 * Runs axe-core (WCAG 2.0 / 2.1 A and AA rules and its best practices) over the whole document; returns the
 * serious and critical violations and those of AXE_ALSO, each with its rule, impact, help and the failing nodes'
 * selectors and summaries (at most 5).
 * @param {import('./driver.mjs').Tab} tab
 */
export async function axeViolations(tab) {
  if (!(await tab.evaluate(() => typeof (/** @type {any} */ (window)).axe === 'object'))) await tab.addScript(AXE);
  return tab.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    const also = ['region', 'landmark-one-main', 'page-has-heading-one'];
    return r.violations.filter((/** @type {any} */ v) => v.impact === 'serious' || v.impact === 'critical' || also.includes(v.id)).map((/** @type {any} */ v) => ({
      id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
      nodes: v.nodes.slice(0, 5).map((/** @type {any} */ n) => `${n.target.join(' ')}: ${String(n.failureSummary).replace(/\s+/g, ' ').slice(0, 200)}`),
    }));
  });
}

/**
 * Runs a tab's default (runDefault) and asserts what a student sees: the run ends done and complete with this
 * kind's report, finite chart points, a "Done"/"Finished" message and no error in the panel or the page.
 * @param {import('./driver.mjs').Tab} tab @param {string} name
 */
export async function assertDefaultRuns(tab, name) {
  const r = await runDefault(tab, name);
  assert.equal(r.runState, 'done', JSON.stringify(r));
  assert.equal(r.status, 'complete');
  assert.equal(r.kind, name);
  assert.equal(r.points, true, 'the chart data hold finite points');
  assert.match(r.message, /^(Done|Finished)\b/, r.message);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(tab.errors, []);
}
