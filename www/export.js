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

/** Samples (row-major n x d) as CSV with a header of coordinate names. */
export function tracesCsv(samples, d, names) {
  const head = Array.from({ length: d }, (_, j) => names?.[j] ?? `theta${j + 1}`);
  const lines = ['sample,' + head.join(',')];
  const n = Math.floor(samples.length / d);
  for (let i = 0; i < n; i++) {
    const row = [i + 1];
    for (let j = 0; j < d; j++) row.push(samples[i * d + j]);
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}
