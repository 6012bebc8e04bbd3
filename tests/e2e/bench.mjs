#!/usr/bin/env node
// Browser benchmark (headless Debian Chromium): the workloads of src/benchkit.rs in the page's compute worker,
// single-threaded (no isolation headers) and threaded (COOP/COEP). Compare with
// `cargo run --release --example browser_bench_native`. Usage: node tests/e2e/bench.mjs [reps]
import { launch, openPage } from './helpers.mjs';

const reps = Number(process.argv[2] ?? 5);
// BENCH_ONLY=main: only the main-thread measurements; BENCH_ONLY=speed: only the workloads.
const only = process.env.BENCH_ONLY ?? '';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const isolation of only === 'main' ? [] : [false, true]) {
  // Without isolation headers the page would get threads via the coi service worker after one reload: block it.
  const env = await launch({ isolation, serviceWorkers: isolation ? 'allow' : 'block' });
  try {
    const { page } = await openPage(env.context, env.url);
    const r = await page.evaluate(async (reps) => {
      const c = window.__tunelab.client;
      const times = async (kind, params) => {
        await c.bench(kind, params); // warm-up
        const out = [];
        for (let i = 0; i < reps; i++) out.push((await c.bench(kind, params)).ms);
        return out;
      };
      return {
        info: window.__tunelab.info,
        ksd: await times('ksd', { n: 1000, d: 10, seed: 1 }),
        sgld1: await times('sgld', { n: 10000, d: 10, iters: 10000, batch: 0.01, chains: 1, seed: 1 }),
        sgld4: await times('sgld', { n: 10000, d: 10, iters: 10000, batch: 0.01, chains: 4, seed: 1 }),
        // The workloads' parts on the worker's thread (src/benchkit.rs `part_ms`; the native example prints them too).
        parts: await (async () => {
          const out = {};
          for (const part of ['rng-range', 'rng-normal', 'grad', 'ksd-tiles', 'ksd-kernel']) out[part] = await times('part', { part, seed: 1 });
          return out;
        })(),
      };
    }, reps);
    console.log(JSON.stringify({
      target: `wasm-${r.info.flavour}`, threads: r.info.threads,
      ksd_n1000_d10_ms: +median(r.ksd).toFixed(2), sgld_1chain_ms: +median(r.sgld1).toFixed(2), sgld_4chains_ms: +median(r.sgld4).toFixed(2),
    }));
    console.log(JSON.stringify({ target: `wasm-${r.info.flavour}-parts`, threads: 1,
      ...Object.fromEntries(Object.entries(r.parts).map(([k, v]) => [k, +median(v).toFixed(2)])) }));
  } finally {
    await env.close();
  }
}

// The main thread during a run: the longest task (PerformanceObserver "longtask" reports tasks > 50 ms), on the
// default settings and on the paper's preset (56 arms, the whole run), threaded page.
// BENCH_MAIN_REPS: runs of each (the longest task varies with the machine's load).
const mainReps = Number(process.env.BENCH_MAIN_REPS ?? 1);
for (const preset of only === 'speed' ? [] : ['', 'paper-logreg']) for (let rep = 0; rep < mainReps; rep++) {
  const env = await launch({ isolation: true });
  try {
    const { page } = await openPage(env.context, env.url);
    if (preset) {
      await page.selectOption('#preset', preset);
      await page.waitForFunction(() => /^56 arms/.test(document.getElementById('arm-count')?.textContent ?? ''), null, { timeout: 30_000 });
    } else await page.waitForFunction(() => /arms/.test(document.getElementById('arm-count')?.textContent ?? ''), null, { timeout: 30_000 });
    // A trace of the renderer's main thread as well: each task's wall time and its thread CPU time (`tdur`). On a
    // machine whose cores are busy (the worker's two threads, other jobs) a task's wall time includes the time it
    // waited for a core; its CPU time is the work the page asked for.
    const cdp = await env.context.newCDPSession(page);
    const events = [];
    cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
    const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.start', { categories: 'toplevel,devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
    await page.evaluate(() => {
      window.__longtasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push(e.duration); }).observe({ type: 'longtask' });
    });
    const t0 = Date.now();
    await page.click('#run');
    await page.waitForFunction(() => window.__tunelab.runs >= 1 && !window.__tunelab.running, null, { timeout: 600_000, polling: 500 });
    // Let the last frame draw and the observer deliver.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 500))));
    const lt = await page.evaluate(() => window.__longtasks);
    const draws = await page.evaluate(() => window.__tunelab.drawTimes ?? []);
    await cdp.send('Tracing.end');
    await traced;
    const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    const tasks = events.filter((e) => e.ph === 'X' && e.name === 'RunTask' && main.has(`${e.pid}:${e.tid}`));
    const cpu = Math.max(0, ...tasks.map((e) => e.tdur ?? 0)) / 1000;
    // What the longest task (by CPU) did: the trace events nested in it (same thread, inside its span), by name,
    // with their wall time in ms (nested events count in their parents too).
    const top = tasks.reduce((a, e) => ((e.tdur ?? 0) > (a?.tdur ?? -1) ? e : a), null);
    const inside = {};
    if (top) {
      for (const e of events) {
        if (e.ph !== 'X' || e === top || `${e.pid}:${e.tid}` !== `${top.pid}:${top.tid}` || e.ts < top.ts || e.ts + (e.dur ?? 0) > top.ts + top.dur) continue;
        const name = e.name === 'FunctionCall' || e.name === 'EventDispatch' || e.name === 'TimerFire' ? `${e.name}(${e.args?.data?.functionName || e.args?.data?.type || ''})` : e.name;
        inside[name] = (inside[name] ?? 0) + (e.dur ?? 0) / 1000;
      }
    }
    const parts = Object.entries(inside).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${v.toFixed(1)}`);
    console.log(JSON.stringify({ target: `main-thread-during-${preset || 'default'}-run`, run_s: +((Date.now() - t0) / 1000).toFixed(1),
      long_tasks_over_50ms: lt.length, longest_ms: lt.length ? Math.round(Math.max(...lt)) : 0,
      longest_task_cpu_ms: Math.round(cpu), longest_task_at_s: top ? +((top.ts - tasks[0].ts) / 1e6).toFixed(1) : null,
      longest_task_wall_ms: top ? Math.round(top.dur / 1000) : null, longest_task_inside: parts,
      redraws: draws.length, longest_redraw_ms: Math.max(0, ...draws) }));
  } finally {
    await env.close();
  }
}
