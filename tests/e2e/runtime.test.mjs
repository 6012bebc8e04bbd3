// End-to-end: the page picks the right WebAssembly flavour with and without isolation headers, says so,
// never requests anything outside 127.0.0.1, reports a Rust panic readably and recovers, and keeps its
// settings in the URL.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, foreignRequests, waitArmCount } from './helpers.mjs';

for (const isolation of [true, false]) {
  const name = isolation ? 'isolated (COOP/COEP)' : 'plain static host (no headers)';
  describe(name, () => {
  let env;
  before(async () => { env = await launch({ isolation, serviceWorkers: isolation ? 'allow' : 'block' }); });
  after(async () => { await env?.close(); });

  test(`${name}: flavour and thread count are shown, nothing leaves 127.0.0.1`, async () => {
    const { page, requests, consoleErrors } = await openPage(env.context, env.url);
    const info = await page.evaluate(() => window.__tunelab.info);
    const badge = page.locator('#runtime');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    if (isolation) {
      assert.equal(await page.evaluate(() => crossOriginIsolated), true);
      assert.equal(info.flavour, 'parallel');
      assert.equal(info.fallback, null);
      assert.equal(info.threads, Math.min(cores, 16));
      assert.equal(await badge.getAttribute('data-flavour'), 'parallel');
      assert.match(await badge.textContent(), new RegExp(`Threads: ${info.threads}`));
      // The pool really runs jobs on more than one thread (when the machine has more than one core).
      const probe = await page.evaluate(() => window.__tunelab.client.probeThreads(512));
      assert.equal(probe.threads, info.threads);
      if (info.threads > 1) {
        let seen = new Set(probe.indices);
        for (let i = 0; i < 10 && seen.size < 2; i++) {
          const p = await page.evaluate(() => window.__tunelab.client.probeThreads(512));
          seen = new Set([...seen, ...p.indices]);
        }
        assert.ok(seen.size > 1, `one thread only: ${[...seen]}`);
      }
    } else {
      assert.equal(await page.evaluate(() => crossOriginIsolated), false);
      assert.equal(info.flavour, 'single');
      assert.equal(info.threads, 1);
      assert.equal(await badge.getAttribute('data-flavour'), 'single');
      assert.match(await badge.textContent(), /Single thread/);
    }
    assert.ok(requests.some((u) => u.endsWith(isolation ? '/pkg-parallel/tunelab_bg.wasm' : '/pkg/tunelab_bg.wasm')), 'the flavour\'s wasm was loaded');
    assert.deepEqual(foreignRequests(requests), []);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test(`${name}: a Rust panic and a core error reach the page as readable errors; the worker recovers`, async () => {
    const { page } = await openPage(env.context, env.url);
    const panic = await page.evaluate(() => window.__tunelab.client.crashTest('panic').then(() => 'no error', (e) => ({ name: e.name, message: e.message })));
    assert.equal(panic.name, 'PanicError');
    assert.match(panic.message, /Rust panic[\s\S]*deliberate panic for a test/);
    // The message is shown on the page, and a fresh worker is ready again.
    await page.waitForFunction(() => document.querySelector('#message').textContent.includes('deliberate panic'));
    const again = await page.evaluate(async () => { await window.__tunelab.client.ready(); return window.__tunelab.client.probeThreads(8); });
    assert.equal(again.indices.length, 8);
    const err = await page.evaluate(() => window.__tunelab.client.crashTest('error').then(() => 'no error', (e) => ({ name: e.name, message: e.message })));
    assert.deepEqual(err, { name: 'DataError', message: 'data error: deliberate data error for a test' });
    await page.close();
  });
  });
}

test('settings live in the URL hash: a copied link restores them', async () => {
  const env = await launch({ isolation: false, serviceWorkers: 'block' });
  try {
    const { page } = await openPage(env.context, env.url);
    await page.selectOption('#sampler', 'sghmc');
    await page.fill('#L', '3,7');
    await page.fill('#seed', '123');
    await page.fill('#hfrom', '-5');
    await page.fill('#batch', '0.5,0.05');
    await page.selectOption('#unit', 'iterations');
    await page.fill('#budget', '5000');
    await page.check('#compare');
    const link = page.url();
    assert.match(link, /seed=123/);
    const expected = await page.evaluate(() => window.__tunelab.state);
    const { page: page2 } = await openPage(env.context, link);
    const restored = await page2.evaluate(() => window.__tunelab.state);
    assert.deepEqual(restored, expected);
    assert.equal(await page2.inputValue('#L'), '3,7');
    assert.equal(await page2.inputValue('#sampler'), 'sghmc');
    assert.equal(await page2.isChecked('#compare'), true);
    // 7 step sizes (-5..-2 by .5) x 2 batches x 2 L, counted by the core's check; compare names its tuners.
    assert.match(await waitArmCount(page2, /^28 arms/), /Compare runs MAMBA-KSD, MAMBA-FSSD/);
    // An invalid value in a hand-edited link falls back to its default instead of breaking the page.
    const { page: page3 } = await openPage(env.context, env.url, '#seed=-4&eta=1&sampler=nope&n=500');
    const s3 = await page3.evaluate(() => window.__tunelab.state);
    assert.equal(s3.seed, 0);
    assert.equal(s3.eta, 3);
    assert.equal(s3.sampler, 'sgld');
    assert.equal(s3.n, 500);
  } finally { await env.close(); }
});
