// End-to-end: any report opened in the page (issue 40 item 2). A report of each of the seven kinds, written by the
// CLI (`tunelab run --out`, small configs of a second or so), is opened with the page's "Open a report…" file input:
// it shows in its tab, marked "opened from a file", nothing runs, and the numbers in the tab's table are the
// report's. A damaged file, a report of an unknown kind and one of a newer format leave the page as it was, with one
// message. A report over the page's size limit opens without its samples and says what was left out.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './helpers.mjs';
import { assertTabShowsReport, rows } from './report-tables.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The page's limit for a report with its samples (www/shared/open-report.js FULL_REPORT_BYTES). */
const FULL_REPORT_BYTES = 64 * 1024 * 1024;

/** Merges `patch` into `base` (objects key by key, anything else replaced); returns `base`. */
function merge(base, patch) {
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object') merge(base[k], v);
    else base[k] = v;
  }
  return base;
}

/** Small cases of every kind, a preset with a patch or a config (also shown by the notebook widget's test,
 * crates/python/tests/test_jupyterlab.py; the same as tests/core/experiments/report_file.rs). */
const CASES = JSON.parse(fs.readFileSync(path.join(REPO, 'tests/e2e/report-cases.json'), 'utf8'));

/** The CLI: the binary in TUNELAB_CLI (scripts/dev/test.sh sets it), else `cargo run` of the debug build. */
function cli(args) {
  const bin = process.env.TUNELAB_CLI;
  const pre = bin ? [] : ['run', '-q', '-p', 'tunelab-cli', '--'];
  return execFileSync(bin || 'cargo', [...pre, ...args], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
}

/** Writes the CLI's report of a case into `dir`; returns its path. */
function cliReport(dir, c) {
  const config = c.config ?? merge(JSON.parse(cli(['presets', '--show', `${c.kind}/${c.preset}`])), c.patch ?? {});
  const cfgPath = path.join(dir, `${c.kind}.config.json`);
  fs.writeFileSync(cfgPath, JSON.stringify(config));
  const out = path.join(dir, `${c.kind}-report.json`);
  cli(['run', '--threads', '2', '--out', out, '--config', cfgPath]);
  return out;
}

/** What the page shows after a file was opened (or refused): the active panel, its opened card, runs, message. */
async function pageState(page) {
  return page.evaluate(() => {
    const h = window.__tunelab;
    const p = h.panels[h.panel];
    return {
      panel: h.panel,
      opened: p.opened ?? null,
      runState: p.runState,
      runs: Object.values(h.panels).reduce((n, e) => n + (e.runs ?? 0), 0),
      card: p.section.querySelector('.opened-card')?.textContent ?? null,
      refused: document.getElementById('open-report-msg')?.dataset.code ?? null,
      refusedText: document.getElementById('open-report-msg')?.textContent ?? null,
      reportKind: p.lastReport?.kind ?? null,
      table: [...p.section.querySelectorAll('table tbody tr')].map((tr) => tr.textContent).join('|'),
    };
  });
}

/** Opens `file` with the page's file input and waits until its tab shows it (or the page refused it). */
async function openFile(page, file) {
  const name = path.basename(file);
  await page.setInputFiles('#open-report-file', file);
  await page.waitForFunction((n) => {
    const h = window.__tunelab;
    const msg = document.getElementById('open-report-msg');
    return (msg && msg.textContent.startsWith(n)) || Object.values(h.panels).some((p) => p.opened?.name === n && p.runState === 'done');
  }, name, { timeout: 60_000 });
}

describe('any report opened in the page', () => {
  let env; let dir; const files = {};
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-open-'));
    for (const c of CASES) files[c.kind] = cliReport(dir, c);
    // The single-threaded page (no isolation headers, no service worker): opening computes nothing.
    env = await launch({ isolation: false, serviceWorkers: 'block' });
  });
  after(async () => { await env?.close(); if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

  test('a CLI report of each kind opens in its tab with the report\'s numbers, and nothing runs', async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url);
    const panelOf = { tune: 'tune', compare: 'tune', bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr-schedule', 'step-size': 'step-size', tvo: 'tvo' };
    for (const c of CASES) {
      const report = JSON.parse(fs.readFileSync(files[c.kind], 'utf8'));
      await openFile(page, files[c.kind]);
      const s = await pageState(page);
      assert.equal(s.refused, null, `${c.kind}: ${s.refusedText}`);
      assert.equal(s.panel, panelOf[c.kind], c.kind);
      assert.equal(s.reportKind, c.kind);
      assert.equal(s.opened.kind, c.kind);
      assert.deepEqual(s.opened.dropped, []);
      assert.match(s.card, /Opened from a file/);
      assert.match(s.card, /Nothing ran in this page/);
      assert.equal(s.runs, 0, `${c.kind}: opening a report ran nothing`);
      await assertTabShowsReport(page, report);
    }
    // "Run again here" loads the report's config into the settings (the last one opened: TVO's epochs).
    await page.click('#panel-tvo .opened-rerun');
    await page.waitForFunction(() => window.__tunelab.panels.tvo.state?.epochs === 2);
    assert.equal((await pageState(page)).runs, 0, 'Run again here loads; it does not run');
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test('a report dropped on the page opens as the file input opens it', async () => {
    const { page, consoleErrors } = await openPage(env.context, env.url);
    const drop = (name, text, type) => page.evaluate(({ name, text, type }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type }));
      document.querySelector('main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, { name, text, type });
    const text = fs.readFileSync(files.hoag, 'utf8');
    await drop('dropped-hoag.json', text, 'application/json');
    await page.waitForFunction(() => window.__tunelab.panels.hoag.opened?.name === 'dropped-hoag.json' && window.__tunelab.panels.hoag.runState === 'done', null, { timeout: 60_000 });
    const s = await pageState(page);
    assert.equal(s.panel, 'hoag');
    assert.equal(s.refused, null, s.refusedText ?? '');
    assert.match(s.card, /Opened from a file/);
    assert.equal(s.runs, 0);
    await assertTabShowsReport(page, JSON.parse(text));
    assert.deepEqual(consoleErrors, []);
    await page.close();
  });

  test('a damaged report, an unknown kind and a newer format leave the page as it was', async () => {
    const { page } = await openPage(env.context, env.url);
    await openFile(page, files.hoag);
    const shown = await pageState(page);
    assert.equal(shown.panel, 'hoag');
    const text = fs.readFileSync(files.bandit, 'utf8');
    const bad = {
      damaged: ['cut.json', text.slice(0, Math.floor(text.length / 2))],
      'unknown-kind': ['future-kind.json', JSON.stringify({ ...JSON.parse(text), kind: 'quantum-annealing' })],
      'newer-format': ['newer.json', JSON.stringify({ ...JSON.parse(text), format: 99 })],
      'not-a-report': ['config.json', fs.readFileSync(path.join(dir, 'bandit.config.json'), 'utf8')],
    };
    const SAYS = { damaged: /not valid JSON \(damaged or cut short\?\)/, 'unknown-kind': /of kind 'quantum-annealing', which this version does not know/,
      'newer-format': /format 99, newer than this version reads \(format 1\)/, 'not-a-report': /not a tunelab report: it looks like a config/ };
    for (const [code, [name, body]] of Object.entries(bad)) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, body);
      await openFile(page, f);
      const s = await pageState(page);
      assert.equal(s.refused, code, s.refusedText);
      assert.match(s.refusedText, new RegExp(`^${name} was not opened: .+ The page is as it was\\.$`));
      assert.match(s.refusedText, SAYS[code]);
      // The page is as it was: the same tab, the same report, the same table, no run.
      assert.deepEqual({ ...s, refused: null, refusedText: null }, { ...shown, refused: null, refusedText: null });
    }
    await page.close();
  });

  test('a stopped run\'s report opens as a stopped run, with what it reached', async () => {
    const { page } = await openPage(env.context, env.url);
    // The envelope a run stopped before its first progress event writes: no result, nothing reached.
    const full = JSON.parse(fs.readFileSync(files.bandit, 'utf8'));
    const stopped = { ...full, status: 'stopped', result: null, reached: [], compute: { ...full.compute, done: 0 } };
    const f = path.join(dir, 'stopped.json');
    fs.writeFileSync(f, JSON.stringify(stopped));
    await page.setInputFiles('#open-report-file', f);
    await page.waitForFunction(() => window.__tunelab.panels.bandit.opened?.name === 'stopped.json');
    const s = await pageState(page);
    assert.equal(s.refused, null, s.refusedText);
    assert.equal(s.panel, 'bandit');
    assert.equal(s.runState, 'stopped');
    assert.match(s.card, /a stopped run/);
    assert.match(await page.textContent('#panel-bandit .partial-card'), /stopped before its first progress update/);
    assert.equal(s.runs, 0);
    await page.close();
  });

  test('a report over the page\'s size limit opens without its samples and says so', async () => {
    const { page } = await openPage(env.context, env.url);
    // The CLI's tune report, padded with JSON whitespace past the limit: the same report, a larger file.
    const text = fs.readFileSync(files.tune, 'utf8');
    const report = JSON.parse(text);
    const big = path.join(dir, 'big-report.json');
    const fd = fs.openSync(big, 'w');
    fs.writeSync(fd, text);
    const pad = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i <= FULL_REPORT_BYTES >> 20; i++) fs.writeSync(fd, pad);
    fs.closeSync(fd);
    await openFile(page, big);
    const s = await pageState(page);
    assert.equal(s.refused, null, s.refusedText);
    assert.equal(s.panel, 'tune');
    const paths = s.opened.dropped.map((d) => d.path);
    assert.ok(paths.includes('result.best.samples'), paths.join());
    assert.equal(s.opened.dropped.find((d) => d.path === 'result.best.samples').values, report.result.best.samples.length);
    const note = await page.textContent('#panel-tune .opened-dropped');
    assert.match(note, /over the page's limit of 64\.0 MB for a report with its samples, so it was opened without them/);
    assert.match(note, new RegExp(`result\\.best\\.samples \\(${report.result.best.samples.length.toLocaleString('en-US')} numbers\\)`));
    // Everything but the samples is the report's: the arms table, and no traces to export.
    const t = await rows(page, '#arms-table');
    assert.equal(t.length, report.result.arms.length);
    assert.equal(Number(t[0][0]), report.result.best.arm);
    assert.equal(await page.isDisabled('#export-traces'), true);
    await page.close();
  });
});
