//! HOAG: hyperparameter optimisation with approximate gradient (Pedregosa, ICML 2016, Algorithm 1), compared
//! on the same problem and cost clock with grid search, random search, GP Bayesian optimisation (expected
//! improvement) and iterative differentiation (reverse mode through unrolled gradient descent).
//!
//! Entry point: [`run`] (or [`run_with_data`] for user data) with a [`HoagConfig`]; it returns a
//! [`HoagReport`] whose `methods` hold, per method, its `name`, its `trace` over time and its `final_loss`,
//! plus the outer-loss `landscape` on a grid (chart data). Progress goes to an observer as [`HoagEvent`]s,
//! always on the calling thread.
//!
//! The clock: every method counts cost units (one pass over the train data: a gradient, a Hessian-vector
//! product, a kernel matrix-vector product or building a kernel matrix), which are deterministic, and seconds.
//! The budget is in cost units (default, reproducible) and optionally seconds.
//!
//! What is approximated: the inner tolerance is measured, as in the authors' code, relative to the norm of
//! the inner gradient at the start (`|∇h(x)| <= ε_k |∇h(0)|`), and the Hessian system relative to the norm of
//! the first outer gradient. Iterative differentiation unrolls plain gradient descent from zero with a fixed
//! step `1/L(λ)` that is not differentiated.

mod methods;
pub mod problems;
pub mod solvers;

pub use problems::{Bilevel, InnerAt, KernelRidgeBilevel, LogisticBilevel, Split};
pub use solvers::{conjugate_gradient, lbfgs, SolveInfo};

use crate::data::Dataset;
use crate::rng::{stream, Rng};
use crate::{Error, Result};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;

/// Which bilevel problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// L2-regularised logistic regression, one hyperparameter (log regularisation), eq. 4.
    Logreg,
    /// RBF kernel ridge regression, two hyperparameters (log width, log regularisation), eq. 5.
    KernelRidge,
}

/// Where the data come from. `upload` and `csv` data are handed to [`run_with_data`] (the CLI reads the
/// file, the page parses the upload).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HoagData {
    /// Simulated data: logistic (`logreg`: `y ~ Bernoulli(σ(aᵀw))`, `w ~ N(0, I)/sqrt(d)·3`, label noise
    /// through the Bernoulli draw) or a smooth regression (`kernel-ridge`: `y = Σ_j sin(a_j) + 0.3 ε`).
    Simulate {
        #[serde(default = "d_n")]
        n: usize,
        #[serde(default = "d_d")]
        d: usize,
        #[serde(default = "d_one")]
        seed: u64,
    },
    /// The built-in digits set (`logreg`: label = digit >= 5; `kernel-ridge`: regress the digit value).
    Digits,
    /// A CSV file (CLI): `path`, label column `label` (default `y`).
    Csv {
        path: String,
        #[serde(default)]
        label: Option<String>,
    },
    /// Data handed over by the page: use [`run_with_data`].
    Upload {
        #[serde(default)]
        label: Option<String>,
    },
}

fn d_n() -> usize {
    600
}
fn d_d() -> usize {
    30
}
fn d_one() -> u64 {
    1
}

impl Default for HoagData {
    fn default() -> Self {
        HoagData::Simulate { n: d_n(), d: d_d(), seed: 1 }
    }
}

/// Tolerance sequence `ε_k` of HOAG (Pedregosa 2016, Sec. 4 "tolerance decrease").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Tolerance {
    /// `ε_k = ε_0 0.9^(k-1)` (default).
    #[default]
    Exponential,
    /// `ε_k = ε_0 k^-2`.
    Quadratic,
    /// `ε_k = ε_0 k^-3`.
    Cubic,
    /// `ε_k = 1e-12` (exact hypergradient up to round-off).
    Exact,
}

impl Tolerance {
    /// `ε_k` for iteration `k >= 1`, floored at `1e-12`.
    pub fn eps(self, eps0: f64, k: usize) -> f64 {
        let k = k.max(1) as f64;
        let e = match self {
            Tolerance::Exponential => eps0 * 0.9f64.powf(k - 1.0),
            Tolerance::Quadratic => eps0 / (k * k),
            Tolerance::Cubic => eps0 / (k * k * k),
            Tolerance::Exact => 1e-12,
        };
        e.max(1e-12)
    }
    fn label(self) -> &'static str {
        match self {
            Tolerance::Exponential => "exponential",
            Tolerance::Quadratic => "quadratic",
            Tolerance::Cubic => "cubic",
            Tolerance::Exact => "exact",
        }
    }
}

/// One method to compare (JSON: `{"kind": "hoag", "tolerance": "cubic"}`, `{"kind": "grid"}`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MethodSpec {
    /// HOAG with a tolerance sequence.
    Hoag {
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// Grid search, `points` per hyperparameter on the box (10 by default), evaluated in order.
    Grid {
        #[serde(default = "d_ten")]
        points: usize,
    },
    /// Uniform random search on the box.
    Random,
    /// GP Bayesian optimisation (Matern-5/2, type-II ML) with expected improvement, `initial` random points.
    Bo {
        #[serde(default = "d_four")]
        initial: usize,
    },
    /// Iterative differentiation: `steps` of gradient descent from zero, differentiated in reverse mode.
    IterDiff {
        #[serde(default = "d_steps")]
        steps: usize,
    },
}

fn d_ten() -> usize {
    10
}
fn d_four() -> usize {
    4
}
fn d_steps() -> usize {
    100
}

impl MethodSpec {
    /// Display name used in reports.
    pub fn name(&self) -> String {
        match self {
            MethodSpec::Hoag { tolerance } => format!("HOAG ({})", tolerance.label()),
            MethodSpec::Grid { .. } => "grid search".into(),
            MethodSpec::Random => "random search".into(),
            MethodSpec::Bo { .. } => "Bayesian optimisation (EI)".into(),
            MethodSpec::IterDiff { .. } => "iterative differentiation".into(),
        }
    }
}

fn default_methods() -> Vec<MethodSpec> {
    vec![
        MethodSpec::Hoag { tolerance: Tolerance::Exponential },
        MethodSpec::Hoag { tolerance: Tolerance::Quadratic },
        MethodSpec::Hoag { tolerance: Tolerance::Cubic },
        MethodSpec::Grid { points: 10 },
        MethodSpec::Random,
        MethodSpec::Bo { initial: 4 },
        MethodSpec::IterDiff { steps: 100 },
    ]
}

/// Per-method budget: stop at whichever limit comes first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HoagBudget {
    /// Cost units (passes over the train data) per method.
    pub cost: u64,
    /// Optional wall-clock seconds per method (not reproducible; off by default).
    pub seconds: Option<f64>,
    /// Outer iterations / evaluations per method.
    pub max_iter: usize,
}

impl Default for HoagBudget {
    fn default() -> Self {
        HoagBudget { cost: 5000, seconds: None, max_iter: 60 }
    }
}

/// The HOAG comparison configuration (serde JSON; CLI `--config`, the page's worker message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoagConfig {
    pub problem: ProblemKind,
    #[serde(default)]
    pub data: HoagData,
    /// Standardise features with the train-third mean and standard deviation.
    #[serde(default = "d_true")]
    pub standardize: bool,
    #[serde(default = "default_methods")]
    pub methods: Vec<MethodSpec>,
    #[serde(default)]
    pub budget: HoagBudget,
    /// Starting hyperparameters of the gradient methods (default all 0).
    #[serde(default)]
    pub init: Option<Vec<f64>>,
    /// Box `[lo, hi]` for every hyperparameter (default `[-12, 12]`).
    #[serde(default = "d_bounds")]
    pub bounds: [f64; 2],
    /// `ε_0` of the tolerance sequences (default 0.1).
    #[serde(default = "d_eps0")]
    pub eps0: f64,
    /// Relative inner tolerance of the black-box methods, the landscape and the final evaluations.
    #[serde(default = "d_bbtol")]
    pub blackbox_tol: f64,
    /// Iteration cap of each inner solve (L-BFGS iterations / CG iterations).
    #[serde(default = "d_inner")]
    pub max_inner_iter: usize,
    /// Landscape grid points per hyperparameter (0 = no landscape).
    #[serde(default = "d_land")]
    pub landscape_points: usize,
    /// Split fractions are thirds (the paper's setup); this seeds the shuffle and the random methods.
    #[serde(default = "d_seed")]
    pub seed: u64,
}

fn d_true() -> bool {
    true
}
fn d_bounds() -> [f64; 2] {
    [-12.0, 12.0]
}
fn d_eps0() -> f64 {
    0.1
}
fn d_bbtol() -> f64 {
    1e-6
}
fn d_inner() -> usize {
    1000
}
fn d_land() -> usize {
    25
}
fn d_seed() -> u64 {
    42
}

impl HoagConfig {
    /// Default configuration for a problem kind.
    pub fn new(problem: ProblemKind) -> Self {
        HoagConfig {
            problem,
            data: HoagData::default(),
            standardize: true,
            methods: default_methods(),
            budget: HoagBudget::default(),
            init: None,
            bounds: d_bounds(),
            eps0: d_eps0(),
            blackbox_tol: d_bbtol(),
            max_inner_iter: d_inner(),
            landscape_points: d_land(),
            seed: d_seed(),
        }
    }

    /// Built-in presets reproducing the paper's comparison at browser scale: `logreg` (simulated logistic
    /// regression, n = 600, d = 30, split in thirds) and `kernel-ridge` (simulated smooth regression, n = 450,
    /// d = 5, RBF kernel ridge with two hyperparameters).
    pub fn preset(name: &str) -> Result<Self> {
        match name {
            "logreg" => {
                let mut c = HoagConfig::new(ProblemKind::Logreg);
                c.data = HoagData::Simulate { n: 600, d: 30, seed: 1 };
                c.budget = HoagBudget { cost: 4000, seconds: None, max_iter: 50 };
                c.landscape_points = 97;
                Ok(c)
            }
            "kernel-ridge" => {
                let mut c = HoagConfig::new(ProblemKind::KernelRidge);
                c.data = HoagData::Simulate { n: 450, d: 5, seed: 1 };
                c.budget = HoagBudget { cost: 6000, seconds: None, max_iter: 100 };
                c.landscape_points = 25;
                Ok(c)
            }
            other => Err(Error::config(format!(
                "unknown HOAG preset '{other}' (known: logreg, kernel-ridge)"
            ))),
        }
    }

    /// Number of hyperparameters of the problem.
    pub fn n_hyper(&self) -> usize {
        match self.problem {
            ProblemKind::Logreg => 1,
            ProblemKind::KernelRidge => 2,
        }
    }

    /// Checks every value once (linfa style); the run itself cannot fail on a validated config.
    pub fn validate(&self) -> Result<()> {
        let [lo, hi] = self.bounds;
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::config(format!("bounds must be finite with lo < hi, got [{lo}, {hi}]")));
        }
        if self.methods.is_empty() {
            return Err(Error::config("methods: give at least one method"));
        }
        if !(self.eps0 > 0.0 && self.eps0 <= 1.0) {
            return Err(Error::config(format!("eps0 must be in (0, 1], got {}", self.eps0)));
        }
        if !(self.blackbox_tol > 0.0 && self.blackbox_tol < 1.0) {
            return Err(Error::config(format!("blackbox_tol must be in (0, 1), got {}", self.blackbox_tol)));
        }
        if self.max_inner_iter == 0 {
            return Err(Error::config("max_inner_iter must be at least 1"));
        }
        if self.budget.cost == 0 || self.budget.max_iter == 0 {
            return Err(Error::config("budget: cost and max_iter must be positive"));
        }
        if let Some(s) = self.budget.seconds {
            if !(s > 0.0 && s.is_finite()) {
                return Err(Error::config(format!("budget.seconds must be positive, got {s}")));
            }
        }
        if let Some(init) = &self.init {
            if init.len() != self.n_hyper() {
                return Err(Error::config(format!(
                    "init has {} values but the {:?} problem has {} hyperparameter(s)",
                    init.len(),
                    self.problem,
                    self.n_hyper()
                )));
            }
            if init.iter().any(|v| !v.is_finite()) {
                return Err(Error::config("init values must be finite"));
            }
        }
        if self.landscape_points == 1 || self.landscape_points > 400 {
            return Err(Error::config("landscape_points must be 0 (off) or between 2 and 400"));
        }
        for m in &self.methods {
            match m {
                MethodSpec::Grid { points } if *points < 2 => {
                    return Err(Error::config("grid search needs at least 2 points per hyperparameter"))
                }
                MethodSpec::Bo { initial } if *initial == 0 => {
                    return Err(Error::config("Bayesian optimisation needs at least 1 initial point"))
                }
                MethodSpec::IterDiff { steps } if *steps == 0 => {
                    return Err(Error::config("iterative differentiation needs at least 1 step"))
                }
                _ => {}
            }
        }
        if let HoagData::Simulate { n, d, .. } = self.data {
            if n < 9 || d == 0 {
                return Err(Error::config("simulate: need n >= 9 (three splits) and d >= 1"));
            }
            if n > 20_000 || d > 2000 {
                return Err(Error::config("simulate: n must be <= 20000 and d <= 2000"));
            }
        }
        Ok(())
    }
}

/// One point of a method's trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TracePoint {
    /// Outer iteration / evaluation number (1-based).
    pub iter: usize,
    /// Wall-clock seconds since the method started.
    pub seconds: f64,
    /// Cost units spent so far (deterministic clock).
    pub cost: u64,
    /// Inner-solver iterations so far.
    pub inner_iters: usize,
    /// Hyperparameters evaluated at this step.
    pub hyper: Vec<f64>,
    /// Outer loss at `hyper` (for HOAG / iterative differentiation: at the approximate inner solution).
    pub outer_loss: f64,
    /// The method's current recommendation: the iterate (gradient methods) or the incumbent (search).
    pub best_hyper: Vec<f64>,
    /// Outer loss of the recommendation.
    pub best_outer_loss: f64,
    /// Validation loss of the recommendation.
    pub validation_loss: f64,
    /// Tolerance `ε_k` used at this step (HOAG only).
    pub tolerance: Option<f64>,
    /// Norm of the (approximate) hypergradient (gradient methods only).
    pub grad_norm: Option<f64>,
    /// `best_outer_loss - reference_optimum` (filled in at the end; floored at 0).
    pub suboptimality: f64,
}

/// One method's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoagMethodReport {
    pub name: String,
    pub spec: MethodSpec,
    pub trace: Vec<TracePoint>,
    /// Final recommendation.
    pub final_hyper: Vec<f64>,
    /// Outer (test-third) loss at `final_hyper` with the inner problem solved to `blackbox_tol`.
    pub final_loss: f64,
    /// Validation-third loss at `final_hyper` (same solve).
    pub final_validation_loss: f64,
    /// Cost units and seconds spent by the method (final evaluation excluded).
    pub cost: u64,
    pub seconds: f64,
    /// `ε_k` per iteration (HOAG only; empty otherwise).
    pub tolerances: Vec<f64>,
    /// Why it stopped: `budget`, `max-iter`, `grid-done`, `converged`.
    pub stopped: String,
}

/// Outer loss on a grid of hyperparameters (chart data). `values` is row-major over `axes[0] x axes[1]`
/// (the first axis varies slowest); for one hyperparameter it has `axes[0].len()` values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Landscape {
    pub axes: Vec<Vec<f64>>,
    pub values: Vec<f64>,
    pub validation: Vec<f64>,
    pub argmin: Vec<f64>,
    pub min: f64,
}

/// The comparison report (`methods`: one entry per method with `name`, `trace`, `final_loss`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoagReport {
    pub problem: ProblemKind,
    pub hyper_names: Vec<String>,
    pub bounds: [f64; 2],
    pub n_train: usize,
    pub n_test: usize,
    pub n_validation: usize,
    pub n_features: usize,
    pub methods: Vec<HoagMethodReport>,
    pub landscape: Option<Landscape>,
    /// Smallest outer loss of an accurate evaluation (landscape, search methods, final evaluations): the
    /// suboptimality reference.
    pub reference_optimum: f64,
    pub seed: u64,
}

/// Progress events (serde, tag `type`, kebab-case), delivered on the calling thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum HoagEvent {
    /// The run starts: method names and problem sizes.
    Started { methods: Vec<String>, hyper_names: Vec<String>, n_train: usize, n_test: usize, n_validation: usize },
    /// The landscape grid was computed.
    Landscape { landscape: Landscape },
    /// A method recorded a trace point.
    Progress { method: usize, name: String, point: TracePoint },
    /// A method finished.
    MethodDone { method: usize, name: String, final_loss: f64, final_hyper: Vec<f64> },
    /// The run finished.
    Done {},
}

fn simulate(problem: ProblemKind, n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng: Rng = stream(seed, 0x484f_4147);
    let x: Vec<f64> = (0..n * d).map(|_| StandardNormal.sample(&mut rng)).collect();
    let y = match problem {
        ProblemKind::Logreg => {
            let w: Vec<f64> = (0..d)
                .map(|_| { let e: f64 = StandardNormal.sample(&mut rng); 3.0 / (d as f64).sqrt() * e })
                .collect();
            (0..n)
                .map(|i| {
                    let t: f64 = x[i * d..(i + 1) * d].iter().zip(&w).map(|(a, b)| a * b).sum();
                    let u: f64 = rng.random();
                    if u < 1.0 / (1.0 + (-t).exp()) { 1.0 } else { 0.0 }
                })
                .collect()
        }
        ProblemKind::KernelRidge => (0..n)
            .map(|i| {
                let s: f64 = x[i * d..(i + 1) * d].iter().map(|a| a.sin()).sum();
                let e: f64 = StandardNormal.sample(&mut rng);
                s + 0.3 * e
            })
            .collect(),
    };
    Dataset::new(x, y, d, None, "y").expect("simulated data have consistent shapes")
}

/// Shuffles (seeded), splits in thirds train / test / validation, standardises with train statistics and
/// builds the problem. Logistic labels must take exactly two values (the smaller becomes -1).
fn build_problem(cfg: &HoagConfig, data: &Dataset) -> Result<Box<dyn Bilevel>> {
    let (n, p) = (data.n, data.p);
    if n < 9 {
        return Err(Error::data(format!("need at least 9 rows to split in thirds, got {n}")));
    }
    if p == 0 || data.x.len() != n * p || data.y.len() != n {
        return Err(Error::data("data shape mismatch: features must be n x p and one target per row"));
    }
    if data.x.iter().chain(&data.y).any(|v| !v.is_finite()) {
        return Err(Error::data("data contain non-finite values"));
    }
    let mut y = data.y.clone();
    if cfg.problem == ProblemKind::Logreg {
        let mut vals: Vec<f64> = y.clone();
        vals.sort_by(|a, b| a.total_cmp(b));
        vals.dedup();
        if vals.len() != 2 {
            return Err(Error::data(format!(
                "logistic regression needs a label with exactly two values, found {}",
                vals.len()
            )));
        }
        y.iter_mut().for_each(|v| *v = if *v == vals[0] { -1.0 } else { 1.0 });
    } else if n / 3 > 4000 {
        return Err(Error::data(format!(
            "kernel ridge stores n x n kernel matrices: use at most 12000 rows, got {n}"
        )));
    }
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = stream(cfg.seed, 0x5350_4c49);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        idx.swap(i, j);
    }
    let (a, b) = (n / 3, 2 * n / 3);
    let take = |ids: &[usize]| Split {
        x: ids.iter().flat_map(|&i| data.x[i * p..(i + 1) * p].iter().copied()).collect(),
        y: ids.iter().map(|&i| y[i]).collect(),
        n: ids.len(),
    };
    let mut train = take(&idx[..a]);
    let mut test = take(&idx[a..b]);
    let mut validation = take(&idx[b..]);
    if cfg.standardize {
        for j in 0..p {
            let mean = (0..train.n).map(|i| train.x[i * p + j]).sum::<f64>() / train.n as f64;
            let var = (0..train.n).map(|i| (train.x[i * p + j] - mean).powi(2)).sum::<f64>() / train.n as f64;
            let sd = if var > 1e-24 { var.sqrt() } else { 1.0 };
            for s in [&mut train, &mut test, &mut validation] {
                for i in 0..s.n {
                    s.x[i * p + j] = (s.x[i * p + j] - mean) / sd;
                }
            }
        }
    }
    Ok(match cfg.problem {
        ProblemKind::Logreg => Box::new(LogisticBilevel::new(p, train, test, validation)),
        ProblemKind::KernelRidge => Box::new(KernelRidgeBilevel::new(p, train, test, validation)),
    })
}

/// Runs the comparison on built-in data (`simulate`, `digits`). For `csv` / `upload` sources use
/// [`run_with_data`].
pub fn run(cfg: &HoagConfig, observer: &mut dyn FnMut(&HoagEvent), cancel: &AtomicBool) -> Result<HoagReport> {
    run_with_data(cfg, None, observer, cancel)
}

/// Runs the comparison; `data` overrides the config's data source (required for `csv` and `upload`).
pub fn run_with_data(
    cfg: &HoagConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    cfg.validate()?;
    run_checked(cfg, data, observer, cancel)
}

/// [`run_with_data`] on a config that was already validated (the experiment contract checks it once).
pub(crate) fn run_checked(
    cfg: &HoagConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    let owned;
    let input = match (data, &cfg.data) {
        (Some(d), _) => d,
        (None, HoagData::Simulate { n, d, seed }) => {
            owned = simulate(cfg.problem, *n, *d, *seed);
            &owned
        }
        (None, HoagData::Digits) => {
            owned = digits_input(cfg.problem)?;
            &owned
        }
        (None, HoagData::Csv { .. }) | (None, HoagData::Upload { .. }) => {
            return Err(Error::config(
                "data source csv/upload needs the data passed in (run_with_data); the CLI and the page do this",
            ))
        }
    };
    let problem = build_problem(cfg, input)?;
    let pr: &dyn Bilevel = problem.as_ref();
    let (n_train, n_test, n_validation, n_features) = methods::sizes(cfg, input);
    let names: Vec<String> = cfg.methods.iter().map(|m| m.name()).collect();
    observer(&HoagEvent::Started {
        methods: names.clone(),
        hyper_names: pr.hyper_names(),
        n_train,
        n_test,
        n_validation,
    });
    let landscape = if cfg.landscape_points >= 2 {
        let l = methods::landscape(pr, cfg)?;
        observer(&HoagEvent::Landscape { landscape: l.clone() });
        Some(l)
    } else {
        None
    };
    let mut reports = Vec::with_capacity(cfg.methods.len());
    for (mi, spec) in cfg.methods.iter().enumerate() {
        let name = names[mi].clone();
        let mut emit = |pt: &TracePoint| {
            observer(&HoagEvent::Progress { method: mi, name: name.clone(), point: pt.clone() });
        };
        let rep = methods::run_method(pr, cfg, spec, mi as u64, &mut emit, cancel)?;
        observer(&HoagEvent::MethodDone {
            method: mi,
            name: rep.name.clone(),
            final_loss: rep.final_loss,
            final_hyper: rep.final_hyper.clone(),
        });
        reports.push(rep);
    }
    // Reference optimum from evaluations with the inner problem solved to `blackbox_tol` only (landscape,
    // search methods, final evaluations): approximate losses of HOAG iterates may dip below the true minimum.
    let mut reference = landscape.as_ref().map_or(f64::INFINITY, |l| l.min);
    for r in &reports {
        reference = reference.min(r.final_loss);
        if !matches!(r.spec, MethodSpec::Hoag { .. } | MethodSpec::IterDiff { .. }) {
            for t in &r.trace {
                reference = reference.min(t.best_outer_loss);
            }
        }
    }
    for r in &mut reports {
        for t in &mut r.trace {
            t.suboptimality = (t.best_outer_loss - reference).max(0.0);
        }
    }
    observer(&HoagEvent::Done {});
    Ok(HoagReport {
        problem: cfg.problem,
        hyper_names: pr.hyper_names(),
        bounds: cfg.bounds,
        n_train,
        n_test,
        n_validation,
        n_features,
        methods: reports,
        landscape,
        reference_optimum: reference,
        seed: cfg.seed,
    })
}

/// The digits set for a HOAG problem: `logreg` labels "digit >= 5" as 1; `kernel-ridge` regresses the digit.
fn digits_input(problem: ProblemKind) -> Result<Dataset> {
    let mut ds = crate::data::digits();
    if problem == ProblemKind::Logreg {
        ds.y.iter_mut().for_each(|v| *v = if *v >= 5.0 { 1.0 } else { 0.0 });
    }
    Ok(ds)
}

/// Outer loss `f(x(λ))` with the inner problem solved from zero to relative tolerance `tol_rel`.
pub fn outer_loss_at(pr: &dyn Bilevel, lam: &[f64], tol_rel: f64, max_iter: usize) -> f64 {
    let at = pr.at(lam);
    let n = pr.n_inner();
    let mut g = vec![0.0; n];
    let mut x = vec![0.0; n];
    at.value_grad(&x, &mut g);
    let n0 = solvers::norm(&g).max(1e-300);
    at.solve(&mut x, tol_rel * n0, max_iter);
    at.outer(&x)
}

/// The hypergradient `∇_2 f - (∇²_{12} h)ᵀ (∇²_1 h)^{-1} ∇_1 f` at `λ` (Pedregosa 2016, eq. 2) with the inner
/// problem and the Hessian system solved to relative tolerance `tol_rel`; returns `(outer loss, gradient)`.
pub fn hypergradient(pr: &dyn Bilevel, lam: &[f64], tol_rel: f64, max_iter: usize) -> (f64, Vec<f64>) {
    let at = pr.at(lam);
    let (n, s) = (pr.n_inner(), pr.n_hyper());
    let mut g = vec![0.0; n];
    let mut x = vec![0.0; n];
    at.value_grad(&x, &mut g);
    let n0 = solvers::norm(&g).max(1e-300);
    at.solve(&mut x, tol_rel * n0, max_iter);
    let mut gl = vec![0.0; s];
    let f = at.outer_grad(&x, &mut g, &mut gl);
    let mut q = vec![0.0; n];
    let gn = solvers::norm(&g).max(1e-300);
    conjugate_gradient(|v, out| at.hvp(&x, v, out), &g, &mut q, tol_rel * gn, max_iter);
    let mut cross = vec![0.0; s];
    at.cross_t(&x, &q, &mut cross);
    (f, gl.iter().zip(&cross).map(|(a, b)| a - b).collect())
}

/// The hypergradient of iterative differentiation: outer loss after `steps` of gradient descent from 0 with
/// fixed step `eta` at `λ`, and its exact derivative in `λ` by reverse mode through the iterations.
pub fn iterdiff_hypergradient(pr: &dyn Bilevel, lam: &[f64], eta: f64, steps: usize) -> (f64, Vec<f64>) {
    let at = pr.at(lam);
    let n = pr.n_inner();
    let mut x = vec![0.0; n];
    let mut traj = vec![0.0; steps * n];
    let mut g = vec![0.0; pr.n_hyper()];
    let f = methods::unrolled_hypergradient(at.as_ref(), eta, steps, &mut x, &mut traj, &mut g);
    (f, g)
}

/// Builds the bilevel problem of a config from data (seeded shuffle, thirds, standardisation): for tests,
/// custom drivers and charts.
pub fn problem_from_data(cfg: &HoagConfig, data: &Dataset) -> Result<Box<dyn Bilevel>> {
    cfg.validate()?;
    build_problem(cfg, data)
}

/// The built-in data of a config (`simulate`, `digits`).
pub fn builtin_data(cfg: &HoagConfig) -> Result<Dataset> {
    match &cfg.data {
        HoagData::Simulate { n, d, seed } => Ok(simulate(cfg.problem, *n, *d, *seed)),
        HoagData::Digits => digits_input(cfg.problem),
        _ => Err(Error::config("csv/upload data are not built in")),
    }
}
