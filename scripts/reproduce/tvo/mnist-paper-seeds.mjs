// The paper's VAE and data over several seeds: reads the per-seed tables that scripts/reproduce/tvo/mnist-paper.sh
// writes (docs/tvo-mnist-paper-table.md for seed 1000, docs/tvo-mnist-paper-seed-SEED.md for the others) and prints
// per method the test log p(x) of each seed, their mean ± sd, the paired difference GP-UCB minus the method, and
// each method's rank per seed. Usage: node scripts/reproduce/tvo/mnist-paper-seeds.mjs > docs/tvo-mnist-paper-seeds.md
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
const files = ['tvo-mnist-paper-table.md', ...readdirSync(DOCS).filter((f) => /^tvo-mnist-paper-seed-\d+\.md$/.test(f)).sort()];

/** @param {string} text @returns {{seed: number, wall: string, rows: Map<string, number>}} */
function parse(text) {
  const seed = Number(/ONE seed \((\d+)\)/.exec(text)?.[1]);
  const wall = /Wall time (\d+) s on (\d+) thread/.exec(text);
  const rows = new Map();
  for (const line of text.split('\n')) {
    const m = /^\| ([a-z-]+) \| \**(-?[\d.]+)\** \|/.exec(line);
    if (m) rows.set(m[1], Number(m[2]));
  }
  return { seed, wall: wall ? `${wall[1]} s on ${wall[2]} thread(s)` : '?', rows };
}

const runs = files.map((f) => ({ file: f, ...parse(readFileSync(path.join(DOCS, f), 'utf8')) }));
const methods = [...runs[0].rows.keys()];
const mean = (/** @type {number[]} */ v) => v.reduce((a, b) => a + b, 0) / v.length;
const sd = (/** @type {number[]} */ v) => { const m = mean(v); return v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (v.length - 1)) : NaN; };
const f3 = (/** @type {number} */ x) => x.toFixed(3);
const out = [];
out.push(`The paper's VAE and data (App. A; \`scripts/reproduce/tvo/mnist-paper.sh\`, settings in [tvo-mnist-paper-table.md](tvo-mnist-paper-table.md)) over ${runs.length} seeds (${runs.map((r) => r.seed).join(', ')}):`);
out.push(`test log p(x) per seed, mean ± sd over the seeds (sample sd), the paired difference GP-UCB minus the method (positive = GP-UCB better) and the method's rank among the ${methods.length} per seed (1 = best).`);
out.push(`Wall time per seed: ${runs.map((r) => `${r.seed}: ${r.wall}`).join('; ')} (on a shared machine under different loads: not comparable between seeds).`);
out.push('');
out.push(`| method | ${runs.map((r) => `seed ${r.seed}`).join(' | ')} | mean ± sd | GP-UCB minus it | rank per seed |`);
out.push(`|---|${runs.map(() => '---:').join('|')}|---:|---:|---|`);
const rank = (/** @type {any} */ r, /** @type {string} */ m) => 1 + [...r.rows.values()].filter((v) => v > r.rows.get(m)).length;
const best = Math.max(...methods.map((m) => mean(runs.map((r) => r.rows.get(m)))));
for (const m of methods) {
  const v = runs.map((r) => r.rows.get(m));
  const d = runs.map((r) => r.rows.get('gp-ucb') - r.rows.get(m));
  const mu = mean(v);
  const cell = `${f3(mu)} ± ${f3(sd(v))}`;
  out.push(`| ${m} | ${v.map(f3).join(' | ')} | ${mu === best ? `**${cell}**` : cell} | ${m === 'gp-ucb' ? '–' : `${f3(mean(d))} ± ${f3(sd(d))}`} | ${runs.map((r) => rank(r, m)).join(', ')} |`);
}
console.log(out.join('\n'));
