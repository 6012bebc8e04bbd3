// The anywidget module of tunelab.widget / tunelab.show (crates/python/python/tunelab/widget.py); bundled by
// scripts/dev/build-widget.mjs into the wheel's tunelab/_widget/widget.js. It runs in the notebook's page
// (JupyterLab, VS Code, ...) and makes an iframe in the cell's output holding the page in embed mode: its own
// document, so the page's element ids, styles, URL hash and keyboard shortcuts stay apart from the notebook's and
// from other widgets'. The iframe is same-origin (a Blob URL document): it reads the bridge below from its frameElement.
//
// Everything comes from the kernel through the widget's synced traits (nothing is fetched from the network):
// `_page` (index.html's body with its styles), `_app` and `_worker` (the bundled page and compute worker, started
// from Blob URLs), `_wasm` (the single-threaded WebAssembly, posted to each worker), `hash` (embed mode, panel,
// lesson), `payload` ({config} | {preset} | {report}, applied once the panels exist, and `run`). Data files a
// config reads (data/*.csv) are asked of the kernel by custom message when the worker needs them.
// The page's state is written back to the `status` trait and to data-* attributes of the output element.

/** @typedef {{get: (k: string) => any, set: (k: string, v: any) => void, save_changes: () => void, send: (content: any, callbacks?: any, buffers?: ArrayBuffer[]) => void, on: (ev: string, fn: (...a: any[]) => void) => void, off: (ev: string, fn: (...a: any[]) => void) => void}} Model */

/** A DataView / ArrayBuffer / typed array trait as a fresh ArrayBuffer. @param {any} v @returns {ArrayBuffer} */
function bytesOf(v) {
  if (v instanceof ArrayBuffer) return v.slice(0);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice().buffer;
  return new ArrayBuffer(0);
}

/** @param {{model: Model, el: HTMLElement}} args */
function render({ model, el }) {
  const urls = [];
  const blobUrl = (/** @type {string} */ code) => { const u = URL.createObjectURL(new Blob([code], { type: 'text/javascript' })); urls.push(u); return u; };
  const appUrl = blobUrl(model.get('_app'));
  const workerUrl = blobUrl(model.get('_worker'));
  const wasm = bytesOf(model.get('_wasm'));

  // Data files asked of the kernel (widget.py answers {type: 'file', id, ok} with the bytes as a buffer).
  let nextId = 1;
  /** @type {Map<number, (buf: ArrayBuffer|null) => void>} */
  const waiting = new Map();
  /** @param {any} msg @param {any[]} buffers */
  const onMsg = (msg, buffers) => {
    if (msg?.type !== 'file' || !waiting.has(msg.id)) return;
    const done = waiting.get(msg.id);
    waiting.delete(msg.id);
    done?.(msg.ok && buffers?.length ? bytesOf(buffers[0]) : null);
  };
  model.on('msg:custom', onMsg);

  const frame = /** @type {HTMLIFrameElement & {__tunelab?: any}} */ (document.createElement('iframe'));
  frame.className = 'tunelab-widget-frame';
  frame.title = model.get('title') || 'tunelab playground';
  frame.style.cssText = 'display:block;width:100%;border:1px solid #d8dde3;border-radius:6px;height:480px;background:#fff';
  /** @param {Record<string, any>} s */
  const report = (s) => {
    for (const [k, v] of Object.entries(s)) el.dataset[`tunelab${k[0].toUpperCase()}${k.slice(1)}`] = String(v);
    try { model.set('status', { ...model.get('status'), ...s }); model.save_changes(); } catch { /* the kernel may be gone */ }
  };
  frame.__tunelab = {
    hash: model.get('hash'),
    payload: model.get('payload'),
    workerUrl,
    /** A copy of the wasm bytes for one worker. */
    wasm: () => wasm.slice(0),
    /** @param {string} path a file under the widget's files/ (e.g. data/wine.csv) @returns {Promise<ArrayBuffer|null>} */
    file: (path) => new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      model.send({ type: 'file', id, path });
    }),
    /** @param {number} h the page's height in CSS pixels */
    resize: (h) => { frame.style.height = `${Math.max(200, Math.ceil(h))}px`; },
    report,
  };
  // A Blob URL document, not srcdoc: the page keeps its settings in its URL hash (history.replaceState), which an
  // about:srcdoc document may not rewrite.
  const page = String(model.get('_page')).replace('<!--tunelab:scripts-->', `<script type="module" src="${appUrl}"></script>`);
  const pageUrl = URL.createObjectURL(new Blob([page], { type: 'text/html' }));
  urls.push(pageUrl);
  frame.src = `${pageUrl}#${model.get('hash')}`;
  el.classList.add('tunelab-widget');
  el.replaceChildren(frame);
  report({ state: 'loading' });
  return () => {
    model.off('msg:custom', onMsg);
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
    frame.remove();
    for (const u of urls) URL.revokeObjectURL(u);
  };
}

export default { render };
