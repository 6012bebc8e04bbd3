// Writes the markdown table of docs/tvo.md from the reports of scripts/tvo-figure4.sh.
// Usage: node scripts/tvo-table.mjs DIR   (DIR holds d2.report.json, d5.report.json, d10.report.json)
import { readFileSync } from 'node:fs';

const dir = process.argv[2];
const ds = [2, 5, 10];
const reports = ds.map((d) => JSON.parse(readFileSync(`${dir}/d${d}.report.json`, 'utf8')).result);
const methods = reports[0].summary.map((m) => m.method);
const f = (m, s) => `${m.toFixed(3)} ± ${s.toFixed(3)}`;
const lines = [];
const r0 = reports[0];
lines.push(`Binarised 8x8 digits (${r0.n_train} train / ${r0.n_test} test images, ${r0.pixels} pixels), VAE 64-32-4 / 4-32-64,`);
lines.push(`S = 10, Adam lr 3e-3, batch 20, 40 epochs, GP-UCB window w = 2 epochs; test log p(x) by IWAE with K = ${r0.iwae_k};`);
lines.push(`mean ± sd over ${reports[0].summary[0].log_px.length} seeds (1000, 1001, 1002). Higher log p(x) and lower KL are better; best mean per column in bold.`);
lines.push('');
lines.push(`| method | ${ds.map((d) => `log p(x), d = ${d}`).join(' | ')} | ${ds.map((d) => `KL, d = ${d}`).join(' | ')} |`);
lines.push(`|---|${ds.map(() => '---:').join('|')}|${ds.map(() => '---:').join('|')}|`);
const best = reports.map((r) => ({
  lp: Math.max(...r.summary.map((m) => m.log_px_mean)),
  kl: Math.min(...r.summary.map((m) => m.kl_mean)),
}));
for (const name of methods) {
  const cells = reports.map((r, i) => {
    const m = r.summary.find((x) => x.method === name);
    const s = f(m.log_px_mean, m.log_px_sd);
    return m.log_px_mean === best[i].lp ? `**${s}**` : s;
  });
  const kls = reports.map((r, i) => {
    const m = r.summary.find((x) => x.method === name);
    const s = f(m.kl_mean, m.kl_sd);
    return m.kl_mean === best[i].kl ? `**${s}**` : s;
  });
  lines.push(`| ${name} | ${cells.join(' | ')} | ${kls.join(' | ')} |`);
}
lines.push('');
// Paired differences against GP-UCB (same seed = same initialisation, minibatches and test draws).
lines.push('Paired difference of test log p(x), GP-UCB minus each method (mean ± sd over the seeds; positive = GP-UCB better):');
lines.push('');
lines.push(`| method | ${ds.map((d) => `d = ${d}`).join(' | ')} |`);
lines.push(`|---|${ds.map(() => '---:').join('|')}|`);
for (const name of methods.filter((n) => n !== 'gp-ucb')) {
  const cells = reports.map((r) => {
    const g = r.summary.find((x) => x.method === 'gp-ucb').log_px;
    const o = r.summary.find((x) => x.method === name).log_px;
    const diff = g.map((v, i) => v - o[i]);
    const m = diff.reduce((a, b) => a + b, 0) / diff.length;
    const sd = Math.sqrt(diff.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, diff.length - 1));
    return f(m, sd);
  });
  lines.push(`| ${name} | ${cells.join(' | ')} |`);
}
lines.push('');
lines.push('Mean chosen beta_1 in the last window (GP-UCB variants and random: chosen; others: fixed or moments):');
lines.push('');
lines.push(`| method | ${ds.map((d) => `d = ${d}`).join(' | ')} |`);
lines.push(`|---|${ds.map(() => '---:').join('|')}|`);
for (const name of methods) {
  lines.push(`| ${name} | ${reports.map((r) => r.summary.find((x) => x.method === name).last_beta1.toFixed(4)).join(' | ')} |`);
}
console.log(lines.join('\n'));
