//! The trace model of Picheny, Dutordoir, Artemev & Durrande (2020), eqs. 2-3 and Sec. 2.2: latent GPs over
//! the input `x_k = (Y_k, log10 lr_k)` chained through a link `η` that gives the trace at every recorded point
//! of interval `k` (τ in (0, 1] = fraction of the interval done). The trace `y` is the natural log of the
//! training loss, which falls, while the paper's trace is an objective that rises (it maximises L): the
//! paper's softplus keeps its increment `η ≥ 0`, so here the increment is `-s·η ≤ 0` (the loss can only fall
//! in a non-diverged interval).
//!
//! `dynamic.link_form = "paper"` (a named option; it measured worse than the default on seeds 6-8, see
//! docs/papers/lr-schedule-bo.md), the text's links with φ the softplus (Sec. 2.1):
//! - `exponential` (eq. 3): `y(T_k + τ) = Y_k - s·φ(f(x_k))·(1 - exp(-φ(g(x_k) + c) τ))`, two GPs;
//! - `linear` (eq. 2): `y(T_k + τ) = Y_k - s·φ(f(x_k))·τ`, one GP;
//!
//! both with Gaussian noise of constant variance `σ²` (Sec. 2.2). `c` is a learnt constant mean of the rate's
//! GP (ours: τ is in interval units, the paper's `t` in iterations).
//!
//! `dynamic.link_form = "unconstrained"` (the default), tunelab's forms:
//! - `exponential`: `y(T_k + τ) = Y_k + s·f(x_k)·(1 - exp(-exp(g(x_k) + c) τ))`, Gaussian noise `σ²`;
//! - `linear`: `y(T_k + τ) = Y_k + s·f(x_k)·τ`, Gaussian noise of variance `exp(g(x_k) + c)`
//!   (`g` = log noise variance: a chained heteroscedastic GP, Saul et al. 2016).
//!
//! Stated choices: `s` scales the per-interval increments to unit spread (root mean square); `c` is learnt.
//! Each latent GP is a sparse variational GP (Hensman et al. 2015) in the whitened form `u = L v`,
//! `q(v) = N(m, C Cᵀ)` ([`crate::gp::svgp`]: marginals of eq. 4, the KL term of eq. 5), with `M` inducing
//! inputs chosen by farthest-point selection among the observed inputs (all of them when there are at most
//! `M`: the full variational GP, labelled so); the ELBO's (eq. 5) expectations use Gauss-Hermite nodes over the
//! latent values (7 x 7 with two GPs, 7 with one; instead of the paper's Monte Carlo; with the softplus the
//! expectation is no longer a closed form in `f`, the nodes still integrate it) and are maximised by Adam with
//! analytic gradients. Kernel hyperparameters are fixed (Matern 5/2, length scales 1 in standardised `Y` and
//! 0.25 in the scaled log rate, unit signal variance) rather than learnt.
//!
//! Prediction (Sec. 2.3): [`ChainedModel::sample_paths`] draws the inducing variables once per path, so one
//! path sees one function through the inducing variables as it moves from interval to interval; the small
//! residual `k(x, x) - bᵀb` beyond the inducing variables is drawn independently at each step.
//! [`ChainedModel::latent_quantile`] is the `α`-quantile of the noise-free next boundary value `Y_{k+1}`
//! (eq. 6 applied to the latent function) with fixed common random numbers, so candidates are compared on the
//! same draws.

// Index loops mirror the equations in these numeric kernels.
#![allow(clippy::needless_range_loop)]

use crate::gp::svgp::{inducing_inputs, Inducing, WhitenedQ, GH_W, GH_X};
use crate::gp::{BaseKernel, Kernel};
use crate::rng::{stream, Rng};
use crate::{Error, Result};
use nalgebra::DMatrix;
use rand_distr::{Distribution, StandardNormal};

use super::model::{norm_quantile, softplus, softplus_inv, Link, LinkForm};
use crate::linalg::dot;
use crate::math::logistic;
use crate::math::{exp, ln, log10};

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
    form: LinkForm,
    /// Inducing inputs, kernel and `chol K_ZZ`, shared by `f` and `g`.
    ind: Inducing<2>,
    /// `q(v_f)`, `q(v_g)` (`q(v_g)` unused with one latent GP: the paper's linear link).
    q: [WhitenedQ; 2],
    /// Learnt offset `c` of `g` (absent from the paper's linear link) and log noise variance (constant noise).
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

/// The intervals that enter the regression: not diverged, positive start and rate, at least one point, every
/// point positive and finite.
fn usable(obs: &[IntervalObs]) -> Vec<&IntervalObs> {
    obs.iter()
        .filter(|o| !o.diverged && o.y_start > 0.0 && o.lr > 0.0 && !o.points.is_empty())
        .filter(|o| o.points.iter().all(|p| p.1 > 0.0 && p.1.is_finite() && p.0 > 0.0))
        .collect()
}

impl ChainedModel {
    /// Fits the model with links `link` in the form `form` on the non-diverged intervals, with at most
    /// `m_max` inducing inputs per latent GP. Errors: `Config` with fewer than 2 usable intervals or the
    /// `softplus` link (exact-increments model only), `Numerical` if the fit fails.
    pub fn fit(
        obs: &[IntervalObs],
        link: Link,
        form: LinkForm,
        lr_bounds: [f64; 2],
        m_max: usize,
        iters: usize,
    ) -> Result<Self> {
        if link == Link::Softplus {
            return Err(Error::config("the chained trace model has the linear and exponential links only"));
        }
        let used = usable(obs);
        if used.len() < 2 {
            return Err(Error::config("the trace model needs at least 2 non-diverged intervals"));
        }
        let starts: Vec<f64> = used.iter().map(|o| ln(o.y_start)).collect();
        let n = starts.len() as f64;
        let scale = InputScale::fit(&starts, lr_bounds);
        let incs: Vec<f64> = used.iter().map(|o| o.points.last().map_or(0.0, |p| ln(p.1)) - ln(o.y_start)).collect();
        let s = (incs.iter().map(|v| v * v).sum::<f64>() / n).sqrt().max(1e-6);
        let xs: Vec<[f64; 2]> = used.iter().map(|o| scale.at(ln(o.y_start), o.lr)).collect();
        let mut kernel = Kernel::new(BaseKernel::Matern52, 2, 1.0, 1.0)?;
        kernel.length_scales = vec![1.0, 0.25];
        // Farthest-point selection of the inducing inputs (deterministic), in the kernel's length scales.
        let (z, full) = inducing_inputs(&xs, m_max, [1.0, 0.25]);
        let mm = z.len();
        let ind = Inducing::new(kernel, z, 1e-4)?;
        // Initial rate offset: 3 per interval, `exp(c)` (unconstrained) or `φ(c)` (paper); the unconstrained
        // linear link's offset is the log noise variance's (0.1).
        let offset = match (form, link) {
            (LinkForm::Unconstrained, Link::Exponential) => ln(3f64),
            (LinkForm::Unconstrained, _) => ln(0.1f64),
            (LinkForm::Paper, _) => softplus_inv(3.0),
        };
        let mut model = ChainedModel {
            link,
            form,
            ind,
            q: [WhitenedQ::new(mm, 0.3), WhitenedQ::new(mm, 0.3)],
            offset,
            log_noise: ln(0.05f64),
            scale,
            s,
            crn: Vec::new(),
            elbo: f64::NEG_INFINITY,
            full,
        };
        let (bs, targets) = model.prepare(&used);
        // Adam on (m_f, C_f[, m_g, C_g][, offset], log_noise); C's diagonal in log space.
        let np = model.n_params();
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

    /// The projections `b = L⁻¹ k(Z, x)` (with residual variances) of the usable intervals' inputs and their
    /// scaled targets `(τ, (ln y - ln Y_k) / s)`.
    #[allow(clippy::type_complexity)]
    fn prepare(&self, used: &[&IntervalObs]) -> (Vec<(Vec<f64>, f64)>, Vec<Vec<(f64, f64)>>) {
        let bs = used.iter().map(|o| self.ind.project(&self.scale.at(ln(o.y_start), o.lr))).collect();
        let targets = used
            .iter()
            .map(|o| o.points.iter().map(|&(t, v)| (t.min(1.0), (ln(v) - ln(o.y_start)) / self.s)).collect())
            .collect();
        (bs, targets)
    }

    /// Number of inducing inputs per latent GP.
    pub fn inducing(&self) -> usize {
        self.ind.len()
    }

    /// The link form the model was fitted with.
    pub fn form(&self) -> LinkForm {
        self.form
    }

    /// Number of latent GPs: 1 for the paper's linear link (eq. 2: `φ(f_1) t`), 2 otherwise.
    pub fn latent_gps(&self) -> usize {
        if self.form == LinkForm::Paper && self.link == Link::Linear {
            1
        } else {
            2
        }
    }

    /// Whether the model has the offset `c` (every form but the paper's linear link).
    fn has_offset(&self) -> bool {
        self.latent_gps() == 2
    }

    /// Whether the noise variance is the constant `exp(log_noise)` (every form but the unconstrained linear).
    fn constant_noise(&self) -> bool {
        !(self.form == LinkForm::Unconstrained && self.link == Link::Linear)
    }

    /// Number of fitted parameters: the variational `(m, C)` of each latent GP, the offset `c` where there is
    /// one, and the log noise variance (a dead parameter in the unconstrained linear link, which keeps it).
    pub fn n_params(&self) -> usize {
        let mm = self.ind.len();
        self.latent_gps() * (mm + mm * mm) + usize::from(self.has_offset()) + 1
    }

    /// The fitted parameters, packed (the order of [`Self::elbo_and_gradient`]).
    pub fn parameters(&self) -> Vec<f64> {
        let mut t = vec![0.0; self.n_params()];
        self.pack(&mut t);
        t
    }

    /// The ELBO (eq. 5) on `obs` (the usable intervals, as in the fit) and its analytic gradient, at the packed
    /// parameters `theta` instead of the fitted ones (for gradient checks against finite differences).
    pub fn elbo_and_gradient(&self, obs: &[IntervalObs], theta: &[f64]) -> (f64, Vec<f64>) {
        let mut m = self.clone();
        m.unpack(theta);
        let (bs, targets) = m.prepare(&usable(obs));
        let mut grad = vec![0.0; m.n_params()];
        let e = m.elbo_grad(&bs, &targets, &mut grad);
        (e, grad)
    }

    /// Packed parameters: `q(v_f)`, `q(v_g)` if used (see [`WhitenedQ::pack`]), the offset if used, the log
    /// noise variance.
    fn pack(&self, t: &mut [f64]) {
        let mut k = 0;
        for l in 0..self.latent_gps() {
            self.q[l].pack(t, &mut k);
        }
        if self.has_offset() {
            t[k] = self.offset;
            k += 1;
        }
        t[k] = self.log_noise;
    }

    fn unpack(&mut self, t: &[f64]) {
        let mut k = 0;
        for l in 0..self.latent_gps() {
            self.q[l].unpack(t, &mut k);
        }
        if self.has_offset() {
            self.offset = t[k].clamp(-20.0, 20.0);
            k += 1;
        }
        self.log_noise = t[k].clamp(-20.0, 5.0);
    }

    /// Marginal `q(f(x))` (eq. 4, whitened) for latent `l` given `b = L⁻¹ k(Z, x)` and the residual variance.
    fn marginal(&self, l: usize, b: &[f64], resid: f64) -> (f64, f64, Vec<f64>) {
        self.q[l].marginal(b, resid)
    }

    /// Mean `h(f, g, τ)` of the scaled increment and the noise variance, with their derivatives
    /// `(h, dh/df, dh/dg, s2, ds2/dg)` (the derivative of `h` or `s2` in the offset equals the one in `g`).
    fn link_eval(&self, f: f64, g: f64, tau: f64) -> (f64, f64, f64, f64, f64) {
        match (self.form, self.link) {
            // Eq. 2, `-φ(f) τ` (the loss falls: the paper's rising trace with the sign turned), σ².
            (LinkForm::Paper, Link::Linear) => {
                let s2 = exp(self.log_noise);
                (-softplus(f) * tau, -logistic(f) * tau, 0.0, s2, 0.0)
            }
            // Eq. 3, `-φ(f)(1 - exp(-φ(g + c) τ))`, σ².
            (LinkForm::Paper, _) => {
                let u = g + self.offset;
                let rho = softplus(u);
                let e = exp(-rho * tau);
                let p = softplus(f);
                let s2 = exp(self.log_noise);
                (-p * (1.0 - e), -logistic(f) * (1.0 - e), -p * tau * e * logistic(u), s2, 0.0)
            }
            (LinkForm::Unconstrained, Link::Linear) => {
                let s2 = exp((g + self.offset).clamp(-30.0, 30.0));
                (f * tau, tau, 0.0, s2, s2)
            }
            (LinkForm::Unconstrained, _) => {
                let rho = exp((g + self.offset).clamp(-30.0, 30.0));
                let e = exp(-rho * tau);
                let s2 = exp(self.log_noise);
                (f * (1.0 - e), 1.0 - e, f * e * rho * tau, s2, 0.0)
            }
        }
    }

    /// ELBO (eq. 5; expectations by Gauss-Hermite nodes over the latent values) and its gradient in the packed
    /// parameters.
    fn elbo_grad(&self, bs: &[(Vec<f64>, f64)], targets: &[Vec<(f64, f64)>], grad: &mut [f64]) -> f64 {
        let mm = self.ind.len();
        let nl = self.latent_gps();
        // With one latent GP the nodes over g collapse to one node of weight 1 (g unused).
        let nb = if nl == 2 { 7 } else { 1 };
        let (has_offset, constant_noise) = (self.has_offset(), self.constant_noise());
        grad.iter_mut().for_each(|v| *v = 0.0);
        let mut total = 0.0;
        let (mut g_off, mut g_noise) = (0.0, 0.0);
        let mut gm = [vec![0.0; mm], vec![0.0; mm]];
        let mut gc = [DMatrix::<f64>::zeros(mm, mm), DMatrix::<f64>::zeros(mm, mm)];
        for ((b, resid), pts) in bs.iter().zip(targets) {
            let (muf, sdf, ctbf) = self.marginal(0, b, *resid);
            let (mug, sdg, ctbg) = if nl == 2 { self.marginal(1, b, *resid) } else { (0.0, 0.0, Vec::new()) };
            let (mut dmuf, mut dsdf, mut dmug, mut dsdg) = (0.0, 0.0, 0.0, 0.0);
            for ia in 0..7 {
                let f = muf + sdf * GH_X[ia];
                for ib in 0..nb {
                    let w = if nl == 2 { GH_W[ia] * GH_W[ib] } else { GH_W[ia] };
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
                        // the offset enters like g (rate or noise); log_noise only with constant noise
                        if has_offset {
                            g_off += w * dlg;
                        }
                        if constant_noise {
                            g_noise += w * dls2 * s2;
                        }
                    }
                }
            }
            WhitenedQ::add_marginal_grad(b, &ctbf, dmuf, dsdf, sdf, &mut gm[0], &mut gc[0]);
            if nl == 2 {
                WhitenedQ::add_marginal_grad(b, &ctbg, dmug, dsdg, sdg, &mut gm[1], &mut gc[1]);
            }
        }
        // KL(q(v) || N(0, I)) of each latent GP (the KL term of eq. 5)
        let mut kl = 0.0;
        for l in 0..nl {
            kl += self.q[l].kl_add_neg_grad(&mut gm[l], &mut gc[l]);
        }
        let mut k = 0;
        for l in 0..nl {
            self.q[l].pack_grad(&gm[l], &gc[l], grad, &mut k);
        }
        if has_offset {
            grad[k] = g_off;
            k += 1;
        }
        grad[k] = g_noise;
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
        if self.latent_gps() == 1 {
            return (mf, sf, 0.0, 0.0);
        }
        let (mg, sg, _) = self.marginal(1, &b, r);
        (mf, sf, mg, sg)
    }

    /// The noise-free scaled increments `h(f, g, τ)` at `(y, lr)` and fraction `tau` of the interval, over the
    /// common random numbers (the draws behind [`Self::latent_quantile`]); the change of `ln y` is `s·h`.
    pub fn increment_draws(&self, y: f64, lr: f64, tau: f64) -> Vec<f64> {
        let (mf, sf, mg, sg) = self.latent(y, lr);
        self.crn.iter().map(|&(a, b)| self.link_eval(mf + sf * a, mg + sg * b, tau).0).collect()
    }

    /// Eq. 6 on the latent function: the `alpha`-quantile of the noise-free loss at the next boundary
    /// `exp(ln y + s·h(f, g, 1))` given the loss `y` now and the rate `lr` (common random numbers).
    pub fn latent_quantile(&self, y: f64, lr: f64, alpha: f64) -> f64 {
        let (mf, sf, mg, sg) = self.latent(y, lr);
        let h = match (self.form, self.link) {
            (LinkForm::Unconstrained, Link::Linear) => mf + sf * norm_quantile(alpha),
            // `-φ(f)` falls as f rises: its α-quantile is at f's (1 - α)-quantile.
            (LinkForm::Paper, Link::Linear) => -softplus(mf + sf * norm_quantile(1.0 - alpha)),
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
    /// the inducing variables of each latent GP once. Returns the paths' values at boundaries `0..=lrs.len()`.
    pub fn sample_paths(&self, lrs: &[f64], start: f64, samples: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
        let nl = self.latent_gps();
        let mut out = Vec::with_capacity(samples);
        for _ in 0..samples.max(1) {
            let v: Vec<_> = (0..nl).map(|l| self.q[l].sample(rng)).collect();
            let mut y = start;
            let mut path = vec![y];
            for &lr in lrs {
                let (b, r) = self.b_of(&self.input(y, lr));
                let mut lat = [0.0; 2];
                for l in 0..nl {
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

    const FORMS: [(LinkForm, Link); 4] = [
        (LinkForm::Paper, Link::Linear),
        (LinkForm::Paper, Link::Exponential),
        (LinkForm::Unconstrained, Link::Linear),
        (LinkForm::Unconstrained, Link::Exponential),
    ];

    fn toy(form: LinkForm, link: Link) -> (Vec<IntervalObs>, ChainedModel) {
        // Increments of the log loss: -0.5 at lr 1e-1, 0 at 1e-3, approaching the asymptote quickly.
        let mut obs = Vec::new();
        for k in 0..12 {
            let lr = powf(10f64, -3.0 + 2.0 * (k % 6) as f64 / 5.0);
            let y = 1.0 + 0.1 * (k / 6) as f64;
            let d = -0.5 * (log10(lr) + 3.0) / 2.0;
            let pts = (1..=4).map(|j| (j as f64 / 4.0, y * exp(d * (1.0 - exp(-4.0 * j as f64 / 4.0))))).collect();
            obs.push(IntervalObs { y_start: y, lr, points: pts, diverged: false });
        }
        let m = ChainedModel::fit(&obs, link, form, [1e-3, 1.0], 8, 400).unwrap();
        (obs, m)
    }

    #[test]
    fn elbo_gradient_matches_finite_differences() {
        for (form, link) in FORMS {
            let (obs, m) = toy(form, link);
            let th = m.parameters();
            let np = th.len();
            let (_, g) = m.elbo_and_gradient(&obs, &th);
            for i in (0..np).step_by(7).chain([np - 2, np - 1]) {
                let h = 1e-6;
                let mut a = th.clone();
                a[i] += h;
                let ea = m.elbo_and_gradient(&obs, &a).0;
                a[i] -= 2.0 * h;
                let eb = m.elbo_and_gradient(&obs, &a).0;
                let fd = (ea - eb) / (2.0 * h);
                assert!((fd - g[i]).abs() <= 1e-4 * (1.0 + fd.abs()), "{form:?} {link:?} param {i}: {} vs {fd}", g[i]);
            }
        }
    }

    #[test]
    fn learns_the_rate_effect_and_orders_quantiles() {
        for (form, link) in FORMS {
            let (_, m) = toy(form, link);
            // Larger rates lower the predicted loss (the law above), quantiles are ordered.
            let lo = m.latent_quantile(1.0, 1e-3, 0.5);
            let hi = m.latent_quantile(1.0, 1e-1, 0.5);
            assert!(hi < 0.8 && (lo - 1.0).abs() < 0.15, "{form:?} {link:?}: {lo} {hi}");
            assert!(m.latent_quantile(1.0, 1e-2, 0.1) < m.latent_quantile(1.0, 1e-2, 0.9));
            assert!(!m.full && m.inducing() == 8);
        }
        // With as many inducing inputs as distinct inputs it is the full variational GP.
        let (obs, _) = toy(LinkForm::Paper, Link::Exponential);
        assert!(ChainedModel::fit(&obs, Link::Exponential, LinkForm::Paper, [1e-3, 1.0], 16, 50).unwrap().full);
    }
}
