#!/usr/bin/env node
// Renders docs/instructors.md to a standalone HTML page (the instructor's guide served with the playground).
//   node scripts/dev/guide.mjs [OUT]   (default docs/instructors.html; scripts/dev/build-dist.mjs writes dist/docs/instructors.html)
// A deliberately small Markdown subset, enough for that one document: # headings, paragraphs, - and 1. lists,
// ``` code blocks, | tables |, `code`, **bold**, *italic*, [links](url) and ![images](src). Everything is escaped.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Inline Markdown: code spans first (their content is literal), then images, links, bold, italic. */
export function inline(text) {
  const parts = text.split(/(`[^`]+`)/);
  return parts.map((p) => {
    if (/^`[^`]+`$/.test(p)) return `<code>${esc(p.slice(1, -1))}</code>`;
    let s = esc(p);
    s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_, alt, src) => `<img src="${src}" alt="${alt}" loading="lazy">`);
    s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t, href) => `<a href="${href.replace(/\.md(#|$)/, '.html$1')}">${t}</a>`);
    s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
    s = s.replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
    return s;
  }).join('');
}

const slug = (s) => s.toLowerCase().replace(/<[^>]+>/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Markdown (the subset above) to HTML body content. */
export function markdownToHtml(md) {
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const buf = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) buf.push(lines[i]);
      i++;
      out.push(`<pre><code>${esc(buf.join('\n'))}</code></pre>`);
      continue;
    }
    const h = line.match(/^(#{1,4})\s+(.*)$/);
    if (h) {
      const n = h[1].length; const html = inline(h[2]);
      out.push(`<h${n} id="${slug(html)}">${html}</h${n}>`);
      i++;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      const rows = [];
      for (; i < lines.length && /^\s*\|/.test(lines[i]); i++) rows.push(lines[i].trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()));
      const body = rows.filter((r, k) => !(k === 1 && r.every((c) => /^:?-+:?$/.test(c))));
      const [head, ...rest] = body;
      out.push(`<table><thead><tr>${head.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${rest.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`);
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      for (; i < lines.length && (/^\s*([-*]|\d+\.)\s+/.test(lines[i]) || (/^\s{2,}\S/.test(lines[i]) && items.length)); i++) {
        if (/^\s*([-*]|\d+\.)\s+/.test(lines[i])) items.push(lines[i].replace(/^\s*([-*]|\d+\.)\s+/, ''));
        else items[items.length - 1] += ' ' + lines[i].trim();
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`);
      continue;
    }
    if (line.trim() === '') { i++; continue; }
    const para = [];
    for (; i < lines.length && lines[i].trim() !== '' && !/^(#{1,4}\s|```|\s*\||\s*([-*]|\d+\.)\s+)/.test(lines[i]); i++) para.push(lines[i].trim());
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}

const CSS = `body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;max-width:52rem;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.7rem}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid #d8dde3;padding-bottom:.2rem}h3{font-size:1.08rem;margin-top:1.4rem}
a{color:#0072B2}code{font:.88em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f5;padding:.05rem .25rem;border-radius:4px}
pre{background:#f6f7f9;border:1px solid #d8dde3;border-radius:6px;padding:.7rem;overflow-x:auto}pre code{background:none;padding:0}
table{border-collapse:collapse;margin:.8rem 0;font-size:.92rem}th,td{border:1px solid #d8dde3;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f7f9}img{max-width:100%;height:auto;border:1px solid #d8dde3;border-radius:6px;display:block;margin:.6rem 0}`;

/** Writes the guide as a standalone HTML page; image paths are relative to docs/, like the Markdown. */
export function renderGuide(outFile = path.join(REPO, 'docs/instructors.html')) {
  const md = fs.readFileSync(path.join(REPO, 'docs/instructors.md'), 'utf8');
  const body = markdownToHtml(md);
  const title = (md.match(/^#\s+(.*)$/m)?.[1] ?? 'Instructor\'s guide').replace(/[`*]/g, '');
  const html = `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n`
    + `<title>${esc(title)}</title>\n<link rel="icon" href="data:,">\n<style>${CSS}</style>\n</head>\n<body>\n`
    + `<p><a href="../index.html">← tunelab playground</a></p>\n${body}\n</body>\n</html>\n`;
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, html);
  return outFile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = renderGuide(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(`guide: wrote ${path.relative(REPO, out)}`);
}
