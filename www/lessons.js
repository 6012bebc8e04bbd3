// Guided lessons: one per paper the playground implements. Each lesson is data: the panel that runs it, the
// settings (the tuning panel's state, or a config in the core's JSON for the other panels), a few short steps
// (what to look at, what to change, what to expect) and the paper.
//
// Linked as `#lesson=ID` (optionally `&step=N`, 1-based), on the full page or in an embed. www/embed.js shows
// the steps in a box above the panel, makes the panel's tab active and runs the lesson there.
//
// Panels: the page's registry (www/panels/registry.js) fills `window.__tunelab.panels[NAME]` and fires
// `tunelab:panels-ready`; NAME is the tab of one tuner:
//     tune         MAMBA / KSD tuning of SG-MCMC (state: the tuning form's settings, www/panels/tune/state.js)
//     bandit       GP-UCB, TTTS / D-TTTS (config: the core's bandit JSON, src/bandit)
//     hoag         HOAG (config: the core's hoag JSON, src/hoag)
//     lr-schedule  learning-rate schedules (config: the core's lr-schedule JSON, src/lrsched)
//     step-size    GP-UCB over SG-MCMC step sizes
// Each has load(config) -> Promise<state>, run() -> Promise<report envelope>, stop(), show() (activates its
// tab), `section` (its root element) and read-only state, running, runs, lastReport, lastChartData, errors.
// A lesson whose panel is missing says so instead of failing silently.
//
// Timings: every step is sized to finish in about 10 s or less on ONE thread in the page (issue 26). Measured by
// `node scripts/dev/page-timings.mjs --native --page` (CPU seconds of one thread, native CLI / headless Chromium,
// 2026-11); its output is in docs/instructors.md.

/** The SG-MCMC tuning panel (its settings are the page's state, kept in the URL by www/panels/tune/state.js). */
export const BUILTIN_PANEL = 'tune';

/** Human names of the panels, for messages. */
export const PANEL_NAMES = {
  tune: 'MAMBA / KSD tuning',
  bandit: 'bandit (GP-UCB, TTTS / D-TTTS)',
  hoag: 'HOAG (hyperparameter gradients)',
  'lr-schedule': 'learning-rate schedule',
  'step-size': 'step size (GP-UCB)',
  tvo: 'TVO schedules (GP-UCB, a VAE trained live)',
};

/**
 * The lessons. `teaches` is the one line the page's Lessons menu shows under the title.
 * @type {{id: string, title: string, teaches: string, panel: string, state?: any, config?: any, controls?: string[], steps: any[], cite: string}[]}
 */
export const LESSONS = [
  {
    id: 'mamba',
    teaches: 'How successive halving scored by a Stein discrepancy (KSD) picks the step size and batch size of SGLD without knowing the posterior.',
    title: 'MAMBA: tuning SG-MCMC with a Stein discrepancy',
    panel: 'tune',
    // The core's `demo` preset: simulated logistic regression (N = 2000, d = 5), SGLD, 9 step sizes x 2 batch
    // fractions = 18 arms, MAMBA with eta = 3, 2e6 gradient evaluations for the chosen arm, scored by KSD.
    state: {
      data: 'simulate', n: 2000, d: 5, dseed: 0, test: 0.2, model: 'logistic', prior: 10, sampler: 'sgld',
      hfrom: -6, hto: -2, hby: 0.5, batch: '0.1,0.01', L: '10', tuner: 'mamba', eta: 3, scoring: 'round',
      unit: 'grad_evals', budget: 2e6, metric: 'ksd', msamples: 500, thin: 5, start: 'map', seed: 0, compare: false,
    },
    controls: ['arms', 'tuner', 'run'],
    steps: [
      {
        title: 'Run the tuner',
        text: 'Press Run. Each line is one arm: its colour is the step size h (dark = small, light = large), its '
          + 'marker and dash the batch size. Until a round ends its arms are hollow markers at the compute they have '
          + 'spent. The y-axis is the kernel '
          + 'Stein discrepancy (KSD) of the arm\'s samples against the posterior\'s score function: smaller means the '
          + 'samples match the posterior better, with no need to know the posterior itself.',
      },
      {
        title: 'Watch the rounds',
        text: 'MAMBA is successive halving: all 18 arms get a small budget, then only the best third (η = 3) go on with '
          + 'η times more (here 18 → 6 arms). Dashed lines mark the ends of rounds; pruned arms fade. The bracket shows who survived '
          + 'each round, and the chosen arm is the best of the last round.',
      },
      {
        title: 'Read the choice',
        text: 'In the table, compare the chosen h and batch with the arms that were pruned. Steps that are too large '
          + 'add bias (wide, drifting samples: high KSD); steps that are too small barely move from the starting '
          + 'point in the budget. Open "Posterior from the chosen arm" to see its trace and histograms.',
      },
      {
        title: 'Change η',
        text: 'Set the reduction η to 2 and run again. Expect 4 rounds instead of 2 (18 → 9 → 4 → 2 arms): more '
          + 'rounds, each pruning fewer arms, for the same total budget of the chosen arm (summed over the rounds it ran: '
          + 'its last round is shorter). Does it pick the same arm?',
        patch: { eta: 2 },
        apply: 'Set η = 2',
      },
      {
        title: 'Change the metric',
        text: 'Switch the metric to FSSD (finite-set Stein discrepancy, linear in the number of samples) and run '
          + 'again. Scores are on another scale, so compare the ranking of the arms and the chosen arm, not the values.',
        patch: { eta: 3, metric: 'fssd' },
        apply: 'Use FSSD',
      },
      {
        title: 'Predict, then run',
        text: 'New data and new chains (data seed 1, seed 1; otherwise the settings of step 1, scored by KSD). Before you '
          + 'press Run, predict: in the box under the chart, click the arm (step size h · batch) you expect MAMBA to choose. '
          + 'When the run ends the page reveals its choice and says whether your pick was chosen, or after which round it '
          + 'was pruned and with what score. Then click any arm (its point on the chart, its bracket cell, its heat-map row '
          + 'or its table row) to see its draws over the posterior, with the chosen arm\'s in grey, and its trace: what its '
          + 'chain did in the round that gave it its last score.',
        patch: { eta: 3, metric: 'ksd', dseed: 1, seed: 1 },
        apply: 'New data and chains',
        predict: true,
      },
    ],
    cite: 'Coullon, South & Nemeth (2023). Efficient and generalizable tuning strategies for stochastic gradient MCMC. '
      + 'Statistics and Computing 33:66. KSD: Gorham & Mackey (2017), Measuring sample quality with kernels, ICML.',
  },
  {
    id: 'gp-ucb',
    teaches: 'GP-UCB choosing the integration schedule of the thermodynamic variational objective while a VAE trains, against the paper\'s fixed schedules and its own ablations, and why it loses at this scale.',
    title: 'GP-UCB choosing TVO schedules while a VAE trains',
    panel: 'tvo',
    // The TVO panel's default (www/panels/tvo/panel.js): a reduction of the core's `digits` preset to about 10 s
    // on one thread: 3 of its 7 methods, 10 epochs in windows of 1, S = 5, a 64-16-4 VAE, K = 10 / 100. The
    // preset (all seven methods, 30 epochs, 64-32-4, S = 10) stays in the panel's Preset menu. Every claim below
    // is checked against the run of its step (same seed) by tests/e2e/tvo.test.mjs.
    config: {
      kind: 'tvo', data: { source: 'digits' }, test_size: 300, hidden: [16], latent: 4, d: 5, particles: 5, batch: 20, lr: 0.003,
      epochs: 10, window: 1, eval_size: 300, curve_k: 10, iwae_k: 100,
      methods: ['gp-ucb', 'random', 'linear'], gp: {}, repeats: 1, seed: 1,
    },
    steps: [
      {
        title: 'The objective and the bandit',
        text: 'A variational autoencoder learns the binarised 8×8 digits. It is trained by the thermodynamic variational '
          + 'objective (TVO): a left Riemann sum, over a schedule 0 = β₀ < β₁ ≤ … ≤ β₄ < 1 (d = 5 terms), of the expected '
          + 'log weight log p(x, z) − log q(z | x) under distributions that move from the encoder (β = 0) to the posterior '
          + '(β = 1). Where the points sit changes what is learned. Every epoch (10 windows in 10 epochs) GP-UCB picks '
          + 'the 4 free points; its reward is how much a fixed 50-point estimate of the bound rose over the window. '
          + 'To run in seconds the VAE is small (64-16-4) and trains briefly; the Preset menu has the full size.',
      },
      {
        title: 'Run and compare',
        text: 'Press Run. Three methods train copies of the same VAE from the same weights on the same minibatches: GP-UCB, '
          + 'random schedules (its ablation without a model) and the fixed linear schedule. The top chart shows each method\'s '
          + 'test log p(x) (importance-weighted bound, higher is better) minus the linear schedule\'s, so that gaps of a tenth '
          + 'of a nat or less show; “show” switches to the curves themselves: every method gains more than a nat over the run, and at the end '
          + 'all three lie within a fifth of a nat of each other. GP-UCB, the paper\'s method, does not finish first in this '
          + 'run (here random schedules tie with it to a thousandth of a nat); the reading under the table says by how much. '
          + 'The Digits preset adds the other ablations and the log-uniform and moments schedules at full size (minutes).',
      },
      {
        title: 'Why GP-UCB does not win here',
        text: 'Look at the schedule chart: GP-UCB keeps moving its points to the end. The exploration weight from the '
          + 'paper\'s Theorem 1 is large, so over the second half of training its β₁ varies more than that of the random '
          + 'schedules. And a window\'s reward is mostly the training progress every method makes: the reading shows '
          + 'that it varies several times more over windows than the schedules move it, so 10 windows teach the GP '
          + 'little about which schedule is better.',
      },
      {
        title: 'Three seeds',
        text: 'Differences of a tenth of a nat need a band over seeds. Run GP-UCB and the linear schedule on three seeds '
          + '(same three initialisations for both), for 5 epochs so that the step stays short: the table gains a standard '
          + 'deviation and the reading a paired difference over the seeds.',
        patch: { repeats: 3, epochs: 5, methods: ['gp-ucb', 'linear'] },
        apply: 'Three seeds, two methods',
      },
    ],
    cite: 'Nguyen, Masrani, Brekelmans, Osborne & Wood (2020). Gaussian process bandit optimization of the '
      + 'thermodynamic variational objective. NeurIPS 2020 (GP-UCB with a time-varying, permutation-invariant kernel, Alg. 1). '
      + 'TVO: Masrani, Le & Wood (2019), NeurIPS. Full comparison at d = 2, 5, 10 over three seeds: docs/tvo.md.',
  },
  {
    id: 'd-ttts',
    teaches: 'Best-arm identification with more arms than pulls: D-TTTS against TTTS, successive halving, uniform allocation and random search, on a Beta reservoir and on a real classifier.',
    title: 'D-TTTS: best-arm identification with infinitely many arms',
    panel: 'bandit',
    // Reservoir Beta(1, 1), 500 pulls x 10 repeats, seed 1; step 4 tunes a kernel classifier on wine (300 pulls x 4
    // repeats, without random search: scoring each of its 300 arms per repeat on 10 folds made the step 25 s). Every claim below is checked against the run by
    // tests/e2e/bandit-lesson.test.mjs (same seed).
    config: {
      problem: { kind: 'reservoir', a: 1, b: 1 },
      algorithms: [{ kind: 'd-ttts' }, { kind: 'ttts' }, { kind: 'successive-halving' }, { kind: 'uniform' }, { kind: 'random' }],
      rounds: 500, repeats: 10, seed: 1,
    },
    steps: [
      {
        title: 'The reservoir',
        text: 'Arms are Bernoulli with means drawn from Beta(1, 1): there are always more arms than pulls, as when '
          + 'tuning a continuous hyperparameter by trying random configurations. The goal is to recommend a good arm '
          + 'at the end (simple regret = best mean − mean of the recommended arm).',
      },
      {
        title: 'Run and compare',
        text: 'Press Run. D-TTTS adds one new arm from the reservoir each round and runs top-two Thompson sampling over '
          + 'the arms so far, so it tries hundreds of arms; TTTS and uniform allocation split the pulls over a fixed draw '
          + 'of √500 ≈ 23 arms, successive halving over 32; random search tries a new arm every pull (500 arms, one pull '
          + 'each) and has the largest regret. With Beta(1, 1) a tenth of all arms have a mean above 0.9, so a fixed draw '
          + 'of 23 arms already holds good ones: here D-TTTS does not beat TTTS. The distinct-arms column and chart show '
          + 'how many arms each method tried; the reading under the table says who won and why.',
      },
      {
        title: 'Make good arms rare',
        text: 'Beta(1, 3): arms near the top are now scarce (under 2% have a mean above 0.75). Run again: every method\'s '
          + 'regret grows and D-TTTS tries more arms than with Beta(1, 1): it adapts to the reservoir, as the paper '
          + 'shows. But 500 pulls are too few for that to pay off: its regret relative to TTTS grows. The reading says '
          + 'how rare good arms are among those it tried. (Over 1000 pulls and 20 repeats D-TTTS is slightly ahead on '
          + 'this reservoir, within the bands: docs/bandit-tables.md.)',
        patch: { problem: { kind: 'reservoir', a: 1, b: 3 } },
        apply: 'Use Beta(1, 3)',
      },
      {
        title: 'A real problem: tuning a classifier',
        text: 'Now each pull trains an RBF kernel classifier (kernel ridge) on the wine data with the arm\'s C and gamma '
          + 'on a fresh random fold, and the reward is its validation accuracy. TTTS and D-TTTS turn that accuracy into a '
          + 'coin flip (success with probability = accuracy) to keep their Beta posteriors exact. To keep the step short it '
          + 'runs 4 repeats and leaves out random search (every arm tried is also scored on 10 folds). Run: successive halving, '
          + 'which commits its pulls to 32 arms, beats D-TTTS here. The reading gives the measured reason: under a tenth '
          + 'of the arms D-TTTS tried are as good as the winner\'s pick, and a coin flip at the best accuracy (about '
          + '0.98) has a standard deviation of about 0.13, so confirming a good arm takes far more pulls than the 2 to 3 '
          + 'D-TTTS gives each of the many arms it adds.',
        patch: {
          problem: { kind: 'hpo', model: 'kernel-ridge', data: 'wine' }, rounds: 300, repeats: 4,
          algorithms: [{ kind: 'd-ttts' }, { kind: 'ttts' }, { kind: 'successive-halving' }, { kind: 'uniform' }],
        },
        apply: 'Tune a kernel classifier on wine',
      },
    ],
    cite: 'Shang, Kaufmann & Valko (2019). A simple dynamic bandit algorithm for hyper-parameter tuning. '
      + 'AutoML workshop at ICML 2019. TTTS: Russo (2016), Simple Bayesian algorithms for best-arm identification.',
  },
  {
    id: 'hoag',
    teaches: 'Tuning an L2 penalty by approximate hypergradients (HOAG), against grid search, random search and Bayesian optimisation.',
    title: 'HOAG: hyperparameters by approximate gradients',
    panel: 'hoag',
    // The HOAG preset `logreg` (1 s native): log L2 penalty of logistic regression, simulated n = 600, d = 30,
    // seed 42. The passes quoted in step 3 are this run's in the page (tests/e2e/hoag.test.mjs checks them). The
    // native build (`tunelab hoag --preset logreg`) gave 37 / 153 / 236 with BO's former random start (not re-measured
    // since its equally spaced start): HOAG's exponential run agrees; BO's
    // model fits and the exact variant's solves at round-off level presumably follow the last bits of exp / ln,
    // which may differ between WebAssembly and the native libm (not verified). The band over split seeds 1-10:
    // `cargo run --release --example hoag_bench -- lesson`.
    config: {
      problem: 'logreg',
      data: { source: 'simulate', n: 600, d: 30, seed: 1 },
      budget: { cost: 4000, seconds: null, max_iter: 50 },
      landscape_points: 97,
    },
    steps: [
      {
        title: 'The problem',
        text: 'One hyperparameter, the log of the L2 penalty of logistic regression, chosen to minimise the loss on '
          + 'held-out data. The landscape (loss against the penalty) is drawn for reference; the methods do not see it.',
      },
      {
        title: 'Run and compare',
        text: 'Press Run. HOAG follows an approximate gradient of the held-out loss: it solves the inner problem and a '
          + 'linear system only to a tolerance ε_k that shrinks over iterations. Grid search, random search and '
          + 'Bayesian optimisation evaluate the loss at points. Every curve is the held-out loss of the method\'s current '
          + 'choice at an accurate inner solution, computed off the clock, so no method is flattered by its own loose '
          + 'solves; the x axis counts passes over the training data or seconds (which include Bayesian optimisation\'s '
          + 'model fits).',
      },
      {
        title: 'Tolerance schedules',
        text: 'Compare HOAG\'s exponential, quadratic, cubic and exact tolerance sequences. A loose tolerance early makes the '
          + 'first iterations cheap; the decrease must be fast enough for convergence (summable errors). On this '
          + 'preset HOAG reaches a relative suboptimality of 1e-3 within a few tens of passes: with exponential tolerances '
          + 'after 37 passes over the training data, Bayesian optimisation after 125 and the exact variant after 179; '
          + 'grid search never does. The reading under the table says who won and by how much.',
      },
    ],
    cite: 'Pedregosa (2016). Hyperparameter optimization with approximate gradient. ICML 2016 (Algorithm 1, HOAG).',
  },
  {
    id: 'lr-schedule',
    teaches: 'Picking SGD learning rates interval by interval from a GP model of the loss curve, against constant rates and decays at matched compute.',
    title: 'Learning-rate schedules from a GP model of training curves',
    panel: 'lr-schedule',
    // The lr-schedule preset `noisy-quadratic` (seed 7, about 1 s native): 10 intervals of 30 SGD steps. The
    // claims of the steps are checked against the numbers of this run by tests/e2e/lrsched.test.mjs. The
    // baselines and Q are the preset's (the text quotes them), not the panel's smaller default (issue 26).
    config: {
      problem: { kind: 'noisy-quadratic', dim: 20, noise: 1.0 },
      lr_bounds: [0.001, 1.5],
      steps_per_interval: 30,
      constant: 5,
      decay_starts: 4,
      decay_factors: [0.3, 0.1, 0.03],
      dynamic: { enabled: true, runs: 6 },
    },
    steps: [
      {
        title: 'The problem',
        text: 'SGD on a noisy quadratic, where a decaying learning rate is known to help: large steps make fast '
          + 'progress but stall at a noise floor; small steps go lower, slowly. Training is cut into 10 intervals.',
      },
      {
        title: 'Run and compare at matched compute',
        text: 'Press Run. The baselines are 5 constant rates and 12 exponential decays. The dynamic tuner runs Q = 6 '
          + 'copies in parallel, fits a GP model of the loss trace, and at each interval boundary keeps the best copy and '
          + 'picks the next rates from quantiles of the predicted loss. So that the comparison is fair, every baseline '
          + 'schedule also runs 6 times and keeps its best run: the table\'s "optimiser steps" are equal.',
      },
      {
        title: 'What to expect',
        text: 'On this problem an exponential decay wins, and the dynamic tuner ends between the best decay and the best '
          + 'constant rate. The reading under the table is generated from this run\'s numbers: by how much the winner '
          + 'won, the band over its minibatch seeds, and from which interval the tuner falls behind.',
      },
      {
        title: 'Why the tuner loses here',
        text: 'The winning decay starts high and ends more than 10 times lower. The tuner looks one interval ahead and '
          + 'moves its rate at most one decade per interval (the paper\'s limit, their Sec. 3.2), so it does not give up '
          + 'the next interval\'s progress for a gain that comes later. The reading prints both schedules\' first and last rates. '
          + 'The paper concedes the same on its CIFAR experiment (Sec. 3.2): its tuner beat "all exponential decay schedules but one", '
          + 'and "a properly tuned exponential decay seems like a very efficient solution".',
      },
    ],
    cite: 'Picheny, Dutordoir, Artemev & Durrande (2020). Automatic tuning of stochastic gradient descent with '
      + 'Bayesian optimisation. ECML PKDD 2020.',
  },
];

/** The lesson with this id, or null. */
export function findLesson(id) {
  return LESSONS.find((l) => l.id === id) ?? null;
}

/** Deep merge of plain objects (arrays and scalars replace): applies a step's patch to a panel config. */
export function mergeConfig(base, patch) {
  if (patch == null || typeof patch !== 'object' || Array.isArray(patch)) return patch === undefined ? base : patch;
  const out = { ...(base && typeof base === 'object' && !Array.isArray(base) ? base : {}) };
  for (const [k, v] of Object.entries(patch)) out[k] = mergeConfig(out[k], v);
  return out;
}

/** The result inside a run's report envelope ({kind, status, config, compute, result}), or a bare report. */
export const resultOf = (report) => (report && typeof report === 'object' && 'result' in report && 'kind' in report ? report.result : report);
