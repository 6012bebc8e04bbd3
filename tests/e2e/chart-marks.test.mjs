// End-to-end (page without isolation, pkg/): the SG-MCMC score chart with 56 arms reads at a glance. The arms of
// round 1 all end at the same compute; the chart spreads their markers sideways so that none covers another (the
// test measures the drawn centres: no two closer than the sum of their radii), pruned arms are drawn with open
// markers in their own colour, and every marker and text drawn has enough contrast against the chart's background
// (WCAG 2.1: 3:1 for graphics, 4.5:1 for text), computed from the colours drawn and checked against the canvas'
// pixels at the filled markers' centres.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, waitRunDone } from './helpers.mjs';

/** 14 step sizes x 4 batch sizes = 56 arms (the paper grid's shape), MAMBA eta 3: 56 -> 18 -> 6 -> 2. */
const ARMS56 = '#data=simulate&n=400&d=3&dseed=0&model=logistic&sampler=sgld&hfrom=-7.5&hto=-1&hby=0.5&batch=1,0.1,0.01,0.001'
  + '&tuner=mamba&eta=3&unit=grad_evals&budget=60000&metric=ksd&msamples=60&thin=5&start=map&seed=3';

/** WCAG contrast of two CSS colours `rgb(...)` / `#rrggbb`. */
function contrast(a, b) {
  const rgb = (c) => (c.startsWith('#') ? [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16)) : c.match(/[\d.]+/g).slice(0, 3).map(Number));
  const lum = (c) => { const [r, g, bl] = rgb(c).map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * bl; };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
  describe(`score chart with 56 arms (${viewport.width} x ${viewport.height})`, () => {
    let env; let page;
    before(async () => {
      env = await launch({ isolation: false, serviceWorkers: 'block', viewport });
      ({ page } = await openPage(env.context, env.url, ARMS56));
      const runs = await page.evaluate(() => window.__tunelab.runs);
      await page.click('#run');
      await waitRunDone(page, runs + 1);
      // The chart's last redraws (its size once the results below it are laid out) come in the next frames.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
    });
    after(async () => { await env?.close(); });

    test('round-1 markers do not overlap, all inside the plot; pruned arms open, in their colour', async () => {
      const v = await page.evaluate(() => {
        const c = window.__tunelab.panels.tune.panel.scoreChart;
        const dpr = window.devicePixelRatio || 1;
        return { drawn: c.drawn, arms: c.arms.map((a) => ({ id: a.id, status: a.status, first: a.points[0]?.[0] })), w: c.u.bbox.width / dpr, h: c.u.bbox.height / dpr };
      });
      assert.equal(v.arms.length, 56);
      const round1 = v.drawn.filter((m) => m.k === 0);
      assert.equal(round1.length, 56, 'every arm has its round-1 marker drawn');
      // All round-1 scores stand at about one compute (within 5%: each batch size's chunks end apart): without
      // the spread they would share one column.
      const xs = v.arms.map((a) => a.first);
      assert.ok(Math.max(...xs) / Math.min(...xs) < 1.05, JSON.stringify(xs));
      let closest = Infinity;
      for (let i = 0; i < round1.length; i++) {
        for (let j = i + 1; j < round1.length; j++) {
          const a = round1[i]; const b = round1[j];
          const d = Math.hypot(a.x - b.x, a.y - b.y);
          closest = Math.min(closest, d - a.r - b.r);
          assert.ok(d >= a.r + b.r, `arms #${a.arm} and #${b.arm}: centres ${d.toFixed(2)} px apart, radii ${a.r.toFixed(2)} + ${b.r.toFixed(2)}`);
        }
      }
      for (const m of v.drawn) assert.ok(m.x - m.r >= 0 && m.x + m.r <= v.w && m.y >= 0 && m.y <= v.h, `arm #${m.arm} at (${m.x}, ${m.y}) outside the ${v.w} x ${v.h} plot`);
      const status = new Map(v.arms.map((a) => [a.id, a.status]));
      const pruned = v.drawn.filter((m) => status.get(m.arm) === 'pruned');
      assert.ok(pruned.length >= 38, `pruned markers ${pruned.length}`);
      assert.ok(pruned.every((m) => m.hollow), 'pruned arms have open markers');
      assert.ok(v.drawn.filter((m) => status.get(m.arm) !== 'pruned' && status.get(m.arm) !== 'diverged').every((m) => !m.hollow), 'arms still in the race have filled markers');
      assert.ok(closest >= 0, `closest gap ${closest}`);
    });

    test('every marker >= 3:1 and every text >= 4.5:1 against the chart background, as drawn', async () => {
      const v = await page.evaluate(() => {
        const c = window.__tunelab.panels.tune.panel.scoreChart;
        const dpr = window.devicePixelRatio || 1;
        // The chart's background: the first ancestor of the canvas with a background colour.
        let e = c.u.ctx.canvas; let bg = 'rgba(0, 0, 0, 0)';
        while (e && /rgba\(0, 0, 0, 0\)|transparent/.test(bg)) { bg = getComputedStyle(e).backgroundColor; e = e.parentElement; }
        const ctx = c.u.ctx;
        const parse = (col) => { const k = document.createElement('canvas').getContext('2d'); k.fillStyle = col; const h = k.fillStyle; return h.startsWith('#') ? [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) : h.match(/\d+/g).slice(0, 3).map(Number); };
        // The filled markers' centre pixels, against the colour the chart says it drew.
        const { left, top } = c.u.bbox;
        const off = c.drawn.filter((m) => !m.hollow).map((m) => {
          const px = Array.from(ctx.getImageData(Math.round(left + m.x * dpr), Math.round(top + m.y * dpr), 1, 1).data.slice(0, 3));
          const want = parse(m.color);
          return { arm: m.arm, px, want, d: Math.max(...want.map((w, i) => Math.abs(w - px[i]))) };
        });
        const axisInk = c.u.axes.map((a) => a.stroke);
        return { bg, colors: [...new Set(c.drawn.map((m) => m.color))], texts: c.texts, axisInk: axisInk.map((s) => (typeof s === 'function' ? s(c.u) : s)), off };
      });
      assert.match(v.bg, /^rgb/);
      for (const col of v.colors) assert.ok(contrast(col, v.bg) >= 3, `marker colour ${col}: ${contrast(col, v.bg).toFixed(2)}:1 on ${v.bg}`);
      assert.ok(v.texts.length >= 3, JSON.stringify(v.texts));
      for (const t of v.texts) assert.ok(contrast(t.color, v.bg) >= 4.5, `"${t.text}" in ${t.color}: ${contrast(t.color, v.bg).toFixed(2)}:1`);
      for (const ink of v.axisInk) assert.ok(contrast(ink, v.bg) >= 4.5, `axis text ${ink}`);
      const bad = v.off.filter((o) => o.d > 8);
      assert.deepEqual(bad, [], 'filled markers are drawn in the colour the chart reports');
      assert.ok(v.off.length >= 4, `filled markers checked: ${v.off.length}`);
    });

    test('heat map view: the chosen arm\'s label is drawn whole inside the canvas', async () => {
      await page.check('#view-heat');
      await page.waitForFunction(() => window.__tunelab.heat?.chosen != null);
      const h = await page.evaluate(() => window.__tunelab.heat);
      assert.match(h.chosen.text, /^◀ chosen #\d+$/);
      assert.ok(h.chosen.x + h.chosen.w <= h.chosen.canvasW, JSON.stringify(h.chosen));
      await page.check('#view-lines');
    });
  });
}
