//! Bayesian best-arm identification for Bernoulli (or [0, 1]) rewards:
//! - [`Ttts`]: top-two Thompson sampling (Russo 2016, "Simple Bayesian algorithms for best arm identification",
//!   sec. 3.2) on a finite set of arms with Beta posteriors;
//! - [`DTtts`]: dynamic TTTS for infinitely many arms (Shang, Kaufmann & Valko 2019, "A simple dynamic bandit
//!   algorithm for hyper-parameter tuning", Alg. 1): one new arm from the reservoir enters every round;
//! - [`Uniform`]: round-robin allocation over a fixed set, the floor to beat.
//!
//! Rewards `r` in [0, 1] are binarised: a success with probability `r` (Agrawal & Goyal 2012), so Beta-Bernoulli
//! updates stay exact. Priors are Beta(1, 1). Recommendations maximise the posterior probability of being the best
//! arm, computed exactly by one-dimensional quadrature ([`super::betabest`]) over all arms of the list, pulled or not
//! (D-TTTS's entered but unpulled arms have their Beta(1, 1) prior), as the poster's recommendation rule; the
//! pulled arms only, the most-pulled arm and a Monte Carlo estimate are options.

use rand::RngExt;
use rand_distr::{Beta, Distribution};
use serde::{Deserialize, Serialize};

use super::{Arm, ArmStat, BanditAlgo};
use crate::math::powf;
use crate::rng::Rng;
use crate::{Error, Result};

fn beta_draw(a: f64, b: f64, rng: &mut Rng) -> f64 {
    match Beta::new(a, b) {
        Ok(d) => d.sample(rng),
        Err(_) => a / (a + b),
    }
}

/// Per-arm statistics: binarised successes/failures and the raw reward sum.
#[derive(Debug, Clone, Default)]
struct Stats {
    arm: usize,
    succ: f64,
    fail: f64,
    sum: f64,
}

impl Stats {
    fn pulls(&self) -> f64 {
        self.succ + self.fail
    }
    fn alpha(&self) -> f64 {
        1.0 + self.succ
    }
    fn beta(&self) -> f64 {
        1.0 + self.fail
    }
}

/// Monte Carlo estimate of `P(arm i is the best)` under independent Beta posteriors; returns the index (into
/// `stats`) with the largest estimate (ties: the larger posterior mean).
fn most_probably_best(stats: &[Stats], samples: usize, rng: &mut Rng) -> Option<usize> {
    if stats.is_empty() {
        return None;
    }
    let mut wins = vec![0usize; stats.len()];
    for _ in 0..samples {
        let mut best = 0;
        let mut bv = f64::NEG_INFINITY;
        for (i, s) in stats.iter().enumerate() {
            let v = beta_draw(s.alpha(), s.beta(), rng);
            if v > bv {
                bv = v;
                best = i;
            }
        }
        wins[best] += 1;
    }
    let pm = |s: &Stats| s.alpha() / (s.alpha() + s.beta());
    let mut best = 0;
    for i in 1..stats.len() {
        if wins[i] > wins[best] || (wins[i] == wins[best] && pm(&stats[i]) > pm(&stats[best])) {
            best = i;
        }
    }
    Some(best)
}

fn most_pulled(stats: &[Stats]) -> Option<usize> {
    let pm = |s: &Stats| s.alpha() / (s.alpha() + s.beta());
    let mut best: Option<usize> = None;
    for (i, s) in stats.iter().enumerate() {
        if s.pulls() == 0.0 {
            continue;
        }
        match best {
            Some(b) if stats[b].pulls() > s.pulls() || (stats[b].pulls() == s.pulls() && pm(&stats[b]) >= pm(s)) => {}
            _ => best = Some(i),
        }
    }
    best
}

/// Where a recommendation rule looks: the index into `stats` of a candidate, or "one of the `unpulled` arms
/// outside `stats`" (D-TTTS's entered but never pulled arms in pseudo-arm mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Stat(usize),
    Outside,
}

/// The arm with the largest exact `P(best)` (ties: the larger posterior mean, then the earlier arm). The pulled
/// arms of `stats` always compete with the `unpulled` arms outside `stats` and the zero-pull entries of `stats`,
/// all with the Beta(1, 1) prior. `over_all`: the candidates are every arm of the list, pulled or not (the
/// poster's rule, "Recommendation Rule": argmax over i in A, the set of queried arms); otherwise only the pulled
/// arms are candidates (a variant).
fn exact_best(stats: &[Stats], unpulled: usize, over_all: bool) -> Option<Pick> {
    let idx: Vec<usize> = (0..stats.len()).filter(|&i| stats[i].pulls() > 0.0).collect();
    let zero: Vec<usize> = (0..stats.len()).filter(|&i| stats[i].pulls() == 0.0).collect();
    let n_unpulled = unpulled + zero.len();
    let mut params: Vec<(f64, f64)> = idx.iter().map(|&i| (stats[i].alpha(), stats[i].beta())).collect();
    // one unpulled arm as an explicit entry and the others as `extra`: prob_best groups equal posteriors, so the
    // entry's value is the probability of one (each) unpulled arm. A pulled arm never has the Beta(1, 1)
    // posterior (alpha + beta >= 3), so the group holds unpulled arms only.
    let with_unpulled = over_all && n_unpulled > 0;
    if with_unpulled {
        params.push((1.0, 1.0));
    }
    if params.is_empty() {
        return None;
    }
    let extra = if with_unpulled { n_unpulled - 1 } else { n_unpulled };
    let p = super::betabest::prob_best(&params, extra);
    let mean = |j: usize| params[j].0 / (params[j].0 + params[j].1);
    let mut best = 0;
    for j in 1..params.len() {
        if p[j] > p[best] || (p[j] == p[best] && mean(j) > mean(best)) {
            best = j;
        }
    }
    Some(if best < idx.len() {
        Pick::Stat(idx[best])
    } else {
        // the earliest unpulled arm: a zero-pull entry of `stats` first, else the next arm outside
        zero.first().map_or(Pick::Outside, |&i| Pick::Stat(i))
    })
}

/// The recommended arm's index into `stats`, or `Outside` (see [`Pick`]).
fn recommend(stats: &[Stats], unpulled: usize, opts: &TttsOptions, rng: &mut Rng) -> Option<Pick> {
    match opts.recommend {
        Recommend::Posterior => exact_best(stats, unpulled, true),
        Recommend::PosteriorPulled => exact_best(stats, unpulled, false),
        Recommend::PosteriorMc => {
            let idx: Vec<usize> = (0..stats.len()).filter(|&i| stats[i].pulls() > 0.0).collect();
            let pulled: Vec<Stats> = idx.iter().map(|&i| stats[i].clone()).collect();
            most_probably_best(&pulled, opts.mc_samples, rng).map(|j| Pick::Stat(idx[j]))
        }
        Recommend::MostPulled => most_pulled(stats).map(Pick::Stat),
    }
}

fn binarise(reward: f64, rng: &mut Rng) -> bool {
    rng.random::<f64>() < reward.clamp(0.0, 1.0)
}

/// The `tell` / `recommend` / `arm_stats` of a `BanditAlgo` whose state is `stats` (Beta posteriors),
/// `opts` and `bin_rng`: shared by TTTS and D-TTTS.
macro_rules! beta_arms_feedback {
    () => {
        fn tell(&mut self, arm: &Arm, reward: f64) {
            observe(&mut self.stats, arm, reward, &mut self.bin_rng);
        }
        fn recommend(&mut self, _t: usize, rng: &mut Rng) -> Option<Arm> {
            recommend(&self.stats, self.unpulled(), &self.opts, rng).map(|p| match p {
                Pick::Stat(i) => Arm::Index(self.stats[i].arm),
                // arms are pulled in list order, so the earliest entered unpulled arm is the next index
                Pick::Outside => Arm::Index(self.stats.len()),
            })
        }
        fn arm_stats(&self) -> Vec<ArmStat> {
            arm_stats(&self.stats)
        }
    };
}

/// Records a pull of `arm`: a Bernoulli draw with mean `reward` (binarisation, Agrawal & Goyal 2012) updates
/// the Beta posterior; the raw reward is summed for the empirical mean.
fn observe(stats: &mut [Stats], arm: &Arm, reward: f64, bin_rng: &mut Rng) {
    let Arm::Index(k) = arm else { return };
    if let Some(s) = stats.get_mut(*k) {
        if binarise(reward, bin_rng) {
            s.succ += 1.0;
        } else {
            s.fail += 1.0;
        }
        s.sum += reward;
    }
}

/// How TTTS / D-TTTS recommend an arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Recommend {
    /// The poster's rule (Shang et al. 2019, "Recommendation Rule"): the arm of the whole list A (pulled or
    /// not; an unpulled arm has its Beta(1, 1) prior) with the largest posterior probability of being the best,
    /// computed exactly (quadrature, [`super::betabest`]). With many arms pulled once (D-TTTS on a reservoir) a
    /// barely pulled arm with one success can have the largest probability, so it may be recommended; an
    /// unpulled arm is recommended only when no pulled arm is more probably the best.
    #[default]
    Posterior,
    /// A variant: the same probabilities (every arm of the list still competes), but only pulled arms can be
    /// recommended.
    PosteriorPulled,
    /// The same rule estimated by `mc_samples` Monte Carlo draws over the pulled arms only (the rule before the
    /// exact one; kept for comparison).
    PosteriorMc,
    /// The most pulled arm (ties: larger posterior mean); top-two sampling pulls the best arm about a fraction
    /// beta of the time.
    MostPulled,
}

/// Options of TTTS / D-TTTS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TttsOptions {
    /// Probability of pulling the leader rather than the challenger (Russo's beta, default 1/2).
    pub beta: f64,
    /// Number of arms (TTTS on a reservoir: the first `arms` arms; ignored by D-TTTS and finite problems).
    pub arms: Option<usize>,
    /// D-TTTS: represent the arms that entered but were never pulled by one pseudo-arm whose sample is the
    /// maximum of their uniform prior samples, Beta(m, 1) for m such arms (default true). With false, every
    /// entered arm keeps its own Beta(1, 1) posterior (O(t) per round).
    pub pseudo_arm: bool,
    /// Monte Carlo draws of the `posterior-mc` recommendation (default 200).
    pub mc_samples: usize,
    /// Recommendation rule (default `posterior`).
    pub recommend: Recommend,
    /// Label in the report.
    pub label: Option<String>,
}

impl Default for TttsOptions {
    fn default() -> Self {
        TttsOptions {
            beta: 0.5,
            arms: None,
            pseudo_arm: true,
            mc_samples: 200,
            recommend: Recommend::Posterior,
            label: None,
        }
    }
}

impl TttsOptions {
    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return Err(Error::config("ttts: beta must be in (0, 1]"));
        }
        if self.mc_samples == 0 {
            return Err(Error::config("ttts: mc_samples must be >= 1"));
        }
        if self.arms == Some(0) || self.arms == Some(1) {
            return Err(Error::config("ttts: at least two arms are needed"));
        }
        Ok(())
    }
}

/// Largest number of resamples when looking for a challenger different from the leader; after that the
/// runner-up of the last draw is taken (an exact draw from the challenger distribution except for that
/// truncation).
const MAX_RESAMPLES: usize = 10;

/// Top-two Thompson sampling on a finite set of arms (Russo 2016, TTTS with Beta posteriors).
pub struct Ttts {
    opts: TttsOptions,
    stats: Vec<Stats>,
    bin_rng: Rng,
}

impl Ttts {
    /// TTTS on arms `0..n_arms`.
    pub fn new(n_arms: usize, opts: TttsOptions, seed: u64) -> Result<Self> {
        opts.validate()?;
        if n_arms < 2 {
            return Err(Error::config("ttts: at least two arms are needed"));
        }
        let stats = (0..n_arms).map(|i| Stats { arm: i, ..Default::default() }).collect();
        Ok(Ttts { opts, stats, bin_rng: crate::rng::stream(seed, 0xb1) })
    }
}

/// One TTTS decision over `stats`, plus an optional pseudo-arm standing for `m` exchangeable unpulled arms with
/// Beta(1, 1) posteriors (sampled as the max of their samples, Beta(m, 1)): returns the index into `stats`, or
/// `stats.len()` for "a fresh unpulled arm".
///
/// Exactness of the pseudo-arm: when the leader is an unpulled arm A and a resample's maximum is again among the
/// unpulled arms, that maximum is A with probability 1/m (exchangeability), so it is rejected with probability
/// 1/m and otherwise accepted as another unpulled arm (pulling either is pulling a fresh arm). This gives the
/// same decision distribution as keeping the m arms explicitly.
fn top_two(stats: &[Stats], pseudo_m: usize, beta: f64, rng: &mut Rng) -> usize {
    let n = stats.len() + usize::from(pseudo_m > 0);
    let draw = |rng: &mut Rng| -> (usize, usize) {
        let (mut b1, mut v1, mut b2, mut v2) = (0usize, f64::NEG_INFINITY, 0usize, f64::NEG_INFINITY);
        for i in 0..n {
            let v = if i < stats.len() {
                beta_draw(stats[i].alpha(), stats[i].beta(), rng)
            } else {
                // max of m independent U(0,1) prior samples ~ Beta(m, 1)
                powf(rng.random::<f64>(), 1.0 / pseudo_m as f64)
            };
            if v > v1 {
                b2 = b1;
                v2 = v1;
                b1 = i;
                v1 = v;
            } else if v > v2 {
                b2 = i;
                v2 = v;
            }
        }
        (b1, b2)
    };
    let pseudo = stats.len();
    let (leader, _) = draw(rng);
    if n == 1 || rng.random::<f64>() < beta {
        return leader;
    }
    for k in 0..MAX_RESAMPLES {
        let (c, second) = draw(rng);
        if c != leader {
            return c;
        }
        if c == pseudo && pseudo_m > 1 && rng.random::<f64>() >= 1.0 / pseudo_m as f64 {
            // another unpulled arm than the leader
            return c;
        }
        if k + 1 == MAX_RESAMPLES {
            return second;
        }
    }
    leader
}

impl Ttts {
    /// Arms outside `stats` (none: every arm of TTTS is in `stats`).
    fn unpulled(&self) -> usize {
        0
    }
}

impl BanditAlgo for Ttts {
    fn ask(&mut self, _t: usize, rng: &mut Rng) -> Arm {
        let i = top_two(&self.stats, 0, self.opts.beta, rng);
        Arm::Index(self.stats[i].arm)
    }
    beta_arms_feedback!();
}

fn arm_stats(stats: &[Stats]) -> Vec<ArmStat> {
    stats
        .iter()
        .map(|s| ArmStat {
            arm: s.arm,
            pulls: s.pulls() as usize,
            mean_reward: (s.pulls() > 0.0).then(|| s.sum / s.pulls()),
            alpha: Some(s.alpha()),
            beta: Some(s.beta()),
            true_value: 0.0,
            label: None,
        })
        .collect()
}

/// Dynamic TTTS (Shang, Kaufmann & Valko 2019, Alg. 1): at round t the list holds t arms from the reservoir
/// (arm indices 0, 1, 2, ... in reservoir order); TTTS runs on the list. On a finite set of K arms, arms enter in
/// index order until all K are in (then it is TTTS with a growing start).
pub struct DTtts {
    opts: TttsOptions,
    cap: Option<usize>,
    /// Arms pulled at least once (pseudo-arm mode) or all entered arms; arm `k` is `stats[k]`.
    stats: Vec<Stats>,
    /// Arms that entered the list.
    entered: usize,
    bin_rng: Rng,
}

impl DTtts {
    /// D-TTTS on a reservoir (`n_arms = None`) or on a finite set of `n_arms` arms.
    pub fn new(opts: TttsOptions, n_arms: Option<usize>, seed: u64) -> Result<Self> {
        opts.validate()?;
        if n_arms.is_some_and(|n| n < 2) {
            return Err(Error::config("d-ttts: at least two arms are needed"));
        }
        Ok(DTtts { opts, cap: n_arms, stats: Vec::new(), entered: 0, bin_rng: crate::rng::stream(seed, 0xb2) })
    }

    /// Number of arms that entered the list.
    pub fn entered(&self) -> usize {
        self.entered
    }

    /// Entered arms not in `stats` (pseudo-arm mode: entered but never pulled).
    fn unpulled(&self) -> usize {
        self.entered - self.stats.len()
    }
}

impl BanditAlgo for DTtts {
    fn ask(&mut self, _t: usize, rng: &mut Rng) -> Arm {
        // a new arm enters every round (until a finite set is exhausted)
        if self.cap.is_none_or(|c| self.entered < c) {
            self.entered += 1;
            if !self.opts.pseudo_arm {
                let k = self.stats.len();
                self.stats.push(Stats { arm: k, ..Default::default() });
            }
        }
        // pseudo-arm mode: the m entered-but-unpulled arms (exchangeable, Beta(1, 1) each) are one pseudo-arm
        // whose Thompson sample is the max of m uniforms ~ Beta(m, 1); pulling it pulls the next unpulled arm.
        let m = self.entered - self.stats.len();
        let i = top_two(&self.stats, m, self.opts.beta, rng);
        if i == self.stats.len() {
            let k = self.stats.len();
            self.stats.push(Stats { arm: k, ..Default::default() });
            Arm::Index(k)
        } else {
            Arm::Index(self.stats[i].arm)
        }
    }
    beta_arms_feedback!();
}

/// Round-robin over arms `0..n_arms`; recommends the best empirical mean.
pub struct Uniform {
    n: usize,
    pulls: Vec<f64>,
    sums: Vec<f64>,
}

impl Uniform {
    /// Uniform allocation over `n_arms >= 1` arms.
    pub fn new(n_arms: usize) -> Result<Self> {
        if n_arms == 0 {
            return Err(Error::config("uniform: at least one arm is needed"));
        }
        Ok(Uniform { n: n_arms, pulls: vec![0.0; n_arms], sums: vec![0.0; n_arms] })
    }
}

impl BanditAlgo for Uniform {
    fn ask(&mut self, t: usize, _rng: &mut Rng) -> Arm {
        Arm::Index(t % self.n)
    }
    fn tell(&mut self, arm: &Arm, reward: f64) {
        if let Arm::Index(k) = arm {
            if *k < self.n {
                self.pulls[*k] += 1.0;
                self.sums[*k] += reward;
            }
        }
    }
    fn recommend(&mut self, _t: usize, _rng: &mut Rng) -> Option<Arm> {
        super::halving::best_empirical(&self.pulls, &self.sums, 1.0).map(Arm::Index)
    }
    fn arm_stats(&self) -> Vec<ArmStat> {
        (0..self.n)
            .map(|i| ArmStat {
                arm: i,
                pulls: self.pulls[i] as usize,
                mean_reward: (self.pulls[i] > 0.0).then(|| self.sums[i] / self.pulls[i]),
                alpha: None,
                beta: None,
                true_value: 0.0,
                label: None,
            })
            .collect()
    }
}

/// Random search over discrete arms (the poster's baseline): on a reservoir every pull tries a fresh arm (arm `t`
/// at round `t`: the reservoir order is already random) and the arm with the best observed reward is recommended
/// (ties: the earlier); on a finite set, a uniformly random arm per pull, the best empirical mean recommended.
pub struct RandomArms {
    n: Option<usize>,
    pulls: Vec<f64>,
    sums: Vec<f64>,
}

impl RandomArms {
    /// Random search over `n_arms` arms (`None`: a reservoir).
    pub fn new(n_arms: Option<usize>) -> Result<Self> {
        if n_arms == Some(0) {
            return Err(Error::config("random: at least one arm is needed"));
        }
        Ok(RandomArms { n: n_arms, pulls: Vec::new(), sums: Vec::new() })
    }
}

impl BanditAlgo for RandomArms {
    fn ask(&mut self, t: usize, rng: &mut Rng) -> Arm {
        Arm::Index(match self.n {
            None => t,
            Some(n) => rng.random_range(0..n),
        })
    }
    fn tell(&mut self, arm: &Arm, reward: f64) {
        if let Arm::Index(k) = arm {
            if self.pulls.len() <= *k {
                self.pulls.resize(*k + 1, 0.0);
                self.sums.resize(*k + 1, 0.0);
            }
            self.pulls[*k] += 1.0;
            self.sums[*k] += reward;
        }
    }
    fn recommend(&mut self, _t: usize, _rng: &mut Rng) -> Option<Arm> {
        super::halving::best_empirical(&self.pulls, &self.sums, 0.0).map(Arm::Index)
    }
    fn arm_stats(&self) -> Vec<ArmStat> {
        super::halving::empirical_stats(&self.pulls, &self.sums)
    }
}
