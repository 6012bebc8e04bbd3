// End-to-end: one run state per panel (www/panels/panel.js, `setRunState`) that the run bar, the chart
// placeholders, the reading and the export buttons all show. After a failed run nothing says "Starting…" or
// "Running…"; a new upload replaces the old error; an empty file gets one message, and Run after a chosen file
// names that file's problem (never "Choose a CSV file first"). The Preset menu shows the loaded preset until
// the settings change. Page without isolation (single-threaded build, pkg/).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage } from './helpers.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-state-'));
const file = (name, text) => { const p = path.join(tmp, name); fs.writeFileSync(p, text); return p; };
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A seeded logistic CSV (a, b, y). */
function goodCsv(n = 120, seed = 11) {
  let s = seed;
  const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
  const rows = Array.from({ length: n }, () => { const a = u() * 4 - 2; const b = u() * 4 - 2; return `${a.toFixed(4)},${b.toFixed(4)},${u() < 1 / (1 + Math.exp(-2 * a + b)) ? 1 : 0}`; });
  return ['a,b,y', ...rows].join('\n') + '\n';
}
const CAT = 'a,b,y\n0.5,cat,1\n0.1,0.2,0\n0.3,0.4,1\n0.2,0.1,0\n';

const FAILED = /^The run failed, so there is nothing to show here/;

/** Texts of the visible placeholders in a panel's results, and its state. @param {string} sel the panel's section */
const stateOf = (page, sel) => page.evaluate((s) => {
  const sec = document.querySelector(s);
  const ph = [...sec.querySelectorAll('.results .placeholder')].filter((e) => e.offsetParent !== null).map((e) => e.textContent);
  return { state: sec.dataset.runState, placeholders: ph, text: sec.querySelector('.results').innerText };
}, sel);

describe('one run state (page without isolation)', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page, consoleErrors } = await openPage(env.context, env.url,
      '#data=upload&model=logistic&sampler=sgld&hfrom=-4&hto=-3&hby=0.5&batch=0.1&tuner=mamba&eta=3&budget=20000&msamples=50&thin=5&seed=1'));
  });
  after(async () => { await env?.close(); });

  test('tune panel: a failed run, then a good upload, then an empty file: one consistent state each time', async () => {
    assert.equal(await page.getAttribute('#panel-tune', 'data-run-state'), 'idle');
    await page.setInputFiles('#file', file('cat.csv', CAT));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid != null);
    await page.click('#run');
    await page.waitForFunction(() => window.__tunelab.runs >= 1 && !window.__tunelab.running && document.getElementById('panel-tune').dataset.runState === 'failed', null, { timeout: 60_000 });
    const failed = await stateOf(page, '#panel-tune');
    assert.match(await page.textContent('#stats'), /^Failed/);
    assert.match(await page.textContent('#message'), /^The run failed: .*"cat" is not a number/);
    assert.ok(failed.placeholders.length >= 3, JSON.stringify(failed.placeholders));
    for (const t of failed.placeholders) assert.match(t, FAILED);
    assert.doesNotMatch(failed.text, /Starting|Running/);
    assert.equal(await page.isDisabled('#export-report'), true);
    assert.equal(await page.isDisabled('#export-png'), true);

    // A good file: the old error goes from the whole page; the panel is idle again.
    await page.setInputFiles('#file', file('good.csv', goodCsv()));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid === 'true');
    assert.equal(await page.textContent('#message'), '');
    assert.equal(await page.getAttribute('#panel-tune', 'data-run-state'), 'idle');
    for (const t of (await stateOf(page, '#panel-tune')).placeholders) assert.doesNotMatch(t, FAILED);
    assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /"cat" is not a number/);

    // An empty file: exactly one message about it (no label note), and Run names its problem.
    await page.setInputFiles('#file', file('empty.csv', ''));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid === 'false');
    const shown = await page.evaluate(() => ['data-message', 'label-note', 'message']
      .map((id) => document.getElementById(id)).filter((e) => e.offsetParent !== null && e.textContent.trim()).map((e) => e.textContent));
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.match(shown[0], /^empty\.csv: the file is empty/);
    await page.click('#run');
    await page.waitForFunction(() => /empty\.csv: the file is empty/.test(document.getElementById('message').textContent));
    assert.doesNotMatch(await page.textContent('#message'), /Choose a CSV file first/);
    // Refused before running: nothing changed state.
    assert.equal(await page.getAttribute('#panel-tune', 'data-run-state'), 'idle');
    // A form change keeps the file's message (not "Choose a CSV file").
    await page.fill('#seed', '2');
    assert.match(await page.textContent('#data-message'), /the file is empty/);
  });

  test('HOAG panel: failed run, empty file and good file keep the bar, charts, landscape and reading in one state', async () => {
    await page.evaluate(() => window.__tunelab.panels.hoag.load({ problem: 'logreg', data: 'upload', methods: ['hoag-exponential', 'grid'], cost: 200, maxiter: 8, land: 0 }));
    // Before any run and with no file: Run is refused with "choose a file", the panel stays idle.
    await page.click('#hoag-run');
    await page.waitForFunction(() => /Choose a CSV file first/.test(document.getElementById('hoag-message').textContent));
    assert.equal(await page.getAttribute('#panel-hoag', 'data-run-state'), 'idle');
    assert.equal(await page.evaluate(() => window.__tunelab.panels.hoag.running), false);
    await page.setInputFiles('#hoag-file', file('cat.csv', CAT));
    await page.waitForFunction(() => /cat\.csv/.test(document.getElementById('hoag-file-msg').textContent));
    await page.click('#hoag-run');
    await page.waitForFunction(() => document.getElementById('panel-hoag').dataset.runState === 'failed' && !window.__tunelab.panels.hoag.running, null, { timeout: 60_000 });
    const failed = await stateOf(page, '#panel-hoag');
    assert.match(await page.textContent('#hoag-stats'), /^Failed/);
    assert.match(await page.textContent('#hoag-message'), /^The run failed/);
    assert.ok(failed.placeholders.length >= 2, JSON.stringify(failed.placeholders));
    for (const t of failed.placeholders) assert.match(t, FAILED);
    assert.doesNotMatch(failed.text, /Starting|Running/);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.hoag.runState), 'failed');

    await page.setInputFiles('#hoag-file', file('empty.csv', ''));
    await page.waitForFunction(() => /empty\.csv/.test(document.getElementById('hoag-file-msg').textContent));
    assert.equal(await page.textContent('#hoag-message'), '', 'a new file replaces the old error');
    assert.equal(await page.getAttribute('#panel-hoag', 'data-run-state'), 'idle');
    const idle = await stateOf(page, '#panel-hoag');
    for (const t of idle.placeholders) assert.doesNotMatch(t, FAILED, 'idle again: no placeholder says the run failed');
    const msg = await page.textContent('#hoag-file-msg');
    assert.match(msg, /^empty\.csv: the file is empty\. Choose a CSV file with a header line and at least one row\.$/, msg);
    await page.click('#hoag-run');
    await page.waitForFunction(() => document.getElementById('hoag-message').textContent !== '');
    assert.match(await page.textContent('#hoag-message'), /empty\.csv: the file is empty/);
    assert.doesNotMatch(await page.textContent('#hoag-message'), /Choose a CSV file first/);

    await page.setInputFiles('#hoag-file', file('good.csv', goodCsv()));
    await page.waitForFunction(() => /good\.csv: 120 rows/.test(document.getElementById('hoag-file-msg').textContent));
    await page.click('#hoag-run');
    await page.waitForFunction(() => document.getElementById('panel-hoag').dataset.runState === 'done', null, { timeout: 60_000 });
    assert.match(await page.textContent('#hoag-message'), /^Done/);
    assert.equal(await page.isEnabled('#hoag-export-report'), true);
    const done = await stateOf(page, '#panel-hoag');
    for (const t of done.placeholders) assert.doesNotMatch(t, FAILED);
  });

  test('the Preset menu shows the loaded preset until a setting changes', async () => {
    await page.click('#tab-tune');
    await page.selectOption('#preset', 'demo');
    await page.waitForFunction(() => /Preset “demo” loaded/.test(document.getElementById('message').textContent));
    assert.equal(await page.inputValue('#preset'), 'demo');
    assert.equal(await page.evaluate(() => document.querySelector('#preset').selectedOptions[0].textContent), 'Demo: small logistic regression');
    await page.fill('#seed', '5');
    assert.equal(await page.inputValue('#preset'), '');

    await page.click('#tab-bandit');
    const [value, label] = await page.$eval('#bandit-preset', (s) => [s.options[1].value, s.options[1].textContent]);
    await page.selectOption('#bandit-preset', value);
    await page.waitForFunction((v) => document.getElementById('bandit-message').textContent.includes(`Preset “${v}” loaded`), value);
    assert.equal(await page.inputValue('#bandit-preset'), value);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.bandit.preset), value);
    assert.equal(await page.$eval('#bandit-preset', (s) => s.selectedOptions[0].textContent), label);
    await page.fill('#bandit-seed', '9');
    assert.equal(await page.inputValue('#bandit-preset'), '');
    assert.equal(await page.evaluate(() => window.__tunelab.panels.bandit.preset), null);
    assert.deepEqual(consoleErrors, []);
  });
});
