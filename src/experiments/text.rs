//! Plain-text helpers of the kinds' terminal text (each kind's `text.rs`: progress messages and the table a
//! complete run prints, [`super::Experiment::message`] and [`super::Experiment::table`]).

/// Appends one formatted line to a `String` (writing to a `String` cannot fail).
macro_rules! row {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}
pub(crate) use row;

/// `1 arm`, `3 arms`.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// `12` or `3.4`: progress counts are whole numbers for most kinds, fractions for some.
pub fn count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x}")
    } else {
        format!("{x:.1}")
    }
}

/// An optional number with `prec` decimals, `-` for none.
pub fn opt(v: Option<f64>, prec: usize) -> String {
    v.map(|x| format!("{x:.prec$}")).unwrap_or_else(|| "-".into())
}

/// Rounds to `digits` decimals (for short vectors in a table).
pub fn rounded(v: &[f64], digits: i32) -> Vec<f64> {
    let s = 10f64.powi(digits);
    v.iter().map(|a| (a * s).round() / s).collect()
}
