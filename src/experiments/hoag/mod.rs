//! HOAG: hyperparameter optimisation with approximate gradient (Pedregosa, ICML 2016, Algorithm 1), compared
//! on the same problem and cost clock with grid search, random search, GP Bayesian optimisation (expected
//! improvement) and iterative differentiation (reverse mode through the inner solver's iterations).
//!
//! Entry point: [`HoagExperiment`] (the experiment contract; user data arrive in its `Inputs`) with a [`HoagConfig`]; it returns a
//! [`HoagReport`] whose `methods` hold, per method, its `name`, its `trace` over time and its `final_loss`,
//! plus the outer-loss `landscape` on a grid (chart data). Progress goes to an observer as [`HoagEvent`]s,
//! always on the calling thread.
//!
//! The clock: every method counts cost units (one pass over the train data: a gradient, a Hessian-vector
//! product, a kernel matrix-vector product or building a kernel matrix), which are deterministic, and seconds.
//! The budget is in cost units (default, reproducible) and optionally seconds.
//!
//! As written in the paper (Sec. 3): the inner problem is solved until `|∇_1 h| <= μ(λ) ε_k` (μ the strong-
//! convexity constant, so `|x - x(λ)| <= ε_k`), the Hessian system to absolute residual `ε_k`, with the
//! adaptive step and its safeguard. Every method's curve (`best_outer_loss`) is the outer loss at an
//! accurate inner solution, computed off the clock. Iterative differentiation backpropagates through the
//! iterations of the same inner solver (CG for kernel ridge, L-BFGS for logistic regression) run from zero;
//! see `unroll` and docs/HOAG-LRSCHED.md.

//!
//! Layout: `config` (+ `presets`, `validate`), `report` (traces, landscape, events), `landscape` (its chart data), `data` (inputs and the
//! problem built from them), `problems` (the bilevel problems), `methods` (the compared algorithms),
//! `hypergrad` (single hypergradients), `solvers` (the inner solvers, from [`crate::optim`]).

pub mod experiment;
pub mod panel;
pub mod text;
pub use experiment::HoagExperiment;

mod config;
mod data;
mod hypergrad;
mod landscape;
mod methods;
mod presets;
pub mod problems;
mod report;
pub mod solvers;
mod sparse;
mod unroll;
mod validate;

pub use config::*;
pub use data::{builtin_data, problem_from_data};
pub use hypergrad::{hypergradient, iterdiff_hypergradient, outer_loss_at};
pub use problems::{Bilevel, InnerAt, KernelRidgeBilevel, LogisticBilevel, Split, SumScale, Summed};
pub use report::*;
pub use solvers::{conjugate_gradient, lbfgs, SolveInfo};
pub use sparse::{run_sparse, sparse_problem, SparseLogisticBilevel, SparseSplit};

use crate::data::Dataset;
use crate::Result;
use std::sync::atomic::AtomicBool;

/// Runs the comparison on a config the experiment contract checked once; `data` is the user's data set
/// (required for `csv` and `upload` sources).
pub(crate) fn run_checked(
    cfg: &HoagConfig,
    data: Option<&Dataset>,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    let input = data::input(cfg, data)?;
    let input: &Dataset = &input;
    let problem = data::build_problem(cfg, input)?;
    let sizes = data::sizes(input);
    run_problem_sized(problem.as_ref(), cfg, sizes, observer, cancel)
}

/// Runs the comparison on a bilevel problem you built (for example one with a known optimum, in tests);
/// `cfg` gives the methods, budget, tolerances and box (its data source and `init` length are not used
/// to build anything: `init`, if given, must have one value per hyperparameter of `pr`).
pub fn run_problem(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    if cfg.init.as_ref().is_some_and(|i| i.len() != pr.n_hyper()) {
        return Err(crate::Error::config("init must have one value per hyperparameter of the problem"));
    }
    run_problem_sized(pr, cfg, (0, 0, 0, 0), observer, cancel)
}

pub(crate) fn run_problem_sized(
    pr: &dyn Bilevel,
    cfg: &HoagConfig,
    (n_train, n_test, n_validation, n_features): (usize, usize, usize, usize),
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    // The paper's summed losses (eq. 4-5) over the problem's mean ones when the config asks for them.
    let summed = problems::Summed::new(pr);
    let pr: &dyn Bilevel = if cfg.loss_scale == LossScale::Sum { &summed } else { pr };
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
    // Reference optimum (Sec. 3.1): the lowest final loss of `reference_runs` randomly initialised HOAG
    // (exponential) runs, lowered to the smallest accurate evaluation (inner problem solved to `blackbox_tol`) of
    // the landscape, of every method's curve and of the final evaluations when one is lower, so that no
    // suboptimality is negative. Every curve is measured the same way, so no clamping is needed.
    let mut reference_runs = f64::INFINITY;
    for r in 0..cfg.reference_runs {
        let f = methods::reference_run(pr, cfg, r as u64, cancel)?;
        if f.is_finite() {
            reference_runs = reference_runs.min(f);
        }
    }
    let mut reference = landscape.as_ref().map_or(f64::INFINITY, |l| l.min).min(reference_runs);
    for r in &reports {
        reference = reference.min(r.final_loss);
        for t in &r.trace {
            reference = reference.min(t.best_outer_loss);
        }
    }
    for r in &mut reports {
        for t in &mut r.trace {
            t.suboptimality = t.best_outer_loss - reference;
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
        reference_hoag_runs: (cfg.reference_runs > 0 && reference_runs.is_finite()).then_some(reference_runs),
        seed: cfg.seed,
    })
}
