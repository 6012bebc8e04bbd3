// Lesson text (Markdown from a lesson file, www/lessons.js) rendered for the page. A lesson may come from any
// URL or a student's disk, so its text is untrusted: markdown-it renders it with raw HTML off (`<script>` and
// `<img onerror>` stay text), images off (no request leaves the page) and links only to http(s) (validateLink);
// the HTML it returns is parsed in an inert <template> and copied element by element through an allow-list
// (tags and the `href` of links, nothing else), so no script, style or event attribute can reach the document.
// @ts-ignore -- vendored at serve / build time (node_modules/markdown-it/dist/browser), no type declarations
import MarkdownIt from '../../vendor/markdown-it/markdown-it.esm.min.mjs';

/** The elements lesson text may contain. */
const TAGS = new Set(['P', 'EM', 'STRONG', 'CODE', 'PRE', 'UL', 'OL', 'LI', 'A', 'H3', 'H4', 'H5', 'H6', 'BLOCKQUOTE', 'BR', 'HR', 'DEL', 'S', 'SUB', 'SUP',
  'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD']);

/** True for a link the text may carry: http(s), or a page of this site (resolved against the document). @param {string} url */
export function safeLink(url) {
  try {
    const u = new URL(url, document.baseURI);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch { return false; }
}

/** @type {any} */
let md = null;
function renderer() {
  if (md) return md;
  md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.disable(['image']);
  // A line break inside a paragraph is a space (the text reads, and is read back, as one line).
  md.renderer.rules.softbreak = () => ' ';
  md.validateLink = (/** @type {string} */ url) => safeLink(url.trim());
  return md;
}

/**
 * Copies the allowed part of `from` into `to`: allowed elements with their allowed attributes, text; anything
 * else is dropped with its subtree (an unknown element's text is kept as text).
 * @param {Node} from @param {Node} to
 */
function copyAllowed(from, to) {
  for (const n of from.childNodes) {
    if (n.nodeType === Node.TEXT_NODE) { to.appendChild(document.createTextNode(n.textContent ?? '')); continue; }
    if (n.nodeType !== Node.ELEMENT_NODE) continue;
    const e = /** @type {Element} */ (n);
    if (!TAGS.has(e.tagName)) { to.appendChild(document.createTextNode(e.textContent ?? '')); continue; }
    // Headings inside a step sit under its h3 title.
    const tag = e.tagName === 'H3' ? 'h4' : e.tagName.toLowerCase();
    const out = document.createElement(tag);
    if (e.tagName === 'A') {
      const href = e.getAttribute('href') ?? '';
      if (safeLink(href)) {
        out.setAttribute('href', new URL(href, document.baseURI).href);
        out.setAttribute('target', '_blank');
        out.setAttribute('rel', 'noopener noreferrer');
      }
    }
    if (e.tagName === 'OL' && /^\d+$/.test(e.getAttribute('start') ?? '')) out.setAttribute('start', /** @type {string} */ (e.getAttribute('start')));
    copyAllowed(e, out);
    to.appendChild(out);
  }
}

/**
 * Lesson Markdown as a fragment of safe elements. `docs/NAME.md` in plain text becomes a link to that chapter
 * of the site's docs (as the built-in lessons write their references).
 * @param {string} text @returns {DocumentFragment}
 */
export function renderMarkdown(text) {
  const html = renderer().render(String(text).replace(/(^|[\s(])(docs\/[\w-]+(?:\/[\w-]+)*)\.md\b/g, '$1[$2.md]($2.html)'));
  const t = document.createElement('template');
  t.innerHTML = html;
  const frag = document.createDocumentFragment();
  copyAllowed(t.content, frag);
  // The line breaks markdown-it writes between blocks are not text of the lesson.
  for (const n of [...frag.childNodes]) if (n.nodeType === Node.TEXT_NODE && !(n.textContent ?? '').trim()) n.remove();
  return frag;
}
