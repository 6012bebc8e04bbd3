#!/usr/bin/env node
// The page's time estimate (www/shared/time-estimate.js, its current MODEL) of recorded runs against the time they
// took: prints each run's "estimate / took" at the run's own calibration. Inputs: JSON arrays of rows
// {label, kind, work, calibration, calibrated, seconds, phases: [name, unit, work, count][]} as
// `node tests/e2e/time-estimate-bench.mjs presets cases out=FILE` writes them (docs/time-estimates/). Rows without
// a cost model (`phases` empty: the page shows why instead of an estimate) print "no cost model".
// tests/e2e/time-estimate-fit.test.mjs asserts the same ratios; scripts/dev/time-estimate-fit.mjs refits MODEL.
//   node scripts/dev/time-estimate-predict.mjs [--md] docs/time-estimates/single-*.json   (--md: the table
//   docs/benchmarks.md quotes)
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { estimate, MODEL } from '../../www/shared/time-estimate.js';

/**
 * The estimate (seconds) the page gives a recorded run at the run's calibration, under `model`; null without a
 * cost model.
 * @param {{kind: string, calibration: number|null, phases: [string, string, number, number][]|null}} row
 * @param {import('../../www/shared/time-estimate.js').Model} [model]
 */
export function recordedEstimate(row, model = MODEL) {
  if (!row.calibration || !row.phases?.length) return null;
  const phases = row.phases.map(([name, unit, work, count]) => ({ name, unit, work, count: count ?? 0, per: 0, basis: '' }));
  const cost = { work: phases.reduce((s, p) => s + p.work, 0), unit: 'multiply-adds', seconds: 0, unknown: null, phases };
  return estimate(row.kind, cost, row.calibration, {}, model).seconds;
}

/** Every row of the given files. @param {string[]} files @returns {any[]} */
export const readRows = (files) => files.flatMap((f) => JSON.parse(fs.readFileSync(f, 'utf8')));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const md = process.argv.includes('--md');
  const rows = readRows(process.argv.slice(2).filter((a) => a !== '--md'));
  if (md) {
    console.log('| run (single-threaded page, fresh) | kind | work (multiply-adds) | took | shown before Run / took | at the current MODEL / took |');
    console.log('|---|---|---|---|---|---|');
    for (const r of rows) {
      const e = recordedEstimate(r);
      const x = (v) => (v == null ? 'no estimate' : `${(v / r.seconds).toFixed(2)}x`);
      console.log(`| ${r.label} | ${r.kind} | ${r.work ? r.work.toExponential(2) : '–'} | ${r.seconds.toFixed(1)} s | ${x(r.shown ?? r.calibrated)} | ${x(e)} |`);
    }
    const ratios = rows.map((r) => recordedEstimate(r)).map((e, i) => (e == null ? null : e / rows[i].seconds)).filter((v) => v != null);
    console.log(`\n${ratios.length} runs with an estimate: ${Math.min(...ratios).toFixed(2)}x to ${Math.max(...ratios).toFixed(2)}x.`);
    process.exit(0);
  }
  for (const r of rows) {
    const e = recordedEstimate(r);
    if (e == null) { console.log(`${r.label.padEnd(45)} ${String(r.kind).padEnd(11)} took ${r.seconds.toFixed(2).padStart(6)} s  no cost model (${r.why})`); continue; }
    console.log(`${r.label.padEnd(45)} ${r.kind.padEnd(11)} took ${r.seconds.toFixed(2).padStart(6)} s  shown ${(r.shown / r.seconds).toFixed(2)}x  now ${(e / r.seconds).toFixed(2)}x`);
  }
}
