//! HOAG's data: the built-in simulators and digits, the data a run uses, and the bilevel problem built from
//! them (seeded shuffle in thirds, standardisation and label recoding by [`crate::data`]).

use super::problems::{Bilevel, KernelRidgeBilevel, LogisticBilevel, Split};
use super::{HoagConfig, HoagData, ProblemKind};
use crate::data::Dataset;
use crate::math::{exp, sin};
use crate::rng::{stream, Rng};
use crate::{Error, Result};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use std::borrow::Cow;

fn simulate(problem: ProblemKind, n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng: Rng = stream(seed, 0x484f_4147);
    let x: Vec<f64> = (0..n * d).map(|_| StandardNormal.sample(&mut rng)).collect();
    let y = match problem {
        ProblemKind::Logreg | ProblemKind::LogregPerFeature => {
            let w: Vec<f64> = (0..d)
                .map(|_| {
                    let e: f64 = StandardNormal.sample(&mut rng);
                    3.0 / (d as f64).sqrt() * e
                })
                .collect();
            (0..n)
                .map(|i| {
                    let t: f64 = x[i * d..(i + 1) * d].iter().zip(&w).map(|(a, b)| a * b).sum();
                    let u: f64 = rng.random();
                    if u < 1.0 / (1.0 + exp(-t)) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        }
        ProblemKind::KernelRidge => (0..n)
            .map(|i| {
                let s: f64 = x[i * d..(i + 1) * d].iter().map(|a| sin(*a)).sum();
                let e: f64 = StandardNormal.sample(&mut rng);
                s + 0.3 * e
            })
            .collect(),
    };
    Dataset::new(x, y, d, None, "y").expect("simulated data have consistent shapes")
}

/// Shuffles (seeded), splits in thirds train / test / validation, standardises with train statistics and
/// builds the problem. Logistic labels must take exactly two values (the smaller becomes -1).
pub(super) fn build_problem(cfg: &HoagConfig, data: &Dataset) -> Result<Box<dyn Bilevel>> {
    let (n, p) = (data.n, data.p);
    if n < 9 {
        return Err(Error::data(format!("need at least 9 rows to split in thirds, got {n}")));
    }
    if p == 0 || data.x.len() != n * p || data.y.len() != n {
        return Err(Error::data("data shape mismatch: features must be n x p and one target per row"));
    }
    if data.x.iter().chain(&data.y).any(|v| !v.is_finite()) {
        return Err(Error::data("data contain non-finite values"));
    }
    let mut data = data.clone();
    if cfg.problem != ProblemKind::KernelRidge {
        data.recode_two_labels(-1.0, 1.0)?;
    } else if n / 3 > 4000 {
        return Err(Error::data(format!("kernel ridge stores n x n kernel matrices: use at most 12000 rows, got {n}")));
    }
    // Seeded shuffle, thirds: train, test (the outer loss), validation; train statistics standardise all.
    let mut parts = data.shuffled_parts(&thirds(n), &mut stream(cfg.seed, 0x5350_4c49))?;
    if cfg.standardize {
        Dataset::standardize_by_first(&mut parts)?;
    }
    let [train, test, validation]: [Split; 3] = parts
        .into_iter()
        .map(|d| Split { x: d.x, y: d.y, n: d.n })
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| Error::data("the split in thirds did not give three parts"))?;
    if let Some(init) = &cfg.init {
        let s = cfg.n_hyper().unwrap_or(p);
        if init.len() != s {
            return Err(Error::config(format!(
                "init has {} values but the problem has {s} hyperparameter(s)",
                init.len()
            )));
        }
    }
    Ok(match cfg.problem {
        ProblemKind::Logreg => Box::new(LogisticBilevel::new(p, train, test, validation)),
        ProblemKind::LogregPerFeature => Box::new(LogisticBilevel::new(p, train, test, validation).per_feature()),
        ProblemKind::KernelRidge => Box::new(KernelRidgeBilevel::new(p, train, test, validation)),
    })
}

/// The digits set for a HOAG problem: `logreg` labels "digit >= 5" as 1; `kernel-ridge` regresses the digit.
fn digits_input(problem: ProblemKind) -> Result<Dataset> {
    let mut ds = crate::data::digits()?;
    if problem != ProblemKind::KernelRidge {
        ds.y.iter_mut().for_each(|v| *v = if *v >= 5.0 { 1.0 } else { 0.0 });
    }
    Ok(ds)
}

/// Builds the bilevel problem of a config from data (seeded shuffle, thirds, standardisation): for tests,
/// custom drivers and charts.
pub fn problem_from_data(cfg: &HoagConfig, data: &Dataset) -> Result<Box<dyn Bilevel>> {
    cfg.validate()?;
    build_problem(cfg, data)
}

/// The built-in data of a config (`simulate`, `digits`).
pub fn builtin_data(cfg: &HoagConfig) -> Result<Dataset> {
    match &cfg.data {
        HoagData::Simulate { n, d, seed } => Ok(simulate(cfg.problem, *n, *d, *seed)),
        HoagData::Digits => digits_input(cfg.problem),
        HoagData::Diabetes => crate::data::diabetes(),
        HoagData::Mnist { classes, per_class, pool } => {
            crate::data::mnist::Mnist::load()?.dataset(classes, Some(*per_class), *pool)
        }
        _ => Err(Error::config("csv/upload data are not built in")),
    }
}

/// Where the shuffled rows are cut: train `..n/3`, test `n/3..2n/3`, validation the rest.
fn thirds(n: usize) -> [usize; 2] {
    [n / 3, 2 * n / 3]
}

/// Sizes of the train, test and validation thirds and the number of features.
pub(super) fn sizes(input: &Dataset) -> (usize, usize, usize, usize) {
    let (n, [a, b]) = (input.n, thirds(input.n));
    (a, b - a, n - b, input.p)
}

/// The data a run uses: `data` if given, else the config's built-in data (`csv` / `upload` must be given).
pub(crate) fn input<'a>(cfg: &HoagConfig, data: Option<&'a Dataset>) -> Result<Cow<'a, Dataset>> {
    match (data, &cfg.data) {
        (Some(d), _) => Ok(Cow::Borrowed(d)),
        (None, HoagData::Svmlight { .. }) => Err(Error::config(
            "data source svmlight is sparse: give the parsed file to run_sparse (the experiment contract does this)",
        )),
        (None, HoagData::Csv { .. }) | (None, HoagData::Upload { .. }) => Err(Error::config(
            "data source csv/upload needs the data passed in (the experiment's Inputs; the CLI and the page do this)",
        )),
        (None, _) => builtin_data(cfg).map(Cow::Owned),
    }
}
