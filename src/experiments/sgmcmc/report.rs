//! Events emitted during a run and the final report (both serde, for the CLI's JSON and the page).

use super::arms::Arm;
use super::config::TuneConfig;
use crate::bandit::schedule::RoundPlan;
use serde::{Deserialize, Serialize};

/// The status of an arm at the end of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArmStatus {
    /// Ran every round it was asked to run.
    Survivor,
    /// Pruned after a round (see `pruned_round`).
    Pruned,
    /// Produced NaN/Inf (see `diverged_iter`); scored +inf and pruned first.
    Diverged,
}

/// One arm's progress within a chunk of work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmProgress {
    pub arm: usize,
    pub iters: u64,
    pub grad_evals: u64,
    pub seconds: f64,
    pub samples: usize,
    pub diverged: bool,
}

/// Progress events (tag `type`, kebab-case), emitted on the calling thread only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// The run starts: the arms and the planned schedule.
    Started { tuner: String, arms: Vec<ArmInfo>, schedule: Vec<RoundPlan>, dim: usize, n_data: usize },
    /// A round starts: these arms run (continuing their chains) for `budget` each.
    RoundStarted { round: usize, arms: Vec<usize>, budget: f64 },
    /// A chunk of the round finished: cumulative counters of every arm of the round.
    Progress { round: usize, chunk: usize, chunks: usize, arms: Vec<ArmProgress> },
    /// An arm was scored at the end of a round (`score` is null for +inf: diverged or too few samples).
    ArmScored { round: usize, arm: usize, score: Option<f64>, grad_evals: u64, samples: usize },
    /// Arms pruned after a round.
    Pruned { round: usize, arms: Vec<usize> },
    /// A round finished; these arms go on.
    RoundFinished { round: usize, survivors: Vec<usize> },
    /// The run finished.
    Done { best: Option<usize> },
}

/// An arm's hyperparameters, with the batch resolved to a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmInfo {
    pub id: usize,
    pub step: f64,
    /// Batch size as a count of data points.
    pub batch: usize,
    /// Batch size as a fraction of N.
    pub batch_fraction: f64,
    pub leapfrog: usize,
}

impl ArmInfo {
    pub fn new(arm: &Arm, batch: usize, n_data: usize) -> Self {
        Self {
            id: arm.id,
            step: arm.step,
            batch,
            batch_fraction: batch as f64 / n_data.max(1) as f64,
            leapfrog: arm.leapfrog,
        }
    }
}

/// One arm in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmReport {
    #[serde(flatten)]
    pub info: ArmInfo,
    pub status: ArmStatus,
    /// Round after which the arm was pruned.
    pub pruned_round: Option<usize>,
    /// Iteration at which the chain diverged.
    pub diverged_iter: Option<u64>,
    /// One score per round the arm ran (null = +inf).
    pub scores: Vec<Option<f64>>,
    pub iters: u64,
    pub grad_evals: u64,
    pub seconds: f64,
    /// Kept (thinned) samples over the whole chain.
    pub samples: usize,
    /// A small view of the arm's chain for the page's drill-down (`TuneConfig::arm_draws`; absent when 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draws: Option<ArmDraws>,
}

/// At most `arm_draws` evenly spaced draws of an arm's last round, in the display coordinates (see
/// [`super::samples::DrawKeep`]): deterministic per (seed, arm), whatever the threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmDraws {
    /// The coordinates (0-based): [0, 1] (theta_1, theta_2), [0] when d = 1.
    pub coords: Vec<usize>,
    /// The round the draws come from (the last the arm ran).
    pub round: usize,
    /// Each draw's index among the arm's thinned samples since its chain started (0 = the first kept sample;
    /// the chosen arm's `Best::samples` are a thinning of the same sequence).
    pub index: Vec<u64>,
    /// Row-major: `index.len()` rows of `coords.len()` values. Rows with a non-finite value are left out.
    pub values: Vec<f64>,
}

/// One round in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundReport {
    pub round: usize,
    pub arms: Vec<usize>,
    /// Budget per arm, in the config's unit.
    pub budget: f64,
    pub unit: super::config::BudgetUnit,
    /// FSSD-opt (shared): the locations and width fitted on this round's pooled samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fssd_fit: Option<crate::stein::FssdFit>,
}

/// Posterior summary from the chosen arm's samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PosteriorSummary {
    pub mean: Vec<f64>,
    pub std: Vec<f64>,
    /// Samples the summary used.
    pub n: usize,
}

/// The chosen arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Best {
    pub arm: usize,
    pub step: f64,
    pub batch: usize,
    pub batch_fraction: f64,
    pub leapfrog: usize,
    /// Its last score.
    pub score: f64,
    pub posterior: PosteriorSummary,
    /// Up to 500 evenly spaced samples of its chain (row-major, `dim` columns), for traces and histograms.
    pub samples: Vec<f64>,
    pub dim: usize,
    /// Classifiers with a test set: ECE, MCE (10 equal-width confidence bins) and accuracy of the posterior
    /// predictive of the report's samples (at most 100 averaged) on the held-out split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<super::calibration::Calibration>,
    /// Rating models (PMF) with a test set: RMSE of the posterior-mean prediction of the report's samples
    /// on the held-out ratings (the paper's Table 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_rmse: Option<f64>,
}

/// Compute spent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Compute {
    /// Gradient evaluations (data points touched) by the samplers.
    pub grad_evals: u64,
    /// Gradient evaluations spent on scoring (full-data scores or test-set likelihoods).
    pub scoring_grad_evals: u64,
    /// Gradient evaluations the shared MAP finder used (once per problem).
    pub map_grad_evals: u64,
    /// Seconds of sampling, summed over arms (CPU seconds, not wall time).
    pub seconds: f64,
    /// Seconds spent scoring (wall time of the scoring phases).
    pub scoring_seconds: f64,
    /// Wall-clock seconds of the whole run.
    pub wall_seconds: f64,
    /// Threads in the pool.
    pub threads: usize,
    /// Sample floats held for scoring and the report: the sum over arms of each arm's peak (an upper bound of
    /// what was held at once; bounded independently of the budget, see `sgmcmc::samples`).
    #[serde(default)]
    pub kept_floats_max: usize,
}

/// The report of one tuning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub tuner: String,
    pub metric: String,
    /// The one Stein kernel that scored every arm (KSD metrics): its preconditioner and c.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<super::run_kernel::RunKernel>,
    pub arms: Vec<ArmReport>,
    pub rounds: Vec<RoundReport>,
    pub best: Option<Best>,
    pub compute: Compute,
    pub config: TuneConfig,
}
