// The numbers a report's tab shows, checked against the report: the tab's table (and, for a tune report, its
// score chart and bracket) must hold the report's own numbers, formatted as the page formats them. Shared by the
// page's "Open a report" test (tests/e2e/open-report.test.mjs) and the notebook widget's `tunelab.show` test
// (crates/python/tests/jupyterlab_e2e.mjs); `page` is a playwright-core Page or Frame showing the report.
import assert from 'node:assert/strict';
import { fmtSci, fmtStep } from '../../www/shared/format.js';
import { nats } from '../../www/panels/tvo/reading.js';

/** Text of the row cells of a table. @returns {Promise<string[][]>} */
export const rows = (page, sel) => page.$$eval(`${sel} tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent ?? '')));

/**
 * Asserts that the tab showing `report` (an envelope of a complete run, as written) has the report's numbers.
 * @param {any} page a playwright-core Page or Frame @param {any} report
 */
export async function assertTabShowsReport(page, report) {
  const kind = report.kind;
  const r = report.result;
  const P = `#${{ bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr', 'step-size': 'step', tvo: 'tvo' }[kind]}-`;
  switch (kind) {
    case 'tune': {
      const t = await rows(page, '#arms-table');
      assert.equal(t.length, r.arms.length);
      assert.deepEqual(t.map((x) => Number(x[0])).sort((a, b) => a - b), r.arms.map((a) => a.id).sort((a, b) => a - b));
      const best = t[0];
      assert.equal(Number(best[0]), r.best.arm);
      assert.equal(best[1], fmtStep(r.best.step));
      assert.equal(best[4], fmtSci(r.best.score));
      // The score chart and the bracket, rebuilt from the report's rounds: a point per round each arm ran.
      const chart = await page.evaluate(() => window.__tunelab.chartArms);
      assert.deepEqual(chart.map((a) => [a.id, a.points]).sort((a, b) => a[0] - b[0]), r.arms.map((a) => [a.id, a.scores.length]).sort((a, b) => a[0] - b[0]));
      assert.equal(await page.getAttribute('#bracket', 'data-rounds'), String(r.rounds.length));
      // The chosen arm's samples are drawn: the traces export is on.
      assert.equal(await page.isDisabled('#export-traces'), false);
      break;
    }
    case 'compare': {
      const t = await rows(page, '#compare-table');
      assert.equal(t.length, r.entries.length);
      r.entries.forEach((e, i) => {
        assert.equal(t[i][0], e.name);
        assert.equal(t[i][1], e.best ? `#${e.best.arm}` : 'none');
        if (e.best) assert.equal(t[i][2], fmtStep(e.best.step));
      });
      break;
    }
    case 'bandit': {
      const t = await rows(page, `${P}table`);
      assert.deepEqual(t.map((x) => x[0]), r.algorithms.map((a) => a.name));
      assert.deepEqual(t.map((x) => x[1]), r.algorithms.map((a) => fmtSci(a.final_simple_regret.mean)));
      assert.deepEqual(t.map((x) => x[3]), r.algorithms.map((a) => fmtSci(a.final_cumulative_regret.mean)));
      break;
    }
    case 'hoag': {
      const t = await rows(page, `${P}table`);
      assert.deepEqual(t.map((x) => x[0]), r.methods.map((m) => m.name));
      assert.deepEqual(t.map((x) => x[2]), r.methods.map((m) => m.final_loss.toPrecision(6)));
      assert.deepEqual(t.map((x) => x[3]), r.methods.map((m) => m.final_validation_loss.toPrecision(6)));
      break;
    }
    case 'lr-schedule': {
      const t = await rows(page, `${P}table`);
      const byName = new Map(r.methods.map((m) => [m.name, m]));
      assert.equal(t.length, r.methods.length);
      for (const x of t) assert.equal(x[1], fmtSci(byName.get(x[0]).final_loss), x[0]);
      break;
    }
    case 'step-size': {
      const t = await rows(page, `${P}table`);
      const all = [r.gp_ucb, ...r.fixed];
      assert.deepEqual(t.map((x) => x[0]), all.map((m) => m.name));
      assert.deepEqual(t.map((x) => x[1]), all.map((m) => (m.tail_ksd == null ? 'diverged' : fmtSci(m.tail_ksd))));
      break;
    }
    case 'tvo': {
      const t = await rows(page, `${P}table`);
      const byName = new Map(r.summary.map((m) => [m.method, m]));
      assert.equal(t.length, r.summary.length);
      for (const x of t) assert.equal(x[1], nats(byName.get(x[0]).log_px_mean), x[0]);
      break;
    }
    default: throw new Error(kind);
  }
}
