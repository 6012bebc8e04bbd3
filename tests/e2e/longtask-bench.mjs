// Measures the main thread's long tasks while a tune-panel preset runs and its results render (issue 26 item 2):
// a PerformanceObserver({type: 'longtask'}) installed before Run, and a CDP CPU profile whose samples inside
// each long task name the functions it spent its time in. Wall time on a shared machine, so a measurement,
// not a test (tests/e2e/longtask.test.mjs asserts what is stable).
//   node tests/e2e/longtask-bench.mjs [preset] [budget] [single]   (single: the preset's model as one tune run,
//   not a comparison: no exact reference, so a quick run that still renders the preset's posterior; LT_ROOT=dir serves another build)
import { launch, openPage, waitRunDone, waitArmCount } from './helpers.mjs';

const preset = process.argv[2] ?? 'paper-logreg-page';
const budget = process.argv[3];
const single = process.argv[4] === 'single';
const env = await launch({ isolation: true, root: process.env.LT_ROOT });
try {
  const { page } = await openPage(env.context, env.url);
  await page.selectOption('#preset', preset);
  await waitArmCount(page, /arms/);
  if (single && await page.isChecked('#compare')) await page.click('#compare');
  if (budget) { await page.fill('#budget', budget); await page.dispatchEvent('#budget', 'change'); }
  await page.evaluate(() => {
    /** @type {any} */ (window).__lt = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) /** @type {any} */ (window).__lt.push({ start: e.startTime, dur: e.duration }); })
      .observe({ type: 'longtask', buffered: true });
  });
  const cdp = await env.context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
  await cdp.send('Profiler.start');
  const t0 = await page.evaluate(() => performance.now());
  const w0 = Date.now();
  await page.click('#run');
  await waitRunDone(page, 1, 600_000);
  await page.waitForTimeout(1500);
  const { profile } = await cdp.send('Profiler.stop');
  const tasks = await page.evaluate(() => /** @type {any} */ (window).__lt);
  console.log(`${preset}${single ? ' (single run)' : ''}${budget ? ` budget ${budget}` : ''}: run ${((Date.now() - w0) / 1000).toFixed(1)} s, ${tasks.length} long tasks`);
  // Sample times (ms, profile clock) -> page clock: the profile starts at about t0.
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/^.*\/www\//, 'www/')}:${n.callFrame.lineNumber + 1}`;
  let t = profile.startTime / 1000;
  const base = t;
  const samples = profile.samples.map((id, i) => { t += profile.timeDeltas[i] / 1000; return { id, at: t - base + t0 }; });
  for (const task of tasks.sort((a, b) => b.dur - a.dur).slice(0, 8)) {
    const self = new Map(); const incl = new Map();
    for (let i = 0; i < samples.length - 1; i++) {
      const s = samples[i];
      if (s.at < task.start || s.at > task.start + task.dur) continue;
      const dt = samples[i + 1].at - s.at;
      const n = byId.get(s.id);
      self.set(name(n), (self.get(name(n)) ?? 0) + dt);
      const seen = new Set();
      for (let id = s.id; id != null; id = parent.get(id)) {
        const nm = name(byId.get(id));
        if (!/www\//.test(nm) || seen.has(nm)) continue;
        seen.add(nm); incl.set(nm, (incl.get(nm) ?? 0) + dt);
      }
    }
    const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([f, ms]) => `${ms.toFixed(0)} ms ${f}`).join('\n      ');
    console.log(`  task at ${(task.start - t0).toFixed(0)} ms: ${task.dur.toFixed(0)} ms\n    self: ${top(self, 6)}\n    incl (www): ${top(incl, 8)}`);
  }
} finally { await env.close(); }
