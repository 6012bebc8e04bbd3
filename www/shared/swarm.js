// Spreading markers that would cover one another (a beeswarm along x): the arms of one round all end at the same
// compute, so on a score chart they would stand in one column. Each marker moves sideways only (its score, the
// y value, stays exact), by as little as it can, until no two markers are closer than `gap`. Pure (pixels in,
// pixel offsets out), shared by the page's chart and its SVG export.

/**
 * Sideways offsets for `pts` ([{x, y}] in pixels), placed in the given order (the first keeps its x): each point
 * takes the x nearest its own at which it is at least `gap` from every point placed before it.
 * @param {{x: number, y: number}[]} pts @param {number} gap
 * @returns {number[]} the x offset of each point
 */
export function dodge(pts, gap) {
  /** @type {{x: number, y: number}[]} */
  const placed = [];
  const g2 = gap * gap;
  return pts.map(({ x, y }) => {
    // Intervals of x that a placed point blocks (closer than gap at this y).
    /** @type {number[][]} */
    const blocked = [];
    for (const p of placed) {
      const dy = p.y - y;
      if (dy * dy < g2) { const w = Math.sqrt(g2 - dy * dy); blocked.push([p.x - w, p.x + w]); }
    }
    const free = (/** @type {number} */ cx) => blocked.every(([a, b]) => cx <= a + 1e-9 || cx >= b - 1e-9);
    let best = x;
    if (!free(x)) {
      // The free x nearest to x is an end of a blocked interval.
      const cands = blocked.flatMap(([a, b]) => [a, b]).sort((a, b) => Math.abs(a - x) - Math.abs(b - x) || b - a);
      best = cands.find(free) ?? x;
    }
    placed.push({ x: best, y });
    return best - x;
  });
}
