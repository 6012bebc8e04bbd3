//! Picheny et al., Sec. 4.2-4.4: the initial design of Algorithm 2, eq. 7 (the optimistic reference set),
//! eq. 8 (the run minimising the expected mean variance at that set) and the two warm-start strategies of
//! Sec. 4.4 (a "universal" tuning averaged over `w_new`; a run chosen to learn `w_new`).
//!
//! Convention: the paper maximises the objective; tunelab minimises `ln` of the training loss, so the paper's
//! quantile of order α is our quantile of order `1 - α`: `q = mean - Φ⁻¹(α) sd`, minimised.

use super::super::model::norm_quantile;
use super::trace_gp::{Pred, TraceGp};
use crate::gp::truvar::{truvar_scores, CandidateRun};
use crate::math::{exp, ln};
use crate::rng::Rng;
use crate::{Error, Result};
use nalgebra::DMatrix;
use rand::RngExt;

/// Algorithm 2's initial design (Sec. 4.3: "chosen by Latin Hypercube sampling (in the logarithmic space)"):
/// `n` schedules of `d` rates, each interval's rate stratified into `n` equal bins of `ln lr` over the bounds.
pub fn lhs(n: usize, d: usize, bounds: [f64; 2], rng: &mut Rng) -> Vec<Vec<f64>> {
    let (a, b) = (ln(bounds[0]), ln(bounds[1]));
    let mut out = vec![vec![0.0; d]; n];
    for k in 0..d {
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        for i in 0..n {
            let u = (perm[i] as f64 + rng.random::<f64>()) / n as f64;
            out[i][k] = exp(a + (b - a) * u);
        }
    }
    out
}

/// Minimises `score` over schedules: the best of `cands`, then one greedy pass "searching for one learning
/// rate value at a time, starting from x_0" (Sec. 4.3) over the rates of `grid`. The text optimises x
/// continuously; the finite grid is ours.
pub fn search(
    cands: &[Vec<f64>],
    grid: &[f64],
    mut score: impl FnMut(&[f64]) -> Result<f64>,
) -> Result<(Vec<f64>, f64)> {
    let mut best: Option<(Vec<f64>, f64)> = None;
    for c in cands {
        let s = score(c)?;
        if best.as_ref().is_none_or(|b| s < b.1) {
            best = Some((c.clone(), s));
        }
    }
    let (mut x, mut sx) = best.ok_or_else(|| Error::numerical("multi-task search: no candidate"))?;
    for k in 0..x.len() {
        for &r in grid {
            if r == x[k] {
                continue;
            }
            let mut y = x.clone();
            y[k] = r;
            let s = score(&y)?;
            if s < sx {
                x = y;
                sx = s;
            }
        }
    }
    Ok((x, sx))
}

/// A reference point of eq. 7: task `task`'s optimistic schedule and its prediction.
pub struct Reference {
    pub task: usize,
    pub sched: Vec<f64>,
    pub pred: Pred,
}

/// Eq. 7: for each task, `x̂^{i*} = argmax_x q_α[y(x, T_d, ω_i)]`, here the minimiser of the `1 - α` quantile
/// of the final ln loss (Gaussian under the model: `mean - Φ⁻¹(α) sd`). With α = 0.5 this is the final
/// risk-neutral recommendation of Algorithm 2.
pub fn eq7(
    model: &TraceGp,
    lny0: &[f64],
    tasks: &[usize],
    cands: &[Vec<f64>],
    grid: &[f64],
    alpha: f64,
) -> Result<Vec<Reference>> {
    let z = norm_quantile(alpha);
    tasks
        .iter()
        .map(|&t| {
            let w = model.loc(t);
            let (sched, _) = search(cands, grid, |s| {
                let p = model.predict(lny0[t], s, w)?;
                Ok(p.final_mean() - z * p.final_var().sqrt())
            })?;
            let pred = model.predict(lny0[t], &sched, w)?;
            Ok(Reference { task: t, sched, pred })
        })
        .collect()
}

/// Eq. 8: among the runs `(x, ω)` with x in `scheds` and ω in `tasks`, the one minimising
/// `J̄(x, ω) = (1/M) Σ_i Var[y(x̂^{i*}, T_d, ω_i) | y_{x,ω}]`. Under the linearised exact-GP model the
/// conditional variance does not depend on the values `y_{x,ω}` (as the text notes for "regular GP models"),
/// so `E_y[J̄] = J̄` in closed form (the text's double Monte Carlo loop is for its sampled model). ω by
/// exhaustive search (as the text); x over a finite set (the text: by gradient with the reparametrisation
/// trick). Returns the run (schedule index, task) and its `J̄`.
pub fn eq8(
    model: &TraceGp,
    lny0: &[f64],
    refs: &[Reference],
    scheds: &[Vec<f64>],
    tasks: &[usize],
) -> Result<((usize, usize), f64)> {
    let m = refs.len();
    let var_m: Vec<f64> = refs.iter().map(|r| r.pred.final_var()).collect();
    let j = var_m.iter().sum::<f64>() / m.max(1) as f64;
    let ref_pts: Vec<_> = refs.iter().flat_map(|r| r.pred.pts.iter().copied()).collect();
    let z2 = model.z_scale * model.z_scale;
    let mut runs = Vec::new();
    let mut ids = Vec::new();
    for &t in tasks {
        for (s, x) in scheds.iter().enumerate() {
            let p = model.predict(lny0[t], x, model.loc(t))?;
            let d = p.pts.len();
            let c = model.gp.posterior_cov_at(&ref_pts, &p.pts)?;
            // Cov(ln Y_d of reference i, standardised increment b of the run), in (ln loss)² after z_scale².
            let cross = DMatrix::from_fn(m, d, |i, b| {
                let di = refs[i].pred.pts.len();
                let off: usize = refs[..i].iter().map(|r| r.pred.pts.len()).sum();
                (0..di).map(|a| c[(off + a, b)]).sum::<f64>() * z2
            });
            runs.push(CandidateRun { obs_cov: p.cov * z2, cross, noise_var: model.gp.hyper.noise_var * z2, cost: 1.0 });
            ids.push((s, t));
        }
    }
    // truvar_scores with β = 1, η = 0, unit cost is Σ_i Var_i - Σ_i Var_i|run = M (J - J̄): no truncation.
    let red = truvar_scores(&var_m, &runs, 1.0, 0.0)?;
    let best = (0..runs.len())
        .max_by(|&a, &b| red[a].total_cmp(&red[b]).then(b.cmp(&a)))
        .ok_or_else(|| Error::numerical("eq. 8: no run"))?;
    Ok((ids[best], j - red[best] / m.max(1) as f64))
}

/// `n` points uniform on the convex hull of `pts` (Sec. 4.4: "the Lebesgue measure over the convex hull of
/// w_1, ..., w_M"): a triangle of the hull's fan by area, then uniform in it. A degenerate hull (all points on
/// a line) gives uniform points on its longest segment.
pub fn hull_samples(pts: &[[f64; 2]], n: usize, rng: &mut Rng) -> Vec<[f64; 2]> {
    let h = convex_hull(pts);
    type Tri = ([f64; 2], [f64; 2], [f64; 2], f64);
    let tri: Vec<Tri> = (1..h.len().saturating_sub(1))
        .map(|i| {
            let (a, b, c) = (h[0], h[i], h[i + 1]);
            (a, b, c, 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs())
        })
        .collect();
    let total: f64 = tri.iter().map(|t| t.3).sum();
    (0..n)
        .map(|_| {
            if total <= 1e-12 {
                let (a, b) = (h[0], *h.last().unwrap_or(&h[0]));
                let u: f64 = rng.random();
                return [a[0] + u * (b[0] - a[0]), a[1] + u * (b[1] - a[1])];
            }
            let mut r = rng.random::<f64>() * total;
            let mut k = 0;
            while k + 1 < tri.len() && r > tri[k].3 {
                r -= tri[k].3;
                k += 1;
            }
            let (a, b, c, _) = tri[k];
            let (mut u, mut v): (f64, f64) = (rng.random(), rng.random());
            if u + v > 1.0 {
                (u, v) = (1.0 - u, 1.0 - v);
            }
            [a[0] + u * (b[0] - a[0]) + v * (c[0] - a[0]), a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1])]
        })
        .collect()
}

/// Convex hull (Andrew's monotone chain), counter-clockwise; collinear points dropped.
pub fn convex_hull(pts: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut p = pts.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() <= 2 {
        return p;
    }
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut h: Vec<[f64; 2]> = Vec::new();
    for pass in 0..2 {
        let start = h.len();
        let it: Vec<[f64; 2]> = if pass == 0 { p.clone() } else { p.iter().rev().copied().collect() };
        for q in it {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// Sec. 4.4, first strategy: the "universal" tuning, the schedule whose predicted final value averaged over
/// `w_new` (the samples `ws`) is best: here the lowest mean predicted final ln loss.
pub fn universal(model: &TraceGp, lny0: f64, ws: &[[f64; 2]], cands: &[Vec<f64>], grid: &[f64]) -> Result<Vec<f64>> {
    Ok(search(cands, grid, |s| {
        let mut acc = 0.0;
        for &w in ws {
            acc += model.predict(lny0, s, w)?.final_mean();
        }
        Ok(acc / ws.len().max(1) as f64)
    })?
    .0)
}

/// Sec. 4.4, second strategy: the run most informative about `w_new`. The prose asks for the rate "for which
/// the proportion of the variance of the predictor due to the uncertainty on w_new is maximal", i.e. by the law
/// of total variance `Var_w(E[Y | w]) / Var(Y)` summed over the trace; the printed formula has
/// `E_w[Var(Y | w)] / Var(Y)`, which is one minus that proportion (its maximiser is the least informative run
/// about w_new). We follow the prose. The sum runs over the boundaries `T_1..T_d` (`i = d`: a full run; the
/// text leaves `T_i` open), by Monte Carlo over the samples `ws`. Returns the schedule and its criterion.
pub fn learn_location(
    model: &TraceGp,
    lny0: f64,
    ws: &[[f64; 2]],
    cands: &[Vec<f64>],
    grid: &[f64],
) -> Result<(Vec<f64>, f64)> {
    let (x, s) = search(cands, grid, |s| Ok(-location_share(model, lny0, s, ws)?))?;
    Ok((x, -s))
}

/// `Σ_k Var_w(E[ln Y_k | w]) / (E_w[Var(ln Y_k | w)] + Var_w(E[ln Y_k | w]))` over the boundaries.
pub fn location_share(model: &TraceGp, lny0: f64, s: &[f64], ws: &[[f64; 2]]) -> Result<f64> {
    let preds: Vec<Pred> = ws.iter().map(|&w| model.predict(lny0, s, w)).collect::<Result<_>>()?;
    let n = preds.len().max(1) as f64;
    let mut total = 0.0;
    for k in 0..s.len() {
        let mu = preds.iter().map(|p| p.mean[k]).sum::<f64>() / n;
        let between = preds.iter().map(|p| (p.mean[k] - mu) * (p.mean[k] - mu)).sum::<f64>() / n;
        let within = preds.iter().map(|p| p.var[k]).sum::<f64>() / n;
        if between + within > 0.0 {
            total += between / (between + within);
        }
    }
    Ok(total)
}
