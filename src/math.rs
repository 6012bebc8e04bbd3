//! Transcendental functions that give the same bits in every build.
//!
//! `f64::exp`, `f64::ln`, `f64::powf` and friends call the platform's C library natively (glibc on Linux)
//! but the `libm` crate (a port of musl's algorithms) on wasm32. The two differ in the last bit for a few
//! inputs, and an iterative method such as HOAG or the learning-rate tuner amplifies one ulp into a different
//! report. The core therefore calls these wrappers, which use `libm` in every build, so a config and seed give
//! the same report natively, in single-threaded wasm and in threaded wasm. `sqrt`, `abs`, `floor`, `powi` and
//! the arithmetic operators are exact (IEEE 754) or pure Rust everywhere and stay as they are.
//! `tests/core/numerics/math_calls.rs` refuses new uses of the std methods in `src/`. [`exp_fast`] and
//! [`sigmoid`] are pure arithmetic (same bits everywhere too) for the hot loops of the targets and simulators.

/// e^x.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// Natural logarithm.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// ln(1 + x), accurate near 0.
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    libm::log1p(x)
}

/// e^x - 1, accurate near 0.
#[inline]
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// x^y.
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Base-10 logarithm.
#[inline]
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// Base-2 logarithm.
#[inline]
pub fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// Sine.
#[inline]
pub fn sin(x: f64) -> f64 {
    libm::sin(x)
}

/// Cosine.
#[inline]
pub fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// Hyperbolic tangent.
#[inline]
pub fn tanh(x: f64) -> f64 {
    libm::tanh(x)
}

/// The logistic function 1 / (1 + e^-u) in the form that never overflows (e^-|u| only), through [`exp`].
#[inline]
pub fn logistic(u: f64) -> f64 {
    if u >= 0.0 {
        1.0 / (1.0 + exp(-u))
    } else {
        let e = exp(u);
        e / (1.0 + e)
    }
}

/// `exp(x)` for the hot loops (the targets' gradients, the data simulators), to about 1 ulp for `x` in
/// [-708, 709] (clamped outside, so never inf/0 from overflow of the argument reduction), written without branches or calls so that loops over slices auto-vectorise.
/// Cody-Waite reduction `x = k ln2 + r`, |r| <= ln2/2, degree-12 Taylor polynomial for `exp(r)`
/// (truncation error < 2e-16 relative), and `2^k` built from the exponent bits.
#[inline(always)]
#[allow(clippy::excessive_precision, clippy::manual_clamp)] // fdlibm constants; `clamp` would change NaN handling in codegen
pub fn exp_fast(x: f64) -> f64 {
    const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.93147180369123816490e-01;
    const LN2_LO: f64 = 1.90821492927058770002e-10;
    let x = if x < -708.0 {
        -708.0
    } else if x > 709.0 {
        709.0
    } else {
        x
    };
    let t = x * LOG2E + MAGIC;
    let k = t - MAGIC;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    let ki = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    p * f64::from_bits(((ki + 1023) as u64) << 52)
}

/// Logistic sigmoid `1 / (1 + exp(-z))`, finite and in [0, 1] for every finite `z`.
#[inline(always)]
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + exp_fast(-z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std_to_an_ulp_or_two() {
        for &x in &[-700.0, -3.5, -1e-9, 0.0, 1e-12, 0.3, 1.0, 2.5, 40.0, 700.0] {
            let close = |a: f64, b: f64| a == b || ((a - b) / b).abs() < 1e-15;
            assert!(close(exp(x), x.exp()), "exp({x})");
            assert!(close(exp_m1(x), x.exp_m1()), "exp_m1({x})");
            assert!(close(sin(x), x.sin()) || (sin(x) - x.sin()).abs() < 1e-15, "sin({x})");
            assert!(close(cos(x), x.cos()) || (cos(x) - x.cos()).abs() < 1e-15, "cos({x})");
            assert!(close(tanh(x), x.tanh()), "tanh({x})");
            if x > 0.0 {
                assert!(close(ln(x), x.ln()), "ln({x})");
                assert!(close(log10(x), x.log10()), "log10({x})");
                assert!(close(log2(x), x.log2()), "log2({x})");
                assert!(close(powf(x, -0.5), x.powf(-0.5)), "powf({x})");
            }
            if x > -1.0 {
                assert!(close(ln_1p(x), x.ln_1p()), "ln_1p({x})");
            }
        }
        assert!(ln(-1.0).is_nan() && ln(0.0) == f64::NEG_INFINITY && exp(f64::NAN).is_nan());
    }
}
