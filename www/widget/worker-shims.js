// The first module of the widget's compute worker (www/widget/worker-entry.js): the widget's page
// (www/widget/shims.js) posts it, before any request, the wasm bytes and a port to ask for data files. Its
// `fetch` answers the addresses under the bundle's base (scripts/dev/build-widget.mjs): the wasm from those bytes,
// data files (../data/x.csv) through the port (the kernel sends them); any other address is refused.

/** @type {{base: string, wasm: ArrayBuffer, port: MessagePort}|null} */
let setup = null;
let nextId = 1;
/** @type {Map<number, (buf: ArrayBuffer|null) => void>} */
const waiting = new Map();

// Registered before www/worker.js's listener (this module is evaluated first), so the page's requests never see
// the setup message.
self.addEventListener('message', (e) => {
  const s = /** @type {any} */ (e).data?.tunelabWidget;
  if (!s) return;
  e.stopImmediatePropagation();
  setup = s;
  s.port.onmessage = (/** @type {MessageEvent} */ m) => {
    const done = waiting.get(m.data?.id);
    waiting.delete(m.data?.id);
    done?.(m.data?.buf ?? null);
  };
});

/** @param {RequestInfo|URL} input @returns {Promise<Response>} */
async function widgetFetch(input) {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!setup) throw new TypeError('the tunelab widget\'s worker was not set up (no wasm was posted to it)');
  if (!url.startsWith(setup.base)) throw new TypeError(`the tunelab widget fetches nothing from the network (${url})`);
  const path = url.slice(setup.base.length).split(/[?#]/)[0];
  if (path.endsWith('/tunelab_bg.wasm')) return new Response(setup.wasm, { headers: { 'content-type': 'application/wasm' } });
  const port = setup.port;
  const buf = await new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    port.postMessage({ id, path });
  });
  return buf ? new Response(/** @type {ArrayBuffer} */ (buf)) : new Response('', { status: 404, statusText: `${path} is not in the tunelab wheel` });
}
self.fetch = /** @type {typeof fetch} */ (widgetFetch);
