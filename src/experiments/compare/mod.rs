//! Side-by-side comparison of tuners on one problem (paper section 3.4 and table 2): MAMBA-KSD, MAMBA-FSSD,
//! grid search scored by test log-loss, grid search scored by KSD, and the h = 1/N heuristic, each evaluated
//! by the KSD of its chosen samples, the relative error of its posterior standard deviations against a long
//! run of an exact (Metropolis-adjusted) sampler, and its test log-loss.

pub mod experiment;
pub use experiment::{CompareConfig, CompareDetail, CompareExperiment, ReferenceProgress, TunerDetail};

use crate::experiments::tune::config::*;
use crate::experiments::tune::driver::drive;
use crate::experiments::tune::kernel::{KsdKernel, RunKernel};
use crate::experiments::tune::metric::{predictive_log_loss, score_vectors, thin_rows};
use crate::experiments::tune::posterior::Posterior;
use crate::experiments::tune::report::{Event, Report};
use crate::error::Result;
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
            return Err(crate::Error::config(format!("the saved reference was made for another {} than this comparison", names.join(", "))));
        }
        Ok(())
    }

    /// The reference if it fits a problem of dimension `dim` (finite means, positive finite sds); a
    /// configuration error otherwise. [`Self::check_key`] is checked apart (before the problem is built).
    pub fn fits(&self, dim: usize) -> Result<&Reference> {
        let r = &self.reference;
        if r.mean.len() != dim || r.std.len() != dim {
            return Err(crate::Error::config(format!("the saved reference has {} means and {} sds for a problem of dimension {dim}", r.mean.len(), r.std.len())));
        }
        if r.mean.iter().any(|v| !v.is_finite()) || r.std.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(crate::Error::config("the saved reference has non-finite means or sds that are not positive and finite"));
        }
        Ok(r)
    }
}

/// How good a tuner's choice is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// KSD (the default run kernel of the problem, full-data gradients) of the chosen arm's samples.
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
    pub calibration: Option<crate::experiments::tune::calibration::Calibration>,
    /// Rating models (PMF): test RMSE of the chosen samples' posterior-mean prediction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_rmse: Option<f64>,
    /// Gradient evaluations of sampling plus scoring.
    pub total_grad_evals: u64,
    /// Grid search (KSD) compute divided by this tuner's compute.
    pub speedup_vs_grid: Option<f64>,
}

/// One tuner of a comparison: its full report plus the evaluation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareEntry {
    pub name: String,
    #[serde(flatten)]
    pub report: Report,
    pub evaluation: Evaluation,
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
#[serde(default, deny_unknown_fields)]
pub struct GridBaseline {
    /// Sd of the Gaussian noise added to the MAP to start each grid point's chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    /// Budget of each grid point (any one unit, as `budget`). `"whole"`-budget runs set it to the comparison's R.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSpec>,
}

impl GridBaseline {
    /// The paper's grid search (App. B.1.2 logistic: "MAP + N(0, 0.2^2)", "5,000 [iterations] for each grid point";
    /// B.2.2 PMF: sigma 1, "2,000 iteration per grid point"; B.3.2 BNN: sigma 1, "1,000 iteration per grid
    /// point"). Other models (not in the paper): sigma 0.1 and the comparison's budget R per point, tunelab's
    /// choice before issue 25. Given fields win.
    pub fn resolve(&self, base: &TuneConfig) -> (f64, BudgetSpec) {
        use crate::model::ModelSpec;
        let (sigma, iters) = match base.model {
            ModelSpec::Logistic { .. } => (0.2, Some(5_000.0)),
            ModelSpec::Pmf { .. } => (1.0, Some(2_000.0)),
            ModelSpec::Bnn { .. } => (1.0, Some(1_000.0)),
            _ => (0.1, None),
        };
        let budget = self.budget.clone().unwrap_or_else(|| match iters {
            Some(k) => BudgetSpec { iterations: Some(k), ..Default::default() },
            None => base.budget.clone(),
        });
        (self.sigma.unwrap_or(sigma), budget)
    }
}

/// The tuners of the paper's comparison, derived from a base config (its data, model, sampler, grid, budget),
/// with the paper's grid (log-loss) baseline.
pub fn paper_tuners(base: &TuneConfig) -> Vec<(String, TuneConfig)> {
    paper_tuners_with(base, &GridBaseline::default())
}

/// [`paper_tuners`] with the grid (log-loss) baseline's start noise and per-point budget given.
pub fn paper_tuners_with(base: &TuneConfig, grid: &GridBaseline) -> Vec<(String, TuneConfig)> {
    let mut out = Vec::new();
    let mut mamba_ksd = base.clone();
    mamba_ksd.tuner = TunerSpec::Mamba { eta: 3, scoring: Scoring::Round };
    // The KSD kernel the base config asks for (`metric.kernel`: "plain" is the paper's, c = 1, beta = -1/2);
    // unset, the project's run kernel. Its other KSD settings take their defaults, as before.
    mamba_ksd.metric = MetricSpec { kind: ksd_kind(ksd_kernel(base)), ..base.metric.clone() };
    out.push(("MAMBA-KSD".to_string(), mamba_ksd.clone()));
    let mut mamba_fssd = mamba_ksd.clone();
    // FSSD-opt (J = 10 and Adam as the paper, app. B.1.3; the locations and width fitted once per round on the
    // pooled samples and shared, and the U-statistic, are tunelab's choices: docs/papers/mamba.md).
    mamba_fssd.metric = MetricSpec { kind: MetricKind::FssdOpt { j: 10, per_arm: false }, ..base.metric.clone() };
    out.push(("MAMBA-FSSD".to_string(), mamba_fssd));
    if base.data.test_fraction > 0.0 {
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
pub fn reference(problem: &Posterior, n_samples: usize, seed: u64, stop: &AtomicBool, progress: &mut dyn FnMut(u64, u64)) -> Result<Reference> {
    let t = Instant::now();
    let mut r = rng::stream(seed, (1 << 40) + 3);
    // Streamed into running moments (the same Welford update, in the same order, as `column_moments` on the
    // stored draws): O(d) memory instead of n_samples x d (8.4 GB for the pmf preset).
    let mut moments = crate::experiments::tune::keep::Moments::new(problem.dim);
    let opts = RefOptions::default();
    let res = reference_sample_observed(problem.train.as_ref(), &problem.map, n_samples, n_samples / 2, 5, &opts, stop, &mut r, &mut |x| moments.push(x), progress)?;
    let std = moments.std();
    Ok(Reference { mean: moments.mean, std, samples: moments.n, accept_rate: res.accept_rate, seconds: t.elapsed().as_secs_f64() })
}

/// The paper's posterior-std error xi = ||sd_hat - sd|| / ||sd|| (section 4.1, Table 1): Euclidean norms over
/// coordinates (the `reference` norm floored at 1e-300).
pub fn xi_error(sd_hat: &[f64], sd: &[f64]) -> f64 {
    let num: f64 = sd_hat.iter().zip(sd).map(|(a, b)| (a - b) * (a - b)).sum();
    let den: f64 = sd.iter().map(|b| b * b).sum();
    num.sqrt() / den.sqrt().max(1e-300)
}

/// Evaluates a report's chosen samples; `kernel` is the comparison's Stein kernel ([`ksd_kernel`]).
pub fn evaluate(problem: &Posterior, report: &Report, reference: Option<&Reference>, seed: u64, kernel: Option<KsdKernel>) -> Result<Evaluation> {
    let total = report.compute.grad_evals + report.compute.scoring_grad_evals;
    let Some(best) = &report.best else {
        return Ok(Evaluation { ksd: None, std_rel_error: None, xi: None, test_log_loss: None, calibration: None, test_rmse: None, total_grad_evals: total, speedup_vs_grid: None });
    };
    let d = problem.dim;
    let x = thin_rows(&best.samples, d, 1000);
    let mut r = rng::stream(seed, (1 << 40) + 4);
    let g = score_vectors(problem.train.as_ref(), &x, None, &mut r);
    // The comparison's kernel (default: the run kernel, Laplace preconditioner at the MAP): the same for every tuner.
    let kernel = RunKernel::for_metric(&ksd_kind(kernel), problem.train.as_ref(), &problem.map)?;
    let ksd = kernel.and_then(|k| k.ksd(&x, &g, d).ok()).map(|v| RunKernel::rank_value(&v));
    let std_rel_error = reference.map(|rf| {
        best.posterior.std.iter().zip(&rf.std).map(|(a, b)| (a - b).abs() / b.abs().max(1e-300)).sum::<f64>() / d as f64
    });
    let xi = reference.map(|rf| xi_error(&best.posterior.std, &rf.std));
    let test_log_loss = problem.test.as_ref().map(|t| predictive_log_loss(t.as_ref(), &x));
    let calibration = problem
        .test
        .as_ref()
        .filter(|t| t.n_classes() >= 2)
        .and_then(|t| crate::experiments::tune::calibration::predictive_calibration(t.as_ref(), &x, crate::experiments::tune::calibration::BINS).ok());
    let test_rmse = problem.test.as_ref().and_then(|t| t.predictive_rmse(&x));
    Ok(Evaluation { ksd, std_rel_error, xi, test_log_loss, calibration, test_rmse, total_grad_evals: total, speedup_vs_grid: None })
}

/// Runs every tuner on the same problem and seed and evaluates them. Every config must have been validated
/// ([`TuneConfig::validate`]); the experiment contract does that once when it checks a comparison. `given` is a
/// reference computed before for the same problem ([`SavedReference::check`]): it is used instead of running
/// MALA for `reference_samples` draws.
pub fn compare(
    tuners: &[(String, TuneConfig)],
    problem: &Posterior,
    reference_samples: usize,
    given: Option<Reference>,
    observer: &mut dyn FnMut(&str, &Event),
    cancel: &AtomicBool,
) -> Result<Comparison> {
    compare_observed(tuners, problem, reference_samples, given, observer, &mut |_, _| {}, cancel)
}

/// [`compare`] with the reference phase's progress: `on_reference(done, total)` in MALA iterations while the
/// exact reference runs (not called when it is given or skipped).
pub fn compare_observed(
    tuners: &[(String, TuneConfig)],
    problem: &Posterior,
    reference_samples: usize,
    given: Option<Reference>,
    observer: &mut dyn FnMut(&str, &Event),
    on_reference: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<Comparison> {
    let seed = tuners.first().map(|t| t.1.seed).unwrap_or(0);
    // Every tuner of a comparison derives from one base config: the first KSD tuner's kernel is the comparison's.
    let kernel = tuners.iter().find_map(|t| match &t.1.metric.kind {
        MetricKind::Ksd { kernel, .. } => Some(*kernel),
        _ => None,
    }).flatten();
    let reference = match given {
        Some(r) => Some(r),
        None if reference_samples > 0 => Some(reference(problem, reference_samples, seed, cancel, on_reference)?),
        None => None,
    };
    let mut entries = Vec::new();
    for (name, cfg) in tuners {
        let report = drive(cfg, problem, &mut |e| observer(name, e), cancel)?;
        let evaluation = evaluate(problem, &report, reference.as_ref(), cfg.seed, kernel)?;
        entries.push(CompareEntry { name: name.clone(), report, evaluation });
    }
    let grid = entries.iter().find(|e| e.name == "grid (KSD)").map(|e| e.evaluation.total_grad_evals as f64);
    if let Some(g) = grid {
        for e in entries.iter_mut() {
            e.evaluation.speedup_vs_grid = Some(g / (e.evaluation.total_grad_evals.max(1) as f64));
        }
    }
    Ok(Comparison { reference, entries })
}
