//! The problem of an SG-MCMC run from its config: the data it reads (a file request, MNIST, the shipped sets),
//! the posterior built from the inputs, and the sizes its cost depends on.

use super::config::{DataSource, DataSpec, TuneConfig};
use super::posterior::Posterior;
use crate::experiments::{DataFormat, DataRequest, Inputs};
use crate::Result;

/// The request of a run config's `csv` or `upload` source; `ratings`: a PMF model's ratings file
/// (user,item,rating).
pub fn data_request(d: &DataSpec, ratings: bool) -> Option<DataRequest> {
    let format = if ratings { DataFormat::Ratings } else { DataFormat::Csv };
    match &d.source {
        DataSource::Csv { path } => Some(DataRequest { path: Some(path.clone()), label: d.label.clone(), format }),
        DataSource::Upload { .. } => Some(DataRequest { path: None, label: d.label.clone(), format }),
        _ => None,
    }
}

/// Builds a tuning problem from the inputs (the boundary parsed the user's file) or the config's built-in data.
pub fn build_problem(cfg: &TuneConfig, inputs: Inputs) -> Result<Posterior> {
    match inputs.data {
        Some(ds) => {
            // The size of a file is known only now: the memory estimate again, with its shape.
            cfg.memory_estimate(Some((ds.n, ds.p))).check()?;
            Posterior::from_data(cfg, Some(ds))
        }
        None => Posterior::build(cfg, None),
    }
}

/// The sizes a tuning run's cost depends on: training and test rows, the posterior's dimension and the
/// multiply-adds of one gradient evaluation (one data point's term).
pub struct ProblemSize {
    pub n_train: usize,
    pub n_test: usize,
    pub dim: f64,
    pub per_point: f64,
}

/// The sizes of a run config's problem, when its data is built in (`None` for files and uploads: their size
/// is known once read). The split is `Dataset::split`'s (`round(test_fraction n)` test rows, at least one).
pub fn problem_size(cfg: &TuneConfig) -> Option<ProblemSize> {
    use crate::model::ModelSpec;
    let no_data =
        matches!(cfg.model, ModelSpec::Gaussian { .. } | ModelSpec::Banana { .. } | ModelSpec::Mixture { .. });
    let dim = cfg.param_dim(cfg.data_shape())?;
    let (n_train, n_test) = if no_data {
        (1, 0)
    } else {
        let n = cfg.data_shape()?.0;
        let t = cfg.data.test_fraction;
        let n_test = if t > 0.0 && n >= 2 { ((t * n as f64).round() as usize).clamp(1, n - 1) } else { 0 };
        (n - n_test, n_test)
    };
    // Multiply-adds of one data point's gradient term: the weights once forward and once backward (BNN), a
    // rating's two factor rows (PMF), a dense precision (Gaussian), the coefficients (GLMs).
    let per_point = match &cfg.model {
        ModelSpec::Bnn { .. } => 2.0 * dim,
        ModelSpec::Pmf { latent, .. } => 4.0 * *latent as f64,
        ModelSpec::Gaussian { .. } => dim * dim,
        _ => dim.max(1.0),
    };
    Some(ProblemSize { n_train, n_test, dim, per_point })
}

/// True when a data source reads the MNIST digits.
pub fn reads_mnist(d: &DataSpec) -> bool {
    matches!(d.source, DataSource::Mnist { .. })
}

/// The shipped data sets a data source reads.
pub fn reads_shipped(d: &DataSpec) -> Vec<crate::data::Shipped> {
    match d.source {
        DataSource::Digits => vec![crate::data::Shipped::Digits],
        DataSource::None
        | DataSource::Simulate { .. }
        | DataSource::Csv { .. }
        | DataSource::Upload { .. }
        | DataSource::Ratings { .. }
        | DataSource::SimulateRatings { .. }
        | DataSource::Mnist { .. } => Vec::new(),
    }
}

/// Points a data source at a CSV file (`--data FILE --label COL`).
pub fn use_csv_data(d: &mut DataSpec, path: &str, label: &str, standardize: bool) {
    d.source = DataSource::Csv { path: path.into() };
    d.label = label.into();
    d.standardize |= standardize;
}
