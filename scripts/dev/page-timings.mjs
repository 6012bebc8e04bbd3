#!/usr/bin/env node
// How long the page's runs take on one thread: every tab's default run, every lesson step, and (with --presets)
// every entry of each tab's Preset menu. The configs come from the page itself (loaded in headless Debian
// Chromium, single-threaded flavour): each panel's `experiment(defaults)`, and each lesson step's settings as
// the lesson applies them (www/embed.js: a step's patch goes on top of the earlier steps'), read back from the
// panel after `load`. So the times below are of exactly what a student runs.
//
//   node scripts/dev/page-timings.mjs [--native] [--page] [--presets] [--only REGEX] [--json FILE]
//
//   --native   (the default when neither is given) runs each config with the release CLI on one thread:
//              `target/release/tunelab run --config FILE --threads 1` (build it first with
//              `cargo build --release -p tunelab-cli`); prints the CPU time (user + system, by /usr/bin/time) of
//              the process, which is its run time on an idle core however busy the machine is, and the wall time.
//   --page     runs each config in the page (single-threaded wasm, pkg/; build it with scripts/dev/build-wasm.sh)
//              through the panel's own Run (load, run, its charts and reading) and prints the CPU time the
//              browser's processes used meanwhile (the worker and the page's drawing: the run's time on an idle
//              core) and the wall time (on a shared machine it includes waiting for a core).
//   --presets  adds the entries of every tab's Preset menu (the full sizes).
//   --only RE  only the rows whose name matches RE.
//   --list     prints each row's config (JSON, with its kind) instead of timing it.
//
// The budget (issue 26): every default and every lesson step at most 10 s single-threaded in the page. Wasm is
// 1.5-3x slower than native per thread here, so natively about 4 s at most.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const opt = (f) => { const i = argv.indexOf(f); return i >= 0 ? argv[i + 1] : undefined; };
const wantPage = flag('--page');
const list = flag('--list');
const wantNative = !list && (flag('--native') || !wantPage);
const only = opt('--only') ? new RegExp(opt('--only')) : null;
const CLI = path.join(REPO, process.env.CARGO_TARGET_DIR ?? 'target', 'release', 'tunelab');
if (wantNative && !fs.existsSync(CLI)) {
  console.error(`${CLI} is missing: CARGO_BUILD_JOBS=1 cargo build --release -p tunelab-cli`);
  process.exit(2);
}

/** CPU seconds (user + system) used so far by the browser's processes (its renderer runs the page and its
 * worker): the processes under the one started with our profile directory. */
function browserCpu() {
  const procs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), cmd: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
    } catch { return null; }
  }).filter(Boolean);
  const mine = new Set(procs.filter((p) => p.cmd.includes(profile)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!mine.has(p.pid) && mine.has(p.ppid)) { mine.add(p.pid); grew = true; }
  }
  return procs.filter((p) => mine.has(p.pid)).reduce((a, p) => a + p.ticks, 0) / 100; // USER_HZ = 100 on Linux
}

const { server, url } = await startServer({ port: 0, isolation: false, quiet: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-timings-profile-'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-timings-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, serviceWorkers: 'block',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-dev-shm-usage'],
  viewport: { width: 1280, height: 900 }, env: { ...process.env, TMPDIR: tmp },
});

try {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e}`));
  await page.goto(url);
  await page.waitForFunction(() => window.__tunelab?.info != null && Object.keys(window.__tunelab.panels ?? {}).length > 1, null, { timeout: 60_000 });
  const info = await page.evaluate(() => window.__tunelab.info);
  if (info.threads !== 1) throw new Error(`the page runs on ${info.threads} threads, not 1`);

  // Every run: {name, kind, config (with kind), how: load argument for the page}.
  const rows = await page.evaluate(async (presets) => {
    const { BUILTIN_LESSONS, builtinUrl, fetchLesson, panelOf } = await import('/www/lessons.js');
    const hooks = window.__tunelab;
    const out = [];
    const configOf = (name) => { const p = hooks.panels[name].panel; return p.experiment(p.state); };
    for (const [name, entry] of Object.entries(hooks.panels)) {
      const p = entry.panel;
      await entry.load(structuredClone(p.defaults));
      out.push({ name: `default ${name}`, panel: name, load: structuredClone(p.defaults), config: configOf(name) });
    }
    // The lessons as the page reads them (lessons/ID.md through the core's parser): each step's config.
    for (const id of BUILTIN_LESSONS) {
      const src = await fetchLesson(builtinUrl(id));
      const lesson = await hooks.client.lesson(`lessons/${id}.md`, src.text);
      const panel = panelOf(lesson.kind);
      let prev = null;
      lesson.steps.forEach((s, i) => {
        const cur = lesson.configs[i];
        const key = JSON.stringify(cur);
        if (key === prev?.key) { prev.row.name = prev.row.name.replace(/ steps? ([\d-]+)$/, (_, r) => ` steps ${r.split('-')[0]}-${i + 1}`); return; }
        const row = { name: `lesson ${id} step ${i + 1}`, panel, load: structuredClone(cur), config: null };
        out.push(row);
        prev = { key, row };
      });
    }
    for (const row of out.filter((r) => r.config == null)) {
      await hooks.panels[row.panel].load(structuredClone(row.load));
      row.config = configOf(row.panel);
    }
    if (presets) {
      for (const [name, entry] of Object.entries(hooks.panels)) {
        const sel = document.getElementById(name === 'tune' ? 'preset' : `${entry.panel.prefix}-preset`);
        for (const o of sel ? [...sel.options].filter((x) => x.value) : []) {
          await entry.load(o.value);
          out.push({ name: `preset ${name} ${o.value}`, panel: name, load: o.value, config: configOf(name) });
        }
      }
    }
    for (const [name, entry] of Object.entries(hooks.panels)) await entry.load(structuredClone(entry.panel.defaults));
    return out;
  }, flag('--presets'));

  const results = [];
  const w = Math.max(...rows.map((r) => r.name.length));
  if (!list) console.log(`${'run'.padEnd(w)}  ${'kind'.padEnd(11)}${wantNative ? '  native 1 thread: CPU (wall)' : ''}${wantPage ? '  page 1 thread: CPU (wall)' : ''}`);
  for (const row of rows) {
    if (only && !only.test(row.name)) continue;
    if (list) { console.log(`${row.name}\n  ${JSON.stringify(row.config)}`); continue; }
    const res = { name: row.name, kind: row.config.kind, config: row.config };
    if (wantNative) {
      const file = path.join(tmp, 'config.json');
      fs.writeFileSync(file, JSON.stringify(row.config));
      const timeFile = path.join(tmp, 'time.txt');
      const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e', '-o', timeFile, CLI, 'run', '--config', file, '--threads', '1', '--out', path.join(tmp, 'report.json')],
        { encoding: 'utf8', cwd: REPO, env: { ...process.env, RAYON_NUM_THREADS: '1' } });
      const [user, sys, wall] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
      res.native = user + sys;
      res.nativeWall = wall;
      if (r.status !== 0) res.nativeError = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ');
    }
    if (wantPage) {
      const cpu0 = browserCpu();
      const r = await page.evaluate(async ({ panel, load }) => {
        const entry = window.__tunelab.panels[panel];
        await entry.load(load);
        const t0 = performance.now();
        await entry.run();
        return { seconds: (performance.now() - t0) / 1000, status: entry.lastReport?.status ?? null, errors: entry.errors.slice(-1) };
      }, { panel: row.panel, load: row.load });
      res.page = browserCpu() - cpu0;
      res.pageWall = r.seconds;
      if (r.status !== 'complete') res.pageError = `${r.status}: ${r.errors.join(' ')}`;
    }
    results.push(res);
    const cell = (s, e) => (e ? `FAILED (${e})` : `${s.toFixed(1).padStart(8)} s`);
    console.log(`${row.name.padEnd(w)}  ${row.config.kind.padEnd(11)}${wantNative ? `  ${cell(res.native, res.nativeError).padStart(16)} (${res.nativeWall?.toFixed(1)} s)` : ''}${wantPage ? `  ${cell(res.page, res.pageError).padStart(14)} (${res.pageWall.toFixed(1)} s)` : ''}`);
  }
  if (!list) console.log(`load average at the end: ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} (2 cores)`);
  if (opt('--json')) fs.writeFileSync(opt('--json'), JSON.stringify(results, null, 1));
} finally {
  await context.close().catch(() => {});
  await new Promise((r) => server.close(r));
  server.closeAllConnections?.();
  fs.rmSync(profile, { recursive: true, force: true });
  fs.rmSync(tmp, { recursive: true, force: true });
}
