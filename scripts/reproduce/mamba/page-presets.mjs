// Runs the page's reduced versions of the paper's three tables (the core presets paper-logreg-page,
// mnist-bnn-page, pmf-page, loaded as comparisons by the page's preset menu) in headless Chromium on the
// threaded build, and prints each comparison's wall time and every tuner's evaluation as the page shows it
// (xi against the exact reference, KSD, held-out accuracy / ECE / MCE, test RMSE), then the page's reading.
// Needs a wasm build (scripts/dev/build-wasm.sh). Usage: node scripts/reproduce/mamba/page-presets.mjs [PRESET ...]
import { launch, openPage } from '../../../tests/e2e/helpers.mjs';

const names = process.argv.slice(2).length ? process.argv.slice(2) : ['paper-logreg-page', 'pmf-page', 'mnist-bnn-page'];
const env = await launch({ isolation: true });
try {
  for (const name of names) {
    const { page } = await openPage(env.context, env.url);
    const t0 = Date.now();
    const out = await page.evaluate(async (preset) => {
      const { fmtSci } = await import('/www/shared/format.js');
      const p = window.__tunelab.panels.tune;
      await p.load(preset);
      const r = await p.run();
      const f = (/** @type {any} */ v) => (v == null || !Number.isFinite(v) ? '–' : fmtSci(v));
      return {
        status: r?.status, wall: r?.compute?.wall_seconds, threads: r?.compute?.threads, flavour: window.__tunelab.info?.flavour,
        errors: p.errors,
        rows: (r?.result?.entries ?? []).map((/** @type {any} */ e) => [e.name, e.best ? `#${e.best.arm} h=${fmtSci(e.best.step)} b=${e.best.batch_fraction}` : 'none',
          f(e.evaluation.xi), f(e.evaluation.ksd), f(e.evaluation.calibration?.accuracy), f(e.evaluation.calibration?.ece), f(e.evaluation.calibration?.mce), f(e.evaluation.test_rmse)]),
        reading: document.getElementById('reading')?.textContent ?? '',
      };
    }, name);
    console.log(`\n## ${name}: ${out.status}, ${out.wall?.toFixed(1)} s in the page (${out.flavour}, ${out.threads} threads; ${((Date.now() - t0) / 1000).toFixed(1)} s with loading)`);
    if (out.errors?.length) console.log(`errors: ${JSON.stringify(out.errors)}`);
    console.log('| tuner | chosen arm | xi | KSD | accuracy | ECE | MCE | test RMSE |\n|---|---|---|---|---|---|---|---|');
    for (const r of out.rows) console.log(`| ${r.join(' | ')} |`);
    console.log(`\nReading: ${out.reading}`);
    await page.close();
  }
} finally {
  await env.close();
}
