// The widget's compute worker (bundled by scripts/dev/build-widget.mjs): its fetch shim, then the page's worker.
import './worker-shims.js';
import '../worker.js';
