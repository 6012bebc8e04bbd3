// Downloads: config and report (JSON), traces (CSV); charts (PNG) come from charts.js. Everything is made in the page.

export function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export const toJson = (obj) => JSON.stringify(obj, (k, v) => (v instanceof Float64Array ? Array.from(v) : v), 2) + '\n';

/** JSON with object keys sorted (the same config gives the same text whatever its key order). */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

/**
 * A short hash of a config (FNV-1a, 32 bits, of its canonical JSON, 8 hex digits): printed on exported charts
 * and traces so that a figure can be matched with the config that made it.
 */
export function configHash(config) {
  const text = canonical(config);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(16).padStart(8, '0');
}

/**
 * Samples (row-major n x d) as CSV with a header of coordinate names; `note` lines (what the rows are, what
 * was cut) come first, each starting with "# " (pandas: `read_csv(..., comment='#')`).
 */
export function tracesCsv(samples, d, names, note = []) {
  const head = Array.from({ length: d }, (_, j) => names?.[j] ?? `theta${j + 1}`);
  const lines = [...note.map((l) => `# ${l}`), 'sample,' + head.join(',')];
  const n = Math.floor(samples.length / d);
  for (let i = 0; i < n; i++) {
    const row = [i + 1];
    for (let j = 0; j < d; j++) row.push(samples[i * d + j]);
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
