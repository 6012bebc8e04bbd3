//! The continuous SG-MCMC reservoir of the bandit tuners (`sgmcmc-ksd` with `continuous: true`): arms are
//! configurations drawn from a continuous distribution per (seed, arm), a pull runs the chain and is rewarded by
//! the KSD transform, and D-TTTS's dynamic reservoir keeps adding arms.
use crate::common::contract;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tunelab::experiments::bandit::BanditExperiment;

use tunelab::bandit::{Arm, TttsOptions};
use tunelab::experiments::bandit::sgmcmc_ksd::{
    ksd_reward, SgmcmcKsdSpec, SgmcmcReservoir, SgmcmcReservoirShared, SgmcmcTable,
};
use tunelab::experiments::bandit::{AlgoSpec, BanditConfig, BanditReport, Problem, ProblemSpec};
use tunelab::rng::stream;
use tunelab::sampler::SamplerKind;

fn small() -> SgmcmcKsdSpec {
    SgmcmcKsdSpec {
        data: serde_json::from_str(r#"{"source": "simulate", "n": 300, "d": 3}"#).unwrap(),
        iterations: 300,
        thin: 3,
        reference_warmup: 300,
        continuous: true,
        truth_runs: 3,
        reference_arms: 12,
        ..SgmcmcKsdSpec::default()
    }
}

fn shared(spec: &SgmcmcKsdSpec) -> Arc<SgmcmcReservoirShared> {
    Arc::new(SgmcmcReservoirShared::build(spec, None, &mut |_, _| {}, &AtomicBool::new(false)).unwrap())
}

#[test]
fn a_pull_is_reproducible_from_seed_arm_and_pull_index() {
    let sh = shared(&small());
    let keys: Vec<(usize, u64)> = (0..3).flat_map(|k| (0..2).map(move |j| (k, j))).collect();
    let mut p = SgmcmcReservoir::new(sh.clone(), 11);
    let forward: Vec<(f64, f64)> = keys.iter().map(|&(k, j)| p.reward(k, j).unwrap()).collect();
    // another instance, pulls in the reverse order: the same reward and cost for every (arm, pull)
    let mut q = SgmcmcReservoir::new(sh.clone(), 11);
    let mut backward: Vec<(f64, f64)> = keys.iter().rev().map(|&(k, j)| q.reward(k, j).unwrap()).collect();
    backward.reverse();
    assert_eq!(forward, backward);
    // rewards in [0, 1], costs at least the KSD's full-data scores (100 kept samples x 300 points)
    assert!(forward.iter().all(|(r, c)| (0.0..=1.0).contains(r) && *c >= 30_000.0), "{forward:?}");
    // the pull index matters (a fresh run), and so does the arm
    assert!(keys.chunks(2).zip(forward.chunks(2)).any(|(_, f)| f[0] != f[1]), "{forward:?}");
    // Problem::pull counts the arm's pulls: its j-th pull of an arm is reward(k, j), whatever came between
    let mut r = SgmcmcReservoir::new(sh.clone(), 11);
    let mut rng = stream(1, 1);
    let a2 = r.pull(&Arm::Index(2), 0, &mut rng).unwrap();
    let a0 = r.pull(&Arm::Index(0), 1, &mut rng).unwrap();
    let a2b = r.pull(&Arm::Index(2), 2, &mut rng).unwrap();
    assert_eq!((a2, a0, a2b), (forward[4].0, forward[0].0, forward[5].0));
    assert_eq!(r.cost(&Arm::Index(2)), forward[5].1);
    // arms are drawn per (seed, arm) from the continuous box: no two alike, a new seed gives new arms
    let c: Vec<_> = (0..40).map(|k| p.config(k).clone()).collect();
    for a in &c {
        assert!((1e-6..=1e-2).contains(&a.step) && (1..=60).contains(&a.batch), "{a:?}");
    }
    for i in 0..c.len() {
        assert!(c[i + 1..].iter().all(|b| b.step != c[i].step));
    }
    assert_eq!(SgmcmcReservoir::new(sh.clone(), 11).config(7), &c[7]);
    assert_ne!(SgmcmcReservoir::new(sh.clone(), 12).config(7), &c[7]);
    // an arm's value is its mean reward over the truth runs; the optimum is the best of the reference draws
    let v = p.value(&Arm::Index(1), 0);
    assert_eq!(v, sh.truth_of(&c[1]).unwrap());
    assert!((0.0..=1.0).contains(&v) && sh.optimum() > 0.0 && sh.optimum() <= 1.0);
    assert!(p.describe(&Arm::Index(1)).unwrap().contains("value"));
}

#[test]
fn reference_case_good_stuck_and_wild_steps_and_the_pool_floor() {
    // pinned configurations (one sampler, one step, one batch): the reservoir's arms are all that configuration
    let with_step = |l: f64| SgmcmcKsdSpec {
        samplers: vec![SamplerKind::SgldCv],
        log10_step: (l, l),
        batch_fraction: (0.1, 0.1),
        ..small()
    };
    let good = shared(&with_step(-2.5));
    let stuck = shared(&with_step(-9.0));
    let wild = shared(&with_step(1.0));
    // the floor K0 is the pooled table's for the same data and seed (one setup for both kinds of problem)
    let pool = SgmcmcTable::build(
        &SgmcmcKsdSpec { continuous: false, pool: 2, ..with_step(-2.5) },
        None,
        &mut |_, _| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(good.floor(), pool.floor);
    assert_eq!(stuck.floor(), pool.floor);
    let mut g = SgmcmcReservoir::new(good.clone(), 3);
    assert_eq!(g.config(0), &pool.arms[0]);
    // a chain stuck at the MAP is a point mass: about a tenth of the reward of a mixing chain (as in the pool)
    let vg = g.value(&Arm::Index(0), 0);
    let vs = SgmcmcReservoir::new(stuck.clone(), 3).value(&Arm::Index(0), 0);
    let vw = SgmcmcReservoir::new(wild.clone(), 3).value(&Arm::Index(0), 0);
    assert!(vs > 0.0 && vs < 0.15, "stuck {vs}");
    assert!(vg > 4.0 * vs, "good {vg} vs stuck {vs}");
    assert!(vw < 0.01, "wild {vw}");
    // pulls are unbiased for the value: the mean of 40 pulls is within 4 standard errors
    let r: Vec<f64> = (0..40).map(|j| g.reward(0, j).unwrap().0).collect();
    let m = r.iter().sum::<f64>() / 40.0;
    let se = (r.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 39.0 / 40.0).sqrt();
    assert!((m - vg).abs() < 4.0 * se + 0.1 / 3f64.sqrt(), "mean pull {m} (se {se}) vs value {vg}");
    // every pulled reward is the transform of a KSD: within [0, 1], and a diverged run scores exactly 0
    assert!(r.iter().all(|x| (0.0..=1.0).contains(x)));
    assert_eq!(ksd_reward(None, good.floor()), 0.0);
}

fn strip(mut r: BanditReport) -> BanditReport {
    r.seconds = 0.0;
    for a in r.algorithms.iter_mut() {
        a.compute.seconds.iter_mut().for_each(|s| *s = 0.0);
    }
    r
}

#[test]
fn d_ttts_keeps_drawing_arms_and_the_run_is_independent_of_threads() {
    let cfg = BanditConfig {
        problem: ProblemSpec::SgmcmcKsd(small()),
        algorithms: vec![AlgoSpec::DTtts(TttsOptions::default()), AlgoSpec::Ttts(TttsOptions::default())],
        rounds: 100,
        repeats: 2,
        seed: 5,
        checkpoints: Some(5),
        band: 1.96,
        repeat_range: None,
    };
    let text = serde_json::to_string(&cfg).unwrap();
    assert!(text.contains(r#""continuous":true"#));
    assert_eq!(BanditConfig::from_json(&text).unwrap(), cfg);
    let go = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            strip(contract::run::<BanditExperiment>(cfg.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap())
        })
    };
    let a = go(1);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&go(2)).unwrap());
    assert!(a.problem.contains("continuous reservoir"), "{}", a.problem);
    let by = |n: &str| a.algorithms.iter().find(|x| x.name == n).unwrap();
    let last = |x: &tunelab::experiments::bandit::AlgoReport| *x.distinct_arms.mean.last().unwrap();
    // TTTS stays on its ceil(sqrt(100)) = 10 arms; D-TTTS enters new ones from the reservoir
    assert_eq!(last(by("ttts")), 10.0);
    assert!(last(by("d-ttts")) > 10.0, "{}", last(by("d-ttts")));
    for x in &a.algorithms {
        assert!(x.final_simple_regret.mean.is_finite());
        assert!(x.recommended.iter().all(|r| r.label.as_deref().is_some_and(|l| l.contains("h="))));
        assert_eq!(x.compute.unit, "gradient evaluations");
    }
    // bad options are config errors
    let bad =
        BanditConfig { problem: ProblemSpec::SgmcmcKsd(SgmcmcKsdSpec { truth_runs: 0, ..small() }), ..cfg.clone() };
    assert!(matches!(bad.validate(), Err(tunelab::Error::Config(m)) if m.contains("truth_runs")));
}
