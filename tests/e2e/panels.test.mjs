// End-to-end tests of the tuner panels (www/panels/): the bandit, HOAG and learning-rate-schedule panels run
// small versions of their presets in the worker and expose one chart series per algorithm / method with the
// report's length and finite values; Stop cancels mid-run and the next run works (threaded page: shared flag;
// page without isolation: the worker is replaced); bad settings give readable messages; the URL hash keeps
// each panel's settings across a reload without disturbing the tuning page's; the lesson hook load() works.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, foreignRequests } from './helpers.mjs';

const ids = { bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr', 'step-size': 'step' };

async function runPanel(page, name, timeout = 60_000) {
  const before = await page.evaluate((n) => window.__tunelab.panels[n].runs, name);
  await page.click(`#${ids[name]}-run`);
  await page.waitForFunction(([n, k]) => window.__tunelab.panels[n].runs > k && !window.__tunelab.panels[n].running, [name, before], { timeout });
  return page.evaluate((n) => {
    const p = window.__tunelab.panels[n];
    // lastReport is the core's envelope {kind, status, config, compute, result}.
    return { report: p.lastReport?.result, envelope: p.lastReport, data: p.lastChartData, message: document.getElementById(`${p.panel.prefix}-message`).textContent, errors: [...p.errors], unknown: p.unknownEvents };
  }, name);
}

async function streamBytes(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return Buffer.concat(chunks);
}
const streamText = async (stream) => (await streamBytes(stream)).toString('utf8');

const allFinite = (xs) => xs.every((v) => typeof v === 'number' && Number.isFinite(v));

/** Small, fast settings per panel (each run well under 30 s on two shared cores). */
const BANDIT = 'bandit.problem=reservoir&bandit.a=1&bandit.b=1&bandit.algos=d-ttts,d-ttts-mp,ttts,successive-halving,hyperband,uniform&bandit.rounds=150&bandit.repeats=4&bandit.seed=3';
const HOAG = 'hoag.problem=logreg&hoag.data=simulate&hoag.n=150&hoag.dim=5&hoag.methods=hoag-exponential,hoag-cubic,grid,random,bo&hoag.cost=300&hoag.maxiter=12&hoag.land=21&hoag.seed=4';
const LR = 'lr.problem=noisy-quadratic&lr.qdim=10&lr.qnoise=1&lr.constant=3&lr.decays=1&lr.factors=0.1,0.01&lr.dynamic=1&lr.q=3&lr.intervals=4&lr.steps=12&lr.batch=8&lr.lrlo=0.001&lr.lrhi=1.5&lr.seed=2';

describe('tuner panels in the isolated page (threads)', () => {
  let env; let page; let requests; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: true });
    ({ page, requests, consoleErrors } = await openPage(env.context, env.url, `#panel=bandit&${BANDIT}&${HOAG}&${LR}`));
  });
  after(async () => { await env?.close(); });

  test('the tab bar shows the bandit panel from the hash and keeps the tuning page\'s keys apart', async () => {
    assert.equal(await page.getAttribute('#tab-bandit', 'aria-selected'), 'true');
    assert.equal(await page.isVisible('#panel-bandit'), true);
    assert.equal(await page.isVisible('#panel-tune'), false);
    const hash = await page.evaluate(() => location.hash);
    // The tuning page wrote its own keys at start without dropping the panels' keys.
    assert.match(hash, /bandit\.rounds=150/);
    assert.match(hash, /lr\.q=3/);
    assert.match(hash, /(^|[#&])tuner=mamba/);
    assert.equal(await page.inputValue('#bandit-rounds'), '150');
  });

  test('bandits: one regret series per algorithm (floor included), the report\'s length, finite values, bands', async () => {
    const { report, envelope, data, message, unknown } = await runPanel(page, 'bandit');
    assert.match(message, /^Done/, message);
    assert.equal(envelope.kind, 'bandit');
    assert.equal(envelope.status, 'complete');
    assert.deepEqual(unknown, []);
    const names = report.algorithms.map((a) => a.name);
    assert.deepEqual(names, ['d-ttts', 'd-ttts (most pulled)', 'ttts', 'successive-halving', 'hyperband', 'uniform']);
    assert.equal(report.rounds[report.rounds.length - 1], 150);
    for (const which of ['simple', 'cumulative']) {
      assert.deepEqual(data[which].map((s) => s.name), names);
      for (const [i, s] of data[which].entries()) {
        assert.equal(s.mean.length, report.rounds.length);
        assert.deepEqual(s.x, report.rounds);
        assert.ok(allFinite(s.mean) && allFinite(s.lo) && allFinite(s.hi), `${which} ${s.name}`);
        assert.ok(s.lo.every((v, k) => v <= s.mean[k] + 1e-12 && s.mean[k] <= s.hi[k] + 1e-12));
        const src = which === 'simple' ? report.algorithms[i].simple_regret : report.algorithms[i].cumulative_regret;
        assert.deepEqual(s.mean, src.mean);
      }
      // Cumulative regret never decreases for a stationary problem.
      if (which === 'cumulative') for (const s of data.cumulative) assert.ok(s.mean.every((v, k) => k === 0 || v >= s.mean[k - 1] - 1e-9));
    }
    // Charts drawn: two uPlot canvases, the per-arm charts of the first algorithm, one table row per algorithm.
    assert.equal(await page.locator('#bandit-chart-simple canvas').count(), 1);
    assert.equal(await page.locator('#bandit-chart-cumulative canvas').count(), 1);
    assert.equal(data.detail, 'pulls,posterior');
    assert.equal(await page.locator('#panel-bandit .detail canvas').count(), 2);
    assert.equal(await page.locator('#bandit-table tbody tr').count(), names.length);
    assert.equal(await page.getAttribute('#bandit-progress', 'value'), '1');
    // Regret against compute uses the report's compute units.
    await page.selectOption('#bandit-xaxis', 'compute');
    const xs = await page.evaluate(() => window.__tunelab.panels.bandit.panel.chartData().simple.map((s) => s.x));
    xs.forEach((x, i) => assert.deepEqual(x, report.algorithms[i].compute.units));
    await page.selectOption('#bandit-xaxis', 'rounds');
    // Exports: the config as the core reads it (floor and defaults filled in), the report, the charts.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#bandit-export-config')]);
    const cfg = JSON.parse(await streamText(await dl.createReadStream()));
    assert.equal(cfg.band, 1.96);
    assert.equal(cfg.rounds, 150);
    assert.deepEqual(cfg.algorithms.map((a) => a.kind), ['d-ttts', 'd-ttts', 'ttts', 'successive-halving', 'hyperband', 'uniform']);
    const [dr] = await Promise.all([page.waitForEvent('download'), page.click('#bandit-export-report')]);
    assert.deepEqual(JSON.parse(await streamText(await dr.createReadStream())).result.rounds, report.rounds); // the envelope
    const [dp] = await Promise.all([page.waitForEvent('download'), page.click('#bandit-export-png')]);
    const png = await streamBytes(await dp.createReadStream());
    assert.deepEqual([...png.subarray(1, 4)], [80, 78, 71]); // "PNG"
    assert.ok(png.length > 5000);
  });

  test('bandits: GP-UCB on a 1-D function draws the GP posterior with the chosen points', async () => {
    await page.evaluate(() => window.__tunelab.panels.bandit.load({ problem: 'function', function: 'wave1d', noise: 0.05, drift: 0, algos: ['gp-ucb', 'gp-ucb-stationary'], rounds: 25, repeats: 2, seed: 1 }));
    const { report, data, message } = await runPanel(page, 'bandit');
    assert.match(message, /^Done/, message);
    assert.deepEqual(report.algorithms.map((a) => a.name), ['gp-ucb', 'gp-ucb-stationary', 'random']);
    assert.equal(data.simple.length, 3);
    assert.equal(data.detail, 'gp_1d');
    const g = report.algorithms[0].charts.gp_1d;
    assert.equal(g.points.length, 25);
    assert.ok(allFinite(g.mean) && allFinite(g.lo) && allFinite(g.hi) && g.grid.length === g.mean.length);
  });

  test('bandits: a bad setting gives a readable message, from the form and from the core', async () => {
    await page.fill('#bandit-rounds', '0');
    await page.click('#bandit-run');
    assert.match(await page.textContent('#bandit-message'), /Fix the highlighted settings first: Rounds \(a whole number from 1 to 100000\)/);
    assert.equal(await page.getAttribute('#bandit-rounds', 'aria-invalid'), 'true');
    await page.fill('#bandit-rounds', '20');
    await page.selectOption('#bandit-problem', 'bernoulli');
    await page.fill('#bandit-means', '0.2, 1.5');
    const { message } = await runPanel(page, 'bandit');
    assert.match(message, /^The run failed: invalid configuration: .*(mean|\[0, 1\])/i, message);
  });

  test('bandits: the MNIST networks are the core presets\' problems, load back from them, and the poster\'s box runs on the real digits', async () => {
    const rows = await page.evaluate(async () => {
      const t = window.__tunelab; const bp = t.panels.bandit;
      const out = [];
      for (const name of ['mlp-mnist', 'mlp-mnist-poster', 'mlp-mnist-poster-adam']) {
        const state = await bp.load(name); // the core's preset, through fromConfig, into the form
        const mine = (await t.client.check(bp.panel.experiment(bp.panel.state))).config.problem;
        const core = (await t.client.check(await t.client.preset('bandit', name))).config.problem;
        out.push({ name, hpo: state.hpo, mine: JSON.stringify(mine), core: JSON.stringify(core) });
      }
      return out;
    });
    for (const r of rows) {
      assert.equal(r.hpo, r.name, 'the form names the preset\'s problem');
      assert.equal(r.mine, r.core, `${r.name}: the form's problem is the core preset's`);
    }
    assert.match(rows[2].core, /"solver":"adam"/);
    await page.evaluate(() => window.__tunelab.panels.bandit.load({ problem: 'hpo', hpo: 'mlp-mnist-poster', algos: ['d-ttts', 'successive-halving', 'uniform'], rounds: 20, repeats: 1, seed: 1 }));
    const { report, message } = await runPanel(page, 'bandit', 120_000);
    assert.match(message, /^Done/, message);
    assert.match(report.problem, /network on MNIST .*alpha; batch 200\)$/, report.problem);
  });

  test('bandits: Stop cancels mid-run, the page stays usable and the next run works', async () => {
    await page.evaluate(() => window.__tunelab.panels.bandit.load({ problem: 'reservoir', a: 1, b: 1, algos: ['ttts', 'uniform'], rounds: 100000, repeats: 8, seed: 1 }));
    const runs0 = await page.evaluate(() => window.__tunelab.panels.bandit.runs);
    await page.click('#bandit-run');
    // Curves of this run: the run count moves in the same task as `begin()` clears the last run's curves.
    await page.waitForFunction((n) => { const b = window.__tunelab.panels.bandit; return b.runs > n && (b.panel.curves[0]?.rounds.length ?? 0) > 0; }, runs0, { timeout: 30_000 });
    await page.click('#bandit-stop');
    await page.waitForFunction(() => !window.__tunelab.panels.bandit.running, null, { timeout: 10_000 });
    assert.match(await page.textContent('#bandit-message'), /^Stopped/);
    // The partial curves stay on the chart.
    const partial = await page.evaluate(() => window.__tunelab.panels.bandit.lastChartData.simple);
    assert.equal(partial.length, 2);
    assert.ok(partial[0].x.length > 0 && partial[0].x[partial[0].x.length - 1] < 100000);
    await page.fill('#bandit-rounds', '60');
    await page.fill('#bandit-repeats', '3');
    const { report, message } = await runPanel(page, 'bandit');
    assert.match(message, /^Done/, message);
    assert.equal(report.rounds[report.rounds.length - 1], 60);
  });

  test('HOAG: one suboptimality and validation series per method, trajectories, landscape, tolerances', async () => {
    await page.click('#tab-hoag');
    assert.equal(await page.isVisible('#panel-hoag'), true);
    const { report, data, message, unknown } = await runPanel(page, 'hoag');
    assert.match(message, /^Done/, message);
    assert.deepEqual(unknown, []);
    const names = report.methods.map((m) => m.name);
    assert.deepEqual(names, ['HOAG (exponential)', 'HOAG (cubic)', 'grid search', 'random search', 'Bayesian optimisation (EI)']);
    for (const key of ['suboptimality', 'validation']) {
      assert.deepEqual(data[key].map((s) => s.name), names);
      data[key].forEach((s, i) => {
        assert.equal(s.y.length, report.methods[i].trace.length);
        assert.ok(s.y.length > 0 && allFinite(s.y) && allFinite(s.x), `${key} ${s.name}`);
      });
    }
    assert.ok(data.suboptimality.every((s) => s.y.every((v) => v > 0)));
    assert.deepEqual(data.tolerances.map((t) => t.name), ['HOAG (exponential)', 'HOAG (cubic)']);
    data.tolerances.forEach((t, i) => assert.deepEqual(t.y, report.methods[i].tolerances));
    assert.deepEqual(data.landscape, { axes: [21], values: 21 });
    assert.equal(data.trajectories.length, names.length);
    assert.equal(await page.locator('#hoag-table tbody tr').count(), names.length);
  });

  test('HOAG: kernel ridge (two hyperparameters) draws the heat map with trajectories', async () => {
    const state = await page.evaluate(() => window.__tunelab.panels.hoag.load({ preset: 'kernel-ridge', n: 90, dim: 3, methods: ['hoag-exponential', 'random'], cost: 200, maxiter: 10, land: 12 }));
    assert.equal(state.problem, 'kernel-ridge');
    const { report, data, message } = await runPanel(page, 'hoag');
    assert.match(message, /^Done/, message);
    assert.deepEqual(report.hyper_names.length, 2);
    assert.deepEqual(data.landscape, { axes: [12, 12], values: 144 });
    assert.ok(data.trajectories.every((t) => t.hyper.every((h) => h.length === 2 && allFinite(h))));
  });

  test('LR schedules: loss and rate series per method, predicted bands, final losses', async () => {
    await page.click('#tab-lr-schedule');
    const { report, data, message, unknown } = await runPanel(page, 'lr-schedule');
    assert.match(message, /^Done/, message);
    assert.deepEqual(unknown, []);
    const names = report.methods.map((m) => m.name);
    assert.equal(names.length, 3 + 2 + 1); // 3 constant rates, 1 start x 2 decay factors, the dynamic tuner
    assert.match(names[names.length - 1], /^dynamic GP \(Q=3\)$/);
    assert.deepEqual(data.loss.map((s) => s.name), names);
    data.loss.forEach((s, i) => {
      assert.equal(s.y.length, report.methods[i].trace.length);
      assert.ok(allFinite(s.y) && allFinite(s.x), s.name);
      assert.equal(s.x[s.x.length - 1], 4 * 12);
    });
    assert.deepEqual(data.lr.map((s) => s.name), names);
    data.lr.forEach((s) => assert.ok(allFinite(s.y) && s.y.every((v) => v > 0)));
    assert.equal(data.bands.length, report.dynamic.boundary_steps.length);
    assert.ok(data.bands.every((b) => b.lo <= b.median && b.median <= b.hi));
    assert.deepEqual(data.final.map((f) => f.name), names);
    assert.equal(await page.locator('#lr-table tbody tr').count(), names.length);
  });

  test('LR schedules: a setting the core rejects gives its message', async () => {
    await page.fill('#lr-factors', '0.1, 2');
    const { message } = await runPanel(page, 'lr-schedule');
    assert.match(message, /^The run failed: invalid configuration: decay_factors must be in \(0, 1\)/, message);
    await page.fill('#lr-factors', '0.1, 0.01');
  });

  test('HOAG on an uploaded CSV: a bad label gets the core\'s message, a good file runs', async () => {
    await page.click('#tab-hoag');
    await page.evaluate(() => window.__tunelab.panels.hoag.load({ problem: 'logreg', data: 'upload', methods: ['hoag-exponential', 'grid'], cost: 200, maxiter: 8, land: 0 }));
    await page.click('#hoag-run');
    assert.match(await page.textContent('#hoag-message'), /Choose a CSV file first/);
    let s = 11;
    const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
    const rows = Array.from({ length: 120 }, () => { const a = u() * 4 - 2; const b = u() * 4 - 2; return [a.toFixed(4), b.toFixed(4), u() < 1 / (1 + Math.exp(-2 * a + b)) ? 1 : 0]; });
    const csv = (label) => ['a,b,' + label, ...rows.map((r, i) => `${r[0]},${r[1]},${label === 'y' ? r[2] : i % 3}`)].join('\n') + '\n';
    await page.setInputFiles('#hoag-file', { name: 'three.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('cls')) });
    await page.waitForFunction(() => /three\.csv: 120 rows/.test(document.getElementById('hoag-file-msg').textContent));
    assert.equal(await page.inputValue('#hoag-label'), 'cls');
    let r = await runPanel(page, 'hoag');
    assert.match(r.message, /^The run failed: data error: logistic regression needs a label with exactly two values, found 3/, r.message);
    await page.setInputFiles('#hoag-file', { name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('y')) });
    await page.waitForFunction(() => /good\.csv/.test(document.getElementById('hoag-file-msg').textContent));
    assert.equal(await page.inputValue('#hoag-label'), 'y');
    r = await runPanel(page, 'hoag');
    assert.match(r.message, /^Done/, r.message);
    assert.equal(r.report.n_train + r.report.n_test + r.report.n_validation, 120);
    assert.equal(r.report.n_features, 2);
    // Back to simulated data: the file is not used any more.
    await page.selectOption('#hoag-data', 'simulate');
    await page.fill('#hoag-n', '90');
    r = await runPanel(page, 'hoag');
    assert.equal(r.report.n_train + r.report.n_test + r.report.n_validation, 90);
  });

  test('bandits: D-TTTS tunes SG-MCMC configurations on an uploaded CSV by KSD; a bad file gets the core\'s message', async () => {
    await page.click('#tab-bandit');
    await page.evaluate(() => window.__tunelab.panels.bandit.load({
      problem: 'sgmcmc-ksd', data: 'upload', samplers: ['sgld', 'sgld-cv', 'sgnht-cv'], steplo: -5, stephi: -1.5, pool: 10, reps: 2, iters: 300,
      algos: ['d-ttts', 'successive-halving', 'uniform'], rounds: 120, repeats: 4, seed: 2,
    }));
    assert.equal(await page.isVisible('#bandit-samplers-sghmc'), true);
    await page.click('#bandit-run');
    assert.match(await page.textContent('#bandit-message'), /Choose a CSV file first/);
    let s = 5;
    const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
    const rows = Array.from({ length: 150 }, () => { const a = u() * 4 - 2; const b = u() * 4 - 2; return [a.toFixed(4), b.toFixed(4), u() < 1 / (1 + Math.exp(-1.5 * a + b)) ? 1 : 0]; });
    const csv = (label) => ['a,b,' + label, ...rows.map((r, i) => `${r[0]},${r[1]},${label === 'y' ? r[2] : i % 3}`)].join('\n') + '\n';
    await page.setInputFiles('#bandit-file', { name: 'three.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('cls')) });
    await page.waitForFunction(() => /three\.csv: 150 rows/.test(document.getElementById('bandit-file-msg').textContent));
    let r = await runPanel(page, 'bandit');
    assert.match(r.message, /^The run failed: data error: line 4, column "cls": label 2 is not 0 or 1; logistic regression needs 0\/1 labels/, r.message);
    await page.setInputFiles('#bandit-file', { name: 'good.csv', mimeType: 'text/csv', buffer: Buffer.from(csv('y')) });
    await page.waitForFunction(() => /good\.csv/.test(document.getElementById('bandit-file-msg').textContent));
    r = await runPanel(page, 'bandit');
    assert.match(r.message, /^Done/, r.message);
    assert.deepEqual(r.unknown, []);
    assert.match(r.report.problem, /SG-MCMC configurations by KSD: logistic on good\.csv, pool of 10 x 2 runs/);
    assert.deepEqual(r.report.algorithms.map((a) => a.name), ['d-ttts', 'successive-halving', 'uniform']);
    assert.equal(r.report.algorithms[0].compute.unit, 'gradient evaluations');
    for (const which of ['simple', 'cumulative']) {
      for (const x of r.data[which]) {
        assert.ok(allFinite(x.mean) && allFinite(x.lo) && allFinite(x.hi));
        // bands are clipped to the repeats' range: never below 0
        assert.ok(x.lo.every((v, k) => v >= 0 && v <= x.mean[k] + 1e-12), `${which} ${x.name}`);
      }
    }
    // every recommendation names its configuration (sampler, step, batch, KSD); the detail lists the most pulled ones
    for (const a of r.report.algorithms) for (const rec of a.recommended) assert.match(rec.label, /^sg(ld|nht)(-cv)? h=\S+ n=\d+ \((KSD \S+|diverged)\)$/);
    assert.match(await page.textContent('#bandit-table tbody tr:first-child td.rec'), /h=.* value /);
    assert.ok(await page.locator('#panel-bandit .arm-configs tbody tr').count() >= 3);
    // the uploaded file and the reservoir settings are in the config the core ran
    const p = r.report.config.problem;
    assert.deepEqual([p.data.source, p.data.name, p.data.label, p.pool, p.replicates], ['upload', 'good.csv', 'y', 10, 2]);
    assert.deepEqual(p.samplers, ['sgld', 'sgld-cv', 'sgnht-cv']);
    // the URL keeps the reservoir settings
    assert.match(await page.evaluate(() => location.hash), /bandit\.problem=sgmcmc-ksd.*bandit\.pool=10/);
    // the reservoir settings (a whole group) show only for this problem
    assert.equal(await page.isVisible('#panel-bandit fieldset[data-keys^="samplers"]'), true);
    await page.selectOption('#bandit-problem', 'reservoir');
    assert.equal(await page.isVisible('#panel-bandit fieldset[data-keys^="samplers"]'), false);
    assert.equal(await page.isVisible('#bandit-a'), true);
  });

  test('step size: GP-UCB and the fixed steps, one KSD and step series each, window by window', async () => {
    await page.click('#tab-step-size');
    await page.evaluate(() => window.__tunelab.panels['step-size'].load({ n: 200, d: 3, windows: 8, iters: 60, hlo: -5, hhi: -2, fixed: '-4, -3', seed: 2 }));
    const { report, data, message, unknown } = await runPanel(page, 'step-size');
    assert.match(message, /^Done/, message);
    assert.deepEqual(unknown, []);
    assert.deepEqual(data.runs.map((r) => r.name), ['GP-UCB', ...report.fixed.map((f) => f.name)]);
    assert.equal(data.runs.length, 3);
    for (const r of data.runs) {
      assert.equal(r.steps.length, 8);
      assert.ok(allFinite(r.steps) && r.steps.every((h) => h > 0));
      assert.equal(r.ksd.length, 8);
    }
    assert.deepEqual(data.runs[0].steps, report.gp_ucb.steps);
    // Window 0 is a pilot at the middle of the box with no reward: the GP has one point per later window.
    assert.ok(data.gp && data.gp.points === 7, JSON.stringify(data.gp));
    assert.equal(await page.locator('#step-table tbody tr').count(), 3);
  });

  test('the tune panel is in the registry with the same hook: load(state | config | preset) then run()', async () => {
    const names = await page.evaluate(() => Object.keys(window.__tunelab.panels));
    assert.deepEqual(names, ['tune', 'bandit', 'hoag', 'lr-schedule', 'step-size', 'tvo']);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.section.id), 'panel-tune');
    // A preset with a partial state over it (the lessons' format), then run.
    const state = await page.evaluate(() => window.__tunelab.panels.tune.load({ preset: 'demo', n: 500, d: 3, hfrom: -5, hto: -3, budget: 100000, msamples: 200 }));
    assert.equal(await page.getAttribute('#tab-tune', 'aria-selected'), 'true');
    assert.equal(await page.isVisible('#panel-tune'), true);
    assert.deepEqual([state.n, state.d, state.hfrom, state.hto, state.tuner], [500, 3, -5, -3, 'mamba']);
    const envelope = await page.evaluate(() => window.__tunelab.panels.tune.run());
    assert.equal(envelope.kind, 'tune');
    assert.equal(envelope.status, 'complete', JSON.stringify(await page.evaluate(() => window.__tunelab.errors)));
    assert.equal(envelope.result.arms.length, 10);
    const hook = await page.evaluate(() => { const t = window.__tunelab.panels.tune; return { runs: t.runs, running: t.running, last: t.lastReport?.kind, chart: t.lastChartData?.length, top: window.__tunelab.lastResult.report.arms.length }; });
    assert.deepEqual(hook, { runs: 1, running: false, last: 'tune', chart: 11, top: 10 });
    // A core config with its kind.
    const s2 = await page.evaluate(async () => window.__tunelab.panels.tune.load(await window.__tunelab.client.preset('tune', 'gaussian')));
    assert.deepEqual([s2.model, s2.data, s2.unit], ['gaussian', 'none', 'iterations']);
  });

  test('settings survive a reload; load() switches panels and fills the settings; no foreign requests', async () => {
    await page.click('#tab-hoag');
    await page.selectOption('#hoag-problem', 'kernel-ridge');
    await page.fill('#hoag-cost', '777');
    await page.click('#tab-lr-schedule');
    await page.selectOption('#lr-optimizer', 'adam');
    await page.reload();
    await page.waitForFunction(() => window.__tunelab?.panels?.hoag != null);
    assert.equal(await page.getAttribute('#tab-lr-schedule', 'aria-selected'), 'true');
    assert.equal(await page.inputValue('#lr-optimizer'), 'adam');
    assert.equal(await page.inputValue('#hoag-problem'), 'kernel-ridge');
    assert.equal(await page.inputValue('#hoag-cost'), '777');
    const state = await page.evaluate(() => window.__tunelab.panels.bandit.load('tvo-schedule'));
    assert.equal(await page.getAttribute('#tab-bandit', 'aria-selected'), 'true');
    assert.equal(state.problem, 'tvo-schedule');
    assert.deepEqual(state.algos, ['gp-ucb', 'gp-ucb-noninvariant', 'gp-ucb-stationary', 'random']);
    assert.equal(state.rounds, 80);
    // Keyboard: arrows move between tabs.
    await page.focus('#tab-bandit');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getAttribute('#tab-tune', 'aria-selected'), 'true');
    assert.equal(await page.isVisible('#panel-tune'), true);
    assert.deepEqual(foreignRequests(requests), []);
    assert.deepEqual(consoleErrors, []);
  });
});

describe('tuner panels without isolation (single thread, Stop replaces the worker)', () => {
  let env; let page; let consoleErrors;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block' });
    ({ page, consoleErrors } = await openPage(env.context, env.url, `#panel=hoag&${HOAG}`));
  });
  after(async () => { await env?.close(); });

  test('cancel a long HOAG run, then a short run completes', async () => {
    assert.equal((await page.evaluate(() => window.__tunelab.info)).flavour, 'single');
    await page.evaluate(() => window.__tunelab.panels.hoag.load({ preset: 'kernel-ridge' }));
    await page.click('#hoag-run');
    await page.waitForFunction(() => (window.__tunelab.panels.hoag.panel.methods?.length ?? 0) > 0, null, { timeout: 30_000 });
    await page.click('#hoag-stop');
    await page.waitForFunction(() => !window.__tunelab.panels.hoag.running, null, { timeout: 10_000 });
    assert.match(await page.textContent('#hoag-message'), /^Stopped/);
    await page.evaluate(() => window.__tunelab.panels.hoag.load({ preset: 'logreg', n: 150, dim: 5, methods: ['hoag-exponential', 'grid'], cost: 200, maxiter: 8, land: 0 }));
    const { report, data, message } = await runPanel(page, 'hoag');
    assert.match(message, /^Done/, message);
    assert.equal(report.methods.length, 2);
    assert.equal(data.suboptimality.length, 2);
    assert.equal(data.landscape, null);
    assert.deepEqual(consoleErrors, []);
  });
});
