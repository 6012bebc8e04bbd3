// The one DOM helper of the page: every module builds elements with `el` (no other copy).

/** A DOM element: el('div', {class: 'x', id: 'y'}, child, 'text', ...). `on*` attributes become listeners. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c != null && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}

/** An element by id (the one `$`-style helper). @param {string} id @returns {any} */
export const $ = (id) => document.getElementById(id);

/**
 * A text whose references to docs pages ("docs/tvo.md", "docs/hoag-bench/logreg.md") become links into the docs
 * book served with the page (docs/tvo.html, ...; scripts/dev/docs.sh builds it from docs/, build-dist copies it to
 * dist/docs/). The link text is the reference itself, so the element's text is `text` unchanged.
 * @param {string} text @returns {(string|HTMLElement)[]}
 */
export function docText(text) {
  /** @type {(string|HTMLElement)[]} */
  const out = [];
  const re = /\bdocs\/[\w-]+(?:\/[\w-]+)*\.md\b/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    const i = m.index ?? 0;
    if (i > last) out.push(text.slice(last, i));
    out.push(el('a', { href: m[0].replace(/\.md$/, '.html'), target: '_blank', rel: 'noopener', text: m[0] }));
    last = i + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * Yields to the browser until the next frame has been drawn: resolves in a task that runs after that frame's
 * style, layout and paint, so DOM work split by it is laid out and painted a part per frame.
 * Yielding only to a new task is not enough: the tasks of a split all ran before one frame that then laid out
 * and painted every part at once (paper-logreg-page's result: one 58-68 ms task of Layout, Paint and PrePaint,
 * docs/benchmarks.md "Main thread"). A hidden page draws no frames: it goes on after 100 ms.
 * @returns {Promise<void>}
 */
export function nextFrame() {
  return new Promise((resolve) => {
    let done = false;
    const go = () => { if (!done) { done = true; resolve(); } };
    // rAF callbacks run just before the frame's rendering; a task posted from one runs after it.
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 100);
  });
}

/**
 * Coalesces calls to one per frame: `schedule(flag)` runs `fn(flag || any earlier flag)` once, in a task after
 * the next frame (`nextFrame`), for every batch of calls before it. A panel's live redraws use it so that
 * draining the worker's events and building a chart never share a task.
 * @param {(flag: boolean) => void} fn
 * @returns {(flag?: boolean) => void}
 */
export function perFrame(fn) {
  let queued = false;
  let pending = false;
  return (flag = false) => {
    pending = pending || flag;
    if (queued) return;
    queued = true;
    nextFrame().then(() => {
      const f = pending;
      queued = false;
      pending = false;
      fn(f);
    });
  };
}
