//! The config fields this kind's page panel (www/panels/hoag/panel.js `fromConfig`) shows and sets, as JSON paths: the
//! only fields a lesson step may patch ([`crate::lesson`]). `a.*` covers every field under `a`; an array value is one
//! field (patches replace arrays whole).

/// See the module documentation.
pub const PANEL_FIELDS: &[&str] = &[
    "problem",
    "data.source",
    "data.n",
    "data.d",
    "data.seed",
    "data.label",
    "data.classes",
    "data.per_class",
    "data.pool",
    "methods",
    "budget.cost",
    "budget.max_iter",
    "eps0",
    "landscape_points",
    "seed",
];
