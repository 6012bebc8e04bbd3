// Drives a running JupyterLab in Debian's Chromium (playwright-core, /usr/bin/chromium; never a downloaded
// browser): opens a notebook, runs all its cells, waits for every tunelab widget in its outputs to reach the state
// the notebook asks for, and prints what each widget drew as one JSON line. Started by
// crates/python/tests/test_jupyterlab.py, which starts and stops the server and checks the numbers.
// Usage: node jupyterlab_e2e.mjs URL EXPECT_JSON [REPORTS_JSON], URL =
// http://127.0.0.1:PORT/lab/tree/NB.ipynb?token=T&reset, EXPECT_JSON = ["ran", "shown", ...]: the final
// data-tunelab-state of each widget, in output order; REPORTS_JSON = {"<widget index>": "<report file>", ...}:
// the widgets that show a report, whose tab's table must hold that file's numbers (tests/e2e/report-tables.mjs, the
// check of the page's own "Open a report" test); each widget's `tables` is "ok" or the failed check's message.
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { assertTabShowsReport } from '../../../tests/e2e/report-tables.mjs';

const [url, expectJson, reportsJson = '{}'] = process.argv.slice(2);
const expected = JSON.parse(expectJson);
const reports = JSON.parse(reportsJson);
const WAIT = 60_000;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const out = { widgets: [], console: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('console', (m) => { if (m.type() === 'error') out.console.push(m.text()); });
  page.on('pageerror', (e) => out.console.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => {
    const app = /** @type {any} */ (window).jupyterapp;
    return app?.shell?.currentWidget?.sessionContext?.session?.kernel?.status === 'idle';
  }, null, { timeout: WAIT });
  // Not awaited: the command resolves only when every cell has run.
  await page.evaluate(() => { /** @type {any} */ (window).jupyterapp.commands.execute('notebook:run-all-cells'); });
  await page.waitForFunction((want) => {
    const w = [...document.querySelectorAll('.jp-OutputArea .tunelab-widget')];
    return w.length === want.length && w.every((e, i) => e.dataset.tunelabState === want[i] || e.dataset.tunelabState === 'error' || e.dataset.tunelabState === 'failed');
  }, expected, { timeout: WAIT, polling: 200 });
  const frames = await page.$$('.jp-OutputArea .tunelab-widget');
  for (const [index, host] of frames.entries()) {
    const state = await host.evaluate((e) => ({ ...e.dataset }));
    const frame = await (await host.$('iframe'))?.contentFrame();
    const height = await host.evaluate((e) => e.querySelector('iframe')?.getBoundingClientRect().height ?? 0);
    // A lesson loads its settings after the page is ready: wait until it says so (or fails).
    await frame?.waitForFunction(() => {
      const l = /** @type {any} */ (window).__tunelab?.lesson;
      return !l || (l.status !== 'loading' && l.status !== 'none');
    }, null, { timeout: WAIT, polling: 100 });
    const inside = frame ? await frame.evaluate(() => {
      const hooks = /** @type {any} */ (window).__tunelab;
      const name = hooks.panel;
      const entry = hooks.panels[name];
      const section = entry.section;
      // Every drawn uPlot chart of the panel: its canvas's size and how many of its pixels are not background.
      const charts = [...section.querySelectorAll('.uplot')].filter((u) => u.getBoundingClientRect().width > 0).map((u) => {
        const c = u.querySelector('canvas');
        if (!c || !c.width || !c.height) return { ink: 0, width: 0, height: 0 };
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && (data[i] < 235 || data[i + 1] < 235 || data[i + 2] < 235)) ink++;
        return { ink, width: c.width, height: c.height };
      });
      return {
        panel: name, runState: entry.runState, runs: entry.runs, errors: entry.errors, charts,
        chartData: entry.lastChartData, report: entry.lastReport, message: entry.panel.bar.part('message')?.textContent ?? '',
        opened: entry.opened ?? null, card: section.querySelector('.opened-card')?.textContent ?? null,
        flavour: hooks.info?.flavour ?? null, threads: hooks.info?.threads ?? null, isolated: globalThis.crossOriginIsolated === true,
        hash: location.hash,
        lesson: hooks.lesson ? { id: hooks.lesson.id, panel: hooks.lesson.panel, status: hooks.lesson.status,
          source: hooks.lesson.source, message: hooks.lesson.message,
          title: document.getElementById('lesson-h')?.textContent ?? null, step: document.getElementById('lesson-step-no')?.textContent ?? null } : null,
      };
    }) : null;
    let tables = null;
    if (frame && reports[index]) {
      try {
        await assertTabShowsReport(frame, JSON.parse(fs.readFileSync(reports[index], 'utf8')));
        tables = 'ok';
      } catch (e) {
        tables = String(e?.message ?? e);
      }
    }
    out.widgets.push({ state, height, inside, tables });
  }
} catch (e) {
  out.error = String(e?.message ?? e);
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
