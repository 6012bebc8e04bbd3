// Lesson panels over the page's "More tuners" card (www/labs.js): registers window.__tunelab.panels.bandit,
// .hoag and .lrsched with the contract www/lessons.js documents:
//     load(config)  puts the config (the core's JSON) into the card, with the matching experiment selected
//     run()         presses the card's Run and resolves with the core's report (rejects with the card's message)
//     running       true while the card runs
// A panel already registered under the same name (a dedicated panel module) is left in place.

/** The card's experiment (its select value) for a runner config: the core preset it came from, when known. */
export function labKey(runner, config) {
  switch (runner) {
    case 'bandit': {
      const k = config?.problem?.kind;
      return { 'tvo-schedule': 'bandit:tvo-schedule', reservoir: 'bandit:beta-reservoir', function: 'bandit:branin', 'logreg-sgd': 'bandit:logreg-sgd', 'sgmcmc-ksd': 'bandit:sgmcmc-ksd' }[k] ?? 'bandit:beta-reservoir';
    }
    case 'hoag': return config?.problem === 'kernel-ridge' ? 'hoag:kernel-ridge' : 'hoag:logreg';
    default: {
      const k = config?.problem?.kind;
      return k === 'noisy-quadratic' ? 'lrsched:noisy-quadratic' : k === 'mlp' ? 'lrsched:digits' : 'lrsched:digits-logreg';
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond, ms) {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > ms) return false;
    await sleep(30);
  }
  return true;
}

/** Registers the three panels when the page has the card; returns the names registered. */
export function registerLabPanels(hooks) {
  const $ = (id) => document.getElementById(id);
  const card = $('labs');
  const sel = $('lab-preset');
  const box = $('lab-config');
  const runBtn = $('lab-run');
  if (!card || !sel || !box || !runBtn) return [];
  hooks.panels ??= {};
  // Lessons always run on this card (their embeds show it with `show=labs`), whichever module registered the
  // full tuner tabs (www/panels/registry.js) under the same names first.
  hooks.lessonPanels ??= {};
  const made = [];
  for (const runner of ['bandit', 'hoag', 'lrsched']) {
    const adapter = {
      get running() { return !!hooks.labRunning; },
      async load(config) {
        // The card fills in its first preset once the worker is ready: let that land, then replace it.
        await waitFor(() => box.dataset.preset, 10_000);
        const key = labKey(runner, config);
        sel.value = key;
        box.value = JSON.stringify(config, null, 2);
        box.dataset.preset = key;
        box.dataset.lesson = 'true';
      },
      async run() {
        if (hooks.labRunning) throw new Error('a run of this panel is already in progress');
        const before = hooks.labRuns ?? 0;
        card.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
        runBtn.click(); // labs.js starts synchronously, or refuses with a message
        const msg = $('lab-message');
        if (!hooks.labRunning) throw new Error(msg?.textContent || 'the run could not start');
        await waitFor(() => (hooks.labRuns ?? 0) > before, 24 * 3600 * 1000);
        if (msg?.dataset.kind === 'error' || /^Stopped/.test(msg?.textContent ?? '')) throw new Error(msg.textContent.replace(/^The run failed: /, ''));
        return hooks.labReport?.report ?? null;
      },
    };
    hooks.lessonPanels[runner] ??= adapter;
    hooks.panels[runner] ??= adapter;
    made.push(runner);
  }
  return made;
}
