// Chart exports for slides: every chart canvas of a panel stacked in one PNG or SVG, each under its own
// title (unique in the export) and its FULL legend (wrapped over as many lines as it needs; colour ramps and
// markers kept), then the run's settings as a wrapped caption and a footer with the config's hash. The PNG and
// the SVG share one layout (exportLayout), so what the tests read in the SVG's text is where the PNG draws it.
import { drawMark, svgMark } from './marks.js';

const INK = '#1b1f24';
const MUTED = '#3d4650';

/** The chart host of a canvas (uPlot nests its canvas two levels down) or the canvas itself. @param {Element} canvas */
const hostOf = (canvas) => canvas.closest('.chart, figure') ?? canvas;

/**
 * The title of a chart canvas on the page and a note under it: the title is its card's heading, then the
 * chart's own sub-heading (the nearest h3 before its host, inside the same container) or the head of its figure
 * caption (up to a colon); the note is the heading's small print (.h-sub) and the rest of the caption.
 * @param {HTMLCanvasElement} canvas @returns {{title: string, note: string}}
 */
function titleOf(canvas) {
  const card = canvas.closest('section.card, .card');
  const h2el = card?.querySelector('h2');
  const sub = h2el?.querySelector('.h-sub')?.textContent?.trim() ?? '';
  const h2 = [...(h2el?.childNodes ?? [])].filter((n) => !(n instanceof Element && n.classList.contains('h-sub'))).map((n) => n.textContent).join('').trim();
  let h3 = '';
  for (let e = hostOf(canvas).previousElementSibling; e; e = e.previousElementSibling) {
    if (e.matches('h3')) { h3 = e.textContent?.trim() ?? ''; break; }
    if (e.matches('.chart, figure, canvas')) break;
  }
  const cap = canvas.closest('figure')?.querySelector('figcaption')?.textContent?.trim() ?? '';
  const colon = cap.indexOf(': ');
  const [capHead, capRest] = colon > 0 ? [cap.slice(0, colon), cap.slice(colon + 2)] : [cap, ''];
  return { title: [h2, h3, capHead].filter(Boolean).join(' — '), note: [sub.replace(/^\((.*)\)$/, '$1'), capRest].filter(Boolean).join('; ') };
}

/** What a canvas shows, from its own or its chart host's aria-label. @param {Element} canvas */
const labelOf = (canvas) => (canvas.getAttribute('aria-label') ?? canvas.closest('[aria-label]')?.getAttribute('aria-label') ?? '').trim();

/**
 * @typedef {{label: string, color: string, dash: boolean, ramp: string[], mark: string, lineMark: string, noLine: boolean, faded: boolean}} LegendEntry
 * `mark`: a glyph before the swatch (the tune chart's batch markers); `lineMark`: a marker shape (www/shared/marks.js)
 * drawn on the swatch's line as on the chart; `noLine`: the marker alone (points without a line).
 */

/**
 * The legend entries shown with a chart canvas: the `.legend` of its own container if it has one, else its
 * card's first. Read back from the page's legend (www/shared/charts.js `legend`), so the export shows what the
 * page shows.
 * @param {HTMLCanvasElement} canvas @returns {LegendEntry[]}
 */
function legendOf(canvas) {
  const host = hostOf(canvas);
  const card = canvas.closest('section.card');
  const box = host.parentElement?.querySelector(':scope > .legend') ?? card?.querySelector('.legend');
  if (!box || /** @type {HTMLElement} */ (box).hidden) return [];
  return [...box.children].map((item) => {
    const sw = /** @type {HTMLElement|null} */ (item.querySelector('.sw'));
    const mark = item.querySelector('.mark')?.textContent?.trim() ?? '';
    // A colour ramp (e.g. step sizes): its stops, read back from the swatch's gradient.
    const ramp = sw?.classList.contains('ramp') ? (sw.style.background.match(/rgba?\([^)]*\)|#[0-9a-f]{3,8}/gi) ?? []) : [];
    const label = (item.textContent ?? '').trim().slice(mark.length).trim();
    return {
      label, color: sw?.style.borderColor || '#000', dash: sw?.classList.contains('dashed') ?? false, ramp, mark,
      lineMark: sw?.dataset.shape ?? '', noLine: sw?.classList.contains('noline') ?? false, faded: sw?.classList.contains('faded') ?? false,
    };
  });
}

/**
 * The settings of a run as short "key: value" phrases, from its config as the core reads it (nested keys joined
 * by dots; long lists shortened; the `kind` left out): the caption of an export.
 * @param {any} config @returns {string[]}
 */
export function settingsPhrases(config) {
  /** @type {string[]} */
  const out = [];
  /** @param {any} v @param {string} key */
  const walk = (v, key) => {
    if (v == null || key === 'kind') return;
    if (Array.isArray(v)) {
      if (v.every((x) => x == null || typeof x !== 'object')) out.push(`${key}: ${v.length > 12 ? `${v.slice(0, 12).join(', ')}, … (${v.length})` : v.join(', ')}`);
      else v.forEach((x, i) => walk(x, `${key}[${i + 1}]`));
    } else if (typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], key ? `${key}.${k}` : k);
    else { const s = String(v); out.push(`${key}: ${s.length > 60 ? `${s.slice(0, 59)}…` : s}`); }
  };
  walk(config, '');
  return out;
}

/**
 * Phrases joined by `sep` into lines no wider than `width` (by `measure`); a phrase is split only by the caller
 * (titles are wrapped word by word).
 * @param {string[]} phrases @param {string} sep @param {number} width @param {(s: string) => number} measure
 */
export function wrapPhrases(phrases, sep, width, measure) {
  /** @type {string[]} */
  const lines = [];
  let cur = '';
  for (const p of phrases) {
    const next = cur ? `${cur}${sep}${p}` : p;
    if (!cur || measure(next) <= width) { cur = next; continue; }
    lines.push(cur + sep.trimEnd());
    cur = p;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * @typedef {{canvas: HTMLCanvasElement, title: string, titleY: number, more: {t: string, y: number}[], note: {t: string, y: number}[],
 *   items: (LegendEntry & {x: number, y: number})[], y: number, cw: number, ch: number}} ExportBlock
 * `title` (at titleY) and `more` (its wrapped rest), the legend `items`, `note` (small print), the chart at `y`.
 */

/**
 * The layout of an export, in units of `scale` CSS pixels (the PNG: device pixels; the SVG: 1): one block per
 * chart with its title (unique: a repeated heading gets the chart's own label, then a number; wrapped when
 * long), its legend wrapped over as many lines as it needs (every entry kept), its small print, the chart; then
 * the settings caption (wrapped) and the footer.
 * @param {(HTMLCanvasElement|null)[]} canvases @param {string} footer @param {number} scale @param {string[]} [caption]
 */
export function exportLayout(canvases, footer, scale, caption = []) {
  const ctx = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  const line = Math.round(18 * scale);
  const font = `${Math.round(11 * scale)}px system-ui, sans-serif`;
  const dpr = window.devicePixelRatio || 1;
  /** @type {Map<string, number>} */
  const seen = new Map();
  const charts = /** @type {HTMLCanvasElement[]} */ (canvases.filter(Boolean)).map((canvas) => {
    let { title, note } = titleOf(canvas);
    if (seen.has(title) && labelOf(canvas)) title = title ? `${title} — ${labelOf(canvas)}` : labelOf(canvas);
    const n = (seen.get(title) ?? 0) + 1;
    seen.set(title, n);
    if (n > 1) title = `${title} (${n})`;
    return { canvas, title, note, legend: legendOf(canvas), cw: canvas.width * scale / dpr, ch: canvas.height * scale / dpr };
  });
  const w = Math.ceil(Math.max(...charts.map((f) => f.cw), 320 * scale));
  const bold = `bold ${Math.round(13 * scale)}px system-ui, sans-serif`;
  const measure = (/** @type {string} */ s) => ctx.measureText(s).width;
  let y = 0;
  const blocks = charts.map((f) => {
    /** @type {ExportBlock} */
    const b = { canvas: f.canvas, title: f.title, cw: f.cw, ch: f.ch, titleY: -1, more: [], note: [], items: [], y: 0 };
    // The title on one line when it fits, else wrapped (its first line keeps the class "title" in the SVG).
    ctx.font = bold;
    const tl = f.title ? wrapPhrases(f.title.split(' '), ' ', w - 16 * scale, measure) : [];
    if (tl.length) {
      b.titleY = y + line / 2;
      b.title = tl[0];
      b.more = tl.slice(1).map((t, k) => ({ t, y: y + line / 2 + (k + 1) * line }));
      y += tl.length * line;
    }
    ctx.font = font;
    let x = 8 * scale;
    if (f.legend.length) y += line / 2;
    for (const it of f.legend) {
      const width = (it.mark ? 42 : 30) * scale + measure(it.label);
      if (x > 8 * scale && x + width > w - 8 * scale) { x = 8 * scale; y += line; }
      b.items.push({ ...it, x, y });
      x += width;
    }
    if (f.legend.length) y += line / 2;
    // The small print between the legend and the chart.
    if (f.note) b.note = wrapPhrases(f.note.split(' '), ' ', w - 16 * scale, measure).map((t, k) => ({ t, y: y + line / 2 + k * line }));
    y += b.note.length * line;
    b.y = y;
    y += f.ch + 10 * scale;
    return b;
  });
  ctx.font = font;
  const captionLines = caption.length ? wrapPhrases([`Settings: ${caption[0]}`, ...caption.slice(1)], ' · ', w - 16 * scale, measure) : [];
  const captionY = captionLines.map((_, i) => y + line / 2 + i * line);
  y += captionLines.length * line;
  const footerY = footer ? y + line / 2 : -1;
  return {
    w, h: Math.ceil(y + (footer ? line : 0)) || 1, blocks, footer, footerY, captionLines, captionY, scale, font, bold,
  };
}

/**
 * One PNG of the given chart canvases stacked vertically on white, each under its title and full legend, then the
 * settings caption and the footer. Resolves with a Blob.
 * @param {(HTMLCanvasElement|null)[]} canvases @param {string} [footer] @param {string[]} [caption]
 * @returns {Promise<Blob|null>}
 */
export function chartsPng(canvases, footer = '', caption = []) {
  const dpr = window.devicePixelRatio || 1;
  const L = exportLayout(canvases, footer, dpr, caption);
  const out = Object.assign(document.createElement('canvas'), { width: L.w, height: L.h });
  const ctx = /** @type {CanvasRenderingContext2D} */ (out.getContext('2d'));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, L.w, L.h);
  ctx.textBaseline = 'middle';
  for (const b of L.blocks) {
    ctx.fillStyle = INK; ctx.font = L.bold;
    if (b.title) ctx.fillText(b.title, 8 * dpr, b.titleY);
    for (const m of b.more) ctx.fillText(m.t, 8 * dpr, m.y);
    ctx.font = L.font; ctx.fillStyle = MUTED;
    for (const m of b.note) ctx.fillText(m.t, 8 * dpr, m.y);
    for (const it of b.items) {
      let x = it.x;
      if (it.mark) { ctx.fillStyle = it.color; ctx.fillText(it.mark, x, it.y); x += 12 * dpr; }
      /** @type {string|CanvasGradient} */
      let stroke = it.color;
      if (it.ramp.length > 1) {
        const g = ctx.createLinearGradient(x, 0, x + 16 * dpr, 0);
        it.ramp.forEach((c, i) => g.addColorStop(i / (it.ramp.length - 1), c));
        stroke = g;
      }
      ctx.globalAlpha = it.faded ? 0.3 : 1;
      ctx.strokeStyle = stroke; ctx.lineWidth = (it.ramp.length > 1 ? 6 : 3) * dpr; ctx.setLineDash(it.dash ? [4 * dpr, 3 * dpr] : []);
      if (!it.noLine) { ctx.beginPath(); ctx.moveTo(x, it.y); ctx.lineTo(x + 16 * dpr, it.y); ctx.stroke(); }
      if (it.lineMark) drawMark(ctx, it.lineMark, x + 8 * dpr, it.y, 3.6 * dpr, it.color);
      ctx.globalAlpha = 1;
      ctx.fillStyle = INK; ctx.fillText(it.label, x + 20 * dpr, it.y);
    }
    ctx.setLineDash([]);
    ctx.drawImage(b.canvas, 0, b.y);
  }
  ctx.fillStyle = MUTED; ctx.font = L.font;
  L.captionLines.forEach((t, i) => ctx.fillText(t, 8 * dpr, L.captionY[i]));
  // The footer: what made the figure (the config's hash).
  if (footer) ctx.fillText(footer, 8 * dpr, L.footerY);
  return new Promise((resolve) => out.toBlob(resolve, 'image/png'));
}

/** Text escaped for SVG / XML. @param {any} s */
export const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The same export as SVG: titles, every legend entry, the settings caption and the footer as text (searchable,
 * editable in slides), each chart as an embedded PNG image.
 * @param {(HTMLCanvasElement|null)[]} canvases @param {string} [footer] @param {string[]} [caption]
 */
export function chartsSvg(canvases, footer = '', caption = []) {
  const L = exportLayout(canvases, footer, 1, caption);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${L.w}" height="${L.h}" viewBox="0 0 ${L.w} ${L.h}" font-family="system-ui, sans-serif">`,
    `<rect width="${L.w}" height="${L.h}" fill="#fff"/>`];
  for (const b of L.blocks) {
    if (b.title) parts.push(`<text class="title" x="8" y="${b.titleY}" dominant-baseline="middle" font-size="13" font-weight="bold" fill="${INK}">${esc(b.title)}</text>`);
    for (const m of b.more) parts.push(`<text class="title-more" x="8" y="${m.y}" dominant-baseline="middle" font-size="13" font-weight="bold" fill="${INK}">${esc(m.t)}</text>`);
    for (const m of b.note) parts.push(`<text class="note" x="8" y="${m.y}" dominant-baseline="middle" font-size="11" fill="${MUTED}">${esc(m.t)}</text>`);
    for (const [k, it] of b.items.entries()) {
      let x = it.x;
      if (it.mark) { parts.push(`<text class="mark" x="${x}" y="${it.y}" dominant-baseline="middle" font-size="11" fill="${esc(it.color)}">${esc(it.mark)}</text>`); x += 12; }
      let stroke = esc(it.color);
      if (it.ramp.length > 1) {
        const id = `ramp-${parts.length}-${k}`;
        parts.push(`<defs><linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${x}" y1="0" x2="${x + 16}" y2="0">${it.ramp.map((c, i) => `<stop offset="${i / (it.ramp.length - 1)}" stop-color="${esc(c)}"/>`).join('')}</linearGradient></defs>`);
        stroke = `url(#${id})`;
      }
      if (!it.noLine) parts.push(`<line x1="${x}" y1="${it.y}" x2="${x + 16}" y2="${it.y}" stroke="${stroke}" stroke-width="${it.ramp.length > 1 ? 6 : 3}"${it.dash ? ' stroke-dasharray="4 3"' : ''}${it.faded ? ' stroke-opacity="0.3"' : ''}/>`);
      parts.push(...(it.lineMark ? [svgMark(it.lineMark, x + 8, it.y, 3.6, esc(it.color))] : []),
        `<text class="legend" x="${x + 20}" y="${it.y}" dominant-baseline="middle" font-size="11" fill="${INK}">${esc(it.label)}</text>`);
    }
    parts.push(`<image x="0" y="${b.y}" width="${b.cw}" height="${b.ch}" href="${b.canvas.toDataURL('image/png')}"/>`);
  }
  L.captionLines.forEach((t, i) => parts.push(`<text class="caption" x="8" y="${L.captionY[i]}" dominant-baseline="middle" font-size="11" fill="${MUTED}">${esc(t)}</text>`));
  if (footer) parts.push(`<text class="footer" x="8" y="${L.footerY}" dominant-baseline="middle" font-size="11" fill="${MUTED}">${esc(footer)}</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}

