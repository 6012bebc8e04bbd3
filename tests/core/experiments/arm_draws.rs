//! The report's per-arm drill-down draws (issue 26, "Beyond the anchors"): every arm's kept draws are rows of
//! its own chain from its last round, the chosen arm's are rows of `best.samples`, the bound holds, 0 keeps
//! none, and the thread count changes nothing (see also `tune::same_result_for_one_and_many_threads`).

use std::sync::atomic::AtomicBool;
use tunelab::experiments::sgmcmc::Posterior;
use tunelab::experiments::tune::{self, presets, Event, TuneConfig};
use tunelab::rng;
use tunelab::sampler::{BatchSize, Budget, Chain, SamplerParams};

fn quiet() -> impl FnMut(&Event) {
    |_e: &Event| {}
}

/// The Gaussian preset (d = 2, 9 arms, start at zero) with 6,000 iterations thinned by 20: 300 samples for the
/// chosen arm, so `best.samples` holds all of them.
fn cfg() -> TuneConfig {
    let mut c = presets::preset("gaussian").unwrap();
    c.budget = tune::BudgetSpec { iterations: Some(6_000.0), ..Default::default() };
    c.thin = 20;
    c.arm_draws = 40;
    c
}

#[test]
fn every_arms_draws_are_rows_of_its_chain_from_its_last_round() {
    let cfg = cfg();
    let problem = Posterior::build(&cfg, None).unwrap();
    let rep = tune::run_on(&cfg, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    let d = problem.dim;
    assert!(rep.arms.len() >= 3);
    for arm in &rep.arms {
        let v = arm.draws.as_ref().unwrap_or_else(|| panic!("arm {} has no draws", arm.info.id));
        assert_eq!(v.coords, vec![0, 1]);
        assert_eq!(v.round + 1, arm.scores.len(), "arm {}: the draws come from its last round", arm.info.id);
        assert_eq!(v.values.len(), 2 * v.index.len());
        // The arm's chain re-run in one go (same start, stream and settings) for the iterations it ran.
        let params = SamplerParams {
            kind: cfg.sampler.kind,
            step: arm.info.step,
            batch: BatchSize::Count(arm.info.batch),
            leapfrog: arm.info.leapfrog,
            friction: cfg.sampler.friction,
            thermostat_a: cfg.sampler.thermostat_a,
            with_replacement: cfg.sampler.with_replacement,
        }
        .validate(problem.n_data)
        .unwrap();
        let mut chain =
            Chain::new(problem.train.as_ref(), params, vec![0.0; d], None, rng::stream(cfg.seed, arm.info.id as u64))
                .unwrap();
        let mut out = Vec::new();
        chain.run(problem.train.as_ref(), Budget::Iterations(arm.iters), cfg.thin, &mut out, &AtomicBool::new(false));
        let n = out.len() / d;
        assert_eq!(n, arm.samples, "arm {}", arm.info.id);
        // The last round's samples: those after the rounds before it (the arm ran each round's budget).
        let before: u64 = rep.rounds[..v.round].iter().map(|r| r.budget.round() as u64).sum();
        let first = before as usize / cfg.thin;
        let in_round = n - first;
        if arm.diverged_iter.is_none() {
            assert_eq!(v.index.len(), in_round.min(cfg.arm_draws), "arm {}", arm.info.id);
        }
        assert!(v.index.len() <= cfg.arm_draws);
        for (k, &i) in v.index.iter().enumerate() {
            let i = i as usize;
            assert!(i >= first && i < n, "arm {}: draw index {i} outside its last round [{first}, {n})", arm.info.id);
            assert_eq!(&v.values[2 * k..2 * k + 2], &out[i * d..i * d + 2], "arm {} draw {k}", arm.info.id);
        }
        assert!(v.index.windows(2).all(|w| w[0] < w[1]));
    }
    // The chosen arm: its draws are rows of the report's samples (all 300 of them are there).
    let best = rep.best.as_ref().unwrap();
    let v = rep.arms.iter().find(|a| a.info.id == best.arm).unwrap().draws.as_ref().unwrap();
    assert_eq!(best.samples.len() / d, best.posterior.n);
    assert_eq!(v.index.len(), cfg.arm_draws);
    for (k, &i) in v.index.iter().enumerate() {
        let i = i as usize;
        assert_eq!(&v.values[2 * k..2 * k + 2], &best.samples[i * d..i * d + 2]);
    }
}

#[test]
fn draws_are_bounded_optional_and_checked() {
    let mut c = cfg();
    c.arm_draws = 0;
    let problem = Posterior::build(&c, None).unwrap();
    let none = tune::run_on(&c, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    assert!(none.arms.iter().all(|a| a.draws.is_none()));
    let json = serde_json::to_value(&none).unwrap();
    assert!(json["arms"][0].get("draws").is_none(), "no draws field when arm_draws = 0");
    c.arm_draws = 5;
    let five = tune::run_on(&c, &problem, &mut quiet(), &AtomicBool::new(false)).unwrap();
    assert!(five.arms.iter().all(|a| a.draws.as_ref().unwrap().index.len() <= 5));
    // The drill-down adds at most 6 arm_draws floats per arm to what the run holds.
    let extra = five.compute.kept_floats_max - none.compute.kept_floats_max;
    assert!(extra > 0 && extra <= 6 * 5 * five.arms.len(), "extra floats held: {extra}");
    // Everything else is unchanged by it.
    assert_eq!(five.best.as_ref().unwrap().samples, none.best.as_ref().unwrap().samples);
    for (x, y) in five.arms.iter().zip(&none.arms) {
        assert_eq!(x.scores, y.scores);
    }
    c.arm_draws = tune::ARM_DRAWS_MAX + 1;
    assert!(c.validate().unwrap_err().to_string().contains("arm_draws"));
    // An older config without the field gets the default.
    let mut v = serde_json::to_value(cfg()).unwrap();
    v.as_object_mut().unwrap().remove("arm_draws");
    let back: TuneConfig = serde_json::from_value(v).unwrap();
    assert_eq!(back.arm_draws, tune::DEFAULT_ARM_DRAWS);
}
