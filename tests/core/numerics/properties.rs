//! Property tests (proptest) of the core's invariants: successive-halving schedules, warm start equals the
//! uninterrupted chain, KSD invariant to the order of the samples, one random stream per (seed, id), and no
//! non-finite value ever leaves a sampler as a sample. Case counts are modest so the suite stays fast.

use proptest::prelude::*;
use rand::RngExt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tunelab::bandit::schedule::n_rounds;
use tunelab::data::simulate_logistic;
use tunelab::experiments::sgmcmc::mamba_schedule;
use tunelab::model::{Gaussian, LogisticRegression, Target};
use tunelab::rng::stream;
use tunelab::sampler::*;
use tunelab::stein::{ksd, Estimator, KernelScale, KsdOptions};

fn no_cancel() -> AtomicBool {
    AtomicBool::new(false)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// MAMBA's schedule (tune::schedule's module doc): rounds = max(1, floor(log_eta M)); round 0 runs all M
    /// arms; round i+1 runs the max(1, floor(|S_i| / eta)) survivors of round i; per-arm budgets r0 eta^i add up
    /// to R for the arm that survives every round; after the last round between 1 and eta - 1 arms are left
    /// (when M >= eta; one when M < eta).
    #[test]
    fn halving_schedule_is_consistent(m in 1usize..200, eta in 2usize..6, r in 1.0f64..1e7) {
        let e = tunelab::bandit::Eta::new(eta).unwrap();
        let plan = mamba_schedule(m, e, r);
        // Rounds: the largest k with eta^k <= M, at least 1.
        let mut k = 0u32;
        while eta.pow(k + 1) <= m { k += 1; }
        prop_assert_eq!(plan.len(), (k as usize).max(1));
        prop_assert_eq!(plan.len(), n_rounds(m, e));
        prop_assert_eq!(plan[0].arms, m);
        for (i, p) in plan.iter().enumerate() {
            prop_assert_eq!(p.keep, (p.arms / eta).max(1), "keep of round {}", i);
            prop_assert!(p.keep <= p.arms);
            if let Some(next) = plan.get(i + 1) {
                prop_assert_eq!(next.arms, p.keep);
                let ratio = next.budget / p.budget;
                prop_assert!((ratio - eta as f64).abs() < 1e-9 * eta as f64, "budget ratio {}", ratio);
            }
            prop_assert!(p.budget > 0.0 && p.budget.is_finite());
        }
        let survivor: f64 = plan.iter().map(|p| p.budget).sum();
        prop_assert!((survivor - r).abs() <= 1e-9 * r, "survivor budget {} != R = {}", survivor, r);
        let left = plan.last().unwrap().keep;
        if m >= eta {
            prop_assert!((1..eta).contains(&left), "{} arms left after the last round", left);
            prop_assert_eq!(left, m / eta.pow(plan.len() as u32));
        } else {
            prop_assert_eq!(left, 1);
        }
    }

    /// One stream per (seed, id): the same pair gives the same draws, distinct ids (or seeds) distinct ones.
    #[test]
    fn one_stream_per_seed_and_id(seed in any::<u64>(), a in any::<u64>(), b in any::<u64>()) {
        let first = |s: u64, id: u64| -> [u64; 2] { let mut r = stream(s, id); [r.random(), r.random()] };
        prop_assert_eq!(first(seed, a), first(seed, a));
        if a != b {
            prop_assert_ne!(first(seed, a), first(seed, b));
        }
        prop_assert_ne!(first(seed, a), first(seed.wrapping_add(1), a));
    }
}

/// A small logistic-regression target with real data (for the control-variate samplers).
fn logistic(seed: u64) -> LogisticRegression {
    let (ds, _) = simulate_logistic(30, 2, &mut stream(seed, 1)).unwrap();
    LogisticRegression::new(Arc::new(ds), 10.0, false).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Warm start: running B iterations, stopping and resuming for B more gives exactly (bitwise) the chain
    /// of 2B iterations in one call: the same samples, position, counters.
    #[test]
    fn warm_start_equals_uninterrupted_chain(
        b in 1u64..60, thin in 1usize..5, seed in any::<u64>(), kind in 0usize..SamplerKind::ALL.len(),
        log_step in -4.0f64..-2.0, batch in 1usize..30,
    ) {
        let t = logistic(seed % 7);
        let kind = SamplerKind::ALL[kind];
        let mut p = SamplerParams::new(kind, 10f64.powf(log_step), BatchSize::Count(batch));
        p.leapfrog = 3;
        let v = p.validate(t.n_data()).unwrap();
        let cv = Arc::new(ControlVariate::new(&t, vec![0.0; t.dim()]).unwrap());
        let mk = || Chain::new(&t, v.clone(), vec![0.1; t.dim()], Some(cv.clone()), stream(seed, 3)).unwrap();
        let (mut once, mut twice) = (mk(), mk());
        let (mut o1, mut o2) = (Vec::new(), Vec::new());
        once.run(&t, Budget::Iterations(2 * b), thin, &mut o1, &no_cancel());
        twice.run(&t, Budget::Iterations(b), thin, &mut o2, &no_cancel());
        twice.run(&t, Budget::Iterations(b), thin, &mut o2, &no_cancel());
        prop_assert_eq!(&o1, &o2, "{}", kind);
        prop_assert_eq!(once.theta(), twice.theta());
        prop_assert_eq!(once.momentum(), twice.momentum());
        prop_assert_eq!((once.iters(), once.grad_evals(), once.status()), (twice.iters(), twice.grad_evals(), twice.status()));
    }

    /// No NaN (or infinity) leaves a sampler as a sample: whatever the step size (up to absurd ones), every
    /// kept sample is finite, and a chain whose state became non-finite reports `Diverged` and keeps nothing
    /// after it.
    #[test]
    fn no_non_finite_sample_leaves_a_sampler(
        log_step in -3.0f64..6.0, seed in any::<u64>(), kind in 0usize..3, iters in 1u64..400, thin in 1usize..4,
    ) {
        let g = Gaussian::new(vec![1.0, -2.0], vec![1.0, 0.3, 0.3, 0.5]).unwrap();
        let kind = [SamplerKind::Sgld, SamplerKind::Sghmc, SamplerKind::Sgnht][kind];
        let v = SamplerParams::new(kind, 10f64.powf(log_step), BatchSize::Count(1)).validate(1).unwrap();
        let mut c = Chain::new(&g, v, vec![0.0; 2], None, stream(seed, 0)).unwrap();
        let mut out = Vec::new();
        let st = c.run(&g, Budget::Iterations(iters), thin, &mut out, &no_cancel());
        prop_assert!(out.iter().all(|x| x.is_finite()), "a non-finite sample left the {} chain", kind);
        let state_finite = c.theta().iter().chain(c.momentum()).all(|x| x.is_finite()) && c.thermostat().is_finite();
        match st.status {
            ChainStatus::Running => prop_assert!(state_finite),
            ChainStatus::Diverged { iter } => {
                prop_assert!(!state_finite);
                // Only samples of iterations before the divergence were kept.
                prop_assert!(out.len() / 2 <= (iter as usize - 1) / thin);
                let again = c.run(&g, Budget::Iterations(5), 1, &mut out, &no_cancel());
                prop_assert_eq!((again.iters, again.kept), (0, 0));
            }
        }
    }

    /// KSD is a sum over pairs of a symmetric Stein kernel: the V- and U-statistics are invariant to the
    /// order of the samples (permuting the rows of samples and scores together), for every kernel scale, up to
    /// the rounding of a different summation order. (The linear-time estimate pairs consecutive rows, so it
    /// is not order-invariant by design.)
    #[test]
    fn ksd_is_invariant_to_sample_order(
        n in 2usize..24, d in 1usize..4, seed in any::<u64>(),
        values in proptest::collection::vec(-3.0f64..3.0, 2 * 24 * 4),
    ) {
        let samples: Vec<f64> = values[..n * d].to_vec();
        let scores: Vec<f64> = values[n * d..2 * n * d].iter().map(|s| s - 0.5).collect();
        // A seeded permutation of the rows (Fisher-Yates), and the reversal (the swap of a pair when n = 2).
        let mut perm: Vec<usize> = (0..n).collect();
        let mut r = stream(seed, 0);
        for i in (1..n).rev() { perm.swap(i, r.random_range(0..=i)); }
        let rev: Vec<usize> = (0..n).rev().collect();
        let permute = |m: &[f64], p: &[usize]| -> Vec<f64> { p.iter().flat_map(|&i| m[i * d..i * d + d].to_vec()).collect() };
        for scale in [KernelScale::Fixed, KernelScale::Median, KernelScale::MedianPrecond] {
            for estimator in [Estimator::V, Estimator::U] {
                let opts = KsdOptions { scale, estimator, ..KsdOptions::default() };
                let Ok(base) = ksd(&samples, &scores, d, &opts) else {
                    // Only a degenerate sample (all rows equal: no median distance) may fail; then so must the
                    // permuted ones.
                    prop_assert!(ksd(&permute(&samples, &perm), &permute(&scores, &perm), d, &opts).is_err());
                    continue;
                };
                for p in [&perm, &rev] {
                    let other = ksd(&permute(&samples, p), &permute(&scores, p), d, &opts).unwrap();
                    let tol = 1e-9 * (1.0 + base.ksd_sq.abs());
                    prop_assert!((other.ksd_sq - base.ksd_sq).abs() <= tol,
                        "{:?} {:?}: {} vs {} after permuting rows", scale, estimator, other.ksd_sq, base.ksd_sq);
                    prop_assert!((other.c - base.c).abs() <= 1e-12 * (1.0 + base.c.abs()));
                }
            }
        }
    }
}
