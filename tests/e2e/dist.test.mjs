// End-to-end: the static build (npm run build -> dist/) works on a plain static host (no headers: single
// thread) and, when the host sends the isolation headers, with threads. Only its own host is contacted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launch, openPage, foreignRequests, waitRunDone } from './helpers.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-dist-'));
before(() => { execFileSync(process.execPath, [path.join(REPO, 'scripts/dev/build-dist.mjs')], { env: { ...process.env, DIST_DIR: dist }, stdio: 'pipe' }); });
after(() => fs.rmSync(dist, { recursive: true, force: true }));

const FAST = '#data=simulate&n=300&d=2&model=logistic&hfrom=-4&hto=-3&hby=0.5&batch=0.1&tuner=mamba&eta=3&budget=50000&msamples=100&thin=5&seed=1';

for (const isolation of [false, true]) {
  test(`the static build runs ${isolation ? 'threaded with isolation headers' : 'single-threaded without any header'}`, async () => {
    for (const f of ['index.html', 'www/main.js', 'www/worker.js', 'pkg/tunelab_bg.wasm', 'pkg-parallel/tunelab_bg.wasm', 'vendor/uplot/uPlot.esm.js']) {
      assert.ok(fs.existsSync(path.join(dist, f)), f);
    }
    const env = await launch({ isolation, root: dist, serviceWorkers: isolation ? 'allow' : 'block' });
    try {
      const { page, requests, consoleErrors } = await openPage(env.context, env.url, FAST);
      const info = await page.evaluate(() => window.__tunelab.info);
      assert.equal(info.flavour, isolation ? 'parallel' : 'single');
      await page.click('#run');
      await waitRunDone(page, 1);
      const report = await page.evaluate(() => window.__tunelab.lastResult?.report);
      assert.ok(report?.best, await page.textContent('#message'));
      assert.equal(report.arms.length, 3);
      assert.deepEqual(foreignRequests(requests), []);
      assert.deepEqual(consoleErrors, []);
    } finally { await env.close(); }
  });
}
