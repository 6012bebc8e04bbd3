// End-to-end: a start here (issue 26, item 10). The header's tagline is plain language; every tab, the SG-MCMC
// tab included, has one "Start here" card saying what question it answers and what to press first; a closed
// card stays closed after a reload (localStorage, per tab), the other tabs' cards stay open.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

const TABS = ['tune', 'bandit', 'hoag', 'lr-schedule', 'step-size', 'tvo'];
/** Words a student new to the field would not know: none of them in the tagline. */
const JARGON = /SG-?MCMC|MAMBA|Stein|KSD|FSSD|GP-UCB|HOAG|TVO|bandit|hyperparameter|posterior/i;

describe('start here', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, consoleErrors } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('the tagline is plain language', async () => {
    const tagline = (await page.textContent('header .tagline')).trim();
    assert.ok(tagline.length > 40, tagline);
    assert.doesNotMatch(tagline, JARGON);
  });

  test('every tab has one visible start card: the question it answers and what to press first', async () => {
    for (const name of TABS) {
      await page.click(`#tab-${name}`);
      const cards = page.locator(`#panel-${name} .start-here`);
      assert.equal(await cards.count(), 1, name);
      assert.equal(await cards.isVisible(), true, name);
      assert.match(await cards.locator('.start-question').textContent(), /^The question: .+\?/, name);
      assert.match(await cards.locator('.start-first').textContent(), /^Press first: Press Run\b/, name);
      // Under the run bar, before the results.
      const order = await page.evaluate((n) => {
        const card = document.querySelector(`#panel-${n} .start-here`);
        return card?.previousElementSibling?.classList.contains('runbar');
      }, name);
      assert.equal(order, true, name);
    }
  });

  test('a closed card stays closed after a reload; the other tabs keep theirs', async () => {
    await page.click('#tab-tune');
    await page.click('#panel-tune .start-close');
    assert.equal(await page.isVisible('#panel-tune .start-here'), false);
    await page.click('#tab-hoag');
    await page.click('#panel-hoag .start-close');
    assert.equal(await page.evaluate(() => localStorage.getItem('tunelab.start-here.closed.tune')), '1');
    await page.reload();
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#tab-tune');
    assert.equal(await page.locator('#panel-tune .start-here').count(), 1);
    assert.equal(await page.isVisible('#panel-tune .start-here'), false);
    await page.click('#tab-hoag');
    assert.equal(await page.isVisible('#panel-hoag .start-here'), false);
    await page.click('#tab-bandit');
    assert.equal(await page.isVisible('#panel-bandit .start-here'), true);
    // Cleared storage: the cards come back.
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#tab-tune');
    assert.equal(await page.isVisible('#panel-tune .start-here'), true);
    assert.deepEqual(consoleErrors, []);
  });
});
