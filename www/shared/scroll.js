// Wide tables scroll sideways with a visible cue: every `.table-wrap` (the page's scrollable tables, also those
// made later, e.g. the bandit per-arm tables) is put in a `.scroll-cue` box with a "scroll →" hint above it; the
// box's data-overflow / data-end (kept up to date on resize, on new rows and on scroll) show the hint and a
// shadow at the right edge (www/style.css) while columns are hidden to the right.
import { el } from './dom.js';

/** @param {Element} box a `.scroll-cue` */
function update(box) {
  const w = /** @type {HTMLElement|null} */ (box.querySelector(':scope > .table-wrap'));
  if (!w) return;
  const over = w.scrollWidth > w.clientWidth + 1;
  const end = !over || w.scrollLeft + w.clientWidth >= w.scrollWidth - 1;
  if (box.getAttribute('data-overflow') !== String(over)) box.setAttribute('data-overflow', String(over));
  if (box.getAttribute('data-end') !== String(end)) box.setAttribute('data-end', String(end));
}

/** Watches every `.table-wrap` under `root`, now and later. @param {HTMLElement} root */
export function installScrollCues(root) {
  /** @type {WeakSet<Element>} */
  const seen = new WeakSet();
  const ro = new ResizeObserver((entries) => {
    for (const e of entries) { const box = e.target.closest('.scroll-cue'); if (box) update(box); }
  });
  /** @param {HTMLElement} wrap */
  const setup = (wrap) => {
    if (seen.has(wrap) || !wrap.parentNode) return;
    seen.add(wrap);
    const box = el('div', { class: 'scroll-cue', 'data-overflow': 'false', 'data-end': 'true' }, el('p', { class: 'scroll-hint', 'aria-hidden': 'true', text: 'scroll →' }));
    wrap.replaceWith(box);
    box.append(wrap);
    wrap.addEventListener('scroll', () => update(box), { passive: true });
    ro.observe(wrap);
    for (const t of wrap.children) ro.observe(t);
  };
  /** @param {Node} n */
  const scan = (n) => {
    if (!(n instanceof HTMLElement)) return;
    if (n.classList.contains('table-wrap')) setup(n);
    else if (n.firstElementChild) for (const w of n.querySelectorAll('.table-wrap')) setup(/** @type {HTMLElement} */ (w));
  };
  scan(root);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n instanceof HTMLElement && n.tagName !== 'TR' && n.tagName !== 'TD') scan(n);
  }).observe(root, { childList: true, subtree: true });
}
