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
