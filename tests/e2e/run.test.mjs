// End-to-end: runs in the page. A short MAMBA run fills the chart, the bracket and the table; Stop cancels
// at once and the next run works; a real CSV uploads and runs; every kind of bad file gets its message;
// the page's presets are the core's; a 2-D toy draws its density; no request leaves 127.0.0.1.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, openPage, foreignRequests, waitRunDone, waitArmCount } from './helpers.mjs';

/** A CSV from a seeded logistic model: n rows, d features x1..xd, label y in {0,1}. */
function logisticCsv(n, d, seed = 7) {
  let s = seed >>> 0;
  const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
  const gauss = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const beta = Array.from({ length: d }, () => gauss());
  const lines = [[...beta.map((_, j) => `x${j + 1}`), 'y'].join(',')];
  for (let i = 0; i < n; i++) {
    const x = beta.map(() => gauss());
    const eta = x.reduce((a, v, j) => a + v * beta[j], 0);
    const y = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    lines.push([...x.map((v) => v.toFixed(5)), y].join(','));
  }
  return lines.join('\n') + '\n';
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-e2e-csv-'));
const file = (name, text) => { const p = path.join(tmp, name); fs.writeFileSync(p, text); return p; };
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Small, fast settings for runs in tests (N = 500, d = 3, 12 arms, MAMBA eta 3). */
const FAST = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-2.5&hby=0.5&batch=0.1,0.02'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=200000&metric=ksd&msamples=200&thin=5&start=map&seed=3';

describe('runs in the isolated page (threads)', () => {
  let env; let page; let requests; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, requests, consoleErrors } = await openPage(env.context, env.url, FAST));
  });
  after(async () => { await env?.close(); });

  test('a short MAMBA run fills the chart, bracket and table with every arm and one best arm', async () => {
    // The arm count and MAMBA's rounds are the core's (`check`), not a JS copy.
    assert.match(await waitArmCount(page, /^12 arms/), /MAMBA: 2 rounds, 12 → 4 arms/);
    await page.click('#run');
    await waitRunDone(page, 1);
    assert.equal(await page.textContent('#message').then((t) => /The run failed/.test(t)), false, await page.textContent('#message'));
    const h = await page.evaluate(() => ({
      data: window.__tunelab.lastChartData, arms: window.__tunelab.chartArms, report: window.__tunelab.lastResult.report,
      unknown: window.__tunelab.unknownEvents,
    }));
    const report = h.report;
    assert.equal(report.arms.length, 12);
    assert.deepEqual(h.unknown, []);
    // Chart: x values + one series per arm; every arm has a score point from round 1.
    assert.equal(h.data.length, 1 + 12);
    assert.ok(h.data[0].length >= 1);
    assert.equal(h.arms.length, 12);
    assert.ok(h.arms.every((a) => a.points >= 1));
    // Rounds: MAMBA with M = 12, eta = 3 runs floor(log3 12) = 2 rounds: 12 arms, then 4.
    assert.deepEqual(report.rounds.map((r) => r.arms.length), [12, 4]);
    const survivors = report.arms.filter((a) => a.status === 'survivor');
    assert.ok(survivors.length >= 1);
    assert.ok(report.best && survivors.some((a) => a.id === report.best.arm));
    // Bracket: one column per round with the arms that ran, the best marked once.
    const cols = await page.$$eval('#bracket .round', (els) => els.map((e) => e.querySelectorAll('li').length));
    assert.deepEqual(cols, [12, 4]);
    assert.equal(await page.locator('#bracket li.best').count(), 1);
    assert.equal(await page.getAttribute('#bracket li.best', 'data-arm'), String(report.best.arm));
    // Table: every arm once, one best row, statuses from the report.
    assert.equal(await page.locator('#arms-table tbody tr').count(), 12);
    assert.equal(await page.locator('#arms-table tbody tr.best').count(), 1);
    assert.equal(await page.getAttribute('#arms-table tbody tr.best', 'data-arm'), String(report.best.arm));
    assert.equal(await page.locator('#arms-table tbody tr[data-status="pruned"]').count(), report.arms.filter((a) => a.status === 'pruned').length);
    // Posterior: mean/std per coordinate; trace and histogram drawn; progress complete.
    assert.equal(await page.locator('#post-table tbody tr').count(), 3);
    assert.equal(report.best.posterior.mean.length, 3);
    assert.equal(await page.locator('#chart-trace canvas').count(), 1);
    assert.equal(await page.locator('#chart-hist canvas').count(), 1);
    assert.equal(await page.getAttribute('#progress', 'value'), '1');
    assert.equal(await page.isEnabled('#export-report'), true);
    assert.match(await page.textContent('#stats'), /Done/);
  });

  test('exports: config and report JSON, traces CSV, charts PNG', async () => {
    const grab = async (id) => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
      return { name: dl.suggestedFilename(), body: fs.readFileSync(await dl.path()) };
    };
    const cfg = await grab('#export-config');
    assert.equal(cfg.name, 'tunelab-config.json');
    const config = JSON.parse(cfg.body);
    assert.equal(config.seed, 3);
    assert.deepEqual(config.arms.batch, [0.1, 0.02]);
    assert.equal(config.kind, 'tune');
    const rep = await grab('#export-report');
    const envelope = JSON.parse(rep.body);
    assert.equal(envelope.kind, 'tune');
    assert.equal(envelope.status, 'complete');
    assert.equal(envelope.result.arms.length, 12);
    assert.ok(envelope.result.best.arm >= 0);
    const tr = await grab('#export-traces');
    const all = tr.body.toString().trim().split('\n');
    // '#' lines first: the chosen arm, the config hash and what of the chain the CSV holds.
    assert.match(all[0], /^# tunelab traces of the chosen arm #\d+ .*config [0-9a-f]{8}$/);
    const lines = all.filter((l) => !l.startsWith('#'));
    assert.equal(lines[0], 'sample,theta1,theta2,theta3');
    assert.ok(lines.length > 10);
    assert.ok(lines.slice(1).every((l) => l.split(',').length === 4 && l.split(',').every((v) => Number.isFinite(Number(v)))));
    const png = await grab('#export-png');
    assert.deepEqual([...png.body.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });

  test('compare mode runs the paper\'s tuners on the same data and seed', async () => {
    await page.check('#compare');
    await page.click('#run');
    await waitRunDone(page, 2);
    const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.tuner, tr.children[5].textContent, tr.children[1].textContent, tr.dataset.arm]));
    assert.deepEqual(rows.map((r) => r[0]), ['MAMBA-KSD', 'MAMBA-FSSD', 'grid (log-loss)', 'grid (KSD)', 'heuristic']);
    assert.ok(rows.every((r) => !/waiting|running/.test(r[1])), JSON.stringify(rows));
    const cmp = await page.evaluate(() => window.__tunelab.compare);
    assert.equal(cmp.length, 5);
    assert.ok(cmp.every((c) => c.best != null || c.error != null));
    // ONE run of kind compare (no reference run in the page); each tuner's chosen arm is named.
    const env = await page.evaluate(() => window.__tunelab.panels.tune.lastReport);
    assert.equal(env.kind, 'compare');
    assert.equal(env.config.reference_samples, 0);
    for (const [i, c] of cmp.entries()) if (c.best) { assert.equal(rows[i][2], `#${c.best.arm}`); assert.equal(rows[i][3], String(c.best.arm)); }
    for (const c of cmp) if (c.best) assert.match(await page.textContent('#message'), new RegExp(`${c.name.replace(/[()]/g, '\\$&')} chose arm #${c.best.arm}`));
    await page.uncheck('#compare');
  });

  test('Stop cancels at once, the page stays usable and the next run works', async () => {
    // A long run: the paper's grid (56 arms, 2e7 gradient evaluations for the best arm).
    await page.selectOption('#preset', 'paper-logreg');
    await waitArmCount(page, /^56 arms/);
    await page.click('#run');
    await page.waitForFunction(() => Number(document.querySelector('#progress').value) > 0, null, { timeout: 60_000 });
    await page.click('#stop');
    await page.waitForFunction(() => !window.__tunelab.running, null, { timeout: 5_000 });
    assert.match(await page.textContent('#message'), /Stopped/);
    // Cancelled, not finished: no chosen arm, and the progress line says how little of the schedule ran.
    assert.equal(await page.evaluate(() => window.__tunelab.lastResult), null);
    const stats = await page.textContent('#stats');
    const pct = Number(/(\d+)% of the schedule done/.exec(stats)?.[1]);
    assert.ok(pct < 100, stats);
    assert.equal(await page.isEnabled('#run'), true);
    assert.equal(await page.isDisabled('#stop'), true);
    // Another run after the cancel works (on the same or a fresh worker).
    await page.goto('about:blank');
    await page.goto(env.url + FAST);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await page.click('#run');
    await waitRunDone(page, 1);
    assert.equal(await page.evaluate(() => window.__tunelab.lastResult.report.arms.length), 12);
  });

  test('Stop also works on the single page load without reloading, twice in a row', async () => {
    await page.selectOption('#preset', 'paper-logreg');
    await waitArmCount(page, /^56 arms/);
    for (let k = 0; k < 2; k++) {
      await page.click('#run');
      await page.waitForFunction(() => Number(document.querySelector('#progress').value) > 0, null, { timeout: 60_000 });
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !window.__tunelab.running, null, { timeout: 5_000 });
      assert.match(await page.textContent('#message'), /Stopped/);
    }
    await page.goto('about:blank');
    await page.goto(env.url + FAST.replace('seed=3', 'seed=4'));
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await page.click('#run');
    await waitRunDone(page, 1);
    assert.ok(await page.evaluate(() => window.__tunelab.lastResult.report.best != null));
  });

  test('no request left 127.0.0.1 and nothing was logged as an error', () => {
    assert.deepEqual(foreignRequests(requests), []);
    assert.deepEqual(consoleErrors.filter((e) => !/deliberate/.test(e)), []);
  });
});

describe('uploads and presets (single thread, no isolation headers)', () => {
  let env; let page; let requests;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page, requests } = await openPage(env.context, env.url));
  });
  after(async () => { await env?.close(); });

  test('a real CSV uploads (preview, label column) and a run on it works', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + FAST.replace('data=simulate', 'data=upload'));
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await page.setInputFiles('#file', file('simulated.csv', logisticCsv(400, 4)));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid != null);
    assert.equal(await page.getAttribute('#csv-preview', 'data-valid'), 'true', await page.textContent('#data-message'));
    assert.match(await page.textContent('#data-message'), /simulated\.csv: 400 rows, 4 features, label “y”/);
    assert.equal(await page.locator('#csv-preview tbody tr').count(), 6);
    assert.deepEqual(await page.$$eval('#csv-preview thead th', (t) => t.map((x) => x.textContent)), ['x1', 'x2', 'x3', 'x4', 'y']);
    assert.equal(await page.inputValue('#label'), 'y');
    await page.click('#run');
    await waitRunDone(page, 1);
    const r = await page.evaluate(() => window.__tunelab.lastResult);
    assert.ok(r, await page.textContent('#message'));
    assert.equal(r.report.config.data.source, 'upload');
    assert.equal(r.report.best.posterior.mean.length, 4);
  });

  test('unscaled features: a warning after the chart, as the CLI gives it, and standardising clears it', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + FAST.replace('data=simulate', 'data=upload'));
    await page.waitForFunction(() => window.__tunelab?.info != null);
    // Feature a has size ~500 (the CLI's test of the same warning: crates/cli/tests/experiments.rs).
    let csv = 'a,b,y\n';
    for (let i = 0; i < 120; i++) {
      const u = ((i * 37) % 101) / 50 - 1; const v = ((i * 53) % 97) / 48 - 1;
      csv += `${500 + 80 * u},${v},${u + 0.5 * v > 0 ? 1 : 0}\n`;
    }
    await page.setInputFiles('#file', file('raw.csv', csv));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid === 'true');
    await page.click('#run');
    await waitRunDone(page, 1);
    // The box right after the score chart's card; the bar's message keeps its one-line verdict.
    const box = '#panel-tune .run-warnings';
    const said = await page.textContent(`${box} li`);
    assert.match(said, /^The features look unscaled \(feature 'a' has mean \d+\.\d+ and standard deviation \d+\.\d+\) and standardize is off: .*"standardize": true in the config's data\)\.$/, said);
    assert.equal(await page.getAttribute(box, 'role'), 'note');
    assert.equal(await page.evaluate((sel) => document.querySelector(sel).previousElementSibling?.contains(document.getElementById('chart-ksd')), box), true);
    assert.doesNotMatch(await page.textContent('#message'), /unscaled/);
    await page.check('#standardize');
    await page.waitForFunction(() => !window.__tunelab.panels.tune.running && window.__tunelab.panels.tune.runState !== 'checking');
    await page.click('#run');
    await waitRunDone(page, 2);
    assert.equal(await page.locator('#panel-tune .run-warnings li', { hasText: 'unscaled' }).count(), 0);
  });

  const bad = [
    ['empty.csv', '', /the file is empty/],
    ['one-row.csv', 'x1,x2,y\n0.5,1.5,1\n', /1 data row\(s\) after the header; at least 2 are needed/],
    ['ragged.csv', 'x1,x2,y\n0.5,1.5,1\n0.1,0\n0.3,0.2,1\n', /line 3: expected 3 cells \(as in the header\) but found 2/],
    ['text.csv', 'x1,x2,y\n0.5,abc,1\n0.1,0.2,0\n', /line 2, column "x2": "abc" is not a number/],
    ['nan.csv', 'x1,x2,y\n0.5,NaN,1\n0.1,0.2,0\n', /line 2, column "x2": value "NaN" is not finite/],
    ['missing-label.csv', 'x1,x2,y\n0.5,0.2,1\n0.1,0.2,\n', /line 3, column "y": the cell is empty/],
    ['labels.csv', 'x1,x2,y\n0.5,0.2,1\n0.1,0.2,2\n0.3,0.1,0\n', /line 3, column "y": label 2 is not 0 or 1/],
  ];
  for (const [name, text, re] of bad) {
    test(`bad file ${name} is rejected with a message`, async () => {
      await page.goto('about:blank');
      await page.goto(env.url + '#data=upload&model=logistic');
      await page.waitForFunction(() => window.__tunelab?.info != null);
      await page.setInputFiles('#file', file(name, text));
      await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid != null);
      assert.equal(await page.getAttribute('#csv-preview', 'data-valid'), 'false');
      const msg = await page.textContent('#data-message');
      assert.match(msg, new RegExp(name.replace('.', '\\.')));
      assert.match(msg, re);
    });
  }

  test('a binary file and a non-UTF-8 file: "this does not look like a CSV text file", no garbage in the message or the label menu', async () => {
    // A PNG-like header with NUL bytes and high bytes; then Latin-1 text (not UTF-8).
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, ...Array.from({ length: 400 }, (_, i) => (i * 37) % 256)]);
    const latin1 = Buffer.from('x1,x2,caf\xe9\n0.5,0.2,1\n0.1,0.3,0\n0.4,0.1,1\n', 'latin1');
    for (const [name, bytes, why] of [['picture.csv', binary, /binary data/], ['latin1.csv', latin1, /not UTF-8 text/]]) {
      await page.goto('about:blank');
      await page.goto(env.url + '#data=upload&model=logistic');
      await page.waitForFunction(() => window.__tunelab?.info != null);
      await page.setInputFiles('#file', file(name, bytes));
      await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid != null);
      assert.equal(await page.getAttribute('#csv-preview', 'data-valid'), 'false');
      const msg = await page.textContent('#data-message');
      assert.match(msg, new RegExp(`^${name.replace('.', '\\.')}: this does not look like a CSV text file`));
      assert.match(msg, why);
      assert.ok(msg.length < 200, msg);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(msg, /[\u0000-\u0008\u000e-\u001f\ufffd]/);
      assert.deepEqual(await page.$$eval('#label option', (os) => os.map((o) => o.value)), ['y']);
      // Run is refused with the file's own message (a file was chosen: never "Choose a CSV file first").
      await page.click('#run');
      await page.waitForFunction(() => /does not look like a CSV text file/.test(document.getElementById('message').textContent));
      assert.doesNotMatch(await page.textContent('#message'), /Choose a CSV file first/);
    }
  });

  test('a semicolon file gets the delimiter suggested (and can be read with it); a file without y says which column is the label', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + '#data=upload&model=logistic&standardize=0');
    await page.waitForFunction(() => window.__tunelab?.info != null);
    const rows = logisticCsv(200, 3).trim().split('\n');
    const semi = rows.map((l) => l.split(',').map((c) => c.replace('.', ',')).join(';')).join('\n') + '\n';
    await page.setInputFiles('#file', file('excel.csv', semi));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid != null);
    assert.equal(await page.getAttribute('#csv-preview', 'data-valid'), 'false');
    assert.match(await page.textContent('#data-message'), /^excel\.csv: the columns seem to be separated by semicolons \(;\), not commas/);
    assert.equal(await page.isVisible('#csv-fix'), true);
    await page.click('#csv-fix');
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid === 'true');
    assert.match(await page.textContent('#data-message'), /excel\.csv: 200 rows, 3 features, label “y”/);
    assert.deepEqual(await page.$$eval('#label option', (os) => os.map((o) => o.value)), ['x1', 'x2', 'x3', 'y']);
    assert.equal(await page.isVisible('#label-note'), false);
    // Tabs too.
    await page.setInputFiles('#file', file('tabs.tsv', rows.map((l) => l.replaceAll(',', '\t')).join('\n')));
    await page.waitForFunction(() => /separated by tabs/.test(document.getElementById('data-message').textContent));
    // No y column: the last column is the label, and the page says so next to the menu.
    const noY = rows.map((l, i) => (i === 0 ? 'a,b,c,outcome' : l)).join('\n');
    await page.setInputFiles('#file', file('noy.csv', noY));
    await page.waitForFunction(() => document.querySelector('#csv-preview').dataset.valid === 'true');
    assert.equal(await page.inputValue('#label'), 'outcome');
    assert.equal(await page.isVisible('#label-note'), true);
    assert.equal(await page.textContent('#label-note'), 'No column is named “y”: the last column, “outcome”, is taken as the label. Choose another in the menu above.');
  });

  test('the page presets are the core presets (same config after the core fills defaults)', async () => {
    await page.goto('about:blank');
    await page.goto(env.url);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    const diffs = await page.evaluate(async () => {
      const { toTuneConfig } = await import('./www/panels/tune/state.js');
      const c = window.__tunelab.client;
      const out = [];
      // The full-size MNIST and PMF presets are native only (the page offers their reduced `-page` versions).
      const NATIVE_ONLY = ['mnist-bnn', 'pmf'];
      for (const name of await c.presetNames('tune')) {
        if (NATIVE_ONLY.includes(name)) continue;
        const state = await window.__tunelab.panels.tune.load(name);
        const mine = (await c.check(toTuneConfig(state))).config;
        // The reduced paper presets (`*-page`) load as comparisons: the core's compare preset of that name.
        const core = (await c.check(await c.preset(mine.kind === 'compare' ? 'compare' : 'tune', name))).config;
        if (JSON.stringify(core) !== JSON.stringify(mine)) out.push({ name, core, mine });
      }
      return out;
    });
    assert.deepEqual(diffs, []);
  });

  test('the paper\'s variants load from a URL into the form and the core\'s config (softmax BNN, hierarchical PMF, Stein kernel, evaluation)', async () => {
    /** Each case: URL settings, then what the checked config must hold. */
    const cases = [
      ['data=digits&model=bnn&hidden=8&act=softmax&metric=ksd&kernel=plain&compare=1&evalk=tuning-chain&refs=0',
        (c) => c.kind === 'compare' && c.model.activation === 'softmax' && c.metric.kernel === 'plain' && c.evaluation.kind === 'tuning-chain', ['#act', '#kernel', '#evalk']],
      ['data=ratings&model=pmf&users=20&items=30&nr=300&latent=2&pprior=hierarchical&metric=ksd&kernel=per-arm',
        (c) => c.kind === 'tune' && c.model.prior.kind === 'hierarchical' && c.model.prior.alpha === 3 && c.model.prior.b0 === 5 && c.metric.kernel === 'per-arm', ['#pprior', '#kernel']],
      // The defaults write nothing new: tanh, fixed precisions, the run kernel, the fresh evaluation.
      ['data=digits&model=bnn&hidden=8&metric=ksd&compare=1&refs=0',
        (c) => c.kind === 'compare' && (c.model.activation ?? 'tanh') === 'tanh' && (c.metric.kernel ?? 'run') === 'run' && (c.evaluation?.kind ?? 'fresh-from-map') === 'fresh-from-map', ['#act', '#kernel', '#evalk']],
    ];
    for (const [hash, holds, shown] of cases) {
      await page.goto('about:blank');
      await page.goto(env.url + '#' + hash);
      await page.waitForFunction(() => window.__tunelab?.info != null);
      const cfg = await page.evaluate(async () => {
        const { toTuneConfig } = await import('./www/panels/tune/state.js');
        return (await window.__tunelab.client.check(toTuneConfig(window.__tunelab.state))).config;
      });
      assert.ok(holds(cfg), `${hash}: ${JSON.stringify({ model: cfg.model, metric: cfg.metric, evaluation: cfg.evaluation })}`);
      for (const sel of shown) assert.equal(await page.isVisible(sel), true, `${sel} shown for ${hash}`);
      // Copy link writes them back.
      const params = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
      for (const kv of hash.split('&')) { const [k, v] = kv.split('='); assert.equal(params.get(k), v, `${k} in the URL after load`); }
    }
  });

  test('a descending log10 step range is the core\'s grid (from the core\'s check, step-major)', async () => {
    await page.goto('about:blank');
    await page.goto(env.url + FAST.replace('hfrom=-5&hto=-2.5', 'hfrom=-2.5&hto=-5'));
    await page.waitForFunction(() => window.__tunelab?.info != null);
    const state = await page.evaluate(() => window.__tunelab.state);
    assert.deepEqual([state.hfrom, state.hto], [-2.5, -5]);
    assert.match(await waitArmCount(page, /^12 arms/), /6 step sizes × 2 batch sizes/);
    const summary = await page.evaluate(async () => {
      const { toTuneConfig } = await import('./www/panels/tune/state.js');
      return (await window.__tunelab.client.check(toTuneConfig(window.__tunelab.state))).summary;
    });
    const steps = [...new Set(summary.arms.map((a) => a.step))];
    assert.equal(steps.length, 6);
    assert.ok(steps.every((h, i) => i === 0 || h < steps[i - 1]), `descending grid: ${steps}`);
  });

  test('a 2-D toy target draws its samples over the density contours', async () => {
    await page.goto('about:blank');
    await page.goto(env.url);
    await page.waitForFunction(() => window.__tunelab?.info != null);
    await page.selectOption('#preset', 'banana');
    await page.fill('#budget', '4000');
    await page.dispatchEvent('#budget', 'change');
    await page.click('#run');
    await waitRunDone(page, 1);
    assert.equal(await page.isVisible('#density'), true, await page.textContent('#message'));
    const inked = await page.$eval('#density', (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 2] < 200) n++;
      return n;
    });
    assert.ok(inked > 2000, `only ${inked} drawn pixels`);
    assert.deepEqual(foreignRequests(requests), []);
  });
});
