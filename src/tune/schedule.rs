//! The successive-halving schedule of MAMBA (Coullon, South & Nemeth 2023, Algorithm 1).
//!
//! With M arms and reduction factor eta there are `rounds = max(1, floor(log_eta M))` rounds. Round i
//! (0-based) runs the |S_i| surviving arms for r_i = r0 eta^i each, where r0 (1 + eta + ... + eta^(rounds-1)) = R,
//! so the arm that survives every round has used exactly R. After round i the best max(1, floor(|S_i| / eta))
//! arms survive. When M is not a power of eta, more than one arm can be left after the last round
//! (e.g. 56 -> 18 -> 6 -> 2 with eta = 3): the best of them by its last-round score is chosen, with no extra
//! round. When M < eta there is one round and the best arm is chosen from it.

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
pub fn n_rounds(m: usize, eta: usize) -> usize {
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

/// The whole schedule for M arms, reduction factor eta >= 2 and per-survivor budget R.
pub fn mamba_schedule(m: usize, eta: usize, r: f64) -> Vec<RoundPlan> {
    let rounds = n_rounds(m, eta);
    let denom: f64 = (0..rounds).map(|i| (eta as f64).powi(i as i32)).sum();
    let r0 = r / denom;
    let mut arms = m;
    let mut plan = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let keep = (arms / eta).max(1);
        plan.push(RoundPlan { arms, budget: r0 * (eta as f64).powi(i as i32), keep });
        arms = keep;
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(m: usize, eta: usize) -> Vec<usize> {
        mamba_schedule(m, eta, 1.0).iter().map(|p| p.arms).collect()
    }

    #[test]
    fn rounds_are_integer_logs() {
        assert_eq!(n_rounds(1, 3), 1);
        assert_eq!(n_rounds(2, 3), 1);
        assert_eq!(n_rounds(3, 3), 1);
        assert_eq!(n_rounds(8, 2), 3);
        assert_eq!(n_rounds(9, 3), 2);
        assert_eq!(n_rounds(27, 3), 3);
        assert_eq!(n_rounds(26, 3), 2);
        assert_eq!(n_rounds(56, 3), 3);
        assert_eq!(n_rounds(usize::MAX, 2), 63);
    }

    #[test]
    fn arms_per_round() {
        assert_eq!(shape(56, 3), vec![56, 18, 6]);
        assert_eq!(shape(56, 2), vec![56, 28, 14, 7, 3]);
        assert_eq!(shape(27, 3), vec![27, 9, 3]);
        assert_eq!(shape(16, 2), vec![16, 8, 4, 2]);
        assert_eq!(shape(4, 5), vec![4]);
    }
}
