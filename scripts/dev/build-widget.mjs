// Builds the Jupyter widget's front end (tunelab.widget / tunelab.show, crates/python/python/tunelab/widget.py)
// into crates/python/python/tunelab/_widget/, which the wheel ships; nothing is fetched at run time.
//
// The widget is the page itself in embed mode, inside an iframe the widget makes in the notebook's output area
// (its own document: the page's ids, styles and keyboard shortcuts cannot clash with JupyterLab's or another
// widget's). esbuild bundles the page's modules into one ESM each:
//   widget.js    the anywidget module (www/widget/loader.js): makes the iframe, hands it the files below
//   app.js       the page (www/widget/app.js: shims, then www/embed.js and www/main.js as index.html loads them)
//   worker.js    the compute worker (www/worker.js over the single-threaded pkg/; started from a Blob URL, the
//                wasm bytes posted to it)
//   page.html    index.html's body with every stylesheet inlined (uPlot's, www/style.css, www/widget/widget.css)
//   tunelab_bg.wasm  pkg/'s single-threaded build: a notebook page is not cross-origin isolated, so no threads
//   files/       the data files a config may read (data/*.csv) and the built-in lessons (lessons/ID.md), served
//                to the page and its worker by the kernel on request
//   manifest.json  the built-in lesson ids and panels, the wasm's source hash, the sizes
//   LICENSES.txt the licences of the npm packages bundled (uPlot, ...)
// Each module's `import.meta.url` becomes a fixed address under https://tunelab.invalid/ (its path in the
// repository), so the page's relative URLs (the worker, ../data/x.csv, ../pkg/tunelab_bg.wasm) resolve as on the
// site; the widget's fetch and Worker shims (www/widget/shims.js, worker-shims.js) answer those addresses from
// the files the wheel ships and refuse every other one.
// Usage: node scripts/dev/build-widget.mjs (needs pkg/: bash scripts/dev/build-wasm.sh single).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'crates/python/python/tunelab/_widget');
const BASE = 'https://tunelab.invalid/';
const rel = (p) => path.relative(REPO, p).split(path.sep).join('/');

for (const need of ['pkg/tunelab.js', 'pkg/tunelab_bg.wasm', 'node_modules/uplot/dist/uPlot.esm.js']) {
  if (!fs.existsSync(path.join(REPO, need))) {
    console.error(`build-widget: ${need} is missing (bash scripts/dev/build-wasm.sh single; npm ci)`);
    process.exit(1);
  }
}

/** vendor/NAME/ of the page's imports: the node_modules folder scripts/dev/serve.mjs serves it from. */
const VENDOR = { uplot: 'node_modules/uplot/dist', 'markdown-it': 'node_modules/markdown-it/dist/browser' };

/** The page's own module loading, adapted for a bundle (each rewrite must match exactly once, or the build fails). */
const REWRITES = {
  // The worker imports the wasm-bindgen module of the flavour the page asks for by a computed URL; the widget
  // ships only the single-threaded one (a notebook page is not cross-origin isolated).
  'www/worker.js': [["const mod = await import(url);", "const mod = await import('../pkg/tunelab.js');"]],
};

/** @type {esbuild.Plugin} */
const pagePlugin = {
  name: 'tunelab-page',
  setup(build) {
    // Vendored libraries, as scripts/dev/serve.mjs maps them (vendor/NAME/ = a folder of node_modules).
    build.onResolve({ filter: /vendor\/[^/]+\// }, (args) => {
      const [, name, file] = /** @type {RegExpMatchArray} */ (args.path.match(/vendor\/([^/]+)\/(.*)$/));
      if (!VENDOR[name]) throw new Error(`build-widget: vendor/${name}/ has no node_modules folder in VENDOR (scripts/dev/build-widget.mjs; see scripts/dev/serve.mjs)`);
      return { path: path.join(REPO, VENDOR[name], file) };
    });
    build.onLoad({ filter: /\.m?js$/ }, async (args) => {
      let text = await fs.promises.readFile(args.path, 'utf8');
      const r = rel(args.path);
      for (const [from, to] of REWRITES[r] ?? []) {
        const n = text.split(from).length - 1;
        if (n !== 1) throw new Error(`build-widget: expected "${from}" once in ${r}, found ${n} (update REWRITES in scripts/dev/build-widget.mjs)`);
        text = text.replace(from, to);
      }
      if (!r.startsWith('node_modules/')) {
        // The page's document address is a Blob URL in the widget, which cannot be a base: its relative URLs
        // (lessons/ID.md) resolve against BASE, where the fetch shim answers them.
        text = text.replaceAll('import.meta.url', JSON.stringify(BASE + r)).replaceAll('document.baseURI', JSON.stringify(BASE));
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const common = { bundle: true, format: /** @type {const} */ ('esm'), target: 'es2022', minify: true, write: false, metafile: true, legalComments: /** @type {const} */ ('none'), logLevel: /** @type {const} */ ('warning'), plugins: [pagePlugin] };
const bundle = async (entry) => {
  const r = await esbuild.build({ ...common, entryPoints: [path.join(REPO, entry)] });
  return { code: r.outputFiles[0].text, inputs: Object.keys(r.metafile.inputs) };
};

const [worker, app, loader] = await Promise.all([bundle('www/widget/worker-entry.js'), bundle('www/widget/app.js'), bundle('www/widget/loader.js')]);

// The page's markup: index.html's body (its scripts are the bundle; no external stylesheet).
const index = fs.readFileSync(path.join(REPO, 'index.html'), 'utf8');
const body = index.match(/<body[^>]*>([\s\S]*)<\/body>/i)?.[1];
if (!body) throw new Error('build-widget: no <body> in index.html');
const css = ['node_modules/uplot/dist/uPlot.min.css', 'www/style.css', 'www/widget/widget.css']
  .map((f) => `/* ${f} */\n${fs.readFileSync(path.join(REPO, f), 'utf8')}`).join('\n');
const page = `<!doctype html>\n<html lang="en" class="embed widget">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>tunelab</title>\n<style>\n${css.replace(/<\/style/gi, '<\\/style')}\n</style>\n<!--tunelab:scripts-->\n</head>\n<body>${body.replace(/<script[\s\S]*?<\/script>/gi, '')}</body>\n</html>\n`;

// The built-in lessons (id -> panel, title), so Python names a wrong id before anything is shown: each file of
// lessons/ read by the core's lesson parser (the single-threaded wasm module, as the page's worker runs it).
const { BUILTIN_LESSONS, panelOf } = await import(path.join(REPO, 'www/lessons.js'));
const wasmMod = await import(path.join(REPO, 'pkg/tunelab.js'));
wasmMod.initSync({ module: fs.readFileSync(path.join(REPO, 'pkg/tunelab_bg.wasm')) });
const lessons = Object.fromEntries(BUILTIN_LESSONS.map((/** @type {string} */ id) => {
  const l = wasmMod.lesson_parse(`lessons/${id}.md`, fs.readFileSync(path.join(REPO, 'lessons', `${id}.md`), 'utf8'));
  return [id, { panel: panelOf(l.kind), title: l.title }];
}));

// Licences of the npm packages inside the bundles.
const packages = new Set();
for (const f of [...worker.inputs, ...app.inputs, ...loader.inputs]) {
  const m = f.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.add(m[1]);
}
let licences = 'Licences of the npm packages bundled into app.js, worker.js and widget.js (tunelab\'s own code: MIT OR Apache-2.0).\n';
for (const p of [...packages].sort()) {
  const dir = path.join(REPO, 'node_modules', p);
  const lic = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  licences += `\n==== ${p} ${version} ====\n${lic ? fs.readFileSync(path.join(dir, lic), 'utf8') : '(no licence file in the package)'}\n`;
}

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(path.join(OUT, 'files/data'), { recursive: true });
const write = (name, data) => fs.writeFileSync(path.join(OUT, name), data);
write('widget.js', loader.code);
write('app.js', app.code);
write('worker.js', worker.code);
write('page.html', page);
write('LICENSES.txt', licences);
fs.copyFileSync(path.join(REPO, 'pkg/tunelab_bg.wasm'), path.join(OUT, 'tunelab_bg.wasm'));
const files = [];
// The built-in lesson files, fetched by the page's lesson code under BASE/lessons/.
fs.mkdirSync(path.join(OUT, 'files/lessons'), { recursive: true });
for (const id of BUILTIN_LESSONS) {
  fs.copyFileSync(path.join(REPO, 'lessons', `${id}.md`), path.join(OUT, 'files/lessons', `${id}.md`));
  files.push(`lessons/${id}.md`);
}
for (const f of fs.readdirSync(path.join(REPO, 'data')).filter((f) => f.endsWith('.csv') || f.startsWith('COPYING')).sort()) {
  fs.copyFileSync(path.join(REPO, 'data', f), path.join(OUT, 'files/data', f));
  files.push(`data/${f}`);
}
const size = (f) => fs.statSync(path.join(OUT, f)).size;
const pkgInputs = fs.existsSync(path.join(REPO, 'pkg/.inputs')) ? fs.readFileSync(path.join(REPO, 'pkg/.inputs'), 'utf8').trim() : null;
const manifest = { base: BASE, lessons, files, wasm_inputs: pkgInputs,
  bytes: Object.fromEntries(['widget.js', 'app.js', 'worker.js', 'page.html', 'tunelab_bg.wasm'].map((f) => [f, size(f)])) };
write('manifest.json', JSON.stringify(manifest, null, 1) + '\n');
console.log(`build-widget: ${rel(OUT)}: ${Object.entries(manifest.bytes).map(([f, b]) => `${f} ${(b / 1024).toFixed(0)} KiB`).join(', ')}; ${files.length} data files; ${Object.keys(lessons).length} lessons`);
