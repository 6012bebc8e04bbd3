// A small browser driver shared by the suites that run the same checks in more than one browser: Debian's
// Chromium through playwright-core (as every other e2e test), Debian's firefox-esr through puppeteer-core
// over WebDriver BiDi (no geckodriver, no downloaded browser), and WebKitGTK's MiniBrowser through Debian's
// WebKitWebDriver (webkit2gtk-driver) and selenium-webdriver, under Xvfb (WebKitGTK has no headless mode). A Tab offers what those checks need and nothing
// more: open a URL, evaluate a function with one argument, wait for a page predicate, click, read text, inject a
// script file, and the page's errors (console.error and uncaught exceptions).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { Builder } from 'selenium-webdriver';
import { CHROMIUM, LAUNCH_ARGS } from './helpers.mjs';

export const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const XVFB = '/usr/bin/Xvfb';

/**
 * @typedef {object} Tab
 * @property {(url: string) => Promise<void>} goto
 * @property {<A, R>(fn: (arg: A) => R, arg?: A) => Promise<Awaited<R>>} evaluate
 * @property {<A>(fn: (arg: A) => unknown, arg?: A, timeout?: number) => Promise<void>} waitFor  polls `fn` in the page
 * @property {(selector: string) => Promise<void>} click
 * @property {(selector: string) => Promise<string | null>} text
 * @property {(file: string) => Promise<void>} addScript  evaluates a script file in the page (e.g. axe.min.js)
 * @property {string[]} errors  console errors and uncaught exceptions of the page
 * @property {string[]} requests  URLs the page requested (its workers' requests too in Chromium)
 * @property {() => Promise<void>} close
 * @property {any} raw  the playwright-core or puppeteer-core page, for what only one of them offers
 */

/**
 * @typedef {object} Browser
 * @property {'chromium' | 'firefox' | 'webkit'} name
 * @property {(url: string) => Promise<Tab>} open  a new tab at `url`
 * @property {() => Promise<void>} close
 */

/**
 * Launches `name` with a fresh profile (removed on close). `serviceWorkers: 'block'` keeps service workers out.
 * (WebKit: one tab at a time, service workers always allowed.)
 * @param {'chromium' | 'firefox' | 'webkit'} name
 * @param {{serviceWorkers?: 'allow' | 'block', viewport?: {width: number, height: number}}} [opts]
 * @returns {Promise<Browser>}
 */
export async function openBrowser(name, { serviceWorkers = 'allow', viewport = { width: 1280, height: 900 } } = {}) {
  if (name === 'webkit') return webkit();
  return name === 'firefox' ? firefox({ serviceWorkers, viewport }) : chromiumBrowser({ serviceWorkers, viewport });
}

/**
 * Playwright's actionability checks for a click, run in the page: the element is enabled, in the viewport
 * (scrolled there first if not), has the same box 50 ms apart (timers, not animation frames: a tab in the
 * background gets none), and is the element the pointer hits at its centre. @param {string} sel @returns {Promise<boolean>}
 */
function actionable(sel) {
  const e = /** @type {HTMLElement | null} */ (document.querySelector(sel));
  if (!e || /** @type {any} */ (e).disabled) return Promise.resolve(false);
  const box = () => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  const a = box();
  if (a[2] === 0 || a[3] === 0) return Promise.resolve(false);
  if (a[1] < 0 || a[1] + a[3] > innerHeight || a[0] < 0 || a[0] + a[2] > innerWidth) {
    e.scrollIntoView({ block: 'center', inline: 'center' });
    return Promise.resolve(false);
  }
  return new Promise((resolve) => setTimeout(() => {
    const b = box();
    if (String(a) !== String(b)) { resolve(false); return; }
    const hit = document.elementFromPoint(b[0] + b[2] / 2, b[1] + b[3] / 2);
    resolve(hit != null && (hit === e || e.contains(hit)));
  }, 50));
}

/** @param {{serviceWorkers: 'allow' | 'block', viewport: {width: number, height: number}}} o @returns {Promise<Browser>} */
async function chromiumBrowser({ serviceWorkers, viewport }) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-profile-'));
  // A private TMPDIR: the /tmp/org.chromium.Chromium.* folders the browser leaves are removed with it.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-tmp-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport, serviceWorkers, env: { ...process.env, TMPDIR: tmp },
  });
  return {
    name: 'chromium',
    async open(url) {
      const page = await context.newPage();
      /** @type {string[]} */ const errors = [];
      /** @type {string[]} */ const requests = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      context.on('request', (r) => requests.push(r.url()));
      await page.goto(url);
      return {
        goto: async (u) => { await page.goto(u); },
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        waitFor: async (fn, arg, timeout = 120_000) => { await page.waitForFunction(fn, arg, { timeout }); },
        click: (sel) => page.click(sel),
        text: (sel) => page.textContent(sel),
        addScript: async (file) => { await page.addScriptTag({ content: fs.readFileSync(file, 'utf8') }); },
        errors, requests, raw: page,
        close: () => page.close(),
      };
    },
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(profile, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** @param {{serviceWorkers: 'allow' | 'block', viewport: {width: number, height: number}}} o @returns {Promise<Browser>} */
async function firefox({ serviceWorkers, viewport }) {
  // puppeteer-core makes a fresh profile (with its prefs against background traffic) and removes it on close.
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: FIREFOX, headless: true, protocolTimeout: 180_000, defaultViewport: viewport,
    extraPrefsFirefox: serviceWorkers === 'block' ? { 'dom.serviceWorkers.enabled': false } : {},
  });
  return {
    name: 'firefox',
    async open(url) {
      const page = await browser.newPage();
      /** @type {string[]} */ const errors = [];
      /** @type {string[]} */ const requests = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(url);
      return {
        goto: async (u) => { await page.goto(u); },
        evaluate: (fn, arg) => page.evaluate(/** @type {any} */ (fn), arg),
        // Polled from here, not with waitForFunction: over BiDi that one stays with the document it started in and
        // misses a reload (the isolation service worker's).
        waitFor: (fn, arg, timeout = 120_000) => poll(() => page.evaluate(/** @type {any} */ (fn), arg), fn, timeout),
        // puppeteer clicks at the centre it measured, whatever moved there since; Playwright first waits until the
        // element is stable and receives the pointer. The same checks here, so a Firefox test clicks what a user
        // would (a layout shift of the page is caught by its own test, tests/e2e/time-estimate.test.mjs).
        click: async (sel) => {
          await poll(() => page.evaluate(actionable, sel), actionable, 30_000);
          await page.click(sel);
        },
        text: (sel) => page.$eval(sel, (e) => e.textContent),
        addScript: async (file) => { await page.evaluate(fs.readFileSync(file, 'utf8')); },
        errors, requests, raw: page,
        close: () => page.close(),
      };
    },
    async close() { await browser.close().catch(() => {}); },
  };
}

/**
 * Calls `check` every 100 ms until it gives a truthy value, for at most `timeout` ms. A call that fails (a load in
 * between, e.g. the service worker's reload) counts as false; the next one runs in the new document.
 * @param {() => Promise<unknown>} check @param {Function} fn (for the message) @param {number} timeout
 */
async function poll(check, fn, timeout) {
  const t0 = Date.now();
  let last = null;
  for (;;) {
    try { if (await check()) return; last = null; } catch (e) { last = e; }
    if (Date.now() - t0 > timeout) throw new Error(`waitFor: not true after ${timeout} ms: ${fn.toString().slice(0, 200)}${last ? ` (last error: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A free TCP port on 127.0.0.1. @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => { const { port } = /** @type {net.AddressInfo} */ (srv.address()); srv.close(() => resolve(port)); });
  });
}

/**
 * Starts a child process and waits until `ready(output)` is true for its stdout+stderr so far (or it exits).
 * @param {string} cmd @param {string[]} args @param {NodeJS.ProcessEnv} env @param {(out: string) => boolean} ready
 * @param {import('node:child_process').StdioOptions} [stdio]
 */
function startProcess(cmd, args, env, ready, stdio = ['ignore', 'pipe', 'pipe']) {
  const child = spawn(cmd, args, { env, stdio });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill(); reject(new Error(`${cmd} did not start: ${out.slice(-500)}`)); }, 30_000);
    const check = (/** @type {Buffer} */ d) => { out += d; if (ready(out)) { clearTimeout(timer); resolve({ child, out: () => out }); } };
    for (const s of [child.stdout, child.stderr, /** @type {any} */ (child.stdio)[3]]) s?.on('data', check);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${cmd} exited (${code}): ${out.slice(-500)}`)); });
  });
}

/**
 * WebKitGTK: an Xvfb display (-displayfd: the server picks a free display), WebKitWebDriver on a free port, and
 * MiniBrowser in automation mode through selenium-webdriver. The environment the page needs: LANG (without it
 * navigator.language is "C", which Intl rejects) and JSC_useSharedArrayBuffer=1 (WebKitGTK gives an isolated page
 * SharedArrayBuffer only with it; Safari's launcher sets it). WebDriver classic has no console events: the page's
 * errors are collected by a hook the driver installs after each load (errors before it are not seen).
 * @returns {Promise<Browser>}
 */
async function webkit() {
  const xvfb = await startProcess(XVFB, ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], process.env,
    (out) => /^\d+\n/.test(out), ['ignore', 'pipe', 'pipe', 'pipe']);
  const display = `:${xvfb.out().trim()}`;
  const port = await freePort();
  const env = { ...process.env, DISPLAY: display, LANG: 'en_US.UTF-8', LANGUAGE: 'en_US', JSC_useSharedArrayBuffer: '1' };
  /** @type {any} */
  let wd = null;
  try {
    wd = await startProcess(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], env, (out) => /listening|port/i.test(out));
  } catch (e) {
    // Some versions print nothing when ready: try the port.
    if (!wd) wd = { child: spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], { env, stdio: 'ignore' }) };
  }
  const stop = () => { wd?.child.kill(); xvfb.child.kill(); };
  /** @type {import('selenium-webdriver').WebDriver} */
  let driver;
  try {
    for (let i = 0; ; i++) {
      try {
        driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
          browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        }).build();
        break;
      } catch (e) { if (i >= 20) throw e; await new Promise((r) => setTimeout(r, 500)); }
    }
  } catch (e) { stop(); throw e; }
  const d = driver;
  /** @type {string[]} */ const errors = [];
  const HOOK = `if (!window.__wdErrors) { window.__wdErrors = []; const e0 = console.error.bind(console);
    console.error = (...a) => { window.__wdErrors.push(a.map(String).join(' ')); e0(...a); };
    addEventListener('error', (e) => window.__wdErrors.push(String(e.message || e.error)));
    addEventListener('unhandledrejection', (e) => window.__wdErrors.push(String(e.reason))); }`;
  /** Runs `fn(arg)` in the page (awaiting a promise); errors come back as {__error}. @param {Function | string} fn @param {any} arg */
  const run = async (fn, arg) => {
    const src = typeof fn === 'string' ? `() => (${fn})` : fn.toString();
    const r = await d.executeAsyncScript(`const done = arguments[arguments.length - 1];
      ${HOOK}
      const errs = () => window.__wdErrors.splice(0);
      try { Promise.resolve((${src})(arguments[0])).then((v) => done({ v: v === undefined ? null : v, errs: errs() }), (e) => done({ __error: String(e && e.stack || e), errs: errs() })); }
      catch (e) { done({ __error: String(e && e.stack || e), errs: errs() }); }`, arg ?? null);
    if (r?.errs?.length) errors.push(...r.errs);
    if (r && r.__error) throw new Error(r.__error);
    return r?.v;
  };
  const collect = async () => {
    try { errors.push(...(await d.executeScript('const e = window.__wdErrors ?? []; window.__wdErrors = []; return e;'))); } catch { /* a page in the middle of a load */ }
  };
  await d.manage().setTimeouts({ script: 600_000, pageLoad: 60_000 });
  return {
    name: 'webkit',
    async open(url) {
      await d.get(url);
      /** @type {Tab} */
      const tab = {
        goto: async (u) => { await collect(); await d.get(u); },
        evaluate: (fn, arg) => run(fn, arg),
        waitFor: (fn, arg, timeout = 120_000) => poll(() => run(fn, arg), fn, timeout),
        click: async (sel) => { await run((/** @type {string} */ s) => { /** @type {HTMLElement} */ (document.querySelector(s)).click(); }, sel); },
        text: (sel) => run((/** @type {string} */ s) => document.querySelector(s)?.textContent ?? null, sel),
        addScript: async (file) => { await d.executeScript(fs.readFileSync(file, 'utf8')); },
        get errors() { return errors; },
        requests: [],
        raw: d,
        close: async () => { await collect(); },
      };
      return tab;
    },
    async close() { await d.quit().catch(() => {}); stop(); },
  };
}
