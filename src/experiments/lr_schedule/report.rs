//! What a learning-rate schedule run reports: traces, per-method results, the tuner's decisions and bands,
//! and progress events.

use super::{Band, Link, LrProblem, Optimizer};
use serde::{Deserialize, Serialize};

/// One recorded point of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LrTracePoint {
    /// Optimiser steps done.
    pub step: usize,
    /// Trace value (training loss on the evaluation rows).
    pub loss: f64,
    /// Learning rate used for the steps leading to this point.
    pub lr: f64,
}

/// One method (one schedule) and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrMethodReport {
    pub name: String,
    /// `constant`, `exponential-decay` or `dynamic`.
    pub family: String,
    /// Learning rate per interval.
    pub schedule: Vec<f64>,
    /// Trace over optimiser steps, starting at step 0.
    pub trace: Vec<LrTracePoint>,
    /// Trace value at the end.
    pub final_loss: f64,
    /// Loss on the held-out split at the end.
    pub test_loss: f64,
    pub diverged: bool,
    /// Optimiser steps spent: baselines run `repeats` times (best reported), the tuner `Q` runs in parallel.
    pub compute_steps: usize,
    /// Final trace value of every repeat of a baseline (the reported one is the lowest); empty for the tuner.
    #[serde(default)]
    pub repeat_finals: Vec<f64>,
}

/// What the dynamic tuner did at one interval boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Interval about to start (1-based: decisions are made after interval 0).
    pub interval: usize,
    /// Run kept (index among the `Q` runs of the previous interval) and its trace value.
    pub kept_run: usize,
    pub kept_loss: f64,
    /// Rates given to the `Q` copies and their quantile levels `α_i`.
    pub lrs: Vec<f64>,
    pub alphas: Vec<f64>,
    /// One-step band predicted for each copy, and what each copy then reached.
    pub predicted: Vec<Band>,
    pub observed: Vec<f64>,
    /// The model could not be fitted; rates were spread around the kept rate instead.
    pub model_failed: bool,
    /// Failure probability (GP classifier, Sec. 3.2) of each copy's rate, and the threshold `1 - α_i` it had to meet.
    #[serde(default)]
    pub p_fail: Vec<f64>,
    #[serde(default)]
    pub p_fail_threshold: Vec<f64>,
}

/// Dynamic-tuner details (chart data).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DynamicReport {
    pub runs: usize,
    pub link: Link,
    pub decisions: Vec<Decision>,
    /// Every run's trace per interval: `runs_traces[k][i]` is run `i` of interval `k`.
    pub run_traces: Vec<Vec<Vec<LrTracePoint>>>,
    /// Recursive-sampling bands along the tuned schedule from `Y_0` (final model), one per boundary.
    pub predicted_bands: Vec<Band>,
    /// Step of each boundary.
    pub boundary_steps: Vec<usize>,
    /// The trace model last fitted (sparse / full variational GP, or the exact-GP fallback).
    #[serde(default)]
    pub model: String,
    /// Intervals (of all runs) that diverged: kept out of the regression, given to the failure classifier.
    #[serde(default)]
    pub diverged_intervals: usize,
}

/// The comparison report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrReport {
    pub problem: LrProblem,
    pub optimizer: Optimizer,
    pub intervals: usize,
    pub steps_per_interval: usize,
    pub lr_bounds: [f64; 2],
    /// Every schedule: constants, decays, then the dynamic tuner.
    pub methods: Vec<LrMethodReport>,
    pub dynamic: Option<DynamicReport>,
    /// The best constant rate and the best exponential decay (by final loss).
    pub best_constant: Option<BestOf>,
    pub best_decay: Option<BestOf>,
    /// The tuner's rank against each constant and each decay, each run once ([`per_schedule_ranks`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_schedule: Vec<ScheduleRank>,
    pub seed: u64,
    /// The multi-task experiment (their Sec. 4), when the config asks for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multitask: Option<super::MultitaskReport>,
}

/// The tuner against every schedule of one baseline family, each run once as the paper (Picheny et al., Sec. 3.2:
/// "Our approach also outperforms all exponential decay schedules but one"): a schedule's single run is its
/// repeat 0 (`repeat_finals[0]`), not the best of its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleRank {
    /// `constant` or `exponential-decay`.
    pub family: String,
    /// Schedules of the family.
    pub schedules: usize,
    /// The schedules whose single run ended below the tuner's final loss.
    pub below_tuner: Vec<String>,
    /// The tuner's rank among the family's schedules and itself (1 = better than every schedule).
    pub rank: usize,
}

/// The tuner's rank against each baseline family, each schedule run once (its first repeat); empty without a
/// tuner (`dynamic`) or baselines.
pub fn per_schedule_ranks(methods: &[LrMethodReport]) -> Vec<ScheduleRank> {
    let Some(tuner) = methods.iter().find(|m| m.family == "dynamic") else { return Vec::new() };
    ["constant", "exponential-decay"]
        .iter()
        .filter_map(|fam| {
            let of: Vec<&LrMethodReport> = methods.iter().filter(|m| m.family == *fam).collect();
            if of.is_empty() {
                return None;
            }
            let once = |m: &LrMethodReport| m.repeat_finals.first().copied().unwrap_or(m.final_loss);
            let below_tuner: Vec<String> =
                of.iter().copied().filter(|&m| once(m) < tuner.final_loss).map(|m| m.name.clone()).collect();
            Some(ScheduleRank {
                family: fam.to_string(),
                schedules: of.len(),
                rank: below_tuner.len() + 1,
                below_tuner,
            })
        })
        .collect()
}

/// Name and final loss of the best method of a family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BestOf {
    pub name: String,
    pub final_loss: f64,
}

/// Progress events (serde, tag `type`, kebab-case), delivered on the calling thread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum LrEvent {
    Started { methods: Vec<String>, intervals: usize, steps_per_interval: usize },
    MethodDone { method: usize, name: String, final_loss: f64, trace: Vec<LrTracePoint> },
    IntervalDone { interval: usize, best_loss: f64, lrs: Vec<f64>, losses: Vec<f64> },
    Done {},
}
