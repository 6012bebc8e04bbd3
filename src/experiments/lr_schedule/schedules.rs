//! Fixed schedules: the baselines (constants spread in log space, exponential decays) and running one.

use super::{run_interval, LrConfig, LrTracePoint, RunState, TrainProblem};
use crate::math::{exp, ln, powf};
use crate::rng::stream;

/// The baseline schedules of a config as (name, family, learning rate per interval): `constant` rates spread
/// in log space over `lr_bounds`, and `exponential-decay` schedules from starts between the geometric middle and
/// the top of the range, each decaying by the given overall factors.
pub(super) fn baseline_schedules(cfg: &LrConfig) -> Vec<(String, String, Vec<f64>)> {
    let d = cfg.intervals;
    let mut specs: Vec<(String, String, Vec<f64>)> = Vec::new();
    for lr in logspace(cfg.lr_bounds[0], cfg.lr_bounds[1], cfg.constant) {
        specs.push((format!("constant {lr:.3e}"), "constant".into(), vec![lr; d]));
    }
    let mid = (cfg.lr_bounds[0] * cfg.lr_bounds[1]).sqrt();
    for lr0 in logspace(mid, cfg.lr_bounds[1], cfg.decay_starts) {
        for &fac in &cfg.decay_factors {
            let g = powf(fac, 1.0 / (d - 1) as f64);
            let sched: Vec<f64> = (0..d).map(|k| lr0 * g.powi(k as i32)).collect();
            specs.push((format!("exp decay {lr0:.3e} x{fac}"), "exponential-decay".into(), sched));
        }
    }
    specs
}

pub(super) fn logspace(lo: f64, hi: f64, k: usize) -> Vec<f64> {
    if k == 1 {
        return vec![(lo * hi).sqrt()];
    }
    let (a, b) = (ln(lo), ln(hi));
    (0..k).map(|i| exp(a + (b - a) * i as f64 / (k - 1) as f64)).collect()
}

pub(super) struct Segment {
    pub(super) points: Vec<LrTracePoint>,
    pub(super) end: f64,
}

pub(super) fn run_segment(
    pr: &dyn TrainProblem,
    cfg: &LrConfig,
    st: &mut RunState,
    lr: f64,
    cap: f64,
    rng: &mut crate::rng::Rng,
) -> Segment {
    let mut raw = Vec::with_capacity(cfg.records_per_interval);
    let every = cfg.steps_per_interval / cfg.records_per_interval;
    let end = run_interval(pr, cfg.optimizer, st, lr, cfg.steps_per_interval, every, cap, rng, &mut raw);
    Segment { points: raw.into_iter().map(|(step, loss)| LrTracePoint { step, loss, lr }).collect(), end }
}

/// A fixed schedule run from `w0` with stream `(seed, id)` (repeat `r > 0`: sub-stream `r` of it); it ends early (between intervals) when `cancel` is
/// set, and the caller then reports the run as stopped.
#[allow(
    clippy::too_many_arguments,
    reason = "the task's start (w0, y0, cap) and the stream (id, repeat) vary per call"
)]
pub(super) fn run_schedule(
    pr: &dyn TrainProblem,
    cfg: &LrConfig,
    w0: &[f64],
    y0: f64,
    cap: f64,
    schedule: &[f64],
    id: u64,
    repeat: u64,
    cancel: &std::sync::atomic::AtomicBool,
) -> (Vec<LrTracePoint>, RunState) {
    let mut rng = if repeat == 0 { stream(cfg.seed, id) } else { crate::rng::substream(cfg.seed, id, repeat) };
    let mut st = RunState::new(w0.to_vec());
    let mut trace = vec![LrTracePoint { step: 0, loss: y0, lr: schedule[0] }];
    for &lr in schedule {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        trace.extend(run_segment(pr, cfg, &mut st, lr, cap, &mut rng).points);
    }
    (trace, st)
}
