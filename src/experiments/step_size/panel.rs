//! The config fields this kind's page panel (www/panels/step-size/panel.js `fromConfig`) shows and sets, as JSON paths:
//! the only fields a lesson step may patch ([`crate::lesson`]). `a.*` covers every field under `a`; an array value is
//! one field (patches replace arrays whole).

/// See the module documentation.
pub const PANEL_FIELDS: &[&str] = &[
    "data.n",
    "data.d",
    "sampler.kind",
    "sampler.batch",
    "log10_step",
    "windows",
    "window_iters",
    "fixed_log10_steps",
    "seed",
];
