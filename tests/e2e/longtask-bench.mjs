// The main thread during each measured run (tests/e2e/maintask.mjs CASES: every tab's default, the tune
// default as a comparison, every page preset): the longest main-thread task by CPU and by wall time (a Chromium
// trace), what it spent its time in (trace events inside it and a CDP CPU profile of the page's functions).
// A measurement, not a test (tests/e2e/main-thread.test.mjs checks what keeps the tasks short without timing them).
//   node tests/e2e/longtask-bench.mjs [case-id-substring ...]   (LT_ROOT=dir serves another build; LT_QUICK=1 the
//   test's smaller sizes; LT_NOPROFILE=1 no CPU profile)
import { launch, openPage } from './helpers.mjs';
import { CASES, LESSON_CASES, traceRun } from './maintask.mjs';

const filters = process.argv.slice(2);
const cases = [...CASES, ...LESSON_CASES].filter((c) => !filters.length || filters.some((f) => c.id.includes(f)));
for (const c of cases) {
  const env = await launch({ isolation: true, root: process.env.LT_ROOT });
  try {
    const { page } = await openPage(env.context, env.url);
    const r = await traceRun(env.context, page, c, { patch: process.env.LT_QUICK ? c.quick : undefined, profile: !process.env.LT_NOPROFILE });
    console.log(JSON.stringify({ case: c.id, ...r }, null, 1));
  } finally { await env.close(); }
}
