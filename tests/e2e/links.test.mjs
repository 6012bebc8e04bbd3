// End-to-end: no dead link on the built site (npm run build -> dist/, with the docs book at dist/docs/). A crawler
// starts at index.html and fetches every same-origin href / src of every HTML page it reaches (the page and the
// docs book), plus the links the page makes at run time: the tab panels, the Embed dialog, every lesson's step
// texts and citation (references to docs pages become links, www/shared/dom.js docText) and a HOAG reading.
// Any answer but 200 fails the test, listing each dead link with the page that links to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './helpers.mjs';
import { LESSONS } from './lesson-files.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-links-'));
before(() => {
  assert.ok(fs.existsSync(path.join(REPO, 'target/book/index.html')), 'the docs book is missing: bash scripts/dev/docs.sh (npm run build runs it)');
  execFileSync(process.execPath, [path.join(REPO, 'scripts/dev/build-dist.mjs')], { env: { ...process.env, DIST_DIR: dist }, stdio: 'pipe' });
});
after(() => fs.rmSync(dist, { recursive: true, force: true }));

/** href / src values of an HTML text (comments and script bodies skipped). @param {string} html */
function links(html) {
  const text = html.replace(/<!--[\s\S]*?-->/g, '').replace(/(<script\b[^>]*>)[\s\S]*?(<\/script>)/gi, '$1$2');
  const out = [];
  for (const tag of text.matchAll(/<[a-zA-Z][^>]*>/g)) {
    for (const a of tag[0].matchAll(/\s(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) out.push((a[2] ?? a[3] ?? a[4] ?? '').replace(/&amp;/g, '&'));
  }
  return out;
}

test('a crawl of the built site (page, run-time links, docs book) finds no dead link', async () => {
  const env = await launch({ isolation: false, root: dist, serviceWorkers: 'block' });
  try {
    const { page } = await openPage(env.context, env.url);
    const origin = new URL(env.url).origin;
    /** @type {Map<string, string>} url -> the page that links to it */
    const found = new Map();
    const add = (/** @type {string} */ href, /** @type {string} */ from) => {
      if (!href || /^(#|mailto:|javascript:|data:|blob:)/.test(href)) return;
      const u = new URL(href, from);
      if (u.origin !== origin) return;
      u.hash = '';
      if (!found.has(u.href)) found.set(u.href, from);
    };
    // Run-time links: every tab, the Embed dialog, every lesson (all steps) and a HOAG reading.
    const domLinks = () => page.$$eval('a[href]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
    for (const h of await domLinks()) add(h, env.url);
    const lessons = LESSONS.map((l) => ({ id: l.id, steps: l.steps.length }));
    assert.ok(lessons.length >= 4, JSON.stringify(lessons));
    for (const l of lessons) {
      await page.goto('about:blank');
      await page.goto(`${env.url}#lesson=${l.id}`);
      await page.waitForSelector('#lesson-text');
      for (let i = 1; i <= l.steps; i++) {
        for (const h of await domLinks()) add(h, `${env.url}#lesson=${l.id}`);
        if (i < l.steps) { await page.click('#lesson-next'); await page.waitForFunction((n) => document.getElementById('lesson').dataset.step === String(n), i + 1); }
      }
    }
    // The lessons' references to docs pages are links now (one for docs/tvo.md, one for docs/bandit-tables.md).
    for (const p of ['docs/tvo.html', 'docs/bandit-tables.html']) assert.ok(found.has(new URL(p, env.url).href), `${p} linked from a lesson`);
    await page.goto('about:blank');
    await page.goto(`${env.url}#panel=hoag&hoag.problem=logreg&hoag.data=simulate&hoag.n=90&hoag.dim=3&hoag.methods=hoag-exponential,grid&hoag.cost=100&hoag.maxiter=6&hoag.land=0&hoag.seed=1`);
    await page.waitForFunction(() => window.__tunelab?.panels?.hoag != null);
    await page.click('#hoag-run');
    await page.waitForFunction(() => document.getElementById('panel-hoag').dataset.runState === 'done', null, { timeout: 60_000 });
    const hoagLinks = await page.$$eval('#hoag-reading a[href]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
    assert.deepEqual(hoagLinks, ['docs/paper-hoag.html']);
    for (const h of await domLinks()) add(h, `${env.url}#panel=hoag`);

    // The static crawl: every same-origin link of every HTML page reached, from index.html on.
    add('index.html', env.url);
    const dead = [];
    const done = new Set();
    for (let again = true; again;) {
      again = false;
      for (const [url, from] of found) {
        if (done.has(url)) continue;
        done.add(url);
        again = true;
        const res = await fetch(url);
        if (res.status !== 200) { dead.push(`${res.status} ${url.slice(origin.length)} (linked from ${from.slice(origin.length)})`); continue; }
        if ((res.headers.get('content-type') ?? '').includes('text/html')) for (const h of links(await res.text())) add(h, res.url); // after a redirect, relative to where it led
        else await res.arrayBuffer();
      }
    }
    assert.deepEqual(dead, [], `${dead.length} dead links:\n${dead.join('\n')}`);
    // The crawl reached the docs book (its pages and the instructor's guide), not only the page.
    const docsPages = [...done].filter((u) => /\/docs\/.*\.html$/.test(u));
    assert.ok(docsPages.length > 30, `${docsPages.length} docs pages crawled`);
    assert.ok(done.has(`${origin}/docs/instructors.html`));
  } finally { await env.close(); }
});
