// The first module of the widget's page (www/widget/app.js), inside the iframe the widget made
// (www/widget/loader.js): it reads the bridge from the iframe element, puts the widget's hash (embed mode, panel,
// lesson) in place before www/embed.js reads it, and answers the page's two kinds of loads without a network:
// - `new Worker(<www/worker.js>)` starts the bundled worker from its Blob URL and posts it, first, the wasm bytes
//   and a port on which it asks for data files (www/widget/worker-shims.js);
// - `fetch(<an address under the bundle's base>)` is answered from the files the wheel ships (asked of the
//   kernel); any other address is refused: the widget fetches nothing from the network.
// scripts/dev/build-widget.mjs gives every bundled module an `import.meta.url` under BASE (its repository path).

export const BASE = 'https://tunelab.invalid/';

/** @type {any} set by loader.js on the iframe element before the page loads */
export const bridge = /** @type {any} */ (window.frameElement)?.__tunelab;
if (!bridge) throw new Error('tunelab widget: this bundle runs only inside the widget\'s iframe (no bridge on its frame element)');

// The iframe's address carries the hash already (loader.js); set again in case a browser dropped it.
if (location.hash.replace(/^#/, '') !== bridge.hash) history.replaceState(null, '', `#${bridge.hash}`);

/** The path under BASE an address names, or null for any other address. @param {RequestInfo|URL} input */
export function widgetPath(input) {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return url.startsWith(BASE) ? url.slice(BASE.length).split(/[?#]/)[0] : null;
}

/** @param {RequestInfo|URL} input @returns {Promise<Response>} */
async function widgetFetch(input) {
  const path = widgetPath(input);
  if (path == null) throw new TypeError(`the tunelab widget fetches nothing from the network (${String(input instanceof Request ? input.url : input)})`);
  const buf = await bridge.file(path);
  return buf ? new Response(buf, { status: 200 }) : new Response('', { status: 404, statusText: `${path} is not in the tunelab wheel` });
}
window.fetch = /** @type {typeof fetch} */ (widgetFetch);

const PageWorker = window.Worker;
/** The page's compute worker, from the bundle: the only worker the page starts. */
class WidgetWorker extends PageWorker {
  /** @param {string|URL} url @param {WorkerOptions} [opts] */
  constructor(url, opts) {
    if (widgetPath(url) !== 'www/worker.js') throw new Error(`the tunelab widget has no worker ${String(url)}`);
    super(bridge.workerUrl, { ...opts, type: 'module' });
    const channel = new MessageChannel();
    channel.port1.onmessage = async (e) => {
      const { id, path } = e.data ?? {};
      const buf = await bridge.file(String(path)).catch(() => null);
      channel.port1.postMessage({ id, buf }, buf ? [buf] : []);
    };
    const wasm = bridge.wasm();
    // Posted before anything the page posts, so the worker has the wasm when `init` arrives.
    super.postMessage({ tunelabWidget: { base: BASE, wasm, port: channel.port2 } }, [wasm, channel.port2]);
  }
}
window.Worker = WidgetWorker;
