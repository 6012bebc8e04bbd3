// The page's one upload path: every panel's file input (the tune panel's CSV, the other panels' CSV rows, HOAG's
// svmlight file) reads its file with readUpload, and CSV texts are looked at with the helpers here before the
// worker parses and checks them: binary or non-UTF-8 bytes, a semicolon or tab delimiter (and a rewrite with
// commas), the header's column names, a file name fit for a message.

/**
 * Why a file's bytes are not CSV text, or null: binary (NUL bytes or many control characters) or not UTF-8.
 * @param {Uint8Array} bytes
 * @returns {string|null}
 */
export function notText(bytes) {
  const head = bytes.subarray(0, 65536);
  let control = 0;
  for (const b of head) {
    if (b === 0) return 'it contains binary data (NUL bytes)';
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  }
  if (control > Math.max(2, head.length / 200)) return 'it contains binary data (control characters)';
  try { new TextDecoder('utf-8', { fatal: true }).decode(bytes); } catch { return 'it is not UTF-8 text'; }
  return null;
}

/**
 * The delimiter a text seems to use when it is not a comma: ';' or '\t' when the header has none of the commas
 * and the first lines split into the same number (> 1) of cells by it; else null.
 * @param {string} text
 */
export function otherDelimiter(text) {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((l) => l.trim()).slice(0, 6);
  if (!lines.length || lines[0].includes(',') && lines[0].split(',').length > 1 && !/[;\t]/.test(lines[0])) return null;
  for (const d of [';', '\t']) {
    const n = lines[0].split(d).length;
    if (n > 1 && lines.every((l) => l.split(d).length === n) && lines[0].split(',').length < n) return d;
  }
  return null;
}

/**
 * The text with `d` as delimiter rewritten as a comma-separated one (no quoted cells expected); decimal commas
 * (0,5) become points, as in files saved where the comma is the decimal separator.
 * @param {string} text @param {string} d
 */
export function toCommas(text, d) {
  return text.split(/\r?\n/).map((line) => line.split(d).map((c) => {
    const t = c.trim();
    return /^[-+]?\d+,\d+(e[-+]?\d+)?$/i.test(t) ? t.replace(',', '.') : c;
  }).join(',')).join('\n');
}

/** A file name fit for a message (no control characters, at most 80 characters). @param {string} name */
export const cleanName = (name) => { const n = name.replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '?'); return n.length > 80 ? `${n.slice(0, 77)}…` : n; };

/**
 * Reads a chosen file: its name fit for a message, and its text, or why it is not text (`check`, by default
 * notText: binary or not UTF-8; an empty file passes, the worker names it).
 * @param {File} file @param {{check?: (bytes: Uint8Array) => string|null}} [opts]
 * @returns {Promise<{name: string, text: string|null, why: string|null}>}
 */
export async function readUpload(file, { check = notText } = {}) {
  const name = cleanName(file.name);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const why = bytes.length ? check(bytes) : null;
  return { name, text: why ? null : new TextDecoder('utf-8').decode(bytes), why };
}

/** The message for a file that is not CSV text. @param {string} name @param {string} why */
export const notCsvText = (name, why) => `${name}: this does not look like a CSV text file (${why}). Choose a table saved as CSV (comma-separated, UTF-8 text).`;

/** The one message for an empty file (or one of blank lines). @param {string} name */
export const emptyFile = (name) => `${name}: the file is empty. Choose a CSV file with a header line and at least one row.`;

/** A delimiter's name in a message: "semicolons (;)" or "tabs"; `short`: "“;”" or "tabs". @param {string} d */
export const delimiterName = (d, short = false) => (d === ';' ? (short ? '“;”' : 'semicolons (;)') : 'tabs');

/**
 * Column names of a CSV's header line (for label menus and messages only; the worker parses and checks the file).
 * @param {string} text
 */
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

/** The number of data rows of a CSV text (non-blank lines after the header). @param {string} text */
export const csvRows = (text) => text.split(/\r?\n/).filter((l) => l.trim()).length - 1;
