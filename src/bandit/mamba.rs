//! The tuners of an SG-MCMC tuning run in ask/tell form ([`Tuner`]): MAMBA and the one-shot searches. The round
//! executor (`crate::experiments::executor`, the run's rounds in `crate::experiments::sgmcmc::tuning`) owns the
//! loop, the budget, cancellation, progress events and checkpoints.

use super::asktell::{Ask, Tuner};
use super::schedule::{mamba_schedule, RoundPlan};
use super::Eta;

/// Sorts by score, ties broken by arm id so results never depend on evaluation order.
fn ranked(scores: &[(usize, f64)]) -> Vec<(usize, f64)> {
    let mut s: Vec<(usize, f64)> =
        scores.iter().map(|&(i, v)| (i, if v.is_nan() { f64::INFINITY } else { v })).collect();
    s.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    s
}

/// MAMBA (Coullon, South & Nemeth 2023, Algorithm 1): successive halving with warm-started arms.
pub struct Mamba {
    plan: Vec<RoundPlan>,
    alive: Vec<usize>,
    round: usize,
    best: Option<usize>,
    eta: Eta,
}

impl Mamba {
    /// `m` arms, reduction factor `eta`, budget `r` for the surviving arm.
    pub fn new(m: usize, eta: Eta, r: f64) -> Self {
        Self { plan: mamba_schedule(m, eta, r), alive: (0..m).collect(), round: 0, best: None, eta }
    }
}

impl Tuner for Mamba {
    fn name(&self) -> String {
        format!("mamba (eta = {})", self.eta)
    }
    fn plan(&self) -> Vec<RoundPlan> {
        self.plan.clone()
    }
    fn ask(&mut self) -> Option<Ask> {
        let p = self.plan.get(self.round)?;
        Some(Ask { round: self.round, arms: self.alive.clone(), budget: p.budget })
    }
    fn tell(&mut self, scores: &[(usize, f64)]) -> Vec<usize> {
        let keep = self.plan[self.round].keep;
        let r = ranked(scores);
        self.best = r.first().map(|x| x.0);
        // Algorithm 1: S_{i+1} = the floor(|S_i| / eta) arms with the smallest discrepancy.
        self.alive = r.iter().take(keep).map(|x| x.0).collect();
        self.alive.sort_unstable();
        self.round += 1;
        r.iter().skip(keep).map(|x| x.0).collect()
    }
    fn best(&self) -> Option<usize> {
        self.best
    }
}

/// Every arm once with the full budget; the best by score (grid search, heuristic, random search).
pub struct OneShot {
    name: String,
    m: usize,
    r: f64,
    done: bool,
    best: Option<usize>,
}

impl OneShot {
    pub fn new(name: impl Into<String>, m: usize, r: f64) -> Self {
        Self { name: name.into(), m, r, done: false, best: None }
    }
}

impl Tuner for OneShot {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn plan(&self) -> Vec<RoundPlan> {
        vec![RoundPlan { arms: self.m, budget: self.r, keep: self.m }]
    }
    fn ask(&mut self) -> Option<Ask> {
        if self.done {
            None
        } else {
            Some(Ask { round: 0, arms: (0..self.m).collect(), budget: self.r })
        }
    }
    fn tell(&mut self, scores: &[(usize, f64)]) -> Vec<usize> {
        self.done = true;
        self.best = ranked(scores).first().map(|x| x.0);
        vec![]
    }
    fn best(&self) -> Option<usize> {
        self.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mamba_keeps_exactly_the_best() {
        let mut t = Mamba::new(9, Eta::THREE, 13.0);
        let a = t.ask().unwrap();
        assert_eq!(a.arms, (0..9).collect::<Vec<_>>());
        // scores: arm i has score (i * 7) mod 9, arm 4 diverged
        let scores: Vec<(usize, f64)> =
            a.arms.iter().map(|&i| (i, if i == 4 { f64::INFINITY } else { ((i * 7) % 9) as f64 })).collect();
        let pruned = t.tell(&scores);
        // scores: 0->0, 1->7, 2->5, 3->3, 4->inf, 5->8, 6->6, 7->4, 8->2 ; best three: 0, 8, 3
        assert_eq!(t.ask().unwrap().arms, vec![0, 3, 8]);
        assert_eq!(pruned.len(), 6);
        assert!(pruned.contains(&4));
        assert_eq!(t.best(), Some(0));
        let pruned = t.tell(&[(0, 5.0), (3, 1.0), (8, f64::NAN)]);
        assert_eq!(t.best(), Some(3));
        assert_eq!(pruned, vec![0, 8]);
        assert!(t.ask().is_none());
    }

    #[test]
    fn ties_break_by_id() {
        let mut t = OneShot::new("grid", 3, 1.0);
        t.ask();
        t.tell(&[(2, 1.0), (1, 1.0), (0, 2.0)]);
        assert_eq!(t.best(), Some(1));
    }
}
