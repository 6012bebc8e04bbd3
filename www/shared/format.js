// Number formats of the page's labels, tables and readings (one each). Pure: no DOM, importable from node.

/** A number for labels: 3 significant digits, exponent form when very large or small. @param {number|null|undefined} v */
export const fmtSci = (v) => (v == null ? '' : !Number.isFinite(v) ? '–' : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(2) : String(+v.toPrecision(3)));

/**
 * Tick label: short and exact for the 1-2-5 values logSplits picks: 1e-5, 2e-3, 0.05, 3, 200, 5e4, 2e6 (no
 * "1.05e+6"). Values with more digits fall back to fmtSci.
 * @param {number|null|undefined} v
 */
export function fmtTick(v) {
  if (v == null || !Number.isFinite(v)) return '';
  if (v === 0) return '0';
  const k = Math.floor(Math.log10(Math.abs(v)) + 1e-9);
  const m = +(v / 10 ** k).toPrecision(3);
  if (Math.abs(m * 10 ** k - v) > 1e-6 * Math.abs(v)) return fmtSci(v);
  if (Math.abs(k) >= 3) return `${m}e${k}`;
  return String(+v.toPrecision(3));
}

/** 3 significant digits, as the readings print every number. @param {number} v */
export const fmt3 = (v) => (Number.isFinite(v) ? (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? Number(v.toPrecision(3)).toString() : v.toExponential(2)) : String(v));

/** "1e-4.5" style label of a step size. @param {number} h */
export const fmtStep = (h) => (Number.isFinite(h) && h > 0 ? `1e${+Math.log10(h).toFixed(2)}` : '–');
/** A batch fraction as a percentage ("10%", "0.1%"). @param {number} f */
export const fmtBatch = (f) => (Number.isFinite(f) ? `${+(f * 100).toPrecision(3)}%` : '–');

/** "3.2×" for a ratio (≥ 1). @param {number} r */
export const fmtTimes = (r) => `${r >= 10 ? Math.round(r) : +r.toFixed(1)}×`;
