//! The cost model of every kind (`src/experiments/cost.rs`, issue 26 item 1): the work a config asks for, known
//! before the run, equals the work the run's report counts where the run is deterministic (`basis: exact`), and
//! bounds it where pruning or early stops make it an upper bound. Counts only, never times.

use std::sync::atomic::AtomicBool;
use tunelab::experiments::cost::{Basis, Cost};
use tunelab::experiments::{Detail, Event, ExperimentConfig, Inputs, Kind, Output, Report};

use crate::common::small_configs::small;

fn run(cfg: ExperimentConfig) -> (Cost, Report, Vec<Event>) {
    let checked = cfg.check().expect("check");
    let cost = checked.cost();
    let mut events = Vec::new();
    let report = checked.run(Inputs::default(), &mut |e| events.push(e.clone()), &AtomicBool::new(false)).expect("run");
    (cost, report, events)
}

fn phase_basis(cost: &Cost, name: &str) -> Basis {
    cost.phases.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no phase {name} in {cost:?}")).basis
}

/// Every kind's small config has a cost model with positive work, carried by the summary as `cost`.
#[test]
fn every_kind_has_a_cost_before_it_runs() {
    for kind in Kind::ALL {
        let checked = small(kind).check().expect("check");
        let cost = checked.cost();
        assert!(cost.unknown.is_none(), "{kind:?}: {:?}", cost.unknown);
        assert!(cost.work() > 0.0, "{kind:?}: {cost:?}");
        let s = checked.summary();
        assert_eq!(s["cost"]["unit"], "multiply-adds", "{kind:?}");
        assert!((s["cost"]["work"].as_f64().unwrap() - cost.work()).abs() <= 1e-9 * cost.work(), "{kind:?}");
        for p in &cost.phases {
            assert!(p.count > 0.0 && p.per > 0.0, "{kind:?}: {p:?}");
        }
    }
}

const TUNE_LOGREG: &str = r#"{"kind":"tune","data":{"source":"simulate","n":400,"d":3,"seed":1,"test_fraction":0.25},
    "model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
    "batch":[0.05,0.2]},"tuner":{"kind":"mamba","eta":3},"budget":{"grad_evals":30000},
    "metric":{"kind":"ksd","max_samples":80},"thin":2,"seed":3}"#;

/// Tune with a gradient-evaluation budget: the chains' gradient evaluations are the schedule's (up to each
/// chunk's last iteration), the kernel's are exact, the scores' bounded; the MAP is typical (not compared).
#[test]
fn tune_counts_its_gradient_evaluations() {
    let (cost, report, _) = run(ExperimentConfig::from_json(TUNE_LOGREG, None).unwrap());
    let Some(Output::Tune(r)) = report.result else { panic!("not a tune report") };
    let c = &r.compute;
    let tuning = cost.count("tuning");
    assert_eq!(phase_basis(&cost, "tuning"), Basis::Exact);
    // Each chunk of each arm-round ends at the first whole iteration at or past its goal: at most one
    // iteration (here at most 2 x 0.2 x 300 data points, SGLD) more per chunk.
    let arm_rounds: usize = r.rounds.iter().map(|rd| rd.arms.len()).sum();
    let slack = (arm_rounds * 8 * 60) as f64;
    assert!(
        c.grad_evals as f64 >= tuning && (c.grad_evals as f64) <= tuning + slack,
        "run {} vs model {tuning} (+{slack})",
        c.grad_evals
    );
    let kernel = cost.count("kernel");
    assert!(kernel > 0.0);
    assert!(
        c.scoring_grad_evals as f64 <= kernel + cost.count("scoring"),
        "scoring {} > {kernel} + {}",
        c.scoring_grad_evals,
        cost.count("scoring")
    );
    // The first round scores every arm on its whole round: the bound is reached there, so it is not loose by
    // more than the later rounds' share.
    assert!(
        c.scoring_grad_evals as f64 >= kernel + 0.5 * cost.count("scoring"),
        "scoring {} vs {}",
        c.scoring_grad_evals,
        cost.count("scoring")
    );
    assert!(c.map_grad_evals > 0 && cost.count("MAP") > 0.0);
}

/// Doubling the budget doubles the chains' work (the page's estimate follows the budget).
#[test]
fn tune_cost_follows_the_budget() {
    let cfg = ExperimentConfig::from_json(TUNE_LOGREG, None).unwrap();
    let twice = ExperimentConfig::from_json(&TUNE_LOGREG.replace("30000", "60000"), None).unwrap();
    let (a, b) = (cfg.check().unwrap().cost(), twice.check().unwrap().cost());
    assert!((b.count("tuning") - 2.0 * a.count("tuning")).abs() < 1e-6);
    // The fixed phases (MAP, kernel) stay, the scores grow at most as the chains (capped at `max_samples`).
    assert_eq!(a.count("MAP"), b.count("MAP"));
    assert_eq!(a.count("kernel"), b.count("kernel"));
    assert!(b.count("scoring") >= a.count("scoring") && b.work() > a.work());
}

/// Tune with an iterations budget (the small config: MAMBA on a Gaussian): the model's count bounds the run's,
/// and a one-round grid is exact.
#[test]
fn tune_iterations_budget_is_bounded_and_grid_exact() {
    let (cost, report, _) = run(small(Kind::Tune));
    let Some(Output::Tune(r)) = report.result else { panic!() };
    assert!(r.compute.grad_evals as f64 <= cost.count("tuning"), "{} > {}", r.compute.grad_evals, cost.count("tuning"));
    let grid = TUNE_LOGREG.replace(
        r#""tuner":{"kind":"mamba","eta":3},"budget":{"grad_evals":30000}"#,
        r#""tuner":{"kind":"grid"},"budget":{"iterations":500}"#,
    );
    let (cost, report, _) = run(ExperimentConfig::from_json(&grid, None).unwrap());
    let Some(Output::Tune(r)) = report.result else { panic!() };
    assert_eq!(phase_basis(&cost, "tuning"), Basis::Exact);
    assert_eq!(r.compute.grad_evals as f64, cost.count("tuning"));
    assert_eq!(r.compute.scoring_grad_evals as f64, cost.count("kernel") + cost.count("scoring"));
}

/// Compare: each tuner's chains as its own tune run, its fresh evaluation chain bounded by the plan.
#[test]
fn compare_counts_each_tuner() {
    let (cost, report, _) = run(small(Kind::Compare));
    let Some(Output::Compare(cmp)) = report.result else { panic!() };
    assert!(!cmp.entries.is_empty());
    for e in &cmp.entries {
        let tuning = cost.count(&format!("{}: tuning", e.name));
        let arm_rounds: usize = e.report.rounds.iter().map(|rd| rd.arms.len()).sum();
        let g = e.report.compute.grad_evals as f64;
        assert!(
            g >= tuning && g <= tuning + (arm_rounds * 8 * 2 * 240) as f64,
            "{}: run {g} vs model {tuning}",
            e.name
        );
        if let Some(f) = &e.evaluation.fresh_run {
            let eval = cost.count(&format!("{}: evaluation", e.name));
            assert!(f.grad_evals as f64 <= eval + 2.0 * 240.0, "{}: evaluation {} > {eval}", e.name, f.grad_evals);
        }
    }
}

/// HOAG: every method stops at its budget of passes.
#[test]
fn hoag_methods_stay_within_their_passes() {
    let (cost, report, _) = run(small(Kind::Hoag));
    let Some(Output::Hoag(r)) = report.result else { panic!() };
    let spent: u64 = r.methods.iter().map(|m| m.cost).sum();
    assert_eq!(phase_basis(&cost, "methods"), Basis::Bound);
    assert!(spent as f64 <= cost.count("methods"), "{spent} > {}", cost.count("methods"));
    assert!(spent > 0);
}

/// Learning-rate schedules: every run's optimiser steps, as the report counts them (noisy quadratic: one example
/// a step).
#[test]
fn lr_schedule_counts_its_steps() {
    let (cost, report, _) = run(small(Kind::LrSchedule));
    let Some(Output::LrSchedule(r)) = report.result else { panic!() };
    let steps: usize = r.methods.iter().map(|m| m.compute_steps).sum();
    assert_eq!(steps as f64, cost.count("training"));
}

/// Step size: the gradient evaluations of every window of every run, exactly (no chain diverges here).
#[test]
fn step_size_counts_its_gradient_evaluations() {
    let (cost, report, _) = run(small(Kind::StepSize));
    let Some(Output::StepSize(r)) = report.result else { panic!() };
    assert!(r.fixed.iter().chain([&r.gp_ucb]).all(|t| t.diverged_windows == 0));
    let g: u64 = r.fixed.iter().chain([&r.gp_ucb]).map(|t| t.grad_evals).sum();
    assert_eq!(g as f64, cost.count("chains"));
}

/// TVO: every run trains every epoch over the training images (the `started` event's `n_train`).
#[test]
fn tvo_counts_its_image_epochs() {
    let cfg = small(Kind::Tvo);
    let ExperimentConfig::Tvo(t) = &cfg else { panic!() };
    let runs = t.methods.len() * t.repeats;
    let (cost, _, events) = run(cfg.clone());
    let n_train = events
        .iter()
        .find_map(|e| match e {
            Event::Progress {
                detail: Detail::Tvo(tunelab::experiments::tvo::TvoEvent::Started { n_train, .. }),
                ..
            } => Some(*n_train),
            _ => None,
        })
        .expect("a started event");
    let epochs = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Progress {
                    detail: Detail::Tvo(
                        tunelab::experiments::tvo::TvoEvent::Epoch { .. }
                            | tunelab::experiments::tvo::TvoEvent::Window { .. }
                    ),
                    ..
                }
            )
        })
        .count();
    assert_eq!(cost.count("training"), (runs * epochs * n_train) as f64);
}

/// Bandit: every algorithm pulls `rounds` times per repeat (the report's compute units, means over repeats).
#[test]
fn bandit_counts_its_pulls() {
    let (cost, report, _) = run(small(Kind::Bandit));
    let Some(Output::Bandit(r)) = report.result else { panic!() };
    let repeats = r.config.repeats as f64;
    let pulls: f64 = r.algorithms.iter().map(|a| a.compute.units.last().copied().unwrap_or(0.0) * repeats).sum();
    assert_eq!(pulls, cost.count("pulls"));
}

/// The multi-task experiment (Picheny et al. Sec. 4): every training run it makes (baselines and all candidates on
/// the new task, Algorithm 2's runs, its recommendation and all candidates on each previous task, the four tuners'
/// runs), counted from the report, times each run's examples.
#[test]
fn lr_multitask_counts_every_training_run() {
    let cfg = super::lrsched_multitask::tiny();
    let (cost, report, _) = run(ExperimentConfig::LrSchedule(cfg.clone()));
    let Some(Output::LrSchedule(r)) = report.result else { panic!() };
    let mt = r.multitask.as_ref().expect("multitask report");
    let baselines = r.methods.len() - 4;
    let runs = baselines
        + mt.target_grid.len()
        + mt.source_runs.len()
        + mt.recommended_final.len()
        + mt.source_grid.iter().map(Vec::len).sum::<usize>()
        + [&mt.universal, &mt.learn_location, &mt.cold, &mt.random].iter().map(|t| t.runs.len()).sum::<usize>();
    let per_run = (cfg.intervals * cfg.steps_per_interval * cfg.batch) as f64;
    assert_eq!(cost.count("training"), runs as f64 * per_run);
    assert!(cost.unknown.is_none());
}
