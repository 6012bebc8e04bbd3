// End-to-end: every error reaches the page, never a hang. A Rust panic on a rayon pool thread (threaded
// build: the calling worker waits forever for the pool; only the panic hook's BroadcastChannel message gets
// out) shows a readable error in the page within a few seconds, the worker is replaced, and the next run
// completes. The same on the single-threaded page (the job runs on the worker's own thread and traps there).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone } from './helpers.mjs';

const FAST = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-2.5&hby=0.5&batch=0.1,0.02'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=200000&metric=ksd&msamples=200&thin=5&start=map&seed=3';

for (const [name, opts, flavour, where] of [
  ['threaded page', { isolation: true }, 'parallel', /on pool thread \d+/],
  ['single-threaded page', { isolation: false, serviceWorkers: 'block' }, 'single', /deliberate panic on a pool thread/],
]) {
  describe(`${name}: a panic on a pool thread`, () => {
    let env; let page;
    before(async () => {
      env = await launch(opts);
      ({ page } = await openPage(env.context, env.url, FAST));
    });
    after(async () => { await env?.close(); });

    test('shows a readable error (the call rejects, no hang) and the next run completes', async () => {
      assert.equal((await page.evaluate(() => window.__tunelab.info)).flavour, flavour);
      const err = await page.evaluate(() => window.__tunelab.client.crashTest('pool-panic').then(() => 'no error', (e) => ({ name: e.name, message: e.message })));
      assert.equal(err.name, 'PanicError', JSON.stringify(err));
      assert.match(err.message, /the computation crashed \(Rust panic\)[\s\S]*deliberate panic on a pool thread/);
      assert.match(err.message, where);
      // Visible in the page (the active panel's message line), recorded in the page's errors.
      await page.waitForFunction(() => /deliberate panic on a pool thread/.test(document.getElementById('message').textContent), null, { timeout: 5_000 });
      assert.equal(await page.isVisible('#message'), true);
      assert.equal(await page.getAttribute('#message', 'data-kind'), 'error');
      assert.ok((await page.evaluate(() => window.__tunelab.errors)).some((e) => /pool thread/.test(e)));
      // The replaced worker runs the next experiment through the panel hook.
      const info = await page.evaluate(() => window.__tunelab.client.ready());
      assert.equal(info.flavour, flavour);
      const envelope = await page.evaluate(() => window.__tunelab.panels.tune.run());
      assert.equal(envelope?.status, 'complete', await page.textContent('#message'));
      assert.ok(envelope.result.best != null);
      await waitRunDone(page, 1);
      assert.match(await page.textContent('#message'), /^Done/);
    });

    test('a panic on the worker thread and a core error also reach the page; the worker recovers', async () => {
      const panic = await page.evaluate(() => window.__tunelab.client.crashTest('panic').then(() => 'no error', (e) => ({ name: e.name, message: e.message })));
      assert.equal(panic.name, 'PanicError');
      assert.match(panic.message, /deliberate panic for a test/);
      const thrown = await page.evaluate(async () => { await window.__tunelab.client.ready(); return window.__tunelab.client.crashTest('throw').then(() => 'no error', (e) => ({ name: e.name, message: e.message })); });
      assert.equal(thrown.name, 'Error');
      assert.match(thrown.message, /deliberate JS error/);
      const probe = await page.evaluate(() => window.__tunelab.client.probeThreads(8));
      assert.equal(probe.indices.length, 8);
    });
  });
}
