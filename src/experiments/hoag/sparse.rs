//! HOAG on sparse (CSR) data: L2-regularised logistic regression (Pedregosa 2016, eq. 4; one penalty, or one
//! per feature as in Appendix B) on an svmlight / libsvm file ([`crate::data::sparse`]). Rows are shuffled
//! (seeded) and cut in thirds as for dense data; features are not standardised (that would fill the matrix).
//! Every pass over the data costs `O(nnz)`.

// Index loops mirror the equations.
#![allow(clippy::needless_range_loop)]

use super::problems::{L2Logistic, LogisticRows};
use super::{HoagConfig, HoagEvent, HoagReport, ProblemKind};
use crate::data::sparse::{CsrMatrix, SparseDataset};
use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;
use std::sync::atomic::AtomicBool;

/// One split: rows of a CSR matrix and labels ±1.
#[derive(Debug, Clone)]
pub struct SparseSplit {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
}

impl LogisticRows for &SparseSplit {
    fn len(&self) -> usize {
        self.y.len()
    }
    fn label(&self, i: usize) -> f64 {
        self.y[i]
    }
    fn dot_row(&self, i: usize, w: &[f64]) -> f64 {
        self.x.row_dot(i, w)
    }
    fn axpy_row(&self, i: usize, c: f64, g: &mut [f64]) {
        self.x.row_axpy(i, c, g)
    }
}

/// L2-regularised logistic regression on sparse data (one penalty, or one per feature): the same problem
/// as [`super::LogisticBilevel`] (one implementation of both, `problems::L2Logistic`) over CSR rows.
#[derive(Debug, Clone)]
pub struct SparseLogisticBilevel {
    pub p: usize,
    pub per_feature: bool,
    pub train: SparseSplit,
    pub test: SparseSplit,
    pub validation: SparseSplit,
}

impl L2Logistic for SparseLogisticBilevel {
    type Rows<'a> = &'a SparseSplit;
    fn p(&self) -> usize {
        self.p
    }
    fn per_feature(&self) -> bool {
        self.per_feature
    }
    fn train(&self) -> &SparseSplit {
        &self.train
    }
    fn test(&self) -> &SparseSplit {
        &self.test
    }
    fn validation(&self) -> &SparseSplit {
        &self.validation
    }
    fn data_lipschitz(&self) -> f64 {
        // |a_i|² bounds the logistic Hessian's contribution of row i (σ(1-σ) <= 1/4).
        let sq: f64 = self.train.x.values.iter().map(|v| v * v).sum();
        0.25 * sq / self.train.y.len() as f64
    }
}

/// Most features of the one-penalty-per-feature problem on sparse data (`s = p` hyperparameters).
pub const MAX_PER_FEATURE: usize = 10_000;

/// Builds the problem: labels must take exactly two values (the smaller becomes -1); seeded shuffle into
/// thirds (train, test = the outer loss, validation).
pub fn sparse_problem(cfg: &HoagConfig, data: &SparseDataset) -> Result<SparseLogisticBilevel> {
    let per_feature = match cfg.problem {
        ProblemKind::Logreg => false,
        ProblemKind::LogregPerFeature => true,
        ProblemKind::KernelRidge => return Err(Error::config("sparse data: only logreg and logreg-per-feature")),
    };
    let n = data.y.len();
    if n < 9 || data.x.n_rows != n {
        return Err(Error::data(format!("need at least 9 rows to split in thirds, got {n}")));
    }
    let mut labels: Vec<f64> = data.y.clone();
    labels.sort_by(|a, b| a.total_cmp(b));
    labels.dedup();
    if labels.len() != 2 {
        return Err(Error::data(format!("logistic regression needs exactly two label values, got {}", labels.len())));
    }
    if per_feature && data.x.n_cols > MAX_PER_FEATURE {
        return Err(Error::config(format!(
            "one penalty per feature: at most {MAX_PER_FEATURE} features (the search methods work in s = p dimensions), got {}",
            data.x.n_cols
        )));
    }
    if let Some(init) = &cfg.init {
        let s = if per_feature { data.x.n_cols } else { 1 };
        if init.len() != s {
            return Err(Error::config(format!(
                "init has {} values but the problem has {s} hyperparameter(s)",
                init.len()
            )));
        }
    }
    let y: Vec<f64> = data.y.iter().map(|v| if *v == labels[0] { -1.0 } else { 1.0 }).collect();
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = stream(cfg.seed, 0x5350_4c49);
    for i in (1..n).rev() {
        let j = rng.random_range(0..=i);
        order.swap(i, j);
    }
    let cut = |rows: &[usize]| SparseSplit { x: data.x.select_rows(rows), y: rows.iter().map(|&i| y[i]).collect() };
    let (a, b) = (n / 3, 2 * n / 3);
    Ok(SparseLogisticBilevel {
        p: data.x.n_cols,
        per_feature,
        train: cut(&order[..a]),
        test: cut(&order[a..b]),
        validation: cut(&order[b..]),
    })
}

/// Runs the comparison of [`super::run`] on sparse data (the config's `data` source is not used).
pub fn run_sparse(
    cfg: &HoagConfig,
    data: &SparseDataset,
    observer: &mut dyn FnMut(&HoagEvent),
    cancel: &AtomicBool,
) -> Result<HoagReport> {
    cfg.validate()?;
    let pr = sparse_problem(cfg, data)?;
    let sizes = (pr.train.y.len(), pr.test.y.len(), pr.validation.y.len(), pr.p);
    super::run_problem_sized(&pr, cfg, sizes, observer, cancel)
}
