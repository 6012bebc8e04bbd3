//! Arbitrary bytes -> (n, d, samples, scores, locations) with NaN, infinities, huge and tiny values ->
//! `stein::ksd` with every estimator and kernel scale, and `stein::fssd` / `fssd_power` with both kernels:
//! errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::stein::{fssd, fssd_power, ksd, Estimator, FssdKernel, KernelScale, KsdOptions};

/// Reads values from the bytes: a tag byte picks a special value or a number (the next 8 bytes as f64).
struct Values<'a>(&'a [u8]);

impl Values<'_> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map(|(b, r)| (*b, r)).unwrap_or((0, &[]));
        self.0 = rest;
        b
    }
    fn value(&mut self) -> f64 {
        match self.byte() % 16 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => 1e300,
            6 => -1e300,
            7 => 1e-300,
            8 => f64::MIN_POSITIVE / 4.0, // subnormal
            9 => {
                let mut b = [0u8; 8];
                for x in &mut b {
                    *x = self.byte();
                }
                f64::from_le_bytes(b)
            }
            t => (self.byte() as i8 as f64) / 16.0 + t as f64 * 1e-3,
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    let mut v = Values(bytes);
    let d = 1 + (v.byte() % 6) as usize;
    let n = (v.byte() % 40) as usize;
    let j = (v.byte() % 4) as usize;
    // Occasionally a ragged length (not a multiple of d) or mismatched scores.
    let ragged = v.byte();
    let mut samples: Vec<f64> = (0..n * d).map(|_| v.value()).collect();
    let mut scores: Vec<f64> = (0..n * d).map(|_| v.value()).collect();
    let locations: Vec<f64> = (0..j * d).map(|_| v.value()).collect();
    match ragged % 8 {
        0 => samples.push(1.0),
        1 => {
            scores.pop();
        }
        _ => {}
    }
    let (c, beta) = (v.value(), v.value());
    for scale in [KernelScale::Fixed, KernelScale::Median, KernelScale::MedianPrecond] {
        for estimator in [Estimator::V, Estimator::U, Estimator::Linear] {
            for (c, beta) in [(1.0, -0.5), (c, beta)] {
                let opts = KsdOptions { c, beta, scale, estimator };
                if let Ok(k) = ksd(&samples, &scores, d, &opts) {
                    assert!(k.ksd_sq.is_finite(), "ksd returned a non-finite value as a success: {k:?}");
                }
            }
        }
    }
    let sigma2 = v.value();
    for kernel in [
        FssdKernel::Gauss { sigma2: 1.0 },
        FssdKernel::Gauss { sigma2 },
        FssdKernel::Imq { c: 1.0, beta: -0.5 },
        FssdKernel::Imq { c, beta },
    ] {
        if let Ok(f) = fssd(&samples, &scores, d, &locations, &kernel) {
            assert!(f.fssd_sq.is_finite() && f.fssd_sq_u.is_finite());
        }
        let _ = fssd_power(&samples, &scores, d, &locations, &kernel, 1e-6);
    }
});
