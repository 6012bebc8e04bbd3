//! What an SG-MCMC tuning run will do, computed from its config before it runs: the rounds, the summary the
//! page shows, the cost model, and the work (in the budget's unit) its progress events report.

use super::config::{TuneConfig, TunerSpec};
use super::problem::problem_size;
use super::report::Event;
use crate::bandit::schedule::{mamba_schedule, RoundPlan};
use crate::experiments::cost::{Basis, Cost, Phase};

/// The work of a tuning run in its budget's unit (gradient evaluations, iterations or seconds of sampling) and a
/// counter over its progress events, so that an ETA of elapsed x (total - done) / done holds when the work runs
/// at a steady rate. The arms' chains: the plan's sum over rounds of arms x budget per arm, each chunk of a round
/// adding budget / CHUNKS for every arm that ran it. A counter made by [`ChunkCounter::for_run`] (`Default`
/// counts the chains' budget only) weighs that work by its time and adds the scores: with a gradient-evaluation
/// budget each arm's unit counts [`ChainWork::weight`] (an iteration's own work and the full-data gradient's
/// speed), and each scored arm adds its score work in the same unit, from its sample count ([`ScoreWork`]). The
/// total counts each round's planned work (every arm of the first round; later rounds as many arms of the mean
/// chain weight, and for the scores the arms with the most samples, a bound), set to the round's arms when it
/// starts and to the scores' real work when it ends.
#[derive(Default)]
pub struct ChunkCounter {
    pub done: f64,
    pub total: f64,
    /// The budget per arm of the round under way.
    budget: f64,
    /// How the scores' work is counted; `None`: not counted.
    score: Option<ScoreWork>,
    /// Per arm id: (gradient evaluations per iteration, batch), from the `Started` event.
    arms: Vec<(u64, usize)>,
    /// Per arm id: the counted work of one unit of its budget ([`ChainWork::weight`]; 1 when absent).
    weights: Vec<f64>,
    /// Per round: the chains' work, planned until the round starts, then its arms'.
    chains: Vec<f64>,
    /// Per round: the scores' work, planned until the round is scored, then the work counted.
    rounds: Vec<f64>,
    /// The round under way (its index in `rounds`) and the scores' work counted in it.
    round: usize,
    scored: f64,
    /// The rounds finished before a resume: (chain work, arms' ids per round), counted as done from `Started` on.
    resumed: Vec<(f64, Vec<usize>)>,
}

/// The work of scoring one arm in gradient-evaluation equivalents (times [`SCORE_TIME`]), from its sample count `m` (the driver's
/// `score_with`): `m` score vectors (each over the full data, the arm's minibatch with stochastic gradients, or
/// the test set's predictions for log-loss and error rate) and, for KSD, the `m (m - 1)` ordered sample pairs of
/// the U-statistic, each about four passes over `d` (the kernel, its two gradients, the score products) against
/// `per_point` multiply-adds of one data point's gradient (the cost model's `Phase::per`). A seconds budget
/// counts seconds of sampling only: the scores are not counted there.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreWork {
    unit: super::BudgetUnit,
    /// Rows per score vector: `Some(n)` for full data or a test set, `None` for the arm's own batch.
    rows: Option<f64>,
    /// Gradient evaluations of one sample pair (KSD; 0 for the other metrics).
    pair: f64,
    max_samples: usize,
    thin: u64,
    /// The samples of a whole chain are scored (MAMBA's chain scoring): `max_samples` each round.
    chain: bool,
}

/// The time of the scores' work per gradient-evaluation equivalent, relative to a chain's counted unit
/// ([`ChainWork::weight`]), measured on the paper-logreg preset (`scripts/dev/eta-check.py --fit`: the scores'
/// bursts ran 6.5-7.3 x 10^8 of their units per second, the chains' chunks 1.07-1.37 x 10^8 counted units): the
/// scores compute full-data gradients in blocks and their sample pairs in tight loops, while a chain's gradient
/// evaluation also pays its point's random draw.
pub const SCORE_TIME: f64 = 0.2;

/// The time of a chain iteration's own work (its noise, update and minibatch set-up), in minibatch gradient
/// evaluations of a model whose one-point gradient is `d` multiply-adds (scaled by `d / per_point` for the
/// others), measured on the paper-logreg preset (`scripts/dev/eta-check.py --fit`: the arms' CPU seconds per
/// iteration against their batch, about 240 ns + 13.8 ns per point of a minibatch at d = 10): an arm of batch 8
/// spends most of its time outside its gradient evaluations.
pub const ITER_TIME: f64 = 17.6;

/// The time of one gradient evaluation of a full-batch chain against a minibatch's (the same fit: 7.2 ns against
/// 13.8 ns per point): the full-data gradient is one pass over the rows in order, with no indices to draw.
pub const FULL_BATCH_TIME: f64 = 0.52;

/// How a chain's budget unit is counted in time (see [`ITER_TIME`], [`FULL_BATCH_TIME`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainWork {
    unit: super::BudgetUnit,
    n_train: usize,
    /// An iteration's own work in gradient evaluations of this model.
    iter: f64,
}

impl ChainWork {
    pub fn new(cfg: &TuneConfig, n_train: usize, dim: usize) -> ChainWork {
        let unit = cfg.budget.unit_amount().map(|u| u.0).unwrap_or(super::BudgetUnit::GradEvals);
        let per_point = problem_size(cfg).map_or(dim as f64, |s| s.per_point).max(1.0);
        ChainWork { unit, n_train, iter: ITER_TIME * dim as f64 / per_point }
    }

    /// The counted work of one budget unit of an arm with `per_iter` gradient evaluations per iteration (over
    /// `leapfrog` steps) and minibatch `batch`: with a gradient-evaluation budget, one gradient evaluation
    /// (`FULL_BATCH_TIME` for a full batch) plus its share of the iteration's own work; 1 for the other units.
    pub fn weight(&self, per_iter: u64, batch: usize, leapfrog: usize) -> f64 {
        match self.unit {
            super::BudgetUnit::GradEvals => {
                let grad = if batch >= self.n_train { FULL_BATCH_TIME } else { 1.0 };
                grad + self.iter * leapfrog.max(1) as f64 / per_iter.max(1) as f64
            }
            _ => 1.0,
        }
    }
}

impl ScoreWork {
    /// The score work model of a run config on data of `n_train` training and `n_test` test points.
    pub fn new(cfg: &TuneConfig, n_train: usize, n_test: usize, dim: usize) -> ScoreWork {
        use super::config::{MetricKind, Scoring};
        let unit = cfg.budget.unit_amount().map(|u| u.0).unwrap_or(super::BudgetUnit::GradEvals);
        let per_point = problem_size(cfg).map_or(dim as f64, |s| s.per_point).max(1.0);
        let rows = match cfg.metric.kind {
            MetricKind::LogLoss | MetricKind::Accuracy => Some(n_test as f64),
            _ if cfg.metric.stochastic_gradients => None,
            _ => Some(n_train as f64),
        };
        let pair = if matches!(cfg.metric.kind, MetricKind::Ksd { .. }) { 4.0 * dim as f64 / per_point } else { 0.0 };
        ScoreWork {
            unit,
            rows,
            pair,
            max_samples: cfg.metric.max_samples,
            thin: cfg.thin.max(1) as u64,
            chain: matches!(cfg.tuner, TunerSpec::Mamba { scoring: Scoring::Chain, .. }),
        }
    }

    /// The work, in the budget's unit, of scoring `m` samples of an arm with `per_iter` gradient evaluations per
    /// iteration and minibatch `batch` (an iterations budget: in the arm's iterations).
    pub fn work(&self, m: usize, per_iter: u64, batch: usize) -> f64 {
        if m < 2 {
            return 0.0;
        }
        let m = m as f64;
        let grads = SCORE_TIME * (m * self.rows.unwrap_or(batch as f64) + m * (m - 1.0) * self.pair);
        match self.unit {
            super::BudgetUnit::GradEvals => grads,
            super::BudgetUnit::Iterations => grads / per_iter.max(1) as f64,
            super::BudgetUnit::Seconds => 0.0,
        }
    }

    /// The samples a round of `budget` scores for an arm with `per_iter` gradient evaluations per iteration (the
    /// driver's round store from a chain's start, at most `max_samples`).
    pub fn samples(&self, budget: f64, per_iter: u64) -> usize {
        match super::samples::round_rows(self.unit, budget, super::tuning::CHUNKS, 0, 0, per_iter, self.thin) {
            Some(rows) if !self.chain => rows.min(self.max_samples),
            _ => self.max_samples,
        }
    }

    /// The planned score work of a round of `budget` over the `n` arms (of `arms`) with the most work.
    fn plan(&self, arms: &[(u64, usize)], n: usize, budget: f64) -> f64 {
        let mut w: Vec<f64> = arms.iter().map(|&(g, b)| self.work(self.samples(budget, g), g, b)).collect();
        w.sort_by(|a, b| b.total_cmp(a));
        w.iter().take(n).sum()
    }
}

impl ChunkCounter {
    /// A counter that counts the scores' work too, for a run of `cfg` on data of `n_train` training points,
    /// `n_test` test points and dimension `dim`.
    pub fn for_run(cfg: &TuneConfig, n_train: usize, n_test: usize, dim: usize) -> ChunkCounter {
        let mut c = ChunkCounter { score: Some(ScoreWork::new(cfg, n_train, n_test, dim)), ..Default::default() };
        let chain = ChainWork::new(cfg, n_train, dim);
        // Each arm's gradient evaluations per iteration (the driver's `SamplerParams`), by arm id.
        if let Ok(arms) = super::arms::tuner_arms(
            &cfg.tuner,
            &cfg.arms,
            cfg.sampler.kind,
            n_train,
            &mut crate::rng::stream(cfg.seed, super::tuning::STREAM_TUNER),
        ) {
            for a in arms {
                let p = super::arms::arm_sampler(cfg, &a).validate(n_train.max(1));
                if let Ok(p) = p {
                    if c.arms.len() <= a.id {
                        c.arms.resize(a.id + 1, (1, 1));
                        c.weights.resize(a.id + 1, 1.0);
                    }
                    c.arms[a.id] = (p.grad_evals_per_iter(), p.batch());
                    c.weights[a.id] = chain.weight(p.grad_evals_per_iter(), p.batch(), p.leapfrog());
                }
            }
        }
        c
    }

    /// A run resumed after `rounds`: their chains' work and their planned scores count as done.
    pub fn resume_after(&mut self, rounds: &[super::report::RoundReport]) {
        self.resumed =
            rounds.iter().map(|r| (self.chain_work(&r.arms, r.arms.len(), r.budget), r.arms.clone())).collect();
    }

    fn arm(&self, id: usize) -> (u64, usize) {
        self.arms.get(id).copied().unwrap_or((1, 1))
    }

    fn weight(&self, id: usize) -> f64 {
        self.weights.get(id).copied().unwrap_or(1.0)
    }

    /// The chains' work of a round of `budget` over `n` of the arms `ids`: theirs when `n` is all of them, else
    /// `n` arms of their mean weight (which arms survive is not known before the run; a bound, the heaviest `n`,
    /// would count every later round as the smallest batches' and put the early ETA far too late).
    fn chain_work(&self, ids: &[usize], n: usize, budget: f64) -> f64 {
        let sum: f64 = ids.iter().map(|&a| self.weight(a)).sum();
        if n >= ids.len() {
            sum * budget
        } else {
            n as f64 * sum / ids.len().max(1) as f64 * budget
        }
    }

    fn sum(&mut self) {
        self.total = self.chains.iter().sum::<f64>() + self.rounds.iter().sum::<f64>();
    }

    pub fn see(&mut self, e: &Event) {
        match e {
            Event::Started { schedule, arms, .. } => {
                let ids: Vec<usize> = arms.iter().map(|a| a.id).collect();
                self.chains = schedule.iter().map(|p| self.chain_work(&ids, p.arms, p.budget)).collect();
                self.rounds = match &self.score {
                    Some(s) => schedule.iter().map(|p| s.plan(&self.arms, p.arms, p.budget)).collect(),
                    None => Vec::new(),
                };
                self.done = 0.0;
                self.round = 0;
                self.scored = 0.0;
                for k in 0..self.resumed.len() {
                    let (chains, ids) = &self.resumed[k];
                    let scores = match &self.score {
                        Some(s) => {
                            let ids: Vec<(u64, usize)> = ids.iter().map(|&a| self.arm(a)).collect();
                            s.plan(&ids, ids.len(), schedule.get(k).map_or(0.0, |p| p.budget))
                        }
                        None => 0.0,
                    };
                    if let Some(r) = self.rounds.get_mut(k) {
                        *r = scores;
                    }
                    if let Some(c) = self.chains.get_mut(k) {
                        *c = *chains;
                    }
                    self.done += chains + scores;
                    self.round += 1;
                }
                self.sum();
                self.done = self.done.min(self.total);
            }
            Event::RoundStarted { arms, budget, .. } => {
                self.budget = *budget;
                self.scored = 0.0;
                // The round's arms are known now: its planned chains and scores are theirs.
                let chains = self.chain_work(arms, arms.len(), *budget);
                if let Some(c) = self.chains.get_mut(self.round) {
                    *c = chains;
                }
                if let Some(s) = &self.score {
                    let ids: Vec<(u64, usize)> = arms.iter().map(|&a| self.arm(a)).collect();
                    let plan = s.plan(&ids, ids.len(), *budget);
                    if let Some(r) = self.rounds.get_mut(self.round) {
                        *r = plan;
                    }
                }
                self.sum();
            }
            Event::Progress { arms, .. } => {
                let chunk = self.budget / super::tuning::CHUNKS as f64;
                let w: f64 = arms.iter().map(|a| self.weight(a.arm)).sum();
                self.done = (self.done + w * chunk).min(self.total)
            }
            Event::ArmScored { arm, samples, .. } => {
                if let Some(s) = &self.score {
                    let (g, b) = self.arm(*arm);
                    let w = s.work(*samples, g, b);
                    self.scored += w;
                    self.done = (self.done + w).min(self.total);
                }
            }
            Event::RoundFinished { .. } => {
                // The round's scores as counted (a diverged arm or a shorter chain scores fewer samples).
                if let Some(r) = self.rounds.get_mut(self.round) {
                    *r = self.scored;
                    self.sum();
                }
                self.round += 1;
            }
            Event::Done { .. } => self.done = self.total,
            _ => {}
        }
    }
}

/// The unit of a run's progress: its budget's.
pub fn budget_unit_name(cfg: &TuneConfig) -> &'static str {
    match cfg.budget.unit_amount().map(|u| u.0) {
        Ok(super::BudgetUnit::Iterations) => "iterations",
        Ok(super::BudgetUnit::Seconds) => "seconds of sampling",
        _ => "gradient evaluations",
    }
}

/// The rounds a run config runs: MAMBA's successive-halving plan, or one round of every arm.
pub fn run_schedule(cfg: &TuneConfig, m: usize, r: f64) -> Vec<RoundPlan> {
    match cfg.tuner {
        TunerSpec::Mamba { eta, .. } => mamba_schedule(m, eta, r),
        _ => vec![RoundPlan { arms: m, budget: r, keep: m }],
    }
}

/// The cost model of a tuning run (see [`crate::experiments::cost`]), counted as the driver counts
/// (`report.compute`): the MAP's L-BFGS (`map_grad_evals`, typical: 50 iterations of a gradient and a value),
/// the run kernel's Laplace approximation (`scoring_grad_evals` before any score: 2 d full gradients, or
/// 2 x 64 probes above d = 200), the arms' chains (`grad_evals`: rounds x arms x budget, exact for a
/// gradient-evaluation budget; with an iterations budget each round's arms counted as those with the most
/// gradient evaluations per iteration, a bound for MAMBA) and the scores (`scoring_grad_evals`: each scored
/// sample's full-data or minibatch score, or its test-set predictions; KSD also counts its sample pairs). A
/// seconds budget is time: rounds x arms x budget over the pool's threads.
pub fn run_cost(cfg: &TuneConfig) -> Cost {
    use super::config::{BudgetUnit, KsdKernel, MetricKind, Scoring};
    let Some(size) = problem_size(cfg) else {
        return Cost::unknown("the data's size is known once the file is read");
    };
    let (Ok((unit, r)), Ok(arms)) = (
        cfg.budget.unit_amount(),
        super::arms::tuner_arms(
            &cfg.tuner,
            &cfg.arms,
            cfg.sampler.kind,
            size.n_train,
            &mut crate::rng::stream(cfg.seed, super::tuning::STREAM_TUNER),
        ),
    ) else {
        return Cost::unknown("the tuner's arms cannot be built");
    };
    // Each arm's gradient evaluations per iteration and batch (the driver's `SamplerParams`).
    let mut per_arm = Vec::with_capacity(arms.len());
    for a in &arms {
        let p = super::arms::arm_sampler(cfg, a).validate(size.n_train.max(1));
        match p {
            Ok(p) => per_arm.push((p.grad_evals_per_iter(), p.batch())),
            Err(_) => return Cost::unknown("an arm does not fit the data"),
        }
    }
    let mut cost = Cost::default();
    let (n, per) = (size.n_train as f64, size.per_point);
    cost.add(Phase::new("MAP", MAP_TYPICAL_ITERS * 2.0 * n, "gradient evaluations", per, Basis::Typical));
    let run_kernel =
        matches!(cfg.metric.kind, MetricKind::Ksd { kernel: None | Some(KsdKernel::Run), scale: None, .. });
    if run_kernel {
        let d = size.dim as usize;
        let (grads, basis) = if d <= super::run_kernel::FULL_HESSIAN_MAX_DIM {
            (2 * d, Basis::Exact)
        } else {
            (2 * super::run_kernel::DIAG_PROBES, Basis::Exact)
        };
        cost.add(Phase::new("kernel", grads as f64 * n, "gradient evaluations", per, basis));
    }
    let schedule = run_schedule(cfg, arms.len(), r);
    let (mut tuning, mut scores, mut pairs, mut fssd_fit) = (0.0, 0.0, 0.0, 0.0);
    let mut tuning_basis = Basis::Exact;
    let thin = cfg.thin.max(1) as u64;
    let max_samples = cfg.metric.max_samples as f64;
    let chain_scoring = matches!(cfg.tuner, TunerSpec::Mamba { scoring: Scoring::Chain, .. });
    for (k, round) in schedule.iter().enumerate() {
        // The round's arms: every arm in the first round; later, the survivors are not known before the run,
        // so each sum takes the `round.arms` largest terms (a bound).
        let top = |mut v: Vec<f64>| -> f64 {
            v.sort_by(|a, b| b.total_cmp(a));
            v.iter().take(round.arms).sum()
        };
        if k > 0 {
            tuning_basis = if unit == BudgetUnit::GradEvals { Basis::Exact } else { Basis::Bound };
        }
        match unit {
            BudgetUnit::GradEvals => tuning += round.arms as f64 * round.budget,
            BudgetUnit::Iterations => tuning += top(per_arm.iter().map(|(g, _)| *g as f64 * round.budget).collect()),
            BudgetUnit::Seconds => {
                let threads = rayon::current_num_threads().max(1);
                cost.seconds += round.arms.div_ceil(threads) as f64 * round.budget;
            }
        }
        // Samples each arm's score takes (at most `max_samples`; a seconds budget: the cap).
        let samples: Vec<f64> = per_arm
            .iter()
            .map(|(g, _)| match super::samples::round_rows(unit, round.budget, super::tuning::CHUNKS, 0, 0, *g, thin) {
                Some(rows) if !chain_scoring => (rows as f64).min(max_samples),
                _ => max_samples,
            })
            .collect();
        let per_sample = |batch: usize| -> f64 {
            match cfg.metric.kind {
                MetricKind::LogLoss | MetricKind::Accuracy => size.n_test as f64,
                _ if cfg.metric.stochastic_gradients => batch as f64,
                _ => n,
            }
        };
        scores += top(samples
            .iter()
            .zip(&per_arm)
            .map(|(m, (_, b))| if *m >= 2.0 { m * per_sample(*b) } else { 0.0 })
            .collect());
        if let MetricKind::Ksd { .. } = cfg.metric.kind {
            pairs += top(samples.iter().map(|m| m * m).collect());
        }
        // FSSD-opt fits its J locations and width by Adam (`steps` + 1 evaluations of the power criterion and its
        // gradient, `stein::fssd_opt_fit`): once per round on the pooled samples (at most `fssd_pool_rows`), or
        // per arm on half of its samples (`per_arm`).
        if let MetricKind::FssdOpt { j, per_arm } = cfg.metric.kind {
            let steps = (crate::stein::FssdOptOptions::default().steps + 1) as f64;
            let rows = if per_arm {
                top(samples.iter().map(|m| (m / 2.0).floor()).collect())
            } else {
                let pool = super::metric::fssd_pool_rows(size.dim as usize, round.arms) as f64;
                top(samples.clone()).min(pool)
            };
            fssd_fit += steps * rows * j as f64;
        }
    }
    let scoring_basis =
        if schedule.len() > 1 || chain_scoring || unit == BudgetUnit::Seconds { Basis::Bound } else { Basis::Exact };
    cost.add(Phase::new("tuning", tuning, "gradient evaluations", per, tuning_basis));
    cost.add(Phase::new("scoring", scores, "gradient evaluations", per, scoring_basis));
    // A KSD pair: the kernel, its two gradients and the score products, about four passes over d.
    cost.add(Phase::new("KSD pairs", pairs, "sample pairs", 4.0 * size.dim, scoring_basis));
    // A location of one row at one step: its Gaussian feature (a pass over d and an exponential) in three passes
    // of `power_grads` and the vector-Jacobian products of the third, about 20 operations per coordinate.
    // Measured natively: MAMBA-FSSD's scoring took 1.0-1.1 s of paper-logreg-page's 2.8-5.2 s, while its score
    // vectors are 0.1 s of gradient evaluations.
    cost.add(Phase::new("FSSD fit", fssd_fit, "location evaluations", 20.0 * size.dim, scoring_basis));
    cost
}

/// A typical MAP search's L-BFGS iterations (each a gradient and about one more value): converged logistic and
/// BNN MAPs of the presets take tens of iterations, at most `MapOptions::max_iters` (1,000).
pub const MAP_TYPICAL_ITERS: f64 = 50.0;

/// What the core computes from a run config before a run: the arms (grids), their count and the rounds.
pub fn run_summary(cfg: &TuneConfig) -> serde_json::Value {
    let (_, r) = cfg.budget.unit_amount().unwrap_or((super::config::BudgetUnit::GradEvals, 0.0));
    let m = super::arms::arm_count(&cfg.tuner, &cfg.arms, cfg.sampler.kind).unwrap_or(0);
    let plan = run_schedule(cfg, m, r);
    // The grid itself (step-major, then batch, then leapfrog), for MAMBA and grid search.
    let arms = match cfg.tuner {
        TunerSpec::Mamba { .. } | TunerSpec::Grid => {
            super::arms::grid_arms(&cfg.arms, cfg.sampler.kind).unwrap_or_default()
        }
        _ => Vec::new(),
    };
    serde_json::json!({ "arm_count": m, "rounds": plan, "arms": arms })
}
