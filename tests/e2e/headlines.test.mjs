// Headlines and readings that must not contradict each other or the charts (pure modules, no browser): a HOAG
// six-decimal tie is a tie in the run bar's headline, not a winner; the landscape note names the number of
// hyperparameters the run tunes; the bandit reading says when the per-arm statistics hold only the 200
// most-pulled arms of repeat 0; compare mode names one KSD per tuner, with its definition, and counts points in
// the singular and plural.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hoagHeadline, hoagReading, landNote, lowestLoss } from '../../www/panels/hoag/reading.js';
import { readBandit, armsKept, ARM_STATS_CAP } from '../../www/panels/bandit/reading.js';

const trace = (cost, sub) => [{ iter: 1, cost, seconds: 0.01, suboptimality: sub, outer_loss: 1, validation_loss: 1, hyper: [0] }];
const hoagReport = (losses) => ({
  problem: 'logreg', seed: 1, reference_optimum: 0.5, hyper_names: ['log λ'],
  methods: losses.map(([name, loss, cost]) => ({ name, final_loss: loss, final_hyper: [-1.234], final_validation_loss: 0.6, cost, seconds: 0.1, stopped: 'budget', trace: trace(cost, 1e-5) })),
});

test('HOAG: a six-decimal tie is called a tie, and the reading and headline name the same methods', () => {
  const r = hoagReport([['HOAG (exponential)', 0.5123456, 40], ['iterative differentiation', 0.51234559, 90], ['grid search', 0.53, 200]]);
  assert.deepEqual(lowestLoss(r).names, ['HOAG (exponential)', 'iterative differentiation']);
  const h = hoagHeadline(r, 1.25);
  assert.match(h, /a tie .* between HOAG \(exponential\), iterative differentiation/);
  assert.doesNotMatch(h, /\(iterative differentiation, log λ/);
  assert.match(hoagReading(r), /^HOAG \(exponential\) reached/);
  // A real difference names one method, with its hyperparameters.
  const clear = hoagReport([['HOAG (exponential)', 0.50, 40], ['grid search', 0.53, 200]]);
  assert.equal(hoagHeadline(clear, 2), 'Done in 2.0 s: lowest outer loss 0.50000 (HOAG (exponential), log λ = -1.23).');
});

test('HOAG: the landscape note matches the number of hyperparameters', () => {
  assert.match(landNote(1), /One hyperparameter/);
  assert.doesNotMatch(landNote(1), /Two hyperparameters/);
  assert.match(landNote(2), /Two hyperparameters/);
  assert.match(landNote(30), /30 hyperparameters \(one per feature\)/);
});

/** A bandit report where D-TTTS tried `distinct` arms on average and the report kept `kept` of them. */
function banditReport(distinct, kept, dtttsRegret) {
  const algo = (name, kind, regret, n, arms) => ({
    name, kind, final_simple_regret: { mean: regret, lo: regret * 0.8, hi: regret * 1.2 },
    distinct_arms: { mean: [n], lo: [n], hi: [n] }, recommended: [{ optimum: 1 }],
    charts: arms ? { arms: Array.from({ length: arms }, (_, i) => ({ arm: i, pulls: 2, true_value: i < 3 ? 0.999 : 0.5 })) } : {},
  });
  return { rounds: [500], config: { repeats: 10 }, algorithms: [algo('D-TTTS', 'd-ttts', dtttsRegret, distinct, kept), algo('TTTS', 'ttts', 0.01, 23, 23)] };
}

test('bandits: the reading says when only the 200 most-pulled arms are kept, and all of them otherwise', () => {
  assert.equal(ARM_STATS_CAP, 200);
  const capped = readBandit(banditReport(254, 200, 0.05)).join(' ');
  assert.match(capped, /tried 254 distinct arms/);
  assert.match(capped, /of the 200 most-pulled arms of repeat 0 \(the report keeps at most 200\)/);
  assert.doesNotMatch(capped, /of the 200 arms/);
  const all = readBandit(banditReport(40, 40, 0.05)).join(' ');
  assert.match(all, /of the 40 arms D-TTTS pulled in repeat 0/);
  assert.equal(armsKept(12), 'the 12 arms it pulled in repeat 0');
});
