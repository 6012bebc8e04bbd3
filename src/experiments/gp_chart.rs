//! The chart of a 1-D GP-UCB run, shared by the bandit and step-size kinds' reports: the GP posterior of the
//! reward on a grid after the last round, with the chosen points (Nguyen et al. 2020, Figure 2).

use serde::{Deserialize, Serialize};

/// Grid size of the 1-D GP chart.
const GRID: usize = 101;

/// A chosen point of a 1-D run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChosenPoint {
    /// 1-based round.
    pub round: usize,
    pub x: f64,
    pub reward: f64,
}

/// GP posterior on a grid after the last round, with the chosen points coloured by round (their Figure 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gp1dChart {
    pub grid: Vec<f64>,
    /// Posterior mean of the reward.
    pub mean: Vec<f64>,
    /// Mean -/+ 2 posterior sd.
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// The true expected reward on the grid at the last round.
    pub truth: Vec<f64>,
    pub points: Vec<ChosenPoint>,
}

/// The 1-D chart grid: `GRID` evenly spaced points from `lo` to `hi`.
pub fn grid(lo: f64, hi: f64) -> Vec<f64> {
    (0..GRID).map(|i| lo + (hi - lo) * i as f64 / (GRID - 1) as f64).collect()
}

impl Gp1dChart {
    /// The chart of a GP posterior (mean `m`, standard deviation `sd`) on `grid`: a band of two standard
    /// deviations, the true function (empty if unknown) and the chosen points.
    pub fn from_posterior(grid: Vec<f64>, m: Vec<f64>, sd: &[f64], truth: Vec<f64>, points: Vec<ChosenPoint>) -> Self {
        Gp1dChart {
            lo: m.iter().zip(sd).map(|(a, b)| a - 2.0 * b).collect(),
            hi: m.iter().zip(sd).map(|(a, b)| a + 2.0 * b).collect(),
            mean: m,
            grid,
            truth,
            points,
        }
    }
}
