//! The links of the learning-rate trace model (issue 25; Picheny et al. 2020, Sec. 2.1, eqs. 2-3): the ELBO's
//! analytic gradients against finite differences in every form, the paper's exponential link predicting
//! one-signed (monotone) increments where the unconstrained form does not, and the paper's linear link with one
//! latent GP.

use tunelab::experiments::lr_schedule::{ChainedModel, IntervalObs, Link, LinkForm};

const FORMS: [(LinkForm, Link); 4] = [
    (LinkForm::Paper, Link::Linear),
    (LinkForm::Paper, Link::Exponential),
    (LinkForm::Unconstrained, Link::Linear),
    (LinkForm::Unconstrained, Link::Exponential),
];

/// Intervals whose log loss falls at middle rates and rises at the largest ones (an unstable rate that did
/// not diverge), approaching its end value exponentially within the interval.
fn traces() -> Vec<IntervalObs> {
    let mut obs = Vec::new();
    for k in 0..16 {
        let l = -3.0 + 3.0 * (k % 8) as f64 / 7.0;
        let lr = 10f64.powf(l);
        let y = 1.0 + 0.15 * (k / 8) as f64;
        // log-loss change over the interval: -0.6 near lr 10^-1.2, +0.3 at lr 1
        let d = -0.6 * (-(l + 1.2) * (l + 1.2)).exp() + if l > -0.3 { 0.3 } else { 0.0 } + 0.02 * (k as f64).sin();
        let pts = (1..=4).map(|j| (j as f64 / 4.0, y * (d * (1.0 - (-3.0 * j as f64 / 4.0).exp())).exp())).collect();
        obs.push(IntervalObs { y_start: y, lr, points: pts, diverged: false });
    }
    obs
}

#[test]
fn elbo_gradients_match_finite_differences_in_every_link_form() {
    let obs = traces();
    for (form, link) in FORMS {
        let m = ChainedModel::fit(&obs, link, form, [1e-3, 1.0], 6, 150).unwrap();
        let fitted = m.parameters();
        // At the fitted parameters and at a perturbed point (every coordinate moved).
        let moved: Vec<f64> = fitted.iter().enumerate().map(|(i, v)| v + 0.05 * ((i as f64) * 1.7).sin()).collect();
        for th in [fitted, moved] {
            let (_, g) = m.elbo_and_gradient(&obs, &th);
            assert_eq!(g.len(), m.n_params());
            for (i, &gi) in g.iter().enumerate() {
                let fd = crate::common::fd::partial(|a| m.elbo_and_gradient(&obs, a).0, &th, i, 1e-6);
                assert!((fd - gi).abs() <= 1e-5 * (1.0 + fd.abs()), "{form:?} {link:?} parameter {i}: {gi} vs {fd}");
            }
        }
    }
}

/// The largest predicted noise-free increment of the log loss over a grid of states, rates and fractions of
/// the interval, and whether every draw's path within the interval is non-increasing in τ.
fn largest_increment(m: &ChainedModel) -> (f64, bool) {
    let (mut most, mut monotone) = (f64::NEG_INFINITY, true);
    for y in [0.5, 1.0, 1.2, 2.0] {
        for i in 0..13 {
            let lr = 10f64.powf(-3.0 + 0.25 * i as f64);
            let at: Vec<Vec<f64>> = [0.25, 0.5, 0.75, 1.0].iter().map(|&t| m.increment_draws(y, lr, t)).collect();
            most = at.iter().flatten().fold(most, |a, &b| a.max(b));
            monotone &= at.windows(2).all(|w| w[0].iter().zip(&w[1]).all(|(a, b)| b <= a));
        }
    }
    (most, monotone)
}

#[test]
fn paper_exponential_link_predicts_one_signed_increments() {
    let obs = traces();
    // Eq. 3 with the softplus: every draw of the increment is <= 0 (the loss can only fall; the paper's rising
    // objective with the sign turned) and the trace falls monotonically within the interval.
    let m = ChainedModel::fit(&obs, Link::Exponential, LinkForm::Paper, [1e-3, 1.0], 8, 300).unwrap();
    let (most, monotone) = largest_increment(&m);
    assert!(most <= 0.0 && monotone, "largest increment {most}, monotone {monotone}");
    for lr in [1e-3, 0.05, 1.0] {
        assert!(m.latent_quantile(1.0, lr, 1.0) <= 1.0, "lr {lr}");
    }
    // The large rates still predict the smallest fall (the rise in the data is the noise's to explain).
    assert!(m.latent_quantile(1.0, 1.0, 0.5) > m.latent_quantile(1.0, 0.06, 0.5));
    // The unconstrained form on the same data predicts rises at the large rates: the check above can fail.
    let u = ChainedModel::fit(&obs, Link::Exponential, LinkForm::Unconstrained, [1e-3, 1.0], 8, 300).unwrap();
    assert!(largest_increment(&u).0 > 0.05, "{}", largest_increment(&u).0);
}

#[test]
fn paper_linear_link_has_one_latent_gp() {
    let obs = traces();
    let m = ChainedModel::fit(&obs, Link::Linear, LinkForm::Paper, [1e-3, 1.0], 8, 200).unwrap();
    let mm = m.inducing();
    // Eq. 2: φ(f_1) t, one GP and the constant noise variance: q(v_f) and log σ² are all the parameters.
    assert_eq!(m.latent_gps(), 1);
    assert_eq!(m.n_params(), mm + mm * mm + 1);
    assert_eq!(m.parameters().len(), m.n_params());
    let (_, _, mg, sg) = m.latent(1.0, 0.05);
    assert_eq!((mg, sg), (0.0, 0.0));
    // Linear in τ and one-signed.
    for lr in [1e-3, 0.05, 1.0] {
        let (half, full) = (m.increment_draws(1.0, lr, 0.5), m.increment_draws(1.0, lr, 1.0));
        assert!(half.iter().zip(&full).all(|(a, b)| *b <= 0.0 && (2.0 * a - b).abs() <= 1e-12 * b.abs().max(1.0)));
    }
    // The unconstrained linear link is a chained heteroscedastic GP: two GPs, the offset and the noise.
    let u = ChainedModel::fit(&obs, Link::Linear, LinkForm::Unconstrained, [1e-3, 1.0], 8, 200).unwrap();
    assert_eq!((u.latent_gps(), u.n_params()), (2, 2 * (mm + mm * mm) + 2));
}

#[test]
fn the_dynamic_tuner_runs_with_either_link_form_and_says_which() {
    use std::sync::atomic::AtomicBool;
    use tunelab::experiments::lr_schedule::{LrConfig, LrExperiment};
    let mut c = LrConfig::preset("noisy-quadratic").unwrap();
    assert_eq!(c.dynamic.link_form, LinkForm::Unconstrained, "the default (measured better on seeds 6-8)");
    (c.intervals, c.constant, c.decay_starts, c.decay_factors, c.seed) = (5, 2, 1, vec![0.1], 3);
    c.dynamic.band_samples = 20;
    for (form, label) in [(LinkForm::Paper, true), (LinkForm::Unconstrained, false)] {
        c.dynamic.link_form = form;
        let r = crate::common::contract::run::<LrExperiment>(c.clone(), None, |_| {}, &AtomicBool::new(false)).unwrap();
        let det = r.dynamic.as_ref().unwrap();
        assert_eq!(det.model.ends_with("(softplus, eq. 3)"), label, "{form:?}: {}", det.model);
        let dynamic = r.methods.iter().find(|m| m.family == "dynamic").unwrap();
        assert!(dynamic.final_loss < 0.2 * dynamic.trace[0].loss, "{form:?}: {}", dynamic.final_loss);
        // The paper's one-decade limit on a change of the rate (Sec. 3.2).
        for (k, dec) in det.decisions.iter().enumerate() {
            assert!(dec.lrs.iter().all(|l| (l / dynamic.schedule[k]).log10().abs() <= 1.0 + 1e-9));
        }
    }
}
