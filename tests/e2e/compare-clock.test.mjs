// The whole-comparison clock of compare mode (www/panels/tune/compare-clock.js), on a synthetic comparison whose
// every phase runs at one known rate, so the right estimate is known exactly at every event (no browser and no
// real time: the events carry made-up times). The core's cost model (`summary.cost`, as
// src/experiments/compare/experiment.rs `cost` names its phases) gives two tuners, each a tuning count of 4,000
// gradient evaluations (2 arms x 1,000 then 1 arm x 2,000) and an evaluation chain of 3,000, one multiply-add
// each; everything at 1 ms per gradient evaluation; the data, MAP and reference take the first 2 s. So the run ends at
// 2 + (4 + 3) + (4 + 3) = 16 s, and every estimate from the first progress event on must say 16 s: the estimate
// over the whole comparison, which does not restart with the second tuner (issue 26, item 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompareClock } from '../../www/panels/tune/compare-clock.js';

const RATE = 1e-3;
const schedule = [{ arms: 2, budget: 1000 }, { arms: 1, budget: 2000 }];
const phase = (name, count) => ({ name, count, unit: 'gradient evaluations', per: 1, work: count, basis: 'exact' });
const phases = ['A', 'B'].flatMap((t) => [phase(`${t}: tuning`, 4000), phase(`${t}: evaluation`, 3000)]);
const summary = { tuners: ['A', 'B'], cost: { work: 14000, unit: 'multiply-adds', seconds: 0, unknown: null, phases: [phase('MAP', 500), ...phases] } };
const armsAt = (g1, g2) => [{ id: 1, grad_evals: g1, seconds: g1 * RATE }, { id: 2, grad_evals: g2, seconds: g2 * RATE }];

/** The events of tuner i starting at t0, with the estimate after each. @param {CompareClock} c @param {number} i @param {number} t0 */
function runTuner(c, i, t0) {
  const seen = [];
  c.tuner({ type: 'started', index: i, n_data: 100, schedule, arms: [{ batch: 10, batch_fraction: 0.1 }, { batch: 10, batch_fraction: 0.1 }] }, t0, []);
  seen.push(c.total(t0));
  c.tuner({ type: 'progress', index: i }, t0 + 2, armsAt(1000, 1000));
  seen.push(c.total(t0 + 2));
  c.tuner({ type: 'progress', index: i }, t0 + 3, armsAt(1000, 2000));
  seen.push(c.total(t0 + 3));
  c.tuner({ type: 'done', index: i, best: 2 }, t0 + 4, armsAt(1000, 3000));
  seen.push(c.total(t0 + 4), c.total(t0 + 5.5));
  return seen;
}

test('at a constant rate every estimate of the whole comparison is its true length, through the second tuner', () => {
  const c = new CompareClock(summary);
  assert.equal(c.total(1), null, 'no estimate during the reference phase');
  const first = runTuner(c, 0, 2);
  const second = runTuner(c, 1, 9);
  assert.equal(first[0], null, 'no estimate before the first gradient evaluation');
  for (const [k, v] of [...first.slice(1), ...second].entries()) assert.ok(Math.abs(v - 16) < 1e-9, `estimate ${k}: ${v}`);
  assert.ok(Math.abs(c.total(16) - 16) < 1e-9);
});

test('a slower evaluation chain than predicted moves the later tuners\' evaluations by the measured ratio', () => {
  const c = new CompareClock(summary);
  runTuner(c, 0, 2);
  // The first evaluation took 6 s instead of the predicted 3 s: tuner B starts at 12, and its own evaluation
  // is predicted at twice its arm's rate, 6 s: 2 + 4 + 6 + 4 + 6 = 22.
  const second = runTuner(c, 1, 12);
  for (const v of second) assert.ok(Math.abs(v - 22) < 1e-9, `${v}`);
});

test('before the first tuner, the estimate before Run converts the whole cost (MAP and reference included)', () => {
  // 1 ms per multiply-add estimated before Run: 0.5 s of MAP, then 2 x (4 + 3) s.
  const c = new CompareClock(summary, 1e-3);
  assert.ok(Math.abs(c.total(0.1) - 14.5) < 1e-9, `${c.total(0.1)}`);
  // Once the first tuner started, the time before it is measured (2 s), and its work at the prior until measured.
  c.tuner({ type: 'started', index: 0 }, 2, []);
  assert.ok(Math.abs(c.total(2) - 16) < 1e-9, `${c.total(2)}`);
  // Without a cost model there is no estimate.
  assert.equal(new CompareClock({ tuners: ['A'], cost: { ...summary.cost, unknown: 'the data' } }, 1e-3).total(1), null);
});
