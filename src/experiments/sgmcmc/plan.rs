//! What an SG-MCMC tuning run will do, computed from its config before it runs: the rounds, the summary the
//! page shows, the cost model, and the work (in the budget's unit) its progress events report.

use super::config::{TuneConfig, TunerSpec};
use super::problem::problem_size;
use super::report::Event;
use crate::bandit::schedule::{mamba_schedule, RoundPlan};
use crate::experiments::cost::{Basis, Cost, Phase};

/// The work of a tuning run in its budget's unit (gradient evaluations, iterations or seconds of sampling) and a
/// counter over its progress events: the plan's total is the sum over rounds of arms x budget per arm, and each
/// chunk of a round adds budget / CHUNKS for every arm that ran it, so progress is proportional to the work and
/// an ETA of elapsed x remaining / done holds when the work runs at a steady rate.
#[derive(Default)]
pub struct ChunkCounter {
    pub done: f64,
    pub total: f64,
    /// The budget per arm of the round under way.
    budget: f64,
    /// Work of the rounds done before a resume (counted from `Started` on).
    resumed: f64,
}

impl ChunkCounter {
    /// A run resumed after `rounds`: their work counts as done.
    pub fn resume_after(&mut self, rounds: &[super::report::RoundReport]) {
        self.resumed = rounds.iter().map(|r| r.arms.len() as f64 * r.budget).sum();
    }

    pub fn see(&mut self, e: &Event) {
        match e {
            Event::Started { schedule, .. } => {
                self.total = schedule.iter().map(|p| p.arms as f64 * p.budget).sum();
                self.done = self.resumed.min(self.total);
            }
            Event::RoundStarted { budget, .. } => self.budget = *budget,
            Event::Progress { arms, .. } => {
                self.done = (self.done + arms.len() as f64 * self.budget / super::tuning::CHUNKS as f64).min(self.total)
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
        let p = crate::sampler::SamplerParams {
            kind: cfg.sampler.kind,
            step: a.step,
            batch: a.batch,
            leapfrog: a.leapfrog,
            friction: cfg.sampler.friction,
            thermostat_a: cfg.sampler.thermostat_a,
            with_replacement: cfg.sampler.with_replacement,
        }
        .validate(size.n_train.max(1));
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
    let (mut tuning, mut scores, mut pairs) = (0.0, 0.0, 0.0);
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
    }
    let scoring_basis =
        if schedule.len() > 1 || chain_scoring || unit == BudgetUnit::Seconds { Basis::Bound } else { Basis::Exact };
    cost.add(Phase::new("tuning", tuning, "gradient evaluations", per, tuning_basis));
    cost.add(Phase::new("scoring", scores, "gradient evaluations", per, scoring_basis));
    // A KSD pair: the kernel, its two gradients and the score products, about four passes over d.
    cost.add(Phase::new("KSD pairs", pairs, "sample pairs", 4.0 * size.dim, scoring_basis));
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
