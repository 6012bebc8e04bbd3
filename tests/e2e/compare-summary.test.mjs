// The "who won, at what cost" summary (www/panels/tune/compare-summary.js, pure) on hand-made comparisons: bands
// over several seeds (median and range), "one seed" said, ties within noise called ties (overlapping ranges over
// seeds, within 5% on one seed), a loss of MAMBA-KSD said with its factor, no speed-up on grid rows. The page
// runs one seed per comparison (tests/e2e/compare-card.test.mjs checks the card against a real report); several
// seeds only reach this function from saved reports, so they are tested here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareSummary, speedUp, fmtBand } from '../../www/panels/tune/compare-summary.js';

/** A comparison's result with the given [ξ, KSD, gradient evaluations] per tuner. @param {Record<string, number[]>} v */
const result = (v) => ({
  entries: Object.entries(v).map(([name, [xi, ksd, grad]]) => ({
    name, best: { arm: 0 }, evaluation: { xi, ksd }, compute: { grad_evals: grad, scoring_grad_evals: 0, wall_seconds: grad / 1e6 },
  })),
});

test('one seed: the verdict says so, names a loss of MAMBA-KSD with its factor and calls 5% a tie', () => {
  const s = compareSummary([result({ 'MAMBA-KSD': [0.2, 0.0300, 1e6], 'grid (KSD)': [0.1, 0.0290, 4.4e6], heuristic: [0.5, 0.09, 1e5] })]);
  assert.equal(s.seeds, 1);
  assert.equal(s.quality?.key, 'xi');
  assert.equal(s.verdict, 'One seed (no band: differences within 5% are called a tie). ξ: grid (KSD) lowest (0.1), MAMBA-KSD 0.2: MAMBA-KSD loses (2× higher); '
    + 'KSD: grid (KSD) lowest (0.029), MAMBA-KSD 0.03: a tie; compute: MAMBA-KSD used 4.4× fewer gradient evaluations than grid (KSD).');
  const rows = Object.fromEntries(s.rows.map((r) => [r.name, r]));
  assert.equal(rows['grid (KSD)'].speed, null);
  assert.equal(fmtBand(rows['MAMBA-KSD'].speed), '4.4');
  assert.equal(fmtBand(rows.heuristic.ksd), '0.09');
});

test('several seeds: medians with the range as the band; overlapping ranges are a tie, apart ones a win', () => {
  const s = compareSummary([
    result({ 'MAMBA-KSD': [0.10, 0.020, 1e6], 'grid (log-loss)': [0.30, 0.050, 2e6], 'grid (KSD)': [0.12, 0.030, 4e6] }),
    result({ 'MAMBA-KSD': [0.14, 0.024, 1e6], 'grid (log-loss)': [0.40, 0.060, 2e6], 'grid (KSD)': [0.10, 0.034, 4e6] }),
    result({ 'MAMBA-KSD': [0.12, 0.022, 2e6], 'grid (log-loss)': [0.35, 0.055, 2e6], 'grid (KSD)': [0.115, 0.032, 4e6] }),
  ]);
  const rows = Object.fromEntries(s.rows.map((r) => [r.name, r]));
  assert.equal(s.seeds, 3);
  assert.deepEqual(rows['MAMBA-KSD'].quality, { mid: 0.12, lo: 0.1, hi: 0.14, n: 3 });
  assert.equal(fmtBand(rows['MAMBA-KSD'].ksd), '0.022 [0.02–0.024]');
  // grid (KSD) has the lower median ξ, but the ranges overlap: a tie; MAMBA-KSD's KSD range is below the others'.
  assert.match(s.verdict, /^3 seeds \(median \[range\]; overlapping ranges are a tie\)\. ξ: grid \(KSD\) lowest \(0\.115 \[0\.1–0\.12\]\), MAMBA-KSD 0\.12 \[0\.1–0\.14\]: a tie; /);
  assert.match(s.verdict, /; KSD: MAMBA-KSD lowest \(0\.022 \[0\.02–0\.024\]\), next grid \(KSD\) 1\.5× higher; /);
  assert.match(s.verdict, /compute: MAMBA-KSD used 4× fewer gradient evaluations than grid \(KSD\) \(median over seeds, range 2×–4×\)\.$/);
  // No speed-up for either grid search.
  assert.equal(rows['grid (log-loss)'].speed, null);
  assert.equal(speedUp({ name: 'grid (log-loss)', compute: { grad_evals: 1 } }, [{ name: 'grid (KSD)', compute: { grad_evals: 4 } }]), null);
});

test('one winner rule, stated; a choice with a KSD 100x the lowest or more is flagged far off', () => {
  const s = compareSummary([result({ 'MAMBA-KSD': [0.2, 0.096, 1e6], 'MAMBA-FSSD': [0.1, 327, 1e6], 'grid (KSD)': [0.3, 0.1, 4e6] })]);
  assert.equal(s.winner, 'MAMBA-FSSD');
  assert.equal(s.rule, 'Winner rule: the lowest ξ against the exact reference, median over seeds; a tie when within the noise said above. Winner: MAMBA-FSSD.');
  assert.equal(s.flags.length, 1);
  assert.match(s.flags[0], /^Far off: MAMBA-FSSD's choice has an evaluation KSD of 327, 3,?406× the lowest \(0\.096\): its sample is far from the posterior, although its ξ vs exact is the lowest\.$/);
  // Without a quality measure the KSD decides, and nothing is far off here.
  const t = compareSummary([{ entries: [{ name: 'a', best: { arm: 0 }, evaluation: { ksd: 0.2 }, compute: { grad_evals: 1 } }, { name: 'b', best: { arm: 0 }, evaluation: { ksd: 0.1 }, compute: { grad_evals: 1 } }] }]);
  assert.equal(t.winner, 'b');
  assert.match(t.rule, /^Winner rule: the lowest evaluation KSD \(no quality measure in this comparison\)/);
  assert.deepEqual(t.flags, []);
});
