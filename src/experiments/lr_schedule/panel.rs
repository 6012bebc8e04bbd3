//! The config fields this kind's page panel (www/panels/lr-schedule/panel.js `fromConfig`) shows and sets, as JSON
//! paths: the only fields a lesson step may patch ([`crate::lesson`]). `a.*` covers every field under `a`; an array
//! value is one field (patches replace arrays whole).

/// See the module documentation.
pub const PANEL_FIELDS: &[&str] = &[
    "problem.kind",
    "problem.hidden",
    "problem.dim",
    "problem.noise",
    "data.source",
    "data.label",
    "optimizer",
    "intervals",
    "steps_per_interval",
    "batch",
    "lr_bounds",
    "constant",
    "decay_starts",
    "decay_factors",
    "dynamic.enabled",
    "dynamic.runs",
    "seed",
    "multitask.per_class",
    "multitask.source_runs",
    "multitask.target_runs",
];
