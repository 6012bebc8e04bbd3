#!/usr/bin/env node
// Refits the page's time-estimate MODEL (www/shared/time-estimate.js: each kind's and phase class's factor, the
// SG-MCMC gradient overhead, the TVO image-epoch overhead and the per-run work) to recorded runs
// (docs/time-estimates/*.json, written by `node tests/e2e/time-estimate-bench.mjs presets cases out=FILE`): a
// coordinate search on the logarithms of the factors that minimises the largest |log(estimate / took)| over every
// run (then the sum of squares). Prints the fitted MODEL and each run's ratio; copy the values into MODEL by hand
// (rounded), then `node --test tests/e2e/time-estimate-fit.test.mjs` checks every run within 2x.
//   node scripts/dev/time-estimate-fit.mjs docs/time-estimates/single-*.json
import { MODEL, phaseClass } from '../../www/shared/time-estimate.js';
import { recordedEstimate, readRows } from './time-estimate-predict.mjs';

const rows = readRows(process.argv.slice(2)).filter((r) => r.calibration && r.phases?.length && r.status === 'complete');
const model = structuredClone(MODEL);
// Each factor stays within [0.05, 20] of the calibration's rate and each overhead within its range, so a class that few
// runs have cannot drift to a value no run supports.
/** @type {{get: () => number, set: (v: number) => void, name: string, lo: number, hi: number}[]} */
const params = [];
const used = new Map();
for (const r of rows) {
  for (const [name, unit] of r.phases) {
    const c = phaseClass(r.kind, { name, unit });
    used.set(`${r.kind}|${c}`, [r.kind, c]);
  }
}
for (const [kind, c] of used.values()) {
  if (c) {
    model.phase[kind] ??= {};
    model.phase[kind][c] ??= model.kind[kind];
    params.push({ name: `phase.${kind}.${c}`, get: () => model.phase[kind][c], set: (v) => { model.phase[kind][c] = v; }, lo: 0.05, hi: 20 });
  } else params.push({ name: `kind.${kind}`, get: () => model.kind[kind], set: (v) => { model.kind[kind] = v; }, lo: 0.05, hi: 20 });
}
for (const [k, lo, hi] of /** @type {const} */ ([['gradOverhead', 1, 200], ['epochOverhead', 100, 1e6], ['runWork', 1e6, 1e9]])) {
  params.push({ name: k, get: () => model[k], set: (v) => { model[k] = v; }, lo, hi });
}
const score = () => {
  const l = rows.map((r) => Math.log(/** @type {number} */ (recordedEstimate(r, model)) / r.seconds));
  return [Math.max(...l.map(Math.abs)), l.reduce((s, x) => s + x * x, 0)];
};
const better = (a, b) => a[0] < b[0] - 1e-9 || (Math.abs(a[0] - b[0]) <= 1e-9 && a[1] < b[1]);
let best = score();
for (let step = 1; step > 0.005; step /= 2) {
  for (let sweep = 0, moved = true; moved && sweep < 50; sweep++) {
    moved = false;
    for (const p of params) {
      for (const dir of [1, -1]) {
        const old = p.get();
        const v = old * Math.exp(dir * step);
        if (v < p.lo || v > p.hi) continue;
        p.set(v);
        const s = score();
        if (better(s, best)) { best = s; moved = true; } else p.set(old);
      }
    }
  }
}
console.log(`largest |log ratio| ${best[0].toFixed(3)} (ratio ${Math.exp(-best[0]).toFixed(2)}-${Math.exp(best[0]).toFixed(2)}x)`);
for (const p of params) console.log(`${p.name.padEnd(28)} ${p.get().toPrecision(3)}`);
for (const r of rows) console.log(`${r.label.padEnd(45)} ${(/** @type {number} */ (recordedEstimate(r, model)) / r.seconds).toFixed(2)}x`);
