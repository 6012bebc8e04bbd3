//! Dynamic tuning of one run with the GP trace model (Picheny et al. 2020, Algorithm 1).

use super::chained::{quantile, ChainedModel, IntervalObs};
use super::failure::FailureClassifier;
use super::schedules::{logspace, run_segment, Segment};
use super::{
    Band, Decision, DynamicReport, Link, LinkForm, LrConfig, LrEvent, LrMethodReport, LrTracePoint, RunState,
    TraceModel, TraceModelKind, TrainProblem, Transition,
};
use crate::math::log10;
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
    let mut iobs: Vec<IntervalObs> = Vec::new();
    let mut chained: Option<ChainedModel> = None;
    let mut model_name = String::new();
    let spi = cfg.steps_per_interval as f64;
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
            let diverged = segs[i].1.diverged;
            if !diverged {
                obs.push(Transition { y: starts[i], lr: lrs[i], y_next: ends[i] });
            }
            let s0 = (segs[i].1.step - cfg.steps_per_interval) as f64;
            let points = segs[i].0.points.iter().map(|p| ((p.step as f64 - s0) / spi, p.loss)).collect();
            iobs.push(IntervalObs { y_start: starts[i], lr: lrs[i], points, diverged });
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
        // Fit the trace model on every recorded point of the non-diverged intervals (eqs. 2-3), the failure
        // classifier on all intervals (Sec. 3.2), and choose the Q rates by eq. 6 among the candidates within
        // one decade of the kept rate: the paper's limit, Sec. 3.2 ("we limit the maximum change to one order
        // of magnitude"), not tunelab's.
        let allowed: Vec<f64> = cands.iter().copied().filter(|c| log10(c / kept_lr).abs() <= 1.0 + 1e-9).collect();
        let classifier = FailureClassifier::fit(&iobs, cfg.lr_bounds).ok();
        let pf = |c: f64| classifier.as_ref().map_or(0.0, |k| k.p_fail(kept_loss, c));
        let thresholds: Vec<f64> = alphas.iter().map(|a| 1.0 - a).collect();
        let fitted_chain = if cfg.dynamic.model == TraceModelKind::Svgp {
            let (m, it) = (cfg.dynamic.inducing, cfg.dynamic.fit_iters);
            ChainedModel::fit(&iobs, link, cfg.dynamic.link_form, cfg.lr_bounds, m, it).ok()
        } else {
            None
        };
        let fitted = if fitted_chain.is_none() {
            let y0s = vec![y0; 1];
            TraceModel::fit(&obs, &y0s, link, cfg.lr_bounds, &mut model_rng).ok()
        } else {
            None
        };
        let choose = |q_of: &dyn Fn(f64, f64) -> f64, band_of: &dyn Fn(f64) -> Band| {
            let mut chosen = Vec::with_capacity(q);
            let mut bands = Vec::with_capacity(q);
            for (&a, &thr) in alphas.iter().zip(&thresholds) {
                let mut adm: Vec<f64> = allowed.iter().copied().filter(|&c| pf(c) <= thr).collect();
                if adm.is_empty() {
                    let safest = allowed.iter().copied().min_by(|x, y| pf(*x).total_cmp(&pf(*y))).unwrap_or(kept_lr);
                    adm.push(safest);
                }
                let mut bestc = (f64::INFINITY, adm[0]);
                for &c in &adm {
                    let v = q_of(c, a);
                    if v < bestc.0 {
                        bestc = (v, c);
                    }
                }
                chosen.push(bestc.1);
                bands.push(band_of(bestc.1));
            }
            (chosen, bands, false)
        };
        let (new_lrs, predicted, failed) = if let Some(m) = &fitted_chain {
            model_name = if m.full {
                format!("full variational GP (all {} inputs inducing), {:?} link", m.inducing(), link).to_lowercase()
            } else {
                format!("sparse variational GP ({} inducing inputs), {:?} link", m.inducing(), link).to_lowercase()
            };
            // The default (unconstrained) form keeps its earlier label (old reports reproduce byte for byte).
            if m.form() == LinkForm::Paper {
                model_name.push_str(if link == Link::Linear { " (softplus, eq. 2)" } else { " (softplus, eq. 3)" });
            }
            choose(&|c, a| m.latent_quantile(kept_loss, c, a), &|c| m.one_step_band(kept_loss, c))
        } else if let Some(m) = &fitted {
            model_name = format!("exact GP on boundary increments (fallback), {link:?} link").to_lowercase();
            choose(&|c, a| m.quantile(kept_loss, c, a), &|c| m.one_step_band(kept_loss, c))
        } else {
            // Fallback (reported): spread the rates over one order of magnitude around the kept rate (the
            // paper's one-decade limit, Sec. 3.2).
            let spread = logspace((kept_lr / 10.0).max(lo), (kept_lr * 10.0).min(hi), q);
            let nan = Band { lo: f64::NAN, median: f64::NAN, hi: f64::NAN };
            (spread, vec![nan; q], true)
        };
        let p_fail: Vec<f64> = new_lrs.iter().map(|&c| pf(c)).collect();
        if let Some(m) = fitted_chain {
            chained = Some(m);
            model = None;
        } else if let Some(m) = fitted {
            model = Some(m);
            chained = None;
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
            p_fail,
            p_fail_threshold: thresholds.clone(),
        });
        lrs = new_lrs;
    }
    let final_state = &states[0];
    let final_loss = stitched.last().map_or(y0, |p| p.loss);
    let mut scratch = Vec::new();
    let test_loss = if final_state.diverged { f64::INFINITY } else { pr.test_loss(&final_state.w, &mut scratch) };
    let predicted_bands = if let Some(m) = &chained {
        let paths = m.sample_paths(&schedule, y0, cfg.dynamic.band_samples, &mut substream(cfg.seed, 3001, 0));
        (0..=schedule.len())
            .map(|k| {
                let mut v: Vec<f64> = paths.iter().map(|p| p[k]).collect();
                Band { lo: quantile(&mut v, 0.05), median: quantile(&mut v, 0.5), hi: quantile(&mut v, 0.95) }
            })
            .collect()
    } else if let Some(m) = &model {
        m.sample_bands(&schedule, Some(y0), cfg.dynamic.band_samples, &mut substream(cfg.seed, 3001, 0))
    } else {
        Vec::new()
    };
    let diverged_intervals = iobs.iter().filter(|o| o.diverged).count();
    let rep = LrMethodReport {
        name: format!("dynamic GP (Q={q})"),
        family: "dynamic".into(),
        schedule,
        trace: stitched,
        final_loss,
        test_loss,
        diverged: final_state.diverged,
        compute_steps: q * d * cfg.steps_per_interval,
        repeat_finals: Vec::new(),
    };
    let det = DynamicReport {
        runs: q,
        link,
        decisions,
        run_traces,
        predicted_bands,
        boundary_steps,
        model: model_name,
        diverged_intervals,
    };
    Ok((rep, det))
}
