// End-to-end: the HOAG panel's sparse path. An uploaded svmlight / libsvm file is parsed by the core in the
// worker (typed errors with the line shown as the panel's message), sparse HOAG runs there with progress, and
// Stop ends a long sparse run with the page usable.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, foreignRequests } from './helpers.mjs';

const HASH = '#panel=hoag&hoag.problem=logreg&hoag.data=svmlight&hoag.methods=hoag-exponential,grid&hoag.cost=400&hoag.maxiter=15&hoag.land=21&hoag.seed=5';

/** Simulated documents (seeded LCG): `n` lines over `p` terms, about 6 terms each, counts 1-3, labels ±1. */
function documents(n, p) {
  let s = 12345;
  const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
  const lines = ['# simulated documents'];
  for (let i = 0; i < n; i++) {
    const terms = [...new Set(Array.from({ length: 6 }, () => Math.floor(u() * p)))].sort((a, b) => a - b);
    const t = terms.reduce((a, j) => a + (j % 4 === 0 ? 1.5 : j % 4 === 1 ? -1.5 : 0), 0);
    lines.push(`${u() < 1 / (1 + Math.exp(-t)) ? '+1' : '-1'} ${terms.map((j) => `${j + 1}:${1 + Math.floor(u() * 3)}`).join(' ')}`);
  }
  return lines.join('\n') + '\n';
}

async function runHoag(page, timeout = 60_000) {
  const before = await page.evaluate(() => window.__tunelab.panels.hoag.runs);
  await page.click('#hoag-run');
  await page.waitForFunction((k) => window.__tunelab.panels.hoag.runs > k && !window.__tunelab.panels.hoag.running, before, { timeout });
  return page.evaluate(() => ({ report: window.__tunelab.panels.hoag.lastReport?.result, message: document.getElementById('hoag-message').textContent }));
}

async function upload(page, name, text) {
  await page.setInputFiles('#hoag-svm-file', { name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction((n) => document.getElementById('hoag-svm-msg').textContent.startsWith(n), name);
}

describe('HOAG panel: sparse svmlight upload', () => {
  let env; let page; let requests; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, requests, consoleErrors } = await openPage(env.context, env.url, HASH));
  });
  after(async () => { await env?.close(); });

  test('a malformed file gives the core\'s typed error with its line; a good file runs sparse HOAG; Stop stops', { timeout: 120_000 }, async () => {
    assert.equal(await page.inputValue('#hoag-data'), 'svmlight');
    assert.equal(await page.isVisible('#hoag-svm-file'), true);
    assert.equal(await page.isVisible('#hoag-file'), false);
    // No file yet: the panel's check refuses the run (no run starts) and says what to do.
    await page.click('#hoag-run');
    await page.waitForFunction(() => /Choose an svmlight \/ libsvm file first/.test(document.getElementById('hoag-message').textContent));
    assert.equal(await page.evaluate(() => window.__tunelab.panels.hoag.running), false);
    let r;

    await upload(page, 'bad.svm', '+1 1:1 3:2\n-1 3:1 2:1\n');
    r = await runHoag(page);
    assert.match(r.message, /^The run failed: data error: line 2: index 2 after 3/, r.message);

    await upload(page, 'docs.svm', documents(300, 200));
    r = await runHoag(page);
    assert.match(r.message, /^Done/, r.message);
    assert.equal(r.report.n_train + r.report.n_test + r.report.n_validation, 300);
    assert.ok(r.report.n_features <= 200 && r.report.n_features > 150, String(r.report.n_features));
    assert.deepEqual(r.report.methods.map((m) => m.name), ['HOAG (exponential)', 'grid search']);
    assert.ok(r.report.methods.every((m) => m.trace.length > 0 && m.trace.every((p) => Number.isFinite(p.best_outer_loss))));
    // Progress reached the chart while it ran: one trace per method in the panel.
    assert.equal(await page.evaluate(() => window.__tunelab.panels.hoag.panel.methods.length), 2);

    // A long sparse run (random search never converges; 10,000 evaluations): Stop ends it.
    await page.evaluate(() => window.__tunelab.panels.hoag.load({ problem: 'logreg', data: 'svmlight', methods: ['random'], cost: 1000000, maxiter: 10000, land: 0, seed: 5 }));
    await page.click('#hoag-run');
    await page.waitForFunction(() => (window.__tunelab.panels.hoag.panel.methods[0]?.trace.length ?? 0) > 3, null, { timeout: 30_000 });
    await page.click('#hoag-stop');
    await page.waitForFunction(() => !window.__tunelab.panels.hoag.running, null, { timeout: 15_000 });
    assert.match(await page.textContent('#hoag-message'), /^Stopped/);
    assert.deepEqual(foreignRequests(requests), []);
    assert.deepEqual(consoleErrors, []);
  });
});
