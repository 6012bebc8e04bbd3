#!/usr/bin/env node
// Times page runs of a bandit preset in the compute worker (headless Debian Chromium), single-threaded (no
// isolation headers) and threaded (COOP/COEP): what a visitor waits for. A measurement, not a test.
// Usage: node tests/e2e/bandit-bench.mjs [preset] [reps]   (default: mlp-digits, 1)
// BANDIT_REPEATS / BANDIT_ROUNDS override the preset's repeats / rounds (to time a smaller page default).
import { launch, openPage } from './helpers.mjs';

const preset = process.argv[2] ?? 'mlp-digits';
const reps = Number(process.argv[3] ?? 1);
for (const isolation of [false, true]) {
  const env = await launch({ isolation, serviceWorkers: isolation ? 'allow' : 'block' });
  try {
    const { page } = await openPage(env.context, env.url);
    await page.waitForFunction(() => window.__tunelab.info, null, { timeout: 60_000 });
    const r = await page.evaluate(async ({ preset, reps, repeats, rounds }) => {
      const c = window.__tunelab.client;
      const config = await c.request('preset', { kind: 'bandit', name: preset });
      if (repeats) config.repeats = repeats;
      if (rounds) config.rounds = rounds;
      const ms = [];
      let report = null;
      for (let i = 0; i < reps; i++) {
        const t0 = performance.now();
        report = (await c.run(config, null, null).promise).report;
        ms.push(performance.now() - t0);
      }
      const algos = report.result.algorithms.map((a) => [a.name, a.final_simple_regret.mean]);
      return { info: window.__tunelab.info, ms, rounds: config.rounds, repeats: config.repeats, algos };
    }, { preset, reps, repeats: Number(process.env.BANDIT_REPEATS ?? 0), rounds: Number(process.env.BANDIT_ROUNDS ?? 0) });
    console.log(JSON.stringify({ preset, target: `wasm-${r.info.flavour}`, threads: r.info.threads, rounds: r.rounds, repeats: r.repeats,
      seconds: r.ms.map((m) => +(m / 1000).toFixed(1)), final_simple_regret: r.algos }));
  } finally {
    await env.close();
  }
}
