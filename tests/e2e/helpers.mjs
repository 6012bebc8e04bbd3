// Shared helpers for the end-to-end tests: a local server (with or without isolation headers) and Debian
// Chromium driven by playwright-core, with a fresh profile that is removed afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/dev/serve.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Starts a server and a browser; returns {url, browser, context, close}. */
/** `serviceWorkers: 'block'` keeps the isolation service worker (www/coi.js) out: a plain static host where it
 * cannot help, so the page stays single-threaded (tests/e2e/coi.test.mjs tests the worker itself). */
export async function launch({ isolation = true, root, viewport = { width: 1280, height: 900 }, serviceWorkers = 'allow', args = [] } = {}) {
  const { server, url } = await startServer({ port: 0, isolation, root, quiet: true });
  // The browser gets a private TMPDIR, so the /tmp/org.chromium.Chromium.* folders it leaves are its own and
  // are removed with it (never another process's).
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-profile-'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-tmp-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: [...LAUNCH_ARGS, ...args], viewport, acceptDownloads: true, serviceWorkers,
    env: { ...process.env, TMPDIR: tmp },
  });
  const close = async () => {
    await context.close().catch(() => {});
    await new Promise((r) => server.close(r));
    server.closeAllConnections?.();
    fs.rmSync(profile, { recursive: true, force: true });
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  return { url, context, close };
}

/** Opens the page, recording every request URL and every console error. */
export async function openPage(context, url, hash = '') {
  const page = await context.newPage();
  const requests = [];
  const consoleErrors = [];
  page.on('request', (r) => requests.push(r.url()));
  context.on('request', (r) => requests.push(r.url())); // workers' requests too
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(url + hash);
  await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
  return { page, requests, consoleErrors };
}

/** Requests that left 127.0.0.1 (blob: and data: URLs are local). */
export function foreignRequests(requests) {
  return requests.filter((u) => !/^(blob:|data:)/.test(u) && new URL(u).hostname !== '127.0.0.1');
}

/** Waits until the current run is over (no run in progress and the runs counter reached n). */
export async function waitRunDone(page, runs, timeout = 120_000) {
  await page.waitForFunction((n) => window.__tunelab.runs >= n && !window.__tunelab.running, runs, { timeout });
}

/** Waits until the tune panel's arm count (from the core's `check`) matches `re`; returns its text. */
export async function waitArmCount(page, re, timeout = 30_000) {
  await page.waitForFunction((src) => new RegExp(src).test(document.getElementById('arm-count')?.textContent ?? ''), re.source, { timeout });
  return page.textContent('#arm-count');
}

/**
 * Counts the animation frames from the first one after the tune panel handled its run's first progress event
 * until `drawn` (a function source, evaluated in the page) is true; {frames, drawn} (frames capped at 30).
 * A functional check (no wall-clock bound): the page draws from the first progress event on, in the frames that
 * follow it, however slow the machine.
 */
export async function framesToDraw(page, drawn) {
  return page.evaluate(async (src) => {
    const isDrawn = /** @type {() => boolean} */ (new Function(`return (${src})();`));
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(undefined)));
    while (!(window.__tunelab.progressEvents > 0)) await frame();
    let frames = 0;
    while (!isDrawn() && frames < 30) { await frame(); frames++; }
    return { frames, drawn: isDrawn() };
  }, drawn.toString());
}
