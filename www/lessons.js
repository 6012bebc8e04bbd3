// Guided lessons are files: Markdown with a front matter and one `## ` section per step (the format:
// docs/write-a-lesson.md). The core parses and checks them (src/lesson, through the worker: client.lesson), so a
// built-in lesson (lessons/ID.md, served with the site), a lesson from another site (`#lesson-url=URL`, which
// must allow the page's origin by CORS), a student's file (picker, drag-and-drop) and pasted text all take the
// same path. www/embed.js shows the steps in a box above the panel of the lesson's `kind` and runs them there.
//
// Links: `#lesson=ID` (a built-in lesson) or `#lesson-url=URL`, optionally `&step=N` (1-based), on the full page
// or in an embed.
//
// Panels: the page's registry (www/panels/registry.js) fills `window.__tunelab.panels[NAME]` and fires
// `tunelab:panels-ready`; a lesson's `kind` is its panel (a `compare` lesson runs in the tune panel). Each panel
// has load(config) -> Promise<state>, run() -> Promise<report envelope>, stop(), show(), `section`, `panel` and
// read-only state, running, runs, lastReport, errors.
//
// Timings: every step is sized to finish in about 10 s or less on ONE thread in the page. `tunelab lesson check
// lessons/ID.md` prints each step's native time; docs/instructors.md has the page's.

import { KINDS } from './kinds.js';

/** The SG-MCMC tuning panel (its settings are the page's state, kept in the URL by www/panels/tune/state.js). */
export const BUILTIN_PANEL = 'tune';

/** The built-in lessons, in the order of the Lessons menu: lessons/ID.md. */
export const BUILTIN_LESSONS = ['mamba', 'gp-ucb', 'd-ttts', 'hoag', 'lr-schedule'];

/** The largest lesson file the page reads (the core's `lesson::MAX_BYTES`). */
export const MAX_LESSON_BYTES = 1 << 20;

/** Human names of the kinds' panels, for messages: the core's labels (www/kinds.js). @type {Record<string, string>} */
export const PANEL_NAMES = Object.fromEntries(Object.entries(KINDS).map(([name, k]) => [name, k.label]));

/** The panel a lesson of `kind` runs in (the core's `PANEL` of the kind, www/kinds.js). @param {string} kind */
export const panelOf = (kind) => /** @type {Record<string, {panel: string}>} */ (KINDS)[kind]?.panel ?? kind;

/** The URL of a built-in lesson's file (lessons/ beside www/, wherever the site or the notebook widget puts it). @param {string} id */
export const builtinUrl = (id) => new URL(`../lessons/${encodeURIComponent(id)}.md`, import.meta.url).href;

const tooLarge = (/** @type {number} */ bytes) => new Error(`This lesson file is ${(bytes / 1e6).toFixed(1)} MB; a lesson may be at most ${MAX_LESSON_BYTES >> 20} MB (it is a page of text, not data). Nothing was run.`);

/**
 * A lesson file from a URL: this site, or another that allows this page by CORS. Reads at most
 * MAX_LESSON_BYTES (a larger file is refused without reading it all). Resolves with {name, text}.
 * @param {string} url @returns {Promise<{name: string, text: string}>}
 */
export async function fetchLesson(url) {
  let u;
  try { u = new URL(url, document.baseURI); } catch { throw new Error(`“${url}” is not a web address.`); }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`A lesson is opened from an http(s) address, not ${u.protocol}`);
  let r;
  try {
    r = await fetch(u.href, { mode: 'cors', credentials: 'omit', cache: 'no-cache' });
  } catch {
    throw new Error(`Could not read the lesson at ${u.href}: the site is unreachable, or it does not allow this page to read it (CORS: it must send Access-Control-Allow-Origin).`);
  }
  if (!r.ok) throw new Error(`Could not read the lesson at ${u.href}: HTTP ${r.status}.`);
  const declared = Number(r.headers.get('content-length') ?? NaN);
  if (declared > MAX_LESSON_BYTES) { r.body?.cancel().catch(() => {}); throw tooLarge(declared); }
  const reader = r.body?.getReader();
  if (!reader) return { name: u.href, text: await r.text() };
  /** @type {Uint8Array[]} */
  const parts = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > MAX_LESSON_BYTES) { reader.cancel().catch(() => {}); throw tooLarge(n); }
    parts.push(value);
  }
  const all = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.byteLength; }
  return { name: u.href, text: new TextDecoder().decode(all) };
}

/** A lesson file from the student's disk (picker or drop). @param {File} file @returns {Promise<{name: string, text: string}>} */
export async function readLessonFile(file) {
  if (file.size > MAX_LESSON_BYTES) throw tooLarge(file.size);
  return { name: file.name, text: await file.text() };
}

/** Pasted text. @param {string} text */
export function pastedLesson(text) {
  if (text.length > MAX_LESSON_BYTES) throw tooLarge(new TextEncoder().encode(text).length);
  return { name: 'pasted text', text };
}

/** The result inside a run's report envelope ({kind, status, config, compute, result}), or a bare report. */
export const resultOf = (report) => (report && typeof report === 'object' && 'result' in report && 'kind' in report ? report.result : report);

/**
 * The first place where two JSON values differ: {path, want, got}, or null when equal.
 * @param {any} want @param {any} got @param {string} [path]
 * @returns {{path: string, want: any, got: any}|null}
 */
export function firstDiff(want, got, path = '') {
  if (want === got) return null;
  if (want && got && typeof want === 'object' && typeof got === 'object' && Array.isArray(want) === Array.isArray(got)) {
    if (Array.isArray(want)) {
      if (want.length !== got.length) return { path: path || '(root)', want, got };
      for (let i = 0; i < want.length; i++) { const d = firstDiff(want[i], got[i], `${path}[${i}]`); if (d) return d; }
      return null;
    }
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const d = firstDiff(want[k], got[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return null;
  }
  return { path: path || '(root)', want, got };
}
