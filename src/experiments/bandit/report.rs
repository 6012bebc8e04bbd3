//! The bandit report and progress events (serde JSON).
//!
//! Report (`BanditReport`):
//! ```text
//! { "problem": "...", "config": {...}, "rounds": [r_1, ..., r_C = rounds],      // checkpoint rounds
//!   "algorithms": [ { "name", "kind",
//!       "simple_regret":     {"mean": [C], "lo": [C], "hi": [C]},   // optimum - value(recommended), per checkpoint
//!       "cumulative_regret": {"mean": [C], "lo": [C], "hi": [C]},   // sum of optimum - value(pulled)
//!       "final_simple_regret": {"mean", "lo", "hi"}, "final_cumulative_regret": {...},
//!       "compute": {"unit": "pulls"|"gradient evaluations", "units": [C], "seconds": [C]},  // means over repeats
//!       "recommended": [ {"repeat", "arm", "label", "value", "optimum"} ],  // per repeat, at the end; label:
//!                                                                // the configuration, when the problem has one
//!       "final_value": {"mean", "lo", "hi"},                         // true value of the final recommendation
//!       "distinct_arms": {"mean": [C], "lo": [C], "hi": [C]},        // distinct arms pulled by each checkpoint
//!       "failures": n,                                               // GP numerical failures handled
//!       "charts": { "gp_1d": {...} | null, "schedules": {...} | null, "arms": [...] | null } } ],
//!   "seconds": wall time of the run }
//! ```
//! `lo`/`hi` = mean -/+ `band` x (sample sd / sqrt(repeats)), clipped to the range of the repeats' values (so a
//! regret band never goes below 0). Charts come from repeat 0. Every number is finite;
//! optional values are `null`.

use serde::{Deserialize, Serialize};

use super::config::BanditConfig;
use crate::bandit::{Arm, ArmStat};

/// A curve over the checkpoint rounds: mean over repeats and its band.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Curve {
    pub mean: Vec<f64>,
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
}

/// A scalar summary over repeats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Summary {
    pub mean: f64,
    pub lo: f64,
    pub hi: f64,
}

/// Mean and band of `values` (one per repeat).
pub fn summarize(values: &[f64], band: f64) -> Summary {
    let n = values.len() as f64;
    if values.is_empty() {
        return Summary { mean: f64::NAN, lo: f64::NAN, hi: f64::NAN };
    }
    let mean = values.iter().sum::<f64>() / n;
    let se = if values.len() > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt() / n.sqrt()
    } else {
        0.0
    };
    // A band for the mean never extends past the values observed: regret is >= 0, so its band never dips below
    // 0 (a normal interval would for a few skewed repeats), and one repeat gives the point itself.
    let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    Summary { mean, lo: (mean - band * se).max(min), hi: (mean + band * se).min(max) }
}

/// Mean and band over repeats at checkpoint `i` (`values[repeat][checkpoint]`).
pub(crate) fn summary_at(values: &[Vec<f64>], i: usize, band: f64) -> Summary {
    let col: Vec<f64> = values.iter().map(|v| v[i]).collect();
    summarize(&col, band)
}

/// Mean and band over repeats at the first `k` checkpoints.
pub(crate) fn curve(values: &[Vec<f64>], k: usize, band: f64) -> Curve {
    let s: Vec<Summary> = (0..k).map(|i| summary_at(values, i, band)).collect();
    Curve {
        mean: s.iter().map(|v| v.mean).collect(),
        lo: s.iter().map(|v| v.lo).collect(),
        hi: s.iter().map(|v| v.hi).collect(),
    }
}

/// Compute spent, mean over repeats, at each checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Compute {
    /// Unit of `units`: "pulls" or "gradient evaluations".
    pub unit: String,
    /// Cumulative compute units.
    pub units: Vec<f64>,
    /// Cumulative wall-clock seconds of this algorithm and its problem (not reproducible across machines).
    pub seconds: Vec<f64>,
}

/// The recommendation of one repeat at the end of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub repeat: usize,
    /// Recommended arm (`null` if the algorithm had none).
    pub arm: Option<Arm>,
    /// What the arm is (an SG-MCMC configuration and its KSD), when the problem can say.
    #[serde(default)]
    pub label: Option<String>,
    /// Its true expected reward (`None` when there is no recommendation).
    pub value: Option<f64>,
    /// The optimum at that time.
    pub optimum: f64,
}

pub use crate::experiments::gp_chart::{ChosenPoint, Gp1dChart};

/// Chosen schedules (ordered vectors) per round, with the optimal one (their Figure 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleChart {
    /// 1-based rounds.
    pub rounds: Vec<usize>,
    pub chosen: Vec<Vec<f64>>,
    /// Optimal schedule at each round (empty if unknown).
    pub optimal: Vec<Vec<f64>>,
}

/// Chart data of one algorithm (repeat 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Charts {
    pub gp_1d: Option<Gp1dChart>,
    pub schedules: Option<ScheduleChart>,
    /// Discrete arms: pulls, Beta posterior and true value (at most the 200 most pulled).
    pub arms: Option<Vec<ArmStat>>,
}

/// Results of one algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlgoReport {
    pub name: String,
    pub kind: String,
    pub simple_regret: Curve,
    pub cumulative_regret: Curve,
    pub final_simple_regret: Summary,
    pub final_cumulative_regret: Summary,
    pub compute: Compute,
    pub recommended: Vec<Recommendation>,
    /// True value of the final recommendation, mean and band over repeats (the poster's y axis on real problems).
    #[serde(default)]
    pub final_value: Summary,
    /// Distinct arms pulled so far, per checkpoint, mean and band over repeats (the poster's "effective arms").
    #[serde(default)]
    pub distinct_arms: Curve,
    pub failures: usize,
    pub charts: Charts,
    /// Runs of a `repeat_range` only: the raw per-repeat values the summaries are made of, for
    /// [`super::merge_reports`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_repeat: Option<PerRepeat>,
}

/// The raw values of each repeat of a partial run (`[repeat][checkpoint]`; repeats `first, first + 1, ...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerRepeat {
    pub first: usize,
    pub simple: Vec<Vec<f64>>,
    pub cumulative: Vec<Vec<f64>>,
    pub distinct: Vec<Vec<f64>>,
    pub units: Vec<Vec<f64>>,
    pub seconds: Vec<Vec<f64>>,
    pub failures: Vec<usize>,
}

/// The result of [`super::run`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BanditReport {
    pub problem: String,
    pub config: BanditConfig,
    /// Checkpoint rounds (1-based number of pulls done).
    pub rounds: Vec<usize>,
    pub algorithms: Vec<AlgoReport>,
    /// Wall time of the whole run.
    pub seconds: f64,
}

/// New points of the curves since the previous progress event: means over repeats and their bands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurveUpdate {
    pub name: String,
    pub rounds: Vec<usize>,
    pub simple_regret: Vec<f64>,
    pub simple_lo: Vec<f64>,
    pub simple_hi: Vec<f64>,
    pub cumulative_regret: Vec<f64>,
    pub cumulative_lo: Vec<f64>,
    pub cumulative_hi: Vec<f64>,
}

/// Events emitted on the calling thread during [`super::run`] (serde tag `type`, kebab-case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum BanditEvent {
    /// Runs of a shared table done so far (the SG-MCMC problem runs every configuration before the first round).
    Preparing { done: usize, total: usize },
    /// Before the first round.
    Started { problem: String, algorithms: Vec<String>, rounds: usize, repeats: usize, checkpoints: Vec<usize> },
    /// After each chunk of rounds: mean curves (over repeats) at the checkpoints reached in this chunk.
    Progress { round: usize, rounds: usize, curves: Vec<CurveUpdate> },
    /// The run finished (the report is returned).
    Done { seconds: f64 },
}
