//! The config fields this kind's page panel (www/panels/bandit/panel.js `fromConfig`) shows and sets, as JSON paths:
//! the only fields a lesson step may patch ([`crate::lesson`]). `a.*` covers every field under `a`; an array value is
//! one field (patches replace arrays whole).

/// See the module documentation.
pub const PANEL_FIELDS: &[&str] = &[
    "problem.kind",
    "problem.a",
    "problem.b",
    "problem.means",
    "problem.function",
    "problem.noise_sd",
    "problem.drift",
    "problem.d",
    "problem.rate",
    "problem.data.*",
    "problem.samplers",
    "problem.log10_step",
    "problem.pool",
    "problem.replicates",
    "problem.iterations",
    "problem.model",
    "problem.data",
    "problem.hidden",
    "algorithms",
    "rounds",
    "repeats",
    "seed",
];
