//! The config fields each panel of the page can show and set, as JSON paths into the kind's config (each kind's
//! `PANEL_FIELDS`, in its folder's `panel.rs`). A lesson step's patch may only name these: a field outside the
//! list would be dropped by the panel (its form has no control for it), so the page would run another experiment
//! than `tunelab lesson check`. The lists mirror each panel's `fromConfig` (www/panels/<kind>/panel.js,
//! www/panels/tune/state.js `fromTuneConfig`); the page
//! checks each step's config after loading it into the panel against the core's checked config, so a list that
//! drifted from its panel fails the built-in lessons' e2e tests.

use crate::experiments::Kind;

/// The paths a panel sets: the kind's [`Experiment::PANEL_FIELDS`](crate::experiments::Experiment::PANEL_FIELDS).
/// `a.*` covers every field under `a`; an array value is one field (patches replace arrays whole).
pub fn fields(kind: Kind) -> &'static [&'static str] {
    kind.panel_fields()
}

/// True when the panel of `kind` sets the field at `path` (dotted).
pub fn has(kind: Kind, path: &str) -> bool {
    fields(kind).iter().any(|f| match f.strip_suffix(".*") {
        Some(prefix) => path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('.')),
        None => *f == path,
    })
}

/// The listed field nearest to `path`, for the error message.
pub fn nearest(kind: Kind, path: &str) -> Option<&'static str> {
    crate::strict::nearest(path, fields(kind).iter().copied())
}
