//! A toy experiment kind, added by scripts/dev/toy-kind.sh to a temporary copy of the workspace: it counts to `n`.
//! It shows what a new kind needs (docs/layout.md, "Adding an experiment kind"): this folder and two registry lines.

pub mod experiment;
pub use experiment::ToyExperiment;
