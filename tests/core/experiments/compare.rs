//! `compare`'s evaluation (MAMBA paper sec. 4.1-4.3, issue 25): by default each tuner's chosen hyper-parameters
//! run again in a fresh chain from the MAP, for the paper's multiple of R, burn-in removed, on one stream per
//! seed shared by every tuner; `evaluation: {"kind": "tuning-chain"}` is tunelab's evaluation before, bit for bit.

use std::sync::atomic::AtomicBool;
use tunelab::experiments::compare::{fresh_chain, CompareConfig, Comparison, EvaluationSpec, FreshPlan, STREAM_EVAL};
use tunelab::experiments::sgmcmc::metric::thin_rows;
use tunelab::experiments::sgmcmc::Posterior;
use tunelab::experiments::tune::BudgetSpec;
use tunelab::experiments::{ExperimentConfig, Inputs, Output};
use tunelab::sampler::{BatchSize, Chain, SamplerParams};

/// The CLI test's small comparison (logistic, n = 300, d = 2, 3 step sizes, 20,000 gradient evaluations per arm).
const SMALL: &str = r#"{"kind":"compare","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},
"model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
"batch":[0.1]},"budget":{"grad_evals":20000},"metric":{"kind":"ksd","max_samples":100},"thin":2,"seed":9,
"reference_samples":300}"#;

fn config(extra: serde_json::Value) -> CompareConfig {
    let mut v: serde_json::Value = serde_json::from_str(SMALL).unwrap();
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let ExperimentConfig::Compare(c) = ExperimentConfig::from_json(&v.to_string(), None).unwrap() else {
        panic!("a compare config")
    };
    c
}

fn run(c: &CompareConfig) -> Comparison {
    let rep = ExperimentConfig::Compare(c.clone())
        .check()
        .unwrap()
        .run(Inputs::default(), &mut |_| {}, &AtomicBool::new(false))
        .unwrap();
    let Some(Output::Compare(cmp)) = rep.result else { panic!("a comparison") };
    cmp
}

/// The evaluations of `SMALL` computed by tunelab before issue 25 (the binary of main at 5dec70f, `tunelab compare
/// --config small.json --threads 1`): "tuning-chain" must give them bit for bit.
const OLD: &str = r#"[
{"ksd": 0.6374525755924068, "std_rel_error": 0.13230825656901388, "xi": 0.12691676705250282, "test_log_loss": 0.4639366258489993, "calibration": {"ece": 0.031755889266102955, "mce": 0.2173915945120668, "accuracy": 0.7666666666666667, "bins": 10, "n": 60, "samples": 100}, "total_grad_evals": 133008, "speedup_vs_grid": 1.0},
{"ksd": 1.4869772401613153, "std_rel_error": 0.46581366066274243, "xi": 0.4526052823266649, "test_log_loss": 0.47015486857816835, "calibration": {"ece": 0.06436743842129244, "mce": 0.11379462125184836, "accuracy": 0.75, "bins": 10, "n": 60, "samples": 100}, "total_grad_evals": 132048, "speedup_vs_grid": 1.0072700836059614},
{"ksd": 0.3658441555977281, "std_rel_error": 0.10509687605922086, "xi": 0.14596762671828323, "test_log_loss": 0.46971621392143403, "calibration": {"ece": 0.03798903267288631, "mce": 0.10796927474924778, "accuracy": 0.7666666666666667, "bins": 10, "n": 60, "samples": 100}, "total_grad_evals": 378000, "speedup_vs_grid": 0.3518730158730159},
{"ksd": 0.6374525755924068, "std_rel_error": 0.13230825656901388, "xi": 0.12691676705250282, "test_log_loss": 0.4639366258489993, "calibration": {"ece": 0.031755889266102955, "mce": 0.2173915945120668, "accuracy": 0.7666666666666667, "bins": 10, "n": 60, "samples": 100}, "total_grad_evals": 133008, "speedup_vs_grid": 1.0},
{"ksd": 0.5385093977412626, "std_rel_error": 0.23564424854619936, "xi": 0.22217870683424304, "test_log_loss": 0.4729967366959119, "calibration": {"ece": 0.033993310413769545, "mce": 0.10834820129121536, "accuracy": 0.7666666666666667, "bins": 10, "n": 60, "samples": 100}, "total_grad_evals": 44976, "speedup_vs_grid": 2.957310565635005}
]"#;

#[test]
fn the_tuning_chain_option_reproduces_the_old_numbers_bit_for_bit() {
    let c = config(serde_json::json!({"evaluation": {"kind": "tuning-chain"}}));
    let cmp = run(&c);
    let old: Vec<serde_json::Value> = serde_json::from_str(OLD).unwrap();
    assert_eq!(cmp.entries.len(), old.len());
    for (e, want) in cmp.entries.iter().zip(&old) {
        // The speed-up against grid (log-loss) came after these numbers: every other field is compared as it was.
        let mut got = serde_json::to_value(&e.evaluation).unwrap();
        assert!(got.as_object_mut().unwrap().remove("speedup_vs_grid_log_loss").is_some(), "{}", e.name);
        assert_eq!(&got, want, "{}", e.name);
        assert!(e.evaluation.fresh_run.is_none());
    }
}

/// Both speed-ups are a grid's gradient evaluations over the tuner's (Coullon, South & Nemeth 2023, Sec. 4.1-4.2
/// measure MAMBA against grid search by log-loss; tunelab also against grid search by KSD); each grid's own is 1,
/// and a comparison without a grid has none against it.
#[test]
fn the_speed_ups_divide_each_grids_compute_by_the_tuners() {
    let c = config(serde_json::json!({"evaluation": {"kind": "tuning-chain"}}));
    let cmp = run(&c);
    let cost = |name: &str| {
        cmp.entries.iter().find(|e| e.name == name).unwrap_or_else(|| panic!("{name}")).evaluation.total_grad_evals
            as f64
    };
    let (ll, ksd) = (cost("grid (log-loss)"), cost("grid (KSD)"));
    assert!(ll != ksd, "the two grids must cost differently for this test to tell them apart");
    for e in &cmp.entries {
        let own = e.evaluation.total_grad_evals as f64;
        assert_eq!(e.evaluation.speedup_vs_grid_log_loss, Some(ll / own), "{}", e.name);
        assert_eq!(e.evaluation.speedup_vs_grid, Some(ksd / own), "{}", e.name);
    }
    assert_eq!(
        cmp.entries.iter().find(|e| e.name == "grid (log-loss)").unwrap().evaluation.speedup_vs_grid_log_loss,
        Some(1.0)
    );
    let only =
        run(&config(serde_json::json!({"evaluation": {"kind": "tuning-chain"}, "tuners": ["MAMBA-KSD", "heuristic"]})));
    for e in &only.entries {
        assert_eq!((e.evaluation.speedup_vs_grid, e.evaluation.speedup_vs_grid_log_loss), (None, None), "{}", e.name);
    }
}

#[test]
fn the_default_evaluation_is_a_fresh_run_of_the_papers_length_from_the_map() {
    let c = config(serde_json::json!({}));
    assert_eq!(c.evaluation, EvaluationSpec::default());
    // logistic: the paper tunes for R = 1 s and tests for 10 s (sec. 4.1), no burn-in named: 10 R, none removed
    let plan = c.evaluation.resolve(&c.base).expect("a fresh run");
    assert_eq!(
        plan,
        FreshPlan { budget: BudgetSpec { grad_evals: Some(200_000.0), ..Default::default() }, burn_in: 0.0 }
    );
    let mut pmf = tunelab::experiments::tune::presets::preset("pmf").unwrap();
    let p = EvaluationSpec::default().resolve(&pmf).unwrap();
    assert_eq!((p.budget.grad_evals, p.burn_in), (Some(2.0e7), 0.1)); // 20 s against R = 10 s, burn-in removed
    pmf.model = tunelab::experiments::tune::presets::preset("mnist-bnn").unwrap().model;
    let p = EvaluationSpec::default().resolve(&pmf).unwrap();
    assert_eq!((p.budget.grad_evals, p.burn_in), (Some(3.0e8), 0.1)); // 300 s against R = 10 s
    let cmp = run(&c);
    for e in &cmp.entries {
        let f = e.evaluation.fresh_run.as_ref().unwrap_or_else(|| panic!("{}: no fresh run", e.name));
        let best = e.report.best.as_ref().unwrap();
        // whole iterations of `batch` data points: the budget, overshot by less than one iteration
        assert!(f.grad_evals >= 200_000 && f.grad_evals < 200_000 + best.batch as u64, "{}: {}", e.name, f.grad_evals);
        assert_eq!(f.burn_in_iters, 0);
        assert_eq!(f.samples as u64, f.iters / 2, "{}: thin 2", e.name);
        // the evaluation is not the tuning chain's
        assert_ne!(e.evaluation.ksd, None);
        assert!(e.evaluation.xi.unwrap().is_finite());
    }
    // strict: an unknown field of the evaluation is refused, and so is a burn-in share outside [0, 1)
    let bad =
        SMALL.replacen("\"seed\":9,", "\"seed\":9,\"evaluation\":{\"kind\":\"fresh-from-map\",\"burnin\":0.1},", 1);
    assert!(ExperimentConfig::from_json(&bad, None).is_err());
    let bad = config(serde_json::json!({"evaluation": {"kind": "fresh-from-map", "burn_in": 1.0}}));
    assert!(ExperimentConfig::Compare(bad).check().is_err());
}

/// The chain of a given plan, rebuilt by hand: a sampler at `start` on the stream `(seed, id)`, `warm`
/// iterations dropped, then `iters` iterations kept every `thin`-th.
#[allow(clippy::too_many_arguments, reason = "each argument is one part of the plan the test rebuilds")]
fn by_hand(
    problem: &Posterior,
    c: &CompareConfig,
    step: f64,
    batch: usize,
    start: Vec<f64>,
    id: u64,
    warm: u64,
    iters: u64,
) -> Vec<f64> {
    let params = SamplerParams {
        kind: c.base.sampler.kind,
        step,
        batch: BatchSize::Count(batch),
        leapfrog: 10,
        friction: c.base.sampler.friction,
        thermostat_a: c.base.sampler.thermostat_a,
        with_replacement: false,
    }
    .validate(problem.n_data)
    .unwrap();
    let mut chain =
        Chain::new(problem.train.as_ref(), params, start, None, tunelab::rng::stream(c.base.seed, id)).unwrap();
    let stop = AtomicBool::new(false);
    let mut burn = Vec::new();
    chain.run(problem.train.as_ref(), tunelab::sampler::Budget::Iterations(warm), c.base.thin, &mut burn, &stop);
    let mut out = Vec::new();
    chain.run(problem.train.as_ref(), tunelab::sampler::Budget::Iterations(iters), c.base.thin, &mut out, &stop);
    out
}

#[test]
fn the_evaluation_chain_starts_at_the_map_removes_the_burn_in_on_its_own_stream() {
    let c = config(serde_json::json!({"reference_samples": 0, "tuners": ["MAMBA-KSD", "grid (KSD)", "heuristic"]}));
    let cmp = run(&c);
    let problem = Posterior::build(&c.base, None).unwrap();
    let d = problem.dim;
    let plan = FreshPlan { budget: BudgetSpec { iterations: Some(400.0), ..Default::default() }, burn_in: 0.25 };
    let stop = AtomicBool::new(false);
    for e in &cmp.entries {
        let best = e.report.best.as_ref().unwrap();
        let (run, x, moments) = fresh_chain(&problem, &e.report.config, best, &plan, &stop).unwrap();
        // burn-in: 100 of the 400 iterations; kept every 2nd of iterations 101..=400: 150 samples
        assert_eq!((run.iters, run.burn_in_iters, run.samples, moments.n), (400, 100, 150, 150), "{}", e.name);
        // the same chain rebuilt by hand: from the MAP, on (seed, STREAM_EVAL), 100 iterations dropped
        let want = by_hand(&problem, &c, best.step, best.batch, problem.map.clone(), STREAM_EVAL, 100, 300);
        assert_eq!(want.len(), 150 * d);
        assert_eq!(x, thin_rows(&want, d, 1000), "{}", e.name);
        // ... and not from elsewhere, nor on the tuning chain's stream, nor with its burn-in kept
        let mut off = problem.map.clone();
        off[0] += 1e-3;
        assert_ne!(x, by_hand(&problem, &c, best.step, best.batch, off, STREAM_EVAL, 100, 300));
        assert_ne!(x, by_hand(&problem, &c, best.step, best.batch, problem.map.clone(), best.arm as u64, 100, 300));
        assert_ne!(x[..d], by_hand(&problem, &c, best.step, best.batch, problem.map.clone(), STREAM_EVAL, 0, 400)[..d]);
    }
    // independent of the tuner: MAMBA-KSD and grid (KSD) choose the same arm here, and get the same evaluation
    let (m, g, h) = (&cmp.entries[0], &cmp.entries[1], &cmp.entries[2]);
    assert_eq!(m.report.best.as_ref().unwrap().arm, g.report.best.as_ref().unwrap().arm);
    assert_eq!(m.evaluation.ksd, g.evaluation.ksd);
    let timeless = |e: &tunelab::experiments::compare::CompareEntry| tunelab::experiments::compare::FreshRun {
        seconds: 0.0,
        ..e.evaluation.fresh_run.clone().unwrap()
    };
    assert_eq!(timeless(m), timeless(g));
    assert_eq!((m.evaluation.xi, m.evaluation.test_log_loss), (g.evaluation.xi, g.evaluation.test_log_loss));
    assert_ne!(m.evaluation.ksd, h.evaluation.ksd, "another step size, another evaluation");
    // deterministic: the same comparison again gives the same evaluations; another seed does not
    let again = run(&c);
    for (a, b) in cmp.entries.iter().zip(&again.entries) {
        assert_eq!(
            (a.evaluation.ksd, a.evaluation.test_log_loss, a.evaluation.calibration.clone()),
            (b.evaluation.ksd, b.evaluation.test_log_loss, b.evaluation.calibration.clone()),
            "{}",
            a.name
        );
    }
    let mut other = c.clone();
    other.base.seed = 10;
    let o = run(&other);
    assert_ne!(o.entries[2].evaluation.ksd, h.evaluation.ksd);
}

/// The committed config of the paper's PMF comparison (App. B.2): the hierarchical model with tau = (3, 0, 4, 5),
/// d = 20, 12 step sizes from 1e-2 to 10^-7.5, batches 100 / 10 / 1%, L in {5, 10} for SGHMC; it checks.
#[test]
fn the_papers_pmf_config_is_app_b2() {
    let text = include_str!("../../../scripts/reproduce/mamba/pmf-paper.json");
    let ExperimentConfig::Compare(c) = ExperimentConfig::from_json(text, None).unwrap() else {
        panic!("a compare config")
    };
    use tunelab::model::{ModelSpec, PmfPrior};
    let ModelSpec::Pmf { latent, prior, .. } = &c.base.model else { panic!("pmf") };
    assert_eq!((*latent, *prior), (20, PmfPrior::paper()));
    let steps = c.base.arms.log10_step.unwrap().values().unwrap();
    assert_eq!(steps.len(), 12);
    assert_eq!((steps[0], steps[11]), (-7.5, -2.0));
    assert_eq!(c.base.arms.batch, [BatchSize::Fraction(1.0), BatchSize::Fraction(0.1), BatchSize::Fraction(0.01)]);
    assert_eq!(c.base.arms.leapfrog, [5, 10]);
    let sghmc =
        tunelab::experiments::sgmcmc::arm_count(&c.base.tuner, &c.base.arms, tunelab::sampler::SamplerKind::Sghmc)
            .unwrap();
    assert_eq!(sghmc, 12 * 3 * 2);
    // 36 arms at d = 53,380 fit the 2 GiB bound with 30 samples per score (the `pmf` preset: 50); SGHMC's 72
    // arms need 10 (docs/papers/mamba.md)
    assert_eq!(c.base.metric.max_samples, 30);
    let mut sghmc = c.clone();
    sghmc.base.sampler.kind = tunelab::sampler::SamplerKind::Sghmc;
    assert!(ExperimentConfig::Compare(sghmc.clone()).check().is_err());
    sghmc.base.metric.max_samples = 10;
    if let Err(e) = ExperimentConfig::Compare(sghmc).check() {
        panic!("{e}")
    }
    if let Err(e) = ExperimentConfig::Compare(c).check() {
        panic!("{e}")
    }
}
