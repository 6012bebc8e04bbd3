// Starts the playground's threaded build N times in Debian's Firefox ESR (headless, one browser, a fresh page on a
// fresh cross-origin-isolated server each time) while `busy` CPU hogs run at the lowest priority, and prints how
// long each page took until its compute worker was ready, and with which build. A thread-pool start that hangs
// (Firefox, loaded machine) shows as a start of THREAD_START_MS (www/client.js) or more: the page restarted it.
// Usage: node scripts/dev/firefox-thread-start.mjs [N=30] [busy=2]   (needs pkg-parallel/, as `npm start` builds)
import { spawn } from 'node:child_process';
import { openBrowser } from '../../tests/e2e/driver.mjs';
import { playground } from '../../tests/e2e/embed-helpers.mjs';

const n = Number(process.argv[2] ?? 30);
const busy = Number(process.argv[3] ?? 2);
const hogs = Array.from({ length: busy }, () => spawn('nice', ['-n', '19', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
const ff = await openBrowser('firefox');
const slow = [];
let never = 0;
try {
  for (let i = 0; i < n; i++) {
    const pg = await playground({ isolation: true });
    const tab = await ff.open(pg.url);
    const t0 = Date.now();
    let ok = false;
    while (!ok && Date.now() - t0 < 60_000) {
      ok = await tab.evaluate(() => window.__tunelab?.info != null && window.__tunelab?.panels?.tvo != null).catch(() => false);
      if (!ok) await new Promise((r) => setTimeout(r, 100));
    }
    const ms = Date.now() - t0;
    const flavour = ok ? await tab.evaluate(() => window.__tunelab.info.flavour) : 'none';
    if (!ok) never++;
    if (!ok || ms > 5000) slow.push(`start ${i}: ${ok ? `${flavour} after ${ms} ms` : 'not ready after 60 s'}`);
    await tab.close(); await pg.close();
  }
} finally {
  for (const h of hogs) h.kill();
  await ff.close();
}
for (const s of slow) console.log(s);
console.log(`firefox thread start: ${n} starts with ${busy} busy cores, ${slow.length} over 5 s, ${never} never ready`);
