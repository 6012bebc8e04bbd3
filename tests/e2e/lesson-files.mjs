// The built-in lessons as the tests read them: each file of lessons/ parsed and checked by the core's lesson
// parser through the CLI (`tunelab lesson show FILE`: the binary in TUNELAB_CLI when set, as scripts/dev/test.sh
// sets it, else `cargo run` of the debug build), the same parser the page runs in its worker. Each lesson has its
// steps (`text` as the page shows it: Markdown line breaks as spaces), `configs` (each step's config, every default
// filled in), `config` (step 1's), `panel` and, for the tuning panel, `state` (step 1's settings as the form holds them).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_LESSONS, panelOf } from '../../www/lessons.js';
import { fromTuneConfig } from '../../www/panels/tune/state.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs the CLI (`tunelab ARGS`); returns {status, stdout}. @param {string[]} args */
export function cli(args) {
  const bin = process.env.TUNELAB_CLI;
  const pre = bin ? [] : ['run', '-q', '-p', 'tunelab-cli', '--'];
  try {
    return { status: 0, stdout: execFileSync(bin || 'cargo', [...pre, ...args], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 }) };
  } catch (e) {
    const err = /** @type {any} */ (e);
    return { status: err.status ?? 1, stdout: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

/** A lesson file parsed and checked by the core (`tunelab lesson show`). @param {string} file relative to the repository */
export function showLesson(file) {
  const r = cli(['lesson', 'show', file]);
  if (r.status !== 0) throw new Error(`tunelab lesson show ${file}: ${r.stdout}`);
  return JSON.parse(r.stdout);
}

/** Markdown text as the page shows a one-paragraph step: its line breaks as spaces. @param {string} md */
export const shownText = (md) => md.replace(/\s*\n\s*/g, ' ').trim();

/** @param {any} l */
function forTests(l) {
  return {
    ...l,
    panel: panelOf(l.kind),
    config: l.configs[0],
    state: l.kind === 'tune' ? fromTuneConfig(l.configs[0]) : undefined,
    steps: l.steps.map((/** @type {any} */ s, /** @type {number} */ i) => ({ ...s, markdown: s.text, text: shownText(s.text), config: l.configs[i] })),
  };
}

export const LESSONS = BUILTIN_LESSONS.map((id) => forTests(showLesson(`lessons/${id}.md`)));
