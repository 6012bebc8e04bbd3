//! The `tune` kind as an [`Experiment`]: MAMBA or a baseline tuning an SG-MCMC sampler.

use super::{DataSource, DataSpec, Event as TuneEvent, Posterior, Report as TuneReport, TuneConfig, TunerSpec};
use crate::experiments::tune as tune;
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::{DataFormat, DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

/// The request of a tune config's `csv` or `upload` source; `ratings`: a PMF model's ratings file
/// (user,item,rating).
pub(crate) fn tune_data_request(d: &DataSpec, ratings: bool) -> Option<DataRequest> {
    let format = if ratings { DataFormat::Ratings } else { DataFormat::Csv };
    match &d.source {
        DataSource::Csv { path } => Some(DataRequest { path: Some(path.clone()), label: d.label.clone(), format }),
        DataSource::Upload { .. } => Some(DataRequest { path: None, label: d.label.clone(), format }),
        _ => None,
    }
}

/// Builds a tune problem from the inputs (the boundary parsed the user's file) or the config's built-in data.
pub(crate) fn tune_problem(cfg: &TuneConfig, inputs: Inputs) -> Result<Posterior> {
    match inputs.data {
        Some(ds) => {
            // The size of a file is known only now: the memory estimate again, with its shape.
            cfg.memory_estimate(Some((ds.n, ds.p))).check()?;
            Posterior::from_data(cfg, Some(ds))
        }
        None => Posterior::build(cfg, None),
    }
}

/// The work of a tune run in its budget's unit (gradient evaluations, iterations or seconds of sampling) and a
/// counter over its progress events: the plan's total is the sum over rounds of arms x budget per arm, and each
/// chunk of a round adds budget / CHUNKS for every arm that ran it. Progress is then proportional to the work
/// (a first round of 56 arms at a small budget is its share of the budget, not 56/90 of the chunks), so an ETA
/// of elapsed x remaining / done holds when the work runs at a steady rate.
#[derive(Default)]
pub(crate) struct ChunkCounter {
    pub(crate) done: f64,
    pub(crate) total: f64,
    /// The budget per arm of the round under way.
    budget: f64,
}

impl ChunkCounter {
    pub(crate) fn see(&mut self, e: &TuneEvent) {
        match e {
            TuneEvent::Started { schedule, .. } => {
                self.total = schedule.iter().map(|p| p.arms as f64 * p.budget).sum();
                self.done = 0.0;
            }
            TuneEvent::RoundStarted { budget, .. } => self.budget = *budget,
            TuneEvent::Progress { arms, .. } => {
                self.done = (self.done + arms.len() as f64 * self.budget / tune::driver::CHUNKS as f64).min(self.total)
            }
            TuneEvent::Done { .. } => self.done = self.total,
            _ => {}
        }
    }
}

/// The unit of a tune run's progress: its budget's.
pub(crate) fn budget_unit_name(cfg: &TuneConfig) -> &'static str {
    match cfg.budget.unit_amount().map(|u| u.0) {
        Ok(tune::BudgetUnit::Iterations) => "iterations",
        Ok(tune::BudgetUnit::Seconds) => "seconds of sampling",
        _ => "gradient evaluations",
    }
}

/// The rounds a tune config runs: MAMBA's successive-halving plan, or one round of every arm.
pub(crate) fn tune_schedule(cfg: &TuneConfig, m: usize, r: f64) -> Vec<tune::RoundPlan> {
    match cfg.tuner {
        TunerSpec::Mamba { eta, .. } => tune::mamba_schedule(m, eta, r),
        _ => vec![tune::RoundPlan { arms: m, budget: r, keep: m }],
    }
}

/// The sizes a tune run's cost depends on: training and test rows, the posterior's dimension and the
/// multiply-adds of one gradient evaluation (one data point's term).
pub(crate) struct TuneSize {
    pub(crate) n_train: usize,
    pub(crate) n_test: usize,
    pub(crate) dim: f64,
    pub(crate) per_point: f64,
}

/// The sizes of a tune config's problem, when its data is built in (`None` for files and uploads: their size
/// is known once read). The split is `Dataset::split`'s (`round(test_fraction n)` test rows, at least one).
pub(crate) fn tune_size(cfg: &TuneConfig) -> Option<TuneSize> {
    use crate::model::ModelSpec;
    let no_data = matches!(cfg.model, ModelSpec::Gaussian { .. } | ModelSpec::Banana { .. } | ModelSpec::Mixture { .. });
    let dim = cfg.param_dim(cfg.data_shape())?;
    let (n_train, n_test) = if no_data {
        (1, 0)
    } else {
        let n = cfg.data_shape()?.0;
        let t = cfg.data.test_fraction;
        let n_test = if t > 0.0 && n >= 2 { ((t * n as f64).round() as usize).clamp(1, n - 1) } else { 0 };
        (n - n_test, n_test)
    };
    // Multiply-adds of one data point's gradient term: the weights once forward and once backward (BNN), a
    // rating's two factor rows (PMF), a dense precision (Gaussian), the coefficients (GLMs).
    let per_point = match &cfg.model {
        ModelSpec::Bnn { .. } => 2.0 * dim,
        ModelSpec::Pmf { latent, .. } => 4.0 * *latent as f64,
        ModelSpec::Gaussian { .. } => dim * dim,
        _ => dim.max(1.0),
    };
    Some(TuneSize { n_train, n_test, dim, per_point })
}

/// The cost model of a tune run (see [`crate::experiments::cost`]), counted as the driver counts
/// (`report.compute`): the MAP's L-BFGS (`map_grad_evals`, typical: 50 iterations of a gradient and a value),
/// the run kernel's Laplace approximation (`scoring_grad_evals` before any score: 2 d full gradients, or
/// 2 x 64 probes above d = 200), the arms' chains (`grad_evals`: rounds x arms x budget, exact for a
/// gradient-evaluation budget; with an iterations budget each round's arms counted as those with the most
/// gradient evaluations per iteration, a bound for MAMBA) and the scores (`scoring_grad_evals`: each scored
/// sample's full-data or minibatch score, or its test-set predictions; KSD also counts its sample pairs). A
/// seconds budget is time: rounds x arms x budget over the pool's threads.
pub(crate) fn tune_cost(cfg: &TuneConfig) -> Cost {
    use tune::{BudgetUnit, MetricKind, Scoring};
    let Some(size) = tune_size(cfg) else {
        return Cost::unknown("the data's size is known once the file is read");
    };
    let (Ok((unit, r)), Ok(arms)) = (
        cfg.budget.unit_amount(),
        tune::arms::tuner_arms(&cfg.tuner, &cfg.arms, cfg.sampler.kind, size.n_train, &mut crate::rng::stream(cfg.seed, tune::driver::STREAM_TUNER)),
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
    let run_kernel = matches!(cfg.metric.kind, MetricKind::Ksd { kernel: None | Some(tune::KsdKernel::Run), scale: None, .. });
    if run_kernel {
        let d = size.dim as usize;
        let (grads, basis) = if d <= tune::kernel::FULL_HESSIAN_MAX_DIM { (2 * d, Basis::Exact) } else { (2 * tune::kernel::DIAG_PROBES, Basis::Exact) };
        cost.add(Phase::new("kernel", grads as f64 * n, "gradient evaluations", per, basis));
    }
    let schedule = tune_schedule(cfg, arms.len(), r);
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
            .map(|(g, _)| match tune::keep::round_rows(unit, round.budget, tune::driver::CHUNKS, 0, 0, *g, thin) {
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
        scores += top(samples.iter().zip(&per_arm).map(|(m, (_, b))| if *m >= 2.0 { m * per_sample(*b) } else { 0.0 }).collect());
        if let MetricKind::Ksd { .. } = cfg.metric.kind {
            pairs += top(samples.iter().map(|m| m * m).collect());
        }
    }
    let scoring_basis = if schedule.len() > 1 || chain_scoring || unit == BudgetUnit::Seconds { Basis::Bound } else { Basis::Exact };
    cost.add(Phase::new("tuning", tuning, "gradient evaluations", per, tuning_basis));
    cost.add(Phase::new("scoring", scores, "gradient evaluations", per, scoring_basis));
    // A KSD pair: the kernel, its two gradients and the score products, about four passes over d.
    cost.add(Phase::new("KSD pairs", pairs, "sample pairs", 4.0 * size.dim, scoring_basis));
    cost
}

/// A typical MAP search's L-BFGS iterations (each a gradient and about one more value): converged logistic and
/// BNN MAPs of the presets take tens of iterations, at most `MapOptions::max_iters` (1,000).
pub(crate) const MAP_TYPICAL_ITERS: f64 = 50.0;

/// What the core computes from a tune config before a run: the arms (grids), their count and the rounds.
pub(crate) fn tune_summary(cfg: &TuneConfig) -> serde_json::Value {
    let (_, r) = cfg.budget.unit_amount().unwrap_or((tune::BudgetUnit::GradEvals, 0.0));
    let m = tune::arms::arm_count(&cfg.tuner, &cfg.arms, cfg.sampler.kind).unwrap_or(0);
    let plan = tune_schedule(cfg, m, r);
    // The grid itself (step-major, then batch, then leapfrog), for MAMBA and grid search.
    let arms = match cfg.tuner {
        TunerSpec::Mamba { .. } | TunerSpec::Grid => tune::grid_arms(&cfg.arms, cfg.sampler.kind).unwrap_or_default(),
        _ => Vec::new(),
    };
    serde_json::json!({ "arm_count": m, "rounds": plan, "arms": arms })
}


/// MAMBA or a baseline tuning an SG-MCMC sampler.
pub struct TuneExperiment {
    cfg: TuneConfig,
}

impl Experiment for TuneExperiment {
    type Config = TuneConfig;
    type Detail = TuneEvent;
    type Output = TuneReport;
    const NAME: &'static str = "tune";
    const UNIT: &'static str = "gradient evaluations";
    const PRESETS: &'static [&'static str] = tune::presets::PRESETS;

    fn preset(name: &str) -> Result<TuneConfig> {
        tune::presets::preset(name)
    }
    fn needs_mnist(cfg: &TuneConfig) -> bool {
        reads_mnist(&cfg.data)
    }
    fn shipped(cfg: &TuneConfig) -> Vec<crate::data::Shipped> {
        reads_shipped(&cfg.data)
    }
    fn use_csv(cfg: &mut TuneConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        use_csv_data(&mut cfg.data, path, label, standardize);
        Ok(())
    }
    fn set_seed(cfg: &mut TuneConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: TuneConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &TuneConfig {
        &self.cfg
    }
    fn unit(&self) -> &'static str {
        budget_unit_name(&self.cfg)
    }
    fn summary(&self) -> serde_json::Value {
        tune_summary(&self.cfg)
    }
    fn cost(&self) -> Cost {
        tune_cost(&self.cfg)
    }
    fn data_request(&self) -> Option<DataRequest> {
        tune_data_request(&self.cfg.data, self.cfg.model.kind() == "pmf")
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, TuneEvent), stop: &AtomicBool) -> Result<TuneReport> {
        let problem = tune_problem(&self.cfg, inputs)?;
        let mut count = ChunkCounter::default();
        tune::driver::drive(&self.cfg, &problem, &mut |e| {
            count.see(e);
            progress(count.done, count.total, e.clone())
        }, stop)
    }
}

/// True when a tune data source reads the MNIST digits.
pub(crate) fn reads_mnist(d: &DataSpec) -> bool {
    matches!(d.source, DataSource::Mnist { .. })
}

/// The shipped data sets a tune data source reads.
pub(crate) fn reads_shipped(d: &DataSpec) -> Vec<crate::data::Shipped> {
    match d.source {
        DataSource::Digits => vec![crate::data::Shipped::Digits],
        DataSource::None
        | DataSource::Simulate { .. }
        | DataSource::Csv { .. }
        | DataSource::Upload { .. }
        | DataSource::Ratings { .. }
        | DataSource::SimulateRatings { .. }
        | DataSource::Mnist { .. } => Vec::new(),
    }
}

/// Points a tune data source at a CSV file (`--data FILE --label COL`).
pub(crate) fn use_csv_data(d: &mut DataSpec, path: &str, label: &str, standardize: bool) {
    d.source = DataSource::Csv { path: path.into() };
    d.label = label.into();
    d.standardize |= standardize;
}
