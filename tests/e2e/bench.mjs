#!/usr/bin/env node
// Browser benchmark (headless Debian Chromium): the workloads of src/benchkit.rs in the page's compute worker,
// single-threaded (no isolation headers) and threaded (COOP/COEP). Compare with
// `cargo run --release --example browser_bench_native`; then the longest main-thread task (CPU and wall time)
// of each default and page preset run. Usage: node tests/e2e/bench.mjs [reps]
import { launch, openPage } from './helpers.mjs';
import { CASES, LESSON_CASES, traceRun } from './maintask.mjs';

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

// The main thread during a run (issue 26 item 2): for every tab's default, the tune default as a comparison and
// every page preset (tests/e2e/maintask.mjs CASES, full sizes, threaded page) and each lesson's runs (LESSON_CASES:
// its settings, then each step that changes them), a Chromium trace of the page's
// main thread from Run until the results are drawn: the longest task by thread CPU time and by wall time (on a
// loaded machine a task's wall time counts the time it waited for a core), the tasks over 50 ms of each, and
// what the longest task by CPU spent its time in (trace events inside it, wall ms).
// BENCH_MAIN_REPS: runs of each; BENCH_MAIN_CASES: comma-separated substrings of the case ids to run;
// BENCH_MAIN_PROFILE=1: also a CPU profile naming the page's functions (it adds to the tasks' CPU time).
const mainReps = Number(process.env.BENCH_MAIN_REPS ?? 1);
const filters = (process.env.BENCH_MAIN_CASES ?? '').split(',').filter(Boolean);
const cases = [...CASES, ...LESSON_CASES].filter((c) => !filters.length || filters.some((f) => c.id.includes(f)));
for (const c of only === 'speed' ? [] : cases) for (let rep = 0; rep < mainReps; rep++) {
  const env = await launch({ isolation: true });
  try {
    const { page } = await openPage(env.context, env.url);
    const r = await traceRun(env.context, page, c, { profile: process.env.BENCH_MAIN_PROFILE === '1' });
    console.log(JSON.stringify({
      target: `main-thread: ${c.id}`, run_s: +r.runS.toFixed(1), state: r.state, tasks: r.tasks,
      longest_task_cpu_ms: r.longestCpu?.cpu_ms ?? 0, its_wall_ms: r.longestCpu?.wall_ms ?? 0,
      longest_task_wall_ms: r.longestWall?.wall_ms ?? 0, its_cpu_ms: r.longestWall?.cpu_ms ?? 0,
      tasks_over_50ms_cpu: r.over50Cpu, tasks_over_50ms_wall: r.over50Wall,
      longest_cpu_task_inside: r.longestCpu?.inside, ...(r.longestCpu?.functions ? { longest_cpu_task_functions: r.longestCpu.functions } : {}),
    }));
  } finally {
    await env.close();
  }
}
