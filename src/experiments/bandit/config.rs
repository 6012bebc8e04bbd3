//! The bandit run configuration (JSON; CLI `--config`, worker message).
//!
//! ```json
//! {
//!   "problem": {"kind": "reservoir", "a": 1.0, "b": 1.0},
//!   "algorithms": [{"kind": "d-ttts"}, {"kind": "ttts", "arms": 32}, {"kind": "hyperband"},
//!                  {"kind": "successive-halving"}, {"kind": "uniform"}],
//!   "rounds": 1000, "repeats": 20, "seed": 1
//! }
//! ```
//! Problem kinds: `bernoulli {means}`, `reservoir {a, b, shift = 0, scale = 1}`,
//! `function {function: branin|hartmann3|hartmann6|rosenbrock|wave1d, dim?, noise_sd = 0.1, drift = 0,
//! period = 50}`, `tvo-schedule {d = 3, lambda0 = 2, lambda1 = 12, rate = 0.04, sharpness = 0.1, noise_sd = 0.1}`,
//! `logreg-sgd {...}` (see [`super::logreg::LogregSgdSpec`]), `sgmcmc-ksd {...}` (SG-MCMC configurations scored by
//! KSD on the user's data, see [`super::sgmcmc_ksd::SgmcmcKsdSpec`]).
//! Algorithm kinds: `uniform {arms?}`, `random`, `gp-ucb`, `gp-ucb-noninvariant`, `gp-ucb-stationary`
//! (options [`GpUcbOptions`]), `ttts`, `d-ttts` ([`TttsOptions`]), `successive-halving`, `hyperband`
//! ([`HalvingOptions`]); every kind takes an optional `label`. The floor (`uniform` for discrete arms, `random`
//! for continuous arms) is added when it is not listed.

use serde::{Deserialize, Serialize};

use super::hpo::{ClassData, DigitData, Hpo, HpoShared, HpoSpec};
use super::logreg::{LogregSgd, LogregSgdSpec};
use super::problems::{ArmSpace, FiniteBernoulli, Problem, Reservoir, TestFn, TestFunction, TvoSchedule};
use super::sgmcmc_ksd::{SgmcmcKsd, SgmcmcKsdSpec, SgmcmcReservoir, SgmcmcReservoirShared, SgmcmcTable};
use crate::bandit::gpucb::{GpUcb, GpUcbOptions, RandomSearch};
use crate::bandit::halving::{Halving, HalvingOptions};
use crate::bandit::ttts::{DTtts, RandomArms, Recommend, Ttts, TttsOptions, Uniform};
use crate::bandit::BanditAlgo;
use crate::data::Dataset;
use crate::{Error, Result};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

crate::serde_defaults! {
    one: f64 = 1.0; noise_default: f64 = 0.1; period_default: f64 = 50.0; tvo_d: usize = 3; lambda0: f64 = 2.0;
    lambda1: f64 = 12.0; rate: f64 = 0.04; sharpness: f64 = 0.1;
}

/// The problem to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ProblemSpec {
    /// Fixed Bernoulli arms.
    Bernoulli {
        /// The arms' means.
        means: Vec<f64>,
    },
    /// Bernoulli arms with means `shift + scale * Beta(a, b)`.
    Reservoir {
        /// Beta shape a.
        a: f64,
        /// Beta shape b.
        b: f64,
        /// Added to every mean.
        #[serde(default)]
        shift: f64,
        /// Factor on the Beta draw.
        #[serde(default = "one")]
        scale: f64,
    },
    /// A test function with Gaussian noise; `drift > 0` makes it time-varying.
    Function {
        /// The test function.
        function: TestFn,
        /// Dimension, for the functions that take one (default: the function's own).
        #[serde(default)]
        dim: Option<usize>,
        /// Standard deviation of the Gaussian noise on a reward.
        #[serde(default = "noise_default")]
        noise_sd: f64,
        /// Amplitude of the time-varying shift `s_j(t) = drift sin(2 pi t / period + j)` of the input (0: a fixed
        /// function; the optimum moves, its value stays known).
        #[serde(default)]
        drift: f64,
        /// Period of the drift, in rounds.
        #[serde(default = "period_default")]
        period: f64,
    },
    /// The closed-form TVO schedule surrogate ([`TvoSchedule`]; not the TVO, which is the `tvo` experiment kind).
    TvoSchedule {
        /// Free schedule points `b_1..b_d` (1 to 20).
        #[serde(default = "tvo_d")]
        d: usize,
        /// Curvature `lambda_0` of the integrand at the start of training.
        #[serde(default = "lambda0")]
        lambda0: f64,
        /// Curvature `lambda_1` the integrand tends to as training goes on.
        #[serde(default = "lambda1")]
        lambda1: f64,
        /// Progress per window with a perfect bound.
        #[serde(default = "rate")]
        rate: f64,
        /// How fast progress falls with the bound's normalised gap.
        #[serde(default = "sharpness")]
        sharpness: f64,
        /// Relative noise of a reward: it is multiplied by `1 + noise_sd eps`.
        #[serde(default = "noise_default")]
        noise_sd: f64,
    },
    /// Step size and L2 penalty of logistic regression trained by SGD, from a pool of random configurations.
    LogregSgd(LogregSgdSpec),
    /// SG-MCMC configurations (sampler, step, batch) from a log-uniform reservoir, rewarded by their KSD.
    SgmcmcKsd(SgmcmcKsdSpec),
    /// A real tuning problem: one pull trains a kernel classifier or a network on a fresh fold ([`HpoSpec`]).
    Hpo(HpoSpec),
}

/// What a run computes once and shares between all repeats and algorithms (the SG-MCMC table).
#[derive(Debug, Clone, Default)]
pub struct Shared {
    pub table: Option<Arc<SgmcmcTable>>,
    /// Data, reference optimum and true-value cache of a real tuning problem.
    pub hpo: Option<Arc<HpoShared>>,
    /// Setup, reference optimum and true-value cache of the continuous SG-MCMC reservoir.
    pub reservoir: Option<Arc<SgmcmcReservoirShared>>,
}

/// One algorithm of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AlgoSpec {
    /// Round-robin over `arms` arms (default: all arms of a finite problem, `ceil(sqrt(rounds))` of a reservoir).
    Uniform {
        /// Number of arms.
        #[serde(default)]
        arms: Option<usize>,
        /// Label in the report (default from the kind).
        #[serde(default)]
        label: Option<String>,
    },
    /// Uniform random points of the box.
    Random {
        /// Label in the report (default from the kind).
        #[serde(default)]
        label: Option<String>,
    },
    /// GP-UCB as configured (default: time-varying, permutation invariant for ordered arms).
    GpUcb(GpUcbOptions),
    /// Ablation: the non-invariant kernel.
    GpUcbNoninvariant(GpUcbOptions),
    /// Ablation: the stationary GP (no temporal kernel).
    GpUcbStationary(GpUcbOptions),
    /// TTTS on a finite set (the first `arms` arms of a reservoir, default `ceil(sqrt(rounds))`).
    Ttts(TttsOptions),
    /// D-TTTS: one new arm per round.
    DTtts(TttsOptions),
    /// Successive halving (fixed budget).
    SuccessiveHalving(HalvingOptions),
    /// Hyperband.
    Hyperband(HalvingOptions),
}

impl AlgoSpec {
    /// The kind as in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            AlgoSpec::Uniform { .. } => "uniform",
            AlgoSpec::Random { .. } => "random",
            AlgoSpec::GpUcb(_) => "gp-ucb",
            AlgoSpec::GpUcbNoninvariant(_) => "gp-ucb-noninvariant",
            AlgoSpec::GpUcbStationary(_) => "gp-ucb-stationary",
            AlgoSpec::Ttts(_) => "ttts",
            AlgoSpec::DTtts(_) => "d-ttts",
            AlgoSpec::SuccessiveHalving(_) => "successive-halving",
            AlgoSpec::Hyperband(_) => "hyperband",
        }
    }

    /// The name in the report: the label, or the kind.
    pub fn name(&self) -> String {
        let label = match self {
            AlgoSpec::Uniform { label, .. } | AlgoSpec::Random { label } => label.clone(),
            AlgoSpec::GpUcb(o) | AlgoSpec::GpUcbNoninvariant(o) | AlgoSpec::GpUcbStationary(o) => o.label.clone(),
            AlgoSpec::Ttts(o) | AlgoSpec::DTtts(o) => o.label.clone(),
            AlgoSpec::SuccessiveHalving(o) | AlgoSpec::Hyperband(o) => o.label.clone(),
        };
        label.unwrap_or_else(|| self.kind().to_string())
    }

    fn is_floor(&self) -> bool {
        matches!(self, AlgoSpec::Uniform { .. } | AlgoSpec::Random { .. })
    }

    /// Builds the algorithm for a problem with arm space `space`, horizon `rounds`; `seed` seeds internal streams.
    pub fn build(&self, space: &ArmSpace, unit_rewards: bool, rounds: usize, seed: u64) -> Result<Box<dyn BanditAlgo>> {
        let name = self.name();
        let discrete = match space {
            ArmSpace::Discrete { n_arms } => Some(*n_arms),
            ArmSpace::Continuous { .. } => None,
        };
        let need_discrete = || Error::config(format!("algorithm '{name}' needs a problem with discrete arms"));
        let default_arms = |n: Option<usize>| n.unwrap_or(((rounds as f64).sqrt().ceil() as usize).max(2));
        Ok(match self {
            AlgoSpec::Uniform { arms, .. } => {
                let n_arms = discrete.ok_or_else(|| {
                    Error::config(format!("algorithm '{name}' needs discrete arms (use 'random' for a box)"))
                })?;
                let k = arms.unwrap_or(default_arms(n_arms));
                if let (Some(n), Some(a)) = (n_arms, arms) {
                    if *a > n {
                        return Err(Error::config(format!("uniform: {a} arms asked but the problem has {n}")));
                    }
                }
                Box::new(Uniform::new(k.min(n_arms.unwrap_or(usize::MAX)))?)
            }
            AlgoSpec::Random { .. } => match discrete {
                Some(n) => Box::new(RandomArms::new(n)?),
                None => Box::new(RandomSearch::new(space)?),
            },
            AlgoSpec::GpUcb(o) => Box::new(GpUcb::new(space, o.clone(), seed)?),
            AlgoSpec::GpUcbNoninvariant(o) => {
                let mut o = o.clone();
                o.permutation_invariant = Some(false);
                Box::new(GpUcb::new(space, o, seed)?)
            }
            AlgoSpec::GpUcbStationary(o) => {
                let mut o = o.clone();
                o.temporal = false;
                Box::new(GpUcb::new(space, o, seed)?)
            }
            AlgoSpec::Ttts(o) | AlgoSpec::DTtts(o) => {
                let n_arms = discrete.ok_or_else(need_discrete)?;
                if !unit_rewards {
                    return Err(Error::config(format!("algorithm '{name}' needs rewards in [0, 1]")));
                }
                if matches!(self, AlgoSpec::Ttts(_)) {
                    if let (Some(n), Some(a)) = (n_arms, o.arms) {
                        if a > n {
                            return Err(Error::config(format!("ttts: {a} arms asked but the problem has {n}")));
                        }
                    }
                    let k = o.arms.unwrap_or(default_arms(n_arms)).min(n_arms.unwrap_or(usize::MAX));
                    Box::new(Ttts::new(k, o.clone(), seed)?)
                } else {
                    Box::new(DTtts::new(o.clone(), n_arms, seed)?)
                }
            }
            AlgoSpec::SuccessiveHalving(o) => {
                let n_arms = discrete.ok_or_else(need_discrete)?;
                Box::new(Halving::successive_halving(rounds, n_arms, o)?)
            }
            AlgoSpec::Hyperband(o) => {
                let n_arms = discrete.ok_or_else(need_discrete)?;
                Box::new(Halving::hyperband(rounds, n_arms, o)?)
            }
        })
    }
}

crate::serde_defaults! {
    repeats_default: usize = 10; band_default: f64 = 1.96;
}

/// A bandit comparison: one problem, several algorithms, `repeats` seeded repeats of `rounds` pulls each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BanditConfig {
    /// The problem.
    pub problem: ProblemSpec,
    /// Algorithms to compare (the floor is added if missing).
    pub algorithms: Vec<AlgoSpec>,
    /// Pulls per repeat (1..=1_000_000).
    pub rounds: usize,
    /// Independent repeats (1..=10_000), run in parallel; repeat `r` uses `rng::stream(seed, r)`.
    #[serde(default = "repeats_default")]
    pub repeats: usize,
    /// Master seed.
    #[serde(default)]
    pub seed: u64,
    /// Number of rounds at which curves are recorded (evenly spaced, last = `rounds`; default min(rounds, 100)).
    #[serde(default)]
    pub checkpoints: Option<usize>,
    /// The band is mean +- `band` x standard error over repeats (default 1.96: a normal 95% interval).
    #[serde(default = "band_default")]
    pub band: f64,
    /// Run only repeats `lo..hi` of the `repeats`, each with the streams it has in the full run, and add their
    /// raw per-repeat curves to the report (`per_repeat`), so that [`super::merge_reports`] combines the parts
    /// into the full run's report bit for bit: the repeats of one comparison as separate tasks (Ray). Default:
    /// all repeats. JSON: `[lo, hi]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_range: Option<(usize, usize)>,
}

/// The discrete-arm comparison of the presets: D-TTTS (posterior and most-pulled recommendation), TTTS,
/// successive halving, Hyperband and uniform allocation.
fn discrete_tuners() -> Vec<AlgoSpec> {
    vec![
        AlgoSpec::DTtts(TttsOptions::default()),
        AlgoSpec::DTtts(TttsOptions {
            recommend: Recommend::MostPulled,
            label: Some("d-ttts (most pulled)".into()),
            ..TttsOptions::default()
        }),
        AlgoSpec::Ttts(TttsOptions::default()),
        AlgoSpec::SuccessiveHalving(HalvingOptions::default()),
        AlgoSpec::Hyperband(HalvingOptions::default()),
        AlgoSpec::Uniform { arms: None, label: None },
        AlgoSpec::Random { label: Some("random search".into()) },
    ]
}

/// A preset on a real tuning problem: the poster's comparison, `rounds` pulls x `repeats` seeds.
fn hpo_preset(spec: HpoSpec, rounds: usize, repeats: usize) -> BanditConfig {
    BanditConfig {
        problem: ProblemSpec::Hpo(spec),
        algorithms: discrete_tuners(),
        rounds,
        repeats,
        seed: 1,
        checkpoints: Some(50),
        band: 1.96,
        repeat_range: None,
    }
}

/// A preset around a problem and its algorithms; the rest is what every preset shares (seed 1, 95% bands, no
/// checkpoints or repeat range).
fn preset_config(problem: ProblemSpec, algorithms: Vec<AlgoSpec>, rounds: usize, repeats: usize) -> BanditConfig {
    BanditConfig { problem, algorithms, rounds, repeats, seed: 1, checkpoints: None, band: 1.96, repeat_range: None }
}

/// Names of the built-in presets.
pub const PRESETS: [&str; 13] = [
    "beta-reservoir",
    "tvo-schedule",
    "branin",
    "logreg-sgd",
    "sgmcmc-ksd",
    "svm-breast-cancer",
    "svm-wine",
    "kernel-ridge-breast-cancer",
    "kernel-ridge-wine",
    "mlp-digits",
    "mlp-mnist",
    "mlp-mnist-poster",
    "mlp-mnist-poster-adam",
];

impl BanditConfig {
    /// Parses a JSON config (errors name the problem).
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::config(format!("bandit config: {e}")))
    }

    /// A built-in preset: `beta-reservoir`, `tvo-schedule`, `branin`, `logreg-sgd` (D-TTTS tuning SGD on digits) or
    /// `sgmcmc-ksd` (D-TTTS choosing SG-MCMC configurations by KSD on simulated logistic data).
    pub fn preset(name: &str) -> Result<Self> {
        let cfg = match name {
            "beta-reservoir" => preset_config(
                ProblemSpec::Reservoir { a: 1.0, b: 1.0, shift: 0.0, scale: 1.0 },
                discrete_tuners(),
                1000,
                20,
            ),
            "tvo-schedule" => preset_config(
                ProblemSpec::TvoSchedule {
                    d: 3,
                    lambda0: 2.0,
                    lambda1: 12.0,
                    rate: 0.04,
                    sharpness: 0.1,
                    noise_sd: 0.1,
                },
                vec![
                    AlgoSpec::GpUcb(GpUcbOptions::default()),
                    AlgoSpec::GpUcbNoninvariant(GpUcbOptions::default()),
                    AlgoSpec::GpUcbStationary(GpUcbOptions::default()),
                    AlgoSpec::Random { label: None },
                ],
                80,
                8,
            ),
            "branin" => preset_config(
                ProblemSpec::Function { function: TestFn::Branin, dim: None, noise_sd: 0.1, drift: 0.0, period: 50.0 },
                vec![
                    AlgoSpec::GpUcbStationary(GpUcbOptions::default()),
                    AlgoSpec::GpUcb(GpUcbOptions::default()),
                    AlgoSpec::Random { label: None },
                ],
                60,
                8,
            ),
            "logreg-sgd" => preset_config(ProblemSpec::LogregSgd(LogregSgdSpec::default()), discrete_tuners(), 600, 10),
            "sgmcmc-ksd" => {
                preset_config(ProblemSpec::SgmcmcKsd(SgmcmcKsdSpec::default()), discrete_tuners(), 1000, 20)
            }
            // the poster's RBF SVM, C and gamma in [1e-5, 1e5] (D-TTTS, "Experimental Setting")
            "svm-breast-cancer" => hpo_preset(HpoSpec::svm(ClassData::BreastCancer), 300, 10),
            "svm-wine" => hpo_preset(HpoSpec::svm(ClassData::Wine), 300, 10),
            // kernel ridge classification: a cheaper stand-in for the SVM on the same data
            "kernel-ridge-breast-cancer" => hpo_preset(HpoSpec::kernel_ridge(ClassData::BreastCancer), 300, 10),
            "kernel-ridge-wine" => hpo_preset(HpoSpec::kernel_ridge(ClassData::Wine), 300, 10),
            // sized for the page: 200 pulls x 8 repeats took 94-97 s there (tests/e2e/bandit-bench.mjs, README)
            "mlp-digits" => hpo_preset(HpoSpec::mlp(DigitData::Digits), 100, 4),
            "mlp-mnist" => hpo_preset(HpoSpec::mlp(DigitData::Mnist { per_class: 100 }), 200, 8),
            // the poster's MNIST box (width [5, 50], alpha [0, 0.9], lr [1e-5, 1e-1]; batch 200), same digits
            "mlp-mnist-poster" => hpo_preset(HpoSpec::mlp_poster(DigitData::Mnist { per_class: 100 }), 200, 8),
            // the same box trained as scikit-learn's MLPClassifier by default (Adam, at most 200 epochs)
            "mlp-mnist-poster-adam" => {
                hpo_preset(HpoSpec::mlp_poster_adam(DigitData::Mnist { per_class: 100 }), 200, 8)
            }
            other => {
                return Err(Error::config(format!("unknown bandit preset '{other}' (known: {})", PRESETS.join(", "))))
            }
        };
        Ok(cfg)
    }

    /// Computes what all repeats share (the SG-MCMC table; nothing for the other problems). `data` is the user's data set
    /// for `data.source = csv | upload` (parsed at the boundary); `progress(done, total)` reports runs of the table.
    pub fn prepare(
        &self,
        data: Option<Dataset>,
        progress: &mut dyn FnMut(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<Shared> {
        Ok(match &self.problem {
            ProblemSpec::SgmcmcKsd(spec) if spec.continuous => Shared {
                reservoir: Some(Arc::new(SgmcmcReservoirShared::build(spec, data, progress, cancel)?)),
                ..Shared::default()
            },
            ProblemSpec::SgmcmcKsd(spec) => {
                Shared { table: Some(Arc::new(SgmcmcTable::build(spec, data, progress, cancel)?)), ..Shared::default() }
            }
            ProblemSpec::Hpo(spec) => Shared {
                hpo: Some(Arc::new(HpoShared::build(spec, self.seed, progress, cancel)?)),
                ..Shared::default()
            },
            _ => Shared::default(),
        })
    }

    /// Builds one problem instance (`seed` fixes a reservoir's arm sequence / a data set / the pool order).
    pub fn build_problem(&self, seed: u64, shared: &Shared) -> Result<Box<dyn Problem>> {
        Ok(match &self.problem {
            ProblemSpec::Bernoulli { means } => Box::new(FiniteBernoulli::new(means.clone())?),
            ProblemSpec::Reservoir { a, b, shift, scale } => Box::new(Reservoir::new(*a, *b, *shift, *scale, seed)?),
            ProblemSpec::Function { function, dim, noise_sd, drift, period } => {
                Box::new(TestFunction::new(*function, *dim, *noise_sd, *drift, *period)?)
            }
            ProblemSpec::TvoSchedule { d, lambda0, lambda1, rate, sharpness, noise_sd } => {
                Box::new(TvoSchedule::new(*d, *lambda0, *lambda1, *rate, *sharpness, *noise_sd)?)
            }
            ProblemSpec::LogregSgd(spec) => Box::new(LogregSgd::new(spec, seed)?),
            ProblemSpec::Hpo(_) => {
                let sh = shared.hpo.clone().ok_or_else(|| Error::config("hpo: the shared data were not prepared"))?;
                Box::new(Hpo::new(sh, seed))
            }
            ProblemSpec::SgmcmcKsd(spec) if spec.continuous => {
                let sh = shared
                    .reservoir
                    .clone()
                    .ok_or_else(|| Error::config("sgmcmc-ksd: the reservoir was not prepared"))?;
                Box::new(SgmcmcReservoir::new(sh, seed))
            }
            ProblemSpec::SgmcmcKsd(_) => {
                let table =
                    shared.table.clone().ok_or_else(|| Error::config("sgmcmc-ksd: the table was not prepared"))?;
                Box::new(SgmcmcKsd::new(table, seed))
            }
        })
    }

    /// The arm space and whether rewards are in [0, 1], without building expensive problems.
    fn shape(&self) -> Result<(ArmSpace, bool)> {
        if let ProblemSpec::SgmcmcKsd(spec) = &self.problem {
            spec.validate()?;
            let n_arms = if spec.continuous { None } else { Some(spec.pool) };
            return Ok((ArmSpace::Discrete { n_arms }, true));
        }
        if let ProblemSpec::Hpo(spec) = &self.problem {
            spec.validate()?;
            return Ok((ArmSpace::Discrete { n_arms: None }, true));
        }
        let problem = self.build_problem(0, &Shared::default())?;
        Ok((problem.space(), problem.unit_rewards()))
    }

    /// Checks everything that can be checked before running; returns the algorithm list with the floor added.
    pub fn validate(&self) -> Result<Vec<AlgoSpec>> {
        if self.rounds == 0 || self.rounds > 1_000_000 {
            return Err(Error::config("rounds must be in 1..=1000000"));
        }
        if self.repeats == 0 || self.repeats > 10_000 {
            return Err(Error::config("repeats must be in 1..=10000"));
        }
        if let Some((lo, hi)) = self.repeat_range {
            if lo >= hi || hi > self.repeats {
                return Err(Error::config(format!(
                    "repeat_range [{lo}, {hi}] must satisfy lo < hi <= repeats ({})",
                    self.repeats
                )));
            }
        }
        if self.checkpoints == Some(0) {
            return Err(Error::config("checkpoints must be >= 1"));
        }
        if !(self.band >= 0.0 && self.band.is_finite()) {
            return Err(Error::config("band must be finite and >= 0"));
        }
        if self.algorithms.is_empty() {
            return Err(Error::config("no algorithms given"));
        }
        let (space, unit_rewards) = self.shape()?;
        let mut algos = self.algorithms.clone();
        if !algos.iter().any(AlgoSpec::is_floor) {
            algos.push(match space {
                ArmSpace::Discrete { .. } => AlgoSpec::Uniform { arms: None, label: None },
                ArmSpace::Continuous { .. } => AlgoSpec::Random { label: None },
            });
        }
        let mut names: Vec<String> = Vec::new();
        for a in &algos {
            let n = a.name();
            if names.contains(&n) {
                return Err(Error::config(format!("two algorithms are named '{n}': give one a \"label\"")));
            }
            names.push(n);
            a.build(&space, unit_rewards, self.rounds, 0)?;
        }
        Ok(algos)
    }
}
