//! Dynamic tuning of one run with the GP trace model (Picheny et al. 2020, Algorithm 1).

use super::schedules::{logspace, run_segment, Segment};
use super::{Band, Decision, DynamicReport, LrConfig, LrEvent, LrMethodReport, LrTracePoint, RunState, TraceModel, TrainProblem, Transition};
use crate::rng::substream;
use crate::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Dynamic tuning of one run (Picheny et al. 2020, Algorithm 1).
pub(super) fn dynamic_tuning(
    pr: &dyn TrainProblem,
    cfg: &LrConfig,
    w0: &[f64],
    y0: f64,
    cap: f64,
    observer: &mut dyn FnMut(&LrEvent),
    cancel: &AtomicBool,
) -> Result<(LrMethodReport, DynamicReport)> {
    let q = cfg.dynamic.runs;
    let d = cfg.intervals;
    let [lo, hi] = cfg.lr_bounds;
    let link = cfg.dynamic.link;
    let cands = logspace(lo, hi, cfg.dynamic.candidates);
    let alphas: Vec<f64> = (1..=q).map(|i| (2 * i - 1) as f64 / (2 * q) as f64).collect();
    // Interval 0: Q rates spread in log space over the bounds, all from w0.
    let mut lrs = logspace(lo, hi, q);
    let mut states: Vec<RunState> = vec![RunState::new(w0.to_vec()); q];
    let mut starts = vec![y0; q];
    let mut obs: Vec<Transition> = Vec::new();
    let mut decisions: Vec<Decision> = Vec::new();
    let mut run_traces = Vec::with_capacity(d);
    let mut stitched = vec![LrTracePoint { step: 0, loss: y0, lr: lrs[0] }];
    let mut schedule = Vec::with_capacity(d);
    let mut boundary_steps = vec![0];
    let mut model: Option<TraceModel> = None;
    let mut model_rng = substream(cfg.seed, 3000, 0);
    for k in 0..d {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let segs: Vec<(Segment, RunState)> = states
            .par_iter()
            .zip(lrs.par_iter())
            .enumerate()
            .map(|(i, (st, &lr))| {
                let mut st = st.clone();
                let mut rng = substream(cfg.seed, 2000 + k as u64, i as u64);
                (run_segment(pr, cfg, &mut st, lr, cap, &mut rng), st)
            })
            .collect();
        let ends: Vec<f64> = segs.iter().map(|s| s.0.end).collect();
        for i in 0..q {
            obs.push(Transition { y: starts[i], lr: lrs[i], y_next: ends[i] });
        }
        if let Some(dec) = decisions.last_mut() {
            dec.observed = ends.clone();
        }
        let best = (0..q).min_by(|&a, &b| ends[a].total_cmp(&ends[b])).unwrap_or(0);
        stitched.extend(segs[best].0.points.iter().copied());
        schedule.push(lrs[best]);
        boundary_steps.push(segs[best].1.step);
        run_traces.push(segs.iter().map(|s| s.0.points.clone()).collect::<Vec<_>>());
        observer(&LrEvent::IntervalDone { interval: k, best_loss: ends[best], lrs: lrs.clone(), losses: ends.clone() });
        let kept = segs[best].1.clone();
        let kept_lr = lrs[best];
        let kept_loss = ends[best];
        states = vec![kept; q];
        starts = vec![kept_loss; q];
        if k + 1 == d {
            break;
        }
        // Fit the trace model on every observed interval and choose the Q rates.
        let y0s = vec![y0; 1];
        let fitted = TraceModel::fit(&obs, &y0s, link, cfg.lr_bounds, &mut model_rng);
        let allowed: Vec<f64> = cands.iter().copied().filter(|c| (c / kept_lr).log10().abs() <= 1.0 + 1e-9).collect();
        let (new_lrs, predicted, failed) = match &fitted {
            Ok(m) => {
                let mut chosen = Vec::with_capacity(q);
                let mut bands = Vec::with_capacity(q);
                for &a in &alphas {
                    let mut bestc = (f64::INFINITY, kept_lr);
                    for &c in &allowed {
                        let v = m.quantile(kept_loss, c, a);
                        if v < bestc.0 {
                            bestc = (v, c);
                        }
                    }
                    chosen.push(bestc.1);
                    bands.push(m.one_step_band(kept_loss, bestc.1));
                }
                (chosen, bands, false)
            }
            Err(_) => {
                // Fallback (reported): spread the rates over one order of magnitude around the kept rate.
                let spread = logspace((kept_lr / 10.0).max(lo), (kept_lr * 10.0).min(hi), q);
                let nan = Band { lo: f64::NAN, median: f64::NAN, hi: f64::NAN };
                (spread, vec![nan; q], true)
            }
        };
        if let Ok(m) = fitted {
            model = Some(m);
        }
        decisions.push(Decision {
            interval: k + 1,
            kept_run: best,
            kept_loss,
            lrs: new_lrs.clone(),
            alphas: alphas.clone(),
            predicted,
            observed: Vec::new(),
            model_failed: failed,
        });
        lrs = new_lrs;
    }
    let final_state = &states[0];
    let final_loss = stitched.last().map_or(y0, |p| p.loss);
    let mut scratch = Vec::new();
    let test_loss = if final_state.diverged { f64::INFINITY } else { pr.test_loss(&final_state.w, &mut scratch) };
    let predicted_bands = match &model {
        Some(m) => m.sample_bands(&schedule, None, cfg.dynamic.band_samples, &mut substream(cfg.seed, 3001, 0)),
        None => Vec::new(),
    };
    let rep = LrMethodReport {
        name: format!("dynamic GP (Q={q})"),
        family: "dynamic".into(),
        schedule,
        trace: stitched,
        final_loss,
        test_loss,
        diverged: final_state.diverged,
        compute_steps: q * d * cfg.steps_per_interval,
    };
    let det = DynamicReport { runs: q, link, decisions, run_traces, predicted_bands, boundary_steps };
    Ok((rep, det))
}

