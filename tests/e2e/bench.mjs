#!/usr/bin/env node
// Browser benchmark (headless Debian Chromium): the workloads of src/benchkit.rs in the page's compute worker,
// single-threaded (no isolation headers) and threaded (COOP/COEP), against the same workloads natively
// (`cargo run --release --example browser_bench_native`) in two builds: the default one, whose kernels dispatch to
// their AVX2 / AVX-512 builds where the CPU has them, and one restricted to the 128-bit SSE2 paths (cargo feature
// `sse-only`), the width of wasm's simd128; it prints wasm / native for both. Then the longest main-thread task
// (CPU and wall time) of each default and page preset run. Usage: node tests/e2e/bench.mjs [reps]
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import fs from 'node:fs';
import { launch, openPage } from './helpers.mjs';
import { CASES, LESSON_CASES, traceRun } from './maintask.mjs';
import { REPO } from './lesson-files.mjs';

const reps = Number(process.argv[2] ?? 5);
// BENCH_ONLY=main: only the main-thread measurements; BENCH_ONLY=speed: only the workloads.
const only = process.env.BENCH_ONLY ?? '';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** @type {Record<string, any>} the wasm lines by target (wasm-single, wasm-single-parts, wasm-parallel, ...) */
const wasm = {};
if (only !== 'main') {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const flags = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  const wide = ['avx2', 'fma', 'avx512f'].filter((f) => flags.split(/\s+/).includes(f));
  console.log(`# ${new Date().toISOString()} · ${cpu}, ${os.cpus().length} CPUs (${wide.join(', ') || 'no AVX2 / AVX-512'}) · load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
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
    const line = {
      target: `wasm-${r.info.flavour}`, threads: r.info.threads,
      ksd_n1000_d10_ms: +median(r.ksd).toFixed(2), sgld_1chain_ms: +median(r.sgld1).toFixed(2), sgld_4chains_ms: +median(r.sgld4).toFixed(2),
    };
    const parts = { target: `wasm-${r.info.flavour}-parts`, threads: 1,
      ...Object.fromEntries(Object.entries(r.parts).map(([k, v]) => [k, +median(v).toFixed(2)])) };
    wasm[line.target] = line; wasm[parts.target] = parts;
    console.log(JSON.stringify(line));
    console.log(JSON.stringify(parts));
  } finally {
    await env.close();
  }
}

// The same workloads natively, in both builds (one after the other in the same target folder: only the tunelab
// crate differs), and wasm's time over each: the threaded page's pool has navigator.hardwareConcurrency threads,
// compared with the native pool of as many (1 or 2).
if (only !== 'main') {
  /** @param {string[]} features @returns {any[]} */
  const native = (features) => execFileSync('cargo', ['run', '--release', '-q', '--example', 'browser_bench_native', ...features, '--', String(reps)],
    { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').map((l) => JSON.parse(l));
  const builds = [['AVX2 / AVX-512 dispatch (default build)', native([])], ['128-bit SSE2 paths (--features sse-only)', native(['--features', 'sse-only'])]];
  for (const [name, lines] of builds) {
    for (const l of lines) console.log(JSON.stringify({ ...l, target: `${l.target} (${name})` }));
    for (const w of Object.values(wasm)) {
      const n = lines.find((l) => l.target === (w.target.endsWith('-parts') ? 'native-parts' : 'native') && l.threads === w.threads);
      if (!n) continue;
      const ratio = Object.fromEntries(Object.entries(w).filter(([k, v]) => typeof v === 'number' && k !== 'threads' && n[k] > 0).map(([k, v]) => [k, +(v / n[k]).toFixed(2)]));
      console.log(JSON.stringify({ target: `ratio ${w.target} / native ${name}`, threads: w.threads, ...ratio }));
    }
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
