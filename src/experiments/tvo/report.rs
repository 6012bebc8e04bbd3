//! The `tvo` kind's report and progress events.

use serde::{Deserialize, Serialize};

use super::training::*;

/// The reward GP of a GP method at one moment (their Figure 2): posterior mean and sd of the reward along
/// `beta_1` on a grid, the other free points at the schedule chosen at that moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpSnapshot {
    pub window: usize,
    pub epoch: usize,
    pub grid: Vec<f64>,
    pub mean: Vec<f64>,
    pub sd: Vec<f64>,
    /// The observed `(beta_1, reward)` pairs so far.
    pub observed: Vec<(f64, f64)>,
}

/// One window of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowRecord {
    pub window: usize,
    /// Epochs trained at the end of the window.
    pub epoch: usize,
    /// The schedule used in the window (`[0, beta_1, ..., beta_{d-1}]`).
    pub schedule: Vec<f64>,
    /// Change of the 50-point evaluation bound over the window (eq. 7).
    pub reward: f64,
    /// The 50-point evaluation bound at the end of the window.
    pub eval_bound: f64,
    /// Test log p(x) (IWAE, `curve_k` samples) and test KL at the end of the window.
    pub test_log_px: f64,
    pub test_kl: f64,
}

/// One training run (method x repeat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTrace {
    pub method: String,
    pub repeat: usize,
    pub windows: Vec<WindowRecord>,
    /// The integrand `E_{pi_beta}[w]` on `beta = i / 50` at the end of training.
    pub integrand: Vec<f64>,
    /// Final test metrics with `iwae_k` samples (`None` if the run diverged).
    pub final_metrics: Option<TestMetrics>,
    pub diverged: bool,
    /// GP methods: the reward GP at a few moments.
    pub gp_snapshots: Vec<GpSnapshot>,
}

/// Mean and sample sd over repeats of one method's final metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodSummary {
    pub method: String,
    pub log_px_mean: f64,
    pub log_px_sd: f64,
    pub kl_mean: f64,
    pub kl_sd: f64,
    /// Per repeat (finite runs only).
    pub log_px: Vec<f64>,
    pub kl: Vec<f64>,
    pub diverged: usize,
    /// Mean over repeats of the chosen `beta_1` in the last window.
    pub last_beta1: f64,
}

/// The report of a `tvo` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TvoReport {
    pub n_train: usize,
    pub n_test: usize,
    pub pixels: usize,
    pub d: usize,
    pub iwae_k: usize,
    pub runs: Vec<RunTrace>,
    pub summary: Vec<MethodSummary>,
}

/// Progress events of a `tvo` run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum TvoEvent {
    Started {
        methods: Vec<String>,
        repeats: usize,
        windows: usize,
        n_train: usize,
        n_test: usize,
        pixels: usize,
    },
    /// Every run finished epoch `epoch` inside window `window` (not its last epoch: that one ends with
    /// `window`); the stop flag is honoured between epochs and between minibatches.
    Epoch {
        window: usize,
        epoch: usize,
    },
    /// Every run finished window `window`: its record and the current integrand.
    Window {
        window: usize,
        epoch: usize,
        runs: Vec<WindowUpdate>,
    },
    /// Final IWAE evaluation done.
    Done {
        summary: Vec<MethodSummary>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowUpdate {
    pub method: String,
    pub repeat: usize,
    pub record: Option<WindowRecord>,
    pub integrand: Vec<f64>,
    pub diverged: bool,
}
