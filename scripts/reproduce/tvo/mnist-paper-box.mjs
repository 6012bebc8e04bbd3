// GP-UCB on the paper's VAE and data with a wider beta box (scripts/reproduce/tvo/mnist-paper-box.sh) against the
// committed per-seed tables of scripts/reproduce/tvo/mnist-paper.sh (box [0.05, 0.95]): per seed, GP-UCB's test
// log p(x) in each box, the paired difference (wide minus paper's box), its last beta_1 and the share of its
// windows with beta_1 below 0.05, beside log-uniform and moments (which keep beta_1 at 0.025-0.032).
// Usage: node scripts/reproduce/tvo/mnist-paper-box.mjs REPORT.json ... > docs/tvo-mnist-paper-box.md
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
/** The committed table of one seed: method -> [test log p(x), last beta_1]. @param {number} seed */
function committed(seed) {
  const f = seed === 1000 ? 'tvo-mnist-paper-table.md' : `tvo-mnist-paper-seed-${seed}.md`;
  const rows = new Map();
  for (const line of readFileSync(path.join(DOCS, f), 'utf8').split('\n')) {
    const m = /^\| ([a-z-]+) \| \**(-?[\d.]+)\** \| [\d.]+ \| ([\d.]+) \|/.exec(line);
    if (m) rows.set(m[1], [Number(m[2]), Number(m[3])]);
  }
  return { file: f, rows };
}
const f3 = (/** @type {number} */ x) => x.toFixed(3);
const mean = (/** @type {number[]} */ v) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (/** @type {number[]} */ v) => { const m = mean(v); return v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)) : NaN; };
const rows = [];
let box = null; let wall = [];
for (const file of process.argv.slice(2)) {
  const env = JSON.parse(readFileSync(file, 'utf8'));
  const c = env.config; box = c.beta_box;
  const g = env.result.summary.find((/** @type {any} */ m) => m.method === 'gp-ucb');
  const run = env.result.runs.find((/** @type {any} */ m) => m.method === 'gp-ucb');
  const b1 = run.windows.map((/** @type {any} */ w) => w.schedule[1]);
  const ref = committed(c.seed);
  wall.push(`${c.seed}: ${env.compute?.wall_seconds?.toFixed(0)} s`);
  rows.push({ seed: c.seed, wide: g.log_px_mean, last: g.last_beta1, below: b1.filter((/** @type {number} */ v) => v < 0.05).length / b1.length,
    median: [...b1].sort((a, b) => a - b)[Math.floor(b1.length / 2)], ref });
}
const out = [];
out.push(`GP-UCB on the paper's VAE and data (the settings of [tvo-mnist-paper-table.md](tvo-mnist-paper-table.md)) with the box [${box.join(', ')}] instead of the paper's [0.05, 0.95] (Sec. 5), the same seeds and streams; the other columns are the committed tables' (box [0.05, 0.95]).`);
out.push(`Written by \`bash scripts/reproduce/tvo/mnist-paper-box.sh\`. Wall time of the wide-box runs (GP-UCB alone, one thread): ${wall.join('; ')}.`);
out.push('');
out.push(`| seed | GP-UCB [0.05, 0.95] | GP-UCB [${box.join(', ')}] | wide minus paper's box | last beta_1 (paper's / wide) | wide: median beta_1, windows below 0.05 | log-uniform | moments |`);
out.push('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const [p, pl] = r.ref.rows.get('gp-ucb'); const lu = r.ref.rows.get('log-uniform')[0]; const mo = r.ref.rows.get('moments')[0];
  out.push(`| ${r.seed} | ${f3(p)} | ${f3(r.wide)} | ${(r.wide - p >= 0 ? '+' : '') + f3(r.wide - p)} | ${pl.toFixed(4)} / ${r.last.toFixed(4)} | ${r.median.toFixed(3)}, ${(100 * r.below).toFixed(0)}% | ${f3(lu)} | ${f3(mo)} |`);
}
const d = rows.map((r) => r.wide - r.ref.rows.get('gp-ucb')[0]);
const w = rows.map((r) => r.wide); const lu = rows.map((r) => r.ref.rows.get('log-uniform')[0]); const mo = rows.map((r) => r.ref.rows.get('moments')[0]);
const p = rows.map((r) => r.ref.rows.get('gp-ucb')[0]);
out.push('');
out.push(`Mean ± sd over the ${rows.length} seeds: GP-UCB [0.05, 0.95] ${f3(mean(p))} ± ${f3(sd(p))}, GP-UCB [${box.join(', ')}] ${f3(mean(w))} ± ${f3(sd(w))} (paired difference ${f3(mean(d))} ± ${f3(sd(d))}), log-uniform ${f3(mean(lu))} ± ${f3(sd(lu))}, moments ${f3(mean(mo))} ± ${f3(sd(mo))}.`);
console.log(out.join('\n'));
