// Determinism across builds (issue "Reliability"): the same config and seed give the same report natively
// (the CLI, `tunelab run`), in the single-threaded wasm build (page without cross-origin isolation) and in the
// threaded wasm build (isolated page, a rayon pool of two threads). Every experiment kind with a small preset
// or config is run three ways; the reports must agree field by field, wall-clock fields (`seconds`,
// `wall_seconds`, `threads`) excepted.
//
// Since the core calls libm's exp / ln / pow in every build (src/math.rs) and its SIMD kernels use no fused
// multiply-adds, tune, HOAG and the learning-rate tuner give native reports bit-identical to wasm; they are
// compared exactly. Two kinds keep a measured tolerance: the bandit (1.3e-16: rand_distr's Beta sampler computes
// with std's exp / ln, glibc natively) and the step-size tuner (2.1e-3 of a series' scale in its GP posterior
// band: its GP hyperparameter refits amplify last-bit differences of the same kind, from rand_distr's normal
// tail). Structure, strings, booleans and integers (chosen arms, survivors, recommended arms, counts) must
// always match exactly.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage } from './helpers.mjs';
import { CASES, RTOL, RTOL_BY_KIND, compare, diag, label, native, runInPage } from './determinism-lib.mjs';

describe('the same config and seed give the same report natively, in single-threaded and in threaded wasm', () => {
  const nativeReports = {};
  /** @type {Record<string, Record<string, any>>} */
  const byBuild = {};
  before(() => {
    for (const c of CASES) nativeReports[label(c)] = native(c);
  });

  for (const build of [{ name: 'single-threaded wasm', isolation: false, flavour: 'single' }, { name: 'threaded wasm', isolation: true, flavour: 'parallel' }]) {
    describe(build.name, () => {
      let env; let page; let reports = {};
      before(async () => {
        env = await launch({ isolation: build.isolation, serviceWorkers: build.isolation ? 'allow' : 'block' });
        ({ page } = await openPage(env.context, env.url));
        const info = await page.evaluate(() => window.__tunelab.info);
        assert.equal(info.flavour, build.flavour);
        reports = await runInPage(page);
        byBuild[build.flavour] = reports;
      });
      after(async () => { await env?.close(); });

      for (const c of CASES) {
        test(`${label(c)}: the ${build.name} report equals the native one`, () => {
          const n = nativeReports[label(c)];
          const w = reports[label(c)];
          assert.equal(n.status, 'complete');
          assert.equal(w.status, 'complete');
          const rel = compare(n.result, w.result, 'result', RTOL_BY_KIND[c.kind] ?? RTOL);
          compare(n.config, w.config, 'config');
          if (process.env.DET_DIAG) { const worst = diag.filter((d) => d[1] > RTOL).sort((a, b) => b[1] - a[1]); console.log('# DIAG', label(c), diag.filter((d) => d[1] > RTOL).length, JSON.stringify(worst.slice(0, 8))); diag.length = 0; }
          console.log(`# determinism ${label(c)} ${build.name}: largest relative float difference ${rel.toExponential(2)}`);
        });
      }
    });
  }

  test('single-threaded and threaded wasm give bit-identical reports (same libm, any thread count)', () => {
    assert.ok(byBuild.single && byBuild.parallel, 'both builds ran');
    for (const c of CASES) compare(byBuild.single[label(c)].result, byBuild.parallel[label(c)].result, `${label(c)} result`, 0);
  });
});
