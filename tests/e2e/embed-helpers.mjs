// Helpers for the embed / service-worker / lesson tests: a browser with chosen service-worker policy, a
// "course page" server on another loopback origin (127.0.0.2) that embeds the playground, and request checks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM, LAUNCH_ARGS } from './helpers.mjs';
import { startServer } from '../../scripts/dev/serve.mjs';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh browser profile (persistent context, so service workers persist across reloads as in real life). */
export async function browser({ serviceWorkers = 'allow', viewport = { width: 1280, height: 900 }, permissions = [] } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-profile-'));
  const before = new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('org.chromium.Chromium.')));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport, serviceWorkers, permissions,
  });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const close = async () => {
    await context.close().catch(() => {});
    fs.rmSync(profile, { recursive: true, force: true });
    for (const f of fs.readdirSync(os.tmpdir())) {
      if (f.startsWith('org.chromium.Chromium.') && !before.has(f)) fs.rmSync(path.join(os.tmpdir(), f), { recursive: true, force: true });
    }
  };
  return { context, requests, close };
}

/** The playground's server (dev layout by default, `root` for dist/), port 0. */
export async function playground(opts = {}) {
  const { server, url } = await startServer({ port: 0, quiet: true, ...opts });
  return { url, close: () => new Promise((r) => { server.close(r); server.closeAllConnections?.(); }) };
}

/** A course page on http://127.0.0.2:PORT/ serving `html` at / (optionally cross-origin isolated itself). */
export async function coursePage(html, { isolated = false, host = '127.0.0.2' } = {}) {
  const server = http.createServer((req, res) => {
    const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' };
    if (isolated) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
    if (req.url === '/' || req.url.startsWith('/?')) res.writeHead(200, headers).end(html);
    else res.writeHead(404, headers).end('not found');
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, host, resolve); });
  const url = `http://${host}:${server.address().port}/`;
  return { url, close: () => new Promise((r) => { server.close(r); server.closeAllConnections?.(); }) };
}

/** An HTML page holding a snippet. */
export const pageWith = (snippet) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course page</title></head>
<body><h1>Week 3: tuning SG-MCMC</h1><p>Try it:</p>${snippet}</body></html>`;

/** Requests that left the loopback addresses the tests use (127.0.0.1 and 127.0.0.2). */
export function nonLoopback(requests) {
  return requests.filter((u) => !/^(blob:|data:|about:)/.test(u) && !['127.0.0.1', '127.0.0.2'].includes(new URL(u).hostname));
}

/** Builds the static site (scripts/dev/build-dist.mjs) into a temporary folder once per process; returns its path. */
let built = null;
export function buildDist() {
  if (!built) {
    built = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-dist-'));
    execFileSync(process.execPath, [path.join(REPO, 'scripts/dev/build-dist.mjs')], { cwd: REPO, stdio: 'pipe', env: { ...process.env, DIST_DIR: built } });
    const dir = built;
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return built;
}

/** The frame of the first iframe of a page, once the playground in it has started its worker. */
export async function playgroundFrame(page, timeout = 60_000) {
  const handle = await page.waitForSelector('iframe');
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => window.__tunelab?.info != null, null, { timeout });
  return frame;
}

/** Waits for a lesson to reach a final status; returns window.__tunelab.lesson (status, message, runs, report). */
export async function lessonDone(target, timeout = 120_000) {
  await target.waitForFunction(() => ['done', 'error', 'missing-panel', 'invalid'].includes(window.__tunelab?.lesson?.status), null, { timeout });
  return target.evaluate(() => ({ ...window.__tunelab.lesson }));
}

/** Waits until the registry's panel `name` has finished `runs` runs (window.__tunelab.panels[name]). */
export async function panelRunDone(target, name, runs, timeout = 120_000) {
  await target.waitForFunction(([p, n]) => {
    const panel = window.__tunelab?.panels?.[p];
    return panel && panel.runs >= n && !panel.running && panel.lastReport != null;
  }, [name, runs], { timeout });
}

/** What a page shows of the registry's panel `name`: its tab, its section, its results against the viewport. */
export async function panelView(target, name) {
  return target.evaluate((p) => {
    const panel = window.__tunelab.panels[p];
    const shown = (e) => !!e && e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
    const tabs = [...document.querySelectorAll('#modes [role="tab"]')];
    const results = panel.section.querySelector('.results') ?? panel.section;
    const r = results.getBoundingClientRect();
    const sections = Object.entries(window.__tunelab.panels).filter(([n, q]) => n !== p && q.section).map(([, q]) => q.section);
    return {
      tabSelected: document.getElementById(`tab-${p}`)?.getAttribute('aria-selected') ?? null,
      otherTabsSelected: tabs.filter((t) => t.id !== `tab-${p}` && t.getAttribute('aria-selected') === 'true').map((t) => t.id),
      sectionVisible: shown(panel.section),
      otherSectionsVisible: sections.filter(shown).length,
      results: { top: r.top, bottom: r.bottom, left: r.left, right: r.right, innerHeight, innerWidth },
      resultsInViewport: r.top < innerHeight - 50 && r.bottom > 50 && r.left >= 0 && r.left < innerWidth,
      lessonInPanel: panel.section.contains(document.getElementById('lesson')),
      runs: panel.runs, running: panel.running, lastReport: panel.lastReport, lastChartData: panel.lastChartData,
    };
  }, name);
}

/** Whether chart data (any nesting of objects and arrays) holds at least one finite number in an array. */
export function hasPoints(d) {
  if (Array.isArray(d)) return d.some((x) => (typeof x === 'number' && Number.isFinite(x)) || hasPoints(x));
  if (d && typeof d === 'object') return Object.values(d).some(hasPoints);
  return false;
}
