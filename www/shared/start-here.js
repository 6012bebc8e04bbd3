// "Start here" cards: one per tab, in plain language, saying what question the tab answers
// and what to press first (each panel's `start`, in its folder). Closable; a closed card stays closed on this
// browser (localStorage), per tab.
import { el } from './dom.js';

/** The localStorage key that remembers a closed card. @param {string} name */
export const startKey = (name) => `tunelab.start-here.closed.${name}`;

/** @param {string} name */
function closed(name) {
  try { return localStorage.getItem(startKey(name)) === '1'; } catch { return false; }
}

/**
 * The start card of panel `name` (null when it has none); hidden when it was closed before.
 * @param {string} name @param {string} title the tab's title @param {{question: string, first: string}|null} t
 */
export function startCard(name, title, t) {
  if (!t) return null;
  const card = el('section', { class: 'card start-here', 'data-start': name, 'aria-label': `Start here: ${title}`, hidden: closed(name) },
    el('div', { class: 'start-head' }, el('h2', { text: 'Start here' }),
      el('button', { type: 'button', class: 'start-close', 'aria-label': `Close the introduction to ${title}`, title: 'Close (remembered on this browser)', text: '×' })),
    el('p', { class: 'start-question' }, el('b', { text: 'The question: ' }), t.question),
    el('p', { class: 'start-first' }, el('b', { text: 'Press first: ' }), t.first));
  card.querySelector('.start-close')?.addEventListener('click', () => {
    card.hidden = true;
    try { localStorage.setItem(startKey(name), '1'); } catch { /* storage blocked: closed for this visit only */ }
  });
  return card;
}
