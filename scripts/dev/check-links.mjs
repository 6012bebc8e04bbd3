#!/usr/bin/env node
// Dead-link checker for a built static site (the docs book): walks every .html file under DIR, resolves every
// relative href / src (and `#fragment`s against the ids of the target page) and fails listing each dead link.
//   node scripts/dev/check-links.mjs DIR
// External links (http:, https:, mailto:, ...) are not fetched. A link that leaves DIR is dead: the built site
// must hold everything it links to. No dependency beyond Node itself.
import fs from 'node:fs';
import path from 'node:path';

const root = process.argv[2];
if (!root || !fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
  console.error('usage: node scripts/dev/check-links.mjs SITE_DIR (a folder of built HTML)');
  process.exit(2);
}
const ROOT = path.resolve(root);

const htmlFiles = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.html')) htmlFiles.push(p);
  }
};
walk(ROOT);

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
const unescape = (s) => s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, e) => {
  if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  return ENTITIES[e.toLowerCase()] ?? m;
});

/** The tags' href / src values of an HTML text (script bodies and comments are skipped). */
function links(html) {
  const text = html.replace(/<!--[\s\S]*?-->/g, '').replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/gi, '$1$2');
  const out = [];
  for (const tag of text.matchAll(/<[a-zA-Z][^>]*>/g)) {
    for (const a of tag[0].matchAll(/\s(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
      out.push(unescape(a[2] ?? a[3] ?? a[4] ?? ''));
    }
  }
  return out;
}

const idCache = new Map();
/** The ids (and a names) of an HTML file. */
function ids(file) {
  if (!idCache.has(file)) {
    const html = fs.readFileSync(file, 'utf8');
    const set = new Set();
    for (const m of html.matchAll(/\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) set.add(unescape(m[1] ?? m[2]));
    idCache.set(file, set);
  }
  return idCache.get(file);
}

const dead = [];
let checked = 0;
for (const file of htmlFiles) {
  const rel = path.relative(ROOT, file);
  for (const raw of links(fs.readFileSync(file, 'utf8'))) {
    const link = raw.trim();
    if (link === '' || /^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) continue; // external or data:
    checked++;
    const hash = link.indexOf('#');
    const fragment = hash >= 0 ? decodeURIComponent(link.slice(hash + 1)) : '';
    let target = (hash >= 0 ? link.slice(0, hash) : link).split('?')[0];
    let resolved;
    try { target = decodeURIComponent(target); } catch { dead.push([rel, raw, 'bad escape']); continue; }
    if (target === '') resolved = file;
    else resolved = target.startsWith('/') ? path.join(ROOT, target) : path.resolve(path.dirname(file), target);
    if (resolved !== ROOT && !resolved.startsWith(ROOT + path.sep)) { dead.push([rel, raw, 'outside the site']); continue; }
    let st = fs.statSync(resolved, { throwIfNoEntry: false });
    if (st?.isDirectory()) { resolved = path.join(resolved, 'index.html'); st = fs.statSync(resolved, { throwIfNoEntry: false }); }
    if (!st?.isFile()) { dead.push([rel, raw, 'no such file']); continue; }
    if (fragment && resolved.endsWith('.html') && !ids(resolved).has(fragment)) dead.push([rel, raw, 'no such anchor']);
  }
}

if (dead.length) {
  for (const [f, l, why] of dead) console.error(`dead link: ${f} -> ${l} (${why})`);
  console.error(`check-links: ${dead.length} dead link(s) of ${checked} in ${htmlFiles.length} HTML files under ${root}`);
  process.exit(1);
}
console.log(`check-links: ${checked} relative links in ${htmlFiles.length} HTML files under ${root}, none dead`);
