//! Scoring an arm's samples: KSD (default), FSSD, FSSD-opt, test log-loss, test error. Lower is better.

use super::config::{MetricKind, MetricSpec};
use super::posterior::Posterior;
use super::run_kernel::{KsdSettings, RunKernel};
use crate::error::{Error, Result};
use crate::math::{exp, ln};
use crate::model::{full_scores, Target};
use crate::rng::Rng;
use crate::stein::{self, FssdKernel, FssdOptOptions, KsdOptions};
use rand::RngExt;
use rand_distr::StandardNormal;
use rayon::prelude::*;

/// Evenly spaced rows (at most `max`) of a row-major sample matrix: keeps the last sample.
pub fn thin_rows(samples: &[f64], d: usize, max: usize) -> Vec<f64> {
    let n = samples.len() / d;
    if n <= max {
        return samples.to_vec();
    }
    let mut out = Vec::with_capacity(max * d);
    for k in 0..max {
        // rows n-1 - floor(k * n / max), reversed to keep time order
        let i = n - 1 - ((max - 1 - k) * n) / max;
        out.extend_from_slice(&samples[i * d..(i + 1) * d]);
    }
    out
}

/// The KSD options a `per-arm` metric asks for (unset fields take the `stein` crate default). The tuners
/// score with [`RunKernel`] (the run's one kernel by default); see [`super::run_kernel`].
pub fn ksd_options(kind: &MetricKind) -> KsdOptions {
    let mut o = KsdOptions::default();
    if let MetricKind::Ksd { scale, estimator, c, beta, .. } = kind {
        if let Some(s) = scale {
            o.scale = *s;
        }
        if let Some(e) = estimator {
            o.estimator = *e;
        }
        if let Some(c) = c {
            o.c = *c;
        }
        if let Some(b) = beta {
            o.beta = *b;
        }
    }
    o
}

/// Scores of the posterior at each sample: full-data gradients (default) or minibatch estimates.
pub fn score_vectors(target: &dyn Target, samples: &[f64], stochastic_batch: Option<usize>, rng: &mut Rng) -> Vec<f64> {
    match stochastic_batch {
        None => full_scores(target, samples),
        Some(b) => {
            let d = target.dim();
            let n = target.n_data();
            let b = b.clamp(1, n);
            let mut out = vec![0.0; samples.len()];
            let mut idx = vec![0usize; b];
            for (t, o) in samples.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
                for i in idx.iter_mut() {
                    *i = rng.random_range(0..n);
                }
                target.grad_estimate(t, &idx, o);
            }
            out
        }
    }
}

/// Posterior-predictive log-loss on a data target: -(1/N) sum_i log (1/S) sum_s p(y_i | theta_s).
pub fn predictive_log_loss(test: &dyn Target, samples: &[f64]) -> f64 {
    let d = test.dim();
    let s = samples.len() / d;
    if s == 0 {
        return f64::INFINITY;
    }
    let n = test.n_data();
    let parts: Vec<f64> = (0..n)
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            let mut m = f64::NEG_INFINITY;
            let lls: Vec<f64> = samples.chunks_exact(d).map(|t| test.log_lik_point(t, i)).collect();
            for &l in &lls {
                m = m.max(l);
            }
            if !m.is_finite() {
                return -m;
            }
            let sum: f64 = lls.iter().map(|l| exp(l - m)).sum();
            -(m + ln(sum / s as f64))
        })
        .collect();
    parts.iter().sum::<f64>() / n as f64
}

/// Posterior-predictive classification error on a classifier target (1 - accuracy).
pub fn predictive_error(test: &dyn Target, samples: &[f64]) -> Result<f64> {
    let k = test.n_classes();
    if k == 0 {
        return Err(Error::config("the accuracy metric needs a classifier (logistic or bnn)"));
    }
    let d = test.dim();
    let n = test.n_data();
    let wrong: usize = (0..n)
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            let mut acc = vec![0.0; k];
            let mut p = vec![0.0; k];
            for t in samples.chunks_exact(d) {
                test.class_probs(t, i, &mut p);
                for c in 0..k {
                    acc[c] += p[c];
                }
            }
            let pred = (0..k).max_by(|&a, &b| acc[a].total_cmp(&acc[b])).unwrap_or(0);
            usize::from(pred != test.label(i))
        })
        .sum();
    Ok(wrong as f64 / n as f64)
}

/// Median of the squared pairwise distances of (at most 200 evenly spaced) rows: the usual bandwidth
/// heuristic for a Gaussian kernel (Gretton et al. 2012).
pub fn median_sq_distance(x: &[f64], d: usize) -> f64 {
    let sub = thin_rows(x, d, 200);
    let rows: Vec<&[f64]> = sub.chunks_exact(d).collect();
    let mut dist = Vec::with_capacity(rows.len() * rows.len() / 2);
    for i in 0..rows.len() {
        for j in 0..i {
            dist.push(rows[i].iter().zip(rows[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f64>());
        }
    }
    if dist.is_empty() {
        return 1.0;
    }
    let mid = dist.len() / 2;
    dist.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
    dist[mid]
}

/// FSSD with `j` test locations drawn from a diagonal Gaussian fitted to the samples, and a Gaussian kernel
/// whose bandwidth is the median squared distance (Jitkrittum et al. 2017, section 3, untuned version).
pub fn fssd_random(x: &[f64], g: &[f64], d: usize, j: usize, rng: &mut Rng) -> Result<(stein::FssdValue, Vec<f64>)> {
    let n = x.len() / d;
    let mut mean = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for k in 0..d {
            mean[k] += row[k] / n as f64;
        }
    }
    let mut sd = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for k in 0..d {
            sd[k] += (row[k] - mean[k]).powi(2) / n as f64;
        }
    }
    let locs: Vec<f64> = (0..j * d)
        .map(|i| {
            let z: f64 = rng.sample(StandardNormal);
            mean[i % d] + sd[i % d].sqrt() * z
        })
        .collect();
    let sigma2 = median_sq_distance(x, d).max(1e-12);
    let v = stein::fssd(x, g, d, &locs, &FssdKernel::Gauss { sigma2 })?;
    Ok((v, locs))
}

/// What scoring one arm cost and gave.
#[derive(Debug, Clone, Copy)]
pub struct Scored {
    /// The score (+inf when the arm has fewer than 2 samples or its score is not finite).
    pub value: f64,
    /// Samples that entered the score.
    pub n: usize,
    /// Gradient evaluations (data points touched) spent on scores.
    pub grad_evals: u64,
}

/// A run's metric ready to score arms, built once before any arm is scored. A KSD metric holds the run's one
/// kernel, so no score can lack it.
#[derive(Debug, Clone, PartialEq)]
pub enum Scorer {
    /// Kernel Stein discrepancy under the run's kernel.
    Ksd(RunKernel),
    /// FSSD with `j` random locations.
    Fssd { j: usize },
    /// FSSD-opt with `j` fitted locations (per arm, or once per round on the pooled samples).
    FssdOpt { j: usize, per_arm: bool },
    /// Test-set log-loss.
    LogLoss,
    /// Test-set error rate.
    Accuracy,
}

impl Scorer {
    /// The scorer of metric `kind` on `problem` (for a KSD metric, its kernel: for `run`, a Laplace
    /// approximation at the MAP).
    pub fn new(kind: &MetricKind, problem: &Posterior) -> Result<Scorer> {
        Ok(match *kind {
            MetricKind::Ksd { kernel, scale, estimator, c, beta, moment } => {
                let s = KsdSettings { kernel, scale, estimator, c, beta, moment };
                Scorer::Ksd(RunKernel::for_ksd(&s, problem.train.as_ref(), &problem.map)?)
            }
            MetricKind::Fssd { j } => Scorer::Fssd { j },
            MetricKind::FssdOpt { j, per_arm } => Scorer::FssdOpt { j, per_arm },
            // The config check refuses these without a model that has data and a test split; a posterior built
            // without one fails here, before any arm is scored, not at the first score.
            MetricKind::LogLoss | MetricKind::Accuracy if problem.test.is_none() => {
                return Err(Error::config("log-loss and accuracy need a test set: set `data.test_fraction` > 0"))
            }
            MetricKind::Accuracy if problem.test.as_ref().is_some_and(|t| t.n_classes() == 0) => {
                return Err(Error::config("the accuracy metric needs a classifier (logistic or bnn)"))
            }
            MetricKind::LogLoss => Scorer::LogLoss,
            MetricKind::Accuracy => Scorer::Accuracy,
        })
    }

    /// The run's Stein kernel (KSD only).
    pub fn kernel(&self) -> Option<&RunKernel> {
        match self {
            Scorer::Ksd(k) => Some(k),
            _ => None,
        }
    }
}

/// Scores one arm's samples. `batch` is the arm's batch size (for stochastic-gradient scores). Builds the
/// metric's scorer on every call (for a `run` kernel a Laplace approximation); a run builds it once and calls
/// [`score_with`].
pub fn score(problem: &Posterior, metric: &MetricSpec, samples: &[f64], batch: usize, rng: &mut Rng) -> Result<Scored> {
    let scorer = Scorer::new(&metric.kind, problem)?;
    score_with(problem, metric, &scorer, samples, batch, rng)
}

/// Scores one arm's samples with the run's scorer (`metric` gives the rows scored and whether scores use
/// minibatches; `scorer` was built from its kind).
pub fn score_with(
    problem: &Posterior,
    metric: &MetricSpec,
    scorer: &Scorer,
    samples: &[f64],
    batch: usize,
    rng: &mut Rng,
) -> Result<Scored> {
    let d = problem.dim;
    let x = thin_rows(samples, d, metric.max_samples);
    let n = x.len() / d;
    if n < 2 {
        return Ok(Scored { value: f64::INFINITY, n, grad_evals: 0 });
    }
    let stoch = metric.stochastic_gradients.then_some(batch);
    let score_cost = (n * stoch.unwrap_or(problem.n_data)) as u64;
    let (value, cost) = match scorer {
        Scorer::Ksd(kernel) => {
            // Full-data scores: the shared `stein::ksd_target`; minibatch scores: estimated here.
            let v = match stoch {
                None => kernel.ksd_target(problem.train.as_ref(), &x),
                Some(_) => kernel.ksd(&x, &score_vectors(problem.train.as_ref(), &x, stoch, rng), d),
            };
            // Scaled kernels cannot standardise samples that never move (a stuck chain): worst score.
            match v {
                // |KSD^2|: the U-statistic is unbiased but can be hugely negative for a chain that oscillates far
                // from the posterior (scores on opposite sides point at each other and the positive diagonal is
                // left out); ranking by the signed value would pick such a chain. Ranking by the distance of the
                // estimate from 0 keeps exact samples (U ~ 0) ahead of both stuck and exploding chains.
                Ok(v) => (v.ksd_sq.abs().sqrt(), score_cost),
                Err(Error::Numerical(_)) => (f64::INFINITY, score_cost),
                Err(e) => return Err(e),
            }
        }
        Scorer::Fssd { j } => {
            let g = score_vectors(problem.train.as_ref(), &x, stoch, rng);
            let (v, _) = fssd_random(&x, &g, d, *j, rng)?;
            (v.fssd_sq, score_cost)
        }
        Scorer::FssdOpt { j, per_arm: false } => {
            // One arm alone: the shared fit on its own samples.
            let (mut s, _) = score_round_fssd(
                problem,
                metric,
                *j,
                vec![Some(x)],
                &[batch],
                &mut [rng],
                &mut crate::rng::stream(0, 0),
            )?;
            return Ok(s.remove(0));
        }
        Scorer::FssdOpt { j, per_arm: true } => {
            let g = score_vectors(problem.train.as_ref(), &x, stoch, rng);
            let sigma2 = median_sq_distance(&x, d).max(1e-12);
            let (v, _) =
                stein::fssd_opt(&x, &g, d, *j, &FssdKernel::Gauss { sigma2 }, &FssdOptOptions::default(), rng)?;
            (v.fssd_sq, score_cost)
        }
        Scorer::LogLoss => {
            let test = problem.test.as_ref().ok_or_else(|| Error::config("log-loss needs a test set"))?;
            (predictive_log_loss(test.as_ref(), &x), (n * test.n_data()) as u64)
        }
        Scorer::Accuracy => {
            let test = problem.test.as_ref().ok_or_else(|| Error::config("accuracy needs a test set"))?;
            (predictive_error(test.as_ref(), &x)?, (n * test.n_data()) as u64)
        }
    };
    let value = if value.is_finite() { value } else { f64::INFINITY };
    Ok(Scored { value, n, grad_evals: cost })
}

/// Rows of the pooled sample the shared FSSD-opt fit uses (evenly spaced rows of each arm, in equal shares).
pub const FSSD_POOL_ROWS: usize = 2000;
/// Floats of the pooled samples (and again of their scores) in a large model: the pool has at most
/// `FSSD_POOL_FLOATS / d` rows (all [`FSSD_POOL_ROWS`] up to d = 8,388; 319 at the pmf preset's d = 52,500,
/// where 2,000 rows of samples and scores would be 1.7 GB), at least two per arm.
pub const FSSD_POOL_FLOATS: usize = 1 << 24;

/// One arm's thinned samples, their score vectors and the gradient evaluations they cost.
type ScoredSet = (Vec<f64>, Vec<f64>, u64);

/// Scores every arm of a round with FSSD-opt as the MAMBA paper defines it (sec. 2.2.2, app. B.1.3): the
/// J locations and the Gaussian width are fitted once ([`stein::fssd_opt_fit`]) on the round's pooled
/// samples (at most [`fssd_pool_rows`] rows, equal shares per arm, only arms with finite samples and scores),
/// and every arm is scored at those locations by `sqrt(|FSSD^2_U|)`: the U-statistic is unbiased, so an arm
/// with few samples is not penalised by the V-statistic's positive `|tau|^2 / n` term, and ranking by the
/// distance from 0 treats a negative estimate like a positive one (as the KSD ranking does). `sets[a]` is
/// arm `a`'s thinned samples (`None`: diverged, scores +inf); `rngs[a]` its scoring stream (minibatch
/// scores); `fit_rng` draws the initial locations. Returns the scores and the fit (None when no arm could
/// be pooled or the fit failed numerically: then every arm scores +inf).
#[allow(clippy::too_many_arguments)]
pub fn score_round_fssd(
    problem: &Posterior,
    metric: &MetricSpec,
    j: usize,
    sets: Vec<Option<Vec<f64>>>,
    batches: &[usize],
    rngs: &mut [&mut Rng],
    fit_rng: &mut Rng,
) -> Result<(Vec<Scored>, Option<stein::FssdFit>)> {
    let d = problem.dim;
    // Scores of each arm's samples (in parallel; each arm on its own stream).
    let with_scores: Vec<Option<ScoredSet>> = sets
        .into_par_iter()
        .zip(batches.par_iter())
        .zip(rngs.par_iter_mut())
        .map(|((x, &batch), rng)| {
            let x = x?;
            let n = x.len() / d;
            if n < 2 {
                return None;
            }
            let stoch = metric.stochastic_gradients.then_some(batch);
            let g = score_vectors(problem.train.as_ref(), &x, stoch, rng);
            let cost = (n * stoch.unwrap_or(problem.n_data)) as u64;
            Some((x, g, cost))
        })
        .collect();
    let finite = |x: &[f64], g: &[f64]| x.iter().chain(g).all(|v| v.is_finite());
    let poolable: Vec<&ScoredSet> = with_scores.iter().flatten().filter(|(x, g, _)| finite(x, g)).collect();
    let fail = |ws: &[Option<ScoredSet>]| {
        ws.iter()
            .map(|w| match w {
                Some((x, _, c)) => Scored { value: f64::INFINITY, n: x.len() / d, grad_evals: *c },
                None => Scored { value: f64::INFINITY, n: 0, grad_evals: 0 },
            })
            .collect::<Vec<_>>()
    };
    if poolable.is_empty() {
        return Ok((fail(&with_scores), None));
    }
    let share = fssd_pool_rows(d, poolable.len()).div_ceil(poolable.len()).max(2);
    let (mut px, mut pg) = (Vec::new(), Vec::new());
    for (x, g, _) in &poolable {
        let n = x.len() / d;
        let take = share.min(n);
        for k in 0..take {
            let i = n - 1 - ((take - 1 - k) * n) / take;
            px.extend_from_slice(&x[i * d..(i + 1) * d]);
            pg.extend_from_slice(&g[i * d..(i + 1) * d]);
        }
    }
    let fit = match stein::fssd_opt_fit(&px, &pg, d, j, &FssdOptOptions::default(), fit_rng) {
        Ok(f) => f,
        Err(Error::Numerical(_)) | Err(Error::Data(_)) => return Ok((fail(&with_scores), None)),
        Err(e) => return Err(e),
    };
    let kernel = FssdKernel::Gauss { sigma2: fit.sigma2 };
    let scored = with_scores
        .iter()
        .map(|w| match w {
            None => Scored { value: f64::INFINITY, n: 0, grad_evals: 0 },
            Some((x, g, c)) => {
                let value = match stein::fssd(x, g, d, &fit.locations, &kernel) {
                    Ok(v) if finite(x, g) => v.fssd_sq_u.abs().sqrt(),
                    _ => f64::INFINITY,
                };
                Scored { value: if value.is_finite() { value } else { f64::INFINITY }, n: x.len() / d, grad_evals: *c }
            }
        })
        .collect();
    Ok((scored, Some(fit)))
}

/// Rows of the pooled FSSD-opt fit for dimension `d` and `arms` arms with finite samples:
/// `min(FSSD_POOL_ROWS, max(FSSD_POOL_FLOATS / d, 2 arms))`.
pub fn fssd_pool_rows(d: usize, arms: usize) -> usize {
    FSSD_POOL_ROWS.min((FSSD_POOL_FLOATS / d.max(1)).max(2 * arms))
}
