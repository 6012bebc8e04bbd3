// Runs the tune tab's default N times in Debian's Firefox ESR on the threaded build (a fresh isolated page each
// time) while `busy` CPU hogs run at the lowest priority, and prints each run's time. A run that does not end
// within 60 s dumps what the page and its compute worker saw (a lost click shows as runState 'idle', runs 0: with the
// time line's arrival moving Run down one line, 2 of 15 first clicks missed; with its line kept, 0 of 20). Usage: node scripts/dev/firefox-run-probe.mjs [N=20] [busy=2] [tab=tune]
import { spawn } from 'node:child_process';
import { openBrowser } from '../../tests/e2e/driver.mjs';
import { playground } from '../../tests/e2e/embed-helpers.mjs';
import { ready } from '../../tests/e2e/scenarios.mjs';

const n = Number(process.argv[2] ?? 20);
const busy = Number(process.argv[3] ?? 2);
const name = process.argv[4] ?? 'tune';
const hogs = Array.from({ length: busy }, () => spawn('nice', ['-n', '19', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
const ff = await openBrowser('firefox');
let hung = 0;
try {
  for (let i = 0; i < n; i++) {
    const pg = await playground({ isolation: true });
    const tab = await ff.open(pg.url);
    await ready(tab);
    const info = await tab.evaluate(() => window.__tunelab.info);
    for (let r = 0; r < 2; r++) {
      await tab.evaluate((nm) => window.__tunelab.panels[nm].show(), name);
      await tab.waitFor((nm) => { const p = window.__tunelab.panels[nm]; const b = document.getElementById(p.panel.id('run')); return !p.running && b && !b.disabled; }, name, 60_000);
      const runs = await tab.evaluate((nm) => window.__tunelab.panels[nm].runs, name);
      const id = await tab.evaluate((nm) => window.__tunelab.panels[nm].panel.id('run'), name);
      const t0 = Date.now();
      await tab.click(`#${id}`);
      try {
        await tab.waitFor(([nm, k]) => { const p = window.__tunelab.panels[nm]; return p.runs > k && !p.running; }, [name, runs], 60_000);
        console.log(`page ${i} run ${r}: ${info.flavour}/${info.threads} ${Date.now() - t0} ms`);
      } catch (e) {
        hung++;
        const s = await tab.evaluate((nm) => {
          const p = window.__tunelab.panels[nm]; const c = window.__tunelab.client;
          return { runState: p.runState, running: p.running, runs: p.runs, msg: document.getElementById(p.panel.id('message'))?.textContent,
            pending: [...c.pending.keys()], info: c.info, errors: p.errors, hookErrors: window.__tunelab.errors, threadStarts: c.threadStarts };
        }, name).catch((x) => String(x));
        console.log(`page ${i} run ${r}: HUNG ${JSON.stringify(s)} page errors ${JSON.stringify(tab.errors)}`);
        break;
      }
    }
    await tab.close(); await pg.close();
  }
} finally {
  for (const h of hogs) h.kill();
  await ff.close();
}
console.log(`firefox run probe: ${n} pages x 2 runs of ${name}, ${hung} hung`);
