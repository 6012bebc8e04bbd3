//! The config fields each panel of the page can show and set, as JSON paths into the kind's config. A lesson
//! step's patch may only name these: a field outside the list would be dropped by the panel (its form has no
//! control for it), so the page would run another experiment than `tunelab lesson check`. The lists mirror
//! each panel's `fromConfig` (www/panels/<kind>/panel.js, www/panels/tune/state.js `fromTuneConfig`); the page
//! checks each step's config after loading it into the panel against the core's checked config, so a list that
//! drifted from its panel fails the built-in lessons' e2e tests.

use crate::experiments::Kind;

/// The paths a panel sets. `a.*` covers every field under `a`; an array value is one field (patches replace
/// arrays whole).
pub fn fields(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Tune | Kind::Compare => &[
            "data.source", "data.n", "data.d", "data.seed", "data.test_fraction", "data.per_class", "data.pool",
            "data.users", "data.items", "data.ratings", "data.latent", "data.label", "data.standardize",
            "model.kind", "model.prior_var", "model.hidden", "model.latent", "model.activation", "model.prior.kind",
            "model.classes", "model.d",
            "sampler.kind", "sampler.friction",
            "arms.log10_step.from", "arms.log10_step.to", "arms.log10_step.by", "arms.batch", "arms.leapfrog",
            "tuner.kind", "tuner.eta", "tuner.scoring", "tuner.arms",
            "budget.grad_evals", "budget.seconds", "budget.iterations",
            "metric.kind", "metric.max_samples", "metric.kernel",
            "thin", "start", "seed",
            "reference_samples", "tuners", "grid_baseline.budget.*", "evaluation.kind", "evaluation.budget.*",
        ],
        Kind::Bandit => &[
            "problem.kind", "problem.a", "problem.b", "problem.means", "problem.function", "problem.noise_sd",
            "problem.drift", "problem.d", "problem.rate", "problem.data.*", "problem.samplers", "problem.log10_step",
            "problem.pool", "problem.replicates", "problem.iterations", "problem.model", "problem.data",
            "problem.hidden", "algorithms", "rounds", "repeats", "seed",
        ],
        Kind::Hoag => &[
            "problem", "data.source", "data.n", "data.d", "data.seed", "data.label", "data.classes", "data.per_class",
            "data.pool", "methods", "budget.cost", "budget.max_iter", "eps0", "landscape_points", "seed",
        ],
        Kind::LrSchedule => &[
            "problem.kind", "problem.hidden", "problem.dim", "problem.noise", "data.source", "data.label",
            "optimizer", "intervals", "steps_per_interval", "batch", "lr_bounds", "constant", "decay_starts",
            "decay_factors", "dynamic.enabled", "dynamic.runs", "seed", "multitask.per_class",
            "multitask.source_runs", "multitask.target_runs",
        ],
        Kind::StepSize => &[
            "data.n", "data.d", "sampler.kind", "sampler.batch", "log10_step", "windows", "window_iters",
            "fixed_log10_steps", "seed",
        ],
        Kind::Tvo => &[
            "data.source", "data.pool", "data.per_class", "binarisation", "test_size", "hidden", "latent", "d",
            "particles", "batch", "lr", "epochs", "window", "eval_size", "curve_k", "iwae_k", "methods",
            "gp.kappa.type", "gp.kappa.value", "gp", "repeats", "seed",
        ],
    }
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
