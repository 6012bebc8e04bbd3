//! The cost model of a run, known before it runs, from which the page shows a time estimate before Run. Every kind counts the work its config asks for, per phase, in the unit the kind
//! itself counts while it runs (gradient evaluations, passes over the data, epochs, pulls), and converts it into
//! one device-independent unit, **multiply-adds** (`per`: multiply-adds of one counted unit, from the model's
//! size). A host converts `work` into seconds at a rate it measures on its own device (the page: a short
//! calibration in the worker, then the rate of earlier runs of the same kind; `www/shared/eta.js`).
//!
//! Each phase says how its count relates to what the run will count (`basis`): `exact` (the run counts the same
//! number, up to the rounding of its chunks), `bound` (pruning, convergence or early stops make the run count
//! at most this) or `typical` (an iterative solve whose length depends on the data: a typical length, neither
//! exact nor a bound). Core tests (`tests/core/experiments/cost.rs`) compare the counts with the reports.

use serde::Serialize;

/// How a phase's count relates to the work the run counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    /// The run counts the same number (up to the rounding of its chunks).
    Exact,
    /// The run counts at most this (pruning, convergence or early stops).
    Bound,
    /// A typical length of an iterative solve that stops on convergence.
    Typical,
}

/// One phase of a run's work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Phase {
    /// The phase's name ("MAP", "reference", "tuning", "scoring", "evaluation", a method's name, ...).
    pub name: String,
    /// The work of the phase in its own unit.
    pub count: f64,
    /// The unit of `count` (what the run counts: "gradient evaluations", "passes", "epochs x examples", ...).
    pub unit: &'static str,
    /// Multiply-adds of one unit of `count` (about the model's size).
    pub per: f64,
    pub basis: Basis,
}

impl Phase {
    pub fn new(name: impl Into<String>, count: f64, unit: &'static str, per: f64, basis: Basis) -> Phase {
        Phase { name: name.into(), count, unit, per, basis }
    }
    /// The phase's work in multiply-adds.
    pub fn work(&self) -> f64 {
        self.count * self.per
    }
}

/// A run's cost model: its phases and, for budgets given in seconds, the seconds they take whatever the device.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cost {
    pub phases: Vec<Phase>,
    /// Wall-clock seconds fixed by the config (seconds budgets), not converted from work.
    pub seconds: f64,
    /// Why no estimate can be made before the run (for example: the size of an uploaded file is unknown).
    pub unknown: Option<String>,
}

impl Cost {
    /// A cost that cannot be estimated before the run, and why.
    pub fn unknown(why: impl Into<String>) -> Cost {
        Cost { unknown: Some(why.into()), ..Cost::default() }
    }
    /// Adds a phase (skipped when its count is zero).
    pub fn add(&mut self, phase: Phase) {
        if phase.count > 0.0 {
            self.phases.push(phase);
        }
    }
    /// Total work in multiply-adds.
    pub fn work(&self) -> f64 {
        self.phases.iter().map(Phase::work).sum()
    }
    /// The count of the phase `name` (0 when absent).
    pub fn count(&self, name: &str) -> f64 {
        self.phases.iter().filter(|p| p.name == name).map(|p| p.count).sum()
    }
    /// Appends another cost's phases, their names prefixed (`"MAMBA-KSD: tuning"`).
    pub fn extend_prefixed(&mut self, prefix: &str, other: Cost) {
        for mut p in other.phases {
            p.name = format!("{prefix}: {}", p.name);
            self.phases.push(p);
        }
        self.seconds += other.seconds;
        if self.unknown.is_none() {
            self.unknown = other.unknown;
        }
    }
    /// The JSON the summary carries (`summary.cost`): `{work, unit: "multiply-adds", seconds, phases, unknown}`.
    pub fn to_json(&self) -> serde_json::Value {
        let phases: Vec<serde_json::Value> = self
            .phases
            .iter()
            .map(|p| serde_json::json!({ "name": p.name, "count": p.count, "unit": p.unit, "per": p.per, "work": p.work(), "basis": p.basis }))
            .collect();
        serde_json::json!({ "work": self.work(), "unit": "multiply-adds", "seconds": self.seconds, "phases": phases, "unknown": self.unknown })
    }
}
