// The longest main-thread task of page presets and lesson steps (tests/e2e/maintask.mjs CASES, LESSON_CASES), with the trace events and the
// page's functions inside it (a CPU profile beside the trace). A measurement, not a test; what found the 58-68 ms
// results draw of paper-logreg-page (docs/benchmarks.md, "Reverted ... and back").
//   node tests/e2e/profile-case.mjs [ids, comma-separated; default paper-logreg-page] [runs per id; default 2]
import { launch, openPage } from './helpers.mjs';
import { CASES, LESSON_CASES, traceRun } from './maintask.mjs';
const ids = (process.argv[2] ?? 'paper-logreg-page').split(',');
const reps = +(process.argv[3] ?? 2);
const env = await launch({ isolation: true });
try {
  for (const id of ids) for (let i = 0; i < reps; i++) {
    const c = [...CASES, ...LESSON_CASES].find((x) => x.id === id);
    if (!c) throw new Error(`no case ${id}`);
    const { page } = await openPage(env.context, env.url);
    const r = await traceRun(env.context, page, c, { patch: c.quick, profile: true, timeout: 360_000 });
    console.log(id, 'run', r.runS.toFixed(1), 's; longestCpu', JSON.stringify(r.longestCpu, null, 1), 'over50cpu', JSON.stringify(r.cpuOver50));
    await page.close();
  }
} finally { await env.close(); }
