//! Calibration of a classifier's posterior predictive (the paper's Table 3, section 4.3): expected and maximum
//! calibration error and accuracy on a held-out set.
//!
//! Guo, Pleiss, Sun & Weinberger (2017), "On calibration of modern neural networks", eqs. 3 and 5: the
//! predictive `p(y | x) = (1/S) sum_s p(y | x, theta_s)` gives each test point a prediction `argmax_y p` and a
//! confidence `max_y p`; the points are put in `M` equal-width confidence bins `((m-1)/M, m/M]` and
//! `ECE = sum_m (|B_m| / n) |acc(B_m) - conf(B_m)|`, `MCE = max_m |acc(B_m) - conf(B_m)|` over non-empty bins.

use crate::error::{Error, Result};
use crate::model::Target;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Confidence bins of the reported ECE / MCE (Guo et al. 2017 use 15; the paper does not state its count).
pub const BINS: usize = 10;
/// At most this many (evenly thinned) samples enter the predictive.
pub const MAX_SAMPLES: usize = 100;

/// Calibration and accuracy of a posterior predictive on a labelled set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Expected calibration error (in 0..1).
    pub ece: f64,
    /// Maximum calibration error over non-empty bins (in 0..1).
    pub mce: f64,
    /// Share of points whose predicted class is the label.
    pub accuracy: f64,
    /// Equal-width confidence bins.
    pub bins: usize,
    /// Points evaluated.
    pub n: usize,
    /// Posterior samples averaged.
    pub samples: usize,
}

/// ECE, MCE and accuracy of predictive class probabilities `probs` (`n x k`, row-major, rows summing to 1)
/// against `labels`, with `bins` equal-width confidence bins.
pub fn calibration(probs: &[f64], labels: &[usize], k: usize, bins: usize) -> Result<Calibration> {
    if k < 2 || bins == 0 {
        return Err(Error::config("calibration needs at least 2 classes and 1 bin"));
    }
    let n = labels.len();
    if probs.len() != n * k || n == 0 {
        return Err(Error::data(format!("calibration: {} probabilities for {n} points of {k} classes", probs.len())));
    }
    let mut count = vec![0usize; bins];
    let mut correct = vec![0usize; bins];
    let mut conf = vec![0.0; bins];
    for (row, &y) in probs.chunks_exact(k).zip(labels) {
        if row.iter().any(|p| !p.is_finite()) {
            return Err(Error::numerical("calibration: a predictive probability is not finite"));
        }
        // First maximum: ties go to the smaller class index.
        let (pred, &c) =
            row.iter().enumerate().fold((0, &row[0]), |best, (i, p)| if *p > *best.1 { (i, p) } else { best });
        // Bin m holds confidences in ((m-1)/M, m/M]; a confidence of 0 goes to the first bin.
        let b = ((c * bins as f64).ceil() as usize).clamp(1, bins) - 1;
        count[b] += 1;
        conf[b] += c;
        correct[b] += usize::from(pred == y);
    }
    let mut ece = 0.0;
    let mut mce: f64 = 0.0;
    for b in 0..bins {
        if count[b] == 0 {
            continue;
        }
        let m = count[b] as f64;
        let gap = (correct[b] as f64 / m - conf[b] / m).abs();
        ece += m / n as f64 * gap;
        mce = mce.max(gap);
    }
    let accuracy = correct.iter().sum::<usize>() as f64 / n as f64;
    Ok(Calibration { ece, mce, accuracy, bins, n, samples: 0 })
}

/// Calibration of the posterior predictive of `samples` (row-major, `test.dim()` columns; at most
/// [`MAX_SAMPLES`] evenly thinned rows are averaged) on the classifier target `test`. Deterministic: the
/// samples are summed in a fixed order whatever the thread count.
pub fn predictive_calibration(test: &dyn Target, samples: &[f64], bins: usize) -> Result<Calibration> {
    let k = test.n_classes();
    if k < 2 {
        return Err(Error::config("calibration needs a classifier (logistic or bnn)"));
    }
    let d = test.dim();
    let x = super::metric::thin_rows(samples, d, MAX_SAMPLES);
    let s = x.len() / d;
    if s == 0 {
        return Err(Error::data("calibration needs at least one sample"));
    }
    let n = test.n_data();
    // Per sample: the n x k class probabilities (batched), in parallel; summed in sample order.
    let parts: Vec<Vec<f64>> = x
        .par_chunks_exact(d)
        .map(|t| {
            let mut p = vec![0.0; n * k];
            test.class_probs_all(t, &mut p);
            p
        })
        .collect();
    let mut probs = vec![0.0; n * k];
    for p in &parts {
        for (a, b) in probs.iter_mut().zip(p) {
            *a += b;
        }
    }
    probs.iter_mut().for_each(|v| *v /= s as f64);
    let labels: Vec<usize> = (0..n).map(|i| test.label(i)).collect();
    let mut c = calibration(&probs, &labels, k, bins)?;
    c.samples = s;
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_ece_mce_accuracy() {
        // Four points, two classes, 10 bins.
        // conf 0.9 (bin 9) correct; conf 0.9 (bin 9) wrong; conf 0.6 (bin 6) correct; conf 0.55 (bin 6) wrong.
        let probs = [0.9, 0.1, 0.1, 0.9, 0.4, 0.6, 0.55, 0.45];
        let labels = [0, 0, 1, 1];
        let c = calibration(&probs, &labels, 2, 10).unwrap();
        // bin (0.8, 0.9]: acc 1/2, conf 0.9, gap 0.4; bin (0.5, 0.6]: acc 1/2, conf 0.575, gap 0.075.
        assert!((c.ece - (0.5 * 0.4 + 0.5 * 0.075)).abs() < 1e-12, "{c:?}");
        assert!((c.mce - 0.4).abs() < 1e-12);
        assert!((c.accuracy - 0.5).abs() < 1e-12);
    }

    #[test]
    fn perfectly_calibrated_and_bin_edges() {
        // Confidence exactly 1 and right: no error. Confidence 0.5 sits in bin (0.4, 0.5].
        let c = calibration(&[1.0, 0.0, 0.0, 1.0], &[0, 1], 2, 10).unwrap();
        assert_eq!((c.ece, c.mce, c.accuracy), (0.0, 0.0, 1.0));
        // Two points at confidence 0.5 (ties go to class 0), one right: acc 0.5 = conf 0.5.
        let c = calibration(&[0.5, 0.5, 0.5, 0.5], &[0, 1], 2, 10).unwrap();
        assert!(c.ece.abs() < 1e-12 && c.mce.abs() < 1e-12 && (c.accuracy - 0.5).abs() < 1e-12);
        // One bin: ECE = |accuracy - mean confidence|.
        let c = calibration(&[0.7, 0.3, 0.2, 0.8, 0.6, 0.4], &[0, 0, 0], 2, 1).unwrap();
        assert!((c.ece - ((2.0 / 3.0) - (0.7 + 0.8 + 0.6) / 3.0f64).abs()).abs() < 1e-12);
        assert_eq!(c.ece, c.mce);
    }

    #[test]
    fn typed_errors() {
        assert!(calibration(&[0.5; 3], &[0, 1], 2, 10).is_err());
        assert!(calibration(&[f64::NAN, 0.5], &[0], 2, 10).is_err());
        assert!(calibration(&[1.0], &[0], 1, 10).is_err());
    }
}
