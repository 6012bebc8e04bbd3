//! Building the problem (train / test targets, MAP, control-variate anchor) from a config.

use super::config::{DataSource, DataSpec, TuneConfig};
use crate::data::{self, CsvOptions, Dataset};
use crate::error::{Error, Result};
use crate::model::{build_target, ModelSpec, Target};
use crate::rng;
use crate::sampler::{find_map, ControlVariate, MapOptions};
use rand::RngExt;
use std::sync::Arc;

/// Stream ids reserved for problem construction (arms use their own ids, far below these).
pub(crate) const STREAM_SPLIT: u64 = 1 << 40;
pub(crate) const STREAM_MAP: u64 = (1 << 40) + 1;
pub(crate) const STREAM_SIM: u64 = 0;

/// Everything a tuner needs about the posterior.
pub struct Posterior {
    /// Posterior on the training split.
    pub train: Arc<dyn Target>,
    /// The same model on the held-out split (log-loss / accuracy), when there is one.
    pub test: Option<Arc<dyn Target>>,
    /// MAP of the training posterior (found once, shared by all arms).
    pub map: Vec<f64>,
    /// Control-variate anchor at the MAP.
    pub cv: Arc<ControlVariate>,
    /// Gradient evaluations (data points touched) spent finding the MAP.
    pub map_grad_evals: u64,
    /// Dimension of theta.
    pub dim: usize,
    /// Training data size N.
    pub n_data: usize,
}

/// Loads the data a config names. `uploaded` is the CSV text handed over by the page (`source: upload`).
pub fn load_data(spec: &DataSpec, uploaded: Option<&str>) -> Result<Option<Dataset>> {
    let opts = CsvOptions { label: spec.label.clone(), standardize: false };
    Ok(match &spec.source {
        DataSource::Simulate { n, d, seed } => {
            if *n < 2 || *d == 0 {
                return Err(Error::config("simulated data needs n >= 2 and d >= 1"));
            }
            if *n > 1_000_000 || n.saturating_mul(*d) > 50_000_000 {
                return Err(Error::config("simulated data is limited to n <= 1,000,000 and n*d <= 5e7"));
            }
            let mut r = rng::stream(*seed, STREAM_SIM);
            Some(data::simulate_logistic(*n, *d, &mut r)?.0)
        }
        DataSource::Csv { path } => Some(data::read_csv(path, &opts)?),
        DataSource::Upload { name } => {
            let text = uploaded.ok_or_else(|| {
                Error::config(format!(
                    "the config asks for an uploaded file{} but none was given",
                    if name.is_empty() { String::new() } else { format!(" ({name})") }
                ))
            })?;
            Some(data::parse_csv(text, &opts)?)
        }
        DataSource::Digits => Some(data::digits()?),
        DataSource::Ratings { path } => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
            Some(data::ratings::parse_ratings(&text).map_err(|e| match e {
                Error::Data(m) => Error::Data(format!("{path}: {m}")),
                e => e,
            })?)
        }
        DataSource::SimulateRatings { users, items, ratings, latent, seed } => {
            let mut r = rng::stream(*seed, STREAM_SIM);
            Some(data::ratings::simulate_ratings(*users, *items, *ratings, *latent, 6.0, 2.0, 3.5, &mut r)?)
        }
        DataSource::Mnist { per_class, pool } => {
            if *per_class == Some(0) {
                return Err(Error::config("mnist: per_class must be at least 1"));
            }
            let classes: Vec<u8> = (0..10).collect();
            Some(data::mnist::Mnist::load()?.dataset(&classes, *per_class, *pool)?)
        }
        DataSource::None => None,
    })
}

/// Splits (seeded) and standardises (with training statistics) a data set.
pub fn prepare(spec: &DataSpec, ds: Dataset, seed: u64) -> Result<(Dataset, Option<Dataset>)> {
    let mut parts = if spec.test_fraction > 0.0 {
        let (tr, te) = ds.split(spec.test_fraction, &mut rng::stream(seed, STREAM_SPLIT))?;
        vec![tr, te]
    } else {
        vec![ds]
    };
    if spec.standardize {
        Dataset::standardize_by_first(&mut parts)?;
    }
    let mut parts = parts.into_iter();
    let train = parts.next().ok_or_else(|| Error::data("no training data"))?;
    Ok((train, parts.next()))
}

/// Where the MAP search starts: zero, except for a neural network, whose posterior has a saddle point at zero
/// (tanh units are symmetric): small random weights there.
pub fn map_init(model: &ModelSpec, dim: usize, rng: &mut rng::Rng) -> Vec<f64> {
    // PMF: U.V is bilinear, so zero is a saddle point too.
    if model.kind() == "bnn" || model.kind() == "pmf" {
        (0..dim).map(|_| 0.1 * rng.sample::<f64, _>(rand_distr::StandardNormal)).collect()
    } else {
        vec![0.0; dim]
    }
}

impl Posterior {
    /// Builds the targets and finds the MAP.
    pub fn build(cfg: &TuneConfig, uploaded: Option<&str>) -> Result<Posterior> {
        let data = load_data(&cfg.data, uploaded)?;
        Self::from_data(cfg, data)
    }

    /// Builds the problem from already loaded data (the page parses uploads once, in the worker).
    pub fn from_data(cfg: &TuneConfig, data: Option<Dataset>) -> Result<Posterior> {
        Self::from_parts(&cfg.data, &cfg.model, cfg.seed, data)
    }

    /// Builds the problem from its parts: data preparation, model, seed (split and MAP streams) and the data.
    pub fn from_parts(data_spec: &DataSpec, model: &ModelSpec, seed: u64, data: Option<Dataset>) -> Result<Posterior> {
        // PMF: the factors cover every user and item of the whole ratings set, not only the training split's.
        let pmf_model;
        let model = match (model, &data) {
            (ModelSpec::Pmf { latent, lambda, tau, users, items, mean, prior }, Some(ds))
                if ds.p == 2 && (users.is_none() || items.is_none()) =>
            {
                let (u, i) = data::ratings::shape(ds);
                pmf_model = ModelSpec::Pmf {
                    latent: *latent,
                    lambda: *lambda,
                    tau: *tau,
                    users: users.or(Some(u)),
                    items: items.or(Some(i)),
                    mean: *mean,
                    prior: *prior,
                };
                &pmf_model
            }
            _ => model,
        };
        let (train, test) = match data {
            Some(ds) => {
                let (tr, te) = prepare(data_spec, ds, seed)?;
                (Some(Arc::new(tr)), te.map(Arc::new))
            }
            None => (None, None),
        };
        let target = build_target(model, train)?;
        // The test target keeps the training layout (a BNN's class count even if a class is missing there).
        let test_target = match test {
            Some(te) => Some(build_target(&model.for_test_set(target.as_ref()), Some(te))?),
            None => None,
        };
        let dim = target.dim();
        let mut r = rng::stream(seed, STREAM_MAP);
        let init = map_init(model, dim, &mut r);
        let map_res = find_map(target.as_ref(), &init, &MapOptions::default(), &mut r)?;
        if map_res.theta.iter().any(|v| !v.is_finite()) {
            return Err(Error::numerical(
                "the MAP finder produced non-finite values; check the data (standardise features?)",
            ));
        }
        let cv = Arc::new(ControlVariate::new(target.as_ref(), map_res.theta.clone())?);
        Ok(Posterior {
            n_data: target.n_data(),
            dim,
            train: target,
            test: test_target,
            map: map_res.theta,
            cv,
            map_grad_evals: map_res.grad_evals,
        })
    }
}
