// Marker shapes shared by every chart (uPlot line charts, the tune score chart, the SVG exports and the legends):
// series are told apart by marker and dash as well as colour, so a figure reads in grey and for
// colour-blind readers. Drawing only.

/** The marker shapes, in the order series get them. */
export const MARKS = ['circle', 'square', 'triangle', 'diamond', 'cross', 'down', 'ex', 'ring'];

/** Each shape as a text glyph (legends, the PNG / SVG export's legend). @type {Record<string, string>} */
export const MARK_GLYPH = { circle: '●', square: '■', triangle: '▲', diamond: '◆', cross: '✚', down: '▼', ex: '✖', ring: '○' };

/** Line dashes (CSS pixels), in the order series get them; the first is solid. */
export const DASHES = [[], [7, 4], [2, 3], [9, 3, 2, 3], [4, 4], [12, 3, 3, 3]];

/**
 * Draws one marker at (x, y), radius r, in the canvas' own pixels: filled, or hollow (white inside) when
 * `hollow` or the shape is a ring.
 * @param {CanvasRenderingContext2D} ctx @param {string} shape @param {number} x @param {number} y @param {number} r
 * @param {string} color @param {boolean} [hollow]
 */
export function drawMark(ctx, shape, x, y, r, color, hollow = false) {
  ctx.beginPath();
  if (shape === 'square') ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  else if (shape === 'triangle') { ctx.moveTo(x, y - r * 1.1); ctx.lineTo(x + r, y + r * 0.75); ctx.lineTo(x - r, y + r * 0.75); ctx.closePath(); }
  else if (shape === 'down') { ctx.moveTo(x, y + r * 1.1); ctx.lineTo(x + r, y - r * 0.75); ctx.lineTo(x - r, y - r * 0.75); ctx.closePath(); }
  else if (shape === 'diamond') { ctx.moveTo(x, y - r * 1.2); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r * 1.2); ctx.lineTo(x - r, y); ctx.closePath(); }
  else if (shape === 'cross') { const w = r * 0.4; ctx.rect(x - r, y - w, 2 * r, 2 * w); ctx.rect(x - w, y - r, 2 * w, 2 * r); }
  else if (shape === 'ex') {
    const w = r * 0.3; const c = Math.SQRT1_2;
    for (const s of [1, -1]) {
      ctx.moveTo(x + (-r + w) * c, y + s * (-r - w) * c); ctx.lineTo(x + (r + w) * c, y + s * (r - w) * c);
      ctx.lineTo(x + (r - w) * c, y + s * (r + w) * c); ctx.lineTo(x + (-r - w) * c, y + s * (-r + w) * c); ctx.closePath();
    }
  } else ctx.arc(x, y, r, 0, 2 * Math.PI);
  if (hollow || shape === 'ring') {
    ctx.fillStyle = '#fff'; ctx.fill();
    ctx.strokeStyle = color; ctx.lineWidth = r * 0.45; ctx.setLineDash([]); ctx.stroke();
  } else { ctx.fillStyle = color; ctx.fill(); }
}

/** @param {number} v */
const f1 = (v) => v.toFixed(1);

/**
 * The same marker as an SVG element.
 * @param {string} shape @param {number} x @param {number} y @param {number} r @param {string} color
 */
export function svgMark(shape, x, y, r, color) {
  const f = `fill="${color}"`;
  const poly = (/** @type {number[][]} */ pts) => `<path d="M${pts.map(([a, b]) => `${f1(a)},${f1(b)}`).join('L')}Z" ${f}/>`;
  if (shape === 'square') return `<rect x="${f1(x - r * 0.85)}" y="${f1(y - r * 0.85)}" width="${f1(1.7 * r)}" height="${f1(1.7 * r)}" ${f}/>`;
  if (shape === 'triangle') return poly([[x, y - 1.1 * r], [x + r, y + 0.75 * r], [x - r, y + 0.75 * r]]);
  if (shape === 'down') return poly([[x, y + 1.1 * r], [x + r, y - 0.75 * r], [x - r, y - 0.75 * r]]);
  if (shape === 'diamond') return poly([[x, y - 1.2 * r], [x + r, y], [x, y + 1.2 * r], [x - r, y]]);
  if (shape === 'cross') { const w = r * 0.4; return `<path d="M${f1(x - r)},${f1(y - w)}h${f1(2 * r)}v${f1(2 * w)}h${f1(-2 * r)}ZM${f1(x - w)},${f1(y - r)}h${f1(2 * w)}v${f1(2 * r)}h${f1(-2 * w)}Z" ${f}/>`; }
  if (shape === 'ex') return `<path d="M${f1(x - r * 0.8)},${f1(y - r * 0.8)}L${f1(x + r * 0.8)},${f1(y + r * 0.8)}M${f1(x + r * 0.8)},${f1(y - r * 0.8)}L${f1(x - r * 0.8)},${f1(y + r * 0.8)}" stroke="${color}" stroke-width="${f1(r * 0.6)}"/>`;
  if (shape === 'ring') return `<circle cx="${f1(x)}" cy="${f1(y)}" r="${r}" fill="#fff" stroke="${color}" stroke-width="${f1(r * 0.45)}"/>`;
  return `<circle cx="${f1(x)}" cy="${f1(y)}" r="${r}" ${f}/>`;
}
