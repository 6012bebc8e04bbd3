// End-to-end: the tune panel's progress line names what the core does before round 1 (issue 26: no silent 0%):
// loading the data, the MAP the chains start from and, for a comparison, the exact reference (MALA); then, after
// the run starts and before the first chunk of every arm is done, that it runs that first chunk. Every text the
// line shows is recorded by a MutationObserver, so the check does not depend on how long a phase takes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone } from './helpers.mjs';

/**
 * A small comparison with an exact reference of 500 MALA draws, started from the MAP. The line is redrawn at
 * most once a frame, so a phase shorter than a frame may never be shown: at a budget of 2e4 gradient
 * evaluations per arm the first tuner's rounds took under a frame and a fresh-clone run (7397aca) saw no
 * "Round 1" text at all (reference, then "tuning done"). At 1e6 the first tuner showed "Round" twice and the run
 * seven times (4.1 s); 2e6 doubles that margin.
 */
const CMP = '#data=simulate&n=300&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-3&hby=1&batch=0.1'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=2000000&metric=ksd&msamples=100&thin=5&start=map&seed=1&compare=1&refs=500';

/** Runs with Run and returns every text #stats showed, in order. */
async function statsDuringRun(page, runs) {
  await page.evaluate(() => {
    const seen = (window.__statsSeen = []);
    const node = document.getElementById('stats');
    new MutationObserver(() => { if (seen.at(-1) !== node.textContent) seen.push(node.textContent); })
      .observe(node, { childList: true, characterData: true, subtree: true });
  });
  await page.click('#run');
  await waitRunDone(page, runs);
  return page.evaluate(() => window.__statsSeen);
}

describe('the progress line names the phases before round 1', () => {
  let env;
  before(async () => { env = await launch({ isolation: false, serviceWorkers: 'block' }); });
  after(async () => { await env?.close(); });

  test('a comparison: data, MAP and the exact reference are named before round 1; then the first chunk', async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url, CMP);
    const seen = await statsDuringRun(page, 1);
    const prep = seen.findIndex((t) => t === 'Preparing: loading the data, then finding the posterior mode (MAP) the chains start from, then drawing the exact reference (500 MALA draws). Round 1 starts after that.');
    const round = seen.findIndex((t) => /Round 1 · /.test(t));
    // The reference phase's own progress (the core's `reference` events): iterations done of the total.
    const ref = seen.findIndex((t) => /^Drawing the exact reference before the tuners run: [\d,]+ of [\d,]+ MALA iterations · /.test(t));
    assert.ok(prep >= 0, seen.join(' | '));
    assert.ok(ref > prep && round > ref, seen.join(' | '));
    // Each tuner's fresh evaluation chain (the core's `evaluation` events): its own share joins the line.
    assert.ok(seen.some((t) => /tuning done; evaluating its choice \(a fresh chain from the MAP, \d+% of it run\)/.test(t)), seen.join(' | '));
    assert.deepEqual(await page.evaluate(() => window.__tunelab.panels.tune.unknownEvents ?? window.__tunelab.unknownEvents ?? []), []);
    assert.match(seen.at(-1), /Done/);
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test('a tuning run from zero on a toy target names no MAP and no reference', async () => {
    const { page } = await openPage(env.context, env.url, '#data=none&model=gaussian&sampler=sgld&hfrom=-3&hto=-1&hby=1&batch=1&tuner=mamba&eta=3&unit=iterations&budget=2000&metric=ksd&msamples=100&thin=5&start=zero&seed=1');
    const seen = await statsDuringRun(page, 1);
    assert.ok(seen.includes('Preparing: setting up the target. Round 1 starts after that.'), seen.join(' | '));
    assert.ok(seen.every((t) => !/MAP|reference/.test(t)), seen.join(' | '));
    await page.close();
  });
});
