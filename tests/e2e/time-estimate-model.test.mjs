// The page's time estimate (www/shared/time-estimate.js) on made-up costs and rates, no browser and no real time: the
// seconds are the core's work times the rate (so twice the work is twice the time), a remembered run's rate wins
// over the calibration, and the estimate during a run moves from the one before Run to the run's own rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimate, refine, rememberRun, loadRates, rateKey, fmtAbout, KIND_FACTOR, PHASE_FACTOR, GRAD_OVERHEAD, RUN_WORK, phaseClass } from '../../www/shared/time-estimate.js';

const cost = (work, seconds = 0) => ({ work, unit: 'multiply-adds', seconds, unknown: null, phases: [{ name: 'MAMBA-KSD: tuning', count: work, unit: 'gradient evaluations', per: 1, work, basis: 'exact' }] });
/** A Storage stand-in. */
const memory = () => { const m = new Map(); return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, v) }; };

test('the estimate is each phase\'s work at the calibrated rate times its factor, plus fixed seconds', () => {
  const e = estimate('tune', cost(1e9), 2e-9, {});
  assert.equal(e.source, 'calibration');
  // A gradient evaluation of the tune kind: its multiply-adds plus GRAD_OVERHEAD, at the kind's factor; every run
  // adds RUN_WORK.
  const run = 2e-9 * RUN_WORK;
  assert.ok(Math.abs(e.seconds - run - 2e-9 * (1e9 + 1e9 * GRAD_OVERHEAD) * KIND_FACTOR.tune) < 1e-9, `${e.seconds}`);
  assert.ok(Math.abs(estimate('tune', cost(2e9), 2e-9, {}).seconds - run - 2 * (e.seconds - run)) < 1e-9, 'twice the work, twice its time');
  assert.ok(Math.abs(estimate('tune', cost(1e9, 5), 2e-9, {}).seconds - e.seconds - 5) < 1e-9, 'seconds budgets add');
  assert.equal(estimate('tune', { ...cost(1e9), unknown: 'the file' }, 2e-9, {}).seconds, null);
  assert.equal(estimate('tune', cost(1e9), null, {}).seconds, null, 'no rate yet');
  // The Stein discrepancy's sample pairs have their own factor; a phase without a class takes its kind's.
  const pairs = { work: 1e9, unit: 'multiply-adds', seconds: 0, unknown: null, phases: [{ name: 'KSD pairs', count: 1e7, unit: 'sample pairs', per: 100, work: 1e9, basis: 'bound' }] };
  assert.equal(phaseClass('tune', pairs.phases[0]), 'pairs');
  assert.ok(Math.abs(estimate('tune', pairs, 2e-9, {}).seconds - run - 2 * PHASE_FACTOR.tune.pairs) < 1e-9);
  const hoag = { work: 1e9, unit: 'multiply-adds', seconds: 0, unknown: null, phases: [{ name: 'methods', count: 1e5, unit: 'passes', per: 1e4, work: 1e9, basis: 'bound' }] };
  assert.ok(Math.abs(estimate('hoag', hoag, 2e-9, {}).seconds - run - 2 * KIND_FACTOR.hoag) < 1e-9);
  // The estimate's rate is one rate over the whole work: seconds = work x rate.
  const mixed = { ...pairs, work: 2e9, phases: [...pairs.phases, ...cost(1e9).phases] };
  const m = estimate('tune', mixed, 2e-9, {});
  assert.ok(Math.abs(m.seconds - m.rate * 2e9) < 1e-9 * m.seconds);
  assert.ok(Math.abs(m.seconds + run - estimate('tune', pairs, 2e-9, {}).seconds - e.seconds) < 1e-9, 'phases add');
});

test('a complete run teaches the rate of its kind and phase mix', () => {
  const store = memory();
  rememberRun('compare', cost(1e9), 4, store);
  const rates = loadRates(store);
  const e = estimate('compare', cost(5e8), 1e-12, rates);
  assert.equal(e.source, 'runs');
  assert.ok(Math.abs(e.seconds - 2) < 1e-9, `${e.seconds}`);
  assert.equal(rateKey('compare', cost(1)), 'compare|tuning', 'tuner prefixes do not split the key');
  assert.equal(estimate('tune', cost(5e8), 1e-12, rates).source, 'calibration', 'another kind keeps the calibration');
});

test('during a run the estimate moves from the prior to the run\'s own rate', () => {
  assert.equal(refine(10, 0, 0), 10);
  assert.equal(refine(10, 3, 1), 3, 'done: the real time');
  // Half done after 8 s: the run's own rate says 16 s, and its weight is full at half way.
  assert.ok(Math.abs(refine(10, 8, 0.5) - 16) < 1e-9);
  assert.ok(refine(10, 12, 0.1) >= 12, 'never less than the time so far');
  assert.equal(refine(null, 1, 0.01), null, 'no prior and too little done');
  assert.match(fmtAbout(42), /^about 40 s$/);
  assert.match(fmtAbout(150), /^about 2\.5 min$/);
});
