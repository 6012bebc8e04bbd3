// End-to-end: strict links (issue 27, www/panels/registry.js `checkLink`). An old link with a removed or misspelt
// setting, or a value a field cannot read, opens with the rest of its settings and says what it ignored, with
// the nearest known name; the unknown keys leave the URL. A clean link shows no note. Page without isolation
// (single-threaded build, pkg/).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

describe('strict links', () => {
  let env;
  before(async () => { env = await launch({ isolation: false, serviceWorkers: 'block' }); });
  after(async () => { await env?.close(); });

  test('unknown and unreadable settings are named; the page opens with the rest', async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url,
      '#tuner=mamba&etta=5&n=500&d=abc&seed=7&bandit.rouds=100&bandit.rounds=300&oldsetting=1&panel=bandit');
    const note = await page.waitForSelector('#url-notice', { timeout: 30_000 });
    const text = await note.innerText();
    assert.match(text, /etta: unknown setting, ignored; did you mean eta\?/);
    assert.match(text, /bandit\.rouds: unknown setting, ignored; did you mean bandit\.rounds\?/);
    assert.match(text, /oldsetting: unknown setting, ignored(?!; did you mean)/);
    assert.match(text, /could not read .*d=abc/);
    const link = await page.evaluate(() => window.__tunelab.link);
    assert.deepEqual(link.unknown.map((u) => [u.key, u.suggestion]), [['etta', 'eta'], ['bandit.rouds', 'bandit.rounds'], ['oldsetting', null]]);
    assert.deepEqual(link.invalid, ['d=abc']);
    // the rest of the link: the tune settings it gave, the default for the unreadable one, the bandit rounds
    // and the panel
    const tune = await page.evaluate(() => window.__tunelab.panels.tune.state);
    assert.equal(tune.tuner, 'mamba');
    assert.equal(tune.n, 500);
    assert.equal(tune.seed, 7);
    assert.equal(tune.d, await page.evaluate(() => window.__tunelab.DEFAULTS.d));
    assert.equal(await page.evaluate(() => window.__tunelab.panel), 'bandit');
    assert.equal(await page.evaluate(() => window.__tunelab.panels.bandit.state.rounds), 300);
    // the unknown keys left the URL; the known ones stayed
    const hash = await page.evaluate(() => location.hash);
    assert.doesNotMatch(hash, /etta|rouds|oldsetting/);
    assert.match(hash, /(^#|&)n=500(&|$)/);
    assert.match(hash, /bandit\.rounds=300/);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test('a clean link shows no note', async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url, '#tuner=mamba&n=500&bandit.rounds=300&step=1');
    await page.waitForFunction(() => window.__tunelab.link != null);
    assert.deepEqual(await page.evaluate(() => window.__tunelab.link), { unknown: [], invalid: [] });
    assert.equal(await page.$('#url-notice'), null);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });
});
