// SVG export of the MAMBA score chart: the same encoding as the page's chart (colour = step size, marker and
// dash = batch, chosen arm black, round ends dashed), with its title, legend, axis titles and the config's hash as
// SVG text (searchable, editable in a vector editor). Drawing only, from the RunModel's points.
import { fmtTick } from '../../shared/format.js';
import { svgMark } from '../../shared/marks.js';
import { esc, wrapPhrases } from '../../shared/chart-export.js';
import { dodge } from '../../shared/swarm.js';

/** Marker radius and the least distance between markers' centres, as on the page (score-chart.js). */
const R = 3.2;
const GAP = 2.4 * R + 1;

/** Decade (or 1-2-5) ticks of a log range. @param {number} lo @param {number} hi */
function logTicks(lo, hi) {
  const a = Math.floor(Math.log10(lo)); const b = Math.ceil(Math.log10(hi));
  for (const ms of [[1], [1, 2, 5]]) {
    const out = [];
    for (let e = a; e <= b; e++) for (const m of ms) { const v = +(m * 10 ** e).toPrecision(6); if (v >= lo && v <= hi) out.push(v); }
    if (out.length >= 2) return out;
  }
  return [lo, hi];
}

/**
 * The score chart as an SVG document.
 * @param {{title: string, xLabel: string, yLabel: string, footer: string, caption?: string[], arms: any[], best: number|null,
 *   boundaries: {round: number, x: number}[], legend: {label: string, color: string, ramp?: string[], dash?: boolean, glyph?: string}[],
 *   style: {strokeOf: (a: any) => string, markOf: (a: any) => string, dashOf: (a: any) => number[], hollowOf?: (a: any) => boolean}}} o
 * @returns {string}
 */
export function scoreSvg(o) {
  // The chart is 960 x 600; the settings caption (wrapped, about 6.2 px per character) goes under it.
  const W = 960; const H0 = 600;
  const caption = o.caption?.length ? wrapPhrases([`Settings: ${o.caption[0]}`, ...o.caption.slice(1)], ' · ', W - 32, (s) => s.length * 6.2) : [];
  const H = H0 + caption.length * 16;
  // Legend rows: as many items per row as fit (about 7 px per character).
  const rows = [[]]; let used = 0;
  for (const it of o.legend) {
    const w = 34 + it.label.length * 6.6;
    if (used + w > W - 40 && rows[rows.length - 1].length) { rows.push([]); used = 0; }
    rows[rows.length - 1].push({ ...it, w }); used += w;
  }
  // Top: the legend rows, then a strip of two rows for the round-end labels (above the plot: they cover no point).
  const pad = { l: 84, r: 24, t: 44 + rows.length * 20 + 32, b: 74 };
  const ph = H0 - pad.t - pad.b;
  const pw = W - pad.l - pad.r;
  const pts = o.arms.flatMap((a) => a.points.filter((p) => p[0] > 0 && Number.isFinite(p[1]) && p[1] > 0));
  const xs = [...pts.map((p) => p[0]), ...o.boundaries.map((b) => b.x)];
  const ys = pts.map((p) => p[1]);
  // x fitted to the data as on the page (a small margin for the markers).
  const xPad = xs.length ? 10 ** Math.max(0.02, 0.03 * Math.log10(Math.max(...xs) / Math.min(...xs))) : 1;
  const x0 = xs.length ? Math.min(...xs) / xPad : 1; const x1 = xs.length ? Math.max(...xs) * xPad : 10;
  const y0 = ys.length ? Math.min(...ys) / 1.5 : 0.1; const y1 = ys.length ? Math.max(...ys) * 1.5 : 10;
  // The plot's inner margins (px) keep room for the markers spread sideways (swarm.js), as on the page.
  let inL = 0; let inR = 0;
  const px = (/** @type {number} */ x) => pad.l + inL + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0) || 1)) * (pw - inL - inR);
  const py = (/** @type {number} */ y) => pad.t + ph - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0) || 1)) * ph;
  /** Every scored point's centre, spread as on the page (the same order: by compute, then score). */
  const place = () => {
    const all = o.arms.flatMap((a) => a.points.filter((p) => p[0] > 0 && Number.isFinite(p[1]) && p[1] > 0).map((p, k) => ({ a, k, x: px(p[0]), y: py(p[1]), s: p[1] })));
    all.sort((p, q) => p.x - q.x || p.s - q.s);
    const off = dodge(all, GAP);
    /** @type {Map<any, number[][]>} */
    const at = new Map();
    all.forEach((p, n) => { const l = at.get(p.a) ?? []; l[p.k] = [p.x + off[n], p.y]; at.set(p.a, l); });
    return { at, lo: Math.min(0, ...all.map((p, n) => p.x + off[n] - R * 1.4 - pad.l)), hi: Math.max(0, ...all.map((p, n) => p.x + off[n] + R * 1.4 - (pad.l + pw))) };
  };
  let placed = place();
  if (placed.lo < 0 || placed.hi > 0) { inL = Math.min(pw / 3, -placed.lo + 4); inR = Math.min(pw / 3, placed.hi + 4); placed = place(); }
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="16" y="24" font-size="15" font-weight="bold" fill="#1b1f24">${esc(o.title)}</text>`];
  // Legend.
  const defs = [];
  rows.forEach((row, r) => {
    let x = 16; const y = 46 + r * 20;
    for (const it of row) {
      if (it.ramp) {
        const id = `ramp${defs.length}`;
        defs.push(`<linearGradient id="${id}">${it.ramp.map((c, i) => `<stop offset="${i / (it.ramp.length - 1)}" stop-color="${c}"/>`).join('')}</linearGradient>`);
        out.push(`<rect x="${x}" y="${y - 5}" width="26" height="9" fill="url(#${id})"/>`);
      } else if (it.glyph) {
        out.push(`<text x="${x}" y="${y + 4}" fill="${it.color}">${esc(it.glyph)}</text><line x1="${x + 12}" y1="${y}" x2="${x + 28}" y2="${y}" stroke="${it.color}" stroke-width="2"${it.dash ? ' stroke-dasharray="5 3"' : ''}/>`);
      } else {
        out.push(`<line x1="${x}" y1="${y}" x2="${x + 26}" y2="${y}" stroke="${it.color}" stroke-width="3"${it.dash ? ' stroke-dasharray="5 3"' : ''}/>`);
      }
      out.push(`<text x="${x + 32}" y="${y + 4}" fill="#1b1f24">${esc(it.label)}</text>`);
      x += it.w;
    }
  });
  if (defs.length) out.splice(2, 0, `<defs>${defs.join('')}</defs>`);
  // Axes, ticks and titles.
  out.push(`<rect x="${pad.l}" y="${pad.t}" width="${pw}" height="${ph}" fill="none" stroke="#3d4650"/>`);
  for (const t of logTicks(x0, x1)) {
    const x = px(t).toFixed(1);
    out.push(`<line x1="${x}" y1="${pad.t}" x2="${x}" y2="${pad.t + ph}" stroke="#e6e9ed"/><text x="${x}" y="${pad.t + ph + 16}" text-anchor="middle" fill="#3d4650">${esc(fmtTick(t))}</text>`);
  }
  for (const t of logTicks(y0, y1)) {
    const y = py(t).toFixed(1);
    out.push(`<line x1="${pad.l}" y1="${y}" x2="${pad.l + pw}" y2="${y}" stroke="#e6e9ed"/><text x="${pad.l - 6}" y="${y}" dy="4" text-anchor="end" fill="#3d4650">${esc(fmtTick(t))}</text>`);
  }
  out.push(`<text x="${pad.l + pw / 2}" y="${H0 - 36}" text-anchor="middle" fill="#1b1f24">${esc(o.xLabel)}</text>`);
  out.push(`<text transform="translate(20 ${pad.t + ph / 2}) rotate(-90)" text-anchor="middle" fill="#1b1f24">${esc(o.yLabel)}</text>`);
  // Round ends.
  let lastX = -Infinity; let row = 0;
  for (const b of o.boundaries) {
    const x = px(b.x);
    row = x - lastX < 90 ? 1 - row : 0;
    lastX = x;
    out.push(`<line x1="${x.toFixed(1)}" y1="${pad.t - 3}" x2="${x.toFixed(1)}" y2="${pad.t + ph}" stroke="#5b6470" stroke-dasharray="5 4"/><text x="${x.toFixed(1)}" y="${pad.t - 6 - 14 * row}" text-anchor="middle" font-size="11" fill="#3d4650">round ${b.round + 1} ended</text>`);
  }
  // Arms: lines and markers, the chosen arm last (on top).
  const order = [...o.arms].sort((a, b) => (a.id === o.best ? 1 : 0) - (b.id === o.best ? 1 : 0));
  for (const a of order) {
    const p = (placed.at.get(a) ?? []).filter(Boolean);
    if (!p.length) continue;
    const c = o.style.strokeOf(a); const dash = o.style.dashOf(a);
    const hollow = o.style.hollowOf?.(a) ?? false;
    const w = a.id === o.best ? 3.5 : hollow ? 1 : 1.5;
    out.push(`<g data-arm="${a.id}"><title>arm ${a.id}</title>`);
    if (p.length > 1) out.push(`<polyline fill="none" stroke="${c}" stroke-width="${w}"${dash?.length ? ` stroke-dasharray="${dash.join(' ')}"` : ''} points="${p.map((q) => `${q[0].toFixed(1)},${q[1].toFixed(1)}`).join(' ')}"/>`);
    for (const q of p) out.push(svgMark(o.style.markOf(a), q[0], q[1], a.id === o.best ? R * 1.4 : R, c, hollow));
    out.push('</g>');
  }
  caption.forEach((t, i) => out.push(`<text class="caption" x="16" y="${H0 - 10 + i * 16}" font-size="11" fill="#3d4650">${esc(t)}</text>`));
  out.push(`<text x="16" y="${H - 10}" font-size="11" fill="#3d4650">${esc(o.footer)}</text>`, '</svg>');
  return out.join('\n') + '\n';
}
