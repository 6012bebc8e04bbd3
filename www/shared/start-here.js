// "Start here" cards: one per tab, in plain language, saying what question the tab answers
// and what to press first. Closable; a closed card stays closed on this browser (localStorage), per tab.
import { el } from './dom.js';

/** @type {Record<string, {question: string, first: string}>} per panel name */
export const START_HERE = {
  tune: {
    question: 'A sampler explores a model by taking many small random steps. Steps too small crawl, steps too big wander off. '
      + 'Which step size (and how much data per step) gives the most trustworthy picture of the model for a fixed amount of work?',
    first: 'Press Run. The default finishes in seconds: each line on the chart is one setting, lower is better, and the weakest half '
      + 'is dropped each round. Then try the Preset menu, or a lesson.',
  },
  bandit: {
    question: 'You can afford only a limited number of tries. Which way of spending them finds the best option fastest, '
      + 'compared with simply trying everything equally?',
    first: 'Press Run with the default problem. Lower curves are better: they lose less by not yet having found the best option.',
  },
  hoag: {
    question: 'How strongly should a model be held back from over-fitting? Instead of trying every value, these methods follow '
      + 'the slope of the validation error; which reaches a good value for the least work?',
    first: 'Press Run (the default takes about a second). The curve that drops lowest earliest is the cheapest way to a good value.',
  },
  'lr-schedule': {
    question: 'How fast should a network learn at each stage of training: a fixed rate, a rate that decays, or one adjusted while it trains?',
    first: 'Press Run. The table compares the final loss of each schedule; the chart shows how the chosen rates change over training.',
  },
  'step-size': {
    question: 'Can a sampler pick its own step size while it runs, instead of you guessing one in advance?',
    first: 'Press Run. The chart shows the step size it picks window after window, beside the same chain run with fixed step sizes.',
  },
  tvo: {
    question: 'A small image model learns from digits, and its training needs a schedule of numbers. Can the computer learn a good schedule while it trains?',
    first: 'Press Run. Higher test scores are better; the chart shows each schedule as training goes on.',
  },
};

/** The localStorage key that remembers a closed card. @param {string} name */
export const startKey = (name) => `tunelab.start-here.closed.${name}`;

/** @param {string} name */
function closed(name) {
  try { return localStorage.getItem(startKey(name)) === '1'; } catch { return false; }
}

/**
 * The start card of panel `name` (null when it has none); hidden when it was closed before.
 * @param {string} name @param {string} title the tab's title
 */
export function startCard(name, title) {
  const t = START_HERE[name];
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
