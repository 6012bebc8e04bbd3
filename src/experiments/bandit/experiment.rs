//! The `bandit` kind as an [`Experiment`]: bandit algorithms with exact regret, and their memory estimate.

use super::{AlgoSpec, BanditConfig, BanditEvent, BanditReport, ProblemSpec};
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::executor::Rounds;
use crate::experiments::sgmcmc::problem::data_request;
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct BanditExperiment {
    cfg: BanditConfig,
    /// The algorithms with the floor added (what `validate` returned).
    algos: Vec<AlgoSpec>,
}

impl Experiment for BanditExperiment {
    type Config = BanditConfig;
    type Detail = BanditEvent;
    type Output = BanditReport;
    const NAME: &'static str = "bandit";
    const UNIT: &'static str = "rounds";
    const PRESETS: &'static [&'static str] = &super::config::PRESETS;
    const LABEL: &'static str = "bandit (GP-UCB, TTTS / D-TTTS)";
    const PANEL_FIELDS: &'static [&'static str] = super::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<BanditConfig> {
        BanditConfig::preset(name)
    }
    fn needs_mnist(cfg: &BanditConfig) -> bool {
        use super::hpo::{DigitData, HpoModel};
        use ProblemSpec as P;
        match &cfg.problem {
            P::SgmcmcKsd(s) => crate::experiments::sgmcmc::problem::reads_mnist(&s.data),
            P::Hpo(h) => match &h.model {
                HpoModel::Mlp { data, .. } => matches!(data, DigitData::Mnist { .. }),
                HpoModel::KernelRidge { .. } | HpoModel::Svm { .. } => false,
            },
            P::Bernoulli { .. }
            | P::Reservoir { .. }
            | P::Function { .. }
            | P::TvoSchedule { .. }
            | P::LogregSgd(_) => false,
        }
    }
    fn shipped(cfg: &BanditConfig) -> Vec<crate::data::Shipped> {
        use super::hpo::{ClassData, DigitData, HpoModel};
        use crate::data::Shipped;
        use ProblemSpec as P;
        match &cfg.problem {
            P::SgmcmcKsd(s) => crate::experiments::sgmcmc::problem::reads_shipped(&s.data),
            P::Hpo(h) => match &h.model {
                HpoModel::KernelRidge { data, .. } | HpoModel::Svm { data, .. } => match data {
                    ClassData::BreastCancer => vec![Shipped::BreastCancer],
                    ClassData::Wine => vec![Shipped::Wine],
                },
                HpoModel::Mlp { data: DigitData::Digits, .. } => vec![Shipped::Digits],
                HpoModel::Mlp { data: DigitData::Mnist { .. }, .. } => Vec::new(),
            },
            P::LogregSgd(l) => match l.data {
                super::logreg::LogregData::Digits { .. } => vec![Shipped::Digits],
                super::logreg::LogregData::Simulate { .. } => Vec::new(),
            },
            P::Bernoulli { .. } | P::Reservoir { .. } | P::Function { .. } | P::TvoSchedule { .. } => Vec::new(),
        }
    }
    fn use_csv(cfg: &mut BanditConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        match &mut cfg.problem {
            ProblemSpec::SgmcmcKsd(spec) => {
                crate::experiments::sgmcmc::problem::use_csv_data(&mut spec.data, path, label, standardize);
                Ok(())
            }
            _ => Err(crate::Error::config("--data applies to the bandit problem sgmcmc-ksd only")),
        }
    }
    fn set_seed(cfg: &mut BanditConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(mut cfg: BanditConfig) -> Result<Self> {
        let algos = cfg.validate()?;
        bandit_memory(&cfg, &algos).check()?;
        cfg.algorithms = algos.clone();
        Ok(Self { cfg, algos })
    }
    fn config(&self) -> &BanditConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<String> = self.algos.iter().map(AlgoSpec::name).collect();
        serde_json::json!({ "algorithms": names, "rounds": self.cfg.rounds, "repeats": self.cfg.repeats })
    }
    fn cost(&self) -> Cost {
        bandit_cost(&self.cfg, &self.algos)
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.problem {
            ProblemSpec::SgmcmcKsd(spec) => data_request(&spec.data, false),
            _ => None,
        }
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, BanditEvent),
        stop: &AtomicBool,
    ) -> Result<BanditReport> {
        self.run_rounds(inputs, progress, stop, Rounds::default())
    }
    fn run_rounds(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, BanditEvent),
        stop: &AtomicBool,
        rounds: Rounds,
    ) -> Result<BanditReport> {
        let total = self.cfg.rounds as f64;
        crate::experiments::bandit::run_checked(
            &self.cfg,
            &self.algos,
            inputs.data,
            &mut |e| {
                let done = match e {
                    BanditEvent::Progress { round, .. } => *round as f64,
                    BanditEvent::Done { .. } => total,
                    _ => 0.0,
                };
                progress(done, total, e.clone())
            },
            stop,
            rounds,
        )
    }

    fn message(detail: &BanditEvent) -> Option<String> {
        super::text::message(detail)
    }
    fn table(config: &BanditConfig, output: &BanditReport) -> String {
        super::text::table(config, output)
    }
}

/// Floats of one f64, in bytes.
const F64: f64 = 8.0;

/// What a bandit comparison holds at its peak (README, "Limits"): every repeat of every algorithm runs at once
/// in the worst case of the pool, a GP-UCB repeat holds about three `rounds x rounds` matrices (kernel,
/// Cholesky factor, a copy while refitting), and every algorithm and repeat keeps its pull history (about four
/// numbers a round).
fn bandit_memory(cfg: &BanditConfig, algos: &[AlgoSpec]) -> crate::limits::MemoryEstimate {
    let mut est = crate::limits::MemoryEstimate::default();
    let rounds = cfg.rounds as f64;
    let repeats = cfg.repeats as f64;
    let gp_algos = algos.iter().filter(|a| a.name().starts_with("gp-ucb")).count() as f64;
    if gp_algos > 0.0 {
        let at_once = repeats.min(rayon::current_num_threads() as f64);
        est.add(
            "GP-UCB: three rounds x rounds matrices per running repeat",
            gp_algos * at_once * 3.0 * rounds * rounds * F64,
        );
    }
    est.add("pull histories: algorithms x repeats x rounds x 4", algos.len() as f64 * repeats * rounds * 4.0 * F64);
    est
}

/// The cost model of a bandit comparison: every algorithm plays `rounds` pulls in each repeat (the report's
/// `compute.units` of the synthetic problems count them, exactly), each pull costing what its problem does (a
/// draw; an HPO training; a lookup in the SG-MCMC table, built once), plus the algorithms' own work per round:
/// GP-UCB updates its GP over t observations (about t^2 per round, `acq_starts` acquisition searches of about
/// 20 predictions of t^2, and every `refit_every` rounds `restarts + 1` type-II ML fits of about 30 Cholesky
/// factorisations, t^3 / 3: typical), TTTS / D-TTTS sample a posterior per arm in play (at most t + 1: a bound;
/// a Beta draw, two gamma draws with their logarithms, exponentials and square roots, counted as 100
/// multiply-adds, and a leader and a challenger draw each), the others O(1). Problems with a setup: HPO's reference optimum (`reference_arms` x `truth_folds` trainings)
/// and true values (`truth_folds` per distinct arm, at most one per round and repeat: a bound); the SG-MCMC
/// table (`pool` x `replicates` chains of `iterations` and their KSDs, at the batch fraction's mean over its
/// log-uniform range: typical).
pub(crate) fn bandit_cost(cfg: &BanditConfig, algos: &[AlgoSpec]) -> Cost {
    use super::hpo::{ClassData, DigitData, HpoModel, IntScale, Solver};
    let rounds = cfg.rounds as f64;
    let repeats = cfg.repeats as f64;
    let pulls = algos.len() as f64 * repeats * rounds;
    let mut cost = Cost::default();
    // The algorithms' own work, summed over rounds t = 1..rounds.
    let sum_t2: f64 = (1..=cfg.rounds).map(|t| (t * t) as f64).sum();
    for a in algos {
        let (count, basis) = match a {
            AlgoSpec::GpUcb(o) | AlgoSpec::GpUcbNoninvariant(o) | AlgoSpec::GpUcbStationary(o) => {
                let refits: f64 =
                    (1..=cfg.rounds).filter(|t| t % o.refit_every.max(1) == 0).map(|t| (t as f64).powi(3) / 3.0).sum();
                (
                    sum_t2 * (1.0 + 20.0 * o.acq_starts as f64) + refits * 30.0 * (o.restarts as f64 + 1.0),
                    Basis::Typical,
                )
            }
            AlgoSpec::Ttts(o) | AlgoSpec::DTtts(o) => {
                let arms = |t: usize| o.arms.filter(|_| matches!(a, AlgoSpec::Ttts(_))).map_or(t as f64, |k| k as f64);
                ((1..=cfg.rounds).map(arms).sum::<f64>(), Basis::Bound)
            }
            _ => (rounds, Basis::Exact),
        };
        let per = if matches!(a, AlgoSpec::Ttts(_) | AlgoSpec::DTtts(_)) { 200.0 } else { 10.0 };
        cost.add(Phase::new(format!("{} (algorithm)", a.name()), count * repeats, "arm updates", per, basis));
        // TTTS / D-TTTS recommend an arm at every checkpoint round (the regret curves' points). The poster's rule
        // (`Recommend::Posterior`, the default) computes every arm's exact P(best) by quadrature
        // (`bandit::betabest::prob_best_groups`): per group of equal posteriors two bisections of 60 steps and
        // 8 nodes per panel (at least 16 panels), one regularised incomplete Beta function (a continued
        // fraction with a logarithm and an exponential, counted as 100 multiply-adds) at each; the arms in play
        // as for the updates (a bound). Measured natively: the page's bandit default (300 rounds x 8 repeats) took
        // 0.83 s with it and 0.02 s with `most-pulled`.
        if let AlgoSpec::Ttts(o) | AlgoSpec::DTtts(o) = a {
            use crate::bandit::Recommend;
            let arms = |t: usize| o.arms.filter(|_| matches!(a, AlgoSpec::Ttts(_))).map_or(t as f64, |k| k as f64);
            let at: f64 = super::runner::checkpoint_rounds(cfg.rounds, cfg.checkpoints.unwrap_or(100))
                .into_iter()
                .map(|t| arms(t) + 1.0)
                .sum();
            let per = match o.recommend {
                Recommend::Posterior | Recommend::PosteriorPulled => (120.0 + 8.0 * 16.0) * 100.0,
                Recommend::PosteriorMc => o.mc_samples as f64 * 100.0,
                Recommend::MostPulled => 1.0,
            };
            cost.add(Phase::new(
                format!("{} (recommendations)", a.name()),
                at * repeats,
                "posterior evaluations",
                per,
                Basis::Bound,
            ));
        }
    }
    match &cfg.problem {
        ProblemSpec::Bernoulli { .. } | ProblemSpec::Reservoir { .. } => {
            cost.add(Phase::new("pulls", pulls, "pulls", 10.0, Basis::Exact));
        }
        ProblemSpec::Function { dim, .. } => {
            cost.add(Phase::new("pulls", pulls, "pulls", 10.0 * dim.unwrap_or(1).max(1) as f64, Basis::Exact));
        }
        ProblemSpec::TvoSchedule { d, .. } => {
            cost.add(Phase::new("pulls", pulls, "pulls", 10.0 * *d as f64, Basis::Exact));
        }
        ProblemSpec::Hpo(h) => {
            let (n, p, classes) = match &h.model {
                HpoModel::KernelRidge { data: ClassData::Wine, .. } | HpoModel::Svm { data: ClassData::Wine, .. } => {
                    (178usize, 13usize, 3usize)
                }
                HpoModel::KernelRidge { data: ClassData::BreastCancer, .. }
                | HpoModel::Svm { data: ClassData::BreastCancer, .. } => (569, 30, 2),
                HpoModel::Mlp { data: DigitData::Digits, .. } => (1797, 64, 10),
                HpoModel::Mlp { data: DigitData::Mnist { per_class }, .. } => ((10 * per_class).min(10_000), 49, 10),
            };
            // A training on the fold: kernel matrix and Cholesky solve (kernel ridge, one right-hand side per
            // class; the SVM's SMO typically a few passes over the kernel matrix), or an MLP's epochs over the
            // training rows at the width range's middle (geometric for a log-uniform width), forward and backward.
            let (tr, va) = {
                let tr = match &h.model {
                    HpoModel::KernelRidge { train, .. } | HpoModel::Svm { train, .. } => train.unwrap_or(150),
                    HpoModel::Mlp { train, .. } => train.unwrap_or(300),
                }
                .min(n / 2);
                (tr as f64, h.valid.min(n - tr) as f64)
            };
            let per_training = match &h.model {
                HpoModel::KernelRidge { .. } => {
                    tr * tr * p as f64 + tr.powi(3) / 3.0 + tr * tr * classes as f64 + va * tr * p as f64
                }
                HpoModel::Svm { .. } => tr * tr * p as f64 + 10.0 * tr * tr * classes as f64 + va * tr * p as f64,
                HpoModel::Mlp { width, width_scale, epochs, .. } => {
                    let w = match width_scale {
                        IntScale::Log => ((width.0 * width.1) as f64).sqrt(),
                        IntScale::Uniform => (width.0 + width.1) as f64 / 2.0,
                    };
                    3.0 * *epochs as f64 * tr * (p as f64 * w + w * classes as f64)
                }
            };
            let folds = h.truth_folds as f64;
            // scikit-learn's Adam stops early (its stopping rule): its epochs are a bound
            let basis =
                if matches!(h.model, HpoModel::Mlp { solver: Solver::Adam, .. }) { Basis::Bound } else { Basis::Exact };
            cost.add(Phase::new(
                "reference optimum",
                h.reference_arms as f64 * folds,
                "trainings",
                per_training,
                basis,
            ));
            cost.add(Phase::new("pulls", pulls, "trainings", per_training, basis));
            cost.add(Phase::new("true values", repeats * rounds * folds, "trainings", per_training, Basis::Bound));
        }
        ProblemSpec::SgmcmcKsd(spec) if !spec.continuous => {
            let Some(dim_n) = sgmcmc_size(spec) else {
                return Cost::unknown("the data's size is known once the file is read");
            };
            let (n, dim) = dim_n;
            let (lo, hi) = spec.batch_fraction;
            let mean_frac = if hi > lo { (hi - lo) / crate::math::ln(hi / lo) } else { lo };
            let per_iter: f64 = spec
                .samplers
                .iter()
                .map(|k| {
                    let b = (mean_frac * n).max(1.0);
                    let cv = if k.is_cv() && b < n { 2.0 } else { 1.0 };
                    let lf = if crate::experiments::sgmcmc::arms::uses_leapfrog(*k) {
                        spec.leapfrog.max(1) as f64
                    } else {
                        1.0
                    };
                    b * cv * lf
                })
                .sum::<f64>()
                / spec.samplers.len().max(1) as f64;
            let runs = (spec.pool * spec.replicates) as f64;
            let samples = (spec.iterations as f64 / spec.thin.max(1) as f64).ceil();
            cost.add(Phase::new(
                "table: chains",
                runs * spec.iterations as f64 * per_iter,
                "gradient evaluations",
                dim,
                Basis::Typical,
            ));
            cost.add(Phase::new("table: KSD scores", runs * samples * n, "gradient evaluations", dim, Basis::Bound));
            cost.add(Phase::new("table: KSD pairs", runs * samples * samples, "sample pairs", 4.0 * dim, Basis::Bound));
            cost.add(Phase::new("pulls", pulls, "pulls", 10.0, Basis::Exact));
        }
        ProblemSpec::SgmcmcKsd(_) => return Cost::unknown("no cost model for the continuous SG-MCMC reservoir"),
        ProblemSpec::LogregSgd(spec) => {
            // Every algorithm and repeat builds its own problem, whose optimum trains every arm of the pool once
            // (minibatch SGD, `epochs` passes over the training rows, a forward and a backward pass of d + 1
            // weights per row) and scores it on the validation rows; a pull scores `eval_batch` validation rows.
            let (n, d) = match &spec.data {
                super::logreg::LogregData::Digits { .. } => (1797.0, 64.0),
                super::logreg::LogregData::Simulate { n, d } => (*n as f64, *d as f64),
            };
            let valid = (spec.validation_fraction * n).round().clamp(1.0, (n - 1.0).max(1.0));
            let (train, w) = (n - valid, d + 1.0);
            let arms = algos.len() as f64 * repeats * spec.pool as f64;
            cost.add(Phase::new(
                "arm trainings",
                arms * train * spec.epochs as f64,
                "gradient evaluations",
                2.0 * w,
                Basis::Exact,
            ));
            cost.add(Phase::new("arm validation", arms * valid, "predictions", w, Basis::Exact));
            cost.add(Phase::new("pulls", pulls, "predictions", spec.eval_batch as f64 * w, Basis::Exact));
        }
    }
    cost
}

/// `(training rows, posterior dimension)` of an SG-MCMC bandit problem's built-in data.
fn sgmcmc_size(spec: &super::sgmcmc_ksd::SgmcmcKsdSpec) -> Option<(f64, f64)> {
    let cfg = crate::experiments::sgmcmc::TuneConfig {
        data: spec.data.clone(),
        model: spec.model.clone(),
        ..crate::experiments::sgmcmc::presets::preset("demo").ok()?
    };
    let size = crate::experiments::sgmcmc::problem::problem_size(&cfg)?;
    // The bandit's runs use every row (its `test_fraction` is ignored).
    let n = cfg.data_shape().map_or(size.n_train, |s| s.0) as f64;
    Some((n, size.dim))
}
