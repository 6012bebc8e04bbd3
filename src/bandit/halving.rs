//! Successive halving and Hyperband as bandit baselines, with one pull as the unit of resource.
//!
//! - Successive halving, fixed-budget version (Karnin, Koren & Somekh 2013, "Sequential Halving", Alg. 1, with
//!   reduction factor eta): n arms, `R = ceil(log_eta n)` stages; in each stage every survivor is pulled
//!   `max(1, floor(T / (|S| R)))` more times and the best `ceil(|S| / eta)` (by mean over their pulls) survive.
//!   When one arm is left it is pulled for the rest of the budget. The stages are
//!   [`crate::bandit::schedule::halving_schedule`] (MAMBA's) with rounding up and equal budget per round.
//! - Hyperband (Li, Jamieson, DeSalvo, Rostamizadeh & Talwalkar 2018, JMLR, Alg. 1): brackets `s = s_max..0`,
//!   `n = ceil((s_max + 1) eta^s / (s + 1))` arms brought to `r_i = R eta^(i - s)` pulls each, keeping the best
//!   `floor(n_i / eta)` after each stage. `R` (max pulls per arm) defaults to the largest power of eta whose whole
//!   pass fits in the horizon; when a pass ends before the horizon a new pass starts on new arms (their
//!   infinite-horizon use).
//!
//! On a reservoir, "new arms" are the next indices; on a finite set, arms are taken round-robin (at most the
//! whole set per bracket). Recommendation: among arms with at least `max pulls / eta` pulls, the best mean.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{Arm, ArmStat, BanditAlgo, Eta};
use crate::bandit::schedule::{halving_schedule, RoundBudget, Rounding};
use crate::rng::Rng;
use crate::{Error, Result};

/// Index of the best empirical mean among arms with at least `frac * max(pulls)` pulls (ties: lowest index).
pub fn best_empirical(pulls: &[f64], sums: &[f64], frac: f64) -> Option<usize> {
    let maxp = pulls.iter().cloned().fold(0.0, f64::max);
    if maxp <= 0.0 {
        return None;
    }
    let mut best: Option<(f64, usize)> = None;
    for i in 0..pulls.len() {
        if pulls[i] > 0.0 && pulls[i] >= frac * maxp {
            let m = sums[i] / pulls[i];
            if best.is_none_or(|(b, _)| m > b) {
                best = Some((m, i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// Options of successive halving and Hyperband.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct HalvingOptions {
    /// Reduction factor (>= 2; default 3 for Hyperband, 2 for successive halving when not given).
    pub eta: Option<Eta>,
    /// Successive halving: number of arms (default 32, capped by a finite problem's size).
    pub arms: Option<usize>,
    /// Hyperband: max pulls per arm `R` (default: largest power of eta whose pass fits the horizon).
    pub max_resource: Option<usize>,
    /// Label in the report.
    pub label: Option<String>,
}

/// One stage: arms to bring forward, additional pulls each, and how many survive it.
#[derive(Debug, Clone)]
struct Stage {
    add: usize,
    keep: usize,
}

#[derive(Debug, Clone)]
struct Bracket {
    n: usize,
    stages: Vec<Stage>,
}

/// Successive halving or Hyperband (see the module docs).
pub struct Halving {
    eta: Eta,
    hyperband: bool,
    n_arms: Option<usize>,
    brackets: Vec<Bracket>,
    bracket: usize,
    stage: usize,
    /// Arms of the current stage with bracket-local (pulls, sum).
    current: Vec<(usize, f64, f64)>,
    queue: VecDeque<usize>,
    next_arm: usize,
    finished: Option<usize>,
    pulls: Vec<f64>,
    sums: Vec<f64>,
}

/// Hyperband brackets for max resource `r` and factor `eta`: (n, per-stage (add, keep)) with integer r_i.
fn hyperband_brackets(r: usize, eta: Eta) -> Vec<Bracket> {
    let eta = eta.get();
    let mut s_max = 0usize;
    while eta.pow(s_max as u32 + 1) <= r {
        s_max += 1;
    }
    let mut out = Vec::new();
    for s in (0..=s_max).rev() {
        let n = ((s_max + 1) as f64 * (eta.pow(s as u32)) as f64 / (s + 1) as f64).ceil() as usize;
        let mut stages = Vec::new();
        let mut prev = 0usize;
        let mut ni = n;
        for i in 0..=s {
            // r_i = R eta^(i - s), at least 1
            let ri = ((r as f64) / (eta.pow((s - i) as u32)) as f64).round().max(1.0) as usize;
            let keep = if i == s { 1 } else { (ni / eta).max(1) };
            stages.push(Stage { add: ri.saturating_sub(prev).max(if i == 0 { 1 } else { 0 }), keep });
            prev = ri.max(prev);
            ni = keep;
        }
        out.push(Bracket { n, stages });
    }
    out
}

fn bracket_cost(b: &Bracket) -> usize {
    let mut n = b.n;
    let mut c = 0;
    for s in &b.stages {
        c += n * s.add;
        n = s.keep;
    }
    c
}

impl Halving {
    /// Successive halving with horizon `horizon` pulls on a problem with `n_arms` arms (`None` = reservoir).
    pub fn successive_halving(horizon: usize, n_arms: Option<usize>, opts: &HalvingOptions) -> Result<Self> {
        let eta = opts.eta.unwrap_or(Eta::TWO);
        let mut n = opts.arms.unwrap_or(32);
        if let Some(k) = n_arms {
            n = n.min(k);
        }
        if n < 2 {
            return Err(Error::config("successive halving: at least two arms are needed"));
        }
        // Karnin et al.'s rule through the shared schedule: integer pulls, at least one per arm and stage.
        let stages = halving_schedule(n, eta, Rounding::Up, RoundBudget::EqualRounds(horizon as f64))
            .iter()
            .map(|p| Stage { add: (p.budget.floor() as usize).max(1), keep: p.keep })
            .collect();
        Ok(Self::with_brackets(eta, false, n_arms, vec![Bracket { n, stages }]))
    }

    /// Hyperband with horizon `horizon` pulls.
    pub fn hyperband(horizon: usize, n_arms: Option<usize>, opts: &HalvingOptions) -> Result<Self> {
        let eta = opts.eta.unwrap_or(Eta::THREE);
        let r = match opts.max_resource {
            Some(r) if r >= 1 => r,
            Some(_) => return Err(Error::config("hyperband: max_resource must be >= 1")),
            None => {
                let mut r = eta.get();
                while (r.saturating_mul(eta.get()) as u64) < 1u64 << 40 {
                    let next = r * eta.get();
                    let cost: usize = hyperband_brackets(next, eta).iter().map(bracket_cost).sum();
                    if cost > horizon {
                        break;
                    }
                    r = next;
                }
                r
            }
        };
        Ok(Self::with_brackets(eta, true, n_arms, hyperband_brackets(r, eta)))
    }

    fn with_brackets(eta: Eta, hyperband: bool, n_arms: Option<usize>, brackets: Vec<Bracket>) -> Self {
        let mut h = Halving {
            eta,
            hyperband,
            n_arms,
            brackets,
            bracket: 0,
            stage: 0,
            current: Vec::new(),
            queue: VecDeque::new(),
            next_arm: 0,
            finished: None,
            pulls: Vec::new(),
            sums: Vec::new(),
        };
        h.start_bracket();
        h
    }

    /// Pulls one pass of all brackets costs.
    pub fn pass_cost(&self) -> usize {
        self.brackets.iter().map(bracket_cost).sum()
    }

    fn new_arm(&mut self) -> usize {
        let k = match self.n_arms {
            Some(n) => self.next_arm % n,
            None => self.next_arm,
        };
        self.next_arm += 1;
        k
    }

    fn start_bracket(&mut self) {
        let mut n = self.brackets[self.bracket].n;
        if let Some(k) = self.n_arms {
            n = n.min(k);
        }
        self.current = (0..n).map(|_| (self.new_arm(), 0.0, 0.0)).collect();
        self.stage = 0;
        self.fill_queue();
    }

    fn fill_queue(&mut self) {
        let add = self.brackets[self.bracket].stages[self.stage].add;
        for _ in 0..add {
            for &(a, _, _) in &self.current {
                self.queue.push_back(a);
            }
        }
    }

    /// Ends the current stage: keep the best, move on (next stage, next bracket, or next pass).
    fn advance(&mut self) {
        let keep = self.brackets[self.bracket].stages[self.stage].keep.min(self.current.len()).max(1);
        let mut cur = std::mem::take(&mut self.current);
        // best mean first; ties by arm index for determinism
        cur.sort_by(|a, b| {
            let ma = if a.1 > 0.0 { a.2 / a.1 } else { f64::NEG_INFINITY };
            let mb = if b.1 > 0.0 { b.2 / b.1 } else { f64::NEG_INFINITY };
            mb.total_cmp(&ma).then(a.0.cmp(&b.0))
        });
        cur.truncate(keep);
        self.current = cur;
        self.stage += 1;
        if self.stage < self.brackets[self.bracket].stages.len() {
            self.fill_queue();
            return;
        }
        if !self.hyperband {
            // successive halving: exploit the survivor
            self.finished = self.current.first().map(|c| c.0);
            return;
        }
        self.bracket = (self.bracket + 1) % self.brackets.len();
        self.start_bracket();
    }
}

impl BanditAlgo for Halving {
    fn ask(&mut self, _t: usize, _rng: &mut Rng) -> Arm {
        if let Some(a) = self.finished {
            return Arm::Index(a);
        }
        while self.queue.is_empty() {
            self.advance();
            if let Some(a) = self.finished {
                return Arm::Index(a);
            }
        }
        Arm::Index(self.queue.pop_front().unwrap_or(0))
    }

    fn tell(&mut self, arm: &Arm, reward: f64) {
        let Arm::Index(k) = *arm else { return };
        if self.pulls.len() <= k {
            self.pulls.resize(k + 1, 0.0);
            self.sums.resize(k + 1, 0.0);
        }
        self.pulls[k] += 1.0;
        self.sums[k] += reward;
        if let Some(c) = self.current.iter_mut().find(|c| c.0 == k) {
            c.1 += 1.0;
            c.2 += reward;
        }
    }

    fn recommend(&mut self, _t: usize, _rng: &mut Rng) -> Option<Arm> {
        best_empirical(&self.pulls, &self.sums, 1.0 / self.eta.get() as f64).map(Arm::Index)
    }

    fn arm_stats(&self) -> Vec<ArmStat> {
        empirical_stats(&self.pulls, &self.sums)
    }
}

/// The statistics of every pulled arm from pull counts and reward sums (the empirical mean as its reward).
pub(crate) fn empirical_stats(pulls: &[f64], sums: &[f64]) -> Vec<ArmStat> {
    (0..pulls.len())
        .filter(|&i| pulls[i] > 0.0)
        .map(|i| ArmStat {
            arm: i,
            pulls: pulls[i] as usize,
            mean_reward: Some(sums[i] / pulls[i]),
            alpha: None,
            beta: None,
            true_value: 0.0,
            label: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyperband_brackets_match_li_et_al_table() {
        // Li et al. 2018, Table 1: R = 81, eta = 3: (n_i, r_i) per bracket
        let b = hyperband_brackets(81, Eta::THREE);
        assert_eq!(b.len(), 5);
        assert_eq!(b.iter().map(|x| x.n).collect::<Vec<_>>(), vec![81, 34, 15, 8, 5]);
        // s = 4: r_i = 1, 3, 9, 27, 81 ; survivors 27, 9, 3, 1, 1
        let adds: Vec<usize> = b[0].stages.iter().map(|s| s.add).collect();
        assert_eq!(adds, vec![1, 2, 6, 18, 54]);
        let keeps: Vec<usize> = b[0].stages.iter().map(|s| s.keep).collect();
        assert_eq!(keeps, vec![27, 9, 3, 1, 1]);
        // s = 3: n = 34, r = 3, 9, 27, 81; keep 11, 3, 1, 1
        assert_eq!(b[1].stages.iter().map(|s| s.keep).collect::<Vec<_>>(), vec![11, 3, 1, 1]);
        assert_eq!(b[4].stages.len(), 1);
        assert_eq!(b[4].stages[0].add, 81);
    }

    #[test]
    fn successive_halving_schedule() {
        // n = 8, eta = 2, T = 96: 3 stages, pulls 96/(8*3)=4, 96/(4*3)=8, 96/(2*3)=16
        let h = Halving::successive_halving(96, None, &HalvingOptions { arms: Some(8), ..Default::default() }).unwrap();
        let st = &h.brackets[0].stages;
        assert_eq!(st.iter().map(|s| (s.add, s.keep)).collect::<Vec<_>>(), vec![(4, 4), (8, 2), (16, 1)]);
        assert_eq!(h.pass_cost(), 32 + 32 + 32);
    }
}
