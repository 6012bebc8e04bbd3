//! Transcendental functions that give the same bits in every build.
//!
//! `f64::exp`, `f64::ln`, `f64::powf` and friends call the platform's C library natively (glibc on Linux)
//! but the `libm` crate (a port of musl's algorithms) on wasm32. The two differ in the last bit for a few
//! inputs, and an iterative method such as HOAG or the learning-rate tuner amplifies one ulp into a different
//! report. The core therefore calls these wrappers, which use `libm` in every build, so a config and seed give
//! the same report natively, in single-threaded wasm and in threaded wasm. `sqrt`, `abs`, `floor`, `powi` and
//! the arithmetic operators are exact (IEEE 754) or pure Rust everywhere and stay as they are.
//! `tests/core/numerics/math_calls.rs` refuses new uses of the std methods in `src/`.

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

