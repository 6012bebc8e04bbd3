//! Chart data of bandit runs: the 1-D GP posterior, chosen schedules and arm statistics (reports, not
//! algorithms).

use super::problems::{ArmSpace, Problem};
use super::report::{Charts, ChosenPoint, Gp1dChart, ScheduleChart};
use crate::bandit::{Arm, BanditAlgo};
use crate::experiments::gp_chart::grid;

/// Most-pulled arms kept in the arms chart.
const MAX_ARM_STATS: usize = 200;

/// The charts of one run (the first repeat) after round `t`: for one continuous dimension the GP posterior on a
/// grid with the truth and the chosen points; for ordered arms the chosen and optimal schedules; for discrete
/// arms the statistics of the most-pulled arms with their true values.
pub(crate) fn charts(
    algo: &dyn BanditAlgo,
    problem: &mut dyn Problem,
    history: &[(usize, Arm, f64)],
    optimal: &[Vec<f64>],
    t: usize,
) -> Charts {
    let mut c = Charts::default();
    match problem.space() {
        ArmSpace::Continuous { lo, hi, ordered } => {
            if lo.len() == 1 {
                let grid = grid(lo[0], hi[0]);
                if let Some((m, s)) = algo.posterior_grid(&grid, t) {
                    let truth = grid.iter().map(|x| problem.value(&Arm::Point(vec![*x]), t)).collect();
                    let points = history
                        .iter()
                        .filter_map(|(r, a, y)| match a {
                            Arm::Point(p) => Some(ChosenPoint { round: *r, x: p[0], reward: *y }),
                            _ => None,
                        })
                        .collect();
                    c.gp_1d = Some(Gp1dChart::from_posterior(grid, m, &s, truth, points));
                }
            }
            if ordered {
                c.schedules = Some(ScheduleChart {
                    rounds: history.iter().map(|h| h.0).collect(),
                    chosen: history
                        .iter()
                        .map(|h| match &h.1 {
                            Arm::Point(p) => p.clone(),
                            Arm::Index(_) => Vec::new(),
                        })
                        .collect(),
                    optimal: optimal.to_vec(),
                });
            }
        }
        ArmSpace::Discrete { .. } => {
            let mut stats = algo.arm_stats();
            if !stats.is_empty() {
                stats.sort_by(|a, b| b.pulls.cmp(&a.pulls).then(a.arm.cmp(&b.arm)));
                stats.truncate(MAX_ARM_STATS);
                for s in stats.iter_mut() {
                    s.true_value = problem.value(&Arm::Index(s.arm), t);
                    s.label = problem.describe(&Arm::Index(s.arm));
                }
                stats.sort_by_key(|s| s.arm);
                c.arms = Some(stats);
            }
        }
    }
    c
}
