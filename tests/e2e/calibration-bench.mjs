// The time-estimate calibration's warm-up (www/shared/time-estimate.js calibrate): twelve runs in a row of the calibration
// chain in the single-threaded page's worker, on three fresh pages. A measurement, not a test.
//   node tests/e2e/calibration-bench.mjs
import { launch, openPage } from './helpers.mjs';
import { CALIBRATION } from '../../www/shared/time-estimate.js';
const env = await launch({ isolation: false, serviceWorkers: 'block' });
try {
  for (let k = 0; k < 3; k++) {
    const { page } = await openPage(env.context, env.url);
    const ms = await page.evaluate(async (cal) => {
      const c = window.__tunelab.client; const out = [];
      for (let i = 0; i < 12; i++) { out.push(Math.round((await c.bench('sgld', cal)).ms * 10) / 10); }
      return out;
    }, CALIBRATION);
    console.log('page', k, JSON.stringify(ms));
    await page.close();
  }
} finally { await env.close(); }
