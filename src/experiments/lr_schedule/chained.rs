//! The trace model of Picheny, Dutordoir, Artemev & Durrande (2020), eqs. 2-3 and Sec. 2.2: two latent GPs
//! `f` and `g` over the input `x_k = (Y_k, log10 lr_k)` chained through a link `η` that gives the trace at
//! every recorded point of interval `k` (τ in (0, 1] = fraction of the interval done):
//!
//! - `exponential`: `y(T_k + τ) = Y_k + s·f(x_k)·(1 - exp(-exp(g(x_k) + c) τ))`, Gaussian noise `σ²`
//!   (`f` = change towards an asymptote, `exp(g + c)` = rate at which the trace approaches it);
//! - `linear`: `y(T_k + τ) = Y_k + s·f(x_k)·τ`, Gaussian noise of variance `exp(g(x_k) + c)`
//!   (`f` = slope, `g` = log noise variance: a chained heteroscedastic GP, Saul et al. 2016).
//!
//! Stated choices: the trace `y` is the natural log of the training loss (all our traces are positive losses
//! spanning decades); `s` scales the per-interval increments to unit spread; `c` is a learnt offset.
//! Each latent GP is a sparse variational GP (Hensman et al. 2015) in the whitened form `u = L v`,
//! `q(v) = N(m, C Cᵀ)` ([`crate::gp::svgp`]: marginals of eq. 4, the KL term of eq. 5), with `M` inducing
//! inputs chosen by farthest-point selection among the observed inputs (all of them when there are at most
//! `M`: the full variational GP, labelled so); the ELBO's (eq. 5) expectations use 7 x 7 Gauss-Hermite nodes
//! (instead of the paper's Monte Carlo) and are maximised by Adam with analytic gradients. Kernel
//! hyperparameters are fixed (Matern 5/2, length scales 1 in standardised `Y` and 0.25 in the scaled log
//! rate, unit signal variance) rather than learnt.
//!
//! Prediction (Sec. 2.3): [`ChainedModel::sample_paths`] draws `v_f, v_g ~ q` once per path, so one path
//! sees one function through the inducing variables as it moves from interval to interval; the small
//! residual `k(x, x) - bᵀb` beyond the inducing variables is drawn independently at each step.
//! [`ChainedModel::latent_quantile`] is the `α`-quantile of the noise-free next boundary value `Y_{k+1}`
//! (eq. 6 applied to the latent function) with fixed common random numbers, so candidates are compared on the
//! same draws.

// Index loops mirror the equations in these numeric kernels; negated comparisons deliberately catch NaN.
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use crate::gp::svgp::{inducing_inputs, Inducing, WhitenedQ, GH_W, GH_X};
use crate::gp::{BaseKernel, Kernel};
use crate::rng::{stream, Rng};
use crate::{Error, Result};
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};

use super::model::{norm_quantile, Link};
use crate::math::{exp, ln, log10};
use crate::linalg::dot;

/// One recorded interval: its start value, its rate, the values recorded inside it at fractions `tau`, and
/// whether the run diverged in it (diverged intervals are kept out of the regression).
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalObs {
    pub y_start: f64,
    pub lr: f64,
    /// `(tau in (0, 1], loss)` pairs.
    pub points: Vec<(f64, f64)>,
    pub diverged: bool,
}

const CRN: usize = 256;

/// A fitted chained sparse variational trace model.
#[derive(Debug, Clone)]
pub struct ChainedModel {
    link: Link,
    /// Inducing inputs, kernel and `chol K_ZZ`, shared by `f` and `g`.
    ind: Inducing<2>,
    /// `q(v_f)`, `q(v_g)`.
    q: [WhitenedQ; 2],
    /// Learnt offset `c` of `g` and log noise variance (exponential form).
    offset: f64,
    log_noise: f64,
    scale: InputScale,
    s: f64,
    crn: Vec<(f64, f64)>,
    /// ELBO at the end of the fit.
    pub elbo: f64,
    /// Whether the inducing inputs are all the observed inputs (the full variational GP).
    pub full: bool,
}

/// The inputs of the trace model and of the failure classifier: `(ln Y - shift) / scale`, standardised over
/// the observed interval starts, and `log10 lr` scaled to [0, 1] over the bounds.
#[derive(Debug, Clone, Copy)]
pub(super) struct InputScale {
    y_shift: f64,
    y_scale: f64,
    log_lr: (f64, f64),
}

impl InputScale {
    /// From the `ln Y` of the interval starts (mean and population sd; sd 1 when below `1e-9`).
    pub(super) fn fit(ln_starts: &[f64], lr_bounds: [f64; 2]) -> Self {
        let n = ln_starts.len().max(1) as f64;
        let y_shift = ln_starts.iter().sum::<f64>() / n;
        let ysd = (ln_starts.iter().map(|v| (v - y_shift).powi(2)).sum::<f64>() / n).sqrt();
        let y_scale = if ysd > 1e-9 { ysd } else { 1.0 };
        InputScale { y_shift, y_scale, log_lr: (log10(lr_bounds[0]), log10(lr_bounds[1])) }
    }

    /// The input at `ln Y = ln_y` and rate `lr`.
    pub(super) fn at(&self, ln_y: f64, lr: f64) -> [f64; 2] {
        let span = (self.log_lr.1 - self.log_lr.0).max(1e-12);
        [(ln_y - self.y_shift) / self.y_scale, (log10(lr) - self.log_lr.0) / span]
    }
}

impl ChainedModel {
    /// Fits the model on the non-diverged intervals with at most `m_max` inducing inputs per latent GP.
    /// Errors: `Config` with fewer than 2 usable intervals, `Numerical` if the fit fails.
    pub fn fit(obs: &[IntervalObs], link: Link, lr_bounds: [f64; 2], m_max: usize, iters: usize) -> Result<Self> {
        if link == Link::Softplus {
            return Err(Error::config("the chained trace model has the linear and exponential links only"));
        }
        let used: Vec<&IntervalObs> = obs
            .iter()
            .filter(|o| !o.diverged && o.y_start > 0.0 && o.lr > 0.0 && !o.points.is_empty())
            .filter(|o| o.points.iter().all(|p| p.1 > 0.0 && p.1.is_finite() && p.0 > 0.0))
            .collect();
        if used.len() < 2 {
            return Err(Error::config("the trace model needs at least 2 non-diverged intervals"));
        }
        let starts: Vec<f64> = used.iter().map(|o| ln(o.y_start)).collect();
        let n = starts.len() as f64;
        let scale = InputScale::fit(&starts, lr_bounds);
        let incs: Vec<f64> =
            used.iter().map(|o| o.points.last().map_or(0.0, |p| ln(p.1)) - ln(o.y_start)).collect();
        let s = (incs.iter().map(|v| v * v).sum::<f64>() / n).sqrt().max(1e-6);
        let xs: Vec<[f64; 2]> = used.iter().map(|o| scale.at(ln(o.y_start), o.lr)).collect();
        let mut kernel = Kernel::new(BaseKernel::Matern52, 2, 1.0, 1.0)?;
        kernel.length_scales = vec![1.0, 0.25];
        // Farthest-point selection of the inducing inputs (deterministic), in the kernel's length scales.
        let (z, full) = inducing_inputs(&xs, m_max, [1.0, 0.25]);
        let mm = z.len();
        let ind = Inducing::new(kernel, z, 1e-4)?;
        let bs: Vec<(Vec<f64>, f64)> = xs.iter().map(|x| ind.project(x)).collect();
        let targets: Vec<Vec<(f64, f64)>> = used
            .iter()
            .map(|o| o.points.iter().map(|&(t, v)| (t.min(1.0), (ln(v) - ln(o.y_start)) / s)).collect())
            .collect();
        let mut model = ChainedModel {
            link,
            ind,
            q: [WhitenedQ::new(mm, 0.3), WhitenedQ::new(mm, 0.3)],
            offset: if link == Link::Exponential { ln(3f64) } else { ln(0.1f64) },
            log_noise: ln(0.05f64),
            scale,
            s,
            crn: Vec::new(),
            elbo: f64::NEG_INFINITY,
            full,
        };
        // Adam on (m_f, C_f, m_g, C_g, offset, log_noise); C's diagonal in log space.
        let np = 2 * (mm + mm * mm) + 2;
        let mut theta = vec![0.0; np];
        model.pack(&mut theta);
        let mut adam = crate::optim::Adam::new(np);
        let mut grad = vec![0.0; np];
        let lr = 0.03;
        for _ in 1..=iters.max(1) {
            model.unpack(&theta);
            let e = model.elbo_grad(&bs, &targets, &mut grad);
            if !e.is_finite() {
                return Err(Error::numerical("the trace model's ELBO is not finite"));
            }
            model.elbo = e;
            adam.ascend(&mut theta, &grad, lr);
        }
        model.unpack(&theta);
        model.elbo = model.elbo_grad(&bs, &targets, &mut grad);
        if !model.elbo.is_finite() {
            return Err(Error::numerical("the trace model's ELBO is not finite"));
        }
        let mut r = stream(0x5452_4143, 0);
        model.crn = (0..CRN)
            .map(|_| {
                let a: f64 = StandardNormal.sample(&mut r);
                let b: f64 = StandardNormal.sample(&mut r);
                (a, b)
            })
            .collect();
        Ok(model)
    }

    /// Number of inducing inputs per latent GP.
    pub fn inducing(&self) -> usize {
        self.ind.len()
    }

    /// Packed parameters: `q(v_f)`, `q(v_g)` (see [`WhitenedQ::pack`]), the offset, the log noise variance.
    fn pack(&self, t: &mut [f64]) {
        let mut k = 0;
        for l in 0..2 {
            self.q[l].pack(t, &mut k);
        }
        t[k] = self.offset;
        t[k + 1] = self.log_noise;
    }

    fn unpack(&mut self, t: &[f64]) {
        let mut k = 0;
        for l in 0..2 {
            self.q[l].unpack(t, &mut k);
        }
        self.offset = t[k].clamp(-20.0, 20.0);
        self.log_noise = t[k + 1].clamp(-20.0, 5.0);
    }

    /// Marginal `q(f(x))` (eq. 4, whitened) for latent `l` given `b = L⁻¹ k(Z, x)` and the residual variance.
    fn marginal(&self, l: usize, b: &[f64], resid: f64) -> (f64, f64, Vec<f64>) {
        self.q[l].marginal(b, resid)
    }

    /// Mean `h(f, g, τ)` of the scaled increment and the noise variance, with their derivatives
    /// `(h, dh/df, dh/dg, s2, ds2/dg)` (the derivative of `s2` in the offset equals the one in `g`).
    fn link_eval(&self, f: f64, g: f64, tau: f64) -> (f64, f64, f64, f64, f64) {
        match self.link {
            Link::Linear => {
                let s2 = exp((g + self.offset).clamp(-30.0, 30.0));
                (f * tau, tau, 0.0, s2, s2)
            }
            _ => {
                let rho = exp((g + self.offset).clamp(-30.0, 30.0));
                let e = exp(-rho * tau);
                let s2 = exp(self.log_noise);
                (f * (1.0 - e), 1.0 - e, f * e * rho * tau, s2, 0.0)
            }
        }
    }

    /// ELBO (eq. 5; expectations by Gauss-Hermite) and its gradient in the packed parameters.
    fn elbo_grad(&self, bs: &[(Vec<f64>, f64)], targets: &[Vec<(f64, f64)>], grad: &mut [f64]) -> f64 {
        let mm = self.ind.len();
        grad.iter_mut().for_each(|v| *v = 0.0);
        let mut total = 0.0;
        let (mut g_off, mut g_noise) = (0.0, 0.0);
        let mut gm = [vec![0.0; mm], vec![0.0; mm]];
        let mut gc = [DMatrix::<f64>::zeros(mm, mm), DMatrix::<f64>::zeros(mm, mm)];
        for ((b, resid), pts) in bs.iter().zip(targets) {
            let (muf, sdf, ctbf) = self.marginal(0, b, *resid);
            let (mug, sdg, ctbg) = self.marginal(1, b, *resid);
            let (mut dmuf, mut dsdf, mut dmug, mut dsdg) = (0.0, 0.0, 0.0, 0.0);
            for ia in 0..7 {
                let f = muf + sdf * GH_X[ia];
                for ib in 0..7 {
                    let w = GH_W[ia] * GH_W[ib];
                    let g = mug + sdg * GH_X[ib];
                    for &(tau, r) in pts {
                        let (h, dhf, dhg, s2, ds2g) = self.link_eval(f, g, tau);
                        let e = r - h;
                        let ll = -0.5 * ln(2.0 * std::f64::consts::PI * s2) - 0.5 * e * e / s2;
                        total += w * ll;
                        // ∂ℓ/∂s2 = -1/(2 s2) + e²/(2 s2²)
                        let dls2 = -0.5 / s2 + 0.5 * e * e / (s2 * s2);
                        let dlf = e / s2 * dhf;
                        let dlg = e / s2 * dhg + dls2 * ds2g;
                        dmuf += w * dlf;
                        dsdf += w * dlf * GH_X[ia];
                        dmug += w * dlg;
                        dsdg += w * dlg * GH_X[ib];
                        // offset enters like g (rate or noise); log_noise only in the exponential form
                        g_off += w * dlg;
                        if self.link != Link::Linear {
                            g_noise += w * dls2 * s2;
                        }
                    }
                }
            }
            for (l, (dmu, dsd, ctb, sd)) in [(dmuf, dsdf, &ctbf, sdf), (dmug, dsdg, &ctbg, sdg)].into_iter().enumerate() {
                WhitenedQ::add_marginal_grad(b, ctb, dmu, dsd, sd, &mut gm[l], &mut gc[l]);
            }
        }
        // KL(q(v) || N(0, I)) of both latent GPs (the KL term of eq. 5)
        let mut kl = 0.0;
        for l in 0..2 {
            kl += self.q[l].kl_add_neg_grad(&mut gm[l], &mut gc[l]);
        }
        let mut k = 0;
        for l in 0..2 {
            self.q[l].pack_grad(&gm[l], &gc[l], grad, &mut k);
        }
        grad[k] = g_off;
        grad[k + 1] = g_noise;
        total - kl
    }

    fn input(&self, y: f64, lr: f64) -> [f64; 2] {
        self.scale.at(ln(y.max(1e-300)), lr)
    }

    fn b_of(&self, x: &[f64; 2]) -> (Vec<f64>, f64) {
        self.ind.project(x)
    }

    /// Marginals `(μ_f, σ_f, μ_g, σ_g)` of the two latent functions at `(y, lr)`.
    pub fn latent(&self, y: f64, lr: f64) -> (f64, f64, f64, f64) {
        let (b, r) = self.b_of(&self.input(y, lr));
        let (mf, sf, _) = self.marginal(0, &b, r);
        let (mg, sg, _) = self.marginal(1, &b, r);
        (mf, sf, mg, sg)
    }

    /// Eq. 6 on the latent function: the `alpha`-quantile of the noise-free loss at the next boundary
    /// `exp(ln y + s·h(f, g, 1))` given the loss `y` now and the rate `lr` (common random numbers).
    pub fn latent_quantile(&self, y: f64, lr: f64, alpha: f64) -> f64 {
        let (mf, sf, mg, sg) = self.latent(y, lr);
        let h = match self.link {
            Link::Linear => mf + sf * norm_quantile(alpha),
            _ => {
                let mut v: Vec<f64> =
                    self.crn.iter().map(|&(a, b)| self.link_eval(mf + sf * a, mg + sg * b, 1.0).0).collect();
                quantile(&mut v, alpha)
            }
        };
        exp(ln(y.max(1e-300)) + self.s * h)
    }

    /// One-step band (5%, 50%, 95%) of the observed loss at the next boundary (noise included).
    pub fn one_step_band(&self, y: f64, lr: f64) -> super::Band {
        let (mf, sf, mg, sg) = self.latent(y, lr);
        let mut v: Vec<f64> = self
            .crn
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let (h, _, _, s2, _) = self.link_eval(mf + sf * a, mg + sg * b, 1.0);
                let e = self.crn[(i * 7 + 3) % CRN].0;
                exp(ln(y.max(1e-300)) + self.s * (h + s2.sqrt() * e))
            })
            .collect();
        super::Band { lo: quantile(&mut v, 0.05), median: quantile(&mut v, 0.5), hi: quantile(&mut v, 0.95) }
    }

    /// Recursive sampling (Sec. 2.3) of `samples` paths over the schedule `lrs` from `start`; each path draws
    /// the inducing variables of `f` and `g` once. Returns the paths' values at boundaries `0..=lrs.len()`.
    pub fn sample_paths(&self, lrs: &[f64], start: f64, samples: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
        let mut out = Vec::with_capacity(samples);
        for _ in 0..samples.max(1) {
            let v = [self.q[0].sample(rng), self.q[1].sample(rng)];
            let mut y = start;
            let mut path = vec![y];
            for &lr in lrs {
                let (b, r) = self.b_of(&self.input(y, lr));
                let mut lat = [0.0; 2];
                for l in 0..2 {
                    let e: f64 = StandardNormal.sample(rng);
                    lat[l] = dot(v[l].as_slice(), &b) + r.sqrt() * e;
                }
                let (h, _, _, s2, _) = self.link_eval(lat[0], lat[1], 1.0);
                let e: f64 = StandardNormal.sample(rng);
                y = exp((ln(y.max(1e-300)) + self.s * (h + s2.sqrt() * e)).clamp(-700.0, 700.0));
                path.push(y);
            }
            out.push(path);
        }
        out
    }
}

/// Linear-interpolated quantile of `v` (sorted in place).
pub(super) fn quantile(v: &mut [f64], a: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|x, y| x.total_cmp(y));
    let pos = a.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let i = pos.floor() as usize;
    let j = (i + 1).min(v.len() - 1);
    v[i] + (pos - i as f64) * (v[j] - v[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::powf;

    #[test]
    fn gauss_hermite_integrates_moments() {
        let m2: f64 = GH_X.iter().zip(GH_W).map(|(x, w)| w * x * x).sum();
        let m4: f64 = GH_X.iter().zip(GH_W).map(|(x, w)| w * x.powi(4)).sum();
        assert!((GH_W.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((m2 - 1.0).abs() < 1e-12 && (m4 - 3.0).abs() < 1e-10, "{m2} {m4}");
    }

    fn toy(link: Link) -> (Vec<IntervalObs>, ChainedModel) {
        // Increments of the log loss: -0.5 at lr 1e-1, 0 at 1e-3, approaching the asymptote quickly.
        let mut obs = Vec::new();
        for k in 0..12 {
            let lr = powf(10f64, -3.0 + 2.0 * (k % 6) as f64 / 5.0);
            let y = 1.0 + 0.1 * (k / 6) as f64;
            let d = -0.5 * (log10(lr) + 3.0) / 2.0;
            let pts = (1..=4).map(|j| (j as f64 / 4.0, y * exp(d * (1.0 - exp(-4.0 * j as f64 / 4.0))))).collect();
            obs.push(IntervalObs { y_start: y, lr, points: pts, diverged: false });
        }
        let m = ChainedModel::fit(&obs, link, [1e-3, 1.0], 8, 400).unwrap();
        (obs, m)
    }

    #[test]
    fn elbo_gradient_matches_finite_differences() {
        for link in [Link::Linear, Link::Exponential] {
            let (obs, mut m) = toy(link);
            let used: Vec<&IntervalObs> = obs.iter().collect();
            let xs: Vec<[f64; 2]> = used.iter().map(|o| m.input(o.y_start, o.lr)).collect();
            let bs: Vec<(Vec<f64>, f64)> = xs.iter().map(|x| m.b_of(x)).collect();
            let targets: Vec<Vec<(f64, f64)>> = used
                .iter()
                .map(|o| o.points.iter().map(|&(t, v)| (t, (ln(v) - ln(o.y_start)) / m.s)).collect())
                .collect();
            let np = 2 * (m.inducing() + m.inducing().pow(2)) + 2;
            let mut th = vec![0.0; np];
            m.pack(&mut th);
            let mut g = vec![0.0; np];
            m.elbo_grad(&bs, &targets, &mut g);
            let mut gd = vec![0.0; np];
            for i in (0..np).step_by(7).chain([np - 2, np - 1]) {
                if g[i] == 0.0 && i % m.inducing() != 0 {
                    continue;
                }
                let h = 1e-6;
                let mut a = th.clone();
                a[i] += h;
                m.unpack(&a);
                let ea = m.elbo_grad(&bs, &targets, &mut gd);
                a[i] -= 2.0 * h;
                m.unpack(&a);
                let eb = m.elbo_grad(&bs, &targets, &mut gd);
                m.unpack(&th);
                let fd = (ea - eb) / (2.0 * h);
                assert!((fd - g[i]).abs() <= 1e-4 * (1.0 + fd.abs()), "{link:?} param {i}: {} vs {fd}", g[i]);
            }
        }
    }

    #[test]
    fn learns_the_rate_effect_and_orders_quantiles() {
        for link in [Link::Linear, Link::Exponential] {
            let (_, m) = toy(link);
            // Larger rates lower the predicted loss (the law above), quantiles are ordered.
            let lo = m.latent_quantile(1.0, 1e-3, 0.5);
            let hi = m.latent_quantile(1.0, 1e-1, 0.5);
            assert!(hi < 0.8 && (lo - 1.0).abs() < 0.15, "{link:?}: {lo} {hi}");
            assert!(m.latent_quantile(1.0, 1e-2, 0.1) < m.latent_quantile(1.0, 1e-2, 0.9));
            assert!(!m.full && m.inducing() == 8);
        }
        // With as many inducing inputs as distinct inputs it is the full variational GP.
        let (obs, _) = toy(Link::Exponential);
        assert!(ChainedModel::fit(&obs, Link::Exponential, [1e-3, 1.0], 16, 50).unwrap().full);
    }
}
