// Soak (issue "Reliability"): 100 runs in a row in one tab of the threaded page, as a long class session
// would: the default MAMBA run at 25 times its budget stopped once its first progress is drawn (every tenth run, at
// the default budget, left to finish), alternating with a small
// bandit run in the bandit tab. After each run the test forces garbage collection (Chromium's --expose-gc) and
// reads the page's JS heap and the worker's wasm linear memory (its size is the core heap's high-water mark;
// wasm memory never shrinks, so any leak in the core shows as growth). It prints the memory after runs 1, 50
// and 100 (README, "Reliability") and asserts the bounds stated there:
//   - page JS heap: run 100 at most 8 MiB above run 50, and at most 16 MiB above run 1;
//   - wasm memory: at run 100 at most 4 wasm pages (256 KiB) above the high-water mark of runs 1-50 (over the
//     worker instances: a Stop the worker does not answer in 300 ms replaces it), i.e. under 5.3 KiB per run. Not "no growth at all": the threaded build's linear memory is the high-water mark of one
//     allocator shared by the rayon threads, and that peak depends on which allocations of different threads
//     overlap in time, i.e. on scheduling. A fresh-clone run of the test command (a72e21f, idle machine) failed
//     the former zero bound with one page late in the soak (7,536,640 -> 7,602,176 bytes: +65,536, after
//     +0.1 MiB over runs 1-50). Read as a later peak, not a leak (an explanation, not proven: a rerun of this
//     file passed with 7.3 MiB at runs 50 and 100). A leak retains something per run (a default
//     run's report is tens of KiB), so it would pass 256 KiB in 50 runs.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';

const RUNS = 100;
const MIB = 1024 * 1024;
const WASM_SLACK = 4 * 65536; // four wasm pages (header)
const DEFAULT_BUDGET = 2_000_000; // the tune tab's default budget (gradient evaluations)
const BANDIT = { kind: 'bandit', problem: { kind: 'reservoir', a: 1, b: 1 }, algorithms: [{ kind: 'd-ttts' }, { kind: 'successive-halving' }], rounds: 100, repeats: 2, seed: 1 };

// The flake "Target page, context or browser has been closed" right after a run (issue 24), measured: a Stop
// that the threaded worker does not answer within 300 ms makes the page terminate its worker and start a new one
// (www/client.js, `cancel`). That happens only when the machine is loaded: 0 of 72 Stops here at normal load or
// with Chromium pinned to one core beside one or two busy loops, 1 of 5 beside three. Right after a replacement
// page.workers() still lists only the OLD worker (the new one is not attached yet), so the test's reading, "the first worker.js in
// page.workers()", evaluated in the terminated worker and failed with exactly
// `worker.evaluate: Target page, context or browser has been closed` (reproduced every time by making every Stop
// replace the worker). Chromium did not crash: its output (DEBUG=pw:browser) holds only D-Bus noise, and the
// browser stays connected. So each reading now waits until the page's client is idle and its current worker
// ready, and reads the newest worker that has not ended; the count of replacements is printed.
// The compute workers (www/worker.js) each page has started, oldest first, and the ones that have ended:
const started = new WeakMap();
function track(page) {
  const seen = { workers: /** @type {import('playwright-core').Worker[]} */ ([]), ended: new Set(), replaced: 0 };
  page.on('worker', (w) => {
    if (!/worker\.js/.test(w.url())) return;
    if (seen.workers.length > 0) seen.replaced++;
    seen.workers.push(w);
    w.on('close', () => seen.ended.add(w));
  });
  started.set(page, seen);
  return seen;
}

async function memory(page) {
  const seen = started.get(page);
  await page.evaluate(async () => { const c = window.__tunelab.client; await c.idle; await c.ready(); });
  const heap = await page.evaluate(() => { /** @type {any} */ (window).gc?.(); return /** @type {any} */ (performance).memory?.usedJSHeapSize ?? null; });
  for (let attempt = 0; ; attempt++) {
    const worker = seen.workers.filter((w) => !seen.ended.has(w)).at(-1);
    try {
      const wasm = worker ? await worker.evaluate(() => /** @type {any} */ (self).__tunelabWasmMemory?.buffer.byteLength ?? null) : null;
      if (wasm != null || attempt >= 50) return { heap, wasm };
    } catch (e) {
      // The worker ended between the filter and the call (its 'close' event not yet delivered): read the next.
      if (attempt >= 50) throw e;
    }
    await page.waitForTimeout(100);
  }
}

describe('soak: 100 runs in one threaded tab', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true, args: ['--js-flags=--expose-gc', '--enable-precise-memory-info'] });
    // Track the workers from before the page loads, so the first worker is seen.
    env.context.on('page', (p) => track(p));
    ({ page, consoleErrors } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('memory stays bounded over 100 runs (Stop mid-run, tab switches, completed runs)', async () => {
    const info = await page.evaluate(() => window.__tunelab.info);
    assert.equal(info.flavour, 'parallel');
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.state.budget), DEFAULT_BUDGET);
    const samples = [];
    let stopped = 0; let completed = 0;
    for (let i = 1; i <= RUNS; i++) {
      if (i % 2 === 1) {
        // The default MAMBA run of the tuning tab: Stop after its first progress, every tenth one completes.
        await page.click('#tab-tune');
        const complete = i % 10 === 1;
        // A run to be stopped gets 25 times the default budget (about 25 s here), so Stop lands mid-run on any
        // machine: the default run takes 0.5-3 s, and a Stop clicked 150 ms after it started found it ended on
        // a loaded machine (the click then waited for a disabled button).
        await page.evaluate(async (budget) => {
          const p = window.__tunelab.panels.tune;
          if (p.state.budget !== budget) await p.load({ budget });
        }, complete ? DEFAULT_BUDGET : DEFAULT_BUDGET * 25);
        await page.waitForFunction(() => { const p = window.__tunelab.panels.tune; return !p.running && p.runState !== 'checking'; }, null, { timeout: 60_000 });
        const runs = await page.evaluate(() => window.__tunelab.runs ?? 0);
        await page.click('#run');
        if (complete) {
          await page.waitForFunction((n) => window.__tunelab.runs > n && !window.__tunelab.running, runs, { timeout: 300_000 });
          completed++;
        } else {
          // Stopped once its first progress has been drawn.
          // (runState 'running': this run's model; `running` alone is true from the click on, while the settings
          // are checked and the previous run's model is still shown.)
          await page.waitForFunction(() => { const p = window.__tunelab.panels.tune; return p.runState === 'running' && (p.panel.model?.arms ?? []).some((a) => a.iters > 0); }, null, { timeout: 120_000 });
          await page.click('#stop');
          await page.waitForFunction((n) => window.__tunelab.runs > n && !window.__tunelab.running, runs, { timeout: 60_000 });
          assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.runState), 'stopped', `run ${i}`);
          stopped++;
        }
      } else {
        // A small bandit comparison in the bandit tab, to completion.
        const report = await page.evaluate(async (cfg) => {
          const p = window.__tunelab.panels.bandit;
          await p.load(cfg);
          return p.run();
        }, BANDIT);
        assert.equal(report?.status, 'complete', `bandit run ${i}`);
        completed++;
      }
      samples.push({ run: i, ...(await memory(page)) });
    }
    const at = (n) => samples[n - 1];
    const fmt = (s) => `JS heap ${(s.heap / MIB).toFixed(1)} MiB, wasm memory ${(s.wasm / MIB).toFixed(1)} MiB`;
    for (const n of [1, 50, 100]) console.log(`# soak after run ${n}: ${fmt(at(n))}`);
    console.log(`# soak: ${completed} runs completed, ${stopped} stopped mid-run, compute worker replaced ${started.get(page).replaced} times after a Stop`);
    assert.ok(stopped >= 40 && completed >= 50);
    assert.ok(at(1).heap > 0 && at(1).wasm > 0, 'memory readings are available');
    assert.ok(at(100).heap - at(50).heap <= 8 * MIB, `JS heap grew ${(at(100).heap - at(50).heap) / MIB} MiB from run 50 to 100`);
    assert.ok(at(100).heap - at(1).heap <= 16 * MIB, `JS heap grew ${(at(100).heap - at(1).heap) / MIB} MiB from run 1 to 100`);
    // Within one worker wasm memory never shrinks; after a replacement the newer instance, having seen fewer
    // runs, must not pass the older one's high-water mark by more than the slack either (header).
    // The high-water mark of runs 1-50 over every worker instance read so far: after a replacement the reading
    // at run 50 may be of a young instance below its steady size (beside two busy loops here: 15 replacements,
    // 5.4 MiB at run 50 against 7.4 MiB at run 1 and 6.9 MiB at run 100).
    const high50 = Math.max(...samples.slice(0, 50).map((s) => s.wasm));
    assert.ok(at(100).wasm - high50 <= WASM_SLACK, `wasm memory at run 100 is ${at(100).wasm - high50} bytes above the high-water mark of runs 1-50 (${high50} -> ${at(100).wasm}; bound ${WASM_SLACK})`);
    assert.deepEqual(consoleErrors, []);
  });
});
