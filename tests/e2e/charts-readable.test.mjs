// End-to-end (page without isolation, pkg/): every chart readable at a glance and exported whole (issue 26).
// Small runs of the tune, TVO, LR-schedule, HOAG, bandit and step-size panels, then, on every line chart of each panel:
// no two series are told apart by colour alone (each has its own dash / marker / direct label, or they are one
// legend group), the x axis is fitted to the data, line colours have a contrast of at least 3:1 on white; TVO's
// Figure 4 shows differences from the linear schedule and its schedule chart reaches the last epoch; the LR
// chart singles out the best few schedules and greys the others under one legend entry. Exports: the SVG holds
// every legend entry of every chart as text, with one title per chart and the settings as a caption; the PNG
// (decoded in the page) has every legend swatch drawn in its colour, its label inked, and is as tall as the
// layout that puts the whole legend in.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone } from './helpers.mjs';

const TUNE = '#data=simulate&n=500&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-5&hto=-2.5&hby=0.5&batch=0.1,0.02'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=100000&metric=ksd&msamples=100&thin=5&start=map&seed=3';
const HOAG8 = ['hoag-exponential', 'hoag-quadratic', 'hoag-cubic', 'hoag-exact', 'grid', 'random', 'bo', 'iter-diff'];

/** Runs a panel with `config` loaded (its load() hook) and waits for it to finish. */
async function runPanel(page, name, config) {
  await page.evaluate(([n, c]) => window.__tunelab.panels[n].load(c), [name, config]);
  const out = await page.evaluate((n) => window.__tunelab.panels[n].run(), name);
  assert.equal(out?.status, 'complete', JSON.stringify(out).slice(0, 300));
}

/**
 * Every line chart of a panel (LineChart instances among the panel's fields): per chart its series' styles,
 * its x scale and its data's x extent.
 */
const lineCharts = (page, name) => page.evaluate(async (n) => {
  const { LineChart } = await import('/www/shared/charts.js');
  const p = window.__tunelab.panels[n].panel;
  return Object.entries(p).filter(([, v]) => v instanceof LineChart && v.u).map(([key, c]) => {
    const xs = c.u.data[0].filter((x, i) => c.index.some((k) => c.u.data[k][i] != null));
    return {
      key, xLog: c.xLog, min: c.u.scales.x.min, max: c.u.scales.x.max, dataMin: Math.min(...xs), dataMax: Math.max(...xs),
      series: c.series.map((s) => ({ label: s.label, color: s.color, dash: s.dash ?? [], mark: s.mark ?? (s.points ? 'circle' : ''), direct: c.labelled ? s.direct ?? '' : '', group: s.group ?? '' })),
    };
  });
}, name);

/** The first series pair on a chart that only colour tells apart (null when there is none). */
function colourOnly(chart) {
  const seen = new Map();
  for (const s of chart.series) {
    if (s.group && seen.has(`group:${s.group}`)) continue;
    const key = s.group ? `group:${s.group}` : JSON.stringify([s.dash, s.mark, s.direct]);
    if (seen.has(key)) return [seen.get(key), s.label];
    seen.set(key, s.label);
  }
  return null;
}

/** Checks the line charts of a panel: no colour-only pairs, fitted x axes, contrast; returns them. */
async function checkLineCharts(page, name) {
  const charts = await lineCharts(page, name);
  assert.ok(charts.length >= 1, `${name}: no line chart drawn`);
  const contrast = await page.evaluate(async (cs) => {
    const { contrastOnWhite } = await import('/www/shared/charts.js');
    return cs.flatMap((c) => c.series.filter((s) => !s.group).map((s) => ({ label: s.label, c: contrastOnWhite(s.color) })));
  }, charts);
  for (const c of charts) {
    assert.equal(colourOnly(c), null, `${name}.${c.key}: series told apart by colour alone: ${JSON.stringify(colourOnly(c))}`);
    if (!c.xLog && Number.isFinite(c.dataMin) && c.dataMax > c.dataMin) {
      assert.equal(c.min, c.dataMin, `${name}.${c.key}: x axis starts at ${c.min}, data at ${c.dataMin}`);
      assert.equal(c.max, c.dataMax, `${name}.${c.key}: x axis ends at ${c.max}, data at ${c.dataMax}`);
    }
  }
  for (const x of contrast) assert.ok(x.c >= 3, `${name}: "${x.label}" has contrast ${x.c.toFixed(2)} on white`);
  return charts;
}

/** Downloads a panel's export (button id suffix `png` or `charts-svg`) as a Buffer. */
async function exported(page, prefix, which) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#${prefix}export-${which}`)]);
  const chunks = [];
  for await (const c of await dl.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * The PNG export checked against its layout, in the page: its size, and for every legend entry the swatch's
 * pixels in the entry's colour (a ramp: several colours) and ink where its label is.
 */
const checkPng = (page, name, png) => page.evaluate(async ([n, b64]) => {
  const { exportLayout } = await import('/www/shared/charts.js');
  const p = window.__tunelab.panels[n].panel;
  const dpr = window.devicePixelRatio || 1;
  const L = exportLayout(p.canvases(), p.exportFooter(), dpr, p.exportCaption());
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const bmp = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (c.getContext('2d'));
  ctx.drawImage(bmp, 0, 0);
  const px = (x, y) => Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
  const parse = (col) => { const k = document.createElement('canvas').getContext('2d'); k.fillStyle = col; const h = k.fillStyle; return h.startsWith('#') ? [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) : h.match(/\d+/g).slice(0, 3).map(Number); };
  const bad = [];
  let entries = 0;
  for (const b of L.blocks) {
    for (const it of b.items) {
      entries++;
      const x = it.x + (it.mark ? 12 * dpr : 0);
      if (it.ramp.length > 1) {
        const cols = [0.1, 0.5, 0.9].map((f) => px(x + f * 16 * dpr, it.y).join(','));
        if (new Set(cols).size < 3) bad.push(`${it.label}: ramp ${cols.join(' / ')}`);
      } else if (!it.faded) {
        const want = parse(it.color);
        // The line's start; for a series of points without a line, any pixel of its marker (a ring is hollow).
        const near = (got) => want.every((v, i) => Math.abs(v - got[i]) <= 40);
        const spots = it.noLine ? [...Array(9).keys()].flatMap((i) => [...Array(9).keys()].map((j) => [x + (4 + i) * dpr, it.y + (j - 4) * dpr])) : [[x + 2 * dpr, it.y]];
        if (!spots.some(([sx, sy]) => near(px(sx, sy)))) bad.push(`${it.label}: swatch ${px(...spots[0])} not ${want}`);
      }
      // Ink in the label's first 20 px.
      let ink = 0;
      for (let dx = 0; dx < 20 * dpr; dx++) for (let dy = -4 * dpr; dy <= 4 * dpr; dy++) { const [r, g, bb] = px(x + 20 * dpr + dx, it.y + dy); if (r + g + bb < 450) ink++; }
      if (ink < 4) bad.push(`${it.label}: no ink (${ink})`);
    }
  }
  const legendRows = L.blocks.reduce((s, b) => s + new Set(b.items.map((it) => it.y)).size, 0);
  return { w: bmp.width, h: bmp.height, lw: L.w, lh: L.h, bad, entries, legendRows, caption: L.captionLines.length };
}, [name, png.toString('base64')]);

/** The SVG export's texts by class. */
const svgTexts = (svg, cls) => [...svg.matchAll(new RegExp(`<text class="${cls}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1].replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"'));

/** Every legend entry's label on the panel's page (glyphs before the swatch left out). */
const pageLegend = (page, name) => page.evaluate((n) => [...document.querySelectorAll(`#panel-${n} .legend > .item`)].map((i) => (i.textContent ?? '').trim().slice((i.querySelector('.mark')?.textContent ?? '').length).trim()), name);

/** Both exports of a panel: the SVG's legend, titles and caption; the PNG's pixels. */
async function checkExports(page, name, prefix) {
  const svg = (await exported(page, prefix, 'charts-svg')).toString('utf8');
  const labels = await pageLegend(page, name);
  assert.ok(labels.length >= 2, JSON.stringify(labels));
  const legendTexts = svgTexts(svg, 'legend');
  for (const l of labels) assert.ok(legendTexts.includes(l), `${name}: legend entry "${l}" missing from the SVG`);
  const titles = svgTexts(svg, 'title');
  assert.equal(new Set(titles).size, titles.length, `${name}: titles repeat: ${JSON.stringify(titles)}`);
  const caption = svgTexts(svg, 'caption').join(' ');
  assert.match(caption, /^Settings: /, caption);
  const png = await exported(page, prefix, 'png');
  const r = await checkPng(page, name, png);
  assert.deepEqual(r.bad, [], `${name}: PNG legend ${JSON.stringify(r.bad)}`);
  assert.equal(r.entries, legendTexts.length, `${name}: PNG and SVG legends differ`);
  assert.deepEqual([r.w, r.h], [r.lw, r.lh], `${name}: PNG size vs its layout`);
  assert.ok(r.caption >= 1);
  return { svg, png: r, labels, caption };
}

describe('readable charts and whole exports (1100 x 900)', () => {
  let env; let page;
  before(async () => {
    env = await launch({ isolation: false, serviceWorkers: 'block', viewport: { width: 1100, height: 900 } });
    ({ page } = await openPage(env.context, env.url, TUNE));
  });
  after(async () => { await env?.close(); });

  test('TVO: Figure 4 as differences from linear with bands over seeds; β lines reach the last epoch; exports whole', async () => {
    await page.click('#tab-tvo');
    await runPanel(page, 'tvo', { epochs: 4, window: 2, methods: ['gp-ucb', 'random', 'linear'], repeats: 2, d: 3, hidden: [8], test_size: 100, eval_size: 100, curve_k: 5, iwae_k: 10, seed: 2 });
    const charts = await checkLineCharts(page, 'tvo');
    const v = await page.evaluate(() => {
      const p = window.__tunelab.panels.tvo.panel;
      const r = p.report;
      const at = (m, rep, w) => r.runs.find((t) => t.method === m && t.repeat === rep).windows[w].test_log_px;
      // gp-ucb's mean difference from linear at each window, from the report.
      const want = r.runs.find((t) => t.method === 'gp-ucb').windows.map((_, w) => [0, 1].map((rep) => at('gp-ucb', rep, w) - at('linear', rep, w)).reduce((a, b) => a + b, 0) / 2);
      const k = p.lp.series.findIndex((s) => s.label === 'gp-ucb');
      const lin = p.lp.series.findIndex((s) => s.label.startsWith('linear'));
      return { want, got: p.lp.u.data[p.lp.index[k]].filter((y) => y != null), linear: p.lp.u.data[p.lp.index[lin]].filter((y) => y != null),
        bands: p.lp.series.filter((s) => s.band).map((s) => s.label), yLabel: p.lp.yLabel, betaMax: p.beta.u.scales.x.max };
    });
    assert.equal(v.got.length, 2);
    v.want.forEach((d, i) => assert.ok(Math.abs(v.got[i] - d) < 1e-9, `window ${i}: ${v.got[i]} vs ${d}`));
    assert.deepEqual(v.linear, [0, 0]);
    assert.deepEqual(v.bands.sort(), ['gp-ucb', 'random']);
    assert.match(v.yLabel, /− linear/);
    assert.equal(v.betaMax, 4, 'the schedule chart ends at the last epoch');
    assert.ok(charts.find((c) => c.key === 'lp').series.every((s) => s.direct), 'every Figure 4 line has a direct label');
    // The chart says which estimate it shows beside the table's (K = 5 draws per window against the table's 10).
    assert.match(await page.textContent('#tvo-logpx-help'), /the curves use K = 5 IWAE draws per image after each window; the final table below uses K = 10/);
    await checkExports(page, 'tvo', 'tvo-');
  });

  test('LR schedules: the best few in colour with labels, the others grey under one legend entry; exports whole', async () => {
    await page.click('#tab-lr-schedule');
    await runPanel(page, 'lr-schedule', { problem: 'noisy-quadratic', qdim: 10, constant: 6, decays: 2, factors: '0.1, 0.01', dynamic: true, q: 3, intervals: 4, steps: 12, batch: 8, seed: 2 });
    const charts = await checkLineCharts(page, 'lr-schedule');
    const loss = charts.find((c) => c.key === 'loss');
    const grey = loss.series.filter((s) => s.group === 'others');
    const named = loss.series.filter((s) => !s.group && s.direct);
    assert.ok(grey.length >= 5, `grey lines: ${grey.length}`);
    assert.ok(named.length <= 5 && named.some((s) => s.direct === 'dynamic'), JSON.stringify(named));
    const labels = await pageLegend(page, 'lr-schedule');
    assert.equal(labels.filter((l) => /other schedules/.test(l)).length, 1, JSON.stringify(labels));
    assert.ok(labels.length <= 7, `legend of ${labels.length} entries`);
    await checkExports(page, 'lr-schedule', 'lr-');
  });

  test('HOAG, 8 methods: markers tell them apart; the PNG draws every legend entry on wrapped rows', async () => {
    await page.click('#tab-hoag');
    await runPanel(page, 'hoag', { problem: 'logreg', data: 'simulate', n: 120, dim: 4, methods: HOAG8, cost: 60, maxiter: 4, land: 9 });
    await checkLineCharts(page, 'hoag');
    const { png, labels } = await checkExports(page, 'hoag', 'hoag-');
    assert.equal(new Set(labels).size, 8, JSON.stringify(labels));
    assert.ok(png.legendRows >= 2, `legend rows ${png.legendRows}`);
  });

  test('bandit: regret charts with markers, titles per chart, the posterior view of many arms without error bars', async () => {
    await page.click('#tab-bandit');
    await runPanel(page, 'bandit', { problem: 'reservoir', a: 1, b: 1, algos: ['d-ttts', 'ttts', 'successive-halving', 'uniform'], rounds: 120, repeats: 3, seed: 3 });
    await checkLineCharts(page, 'bandit');
    const { svg } = await checkExports(page, 'bandit', 'bandit-');
    const titles = svgTexts(svg, 'title');
    assert.ok(titles.some((t) => /Simple regret/.test(t)) && titles.some((t) => /Cumulative regret/.test(t)), JSON.stringify(titles));
  });

  test('step size: GP-UCB and the fixed steps told apart by marker as well as colour; exports whole', async () => {
    await page.click('#tab-step-size');
    await runPanel(page, 'step-size', { n: 200, d: 3, windows: 8, iters: 60, hlo: -5, hhi: -2, fixed: '-4, -3', seed: 2 });
    await checkLineCharts(page, 'step-size');
    await checkExports(page, 'step-size', 'step-');
  });

  test('tune: the score chart\'s x axis fits its markers, step colours keep 3:1 on white, round labels sit above the plot', async () => {
    await page.click('#tab-tune');
    const runs = await page.evaluate(() => window.__tunelab.runs);
    await page.click('#run');
    await waitRunDone(page, runs + 1);
    const v = await page.evaluate(async () => {
      const { contrastOnWhite, lineRamp } = await import('/www/shared/charts.js');
      const c = window.__tunelab.panels.tune.panel.scoreChart;
      const xs = c.arms.flatMap((a) => a.points.map((p) => p[0])).filter((x) => x > 0);
      const ramp = Array.from({ length: 41 }, (_, i) => contrastOnWhite(lineRamp(i / 40)));
      const marks = c.drawn;
      return { min: c.u.scales.x.min, max: c.u.scales.x.max, dMin: Math.min(...xs), dMax: Math.max(...xs), ramp: Math.min(...ramp), arms: Math.min(...c.arms.map((a) => contrastOnWhite(c.colorOf(a)))), top: c.u.bbox.top / (window.devicePixelRatio || 1),
        w: c.u.bbox.width / (window.devicePixelRatio || 1), lo: Math.min(...marks.map((m) => m.x - m.r)), hi: Math.max(...marks.map((m) => m.x + m.r)) };
    });
    assert.ok(v.min <= v.dMin && v.max >= v.dMax, JSON.stringify(v));
    // The x axis fits the markers as drawn (a round's markers spread sideways, score-chart.js): all inside, and
    // at most 5% of the plot (or 12 px) empty at either end.
    assert.ok(v.lo >= 0 && v.hi <= v.w, JSON.stringify(v));
    assert.ok(v.lo <= Math.max(0.05 * v.w, 12) && v.w - v.hi <= Math.max(0.05 * v.w, 12), JSON.stringify(v));
    assert.ok(v.ramp >= 3 && v.arms >= 3, JSON.stringify(v));
    assert.ok(v.top >= 30, `the strip above the plot for the round labels: ${v.top}px`);
    // The score chart's own SVG export carries the settings caption too.
    const svg = (await exported(page, '', 'svg')).toString('utf8');
    assert.match(svgTexts(svg, 'caption').join(' '), /^Settings: data\.source: simulate/);
  });
});
