// The tune panel's reading quotes measured facts (why MAMBA-KSD loses on pmf-page's RMSE, why its ξ is higher on
// paper-logreg-page) only from www/panels/tune/measured.js, which scripts/reproduce/doc_tables.py generates from
// the committed reports. This test reads those reports itself and checks that every number the two sentences
// give is the report's, formatted as the page formats numbers: a changed report, a stale measured.js or a number
// written into reading.js by hand fails it. No page, no run: the reading is pure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readEvaluations } from '../../www/panels/tune/reading.js';
import { fmtSci, fmtStep } from '../../www/shared/format.js';

const ROOT = new URL('../../', import.meta.url);
const json = (/** @type {string} */ p) => JSON.parse(readFileSync(new URL(p, ROOT), 'utf8'));

/** An entry as a compare report has it. */
const entry = (name, step, ev, extra = {}) => ({ name, best: { step, batch: 480, batch_fraction: 0.1, posterior: { std: [0.1, 0.2] } }, evaluation: ev, config: extra.config, ...extra });

test('the pmf-page reason quotes the committed probe report, nothing else', () => {
  const probe = json('docs/results/mamba/page/pmf-page-probe-seed0.json');
  const row = Object.fromEntries(probe.rows.map((r) => [r.name, r]));
  const config = { model: { kind: 'pmf', lambda: 6 } };
  const result = { entries: [
    entry('MAMBA-KSD', 3e-6, { test_rmse: 0.97, ksd: 8 }, { config }),
    entry('grid (log-loss)', 1e-3, { test_rmse: 0.93, ksd: 30 }, { config }),
  ] };
  const why = readEvaluations(result).find((s) => s.startsWith('Why MAMBA-KSD loses on RMSE'));
  assert.ok(why, 'the reason is given when a baseline has the lower RMSE');
  const exact = row['exact reference (MALA)'];
  const m = row['MAMBA-KSD'];
  const others = probe.rows.filter((r) => r.name !== 'MAMBA-KSD' && r.name !== 'exact reference (MALA)');
  const pct = (x) => `${Math.round(100 * x)}%`;
  for (const want of [fmtSci(exact.sd_strong), fmtSci(exact.sd_weak), fmtSci(probe.prior_sd), fmtSci(exact.test_rmse), fmtSci(exact.ksd),
    pct(m.sd_ratio_strong), fmtSci(m.test_rmse), fmtSci(probe.test_rmse_map), fmtSci(m.ksd), fmtSci(probe.test_rmse_mean_predictor),
    pct(Math.min(...others.map((r) => Math.min(r.sd_ratio_strong, r.sd_ratio_weak)))),
    pct(Math.max(...others.map((r) => Math.max(r.sd_ratio_strong, r.sd_ratio_weak)))), ...others.map((r) => fmtSci(r.ksd))]) {
    assert.ok(why.includes(want), `${want} in: ${why}`);
  }
  // Every number in the sentence is one of those (no number typed into reading.js).
  const allowed = new Set([fmtSci(exact.sd_strong), fmtSci(exact.sd_weak), fmtSci(probe.prior_sd), fmtSci(exact.test_rmse), fmtSci(exact.ksd),
    fmtSci(m.test_rmse), fmtSci(probe.test_rmse_map), fmtSci(m.ksd), fmtSci(probe.test_rmse_mean_predictor), ...others.map((r) => fmtSci(r.ksd)), String(probe.seed)]);
  const numbers = why.replace(/\d+%/g, '').match(/\d+(\.\d+)?(e-?\d+)?/g) ?? [];
  for (const n of numbers) assert.ok(allowed.has(n), `${n} in the sentence is not from the committed report: ${why}`);
});

test('the paper-logreg-page reason quotes the committed evaluation reports, nothing else', () => {
  const runs = {};
  for (const seed of [0, 1, 2, 3, 4, 5]) for (const e of [1, 10]) {
    runs[`${seed}-${e}`] = Object.fromEntries(json(`docs/results/mamba/page-logreg-eval/seed${seed}-eval${e}R.json`).result.entries.map((x) => [x.name, x]));
  }
  const xi = (s, e, t) => runs[`${s}-${e}`][t].evaluation.xi;
  const m0 = runs['0-1']['MAMBA-KSD'];
  const config = { model: { kind: 'logistic' } };
  const result = { reference: { samples: 4000 }, entries: [
    entry('heuristic', 1.25e-3, { xi: 0.037, fresh_run: { iters: 12500 } }, { config }),
    entry('MAMBA-KSD', 1e-5, { xi: 0.088, fresh_run: { iters: 1000000 } }, { config }),
  ] };
  const why = readEvaluations(result).find((s) => s.startsWith('Measured natively on the paper-logreg-page'));
  assert.ok(why, 'the reason is given when MAMBA-KSD\'s evaluation chain moved less');
  const seeds = [1, 2, 3, 4, 5];
  const med = (v) => [...v].sort((a, b) => a - b)[(v.length - 1) / 2];
  for (const want of [fmtStep(m0.best.step), String(m0.best.batch), fmtSci(xi(0, 1, 'MAMBA-KSD')), fmtSci(xi(0, 10, 'MAMBA-KSD')),
    fmtSci(xi(0, 10, 'heuristic')), fmtSci(xi(0, 10, 'grid (KSD)')),
    `below the heuristic's on ${seeds.filter((s) => xi(s, 1, 'MAMBA-KSD') < xi(s, 1, 'heuristic')).length} at R and ${seeds.filter((s) => xi(s, 10, 'MAMBA-KSD') < xi(s, 10, 'heuristic')).length} at 10 R`,
    fmtSci(med(seeds.map((s) => xi(s, 1, 'MAMBA-KSD')))), fmtSci(med(seeds.map((s) => xi(s, 1, 'heuristic')))),
    fmtSci(med(seeds.map((s) => xi(s, 10, 'MAMBA-KSD')))), fmtSci(med(seeds.map((s) => xi(s, 10, 'heuristic'))))]) {
    assert.ok(why.includes(want), `${want} in: ${why}`);
  }
});

test('the learning-rate multi-task reading quotes the committed seeds, nothing else', async () => {
  const { mtReading } = await import('../../www/panels/lr-schedule/reading.js');
  const { readdirSync } = await import('node:fs');
  const dir = 'docs/results/lr-schedule/multitask/';
  const reps = readdirSync(new URL(dir, ROOT)).filter((f) => f.endsWith('.json')).map((f) => json(dir + f).result);
  const below = (/** @type {string} */ k) => reps.filter((r) => r.multitask[k].best_so_far.at(-1) < r.multitask.cold.best_so_far.at(-1)).length;
  const want = `${reps.length} seeds`;
  const counts = `universal beat cold in ${below('universal')} and learn-location in ${below('learn_location')}`;
  // Every committed seed's own reading names the seeds' count and the counts the reports give.
  for (const r of reps) {
    const text = mtReading(r.multitask).join(' ');
    assert.ok(text.includes(want) && text.includes(counts), `seed ${r.seed}: ${text}`);
  }
});
