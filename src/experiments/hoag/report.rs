//! What a HOAG run reports: traces, per-method results, the outer-loss landscape (chart data) and progress
//! events.

use super::{MethodSpec, ProblemKind};
use serde::{Deserialize, Serialize};

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
    /// Outer loss at `hyper` as the method sees it (HOAG / iterative differentiation: at their approximate
    /// inner solution; search methods: an accurate evaluation).
    pub outer_loss: f64,
    /// The method's current recommendation: the iterate (gradient methods) or the incumbent (search).
    pub best_hyper: Vec<f64>,
    /// Outer loss of the recommendation at an accurate inner solution (`blackbox_tol`), for every method
    /// (gradient methods: computed off the clock, neither its time nor its passes charged). The curves.
    pub best_outer_loss: f64,
    /// Validation loss of the recommendation.
    pub validation_loss: f64,
    /// Tolerance `ε_k` used at this step (HOAG only).
    pub tolerance: Option<f64>,
    /// Norm of the (approximate) hypergradient (gradient methods only).
    pub grad_norm: Option<f64>,
    /// The step that led here was rejected by the safeguard (the outer loss rose by more than 20%); the
    /// recommendation is back at the previous iterate (gradient methods only).
    #[serde(default)]
    pub rejected: bool,
    /// `best_outer_loss - reference_optimum` (filled in at the end).
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
    /// Steps rejected by the safeguard of the adaptive step (gradient methods).
    #[serde(default)]
    pub rejected_steps: usize,
    /// Why it stopped: `budget`, `max-iter`, `grid-done`, `converged`.
    pub stopped: String,
}

/// Outer loss on a grid of hyperparameters (chart data). `values` is row-major over `axes[0] x axes[1]`
/// (the first axis varies slowest); for one hyperparameter it has `axes[0].len()` values; with more than two
/// hyperparameters one axis along the diagonal (every hyperparameter equal).
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
    /// The suboptimality reference: the smallest outer loss of an accurate evaluation among the reference HOAG
    /// runs' final points, the landscape, every trace's `best_outer_loss` and the final evaluations.
    pub reference_optimum: f64,
    /// The lowest final outer loss of the `reference_runs` randomly initialised HOAG runs (the paper's reference,
    /// Sec. 3.1); `reference_optimum` is the lower of it and everything else found. Absent with no such runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_hoag_runs: Option<f64>,
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
