//! HOAG on sparse (CSR) data: L2-regularised logistic regression (Pedregosa 2016, eq. 4; one penalty, or one
//! per feature as in Appendix B) on an svmlight / libsvm file ([`crate::data::sparse`]). Rows are shuffled
//! (seeded) and cut in thirds as for dense data; features are not standardised (that would fill the matrix).
//! Every pass over the data costs `O(nnz)`.

// Index loops mirror the equations.
#![allow(clippy::needless_range_loop)]

use super::problems::{Bilevel, InnerAt};
use super::solvers::{dot, lbfgs, SolveInfo};
use super::{HoagConfig, HoagEvent, HoagReport, ProblemKind};
use crate::data::sparse::{CsrMatrix, SparseDataset};
use crate::math::{exp, ln_1p};
use crate::rng::stream;
use crate::{Error, Result};
use rand::RngExt;
use std::cell::Cell;
use std::sync::atomic::AtomicBool;

fn log1pexp_neg(z: f64) -> f64 {
    if z > 0.0 { ln_1p(exp(-z)) } else { -z + ln_1p(exp(z)) }
}

fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + exp(-t))
    } else {
        let e = exp(t);
        e / (1.0 + e)
    }
}

/// One split: rows of a CSR matrix and labels ±1.
#[derive(Debug, Clone)]
pub struct SparseSplit {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
}

impl SparseSplit {
    fn loss(&self, w: &[f64]) -> f64 {
        let n = self.y.len();
        (0..n).map(|i| log1pexp_neg(self.y[i] * self.x.row_dot(i, w))).sum::<f64>() / n as f64
    }
    fn add_grad(&self, w: &[f64], g: &mut [f64]) -> f64 {
        let n = self.y.len();
        let inv_n = 1.0 / n as f64;
        let mut val = 0.0;
        for i in 0..n {
            let m = self.y[i] * self.x.row_dot(i, w);
            val += inv_n * log1pexp_neg(m);
            self.x.row_axpy(i, -self.y[i] * sigmoid(-m) * inv_n, g);
        }
        val
    }
}

/// L2-regularised logistic regression on sparse data (one penalty, or one per feature).
#[derive(Debug, Clone)]
pub struct SparseLogisticBilevel {
    pub p: usize,
    pub per_feature: bool,
    pub train: SparseSplit,
    pub test: SparseSplit,
    pub validation: SparseSplit,
}

struct SparseAt<'a> {
    pr: &'a SparseLogisticBilevel,
    reg: Vec<f64>,
    cost: Cell<u64>,
}

impl Bilevel for SparseLogisticBilevel {
    fn n_hyper(&self) -> usize {
        if self.per_feature { self.p } else { 1 }
    }
    fn n_inner(&self) -> usize {
        self.p
    }
    fn hyper_names(&self) -> Vec<String> {
        if self.per_feature {
            (0..self.p).map(|j| format!("log regularisation {j}")).collect()
        } else {
            vec!["log regularisation".into()]
        }
    }
    fn at(&self, lam: &[f64]) -> Box<dyn InnerAt + '_> {
        let reg = if self.per_feature { lam.iter().map(|l| exp(*l)).collect() } else { vec![exp(lam[0]); self.p] };
        Box::new(SparseAt { pr: self, reg, cost: Cell::new(0) })
    }
}

impl SparseAt<'_> {
    fn bump(&self) {
        self.cost.set(self.cost.get() + 1);
    }
}

impl InnerAt for SparseAt<'_> {
    fn value_grad(&self, x: &[f64], g: &mut [f64]) -> f64 {
        self.bump();
        let mut pen = 0.0;
        for j in 0..self.pr.p {
            g[j] = self.reg[j] * x[j];
            pen += 0.5 * self.reg[j] * x[j] * x[j];
        }
        pen + self.pr.train.add_grad(x, g)
    }
    fn hvp(&self, x: &[f64], v: &[f64], out: &mut [f64]) {
        self.bump();
        let tr = &self.pr.train;
        let n = tr.y.len();
        for j in 0..self.pr.p {
            out[j] = self.reg[j] * v[j];
        }
        for i in 0..n {
            let s = sigmoid(-tr.y[i] * tr.x.row_dot(i, x));
            tr.x.row_axpy(i, s * (1.0 - s) * tr.x.row_dot(i, v) / n as f64, out);
        }
    }
    fn cross_t(&self, x: &[f64], q: &[f64], out: &mut [f64]) {
        if self.pr.per_feature {
            for j in 0..self.pr.p {
                out[j] = self.reg[j] * x[j] * q[j];
            }
        } else {
            out[0] = self.reg[0] * dot(x, q);
        }
    }
    fn outer_grad(&self, x: &[f64], gx: &mut [f64], glam: &mut [f64]) -> f64 {
        self.bump();
        gx.iter_mut().for_each(|v| *v = 0.0);
        glam.iter_mut().for_each(|v| *v = 0.0);
        self.pr.test.add_grad(x, gx)
    }
    fn outer(&self, x: &[f64]) -> f64 {
        self.pr.test.loss(x)
    }
    fn validation(&self, x: &[f64]) -> f64 {
        self.pr.validation.loss(x)
    }
    fn solve(&self, x: &mut [f64], tol: f64, max_iter: usize) -> SolveInfo {
        lbfgs(|w, g| self.value_grad(w, g), x, tol, max_iter, 10)
    }
    fn lipschitz(&self) -> f64 {
        // |a_i|² bounds the logistic Hessian's contribution of row i (σ(1-σ) <= 1/4).
        let tr = &self.pr.train;
        let n = tr.y.len();
        let sq: f64 = tr.x.values.iter().map(|v| v * v).sum();
        0.25 * sq / n as f64 + self.reg.iter().cloned().fold(0.0, f64::max)
    }
    fn strong_convexity(&self) -> f64 {
        self.reg.iter().cloned().fold(f64::INFINITY, f64::min)
    }
    fn cost(&self) -> u64 {
        self.cost.get()
    }
}

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
    if let Some(init) = &cfg.init {
        let s = if per_feature { data.x.n_cols } else { 1 };
        if init.len() != s {
            return Err(Error::config(format!("init has {} values but the problem has {s} hyperparameter(s)", init.len())));
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
