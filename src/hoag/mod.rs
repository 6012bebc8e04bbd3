//! HOAG: hyperparameter optimisation with approximate gradient (Pedregosa, ICML 2016, Algorithm 1), compared
//! on the same problem and cost clock with grid search, random search, GP Bayesian optimisation (expected
//! improvement) and iterative differentiation (reverse mode through unrolled gradient descent).
//!
//! Entry point: [`run`] (or [`run_with_data`] for user data) with a [`HoagConfig`]; it returns a
//! [`HoagReport`] whose `methods` hold, per method, its `name`, its `trace` over time and its `final_loss`,
//! plus the outer-loss `landscape` on a grid (chart data). Progress goes to an observer as [`HoagEvent`]s,
//! always on the calling thread.
//!
//! The clock: every method counts cost units (one pass over the train data: a gradient, a Hessian-vector
//! product, a kernel matrix-vector product or building a kernel matrix), which are deterministic, and seconds.
//! The budget is in cost units (default, reproducible) and optionally seconds.
//!
//! What is approximated: the inner tolerance is measured, as in the authors' code, relative to the norm of
//! the inner gradient at the start (`|∇h(x)| <= ε_k |∇h(0)|`), and the Hessian system relative to the norm of
//! the first outer gradient. Iterative differentiation unrolls plain gradient descent from zero with a fixed
//! step `1/L(λ)` that is not differentiated.

//!
//! Layout: `config` (+ `presets`, `validate`), `report` (traces, landscape, events), `landscape` (its chart data), `data` (inputs and the
//! problem built from them), `problems` (the bilevel problems), `methods` (the compared algorithms),
//! `hypergrad` (single hypergradients), `solvers` (the inner solvers, from [`crate::optim`]).

mod config;
mod data;
mod hypergrad;
mod landscape;
mod methods;
mod presets;
pub mod problems;
mod report;
pub mod solvers;
mod validate;

pub use config::*;
pub use data::{builtin_data, problem_from_data};
pub use hypergrad::{hypergradient, iterdiff_hypergradient, outer_loss_at};
pub use problems::{Bilevel, InnerAt, KernelRidgeBilevel, LogisticBilevel, Split};
pub use report::*;
pub use solvers::{conjugate_gradient, lbfgs, SolveInfo};

use crate::data::Dataset;
use crate::Result;
use std::sync::atomic::AtomicBool;

/// Runs the comparison on built-in data (`simulate`, `digits`). For `csv` / `upload` sources use
/// [`run_with_data`].
pub fn run(cfg: &HoagConfig, observer: &mut dyn FnMut(&HoagEvent), cancel: &AtomicBool) -> Result<HoagReport> {
    run_with_data(cfg, None, observer, cancel)
}

/// Runs the comparison; `data` overrides the config's data source (required for `csv` and `upload`).
pub fn run_with_data(
    cfg: &HoagConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    cfg.validate()?;
    run_checked(cfg, data, observer, cancel)
}

/// [`run_with_data`] on a config that was already validated (the experiment contract checks it once).
pub(crate) fn run_checked(
    cfg: &HoagConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    let input = data::input(cfg, data)?;
    let input: &Dataset = &input;
    let problem = data::build_problem(cfg, input)?;
    let pr: &dyn Bilevel = problem.as_ref();
    let (n_train, n_test, n_validation, n_features) = data::sizes(input);
    let names: Vec<String> = cfg.methods.iter().map(|m| m.name()).collect();
    observer(&HoagEvent::Started {
        methods: names.clone(),
        hyper_names: pr.hyper_names(),
        n_train,
        n_test,
        n_validation,
    });
    let landscape = if cfg.landscape_points >= 2 {
        let l = landscape::landscape(pr, cfg)?;
        observer(&HoagEvent::Landscape { landscape: l.clone() });
        Some(l)
    } else {
        None
    };
    let mut reports = Vec::with_capacity(cfg.methods.len());
    for (mi, spec) in cfg.methods.iter().enumerate() {
        let name = names[mi].clone();
        let mut emit = |pt: &TracePoint| {
            observer(&HoagEvent::Progress { method: mi, name: name.clone(), point: pt.clone() });
        };
        let rep = methods::run_method(pr, cfg, spec, mi as u64, &mut emit, cancel)?;
        observer(&HoagEvent::MethodDone {
            method: mi,
            name: rep.name.clone(),
            final_loss: rep.final_loss,
            final_hyper: rep.final_hyper.clone(),
        });
        reports.push(rep);
    }
    // Reference optimum from evaluations with the inner problem solved to `blackbox_tol` only (landscape,
    // search methods, final evaluations): approximate losses of HOAG iterates may dip below the true minimum.
    let mut reference = landscape.as_ref().map_or(f64::INFINITY, |l| l.min);
    for r in &reports {
        reference = reference.min(r.final_loss);
        if !matches!(r.spec, MethodSpec::Hoag { .. } | MethodSpec::IterDiff { .. }) {
            for t in &r.trace {
                reference = reference.min(t.best_outer_loss);
            }
        }
    }
    for r in &mut reports {
        for t in &mut r.trace {
            t.suboptimality = (t.best_outer_loss - reference).max(0.0);
        }
    }
    observer(&HoagEvent::Done {});
    Ok(HoagReport {
        problem: cfg.problem,
        hyper_names: pr.hyper_names(),
        bounds: cfg.bounds,
        n_train,
        n_test,
        n_validation,
        n_features,
        methods: reports,
        landscape,
        reference_optimum: reference,
        seed: cfg.seed,
    })
}
