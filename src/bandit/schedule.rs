//! Successive-halving schedules: one function, [`halving_schedule`], for MAMBA's (Coullon, South & Nemeth
//! 2023, Algorithm 1; [`mamba_schedule`]) and the bandit baseline's fixed-budget "Sequential Halving" (Karnin,
//! Koren & Somekh 2013, Algorithm 1, with reduction factor eta; [`crate::bandit::halving`]). They differ in
//! two parameters: how log_eta M and |S| / eta are rounded ([`Rounding`]) and how the budget is spread over
//! rounds ([`RoundBudget`]).
//!
//! MAMBA ([`Rounding::Down`], [`RoundBudget::PerSurvivor`]):
//! With M arms and reduction factor eta there are `rounds = max(1, floor(log_eta M))` rounds. Round i
//! (0-based) runs the |S_i| surviving arms for r_i = r0 eta^i each, where r0 (1 + eta + ... + eta^(rounds-1)) = R,
//! so the arm that survives every round has used exactly R. After round i the best max(1, floor(|S_i| / eta))
//! arms survive. When M is not a power of eta, more than one arm can be left after the last round
//! (e.g. 56 -> 18 -> 6 -> 2 with eta = 3): the best of them by its last-round score is chosen, with no extra
//! round. When M < eta there is one round and the best arm is chosen from it.

use super::Eta;
use serde::{Deserialize, Serialize};

/// One round of the plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundPlan {
    /// Arms run in this round.
    pub arms: usize,
    /// Budget per arm in this round (in the config's budget unit).
    pub budget: f64,
    /// Arms kept after this round.
    pub keep: usize,
}

/// Number of rounds: the largest k with eta^k <= M (computed in integers), at least 1.
pub fn n_rounds(m: usize, eta: Eta) -> usize {
    let eta = eta.get();
    let mut k = 0;
    let mut p: usize = 1;
    while let Some(next) = p.checked_mul(eta) {
        if next > m {
            break;
        }
        p = next;
        k += 1;
    }
    k.max(1)
}

/// Number of rounds when rounding up: the smallest k with eta^k >= M, at least 1.
pub fn n_rounds_up(m: usize, eta: Eta) -> usize {
    let eta = eta.get();
    let (mut k, mut p) = (0usize, 1usize);
    while p < m {
        p = p.saturating_mul(eta);
        k += 1;
    }
    k.max(1)
}

/// Rounding of the number of rounds (log_eta M) and of the survivors of a round (|S| / eta, at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// floor (MAMBA: several arms may be left after the last round).
    Down,
    /// ceil (Sequential Halving: one arm is left after the last round).
    Up,
}

/// How the budget per arm of each round is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RoundBudget {
    /// Round i gives each arm `r0 eta^i`, with `r0 (1 + eta + ... + eta^(rounds-1)) = R`: an arm surviving
    /// every round has used exactly `R` (MAMBA).
    PerSurvivor(f64),
    /// Each round gets `T / rounds`, shared equally by its arms: `T / (|S_i| rounds)` each (Karnin et al.).
    EqualRounds(f64),
}

/// The successive-halving schedule for M arms and reduction factor eta (see the module doc).
pub fn halving_schedule(m: usize, eta: Eta, rounding: Rounding, budget: RoundBudget) -> Vec<RoundPlan> {
    let rounds = match rounding {
        Rounding::Down => n_rounds(m, eta),
        Rounding::Up => n_rounds_up(m, eta),
    };
    let eta = eta.get();
    let geometric: f64 = (0..rounds).map(|i| (eta as f64).powi(i as i32)).sum();
    let mut arms = m;
    let mut plan = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let keep = match rounding {
            Rounding::Down => arms / eta,
            Rounding::Up => arms.div_ceil(eta),
        }
        .max(1);
        let per_arm = match budget {
            RoundBudget::PerSurvivor(r) => r / geometric * (eta as f64).powi(i as i32),
            RoundBudget::EqualRounds(t) => t / (arms * rounds) as f64,
        };
        plan.push(RoundPlan { arms, budget: per_arm, keep });
        arms = keep;
    }
    plan
}

/// MAMBA's schedule for M arms, reduction factor eta and per-survivor budget R.
pub fn mamba_schedule(m: usize, eta: Eta, r: f64) -> Vec<RoundPlan> {
    halving_schedule(m, eta, Rounding::Down, RoundBudget::PerSurvivor(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(n: usize) -> Eta {
        Eta::new(n).unwrap()
    }

    fn shape(m: usize, eta: usize) -> Vec<usize> {
        mamba_schedule(m, e(eta), 1.0).iter().map(|p| p.arms).collect()
    }

    #[test]
    fn rounds_are_integer_logs() {
        assert_eq!(n_rounds(1, e(3)), 1);
        assert_eq!(n_rounds(2, e(3)), 1);
        assert_eq!(n_rounds(3, e(3)), 1);
        assert_eq!(n_rounds(8, e(2)), 3);
        assert_eq!(n_rounds(9, e(3)), 2);
        assert_eq!(n_rounds(27, e(3)), 3);
        assert_eq!(n_rounds(26, e(3)), 2);
        assert_eq!(n_rounds(56, e(3)), 3);
        assert_eq!(n_rounds(usize::MAX, e(2)), 63);
    }

    #[test]
    fn arms_per_round() {
        assert_eq!(shape(56, 3), vec![56, 18, 6]);
        assert_eq!(shape(56, 2), vec![56, 28, 14, 7, 3]);
        assert_eq!(shape(27, 3), vec![27, 9, 3]);
        assert_eq!(shape(16, 2), vec![16, 8, 4, 2]);
        assert_eq!(shape(4, 5), vec![4]);
    }

    #[test]
    fn sequential_halving_rounds_up() {
        let plan = halving_schedule(8, e(2), Rounding::Up, RoundBudget::EqualRounds(96.0));
        let got: Vec<(usize, f64, usize)> = plan.iter().map(|p| (p.arms, p.budget, p.keep)).collect();
        assert_eq!(got, vec![(8, 4.0, 4), (4, 8.0, 2), (2, 16.0, 1)]);
        assert_eq!(n_rounds_up(9, e(3)), 2);
        assert_eq!(n_rounds_up(10, e(3)), 3);
        assert_eq!(
            halving_schedule(10, e(3), Rounding::Up, RoundBudget::EqualRounds(90.0))
                .iter()
                .map(|p| p.arms)
                .collect::<Vec<_>>(),
            vec![10, 4, 2]
        );
    }
}
