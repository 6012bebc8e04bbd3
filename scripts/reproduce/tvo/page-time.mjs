#!/usr/bin/env node
// Times the TVO panel's presets in headless Debian Chromium (threaded build, cross-origin isolated page, the
// page's own worker): loads each core preset into the panel, runs it, prints the report's wall time and threads.
// The numbers the panel's texts and docs/tvo.md quote for the page. Needs the wasm builds (scripts/dev/build-wasm.sh).
// Usage: [HEAVY=/work/heavy] node scripts/reproduce/tvo/page-time.mjs [preset ...]   (default: mnist-page)
import { launch, openPage } from '../../../tests/e2e/helpers.mjs';

const presets = process.argv.slice(2).length ? process.argv.slice(2) : ['mnist-page'];
const env = await launch({ isolation: true });
try {
  const { page } = await openPage(env.context, env.url, '#panel=tvo');
  await page.waitForFunction(() => window.__tunelab?.panels?.tvo);
  for (const name of presets) {
    await page.evaluate((n) => window.__tunelab.panels.tvo.load(n), name);
    const out = await page.evaluate(() => window.__tunelab.panels.tvo.run());
    const r = out.result ?? {};
    console.log(JSON.stringify({
      preset: name, status: out.status, wall_seconds: +out.compute.wall_seconds.toFixed(1), threads: out.compute.threads,
      flavour: await page.evaluate(() => window.__tunelab.info.flavour), n_train: r.n_train, n_test: r.n_test, pixels: r.pixels,
      log_px: Object.fromEntries((r.summary ?? []).map((m) => [m.method, +m.log_px_mean.toFixed(3)])),
    }));
  }
} finally {
  await env.close();
}
