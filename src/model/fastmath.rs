//! Fast scalar functions for the targets' hot loops: a vectorisable `exp`, stable sigmoid / softplus, the
//! logistic residuals, fused multiply-add selection and a prefetch hint. (The matrix product, `dot` and `axpy`
//! are in [`crate::linalg`].)

use crate::math::{exp, ln_1p};
pub use crate::math::{exp_fast, sigmoid};

/// `a * b + c`, fused (one rounding) when `FMA`; instantiate with `true` only where the CPU has FMA
/// (elsewhere `mul_add` is a slow software call).
#[inline(always)]
pub fn madd<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// Logistic sigmoid `1 / (1 + exp(-z))` for the hot loops: one division, short dependency chains,
/// no branches or calls (loops over slices auto-vectorise). With `x = -z` clamped to [-708, 709],
/// Cody-Waite reduction `x = k ln2 + r`, |r| <= ln2/2, and the Padé form of Cephes `exp`,
/// `exp(r) = (Q(r^2) + r P(r^2)) / (Q(r^2) - r P(r^2))` (Moshier, Cephes Math Library, `exp.c`):
/// `sigmoid(z) = D / (D + 2^k N)` with `N = Q + r P`, `D = Q - r P` (D > 1.6 on the reduced range).
/// Relative error a few ulp for z >= -700 (tested against `std` exp); exactly 1 for z >= 37; for
/// z < -700 the argument is clamped, giving about 1e-304 (absolute error < 1e-304, never NaN).
/// `FMA` selects fused multiply-adds (see [`madd`]) and replaces the division by Newton steps.
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::manual_clamp)] // Cephes / fdlibm constants; see `exp_fast`
pub fn sigmoid_pade<const FMA: bool>(z: f64) -> f64 {
    const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.93147180369123816490e-01;
    const LN2_LO: f64 = 1.90821492927058770002e-10;
    const P0: f64 = 1.26177193074810590878e-4;
    const P1: f64 = 3.02994407707441961300e-2;
    const P2: f64 = 9.99999999999999999910e-1;
    const Q0: f64 = 3.00198505138664455042e-6;
    const Q1: f64 = 2.52448340349684104192e-3;
    const Q2: f64 = 2.27265548208155028766e-1;
    const Q3: f64 = 2.00000000000000000009e0;
    let x = -z;
    let x = if x < -708.0 {
        -708.0
    } else if x > 700.0 {
        700.0
    } else {
        x
    };
    let t = madd::<FMA>(x, LOG2E, MAGIC);
    let k = t - MAGIC;
    let r = madd::<FMA>(-k, LN2_LO, madd::<FMA>(-k, LN2_HI, x));
    let rr = r * r;
    let p = r * madd::<FMA>(madd::<FMA>(P0, rr, P1), rr, P2);
    let q = madd::<FMA>(madd::<FMA>(madd::<FMA>(Q0, rr, Q1), rr, Q2), rr, Q3);
    let (num, den) = (q + p, q - p);
    let ki = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    let scale = f64::from_bits(((ki + 1023) as u64) << 52); // 2^k, k in [-1021, 1010]
    let d = madd::<FMA>(scale, num, den); // in [1.6, 3e304]
    if FMA {
        // 1/d without a division (whose throughput bounds the scoring loop): initial guess from the
        // exponent bits (relative error < 0.051), then 4 Newton steps y <- y + y (1 - d y), each squaring
        // the error (5e-2, 2.6e-3, 6.5e-6, 4.3e-11, then rounding level ~1.1e-16).
        let mut y = f64::from_bits(0x7FDE_6238_22FC_16E6u64.wrapping_sub(d.to_bits()));
        for _ in 0..4 {
            y = madd::<FMA>(y, madd::<FMA>(-d, y, 1.0), y);
        }
        den * y
    } else {
        den / d
    }
}

/// Hint that the cache line holding `p` will be read soon (x86-64 `prefetcht0`; a no-op elsewhere).
/// Never faults, whatever the address.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and does not access memory architecturally.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `softplus(z) = log(1 + exp(z))`, stable for large |z|.
#[inline]
pub fn softplus(z: f64) -> f64 {
    z.max(0.0) + ln_1p(exp(-z.abs()))
}

/// `log sigmoid(z) = -softplus(-z)`.
#[inline]
pub fn log_sigmoid(z: f64) -> f64 {
    -softplus(-z)
}

/// In place: `r[i] = y[i] - sigmoid(r[i])` (residuals of logistic regression from linear predictors).
/// Dispatches at run time to an AVX-512 or AVX2 build of the same loop on x86-64 (results identical:
/// the loop has no reductions and no fused operations).
#[inline]
pub fn residuals_in_place(y: &[f64], r: &mut [f64]) {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        if x86_has!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { residuals_avx512(y, r) };
            return;
        }
        if x86_has!("avx2", "fma") {
            // SAFETY: the CPU supports the enabled features (checked just above).
            unsafe { residuals_avx2(y, r) };
            return;
        }
    }
    residuals_generic(y, r)
}

#[inline(always)]
fn residuals_generic(y: &[f64], r: &mut [f64]) {
    for (ri, yi) in r.iter_mut().zip(y) {
        *ri = yi - sigmoid_pade::<false>(*ri);
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx2,fma")]
unsafe fn residuals_avx2(y: &[f64], r: &mut [f64]) {
    residuals_generic(y, r)
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx512f")]
unsafe fn residuals_avx512(y: &[f64], r: &mut [f64]) {
    residuals_generic(y, r)
}

/// In place on a row-major `rows x cols` matrix whose column `s` belongs to sample `s`:
/// `z[i, s] = y[i] - sigmoid(z[i, s])`.
#[inline]
pub fn residuals_matrix_in_place(y: &[f64], z: &mut [f64], cols: usize) {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        if x86_has!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { residuals_matrix_avx512(y, z, cols) };
            return;
        }
        if x86_has!("avx2", "fma") {
            // SAFETY: the CPU supports the enabled features (checked just above).
            unsafe { residuals_matrix_avx2(y, z, cols) };
            return;
        }
    }
    residuals_matrix_generic(y, z, cols)
}

#[inline(always)]
fn residuals_matrix_generic(y: &[f64], z: &mut [f64], cols: usize) {
    for (row, yi) in z.chunks_exact_mut(cols).zip(y) {
        let yi = *yi;
        for v in row.iter_mut() {
            *v = yi - sigmoid(*v);
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx2,fma")]
unsafe fn residuals_matrix_avx2(y: &[f64], z: &mut [f64], cols: usize) {
    residuals_matrix_generic(y, z, cols)
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
#[target_feature(enable = "avx512f")]
unsafe fn residuals_matrix_avx512(y: &[f64], z: &mut [f64], cols: usize) {
    residuals_matrix_generic(y, z, cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_fast_matches_std() {
        let mut worst = 0.0f64;
        let mut x = -700.0;
        while x < 700.0 {
            let rel = ((exp_fast(x) - exp(x)) / exp(x)).abs();
            worst = worst.max(rel);
            x += 0.01373;
        }
        assert!(worst < 4e-15, "worst relative error {worst}");
        assert!(exp_fast(-1e6) > 0.0 && exp_fast(1e6).is_finite());
        assert_eq!(exp_fast(0.0), 1.0);
    }

    /// `sigmoid_pade` against `1 / (1 + exp(-z))` with std `exp`, both builds, over a wide range.
    fn check_sigmoid_pade<const FMA: bool>() {
        let reference = |z: f64| 1.0 / (1.0 + exp(-z));
        let mut worst = 0.0f64;
        let mut z = -745.0;
        while z < 745.0 {
            let (a, b) = (sigmoid_pade::<FMA>(z), reference(z));
            if z >= -700.0 {
                worst = worst.max(((a - b) / b).abs());
            } else {
                assert!((a - b).abs() < 1e-304);
            }
            assert!((0.0..=1.0).contains(&a), "sigmoid_pade({z}) = {a}");
            z += 0.000_913_7 * (1.0 + z.abs());
        }
        for z in [-1e-300, 0.0, 1e-300, 1e-10, -1e-10, 0.3466, -0.3466, 36.0, 37.0, -36.0, -40.0] {
            let (a, b) = (sigmoid_pade::<FMA>(z), reference(z));
            worst = worst.max(((a - b) / b).abs());
        }
        assert!(worst < 1e-15, "FMA = {FMA}: worst relative error {worst}");
        assert_eq!(sigmoid_pade::<FMA>(0.0), 0.5);
        for z in [1000.0, 1e6, f64::MAX, 709.5, 745.0] {
            assert_eq!(sigmoid_pade::<FMA>(z), 1.0);
            let s = sigmoid_pade::<FMA>(-z);
            assert!((0.0..1e-303).contains(&s), "sigmoid_pade({}) = {s}", -z);
        }
        eprintln!("sigmoid_pade FMA = {FMA}: worst relative error {worst:e}");
    }

    #[test]
    fn sigmoid_pade_matches_std() {
        check_sigmoid_pade::<false>();
        check_sigmoid_pade::<true>();
    }

    #[test]
    fn sigmoid_and_softplus_are_stable() {
        assert_eq!(sigmoid(-1e4), sigmoid(-1e4).clamp(0.0, 1e-300));
        assert_eq!(sigmoid(1e4), 1.0);
        assert!((sigmoid(0.3) - 1.0 / (1.0 + exp(-0.3f64))).abs() < 1e-16);
        assert!((softplus(800.0) - 800.0).abs() < 1e-12);
        assert!(softplus(-800.0) >= 0.0 && softplus(-800.0) < 1e-300);
        assert!((log_sigmoid(-800.0) + 800.0).abs() < 1e-12);
        let mut r = vec![2.0, -3.0, 0.0];
        residuals_in_place(&[1.0, 0.0, 1.0], &mut r);
        assert!((r[0] - (1.0 - 1.0 / (1.0 + exp(-2.0f64)))).abs() < 1e-15);
        assert!((r[1] + 1.0 / (1.0 + exp(3.0f64))).abs() < 1e-15);
        assert_eq!(r[2], 0.5);
    }
}
