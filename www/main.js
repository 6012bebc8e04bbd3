// The playground page: wires the settings form, the compute worker and the views. The main thread only draws.
import { ComputeClient, detectFlavour } from './client.js';
import { parseHash, formatHash, toTuneConfig, PRESETS, TOY_MODELS, DEFAULTS, normalise } from './state.js';
import { writeForm, readForm, updateVisibility, describeArms } from './settings.js';
import { RunModel } from './run.js';
import { ScoreChart, TraceChart, HistChart, drawDensity, fmtSci } from './charts.js';
import { renderBracket, renderArmsTable, renderBest, renderPosterior, renderCompare, fmtStep, fmtBatch } from './views.js';
import { download, toJson, tracesCsv, canvasesToPng } from './export.js';
import { initLabs } from './labs.js';
import { installPanels } from './panels/registry.js';

const $ = (id) => document.getElementById(id);
const form = $('settings');

/** Test and embed hooks: the page's live state, read-only by convention. */
const hooks = (window.__tunelab = {
  state: null, info: null, lastChartData: null, lastResult: null, runs: 0, running: false, errors: [], unknownEvents: [],
});

let state = parseHash(location.hash).state;
let csvText = null;        // the uploaded file's text (never leaves the browser)
let csvName = '';
let current = null;        // {cancel} of the run in progress
let lastResult = null;     // {config, result, model}
let compareEntries = [];

// ---------------------------------------------------------------- compute worker and runtime badge
const client = new ComputeClient({
  onReady: (info) => showRuntime(info),
  onFatal: (msg) => showMessage(msg, 'error'),
});
hooks.client = client;

function showRuntime(info) {
  hooks.info = info;
  const badge = $('runtime');
  badge.classList.remove('bad');
  badge.dataset.flavour = info.flavour;
  badge.dataset.threads = String(info.threads);
  const { isolated } = detectFlavour();
  badge.textContent = info.flavour === 'parallel'
    ? `Threads: ${info.threads} (WebAssembly + rayon pool) · v${info.version}`
    : `Single thread (WebAssembly${isolated ? '' : '; page not cross-origin isolated'}) · v${info.version}`;
  badge.title = info.fallback ? `The threaded build could not start (${info.fallback}); running single-threaded.` :
    info.flavour === 'parallel' ? 'The page is cross-origin isolated, so the threaded build runs arms in parallel.' :
      'Threads need the Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy headers; this host does not send them.';
}
client.ready().catch((e) => {
  const badge = $('runtime');
  badge.classList.add('bad');
  badge.textContent = `Compute worker failed: ${e.message}`;
  showMessage(`The compute module could not start: ${e.message}`, 'error');
});

// ---------------------------------------------------------------- settings and URL hash
function syncFromState() {
  writeForm(form, state);
  refreshDerived();
}

function refreshDerived() {
  hooks.state = { ...state };
  updateVisibility(form, state);
  const { m, text } = describeArms(state);
  const ac = $('arm-count');
  ac.textContent = text;
  ac.dataset.arms = String(m);
  if (state.data === 'upload' && !csvText) setDataMessage('Choose a CSV file: the label column must hold 0/1 for logistic regression.', 'info');
  $('ksd-sub').textContent = `(${state.metric.toUpperCase()} against ${unitLabel(state.unit)}, log scales)`;
}

function unitLabel(u) { return u === 'grad_evals' ? 'gradient evaluations' : u === 'seconds' ? 'seconds of compute' : 'iterations'; }

function writeHash() {
  // Keys of other modules (panel=, bandit.*, hoag.*, lr.*, embed and lesson flags) stay in the hash.
  const foreign = {};
  for (const [k, v] of new URLSearchParams(location.hash.replace(/^#/, ''))) if (!(k in DEFAULTS)) foreign[k] = v;
  const h = formatHash(state, foreign);
  if (location.hash !== h) history.replaceState(null, '', h);
}

form.addEventListener('input', onFormChange);
form.addEventListener('change', onFormChange);
function onFormChange(e) {
  if (e.target.id === 'file' || e.target.id === 'preset') return;
  const prevData = state.data; const prevModel = state.model;
  const { state: s } = readForm(form, state);
  // Choosing a toy model switches the data source to none and back.
  if (e.target.id === 'data' && s.data === 'none' && !TOY_MODELS.includes(s.model)) s.model = 'banana';
  if (e.target.id === 'data' && s.data !== 'none' && TOY_MODELS.includes(s.model)) s.model = 'logistic';
  state = normalise(s);
  if (state.data !== prevData || state.model !== prevModel) writeForm(form, state);
  writeHash();
  refreshDerived();
  if (e.type === 'change' && (e.target.id === 'label' || e.target.id === 'standardize') && csvText) previewUpload();
}

$('preset').addEventListener('change', (e) => {
  const p = PRESETS[e.target.value];
  if (!p) return;
  state = normalise({ ...state, ...p });
  e.target.value = '';
  syncFromState();
  writeHash();
});

window.addEventListener('hashchange', () => {
  const { state: s } = parseHash(location.hash);
  state = s;
  syncFromState();
});

$('copy-link').addEventListener('click', async () => {
  writeHash();
  const url = location.href;
  try { await navigator.clipboard.writeText(url); showMessage('Link copied: it reproduces these settings and seeds.', 'info'); } catch {
    showMessage(`Copy this link: ${url}`, 'info');
  }
});

// ---------------------------------------------------------------- CSV upload (parsed and checked in the worker)
function setDataMessage(text, kind = 'error') {
  const m = $('data-message');
  m.textContent = text;
  m.className = `field-msg ${kind === 'error' ? '' : 'ok'}`;
  m.dataset.kind = kind;
}

/** Column names of a CSV's header line (for the label menu only; the worker parses and checks the file). */
export function headerColumns(text) {
  const line = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const out = [];
  let cell = ''; let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) { if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') q = false; else cell += c; }
    else if (c === '"' && cell.trim() === '') { cell = ''; q = true; }
    else if (c === ',') { out.push(cell.trim()); cell = ''; }
    else cell += c;
  }
  out.push(cell.trim());
  return out.filter((c) => c !== '');
}

$('file').addEventListener('change', async (e) => {
  const f = e.target.files?.[0];
  if (!f) return;
  csvName = f.name;
  delete $('csv-preview').dataset.valid;
  setDataMessage(`Reading ${f.name}…`, 'info');
  csvText = await f.text();
  // Label: keep the current one if the file has it, else "y", else the last column.
  const cols = headerColumns(csvText);
  if (!cols.includes(state.label)) state = { ...state, label: cols.includes('y') ? 'y' : (cols[cols.length - 1] ?? 'y') };
  const sel = $('label');
  sel.replaceChildren(...cols.map((c) => new Option(c, c)));
  sel.value = state.label;
  writeHash();
  await previewUpload();
});

async function previewUpload() {
  const box = $('csv-preview');
  try {
    const p = await client.previewCsv(csvText, state.label, state.standardize, toTuneConfig(state).model, 6);
    renderPreview(box, p);
    setDataMessage(`${csvName}: ${p.n} rows, ${p.p} features, label “${p.label}”.`, 'ok');
    box.dataset.valid = 'true';
  } catch (err) {
    box.replaceChildren();
    box.dataset.valid = 'false';
    setDataMessage(`${csvName}: ${err.message}`, 'error');
  }
}

function renderPreview(box, p) {
  const cols = p.columns;
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const c of cols) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = c;
    if (c === p.label) th.className = 'label-col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of p.rows ?? []) {
    const tr = body.insertRow();
    row.forEach((v, j) => {
      const td = tr.insertCell();
      td.textContent = typeof v === 'number' ? String(+v.toPrecision(4)) : String(v);
      if (cols[j] === p.label) td.className = 'label-col';
    });
  }
  const meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = `First ${p.rows.length} of ${p.n} rows${p.standardized ? ' (features standardised)' : ''}; label values: ${p.label_values.slice(0, 10).join(', ')}${p.label_values.length > 10 ? ', …' : ''}. Columns are shown features first, label last.`;
  box.replaceChildren(meta, table);
}

// ---------------------------------------------------------------- runs
const scoreChart = new ScoreChart($('chart-ksd'), {
  onHover: (a) => {
    $('ksd-hover').textContent = `arm #${a.id}: h = ${fmtStep(a.step)}, batch ${fmtBatch(a.batch)}, L = ${a.leapfrog}, score ${a.score == null ? '–' : fmtSci(a.score)}, ${a.status}`;
  },
});
const traceChart = new TraceChart($('chart-trace'));
const histChart = new HistChart($('chart-hist'));
renderLegend([]);

function renderLegend(batches) {
  const box = $('ksd-legend');
  box.replaceChildren();
  batches.forEach((b) => {
    const s = document.createElement('span');
    s.innerHTML = `<span class="sw" style="border-color:${scoreChart.colorOf({ batch: b })}"></span>batch ${fmtBatch(b)}`;
    box.append(s);
  });
  const extra = [['#000', '', 'chosen arm'], ['#0072B2', 'faded', 'pruned'], ['#5b6470', 'dashed', 'round boundary']];
  for (const [c, cls, t] of extra) {
    const s = document.createElement('span');
    s.innerHTML = `<span class="sw ${cls}" style="border-color:${c}"></span>${t}`;
    box.append(s);
  }
}

function showMessage(text, kind = 'info') {
  const m = $('message');
  m.textContent = text;
  m.className = `message ${kind}`;
  m.dataset.kind = kind;
  if (kind === 'error') hooks.errors.push(text);
}

function setRunning(on) {
  hooks.running = on;
  $('run').disabled = on;
  $('stop').disabled = !on;
  document.body.dataset.running = on ? 'true' : 'false';
}

let drawPending = false;
let drawFull = false;
let lastFullDraw = 0;
/** Redraws on the next frame: the chart, bracket and table when arms changed (or every second, for the
 * table's live counters), the progress line always. Keeps each frame's work small. */
function scheduleDraw(model, changed) {
  drawFull = drawFull || changed || performance.now() - lastFullDraw > 1000;
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    if (drawFull) { drawFull = false; lastFullDraw = performance.now(); drawRun(model); } else drawStats(model);
  });
}

function drawRun(model) {
  const t0 = performance.now();
  drawRunInner(model);
  // Main-thread cost of each redraw (ms), for the benchmark script; the last 200 are kept.
  const times = (hooks.drawTimes ??= []);
  times.push(Math.round(performance.now() - t0));
  if (times.length > 200) times.shift();
}

function drawRunInner(model) {
  hooks.lastChartData = scoreChart.update({ boundaries: model.boundaries, best: model.done ? model.best : null });
  hooks.chartArms = model.arms.map((a) => ({ id: a.id, status: a.status, points: a.points.length }));
  renderBracket($('bracket'), model, scoreChart);
  renderArmsTable($('arms-table').tBodies[0], model);
  drawStats(model);
}

function drawStats(model) {
  const total = model.expectedTotal();
  const spent = model.spent();
  // Diverged arms stop early, so a finished run can have spent less than the schedule: it is 100% done.
  const frac = model.done ? 1 : total > 0 ? Math.min(1, spent / total) : 0;
  $('progress').value = model.done ? 1 : frac;
  const el = model.elapsed;
  const { iters, grad_evals } = model.totals();
  const expected = frac > 0.02 && !model.done ? ` of about ${(el / frac).toFixed(1)} s` : '';
  $('stats').textContent = `${model.done ? 'Done' : `Round ${model.round + 1}`} · ${el.toFixed(1)} s${expected} · ` +
    `${Math.round(frac * 100)}% · ${fmtRate(iters / Math.max(el, 1e-3))} it/s · ${fmtRate(grad_evals / Math.max(el, 1e-3))} grad evals/s`;
}

const fmtRate = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));

async function runOne(config) {
  const model = new RunModel(state.unit);
  let started = false;
  const t0 = performance.now();
  const onProgress = (events, elapsed) => {
    model.elapsed = elapsed;
    let redraw = false;
    for (const ev of events) {
      if (ev.type === 'started') {
        model.apply(ev);
        scoreChart.reset(model.arms, unitLabel(state.unit), state.metric.toUpperCase());
        renderLegend(scoreChart.batches);
        started = true;
        redraw = true;
        continue;
      }
      redraw = model.apply(ev) || redraw;
    }
    if (model.unknown.length) hooks.unknownEvents = [...new Set(model.unknown)];
    if (started) scheduleDraw(model, redraw); else drawStats(model);
  };
  const run = client.runTune(config, state.data === 'upload' ? csvText : null, onProgress);
  current = run;
  const result = await run.promise;
  model.elapsed = (performance.now() - t0) / 1000;
  hooks.lastEvents = model.unknown;
  model.applyReport(result.report);
  if (!started) { scoreChart.reset(model.arms, unitLabel(state.unit), state.metric.toUpperCase()); renderLegend(scoreChart.batches); }
  drawRun(model);
  return { config, result, model };
}

async function run() {
  if (current) return;
  const { bad } = readForm(form, state);
  if (bad.length) { showMessage(`Fix the highlighted settings first: ${bad.join(', ')}.`, 'error'); return; }
  if (state.data === 'upload' && !csvText) { showMessage('Choose a CSV file first (Data → CSV file).', 'error'); return; }
  if (describeArms(state).m === 0) { showMessage('There are no arms to run: check the step range and batch sizes.', 'error'); return; }
  showMessage('', 'info');
  setRunning(true);
  hooks.runs++;
  $('progress').value = 0;
  compareEntries = [];
  $('compare-card').hidden = !state.compare;
  try {
    const base = toTuneConfig(state);
    const runs = state.compare ? await client.compareConfigs(base) : [{ name: state.tuner, config: base }];
    compareEntries = runs.map((r) => ({ name: r.name, report: null, error: null }));
    if (state.compare) renderCompare($('compare-table').tBodies[0], compareEntries);
    let ok = null;
    for (const [i, r] of runs.entries()) {
      try {
        lastResult = await runOne(r.config);
        ok = lastResult;
        compareEntries[i].report = lastResult.result.report;
      } catch (err) {
        if (err.name === 'CancelledError' || !state.compare) throw err;
        compareEntries[i].error = err.message;
      }
      if (state.compare) renderCompare($('compare-table').tBodies[0], compareEntries);
    }
    if (!ok) throw new Error(compareEntries.map((e) => `${e.name}: ${e.error}`).join('; '));
    lastResult = ok;
    hooks.lastResult = { config: lastResult.config, report: lastResult.result.report, dim: lastResult.result.dim };
    hooks.compare = compareEntries.map((e) => ({ name: e.name, best: e.report?.best ?? null, error: e.error }));
    await showPosterior(lastResult);
    $('export-report').disabled = false;
    $('export-traces').disabled = !lastResult.result.samples;
    $('export-png').disabled = false;
    const b = lastResult.result.report.best;
    showMessage(b ? `Done: the chosen arm is #${b.arm} (h = ${fmtSci(b.step)}, batch ${fmtBatch(b.batch_fraction)}${b.leapfrog > 1 ? `, L = ${b.leapfrog}` : ''}).` : 'Done, but no arm could be chosen (every arm diverged).', b ? 'info' : 'error');
  } catch (err) {
    if (err.name === 'CancelledError') showMessage('Stopped. Change the settings or press Run again.', 'info');
    else showMessage(`The run failed: ${err.message}`, 'error');
  } finally {
    current = null;
    setRunning(false);
  }
}

async function showPosterior({ result, config }) {
  const d = result.dim ?? 0;
  const samples = result.samples;
  const names = null;
  renderBest($('best'), result.report, result);
  renderPosterior($('post-table').tBodies[0], result.report.best?.posterior, names);
  const sel = $('coord');
  sel.replaceChildren(...Array.from({ length: d }, (_, j) => new Option(names?.[j] ?? `θ${j + 1}`, String(j))));
  sel.disabled = d === 0;
  const drawCoord = () => {
    const j = Number(sel.value || 0);
    const n = samples ? Math.floor(samples.length / d) : 0;
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = samples[i * d + j];
    traceChart.draw(col, sel.options[j]?.text ?? `θ${j + 1}`);
    histChart.draw(col, sel.options[j]?.text ?? `θ${j + 1}`);
  };
  sel.onchange = drawCoord;
  if (d > 0 && samples) drawCoord(); else { traceChart.clear(); histChart.clear(); }
  const wrap = $('density-wrap');
  if (d === 2 && config.data.source === 'none' && samples.length >= 2) {
    try {
      const grid = await client.request('density-grid', { model: config.model, samples, nx: 120, ny: 120 });
      drawDensity($('density'), grid, samples);
      wrap.hidden = false;
    } catch (err) {
      wrap.hidden = true;
      showMessage(`Could not draw the density: ${err.message}`, 'error');
    }
  } else wrap.hidden = true;
}

$('run').addEventListener('click', run);
$('stop').addEventListener('click', () => { current?.cancel(); });
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && current) current.cancel();
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !current && (hooks.panel ?? 'tune') === 'tune') run();
});

// ---------------------------------------------------------------- exports
$('export-config').addEventListener('click', () => download('tunelab-config.json', toJson(toTuneConfig(state)), 'application/json'));
$('export-report').addEventListener('click', () => lastResult && download('tunelab-report.json',
  toJson(state.compare ? { entries: compareEntries.map((e) => ({ tuner: e.tuner, report: e.report, error: e.error })) } : lastResult.result.report), 'application/json'));
$('export-traces').addEventListener('click', () => lastResult?.result.samples &&
  download('tunelab-traces.csv', tracesCsv(lastResult.result.samples, lastResult.result.dim, lastResult.result.names), 'text/csv'));
$('export-png').addEventListener('click', async () => {
  const canv = [scoreChart.canvas(), traceChart.canvas(), histChart.canvas()];
  if (!$('density-wrap').hidden) canv.push($('density'));
  download('tunelab-charts.png', await canvasesToPng(canv), 'image/png');
});

// ---------------------------------------------------------------- start
initLabs(client, hooks);
syncFromState();
writeHash();
hooks.DEFAULTS = DEFAULTS;
installPanels({ client, hooks });
