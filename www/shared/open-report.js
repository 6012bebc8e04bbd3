// Any report opened in the page: a report JSON written by `tunelab run --out`, Python (`tunelab.to_json`), Ray or the
// page's own "Report (JSON)" export, of any kind, shown in its tab exactly as if the page had run it (the panel's
// own finish path, www/panels/panel.js `showOpened`), marked "opened from a file" with its config and a "Run again
// here" button that loads the config. Opening never runs anything.
//
// The file is read and parsed in the compute worker (the core's strict parser, src/report_file.rs, through the
// binding's `open_report`), never on the page's main thread. A report over FULL_REPORT_BYTES opens without its
// samples (the card says what was left out and states the limit); a damaged file, a report of an unknown kind or
// a newer format is refused with one message and the page keeps what it showed.
//
// Entry point (also for the Jupyter widget): openReport(source, {name, origin}) -> Promise<OpenResult>.
import { el } from './dom.js';

/** Reports longer than this (bytes) open without their samples: the page's limit (the core's `FULL_REPORT_BYTES`). */
export const FULL_REPORT_BYTES = 64 * 1024 * 1024;

/** The panel that shows each kind (the tune panel shows comparisons too). */
export const PANEL_OF_KIND = /** @type {Record<string, string>} */ ({
  tune: 'tune', compare: 'tune', bandit: 'bandit', hoag: 'hoag', 'lr-schedule': 'lr-schedule', 'step-size': 'step-size', tvo: 'tvo',
});

/**
 * @typedef {object} OpenResult
 * @property {string} kind the report's experiment kind
 * @property {string} panel the panel (tab) that shows it
 * @property {string} status complete | stopped
 * @property {{path: string, parts: number, values: number}[]} dropped what was left out over the size limit
 * @property {number} bytes the file's size
 */

const win = /** @type {any} */ (window);

/** The page's hooks once its panels are built (www/panels/registry.js fires `tunelab:panels-ready`). */
function panelsReady() {
  if (win.__tunelab?.panels && Object.keys(win.__tunelab.panels).length) return Promise.resolve(win.__tunelab);
  return new Promise((resolve) => window.addEventListener('tunelab:panels-ready', () => resolve(win.__tunelab), { once: true }));
}

/** @param {string} message @param {string} code */
const reportError = (message, code) => Object.assign(new Error(message), { name: 'ReportError', code });

/**
 * Opens a report in its tab: parsed in the worker, shown through the panel's own finish path. Rejects with an
 * Error named `ReportError` (its `code`: damaged, not-a-report, unknown-kind, newer-format, too-large, invalid,
 * busy) and leaves the page as it was.
 * @param {string|Blob} source the file (read in the worker) or its text
 * @param {{name?: string, origin?: string, fullBytes?: number}} [meta] the file's name; where it came from
 *   (a sentence part such as "a file you chose"); the size above which samples are left out
 * @returns {Promise<OpenResult>}
 */
export async function openReport(source, meta = {}) {
  const hooks = await panelsReady();
  const running = Object.entries(hooks.panels).find(([, p]) => p.running);
  if (running) throw reportError(`A ${running[1].panel?.title ?? running[0]} run is in progress: stop it first, then open the report.`, 'busy');
  const fullBytes = meta.fullBytes ?? FULL_REPORT_BYTES;
  /** @type {import('../protocol.js').OpenedReport} */
  const opened = await hooks.client.openReport(source, fullBytes);
  const kind = opened.report.kind;
  const name = PANEL_OF_KIND[kind];
  const entry = name ? hooks.panels[name] : null;
  if (!entry) throw reportError(`this page has no tab for ${kind} reports`, 'unknown-kind');
  entry.show();
  await entry.panel.showOpened(opened, { name: meta.name ?? 'report.json', origin: meta.origin ?? null, fullBytes });
  return { kind, panel: name, status: opened.report.status, dropped: opened.dropped, bytes: opened.bytes };
}

/** @param {number} n */
const mbText = (n) => `${(n / 2 ** 20).toFixed(1)} MB`;

/**
 * What an opened report left out, as a sentence (empty when nothing was).
 * @param {{path: string, parts: number, values: number}[]} dropped @param {number} bytes @param {number} fullBytes
 */
export function droppedText(dropped, bytes, fullBytes) {
  if (!dropped.length) return '';
  const parts = dropped.map((d) => `${d.path} (${d.parts > 1 ? `${d.parts.toLocaleString('en-US')} parts, ` : ''}${d.values.toLocaleString('en-US')} numbers)`);
  return `This report is ${mbText(bytes)}, over the page's limit of ${mbText(fullBytes)} for a report with its samples, so it was opened without them. Left out: ${parts.join('; ')}. The parts drawn from samples (traces, histograms, the drill-down's draws) stay empty; everything else is the report's.`;
}

/**
 * The page's "Open a report…" button, its file input, drag and drop of a file anywhere on the page, and the
 * notice that says why a file was refused (under the tab bar; the panels keep what they showed).
 */
export function installOpenReport() {
  const button = document.getElementById('open-report');
  const input = /** @type {HTMLInputElement|null} */ (document.getElementById('open-report-file'));
  if (!button || !input) return;
  const notice = () => {
    let p = document.getElementById('open-report-msg');
    if (!p) {
      p = el('p', { id: 'open-report-msg', class: 'message error url-notice', role: 'alert' });
      document.getElementById('modes')?.after(p);
    }
    return p;
  };
  /** @param {File} file @param {string} origin */
  const open = async (file, origin) => {
    document.getElementById('open-report-msg')?.remove();
    try {
      await openReport(file, { name: file.name, origin });
    } catch (e) {
      const err = /** @type {Error & {code?: string}} */ (e);
      const msg = notice();
      msg.dataset.code = err.code ?? 'error';
      msg.textContent = `${file.name} was not opened: ${err.message}${/[.!?:]$/.test(err.message) ? '' : '.'} The page is as it was.`;
    }
  };
  button.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const f = input.files?.[0];
    input.value = '';
    if (f) open(f, 'a file you chose');
  });
  // A file dropped anywhere but on a file input (the panels' CSV uploads take their own drops).
  /** @param {DragEvent} e */
  const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files') && !(e.target instanceof HTMLInputElement && e.target.type === 'file');
  document.addEventListener('dragover', (e) => { if (hasFiles(e)) { e.preventDefault(); document.body.classList.add('dropping'); } });
  document.addEventListener('dragleave', (e) => { if (e.target === document.documentElement || e.target === document.body) document.body.classList.remove('dropping'); });
  document.addEventListener('drop', (e) => {
    document.body.classList.remove('dropping');
    if (!hasFiles(e)) return;
    const f = e.dataTransfer?.files?.[0];
    // A lesson file (.md, .markdown, .txt) is the lesson menu's drop (www/embed.js), not a report.
    if (!f || /\.(md|markdown|txt)$/i.test(f.name)) return;
    e.preventDefault();
    open(f, 'a file dropped on the page');
  });
}
