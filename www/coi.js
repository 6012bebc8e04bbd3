// Threads on static hosts: registers the vendored coi-serviceworker (npm `coi-serviceworker`, copied to the site
// root as /coi-serviceworker.js: a service worker's scope is its own folder) so that a host that cannot send the
// Cross-Origin-Opener-Policy / Cross-Origin-Embedder-Policy headers still gets a cross-origin isolated page, and
// with it the threaded build, from the second load on.
//
// A classic script, loaded first in <head> (before any module), because it may reload the page. Only the
// package's service-worker half is used; the registration below replaces its page half so that:
//   - nothing happens when the page is already isolated (a host with the headers, e.g. `npm start`);
//   - the page reloads AT MOST ONCE per tab session (sessionStorage counter): no reload loop when the worker
//     controls the page but isolation is still impossible (a frame inside a page that is not isolated);
//   - nothing is registered where that guard cannot work or service workers do not exist (storage blocked,
//     sandboxed frames, private modes without service workers, plain http other than localhost, file://);
//   - `#sw=0` in the link switches it off.
// The outcome is in window.__tunelabCoi (read by www/embed.js to say why the page runs threads or not):
//   {state: 'isolated'|'registering'|'controlled'|'reload-skipped'|'unsupported'|'no-storage'|'disabled'|'failed',
//    headersIsolated, controlled, reloads, error}
(function () {
  'use strict';
  var KEY = 'tunelab-coi-reloads';
  var SW_URL = new URL('coi-serviceworker.js', document.baseURI).href;
  var sw = navigator.serviceWorker;
  var status = window.__tunelabCoi = {
    state: 'unknown',
    headersIsolated: window.crossOriginIsolated === true && !(sw && sw.controller),
    controlled: !!(sw && sw.controller),
    reloads: 0,
    error: null,
    onchange: null,
  };
  function set(state, error) {
    status.state = state;
    if (error) status.error = error;
    if (typeof status.onchange === 'function') { try { status.onchange(status); } catch (e) { /* page hook */ } }
  }
  var store = null;
  try { store = window.sessionStorage; store.getItem(KEY); } catch (e) { store = null; }
  status.reloads = store ? Number(store.getItem(KEY) || 0) : 0;

  if (window.crossOriginIsolated === true) {
    if (store) store.removeItem(KEY);
    set('isolated');
    return;
  }
  if (/(^#|&)sw=0(&|$)/.test(location.hash)) { set('disabled'); return; }
  if (!sw || !window.isSecureContext) { set('unsupported'); return; }
  if (!store) { set('no-storage'); return; }

  function reloadOnce() {
    var n = Number(store.getItem(KEY) || 0);
    if (n >= 1) { set('reload-skipped'); return; }
    store.setItem(KEY, String(n + 1));
    location.reload();
  }

  if (sw.controller) {
    // Controlled but not isolated: reloading once helps when the worker arrived after this document loaded
    // (e.g. another tab installed it); otherwise isolation is impossible here (a frame in a page that is not
    // isolated) and the counter stops us.
    reloadOnce();
    if (status.state !== 'reload-skipped') return;
  }
  set(status.state === 'reload-skipped' ? 'reload-skipped' : 'registering');
  // Some browsers leave the registration pending forever when service workers are blocked by a setting or
  // a policy: give up on threads after a while (the page keeps working single-threaded).
  setTimeout(function () {
    if (status.state === 'registering') set('failed', 'the service worker did not start within 5 s (blocked by the browser or its settings)');
  }, 5000);
  sw.register(SW_URL).then(function (reg) {
    if (!reg) { set('failed', 'the browser refused the service worker'); return; }
    if (sw.controller) { if (status.state !== 'reload-skipped') set('controlled'); return; }
    var worker = reg.installing || reg.waiting || reg.active;
    if (!worker) return;
    if (worker.state === 'activated') { reloadOnce(); return; }
    worker.addEventListener('statechange', function () {
      if (worker.state === 'activated') reloadOnce();
      else if (worker.state === 'redundant') set('failed', 'the service worker was discarded');
    });
  }, function (err) {
    set('failed', String((err && err.message) || err));
  });
})();
