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
 * Yields to the browser: resolves in a new task, so work split by it never makes one long main-thread task
 * (issue 26 item 2). scheduler.yield where the browser has it (continues ahead of other queued tasks), else a
 * zero timeout.
 * @returns {Promise<void>}
 */
export function nextTask() {
  const s = /** @type {any} */ (globalThis).scheduler;
  return typeof s?.yield === 'function' ? s.yield() : new Promise((r) => setTimeout(r, 0));
}
