// "More tuners": the bandit (issue 5), HOAG and learning-rate-schedule (issue 6) comparisons, each from a
// core preset whose JSON config can be edited, with a live chart and a results table. Same worker, same
// protocol, same cancel as the tuning runs.
import { LinesChart, fmtSci } from './charts.js';
import { download, toJson } from './export.js';
import { hashParams, editHash } from './panels/common.js';

/** URL hash keys of the card: the experiment and the JSON config last run (so a copied link reruns it). */
const HASH_KEY = 'lab';
const HASH_CONFIG = 'lab.config';

/** The experiments offered: runner + core preset, what to chart and how. */
export const LAB_PRESETS = {
  'bandit:beta-reservoir': { runner: 'bandit', name: 'beta-reservoir' },
  'bandit:tvo-schedule': { runner: 'bandit', name: 'tvo-schedule' },
  'bandit:branin': { runner: 'bandit', name: 'branin' },
  'bandit:logreg-sgd': { runner: 'bandit', name: 'logreg-sgd' },
  'bandit:sgmcmc-ksd': { runner: 'bandit', name: 'sgmcmc-ksd' },
  'hoag:logreg': { runner: 'hoag', name: 'logreg' },
  'hoag:kernel-ridge': { runner: 'hoag', name: 'kernel-ridge' },
  'lrsched:noisy-quadratic': { runner: 'lrsched', name: 'noisy-quadratic' },
  'lrsched:digits-logreg': { runner: 'lrsched', name: 'digits-logreg' },
  'lrsched:digits': { runner: 'lrsched', name: 'digits' },
};

const el = (tag, text) => { const e = document.createElement(tag); if (text != null) e.textContent = text; return e; };
const fmtVec = (v) => `[${v.map((x) => fmtSci(x)).join(', ')}]`;

/** Live series per runner, folded from its events; and the final series and table from its report. */
export class LabModel {
  constructor(runner) { this.runner = runner; this.series = new Map(); this.status = ''; }

  line(name) {
    if (!this.series.has(name)) this.series.set(name, { name, xs: [], ys: [] });
    return this.series.get(name);
  }

  apply(ev) {
    switch (`${this.runner}:${ev.type}`) {
      case 'bandit:started': ev.algorithms.forEach((n) => this.line(n)); this.status = `${ev.problem}: ${ev.rounds} rounds × ${ev.repeats} repeats`; return;
      case 'bandit:preparing': this.status = `running every SG-MCMC configuration first: ${ev.done} of ${ev.total} runs`; return;
      case 'bandit:progress':
        for (const c of ev.curves) { const l = this.line(c.name); l.xs.push(...c.rounds); l.ys.push(...c.simple_regret); }
        this.status = `round ${ev.round} of ${ev.rounds}`;
        return;
      case 'hoag:started': ev.methods.forEach((n) => this.line(n)); this.status = `${ev.hyper_names.join(', ')}; ${ev.n_train} train / ${ev.n_test} test / ${ev.n_validation} validation rows`; return;
      case 'hoag:landscape': return;
      case 'hoag:progress': { const l = this.line(ev.name); l.xs.push(ev.point.seconds); l.ys.push(ev.point.suboptimality); this.status = `${ev.name}: iteration ${ev.point.iter}`; return; }
      case 'hoag:method-done': this.status = `${ev.name} done: outer loss ${fmtSci(ev.final_loss)}`; return;
      case 'lrsched:started': ev.methods.forEach((n) => this.line(n)); this.status = `${ev.intervals} intervals × ${ev.steps_per_interval} steps`; return;
      case 'lrsched:method-done': { const l = this.line(ev.name); l.xs = ev.trace.map((p) => p.step); l.ys = ev.trace.map((p) => p.loss); this.status = `${ev.name}: final loss ${fmtSci(ev.final_loss)}`; return; }
      case 'lrsched:interval-done': this.status = `dynamic tuner: interval ${ev.interval + 1}, best loss ${fmtSci(ev.best_loss)}`; return;
      case 'bandit:done': case 'hoag:done': case 'lrsched:done': return;
      default: this.unknown = [...(this.unknown ?? []), ev.type];
    }
  }

  fromReport(report) {
    this.series.clear();
    if (this.runner === 'bandit') {
      for (const a of report.algorithms) Object.assign(this.line(a.name), { xs: report.rounds, ys: a.simple_regret.mean });
    } else if (this.runner === 'hoag') {
      for (const m of report.methods) Object.assign(this.line(m.name), { xs: m.trace.map((p) => p.seconds), ys: m.trace.map((p) => p.suboptimality) });
    } else {
      for (const m of report.methods) Object.assign(this.line(m.name), { xs: m.trace.map((p) => p.step), ys: m.trace.map((p) => p.loss) });
    }
  }

  axes() {
    switch (this.runner) {
      case 'bandit': return { xLabel: 'round', yLabel: 'simple regret (mean over repeats)', logY: false };
      case 'hoag': return { xLabel: 'seconds', yLabel: 'suboptimality of the outer loss', logX: true, logY: true };
      default: return { xLabel: 'training step', yLabel: 'training loss', logY: true };
    }
  }

  /** [header, rows] of the final table. */
  static table(runner, report) {
    switch (runner) {
      case 'bandit': return [['algorithm', 'simple regret', 'cumulative regret', 'failures'],
        report.algorithms.map((a) => [a.name, `${fmtSci(a.final_simple_regret.mean)} ± ${fmtSci(a.final_simple_regret.hi - a.final_simple_regret.mean)}`,
          `${fmtSci(a.final_cumulative_regret.mean)} ± ${fmtSci(a.final_cumulative_regret.hi - a.final_cumulative_regret.mean)}`, String(a.failures)])];
      case 'hoag': return [['method', 'outer loss', 'validation loss', report.hyper_names.join(', '), 'cost', 'seconds', 'stopped'],
        report.methods.map((m) => [m.name, fmtSci(m.final_loss), fmtSci(m.final_validation_loss), fmtVec(m.final_hyper), String(m.cost), m.seconds.toFixed(2), m.stopped])];
      default: return [['method', 'family', 'final loss', 'test loss', 'diverged'],
        report.methods.map((m) => [m.name, m.family, fmtSci(m.final_loss), fmtSci(m.test_loss), m.diverged ? 'yes' : 'no'])];
    }
  }
}

/** Wires the "More tuners" card. */
export function initLabs(client, hooks) {
  const $ = (id) => document.getElementById(id);
  const chart = new LinesChart($('chart-lab'), 'Pick an experiment and press Run.', $('lab-legend'));
  let current = null;
  let lastReport = null;
  const sel = $('lab-preset');
  const cfgBox = $('lab-config');
  const msg = (text, kind = 'info') => { const m = $('lab-message'); m.textContent = text; m.className = `message ${kind}`; m.dataset.kind = kind; };

  async function loadPreset() {
    const p = LAB_PRESETS[sel.value];
    try {
      const want = sel.value;
      const cfg = await client.runnerPreset(p.runner, p.name);
      if (sel.value !== want) return; // another experiment was picked meanwhile
      cfgBox.value = JSON.stringify(cfg, null, 2);
      cfgBox.dataset.preset = want;
      msg('');
    } catch (e) { msg(`Could not load the preset: ${e.message}`, 'error'); }
  }
  sel.addEventListener('change', loadPreset);
  // A link with the card's keys restores the experiment and its edited config (a lesson's own keys win).
  const initial = hashParams();
  const linked = !initial.has('lesson') && LAB_PRESETS[initial.get(HASH_KEY)] ? initial.get(HASH_KEY) : null;
  if (linked) sel.value = linked;
  function restoreLinked() {
    try {
      const cfg = JSON.parse(initial.get(HASH_CONFIG) ?? '');
      cfgBox.value = JSON.stringify(cfg, null, 2);
      cfgBox.dataset.preset = linked;
      msg('Config restored from the link.');
    } catch {
      loadPreset().then(() => msg('The config in the link is not valid JSON: the preset was loaded instead.', 'error'));
    }
  }
  client.ready().then(() => (linked && sel.value === linked && initial.has(HASH_CONFIG) ? restoreLinked() : loadPreset()), () => {});

  function drawTable(runner, report) {
    const [head, rows] = LabModel.table(runner, report);
    const t = $('lab-table');
    const tr = el('tr');
    head.forEach((h) => { const th = el('th', h); th.scope = 'col'; tr.append(th); });
    t.tHead.replaceChildren(tr);
    t.tBodies[0].replaceChildren(...rows.map((r) => { const row = el('tr'); r.forEach((c) => row.append(el('td', c))); return row; }));
  }

  $('lab-run').addEventListener('click', async () => {
    if (current) return;
    const p = LAB_PRESETS[sel.value];
    let config;
    try { config = JSON.parse(cfgBox.value); } catch (e) { msg(`The config is not valid JSON: ${e.message}`, 'error'); return; }
    editHash((h) => { h.set(HASH_KEY, sel.value); h.set(HASH_CONFIG, JSON.stringify(config)); });
    const model = new LabModel(p.runner);
    chart.clear();
    $('lab-table').tHead.replaceChildren();
    $('lab-table').tBodies[0].replaceChildren();
    msg('');
    $('lab-run').disabled = true; $('lab-stop').disabled = false;
    hooks.labRunning = true;
    const t0 = performance.now();
    let pending = false;
    let finished = false;
    const redraw = () => { pending = false; if (finished) return; chart.draw([...model.series.values()], model.axes()); $('lab-stats').textContent = `${((performance.now() - t0) / 1000).toFixed(1)} s · ${model.status}`; };
    current = client.runRunner(p.runner, config, null, null, (events) => {
      for (const ev of events) model.apply(ev);
      if (!pending) { pending = true; requestAnimationFrame(redraw); }
    });
    try {
      const report = await current.promise;
      finished = true;
      lastReport = report;
      model.fromReport(report);
      hooks.labChartData = chart.draw([...model.series.values()], model.axes());
      hooks.labReport = { runner: p.runner, report };
      drawTable(p.runner, report);
      $('lab-export').disabled = false;
      $('lab-stats').textContent = `Done in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
      msg(`Done: ${[...model.series.keys()].length} methods compared.`);
    } catch (e) {
      msg(e.name === 'CancelledError' ? 'Stopped.' : `The run failed: ${e.message}`, e.name === 'CancelledError' ? 'info' : 'error');
    } finally {
      finished = true;
      current = null;
      hooks.labRunning = false;
      hooks.labRuns = (hooks.labRuns ?? 0) + 1;
      $('lab-run').disabled = false; $('lab-stop').disabled = true;
    }
  });
  $('lab-stop').addEventListener('click', () => current?.cancel());
  $('lab-export').addEventListener('click', () => lastReport && download('tunelab-lab-report.json', toJson(lastReport), 'application/json'));
}
