#!/usr/bin/env node
// The page's time estimate (www/shared/time-estimate.js, its current factors) of recorded runs against the time they
// took: prints "label  before  after", before = the estimate the page showed in that run, after = the estimate the
// current factors give at the run's calibration (capped at CAP s per multiply-add: the pages of a run that a burst of
// another job hit measured up to 1.9x slower, docs/benchmarks.md "Time estimates"). Inputs: JSON arrays of rows
// {label, kind, work, calibration, calibrated, seconds, phases: [name, unit, work, count][]} as
// tests/e2e/time-estimate-bench.mjs prints them (its last line) and tests/e2e/time-estimate.test.mjs's `# fit` lines.
//   node scripts/dev/time-estimate-predict.mjs docs/time-estimates/*.json
import fs from 'node:fs';
import { estimate } from '../../www/shared/time-estimate.js';

const CAP = 1.52e-9;
for (const file of process.argv.slice(2)) {
  for (const r of JSON.parse(fs.readFileSync(file, 'utf8'))) {
    if (!r.calibration || !r.phases) { console.log(`${r.label.padEnd(45)} no cost model`); continue; }
    const phases = r.phases.map(([name, unit, work, count]) => ({ name, unit, work, count: count ?? 0, per: 0, basis: '' }));
    const cost = { work: phases.reduce((s, p) => s + p.work, 0), unit: 'multiply-adds', seconds: 0, unknown: null, phases };
    const e = estimate(r.kind, cost, Math.min(r.calibration, CAP), {});
    console.log(`${r.label.padEnd(45)} ${r.kind.padEnd(11)} took ${r.seconds.toFixed(2).padStart(6)} s  before ${(r.calibrated / r.seconds).toFixed(2)}x  after ${(/** @type {number} */ (e.seconds) / r.seconds).toFixed(2)}x`);
  }
}
