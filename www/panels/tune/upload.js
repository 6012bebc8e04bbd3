// The tune panel's data file (Data → CSV file, markup in index.html: #file, #label, #label-note, #csv-fix,
// #csv-preview, #data-message): read with the page's one upload path (shared/upload.js), the label menu filled
// from the header, a semicolon or tab file offered a one-click rewrite, and the worker's preview of the parsed
// table. The text itself stays on the panel (`csvText`, `csvName`: a run hands it to the worker).
import { el, $ } from '../../shared/dom.js';
import { readUpload, cleanName, notCsvText, emptyFile, otherDelimiter, toCommas, delimiterName, headerColumns } from '../../shared/upload.js';
import { toTuneConfig } from './state.js';

export class TuneUpload {
  /** @param {import('./panel.js').TunePanel} panel */
  constructor(panel) {
    this.panel = panel;
  }

  /** The data status line under the file input. @param {string} text @param {'info'|'error'|'ok'} [kind] */
  message(text, kind = 'error') {
    const m = $('data-message');
    m.textContent = text;
    m.className = `field-msg ${kind === 'error' ? '' : 'ok'}`;
    m.dataset.kind = kind;
  }

  /** A file the page will not hand to the worker: no text, the label menu back to "y", no preview. @param {string} text */
  reject(text) {
    this.panel.csvText = null;
    this.panel.csvProblem = text;
    $('label-note').hidden = true;
    $('label').replaceChildren(new Option('y', 'y'));
    const box = $('csv-preview');
    box.replaceChildren();
    box.dataset.valid = 'false';
    this.message(text, 'error');
  }

  /** A file was chosen. @param {HTMLInputElement} input */
  async onFile(input) {
    const p = this.panel;
    const f = input.files?.[0];
    if (!f) return;
    p.csvName = cleanName(f.name);
    p.csvProblem = null;
    p.fileChanged();
    delete $('csv-preview').dataset.valid;
    $('label-note').hidden = true;
    $('csv-fix').hidden = true;
    this.message(`Reading ${p.csvName}…`, 'info');
    const { text, why } = await readUpload(f);
    // Binary or non-UTF-8 files never reach the label menu or the message (their bytes would be garbage there).
    if (why) {
      this.reject(notCsvText(p.csvName, why));
      return;
    }
    if (!text?.trim()) { this.reject(emptyFile(p.csvName)); return; }
    // A ratings file may use tabs or "::" (MovieLens): the core's ratings parser reads them.
    const d = p.state.model === 'pmf' ? null : otherDelimiter(text);
    if (d) {
      this.reject(`${p.csvName}: the columns seem to be separated by ${delimiterName(d)}, not commas. Save the file with commas as the delimiter, or read it with ${delimiterName(d, true)} below.`);
      const fix = /** @type {HTMLButtonElement} */ ($('csv-fix'));
      fix.textContent = `Read it with ${delimiterName(d, true)} as the delimiter`;
      fix.hidden = false;
      fix.onclick = () => { fix.hidden = true; this.use(toCommas(text, d)); };
      return;
    }
    await this.use(text);
  }

  /** Takes a CSV text: fills the label menu (and says which column was taken) and previews it. @param {string} text */
  async use(text) {
    const p = this.panel;
    p.csvText = text;
    if (p.state.model === 'pmf') {
      // Ratings: the columns are user, item, rating whatever the header says.
      p.state = { ...p.state, label: 'rating' };
      $('label').replaceChildren(new Option('rating', 'rating'));
      $('label-note').hidden = true;
      p.writeHash();
      await this.preview();
      return;
    }
    // Label: keep the current one if the file has it, else "y", else the last column (and say so).
    const cols = headerColumns(text);
    const auto = !cols.includes(p.state.label) && !cols.includes('y');
    if (!cols.includes(p.state.label)) p.state = { ...p.state, label: cols.includes('y') ? 'y' : (cols[cols.length - 1] ?? 'y') };
    const sel = $('label');
    sel.replaceChildren(...cols.map((c) => new Option(c, c)));
    sel.value = p.state.label;
    const note = $('label-note');
    note.textContent = auto ? `No column is named “y”: the last column, “${p.state.label}”, is taken as the label. Choose another in the menu above.` : '';
    note.hidden = !auto;
    p.writeHash();
    await this.preview();
  }

  /** The worker's parse of the current text with the current label and model: the preview table, or its error. */
  async preview() {
    const p = this.panel;
    const box = $('csv-preview');
    try {
      const r = await p.client.previewCsv(/** @type {string} */ (p.csvText), p.state.label, p.state.standardize, toTuneConfig(/** @type {any} */ (p.state)).model, 6);
      renderPreview(box, r);
      p.csvProblem = null;
      this.message(p.state.model === 'pmf' ? `${p.csvName}: ${r.n} ratings (user, item, rating).` : `${p.csvName}: ${r.n} rows, ${r.p} features, label “${r.label}”.`, 'ok');
      box.dataset.valid = 'true';
    } catch (err) {
      box.replaceChildren();
      box.dataset.valid = 'false';
      p.csvProblem = `${p.csvName}: ${/** @type {Error} */ (err).message}`;
      this.message(p.csvProblem, 'error');
    }
  }
}

/** The first rows of the parsed table, label column marked. @param {HTMLElement} box @param {any} p */
function renderPreview(box, p) {
  /** @type {string[]} */
  const cols = p.columns;
  const cls = (/** @type {string} */ c) => (c === p.label ? 'label-col' : null);
  const table = el('table', {},
    el('thead', {}, el('tr', {}, ...cols.map((c) => el('th', { scope: 'col', class: cls(c), text: c })))),
    el('tbody', {}, ...(p.rows ?? []).map((/** @type {any[]} */ row) => el('tr', {}, ...row.map((v, j) =>
      el('td', { class: cls(cols[j]), text: typeof v === 'number' ? String(+v.toPrecision(4)) : String(v) }))))));
  const meta = el('p', { class: 'meta', text: `First ${p.rows.length} of ${p.n} rows${p.standardized ? ' (features standardised)' : ''}; label values: ${p.label_values.slice(0, 10).join(', ')}${p.label_values.length > 10 ? ', …' : ''}. Columns are shown features first, label last.` });
  box.replaceChildren(meta, table);
}
