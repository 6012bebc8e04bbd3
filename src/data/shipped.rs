//! The small real data sets shipped in `data/` (scikit-learn's digits, breast cancer, wine and diabetes; see
//! `data/README.md`). Native builds compile them in; the wasm build does not (113 KB of the bundle's gzip, issue
//! 26): the page's worker fetches the files a config needs from the site ([`Shipped::file`], listed by
//! `ExperimentConfig::shipped`) and installs them ([`install`]) before the run, as it does the MNIST digits.
//! Every read is also recorded ([`used`]) so that a test can check that each config names what it reads.

use super::{parse_csv, CsvOptions, Dataset};
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU8, Ordering};

/// A shipped data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shipped {
    /// The 8x8 handwritten digits (1,797 images, 64 pixel features `p0..p63` with values 0..16, label `y` in
    /// 0..9; UCI optdigits test set).
    Digits,
    /// UCI Breast Cancer Wisconsin (Diagnostic): 569 rows, 30 features, label `y` 0 = malignant, 1 = benign.
    BreastCancer,
    /// UCI Wine: 178 rows, 13 features, label `y` = cultivar 0..2.
    Wine,
    /// Diabetes, unscaled (Efron et al. 2004): 442 rows, 10 features, label `y` = progression after a year.
    Diabetes,
}

impl Shipped {
    pub const ALL: [Shipped; 4] = [Shipped::Digits, Shipped::BreastCancer, Shipped::Wine, Shipped::Diabetes];

    /// Its file in `data/` (and in the built site's `data/`).
    pub fn file(self) -> &'static str {
        match self {
            Shipped::Digits => "digits8x8.csv",
            Shipped::BreastCancer => "breast_cancer.csv",
            Shipped::Wine => "wine.csv",
            Shipped::Diabetes => "diabetes.csv",
        }
    }

    /// The data set of a file name (`digits8x8.csv`, ...).
    pub fn from_file(name: &str) -> Option<Shipped> {
        Shipped::ALL.into_iter().find(|s| s.file() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Its rows, parsed (not standardised). In the wasm build an error until [`install`]ed.
    pub fn dataset(self) -> Result<Dataset> {
        USED.fetch_or(self.bit(), Ordering::Relaxed);
        let text = text(self)?;
        // The shipped files are checked by tests (tests/core/numerics/data_sets.rs) and an installed text when it
        // is installed: parsing cannot fail here, but a failure would still be an error, not a panic.
        parse_csv(text, &CsvOptions::default())
    }
}

static USED: AtomicU8 = AtomicU8::new(0);

/// The data sets read since the last [`reset_used`] (for the test that every config names what it reads).
pub fn used() -> Vec<Shipped> {
    let bits = USED.load(Ordering::Relaxed);
    Shipped::ALL.into_iter().filter(|s| bits & s.bit() != 0).collect()
}

/// Forgets which data sets were read.
pub fn reset_used() {
    USED.store(0, Ordering::Relaxed);
}

#[cfg(not(target_arch = "wasm32"))]
fn text(s: Shipped) -> Result<&'static str> {
    Ok(match s {
        Shipped::Digits => include_str!("../../data/digits8x8.csv"),
        Shipped::BreastCancer => include_str!("../../data/breast_cancer.csv"),
        Shipped::Wine => include_str!("../../data/wine.csv"),
        Shipped::Diabetes => include_str!("../../data/diabetes.csv"),
    })
}

#[cfg(target_arch = "wasm32")]
static INSTALLED: [std::sync::OnceLock<String>; 4] = [const { std::sync::OnceLock::new() }; 4];

#[cfg(target_arch = "wasm32")]
fn text(s: Shipped) -> Result<&'static str> {
    INSTALLED[s as usize].get().map(String::as_str).ok_or_else(|| {
        Error::Data(format!(
            "the data set {} is not loaded: the page's worker fetches it before a run that needs it",
            s.file()
        ))
    })
}

/// True when `s` can be read without installing it (always natively).
pub fn installed(s: Shipped) -> bool {
    #[cfg(target_arch = "wasm32")]
    return INSTALLED[s as usize].get().is_some();
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = s;
        true
    }
}

/// Installs the text of a shipped file (the wasm build; natively the compiled-in copy is kept and this only
/// checks the text). The text must parse as a CSV with a `y` column; installing twice keeps the first.
pub fn install(file: &str, text: String) -> Result<Shipped> {
    let s = Shipped::from_file(file).ok_or_else(|| {
        Error::config(format!(
            "unknown shipped data file {file} (known: {})",
            Shipped::ALL.map(Shipped::file).join(", ")
        ))
    })?;
    let ds = parse_csv(&text, &CsvOptions::default()).map_err(|e| Error::Data(format!("{file}: {e}")))?;
    if ds.y.is_empty() {
        return Err(Error::Data(format!("{file}: no rows")));
    }
    #[cfg(target_arch = "wasm32")]
    let _ = INSTALLED[s as usize].set(text);
    #[cfg(not(target_arch = "wasm32"))]
    drop(text);
    Ok(s)
}
