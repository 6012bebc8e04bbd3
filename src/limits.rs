//! The stated limits of tunelab, checked up front with a message that gives the number (README, "Limits").
//!
//! - **Data files** (CSV uploads and `--data` files, [`crate::data::parse_csv`]): at most [`MAX_CSV_BYTES`]
//!   bytes, [`MAX_ROWS`] data rows, [`MAX_COLUMNS`] columns and [`MAX_CELLS`] numbers in all.
//! - **Classes** of a classifier: at most [`MAX_CLASSES`].
//! - **Arms** of a tuner (grid, MAMBA, random search): at most [`MAX_ARMS`], refused by `check`.
//! - **Budget**: the budget a whole tune run plans (every arm of every round, in the config's unit) is at most
//!   [`MAX_TOTAL_GRAD_EVALS`] gradient evaluations, [`MAX_TOTAL_ITERATIONS`] iterations or
//!   [`MAX_TOTAL_SECONDS`] seconds (a day), refused by `check`.
//! - **Memory**: a config whose estimated memory ([`MemoryEstimate`]) exceeds [`MAX_MEMORY_BYTES`] is refused
//!   by `check` (and, for data known only when the file arrives, before the run builds anything).

use crate::error::{Error, Result};

/// Largest data file accepted (bytes): 100 MiB.
pub const MAX_CSV_BYTES: usize = 100 * 1024 * 1024;
/// Most data rows of a data file (after the header).
pub const MAX_ROWS: usize = 1_000_000;
/// Most columns of a data file (features plus the label).
pub const MAX_COLUMNS: usize = 10_000;
/// Most numbers (rows x columns) of a data file: 5e7, 400 MB of f64 (the simulated-data limit too).
pub const MAX_CELLS: usize = 50_000_000;
/// Most classes of a classifier (BNN, the learning-rate classifiers): guards against a regression column
/// used as class labels.
pub const MAX_CLASSES: usize = 1000;
/// Most arms of a tuner.
pub const MAX_ARMS: usize = 10_000;
/// Most gradient evaluations (per data point) a tune run may plan over all its arms and rounds.
pub const MAX_TOTAL_GRAD_EVALS: f64 = 1e12;
/// Most sampler iterations a tune run may plan over all its arms and rounds.
pub const MAX_TOTAL_ITERATIONS: f64 = 1e10;
/// Most seconds a tune run may plan over all its arms and rounds (one day).
pub const MAX_TOTAL_SECONDS: f64 = 86_400.0;
/// Largest memory estimate of a config accepted: 2 GiB (a wasm32 page has at most 4 GiB).
pub const MAX_MEMORY_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

/// Formats a count with thousands separators (`1,000,000`).
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn mib(bytes: f64) -> String {
    format!("{:.0} MiB", bytes / (1024.0 * 1024.0))
}

/// Refuses a data file larger than [`MAX_CSV_BYTES`] (before parsing it).
pub fn check_csv_bytes(len: usize) -> Result<()> {
    if len > MAX_CSV_BYTES {
        return Err(Error::data(format!(
            "the file has {} bytes; data files are limited to {} bytes ({})",
            thousands(len),
            thousands(MAX_CSV_BYTES),
            mib(MAX_CSV_BYTES as f64)
        )));
    }
    Ok(())
}

/// Refuses a data file with more than [`MAX_ROWS`] rows, [`MAX_COLUMNS`] columns or [`MAX_CELLS`] numbers.
pub fn check_csv_shape(rows: usize, columns: usize) -> Result<()> {
    if rows > MAX_ROWS {
        return Err(Error::data(format!(
            "the file has {} data rows; data files are limited to {} rows",
            thousands(rows),
            thousands(MAX_ROWS)
        )));
    }
    if columns > MAX_COLUMNS {
        return Err(Error::data(format!(
            "the file has {} columns; data files are limited to {} columns",
            thousands(columns),
            thousands(MAX_COLUMNS)
        )));
    }
    if rows.saturating_mul(columns) > MAX_CELLS {
        return Err(Error::data(format!(
            "the file has {} rows x {} columns = {} numbers; data files are limited to {} numbers",
            thousands(rows),
            thousands(columns),
            thousands(rows.saturating_mul(columns)),
            thousands(MAX_CELLS)
        )));
    }
    Ok(())
}

/// Refuses more than [`MAX_ARMS`] arms.
pub fn check_arms(arms: usize) -> Result<()> {
    if arms > MAX_ARMS {
        return Err(Error::config(format!(
            "the tuner has {} arms; at most {} arms are allowed (use a coarser grid)",
            thousands(arms),
            thousands(MAX_ARMS)
        )));
    }
    Ok(())
}

/// Refuses a planned total budget over the limit of its unit (`unit`: "grad-evals", "iterations", "seconds").
pub fn check_total_budget(unit: &str, total: f64) -> Result<()> {
    let (limit, what) = match unit {
        "seconds" => (MAX_TOTAL_SECONDS, "86,400 seconds (one day)"),
        "iterations" => (MAX_TOTAL_ITERATIONS, "1e10 iterations"),
        _ => (MAX_TOTAL_GRAD_EVALS, "1e12 gradient evaluations"),
    };
    if !(total <= limit) {
        return Err(Error::config(format!(
            "the run plans {total:.3e} {unit} over all arms and rounds; a run may plan at most {what} \
             (lower the budget or the number of arms)"
        )));
    }
    Ok(())
}

/// A simple estimate of the memory a run needs, by part (bytes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryEstimate {
    /// `(what, bytes)` for each part counted.
    pub parts: Vec<(String, f64)>,
}

impl MemoryEstimate {
    pub fn add(&mut self, what: impl Into<String>, bytes: f64) {
        self.parts.push((what.into(), bytes));
    }
    pub fn total(&self) -> f64 {
        self.parts.iter().map(|(_, b)| b).sum()
    }
    /// Refuses an estimate over [`MAX_MEMORY_BYTES`], naming the largest part.
    pub fn check(&self) -> Result<()> {
        let total = self.total();
        if !(total <= MAX_MEMORY_BYTES) {
            let (what, bytes) =
                self.parts.iter().max_by(|a, b| a.1.total_cmp(&b.1)).cloned().unwrap_or_else(|| ("?".into(), total));
            return Err(Error::config(format!(
                "this run would need about {} of memory (largest part: {what}, {}); the limit is {} \
                 (lower the data size, the number of arms or the budget, or raise `thin`)",
                mib(total),
                mib(bytes),
                mib(MAX_MEMORY_BYTES)
            )));
        }
        Ok(())
    }
}

/// Most floats a saved store of a checkpoint may reserve ([`MAX_MEMORY_BYTES`] of f64).
pub const MAX_SAVED_FLOATS: usize = (MAX_MEMORY_BYTES / 8.0) as usize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }
}
