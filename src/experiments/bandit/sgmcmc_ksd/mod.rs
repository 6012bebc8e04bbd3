//! D-TTTS as a tuner of SG-MCMC configurations (Shang, Kaufmann & Valko 2019, sec. 6, with the KSD as the
//! quality measure of Coullon, South & Nemeth 2023): a tabular benchmark built from real sampler runs on the
//! user's data, so that regret is exact.
//!
//! - **Reservoir.** A configuration is (sampler, step size h, batch size n): the sampler uniformly from
//!   `samplers`, `log10 h ~ U(log10_step)`, the batch fraction log-uniform on `batch_fraction` (n = round(f N),
//!   at least 1). Configuration `p` of the pool is drawn from its own stream `(seed, p)`. Each repeat of a bandit
//!   run sees the pool in its own random order, so "the k-th arm drawn from the reservoir" differs between
//!   repeats while all algorithms of one repeat face the same arms (common random numbers).
//! - **Runs.** Every configuration is run `replicates` times (replicate `j` of configuration `p` uses stream
//!   `(seed, p * replicates + j)`): `iterations` iterations from the MAP (or zero), every `thin`-th sample kept.
//! - **Kernel.** All runs are scored by one kernel: the IMQ kernel (beta = -1/2) with `c` = the median pairwise
//!   distance of reference draws (exact MALA, `crate::sampler::reference`), V-statistic with full-data scores.
//!   A per-run scale (the crate's default `MedianPrecond`) would rescale a stuck chain's own tiny spread and
//!   score it like a healthy one (see `sgmcmc_step`); a shared kernel compares all arms on the same footing.
//! - **Reward transform.** With `K` the KSD of a run and `K0` the KSD of as many reference draws (exact MALA,
//!   thinned by max(thin, 10)) scored the same way — the "floor": what a well-mixing exact sampler gets at this
//!   sample size — `reward = min(1, (K0 / K)^2)`, the ratio of the squared KSDs (the V-statistics themselves),
//!   in [0, 1]: 1 for a run as good as the reference, 0.69 at 1.2 K0, 1/4 at 2 K0, 1/100 at 10 K0, and 0 for a
//!   run that diverged (non-finite state or KSD). It is monotone in K, so the best arm in reward is the best in
//!   KSD, and bounded, as Bernoulli TTTS needs (binarisation trick). The square matters: with `K0 / (K0 + K)`
//!   the good arms (K within 20% of K0) all scored 0.45-0.47 and no tuner could tell them apart in 1,000 pulls
//!   (D-TTTS's simple regret was 0.048, worse than uniform allocation's 0.004); with the squared ratio they span
//!   0.7-0.9.
//! - **Arm value.** The mean reward over the replicates; a pull returns the reward of one replicate drawn
//!   uniformly, so rewards are unbiased for the value and regret (optimum - value) is exact for this pool.
//! - **Compute.** A pull is charged what its run cost: the sampler's gradient evaluations plus `n_kept x N` for
//!   the full-data scores of its KSD (unit: gradient evaluations, i.e. data points touched).
//!
//! The whole table (pool x replicates runs) is computed once per bandit run, in parallel on the rayon pool, and
//! shared by all repeats and algorithms ([`SgmcmcTable`]); a bandit pull is then a look-up. This is how tabular
//! hyperparameter-optimisation benchmarks are made, and it lets many seeds of many algorithms run in a browser.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::RngExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bandit::Arm;
use crate::data::Dataset;
use crate::experiments::bandit::problems::{ArmSpace, Problem};
use crate::experiments::sgmcmc::config::{DataSource, DataSpec};
use crate::experiments::sgmcmc::posterior::{load_data, Posterior};
use crate::math::{exp, ln, powf};
use crate::model::ModelSpec;
use crate::rng::{stream, substream, Rng};
use crate::sampler::StartKind;
use crate::sampler::{
    reference_sample_stoppable, BatchSize, Budget, Chain, SamplerKind, SamplerParams, ValidSamplerParams,
};
use crate::stein::{ksd_target_value, median_pairwise_distance, Estimator, KernelScale, KsdOptions};
use crate::{Error, Result};

mod reservoir;
pub use reservoir::*;

/// Stream ids of the table (the posterior's split / MAP streams come from `sgmcmc::posterior`).
const STREAM_ARM: u64 = 0x5c_a0;
const STREAM_RUN: u64 = 0x5c_a1;
const STREAM_REF: u64 = 0x5c_a2;
const STREAM_ORDER: u64 = 0x5c_a3;
/// Continuous reservoir: arm configurations, pulls, truth runs, reference configurations.
const STREAM_CARM: u64 = 0x5c_a4;
const STREAM_CPULL: u64 = 0x5c_a5;
const STREAM_TRUTH: u64 = 0x5c_a6;
const STREAM_CREF: u64 = 0x5c_a7;
/// Runs per progress event (at most).
const CHUNK: usize = 16;

fn default_data() -> DataSpec {
    DataSpec {
        source: DataSource::Simulate { n: 1000, d: 5, seed: 0 },
        label: "y".into(),
        standardize: false,
        test_fraction: 0.0,
    }
}

/// Configuration of the SG-MCMC tuning problem (JSON fields as here; every field has a default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct SgmcmcKsdSpec {
    /// The data (as in the SG-MCMC run config: `simulate`, `csv`, `upload`, `digits`, `none`); its `test_fraction` is
    /// ignored (no test set is needed). Default: simulated logistic data, n = 1000, d = 5.
    pub data: DataSpec,
    /// The model (default logistic regression, prior N(0, 10 I)).
    pub model: ModelSpec,
    /// Samplers a configuration is drawn from (uniformly).
    pub samplers: Vec<SamplerKind>,
    /// Range of log10 of the step size (log-uniform).
    pub log10_step: (f64, f64),
    /// Range of the batch size as a fraction of N (log-uniform).
    pub batch_fraction: (f64, f64),
    /// Iterations per run.
    pub iterations: u64,
    /// Keep every `thin`-th sample (the KSD uses `iterations / thin` samples).
    pub thin: usize,
    /// Leapfrog steps per SGHMC iteration.
    pub leapfrog: usize,
    /// Configurations in the pool.
    pub pool: usize,
    /// Runs per configuration (the arm's reward distribution).
    pub replicates: usize,
    /// Start of every run.
    pub start: StartKind,
    /// MALA warm-up iterations of the reference draws.
    pub reference_warmup: usize,
    /// Override the KSD floor `K0` of the reward transform (default: measured on reference draws).
    pub ksd_floor: Option<f64>,
    /// Seed of the pool, the runs and the data split (the bandit repeats only reorder the pool).
    pub seed: u64,
    /// Draw configurations from the continuous reservoir instead of the finite pool (see [`SgmcmcReservoir`]):
    /// arm `k` of a repeat is a fresh configuration and every pull runs its chain; `pool` and `replicates` are
    /// then unused.
    pub continuous: bool,
    /// Continuous reservoir: runs averaged for an arm's true value.
    pub truth_runs: usize,
    /// Continuous reservoir: configurations drawn once whose best true value is the optimum.
    pub reference_arms: usize,
}

impl Default for SgmcmcKsdSpec {
    fn default() -> Self {
        SgmcmcKsdSpec {
            data: default_data(),
            model: ModelSpec::default(),
            samplers: vec![SamplerKind::Sgld, SamplerKind::SgldCv, SamplerKind::Sghmc, SamplerKind::SgnhtCv],
            log10_step: (-6.0, -2.0),
            batch_fraction: (0.005, 0.2),
            iterations: 1000,
            thin: 5,
            leapfrog: 5,
            pool: 60,
            replicates: 4,
            start: StartKind::Map,
            reference_warmup: 500,
            ksd_floor: None,
            seed: 1,
            continuous: false,
            truth_runs: 4,
            reference_arms: 100,
        }
    }
}

impl SgmcmcKsdSpec {
    /// Checks everything that does not need the data.
    pub fn validate(&self) -> Result<()> {
        let e = |m: &str| Err(Error::config(format!("sgmcmc-ksd: {m}")));
        if self.samplers.is_empty() {
            return e("give at least one sampler in `samplers`");
        }
        let (a, b) = self.log10_step;
        if !(a.is_finite() && b.is_finite() && a <= b && b <= 1.0) {
            return e("log10_step must be finite with lo <= hi <= 1");
        }
        let (f0, f1) = self.batch_fraction;
        if !(f0 > 0.0 && f0 <= f1 && f1 <= 1.0) {
            return e("batch_fraction must satisfy 0 < lo <= hi <= 1");
        }
        if self.thin == 0 || self.iterations < 2 * self.thin as u64 || self.iterations > 1_000_000 {
            return e("iterations must be in 2 thin ..= 1000000 (each run keeps at least 2 samples) and thin >= 1");
        }
        if self.kept() > 5000 {
            return e(&format!(
                "each run would keep {} samples and the KSD costs O(n^2): keep at most 5000 (raise thin)",
                self.kept()
            ));
        }
        if self.leapfrog == 0 || self.leapfrog > 1000 {
            return e("leapfrog must be in 1..=1000");
        }
        if self.pool < 2 || self.pool > 10_000 {
            return e("pool must be in 2..=10000");
        }
        if self.replicates == 0 || self.replicates > 100 {
            return e("replicates must be in 1..=100");
        }
        if self.pool * self.replicates > 20_000 {
            return e("pool x replicates is limited to 20000 runs");
        }
        if self.truth_runs == 0 || self.truth_runs > 1000 {
            return e("truth_runs must be in 1..=1000");
        }
        if self.reference_arms == 0 || self.reference_arms > 100_000 {
            return e("reference_arms must be in 1..=100000");
        }
        if self.reference_warmup > 100_000 {
            return e("reference_warmup must be <= 100000");
        }
        if let Some(f) = self.ksd_floor {
            if !(f.is_finite() && f > 0.0) {
                return e("ksd_floor must be a positive number");
            }
        }
        if self.model.needs_data() && matches!(self.data.source, DataSource::None) {
            return e(&format!("the {} model needs data (set `data`)", self.model.kind()));
        }
        Ok(())
    }

    /// Samples kept per run.
    pub fn kept(&self) -> usize {
        (self.iterations / self.thin as u64) as usize
    }

    fn data_spec(&self) -> DataSpec {
        DataSpec { test_fraction: 0.0, ..self.data.clone() }
    }
}

/// One configuration of the pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SgmcmcArm {
    pub sampler: SamplerKind,
    pub step: f64,
    /// Batch size (data points).
    pub batch: usize,
}

impl SgmcmcArm {
    /// Short label: `sgld-cv h=3.2e-4 n=57`.
    pub fn label(&self) -> String {
        let kind =
            serde_json::to_value(self.sampler).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        format!("{kind} h={:.1e} n={}", self.step, self.batch)
    }
}

/// The precomputed table: every configuration's runs, KSDs and rewards.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SgmcmcTable {
    pub arms: Vec<SgmcmcArm>,
    /// KSD of each run, `[arm][replicate]` (`None`: diverged).
    pub ksd: Vec<Vec<Option<f64>>>,
    /// Rewards `min(1, (K0 / K)^2)` (0 when diverged), `[arm][replicate]`.
    pub rewards: Vec<Vec<f64>>,
    /// Gradient evaluations of each run including its scoring, `[arm][replicate]`.
    pub cost: Vec<Vec<f64>>,
    /// Mean reward of each arm.
    pub value: Vec<f64>,
    /// The KSD floor `K0` of the reward transform.
    pub floor: f64,
    /// IMQ scale of the shared kernel.
    pub kernel_c: f64,
    /// Data size N and parameter dimension.
    pub n_data: usize,
    pub dim: usize,
    /// Gradient evaluations spent on the MAP and the reference draws.
    pub setup_grad_evals: u64,
    /// Description of the problem.
    pub name: String,
}

/// The reward transform `min(1, (K0 / K)^2)`; 0 for a non-finite or missing KSD (see the module docs).
pub fn ksd_reward(ksd: Option<f64>, floor: f64) -> f64 {
    match ksd {
        Some(k) if k.is_finite() && k > 0.0 => (floor / k).powi(2).min(1.0),
        Some(k) if k.is_finite() && k >= 0.0 => 1.0,
        _ => 0.0,
    }
}

fn draw_arm(spec: &SgmcmcKsdSpec, n_data: usize, p: usize) -> SgmcmcArm {
    draw_config(spec, n_data, &mut substream(spec.seed, STREAM_ARM, p as u64))
}

/// One configuration from the reservoir: sampler uniform, step log-uniform, batch fraction log-uniform.
fn draw_config(spec: &SgmcmcKsdSpec, n_data: usize, r: &mut Rng) -> SgmcmcArm {
    let sampler = spec.samplers[r.random_range(0..spec.samplers.len())];
    let (a, b) = spec.log10_step;
    let step = powf(10f64, a + (b - a) * r.random::<f64>());
    let (f0, f1) = spec.batch_fraction;
    let f = exp(ln(f0) + (ln(f1) - ln(f0)) * r.random::<f64>());
    let batch = ((f * n_data as f64).round() as usize).clamp(1, n_data.max(1));
    SgmcmcArm { sampler, step, batch }
}

/// What every run of a configuration needs, computed once: the target, its MAP and control variate, the shared
/// kernel and the KSD floor (see the module docs).
struct Setup {
    target: Arc<dyn crate::model::Target>,
    cv: Arc<crate::sampler::ControlVariate>,
    start: Vec<f64>,
    opts: KsdOptions,
    floor: f64,
    n_data: usize,
    dim: usize,
    setup_grad_evals: u64,
    data_name: String,
}

impl Setup {
    fn build(spec: &SgmcmcKsdSpec, data: Option<Dataset>, cancel: &AtomicBool) -> Result<Setup> {
        spec.validate()?;
        let data_spec = spec.data_spec();
        let data: Option<Dataset> = match data {
            Some(d) => Some(d),
            None => load_data(&data_spec, None)?,
        };
        let post = Posterior::from_parts(&data_spec, &spec.model, spec.seed, data)?;
        let target = post.train.as_ref();
        let (n_data, d) = (post.n_data, post.dim);
        let kept = spec.kept();
        if kept < 2 * d {
            return Err(Error::config(format!(
                "sgmcmc-ksd: each run keeps {kept} samples; the KSD needs at least 2 d = {} (raise iterations or lower thin)",
                2 * d
            )));
        }
        let mut setup = post.map_grad_evals;
        // reference draws (exact MALA) at the same sample size: the kernel scale and the floor K0
        let rf = reference_sample_stoppable(
            target,
            &post.map,
            kept,
            spec.reference_warmup,
            spec.thin.max(10),
            cancel,
            &mut stream(spec.seed, STREAM_REF),
        )?;
        setup += rf.grad_evals;
        let c = median_pairwise_distance(&rf.samples, kept, d);
        if !(c.is_finite() && c > 0.0) {
            return Err(Error::numerical("sgmcmc-ksd: the reference draws did not move (median distance 0)"));
        }
        let opts = KsdOptions { c, beta: -0.5, scale: KernelScale::Fixed, estimator: Estimator::V };
        let floor = match spec.ksd_floor {
            Some(f) => f,
            None => ksd_target_value(target, &rf.samples, &opts)
                .filter(|k| *k > 0.0)
                .ok_or_else(|| Error::numerical("sgmcmc-ksd: the KSD of the reference draws is not finite"))?,
        };
        setup += (kept * n_data) as u64;
        let start = match spec.start {
            StartKind::Map => post.map.clone(),
            StartKind::Zero => vec![0.0; d],
        };
        let data_name = match &spec.data.source {
            DataSource::Simulate { n, d, .. } => format!("simulated n={n} d={d}"),
            DataSource::Csv { path } => path.clone(),
            DataSource::Upload { name } if !name.is_empty() => name.clone(),
            DataSource::Upload { .. } => "uploaded data".into(),
            DataSource::Digits => "digits".into(),
            DataSource::Mnist { .. } => "MNIST".into(),
            DataSource::Ratings { path } => path.clone(),
            DataSource::SimulateRatings { .. } => "simulated ratings".into(),
            DataSource::None => "no data".into(),
        };
        Ok(Setup {
            target: post.train.clone(),
            cv: post.cv.clone(),
            start,
            opts,
            floor,
            n_data,
            dim: d,
            setup_grad_evals: setup,
            data_name,
        })
    }

    /// The sampler parameters of a configuration, checked for this data size.
    fn params(&self, spec: &SgmcmcKsdSpec, a: &SgmcmcArm) -> Result<ValidSamplerParams> {
        SamplerParams {
            kind: a.sampler,
            step: a.step,
            batch: BatchSize::Count(a.batch),
            leapfrog: spec.leapfrog,
            ..SamplerParams::default()
        }
        .validate(self.n_data)
    }

    /// One run of a configuration from `rng`: its KSD (`None`: diverged) and its cost (the sampler's gradient
    /// evaluations plus the full-data scores of its KSD).
    fn run(
        &self,
        spec: &SgmcmcKsdSpec,
        params: &ValidSamplerParams,
        rng: Rng,
        cancel: &AtomicBool,
    ) -> Result<(Option<f64>, f64)> {
        let (target, d) = (self.target.as_ref(), self.dim);
        let mut chain = Chain::new(target, params.clone(), self.start.clone(), Some(self.cv.clone()), rng)?;
        let mut out = Vec::with_capacity(spec.kept() * d);
        let st = chain.run(target, Budget::Iterations(spec.iterations), spec.thin, &mut out, cancel);
        if st.cancelled {
            return Err(Error::Cancelled);
        }
        let k = if st.status.is_diverged() { None } else { ksd_target_value(target, &out, &self.opts) };
        let scored = if k.is_some() { out.len() / d.max(1) } else { 0 };
        Ok((k, (st.grad_evals + (scored * self.n_data) as u64) as f64))
    }
}

impl SgmcmcTable {
    /// Builds the table: takes the user's data (`source: csv | upload`, parsed at the boundary) or loads the built-in data, finds the MAP, draws
    /// the reference sample, then runs every configuration `replicates` times in parallel. `progress(done, total)`
    /// is called on the calling thread between chunks of runs; `cancel` is checked between chunks and inside runs.
    pub fn build(
        spec: &SgmcmcKsdSpec,
        data: Option<Dataset>,
        progress: &mut dyn FnMut(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<SgmcmcTable> {
        let su = Setup::build(spec, data, cancel)?;
        let arms: Vec<SgmcmcArm> = (0..spec.pool).map(|p| draw_arm(spec, su.n_data, p)).collect();
        // every configuration's parameters, checked once (a bad batch for this N is a config error, not a run failure)
        let valid: Vec<ValidSamplerParams> = arms.iter().map(|a| su.params(spec, a)).collect::<Result<_>>()?;
        let m = spec.replicates;
        let total = spec.pool * m;
        let run_one = |i: usize| -> Result<(Option<f64>, f64)> {
            su.run(spec, &valid[i / m], substream(spec.seed, STREAM_RUN, i as u64), cancel)
        };
        let mut results: Vec<(Option<f64>, f64)> = Vec::with_capacity(total);
        progress(0, total);
        while results.len() < total {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let lo = results.len();
            let hi = (lo + CHUNK.max(rayon::current_num_threads() * 2)).min(total);
            let chunk: Vec<(Option<f64>, f64)> = (lo..hi).into_par_iter().map(run_one).collect::<Result<_>>()?;
            results.extend(chunk);
            progress(results.len(), total);
        }
        let mut ksds = Vec::with_capacity(spec.pool);
        let mut rewards = Vec::with_capacity(spec.pool);
        let mut cost = Vec::with_capacity(spec.pool);
        for p in 0..spec.pool {
            let row = &results[p * m..(p + 1) * m];
            ksds.push(row.iter().map(|r| r.0).collect::<Vec<_>>());
            rewards.push(row.iter().map(|r| ksd_reward(r.0, su.floor)).collect::<Vec<_>>());
            cost.push(row.iter().map(|r| r.1).collect::<Vec<_>>());
        }
        let value = rewards.iter().map(|r: &Vec<f64>| r.iter().sum::<f64>() / m as f64).collect();
        let name = format!(
            "SG-MCMC configurations by KSD: {} on {}, pool of {} x {m} runs",
            spec.model.kind(),
            su.data_name,
            spec.pool
        );
        let (floor, kernel_c, n_data, dim, setup) = (su.floor, su.opts.c, su.n_data, su.dim, su.setup_grad_evals);
        Ok(SgmcmcTable {
            arms,
            ksd: ksds,
            rewards,
            cost,
            value,
            floor,
            kernel_c,
            n_data,
            dim,
            setup_grad_evals: setup,
            name,
        })
    }

    /// Index of the best configuration (largest value; the first on ties).
    pub fn best(&self) -> usize {
        let mut b = 0;
        for (i, v) in self.value.iter().enumerate() {
            if *v > self.value[b] {
                b = i;
            }
        }
        b
    }
}

/// One repeat's view of the table: the pool in its own order (see the module docs).
#[derive(Debug, Clone)]
pub struct SgmcmcKsd {
    table: Arc<SgmcmcTable>,
    order: Vec<usize>,
    optimum: f64,
    last_cost: f64,
}

impl SgmcmcKsd {
    /// The view for a repeat whose problem seed is `seed`.
    pub fn new(table: Arc<SgmcmcTable>, seed: u64) -> Self {
        let mut order: Vec<usize> = (0..table.arms.len()).collect();
        order.shuffle(&mut stream(seed, STREAM_ORDER));
        let optimum = table.value.iter().copied().fold(0.0, f64::max);
        SgmcmcKsd { table, order, optimum, last_cost: 0.0 }
    }

    fn pool_index(&self, arm: &Arm) -> Result<usize> {
        match arm {
            Arm::Index(k) if *k < self.order.len() => Ok(self.order[*k]),
            Arm::Index(k) => Err(Error::config(format!("arm {k} out of range (pool of {})", self.order.len()))),
            Arm::Point(_) => Err(Error::config("sgmcmc-ksd has discrete arms; got a point")),
        }
    }
}

impl Problem for SgmcmcKsd {
    fn name(&self) -> String {
        self.table.name.clone()
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: Some(self.order.len()) }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, rng: &mut Rng) -> Result<f64> {
        let p = self.pool_index(arm)?;
        let j = rng.random_range(0..self.table.rewards[p].len());
        self.last_cost = self.table.cost[p][j];
        Ok(self.table.rewards[p][j])
    }
    fn replay(&mut self, _arm: &Arm, _t: usize) -> Result<()> {
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        self.pool_index(arm).map(|p| self.table.value[p]).unwrap_or(f64::NAN)
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        self.optimum
    }
    fn cost(&self, _arm: &Arm) -> f64 {
        self.last_cost
    }
    fn cost_unit(&self) -> &'static str {
        "gradient evaluations"
    }
    fn describe(&self, arm: &Arm) -> Option<String> {
        let p = self.pool_index(arm).ok()?;
        let mean_ksd: Vec<f64> = self.table.ksd[p].iter().flatten().copied().collect();
        let k = if mean_ksd.is_empty() {
            "diverged".to_string()
        } else {
            format!("KSD {:.3e}", mean_ksd.iter().sum::<f64>() / mean_ksd.len() as f64)
        };
        Some(format!("{} ({k})", self.table.arms[p].label()))
    }
}
