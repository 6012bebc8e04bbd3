//! The infinite-armed version of the SG-MCMC KSD problem: arms are SG-MCMC configurations drawn in order from
//! a reservoir (D-TTTS's setting, Shang, Kaufmann & Valko), each scored by its KSD.

use super::*;
use crate::bandit::Arm;
use crate::data::Dataset;
use crate::experiments::bandit::problems::{ArmSpace, Problem};
use crate::rng::{stream, substream, Rng};
use crate::sampler::ValidSamplerParams;
use crate::{Error, Result};
use rand::RngExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// What all repeats of a continuous-reservoir run share: the setup (target, kernel, floor), the reference optimum
/// and the cache of true values.
pub struct SgmcmcReservoirShared {
    spec: SgmcmcKsdSpec,
    setup: Setup,
    optimum: f64,
    /// True values of the reference configurations (the shape of the reservoir).
    reference_values: Vec<f64>,
    /// True values by (problem seed, arm).
    cache: Mutex<HashMap<(u64, usize), f64>>,
    name: String,
}

impl std::fmt::Debug for SgmcmcReservoirShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SgmcmcReservoirShared").field("name", &self.name).field("optimum", &self.optimum).finish()
    }
}

impl SgmcmcReservoirShared {
    /// Builds the setup (as [`SgmcmcTable::build`]) and the reference optimum: the best true value among
    /// `reference_arms` configurations drawn from stream `(spec.seed, r)`. `progress(done, total)` counts runs.
    pub fn build(
        spec: &SgmcmcKsdSpec,
        data: Option<Dataset>,
        progress: &mut dyn FnMut(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<Self> {
        let setup = Setup::build(spec, data, cancel)?;
        let name = format!(
            "SG-MCMC configurations by KSD: {} on {}, continuous reservoir (value = mean reward of {} runs)",
            spec.model.kind(),
            setup.data_name,
            spec.truth_runs
        );
        let mut sh = SgmcmcReservoirShared {
            spec: spec.clone(),
            setup,
            optimum: f64::NEG_INFINITY,
            reference_values: Vec::new(),
            cache: Mutex::new(HashMap::new()),
            name,
        };
        let m = spec.truth_runs;
        let total = spec.reference_arms * m;
        let refs: Vec<SgmcmcArm> = (0..spec.reference_arms)
            .map(|r| draw_config(spec, sh.setup.n_data, &mut substream(spec.seed, STREAM_CREF, r as u64)))
            .collect();
        let params: Vec<ValidSamplerParams> = refs.iter().map(|a| sh.setup.params(spec, a)).collect::<Result<_>>()?;
        let mut rewards: Vec<f64> = Vec::with_capacity(total);
        progress(0, total);
        while rewards.len() < total {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            let lo = rewards.len();
            let hi = (lo + CHUNK.max(rayon::current_num_threads() * 2)).min(total);
            let chunk: Vec<f64> =
                (lo..hi).into_par_iter().map(|i| sh.truth_run(&params[i / m], i % m, cancel)).collect::<Result<_>>()?;
            rewards.extend(chunk);
            progress(rewards.len(), total);
        }
        sh.reference_values = rewards.chunks(m).map(|c| c.iter().sum::<f64>() / m as f64).collect();
        sh.optimum = sh.reference_values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Ok(sh)
    }

    /// Truth run `i` of a configuration: its reward on stream `(spec.seed, i)` (the same streams for every
    /// configuration, and none of them used by a pull).
    fn truth_run(&self, params: &ValidSamplerParams, i: usize, cancel: &AtomicBool) -> Result<f64> {
        let (k, _) = self.setup.run(&self.spec, params, substream(self.spec.seed, STREAM_TRUTH, i as u64), cancel)?;
        Ok(ksd_reward(k, self.setup.floor))
    }

    /// The true value of a configuration: its mean reward over the `truth_runs` truth runs.
    pub fn truth_of(&self, arm: &SgmcmcArm) -> Result<f64> {
        let params = self.setup.params(&self.spec, arm)?;
        let never = AtomicBool::new(false);
        let r: Vec<f64> = (0..self.spec.truth_runs)
            .into_par_iter()
            .map(|i| self.truth_run(&params, i, &never))
            .collect::<Result<_>>()?;
        Ok(r.iter().sum::<f64>() / r.len() as f64)
    }

    /// The reference optimum.
    pub fn optimum(&self) -> f64 {
        self.optimum
    }

    /// True values of the `reference_arms` reference configurations, in draw order.
    pub fn reference_values(&self) -> &[f64] {
        &self.reference_values
    }

    /// The KSD floor `K0` of the reward transform.
    pub fn floor(&self) -> f64 {
        self.setup.floor
    }
}

/// D-TTTS's dynamic reservoir on SG-MCMC configurations (Shang, Kaufmann & Valko 2019, sec. 5): arm `k` of a
/// repeat is a configuration drawn from the continuous distribution of the spec (sampler uniform, step
/// log-uniform, batch fraction log-uniform) with the stream `(problem seed, k)`; there is no finite pool, and
/// every algorithm of a repeat sees the same sequence of configurations (common random numbers). Pull `j` of arm
/// `k` runs its chain on a stream derived from `(problem seed, k, j)` and returns `min(1, (K0 / K)^2)` as the
/// pooled problem does, so a pull is reproducible from (seed, arm, pull index) whatever the algorithm or the
/// order of pulls. An arm's true value is its mean reward over `truth_runs` fixed runs, the optimum the best true
/// value of `reference_arms` configurations drawn once (a tuner that finds better gets a negative regret).
#[derive(Debug)]
pub struct SgmcmcReservoir {
    shared: Arc<SgmcmcReservoirShared>,
    seed: u64,
    arms: Vec<SgmcmcArm>,
    pulls: HashMap<usize, u64>,
    last_cost: f64,
}

impl SgmcmcReservoir {
    /// The problem for repeat seed `seed`.
    pub fn new(shared: Arc<SgmcmcReservoirShared>, seed: u64) -> Self {
        SgmcmcReservoir { shared, seed, arms: Vec::new(), pulls: HashMap::new(), last_cost: 0.0 }
    }

    /// The configuration of arm `k` (drawn from the stream `(seed, k)`).
    pub fn config(&mut self, k: usize) -> &SgmcmcArm {
        while self.arms.len() <= k {
            let a = draw_config(
                &self.shared.spec,
                self.shared.setup.n_data,
                &mut substream(self.seed, STREAM_CARM, self.arms.len() as u64),
            );
            self.arms.push(a);
        }
        &self.arms[k]
    }

    /// Pull `j` of arm `k`: the reward and the cost of one run on the stream of `(seed, k, j)`.
    pub fn reward(&mut self, k: usize, j: u64) -> Result<(f64, f64)> {
        let arm = self.config(k).clone();
        let sh = &self.shared;
        let params = sh.setup.params(&sh.spec, &arm)?;
        let key: u64 = substream(self.seed, STREAM_CPULL, k as u64).random();
        let (ksd, cost) = sh.setup.run(&sh.spec, &params, stream(key, j), &AtomicBool::new(false))?;
        Ok((ksd_reward(ksd, sh.setup.floor), cost))
    }

    fn truth(&mut self, k: usize) -> Result<f64> {
        if let Some(v) = self.shared.cache.lock().ok().and_then(|c| c.get(&(self.seed, k)).copied()) {
            return Ok(v);
        }
        let arm = self.config(k).clone();
        let v = self.shared.truth_of(&arm)?;
        if let Ok(mut c) = self.shared.cache.lock() {
            c.insert((self.seed, k), v);
        }
        Ok(v)
    }
}

impl Problem for SgmcmcReservoir {
    fn name(&self) -> String {
        self.shared.name.clone()
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: None }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, _rng: &mut Rng) -> Result<f64> {
        let Arm::Index(k) = arm else { return Err(Error::config("sgmcmc-ksd has discrete arms; got a point")) };
        let j = {
            let c = self.pulls.entry(*k).or_insert(0);
            *c += 1;
            *c - 1
        };
        let (r, cost) = self.reward(*k, j)?;
        self.last_cost = cost;
        Ok(r)
    }
    fn replay(&mut self, arm: &Arm, _t: usize) -> Result<()> {
        // the arm's configuration is drawn (reports describe it) and its pull counted: its next pull is the next
        // of its fixed sequence
        let Arm::Index(k) = arm else { return Err(Error::config("sgmcmc-ksd has discrete arms; got a point")) };
        self.config(*k);
        *self.pulls.entry(*k).or_insert(0) += 1;
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        match arm {
            Arm::Index(k) => self.truth(*k).unwrap_or(f64::NAN),
            Arm::Point(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        self.shared.optimum
    }
    fn cost(&self, _arm: &Arm) -> f64 {
        self.last_cost
    }
    fn cost_unit(&self) -> &'static str {
        "gradient evaluations"
    }
    fn describe(&self, arm: &Arm) -> Option<String> {
        let Arm::Index(k) = arm else { return None };
        let a = self.arms.get(*k)?;
        let v = self.shared.cache.lock().ok().and_then(|c| c.get(&(self.seed, *k)).copied());
        Some(match v {
            Some(v) => format!("{} (value {v:.3})", a.label()),
            None => a.label(),
        })
    }
}
