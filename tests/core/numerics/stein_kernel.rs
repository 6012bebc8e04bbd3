//! Issue 12 §1: which Stein kernel MAMBA scores arms with. A Gaussian posterior N(mu, 0.03^2 I) and the
//! issue's sample sets (exact draws, 20% / 50% / 2x too wide, stuck 5 sd away with 2% spread, stuck 2 sd away
//! in every coordinate, stuck at the mean, an oscillating chain, under-dispersed draws) at n = 50, 300, 1000
//! and d = 2, 10, 100. `choose_kernel_by_evidence` compares the candidate kernels on seeds 1000-1004 (the
//! seeds that chose the default); `default_kernel_orders_sample_sets` asserts the chosen default on seeds
//! 1-3 and prints the table (seed 1). `exploded_cloud_with_bounded_scores` is the MAMBA-KSD failure of the
//! paper-logreg run (an SGHMC chain tens of thousands of posterior sds wide chosen as best): on the logistic
//! regression the scores are bounded far from the mode, so the IMQ part alone scores such a cloud near zero.

use rand_distr::{Distribution, StandardNormal};
use tunelab::experiments::sgmcmc;
use tunelab::experiments::sgmcmc::run_kernel::{KsdKernel, RunKernel};
use tunelab::experiments::tune::{self, MetricKind, MetricSpec};
use tunelab::rng;
use tunelab::stein::{Estimator, KernelScale, KsdOptions};

const SD: f64 = 0.03;

const SETS: &[&str] = &[
    "exact draws",
    "20% too wide",
    "50% too wide",
    "twice too wide",
    "stuck 5 sd away (2% spread)",
    "stuck 2 sd away in every coordinate",
    "stuck at the mean",
    "oscillating (+-3 sd in every coordinate)",
    "under-dispersed (half the sd)",
    "exploded (10,000 sd wide)",
];

fn mu(d: usize) -> Vec<f64> {
    (0..d).map(|k| 0.3 * ((k % 3) as f64) - 0.2).collect()
}

/// The sample sets and their scores `-(x - mu) / SD^2`.
fn sample_sets(n: usize, d: usize, seed: u64) -> Vec<(Vec<f64>, Vec<f64>)> {
    let m = mu(d);
    let mut out = Vec::new();
    for (id, _) in SETS.iter().enumerate() {
        let mut r = rng::stream(seed, id as u64);
        let mut x = Vec::with_capacity(n * d);
        for i in 0..n {
            for (k, mk) in m.iter().enumerate() {
                let z: f64 = StandardNormal.sample(&mut r);
                let v = match id {
                    0 => z,
                    1 => 1.2 * z,
                    2 => 1.5 * z,
                    3 => 2.0 * z,
                    4 => 0.02 * z + if k == 0 { 5.0 } else { 0.0 },
                    5 => 0.02 * z + 2.0,
                    6 => 0.02 * z,
                    7 => 0.02 * z + if i % 2 == 0 { 3.0 } else { -3.0 },
                    8 => 0.5 * z,
                    _ => 1e4 * z,
                };
                x.push(mk + SD * v);
            }
        }
        let s: Vec<f64> = x.iter().enumerate().map(|(j, v)| -(v - m[j % d]) / (SD * SD)).collect();
        out.push((x, s));
    }
    out
}

/// A candidate kernel: name and scorer (sqrt |KSD^2|, +inf when undefined, as MAMBA ranks).
struct Candidate {
    name: &'static str,
    kernel: Box<dyn Fn(usize) -> RunKernel>,
}

fn run_kernel(d: usize, c: f64, est: Estimator) -> RunKernel {
    RunKernel::with_precond(vec![SD; d], "true sd", c, -0.5, est, 0)
}

/// The run kernel with the moment term of weight `w`, centred at the posterior mode (the MAP of a run).
fn run_moment(d: usize, w: f64) -> RunKernel {
    run_kernel(d, 1.0, Estimator::U).with_moment(w, mu(d))
}

fn per_arm() -> RunKernel {
    let k = MetricKind::Ksd {
        kernel: Some(KsdKernel::PerArm),
        scale: None,
        estimator: None,
        c: None,
        beta: None,
        moment: None,
    };
    per_kind(&k)
}

fn plain() -> RunKernel {
    let k = MetricKind::Ksd {
        kernel: Some(KsdKernel::Plain),
        scale: None,
        estimator: None,
        c: None,
        beta: None,
        moment: None,
    };
    per_kind(&k)
}

fn per_kind(k: &MetricKind) -> RunKernel {
    // per-arm and plain kernels do not look at the target; any target of the right shape will do.
    let g = tunelab::model::build_target(&serde_json::from_str(r#"{"kind":"gaussian","d":2}"#).unwrap(), None).unwrap();
    RunKernel::for_metric(k, g.as_ref(), &[0.0, 0.0]).unwrap().unwrap()
}

fn candidates() -> Vec<Candidate> {
    vec![
        Candidate { name: "run, c = 1, U, moment 1", kernel: Box::new(|d| run_moment(d, 1.0)) },
        Candidate { name: "run, c = 1, U, moment 0.1", kernel: Box::new(|d| run_moment(d, 0.1)) },
        Candidate { name: "run, c = 1, U, moment 10", kernel: Box::new(|d| run_moment(d, 10.0)) },
        Candidate { name: "run, c = 1, U", kernel: Box::new(|d| run_kernel(d, 1.0, Estimator::U)) },
        Candidate { name: "run, c = 1, V", kernel: Box::new(|d| run_kernel(d, 1.0, Estimator::V)) },
        Candidate { name: "run, c = sqrt(d), U", kernel: Box::new(|d| run_kernel(d, (d as f64).sqrt(), Estimator::U)) },
        Candidate { name: "run, c = sqrt(d), V", kernel: Box::new(|d| run_kernel(d, (d as f64).sqrt(), Estimator::V)) },
        Candidate {
            name: "run, c = d^(1/4), U",
            kernel: Box::new(|d| run_kernel(d, (d as f64).powf(0.25), Estimator::U)),
        },
        Candidate { name: "run, c = 2, U", kernel: Box::new(|d| run_kernel(d, 2.0, Estimator::U)) },
        Candidate { name: "per-arm (median-precond, U)", kernel: Box::new(|_| per_arm()) },
        Candidate { name: "plain (c = 1, V)", kernel: Box::new(|_| plain()) },
    ]
}

fn scores(k: &RunKernel, n: usize, d: usize, seed: u64) -> Vec<f64> {
    sample_sets(n, d, seed)
        .iter()
        .map(|(x, s)| k.ksd(x, s, d).map(|v| RunKernel::rank_value(&v)).unwrap_or(f64::INFINITY))
        .collect()
}

/// Ordering violations: `(hard, soft)`. Hard: exact draws must score below twice-too-wide, stuck,
/// oscillating and under-dispersed sets, and every too-wide set below both stuck-far sets. Soft: exact below
/// 20%, 50% and twice too wide (at n = 50 or d = 100, with an IMQ width of one posterior sd, these can sit
/// within the estimator's noise).
fn violations(v: &[f64]) -> (Vec<String>, Vec<String>) {
    let (mut hard, mut soft) = (Vec::new(), Vec::new());
    for i in 1..SETS.len() {
        if !(v[0] < v[i]) {
            let m = format!("exact ({:.3}) >= {} ({:.3})", v[0], SETS[i], v[i]);
            if (1..=3).contains(&i) {
                soft.push(m)
            } else {
                hard.push(m)
            }
        }
    }
    for w in 1..=3 {
        for s in [4, 5, 9] {
            if !(v[w] < v[s]) {
                hard.push(format!("{} ({:.3}) >= {} ({:.3})", SETS[w], v[w], SETS[s], v[s]));
            }
        }
    }
    (hard, soft)
}

const NS: [usize; 3] = [50, 300, 1000];
const DS: [usize; 3] = [2, 10, 100];

#[test]
fn choose_kernel_by_evidence() {
    // Seeds 1000-1004 choose; the assertions below use other seeds.
    let mut counts = Vec::new();
    for c in candidates() {
        let (mut bad, mut soft) = (0, 0);
        let mut first = None;
        let mut cases = Vec::new();
        for seed in 1000..1005 {
            for &n in &NS {
                for &d in &DS {
                    let (v, sv) = violations(&scores(&(c.kernel)(d), n, d, seed));
                    soft += sv.len();
                    let v: Vec<String> = v.into_iter().chain(sv).collect();
                    if first.is_none() && !v.is_empty() {
                        first = Some(format!("n = {n}, d = {d}, seed {seed}: {}", v[0]));
                    }
                    if !v.is_empty() {
                        cases.push(format!("n{n}/d{d}/s{seed}:{}", v.len()));
                    }
                    bad += v.len();
                }
            }
        }
        println!("{:32} ordering violations over 45 cases: {bad:4} ({soft} of them exact vs too wide)", c.name);
        println!("      in {}", cases.join(" "));
        counts.push((c.name, bad - soft, soft));
        let _ = first;
    }
    // Chosen default: the run kernel with c = 1, the U-statistic and the moment term of weight 1. It makes no
    // hard mistake and the fewest mistakes overall (2 soft ones on seeds 1000-1004, both at n = 50; weight 10
    // ties, 0.1 makes 3, the IMQ-only run kernel of before 5); with V the diagonal term rewards
    // under-dispersed draws in d = 100 at every seed (a systematic error, not noise); per-arm and plain make
    // hard mistakes (stuck chains ahead of exact or too-wide draws). The exploded set here has unbounded
    // Gaussian scores, which every kernel sees; `exploded_cloud_with_bounded_scores` is the case that needs the
    // moment term.
    let total = |i: usize| counts[i].1 + counts[i].2;
    assert_eq!(counts[0].1, 0, "{counts:?}");
    assert!((1..counts.len()).all(|i| total(0) <= total(i)), "{counts:?}");
    assert!(counts[4].1 > 0 && counts[9].1 > 0 && counts[10].1 > 0, "{counts:?}");
}

#[test]
fn default_kernel_orders_sample_sets() {
    let def = MetricSpec::default();
    let MetricKind::Ksd { kernel, c, estimator, beta, .. } = &def.kind else { panic!("the default metric is KSD") };
    assert_eq!(sgmcmc::run_kernel::kernel_kind(&def.kind), Some(KsdKernel::Run));
    assert!(kernel.is_none() && c.is_none() && estimator.is_none() && beta.is_none());
    let cands = candidates();
    let mut soft_total = 0;
    for seed in 1..=3 {
        for &n in &NS {
            for &d in &DS {
                // The default kernel with the true posterior sd as its preconditioner (the Laplace
                // approximation of a Gaussian posterior is exact; see `laplace_preconditioner_*`).
                let k = run_moment(d, sgmcmc::run_kernel::DEFAULT_MOMENT);
                let v = scores(&k, n, d, seed);
                let (hard, soft) = violations(&v);
                assert!(hard.is_empty(), "n = {n}, d = {d}, seed {seed}: {hard:?}");
                assert!(n < 1000 || soft.is_empty(), "n = {n}, d = {d}, seed {seed}: {soft:?}");
                soft_total += soft.len();
                if seed == 1 && (d == 10 && n == 300 || n == 50 && d == 100) {
                    println!("\nd = {d}, n = {n}, seed {seed}: sqrt|KSD^2| (lower is better)");
                    println!("| sample set | run kernel (default: Laplace sd, c = 1, U, moment 1) | run, IMQ only (before) | per-arm | plain c = 1, V |");
                    let others: Vec<Vec<f64>> =
                        [3usize, 9, 10].iter().map(|&i| scores(&(cands[i].kernel)(d), n, d, seed)).collect();
                    for (i, name) in SETS.iter().enumerate() {
                        println!(
                            "| {name} | {:.3} | {:.3} | {:.3} | {:.3} |",
                            v[i], others[0][i], others[1][i], others[2][i]
                        );
                    }
                }
            }
        }
    }
    // Exact vs too wide within the noise at n = 50: rare (2 of 135 pairs on the choosing seeds with the moment
    // term, 5 without; 2 of 81 here; the bound allows 6).
    println!("soft violations on seeds 1-3: {soft_total} of 81 pairs");
    assert!(soft_total <= 6, "{soft_total}");
}

#[test]
fn laplace_preconditioner_recovers_gaussian_sd() {
    // N(mean, cov) with cov diagonal: the Laplace sd is the true sd (full-Hessian path, d <= 200).
    let sd = [0.03, 0.5, 2.0];
    let cov: Vec<f64> = (0..9).map(|i| if i % 4 == 0 { sd[i / 4] * sd[i / 4] } else { 0.0 }).collect();
    let spec =
        format!(r#"{{"kind":"gaussian","d":3,"mean":[0.1,0.2,0.3],"cov":{}}}"#, serde_json::to_string(&cov).unwrap());
    let g = tunelab::model::build_target(&serde_json::from_str(&spec).unwrap(), None).unwrap();
    let (got, source, _) = sgmcmc::run_kernel::laplace_sd(g.as_ref(), &[0.1, 0.2, 0.3]).unwrap();
    assert_eq!(source, "laplace-hessian");
    for k in 0..3 {
        assert!((got[k] / sd[k] - 1.0).abs() < 1e-6, "{got:?}");
    }
    // Correlated: marginal sd from the inverse Hessian (unit variances, rho = 0.5).
    let g =
        tunelab::model::build_target(&serde_json::from_str(r#"{"kind":"gaussian","d":4,"rho":0.5}"#).unwrap(), None)
            .unwrap();
    let (m, _) = g.exact_moments().unwrap();
    let (got, _, _) = sgmcmc::run_kernel::laplace_sd(g.as_ref(), &m).unwrap();
    let (_, cov) = g.exact_moments().unwrap();
    for k in 0..4 {
        let want = cov[k * 4 + k].sqrt();
        assert!((got[k] / want - 1.0).abs() < 1e-5, "{got:?} vs {want}");
    }
}

#[test]
fn scale_without_kernel_means_per_arm_and_plain_is_the_paper() {
    let m: MetricSpec = serde_json::from_str(r#"{"kind":"ksd","scale":"median-precond"}"#).unwrap();
    assert_eq!(sgmcmc::run_kernel::kernel_kind(&m.kind), Some(KsdKernel::PerArm));
    let m: MetricSpec = serde_json::from_str(r#"{"kind":"ksd","kernel":"plain"}"#).unwrap();
    assert_eq!(sgmcmc::run_kernel::kernel_kind(&m.kind), Some(KsdKernel::Plain));
    let p = plain();
    assert_eq!(p.ksd_options(), KsdOptions::reference(1.0, -0.5));
    let a = per_arm();
    assert_eq!((a.scale, a.estimator), (KernelScale::MedianPrecond, Estimator::U));
    let m: MetricSpec = serde_json::from_str(r#"{"kind":"ksd"}"#).unwrap();
    assert_eq!(sgmcmc::run_kernel::kernel_kind(&m.kind), Some(KsdKernel::Run));
}

#[test]
fn exploded_cloud_with_bounded_scores() {
    // The paper's logistic regression (d = 10, simulated x ~ N(0, I), prior N(0, 10 I)) at N = 2,000: far from
    // the mode every score is bounded by about sum_i |x_i| (the prior's pull is tiny), so the IMQ Stein
    // kernel's terms all decay with the distance between points and a hugely over-dispersed cloud scores near
    // zero under the IMQ part alone (measured on a real SGHMC chain, h = 0.1, batch 8, L = 10, 6.7e4 sds wide:
    // sqrt|U| = 0.064 against 0.19 for a chain 33% too wide). Draws around the MAP with the Laplace sd times
    // `f`, Gaussian; seeds 1-3 (none chose a default).
    let mut cfg = tune::presets::preset("paper-logreg").unwrap();
    cfg.data.source = tune::DataSource::Simulate { n: 2_500, d: 10, seed: 7 };
    let problem = sgmcmc::Posterior::build(&cfg, None).unwrap();
    let target = problem.train.as_ref();
    let d = target.dim();
    let default = RunKernel::for_metric(&MetricSpec::default().kind, target, &problem.map).unwrap().unwrap();
    assert_eq!(default.moment, sgmcmc::run_kernel::DEFAULT_MOMENT);
    let imq_only = default.clone().with_moment(0.0, vec![]);
    let sd = default.precond_sd.clone();
    let factors = [1.0, 2.0, 1e2, 1e4];
    for seed in 1..=3u64 {
        for &n in &[50usize, 300] {
            let score = |k: &RunKernel, f: f64| {
                let mut r = rng::stream(seed, n as u64);
                let x: Vec<f64> = (0..n * d)
                    .map(|j| problem.map[j % d] + f * sd[j % d] * Distribution::<f64>::sample(&StandardNormal, &mut r))
                    .collect();
                RunKernel::rank_value(&k.ksd_target(target, &x).unwrap())
            };
            let v: Vec<f64> = factors.iter().map(|&f| score(&default, f)).collect();
            let old: Vec<f64> = factors.iter().map(|&f| score(&imq_only, f)).collect();
            println!("seed {seed}, n = {n}: sd x {factors:?}: default {v:.3?}, IMQ only {old:.3?}");
            // The default: Laplace draws < twice too wide < 100x < 10,000x.
            assert!(v.windows(2).all(|w| w[0] < w[1]), "seed {seed}, n = {n}: {v:?}");
            // Without the moment term the exploded clouds score below the twice-too-wide draws (the bug).
            assert!(old[3] < old[1], "seed {seed}, n = {n}: {old:?}");
        }
    }
}

#[test]
fn moment_term_equals_its_pair_sum_on_every_path() {
    // <A_i, A_j>_F / d with A = s (z - m)^T + I, summed directly over pairs, against moment_sq's three paths:
    // plain loops (d <= 128), the d x d GEMM (128 < d <= n) and the n x n Gram matrices (d > n).
    for &(n, d) in &[(40usize, 3usize), (200, 150), (100, 150)] {
        let mut r = rng::stream(11, (n * 1000 + d) as u64);
        let mut g = || -> f64 { Distribution::<f64>::sample(&StandardNormal, &mut r) };
        let z: Vec<f64> = (0..n * d).map(|_| g()).collect();
        let s: Vec<f64> = (0..n * d).map(|_| g()).collect();
        let m: Vec<f64> = (0..d).map(|_| g()).collect();
        let a = |i: usize| -> Vec<f64> {
            let mut out = vec![0.0; d * d];
            for p in 0..d {
                for q in 0..d {
                    out[p * d + q] = s[i * d + p] * (z[i * d + q] - m[q]) + if p == q { 1.0 } else { 0.0 };
                }
            }
            out
        };
        let mats: Vec<Vec<f64>> = (0..n).map(a).collect();
        let (mut off, mut diag) = (0.0, 0.0);
        for i in 0..n {
            for j in 0..n {
                let v: f64 = mats[i].iter().zip(&mats[j]).map(|(x, y)| x * y).sum::<f64>() / d as f64;
                if i == j {
                    diag += v
                } else {
                    off += v
                }
            }
        }
        let u = sgmcmc::run_kernel::moment_sq(&z, &s, &m, d, Estimator::U);
        let v = sgmcmc::run_kernel::moment_sq(&z, &s, &m, d, Estimator::V);
        let want_u = off / (n * (n - 1)) as f64;
        let want_v = (off + diag) / (n * n) as f64;
        let scale = diag / n as f64;
        assert!((u - want_u).abs() < 1e-9 * scale, "n {n}, d {d}: U {u} vs {want_u}");
        assert!((v - want_v).abs() < 1e-9 * scale, "n {n}, d {d}: V {v} vs {want_v}");
    }
}
