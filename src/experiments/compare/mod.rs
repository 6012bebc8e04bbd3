//! Side-by-side comparison of tuners on one problem (paper section 3.4 and table 2): MAMBA-KSD, MAMBA-FSSD,
//! grid search scored by test log-loss, grid search scored by KSD, and the h = 1/N heuristic, each evaluated
//! by the KSD of its chosen samples, the relative error of its posterior standard deviations against a long
//! run of an exact (Metropolis-adjusted) sampler, and its test log-loss.

pub mod experiment;
pub mod text;
pub use experiment::{
    CompareConfig, CompareDetail, CompareExperiment, EvaluationProgress, ReferenceProgress, TunerDetail,
};

use crate::error::Result;
use crate::experiments::executor::{state_value, Rounds};
use crate::experiments::sgmcmc::config::*;
use crate::experiments::sgmcmc::metric::{predictive_log_loss, score_vectors, thin_rows};
use crate::experiments::sgmcmc::posterior::Posterior;
use crate::experiments::sgmcmc::report::{Event, Report};
use crate::experiments::sgmcmc::run_kernel::{KsdKernel, KsdSettings, RunKernel};
use crate::experiments::sgmcmc::samples::Moments;
use crate::experiments::sgmcmc::tuning::{run_tuning, TuningState};
use crate::rng;
use crate::sampler::{reference_sample_observed, BatchSize, RefOptions};
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use web_time::Instant;

/// Ground truth from the exact sampler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
    pub samples: usize,
    pub accept_rate: f64,
    pub seconds: f64,
}

/// What an exact reference depends on: the data (source and preparation), the model, the seed (data split,
/// MAP and the reference's own stream) and the number of reference draws; not the sampler, grid or tuners. The
/// six samplers of the paper's Table 1 share one reference per (data, seed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceKey {
    pub data: DataSpec,
    pub model: crate::model::ModelSpec,
    pub seed: u64,
    pub samples: usize,
}

/// An exact reference saved for reuse, with the key of the comparison it was computed for. Given to a
/// comparison (`experiment::Inputs::reference`), it replaces the MALA run; the report is then the same as with
/// the reference recomputed (its `seconds` are those of the run that computed it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedReference {
    pub key: ReferenceKey,
    pub reference: Reference,
}

impl SavedReference {
    /// Parses a saved reference (JSON), turning serde's messages into configuration errors.
    pub fn from_json(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| crate::Error::config(format!("saved reference: {e}")))
    }

    /// Ok if this reference was made for `key`; a configuration error naming what differs otherwise.
    pub fn check_key(&self, key: &ReferenceKey) -> Result<()> {
        let k = &self.key;
        let differs = [
            (k.data != key.data, "data"),
            (k.model != key.model, "model"),
            (k.seed != key.seed, "seed"),
            (k.samples != key.samples, "reference_samples"),
        ];
        let names: Vec<&str> = differs.iter().filter(|d| d.0).map(|d| d.1).collect();
        if !names.is_empty() {
            return Err(crate::Error::config(format!(
                "the saved reference was made for another {} than this comparison",
                names.join(", ")
            )));
        }
        Ok(())
    }

    /// The reference if it fits a problem of dimension `dim` (finite means, positive finite sds); a
    /// configuration error otherwise. [`Self::check_key`] is checked apart (before the problem is built).
    pub fn fits(&self, dim: usize) -> Result<&Reference> {
        let r = &self.reference;
        if r.mean.len() != dim || r.std.len() != dim {
            return Err(crate::Error::config(format!(
                "the saved reference has {} means and {} sds for a problem of dimension {dim}",
                r.mean.len(),
                r.std.len()
            )));
        }
        if r.mean.iter().any(|v| !v.is_finite()) || r.std.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(crate::Error::config(
                "the saved reference has non-finite means or sds that are not positive and finite",
            ));
        }
        Ok(r)
    }
}

/// How good a tuner's choice is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// KSD (the comparison's kernel, [`ksd_kernel`]: the run kernel unless the base config asks for another;
    /// full-data gradients) of the evaluated samples.
    pub ksd: Option<f64>,
    /// Mean over coordinates of |std - std_ref| / std_ref.
    pub std_rel_error: Option<f64>,
    /// The paper's error (Coullon, South & Nemeth 2023, section 4.1, Table 1 / Figure 3):
    /// xi = ||sd_hat - sd|| / ||sd||, Euclidean norms over coordinates, sd from the exact reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xi: Option<f64>,
    /// Posterior-predictive test log-loss of the chosen samples.
    pub test_log_loss: Option<f64>,
    /// Classifiers: ECE, MCE and accuracy of the chosen samples' predictive on the test split (10 bins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::experiments::sgmcmc::calibration::Calibration>,
    /// Rating models (PMF): test RMSE of the chosen samples' posterior-mean prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_rmse: Option<f64>,
    /// Gradient evaluations of sampling plus scoring.
    pub total_grad_evals: u64,
    /// Grid search (KSD) compute divided by this tuner's compute (tunelab's comparison: the same metric as
    /// MAMBA-KSD on the same grid).
    pub speedup_vs_grid: Option<f64>,
    /// Grid search (log-loss) compute divided by this tuner's compute: the paper's speed-up (Coullon, South &
    /// Nemeth 2023, Sec. 4.1-4.2 measure MAMBA against grid search by log-loss). Below 1 where that grid is
    /// cheaper than the tuner; absent when the comparison runs no grid (log-loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup_vs_grid_log_loss: Option<f64>,
    /// The evaluation run (`evaluation: {"kind": "fresh-from-map"}`, the default): a fresh chain of the chosen
    /// hyper-parameters from the MAP; absent when the tuning chain is evaluated (`"tuning-chain"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_run: Option<FreshRun>,
}

impl Evaluation {
    /// An evaluation without metrics (the run chose no arm, or its evaluation chain diverged or kept no
    /// sample): only the compute.
    fn unscored(total_grad_evals: u64) -> Evaluation {
        Evaluation {
            ksd: None,
            std_rel_error: None,
            xi: None,
            test_log_loss: None,
            calibration: None,
            test_rmse: None,
            total_grad_evals,
            speedup_vs_grid: None,
            speedup_vs_grid_log_loss: None,
            fresh_run: None,
        }
    }
}

/// What the fresh evaluation chain did ([`fresh_chain`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FreshRun {
    /// The budget it ran for, in the comparison's unit (burn-in included).
    pub budget: BudgetSpec,
    /// Iterations run, burn-in included.
    pub iters: u64,
    /// Gradient evaluations (data points touched), burn-in included; not counted in `total_grad_evals` (the
    /// tuning cost).
    pub grad_evals: u64,
    /// Iterations removed as burn-in (their samples are not used).
    pub burn_in_iters: u64,
    /// Samples after the burn-in (every `thin`-th iteration): the moments (std error, xi) use all of them.
    pub samples: usize,
    /// Samples the KSD, log-loss and calibration use (evenly thinned from `samples`, memory-bounded).
    pub scored_samples: usize,
    /// The iteration at which the chain diverged (then no evaluation metric is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diverged_iter: Option<u64>,
    pub seconds: f64,
}

/// One tuner of a comparison: its full report plus the evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareEntry {
    pub name: String,
    #[serde(flatten)]
    pub report: Report,
    pub evaluation: Evaluation,
}

/// A comparison between two rounds (see [`crate::experiments::executor`]): the reference, the tuners run and
/// evaluated so far (as their report entries: a `null` number reads back as NaN, as in a report) and the state of
/// the tuner under way.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CompareState {
    pub reference: Option<Reference>,
    pub entries: Vec<serde_json::Value>,
    pub tuning: Option<TuningState>,
}

/// The comparison report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub reference: Option<Reference>,
    pub entries: Vec<CompareEntry>,
}

/// The grid (log-loss) baseline's start and per-point budget (MAMBA paper, App. B). Unset fields take the
/// paper's values for the model ([`GridBaseline::resolve`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct GridBaseline {
    /// Sd of the Gaussian noise added to the MAP to start each grid point's chain (default 0.2 logistic, 1 PMF and
    /// BNN, 0.1 other models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// Budget of each grid point (any one unit, as `budget`; default `{"iterations": 5000}` logistic, 2000 PMF,
    /// 1000 BNN, the comparison's `budget` for other models). `"whole"`-budget runs set it to the comparison's R.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSpec>,
}

impl GridBaseline {
    /// The paper's grid search (App. B.1.2 logistic: "MAP + N(0, 0.2^2)", "5,000 [iterations] for each grid point";
    /// B.2.2 PMF: sigma 1, "2,000 iteration per grid point"; B.3.2 BNN: sigma 1, "1,000 iteration per grid
    /// point"). Other models (not in the paper): sigma 0.1 and the comparison's budget R per point, tunelab's
    /// choice. Given fields win.
    pub fn resolve(&self, base: &TuneConfig) -> (f64, BudgetSpec) {
        use crate::model::ModelSpec;
        let (sigma, iters) = match base.model {
            ModelSpec::Logistic { .. } => (0.2, Some(5_000.0)),
            ModelSpec::Pmf { .. } => (1.0, Some(2_000.0)),
            ModelSpec::Bnn { .. } => (1.0, Some(1_000.0)),
            _ => (0.1, None),
        };
        let budget = self.budget.unwrap_or_else(|| match iters {
            Some(k) => BudgetSpec { iterations: Some(k), ..Default::default() },
            None => base.budget,
        });
        (self.sigma.unwrap_or(sigma), budget)
    }
}

/// How `compare` evaluates each tuner's chosen hyper-parameters (`evaluation` in the config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum EvaluationSpec {
    /// As the paper (sec. 4.1 "We tested each sampler by running each sampler for 10 s"; 4.2 "We run each SGMCMC
    /// sampler for 20 s, and estimate the standard deviation after removing the burn-in"; 4.3 "run the samplers
    /// for 300 s starting from the maximum aposteriori value. We then remove the visible burn-in"; 3.4.1 "we
    /// always start the sampler from the [MAP]"): the chosen hyper-parameters run again in a fresh chain from the
    /// MAP on its own random stream, the first `burn_in` share of the budget removed. Unset fields take the
    /// paper's values for the model ([`EvaluationSpec::resolve`]).
    FreshFromMap {
        /// The evaluation chain's budget (any one unit, as `budget`, burn-in included; default: the paper's
        /// evaluation time over its tuning time R, times the comparison's `budget`: 10 R logistic, 2 R PMF, 30 R
        /// BNN, 10 R other models).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<BudgetSpec>,
        /// Share of the budget run as burn-in and removed, in [0, 1) (default 0 logistic, 0.1 otherwise).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        burn_in: Option<f64>,
    },
    /// The chosen arm's tuning chain (the report's samples, the arm's running moments), without an extra run;
    /// not the paper's protocol.
    TuningChain,
}

impl Default for EvaluationSpec {
    fn default() -> Self {
        EvaluationSpec::FreshFromMap { budget: None, burn_in: None }
    }
}

/// A resolved fresh evaluation run: its budget (burn-in included) and the burn-in share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreshPlan {
    pub budget: BudgetSpec,
    pub burn_in: f64,
}

impl EvaluationSpec {
    /// The paper's evaluation length over its tuning budget R, and the burn-in share, by model. The paper tunes
    /// for R = 1 s (logistic, sec. 4.1) or 10 s (PMF, BNN, App. B.2.3 / B.3.3) and evaluates for 10 s, 20 s
    /// and 300 s: 10 R, 2 R and 30 R. tunelab's budgets are gradient evaluations (or iterations): the
    /// evaluation gets that multiple of the comparison's R in R's own unit (equal time = equal gradient
    /// evaluations at a fixed cost per data point, the same conversion as R itself, docs/papers/mamba.md).
    /// Burn-in: sec. 4.1 removes none; 4.2 / 4.3 remove "the (visible) burn-in", whose length **the text does
    /// not contain**: tunelab removes the first 10% of the budget. Models the paper does not run: 10 R and
    /// 10% (tunelab's choice).
    pub fn paper_defaults(model: &crate::model::ModelSpec) -> (f64, f64) {
        use crate::model::ModelSpec;
        match model {
            ModelSpec::Logistic { .. } => (10.0, 0.0),
            ModelSpec::Pmf { .. } => (2.0, 0.1),
            ModelSpec::Bnn { .. } => (30.0, 0.1),
            _ => (10.0, 0.1),
        }
    }

    /// The fresh run for the comparison `base` (`None`: evaluate the tuning chain). Given fields win.
    pub fn resolve(&self, base: &TuneConfig) -> Option<FreshPlan> {
        match self {
            EvaluationSpec::TuningChain => None,
            EvaluationSpec::FreshFromMap { budget, burn_in } => {
                let (times, burn) = Self::paper_defaults(&base.model);
                let scaled = |v: Option<f64>| v.map(|x| x * times);
                let b = base.budget;
                let budget = budget.unwrap_or(BudgetSpec {
                    grad_evals: scaled(b.grad_evals),
                    seconds: scaled(b.seconds),
                    iterations: scaled(b.iterations),
                });
                Some(FreshPlan { budget, burn_in: burn_in.unwrap_or(burn) })
            }
        }
    }

    /// Checks the given fields (one budget unit, positive; burn-in share in [0, 1)).
    pub fn validate(&self) -> Result<()> {
        if let EvaluationSpec::FreshFromMap { budget, burn_in } = self {
            if let Some(b) = budget {
                b.unit_amount().map_err(|e| crate::Error::config(format!("evaluation: {e}")))?;
            }
            if let Some(f) = burn_in {
                if !(f.is_finite() && (0.0..1.0).contains(f)) {
                    return Err(crate::Error::config(format!(
                        "`evaluation.burn_in`: a share of the budget in [0, 1), got {f}"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Stream id of the fresh evaluation chains: one stream per (seed, this id), the same for every tuner, so two
/// tuners that choose the same hyper-parameters get the same evaluation chain, and it shares no draws with any
/// tuning chain (arm ids are below 2^40) or the MAP, split, reference and score streams.
pub const STREAM_EVAL: u64 = (1 << 40) + 8;

/// The fresh evaluation chain of a chosen arm: its record, its scored samples (evenly thinned, at most 2 K rows
/// of `d`, K as a report's samples, [`crate::experiments::sgmcmc::samples::chain_cap`]) and the running moments of
/// every sample after the burn-in. The chain starts at `problem.map` with `cfg`'s sampler, the chosen step,
/// batch and leapfrog steps, keeps every `cfg.thin`-th iteration, and draws from `rng::stream(cfg.seed,
/// STREAM_EVAL)`.
pub fn fresh_chain(
    problem: &Posterior,
    cfg: &TuneConfig,
    best: &crate::experiments::sgmcmc::report::Best,
    plan: &FreshPlan,
    cancel: &AtomicBool,
) -> Result<(FreshRun, Vec<f64>, Moments)> {
    fresh_chain_observed(problem, cfg, best, plan, &mut |_, _, _| {}, cancel)
}

/// [`fresh_chain`], telling `on_progress(done, total, unit)` how far the chain is in the plan's budget unit
/// (burn-in included): at its start and each time it passes another percent (a seconds budget: by time, so
/// the number of calls may vary; the chain does not depend on them).
pub fn fresh_chain_observed(
    problem: &Posterior,
    cfg: &TuneConfig,
    best: &crate::experiments::sgmcmc::report::Best,
    plan: &FreshPlan,
    on_progress: &mut dyn FnMut(f64, f64, &'static str),
    cancel: &AtomicBool,
) -> Result<(FreshRun, Vec<f64>, Moments)> {
    use crate::experiments::sgmcmc::samples::{chain_cap, sub_iters, StrideBuffer};
    use crate::sampler::{Budget, Chain, Discard, SamplerParams, Sink};
    let t = Instant::now();
    let d = problem.dim;
    let target = problem.train.as_ref();
    let params = SamplerParams {
        kind: cfg.sampler.kind,
        step: best.step,
        batch: BatchSize::Count(best.batch),
        leapfrog: best.leapfrog,
        friction: cfg.sampler.friction,
        thermostat_a: cfg.sampler.thermostat_a,
        with_replacement: cfg.sampler.with_replacement,
    }
    .validate(problem.n_data)?;
    let cv = cfg.sampler.kind.is_cv().then(|| problem.cv.clone());
    let mut chain = Chain::new(target, params, problem.map.clone(), cv, rng::stream(cfg.seed, STREAM_EVAL))?;
    let (unit, amount) = plan.budget.unit_amount()?;
    let burn = amount * plan.burn_in;
    let unit_name = match unit {
        BudgetUnit::GradEvals => "gradient evaluations",
        BudgetUnit::Iterations => "iterations",
        BudgetUnit::Seconds => "seconds",
    };
    on_progress(0.0, amount, unit_name);
    let mut next_percent = 1u32;
    // After each slice: the chain's position in the budget's unit, reported when it passes another percent.
    let mut tell = |chain: &Chain| {
        let done = match unit {
            BudgetUnit::GradEvals => chain.grad_evals() as f64,
            BudgetUnit::Iterations => chain.iters() as f64,
            BudgetUnit::Seconds => t.elapsed().as_secs_f64(),
        }
        .min(amount);
        let percent = if amount > 0.0 { (100.0 * done / amount).floor() as u32 } else { 100 };
        if percent >= next_percent {
            next_percent = percent + 1;
            on_progress(done, amount, unit_name);
        }
    };
    let per_iter = chain.params().grad_evals_per_iter();
    let sub = sub_iters(d, cfg.thin);
    let mut buf = StrideBuffer::new(d, chain_cap(d, 0, crate::experiments::sgmcmc::tuning::REPORT_SAMPLES, 1));
    let mut moments = Moments::new(d);
    // Runs `amount` of the unit in slices (as the driver: the same chain as one call), samples into `keep`.
    let run = |chain: &mut Chain, amount: f64, keep: &mut dyn Sink, tell: &mut dyn FnMut(&Chain)| -> Result<()> {
        let mut left = match unit {
            BudgetUnit::GradEvals => Budget::GradEvals(amount.round() as u64),
            BudgetUnit::Iterations => Budget::Iterations(amount.round() as u64),
            BudgetUnit::Seconds => Budget::Seconds(amount),
        };
        loop {
            let slice = match left {
                Budget::GradEvals(0) | Budget::Iterations(0) => break,
                Budget::GradEvals(g) => Budget::GradEvals(g.min(sub * per_iter)),
                Budget::Iterations(k) => Budget::Iterations(k.min(sub)),
                Budget::Seconds(s) if s <= 0.0 => break,
                Budget::Seconds(s) => Budget::Seconds(s.min(0.05)),
            };
            let stats = chain.run(target, slice, cfg.thin, keep, cancel);
            tell(chain);
            if stats.cancelled || cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(crate::Error::Cancelled);
            }
            if stats.iters == 0 || chain.status().is_diverged() {
                break;
            }
            left = match left {
                Budget::GradEvals(g) => Budget::GradEvals(g.saturating_sub(stats.grad_evals)),
                Budget::Iterations(k) => Budget::Iterations(k.saturating_sub(stats.iters)),
                Budget::Seconds(s) => Budget::Seconds(s - stats.seconds),
            };
        }
        Ok(())
    };
    run(&mut chain, burn, &mut Discard, &mut tell)?;
    let burn_in_iters = chain.iters();
    let burn_evals = chain.grad_evals();
    let rest = match unit {
        // the whole budget, whatever the burn-in's last iteration overshot
        BudgetUnit::GradEvals => amount.round() - burn_evals as f64,
        BudgetUnit::Iterations => amount.round() - burn_in_iters as f64,
        BudgetUnit::Seconds => amount - t.elapsed().as_secs_f64(),
    };
    if !chain.status().is_diverged() && rest > 0.0 {
        run(&mut chain, rest, &mut (&mut moments, &mut buf), &mut tell)?;
    }
    let diverged_iter = match chain.status() {
        crate::sampler::ChainStatus::Diverged { iter } => Some(iter),
        _ => None,
    };
    let x = thin_rows(&buf.rows, d, EVAL_ROWS);
    let record = FreshRun {
        budget: plan.budget,
        iters: chain.iters(),
        grad_evals: chain.grad_evals(),
        burn_in_iters,
        samples: moments.n,
        scored_samples: x.len() / d.max(1),
        diverged_iter,
        seconds: t.elapsed().as_secs_f64(),
    };
    Ok((record, x, moments))
}

/// At most this many samples enter the evaluation's KSD, log-loss and calibration.
pub const EVAL_ROWS: usize = 1000;

/// The tuners of the paper's comparison, derived from a base config (its data, model, sampler, grid, budget),
/// with the paper's grid (log-loss) baseline.
pub fn paper_tuners(base: &TuneConfig) -> Vec<(String, TuneConfig)> {
    paper_tuners_with(base, &GridBaseline::default())
}

/// [`paper_tuners`] with the grid (log-loss) baseline's start noise and per-point budget given.
pub fn paper_tuners_with(base: &TuneConfig, grid: &GridBaseline) -> Vec<(String, TuneConfig)> {
    let mut out = Vec::new();
    let mut mamba_ksd = base.clone();
    mamba_ksd.tuner = TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round };
    // The KSD kernel the base config asks for (`metric.kernel`: "plain" is the paper's, c = 1, beta = -1/2);
    // unset, the project's run kernel. Its other KSD settings take their defaults, as before.
    mamba_ksd.metric = MetricSpec { kind: ksd_kind(ksd_kernel(base)), ..base.metric.clone() };
    out.push(("MAMBA-KSD".to_string(), mamba_ksd.clone()));
    let mut mamba_fssd = mamba_ksd.clone();
    // FSSD-opt (J = 10 and Adam as the paper, app. B.1.3; the locations and width fitted once per round on the
    // pooled samples and shared, and the U-statistic, are tunelab's choices: docs/papers/mamba.md).
    mamba_fssd.metric = MetricSpec { kind: MetricKind::FssdOpt { j: 10, per_arm: false }, ..base.metric.clone() };
    out.push(("MAMBA-FSSD".to_string(), mamba_fssd));
    // Only a model with data has held-out predictions to score (the config check refuses log-loss otherwise).
    if base.data.test_fraction > 0.0 && base.model.needs_data() {
        // Paper section 3.4: batch fixed at 10%, chains started at the MAP plus noise, scored by test log-loss;
        // App. B: the noise's sd and the iterations per grid point by model (`GridBaseline::resolve`).
        let (sigma, budget) = grid.resolve(base);
        let mut grid_ll = base.clone();
        grid_ll.tuner = TunerSpec::Grid;
        grid_ll.arms.batch = vec![BatchSize::Fraction(0.1)];
        grid_ll.start = StartSpec::MapNoise(sigma);
        grid_ll.budget = budget;
        grid_ll.metric = MetricSpec { kind: MetricKind::LogLoss, ..base.metric.clone() };
        out.push(("grid (log-loss)".to_string(), grid_ll));
    }
    let mut grid_ksd = mamba_ksd.clone();
    grid_ksd.tuner = TunerSpec::Grid;
    out.push(("grid (KSD)".to_string(), grid_ksd));
    let mut heur = mamba_ksd;
    heur.tuner = TunerSpec::Heuristic;
    out.push(("heuristic".to_string(), heur));
    out
}

/// The Stein kernel a comparison uses for MAMBA-KSD, grid (KSD) and every evaluation: the base config's
/// `metric.kernel` when its metric is a KSD (`None`: the run kernel, the default).
pub fn ksd_kernel(base: &TuneConfig) -> Option<KsdKernel> {
    match &base.metric.kind {
        MetricKind::Ksd { kernel, .. } => *kernel,
        _ => None,
    }
}

fn ksd_kind(kernel: Option<KsdKernel>) -> MetricKind {
    MetricKind::Ksd { kernel, scale: None, estimator: None, c: None, beta: None, moment: None }
}

/// Long run of the exact reference sampler (MALA with adapted step) from the MAP; `stop` ends it early
/// (`Error::Cancelled`); `progress(done, total)` in MALA iterations ([`reference_sample_observed`]).
pub fn reference(
    problem: &Posterior,
    n_samples: usize,
    seed: u64,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Reference> {
    let t = Instant::now();
    let mut r = rng::stream(seed, (1 << 40) + 3);
    // Streamed into running moments (the same Welford update, in the same order, as `column_moments` on the
    // stored draws): O(d) memory instead of n_samples x d (8.4 GB for the pmf preset).
    let mut moments = crate::experiments::sgmcmc::samples::Moments::new(problem.dim);
    let opts = RefOptions::default();
    let res = reference_sample_observed(
        problem.train.as_ref(),
        &problem.map,
        n_samples,
        n_samples / 2,
        5,
        &opts,
        stop,
        &mut r,
        &mut |x| moments.push(x),
        progress,
    )?;
    let std = moments.std();
    Ok(Reference {
        mean: moments.mean,
        std,
        samples: moments.n,
        accept_rate: res.accept_rate,
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// The paper's posterior-std error xi = ||sd_hat - sd|| / ||sd|| (section 4.1, Table 1): Euclidean norms over
/// coordinates (the `reference` norm floored at 1e-300).
pub fn xi_error(sd_hat: &[f64], sd: &[f64]) -> f64 {
    let num: f64 = sd_hat.iter().zip(sd).map(|(a, b)| (a - b) * (a - b)).sum();
    let den: f64 = sd.iter().map(|b| b * b).sum();
    num.sqrt() / den.sqrt().max(1e-300)
}

/// Evaluates a report's chosen samples on its tuning chain (`evaluation: {"kind": "tuning-chain"}`); `kernel`
/// is the comparison's Stein kernel ([`ksd_kernel`]).
pub fn evaluate(
    problem: &Posterior,
    report: &Report,
    reference: Option<&Reference>,
    seed: u64,
    kernel: Option<KsdKernel>,
) -> Result<Evaluation> {
    let total = report.compute.grad_evals + report.compute.scoring_grad_evals;
    let Some(best) = &report.best else {
        return Ok(Evaluation::unscored(total));
    };
    let x = thin_rows(&best.samples, problem.dim, EVAL_ROWS);
    score_samples(problem, &x, &best.posterior.std, reference, seed, kernel, total)
}

/// Evaluates a report's choice on a fresh chain from the MAP ([`fresh_chain`]; the default,
/// `evaluation: {"kind": "fresh-from-map"}`): every metric is computed on that chain's samples after the burn-in.
pub fn evaluate_fresh(
    problem: &Posterior,
    report: &Report,
    reference: Option<&Reference>,
    plan: &FreshPlan,
    kernel: Option<KsdKernel>,
    on_progress: &mut dyn FnMut(f64, f64, &'static str),
    cancel: &AtomicBool,
) -> Result<Evaluation> {
    let total = report.compute.grad_evals + report.compute.scoring_grad_evals;
    let cfg = &report.config;
    let Some(best) = &report.best else {
        return Ok(Evaluation::unscored(total));
    };
    let (run, x, moments) = fresh_chain_observed(problem, cfg, best, plan, on_progress, cancel)?;
    let mut e = if run.diverged_iter.is_some() || moments.n == 0 {
        Evaluation::unscored(total)
    } else {
        score_samples(problem, &x, &moments.std(), reference, cfg.seed, kernel, total)?
    };
    e.fresh_run = Some(run);
    Ok(e)
}

/// The evaluation metrics of samples `x` (row-major) whose posterior sds are `std`.
fn score_samples(
    problem: &Posterior,
    x: &[f64],
    std: &[f64],
    reference: Option<&Reference>,
    seed: u64,
    kernel: Option<KsdKernel>,
    total: u64,
) -> Result<Evaluation> {
    let d = problem.dim;
    let mut r = rng::stream(seed, (1 << 40) + 4);
    let g = score_vectors(problem.train.as_ref(), x, None, &mut r);
    // The comparison's kernel (default: the run kernel, Laplace preconditioner at the MAP): the same for every tuner.
    let settings = KsdSettings { kernel, scale: None, estimator: None, c: None, beta: None, moment: None };
    let kernel = RunKernel::for_ksd(&settings, problem.train.as_ref(), &problem.map)?;
    let ksd = kernel.ksd(x, &g, d).ok().map(|v| RunKernel::rank_value(&v));
    let std_rel_error = reference
        .map(|rf| std.iter().zip(&rf.std).map(|(a, b)| (a - b).abs() / b.abs().max(1e-300)).sum::<f64>() / d as f64);
    let xi = reference.map(|rf| xi_error(std, &rf.std));
    let test_log_loss = problem.test.as_ref().map(|t| predictive_log_loss(t.as_ref(), x));
    let calibration = problem.test.as_ref().filter(|t| t.n_classes() >= 2).and_then(|t| {
        crate::experiments::sgmcmc::calibration::predictive_calibration(
            t.as_ref(),
            x,
            crate::experiments::sgmcmc::calibration::BINS,
        )
        .ok()
    });
    let test_rmse = problem.test.as_ref().and_then(|t| t.predictive_rmse(x));
    Ok(Evaluation {
        ksd,
        std_rel_error,
        xi,
        test_log_loss,
        calibration,
        test_rmse,
        total_grad_evals: total,
        speedup_vs_grid: None,
        speedup_vs_grid_log_loss: None,
        fresh_run: None,
    })
}

/// Runs every tuner on the same problem and seed and evaluates them: on a fresh chain from the MAP when
/// `evaluation` is given (the comparison's [`EvaluationSpec::resolve`] on its base config, the same plan for
/// every tuner), else on the chosen arm's tuning chain. Every config must have been validated
/// ([`TuneConfig::validate`]); the experiment contract does that once when it checks a comparison. `given` is a
/// reference computed before for the same problem ([`SavedReference::check`]): it is used instead of running
/// MALA for `reference_samples` draws.
/// `on_reference(done, total)` reports the reference phase's progress in MALA iterations while the exact
/// reference runs (not called when it is given or skipped; `&mut |_, _| {}` to ignore it);
/// `on_evaluation(tuner, done, total, unit)` each fresh evaluation chain's ([`fresh_chain_observed`]).
/// `rounds` resumes a [`CompareState`] and saves one after every round of every tuner and after each tuner's
/// evaluation ([`Rounds::default`]: neither).
#[allow(clippy::too_many_arguments)]
pub fn compare(
    tuners: &[(String, TuneConfig)],
    problem: &Posterior,
    reference_samples: usize,
    given: Option<Reference>,
    evaluation: Option<FreshPlan>,
    observer: &mut dyn FnMut(&str, &Event),
    on_reference: &mut dyn FnMut(u64, u64),
    on_evaluation: &mut dyn FnMut(&str, f64, f64, &'static str),
    cancel: &AtomicBool,
    mut rounds: Rounds,
) -> Result<Comparison> {
    let resume: Option<CompareState> = rounds.take_resume()?;
    let mut save = rounds.checkpoint;
    let seed = tuners.first().map(|t| t.1.seed).unwrap_or(0);
    // Every tuner of a comparison derives from one base config: the first KSD tuner's kernel is the comparison's.
    let kernel = tuners
        .iter()
        .find_map(|t| match &t.1.metric.kind {
            MetricKind::Ksd { kernel, .. } => Some(*kernel),
            _ => None,
        })
        .flatten();
    let (saved_reference, mut entries, mut tuning) = match resume {
        Some(state) => {
            let entries = state
                .entries
                .iter()
                .map(crate::report_file::result_from_value::<CompareEntry>)
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|e| crate::Error::config(format!("the checkpoint's comparison entries: {e}")))?;
            if entries.len() > tuners.len() || entries.iter().zip(tuners).any(|(e, t)| e.name != t.0) {
                return Err(crate::Error::config("the checkpoint's tuners are not this comparison's"));
            }
            (state.reference, entries, state.tuning)
        }
        None => (None, Vec::new(), None),
    };
    let reference = match (given, saved_reference) {
        (Some(r), _) => Some(r),
        (None, Some(r)) => Some(r),
        (None, None) if reference_samples > 0 => {
            Some(reference(problem, reference_samples, seed, cancel, on_reference)?)
        }
        (None, None) => None,
    };
    // Rounds done over all tuners, counted as the checkpoints are written.
    let mut done: usize = entries.iter().map(|e| e.report.rounds.len()).sum();
    let first = entries.len();
    for (name, cfg) in &tuners[first..] {
        let resume = tuning.take();
        let before = done;
        let entry_values: Vec<serde_json::Value> = entries.iter().map(state_value).collect::<Result<Vec<_>>>()?;
        let mut on_round = |k: usize, state: serde_json::Value| -> Result<()> {
            done = before + k;
            match save.as_mut() {
                Some(f) => f(
                    done,
                    state_value(&CompareState {
                        reference: reference.clone(),
                        entries: entry_values.clone(),
                        tuning: Some(
                            serde_json::from_value(state).map_err(|e| crate::Error::numerical(e.to_string()))?,
                        ),
                    })?,
                ),
                None => Ok(()),
            }
        };
        let report = run_tuning(cfg, problem, &mut |e| observer(name, e), cancel, resume, Some(&mut on_round))?;
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(crate::Error::Cancelled);
        }
        let evaluation = match evaluation {
            None => evaluate(problem, &report, reference.as_ref(), cfg.seed, kernel)?,
            Some(plan) => evaluate_fresh(
                problem,
                &report,
                reference.as_ref(),
                &plan,
                kernel,
                &mut |d, t, u| on_evaluation(name, d, t, u),
                cancel,
            )?,
        };
        entries.push(CompareEntry { name: name.to_string(), report, evaluation });
        // After the last tuner nothing is left to save: a run resumed from its last round evaluates it again.
        if let Some(f) = save.as_mut().filter(|_| entries.len() < tuners.len()) {
            let state = CompareState {
                reference: reference.clone(),
                entries: entries.iter().map(state_value).collect::<Result<Vec<_>>>()?,
                tuning: None,
            };
            f(done, state_value(&state)?)?;
        }
    }
    // Speed-up = a grid search's gradient evaluations (sampling and scoring) / this tuner's, against both grids.
    let cost_of = |name: &str| entries.iter().find(|e| e.name == name).map(|e| e.evaluation.total_grad_evals as f64);
    let (grid_ksd, grid_ll) = (cost_of("grid (KSD)"), cost_of("grid (log-loss)"));
    for e in entries.iter_mut() {
        let own = e.evaluation.total_grad_evals.max(1) as f64;
        e.evaluation.speedup_vs_grid = grid_ksd.map(|g| g / own);
        e.evaluation.speedup_vs_grid_log_loss = grid_ll.map(|g| g / own);
    }
    Ok(Comparison { reference, entries })
}
