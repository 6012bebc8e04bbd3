//! The config fields this kind's page panel (www/panels/tvo/panel.js `fromConfig`) shows and sets, as JSON paths: the
//! only fields a lesson step may patch ([`crate::lesson`]). `a.*` covers every field under `a`; an array value is one
//! field (patches replace arrays whole).

/// See the module documentation.
pub const PANEL_FIELDS: &[&str] = &[
    "data.source",
    "data.pool",
    "data.per_class",
    "binarisation",
    "test_size",
    "hidden",
    "latent",
    "d",
    "particles",
    "batch",
    "lr",
    "epochs",
    "window",
    "eval_size",
    "curve_k",
    "iwae_k",
    "methods",
    "gp.kappa.type",
    "gp.kappa.value",
    "gp",
    "repeats",
    "seed",
];
