#!/usr/bin/env node
// Screenshots for the instructor's guide (docs/instructors.md), taken from the real page so they stay current:
//   node scripts/dev/screenshots.mjs        (needs pkg/ and pkg-parallel/: npm run build:wasm)
// Serves the repository on 127.0.0.1 with the isolation headers, drives Debian Chromium (playwright-core,
// CHROMIUM_PATH to override) and writes docs/img/{full-lesson,embed-dialog,embed-640,lesson-step,lesson-bandit}.png.
// Nothing is requested outside 127.0.0.1 / 127.0.0.2 (the script checks).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'docs/img');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--hide-scrollbars'];

/** Waits until the registry's panel `name` (window.__tunelab.panels) has finished `n` runs. */
const runDone = (target, n, name = 'tune') => target.waitForFunction(([p, k]) => window.__tunelab.panels?.[p]?.runs >= k && !window.__tunelab.panels[p].running, [name, n], { timeout: 120_000 });
const ready = (target) => target.waitForFunction(() => window.__tunelab?.mode != null, null, { timeout: 60_000 });
/** Lets the charts finish drawing (requestAnimationFrame + ResizeObserver). */
const settle = (page) => page.waitForTimeout(400);

fs.mkdirSync(OUT, { recursive: true });
const { server, url } = await startServer({ port: 0, quiet: true, corp: 'cross-origin' });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-shots-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS,
  viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
const requests = [];
context.on('request', (r) => requests.push(r.url()));
let course = null;
const written = [];
const shot = async (page, name, opts = {}) => {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, ...opts });
  written.push(path.relative(REPO, file));
};

try {
  // 1. The full page with the MAMBA lesson, after a run.
  const page = await context.newPage();
  await page.goto(`${url}#lesson=mamba`);
  await ready(page);
  await page.click('#run');
  await runDone(page, 1);
  await page.click('#lesson-next');
  await settle(page);
  await shot(page, 'full-lesson');

  // 2. The Embed dialog for that lesson.
  await page.click('#copy-embed');
  await page.check('#embed-autorun');
  await page.click('#embed-h'); // focus away from the checkbox
  await settle(page);
  await shot(page, 'embed-dialog');
  await page.click('#embed-close');

  // 3. The lesson at step 4 after "Set eta = 2" and a run (4 rounds).
  await page.click('#lesson-next');
  await page.click('#lesson-next');
  await page.click('#lesson-apply');
  await page.waitForFunction(() => window.__tunelab.panels.tune.state.eta === 2);
  await page.click('#run');
  await runDone(page, 2);
  await settle(page);
  await shot(page, 'lesson-step');
  await page.close();

  // 4. The snippet in a course page on another origin (127.0.0.2), 640 x 480, arms + Run, after its autorun.
  const snippet = `<iframe src="${url}#lesson=mamba&embed=1&controls=arms,run&show=chart,bracket,best&autorun=1" width="640" height="480" `
    + 'title="tunelab lesson" allow="cross-origin-isolated" style="border:1px solid #d8dde3;border-radius:8px"></iframe>';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Week 3</title>
<style>body{font:16px/1.5 Georgia,serif;margin:1.2rem 1.5rem;color:#222;background:#fbfaf7}h1{font-size:1.4rem;margin:0 0 .3rem}p{margin:.3rem 0 .8rem;max-width:40rem}</style>
</head><body><h1>Week 3: tuning SG-MCMC step sizes</h1><p>Press Run and watch which step sizes survive each round.</p>${snippet}</body></html>`;
  course = http.createServer((req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html));
  await new Promise((r) => course.listen(0, '127.0.0.2', r));
  const cpage = await context.newPage();
  await cpage.setViewportSize({ width: 700, height: 600 });
  await cpage.goto(`http://127.0.0.2:${course.address().port}/`);
  const frame = await (await cpage.waitForSelector('iframe')).contentFrame();
  await ready(frame);
  await frame.waitForFunction(() => window.__tunelab.lesson?.status === 'done', null, { timeout: 120_000 });
  await settle(cpage);
  await shot(cpage, 'embed-640');
  await cpage.close();

  // 5. A lesson on another tuner: GP-UCB in an embed of the Bandits panel (settings folded away), after its run.
  const bpage = await context.newPage();
  await bpage.setViewportSize({ width: 800, height: 600 });
  await bpage.goto(`${url}#lesson=gp-ucb&embed=1&controls=run&autorun=1`);
  await ready(bpage);
  await bpage.waitForFunction(() => window.__tunelab.lesson?.status === 'done', null, { timeout: 120_000 });
  await bpage.click('#lesson-next');
  await bpage.evaluate(() => window.scrollTo(0, 0));
  await settle(bpage);
  await shot(bpage, 'lesson-bandit');
  await bpage.close();

  const foreign = requests.filter((u) => !/^(blob:|data:|about:)/.test(u) && !['127.0.0.1', '127.0.0.2'].includes(new URL(u).hostname));
  if (foreign.length) throw new Error(`requests left the machine: ${foreign.join(', ')}`);
  console.log(`screenshots: wrote ${written.join(', ')}`);
} finally {
  await context.close().catch(() => {});
  server.close();
  server.closeAllConnections?.();
  course?.close();
  course?.closeAllConnections?.();
  fs.rmSync(profile, { recursive: true, force: true });
}
