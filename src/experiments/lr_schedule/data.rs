//! The training problem of a config: the noisy quadratic, or a classifier on the digits / the user's data
//! (seeded test split and standardisation with train statistics by [`crate::data`]).

use super::{Classifier, ClassifierKind, LrConfig, LrData, LrProblem, NoisyQuadratic, TrainProblem};
use crate::data::Dataset;
use crate::rng::stream;
use crate::{Error, Result};

pub(super) fn build_problem(cfg: &LrConfig, data: Option<&Dataset>) -> Result<Box<dyn TrainProblem>> {
    let kind = match cfg.problem {
        LrProblem::NoisyQuadratic { dim, noise } => return Ok(Box::new(NoisyQuadratic::new(dim, noise))),
        LrProblem::Logreg => ClassifierKind::Softmax,
        LrProblem::Mlp { hidden } => ClassifierKind::Mlp(hidden),
    };
    let owned;
    let ds = match (data, &cfg.data) {
        (Some(d), _) => d,
        (None, LrData::Digits) => {
            owned = crate::data::digits()?;
            &owned
        }
        (None, LrData::Mnist { per_class, pool }) => {
            let classes: Vec<u8> = (0..10).collect();
            owned = crate::data::mnist::Mnist::load()?.dataset(&classes, Some(*per_class), *pool)?;
            &owned
        }
        (None, _) => return Err(Error::config(
            "data source csv/upload needs the data passed in (the experiment's Inputs; the CLI and the page do this)",
        )),
    };
    if ds.n < 10 {
        return Err(Error::data(format!("need at least 10 rows, got {}", ds.n)));
    }
    // Integrality first (names the row), then the class count (a label of 1e9 is not 10^9 classes).
    ds.check_class_labels(usize::MAX)?;
    let k = ds.n_classes();
    if k > crate::limits::MAX_CLASSES {
        return Err(Error::data(format!(
            "the label column \"{}\" has labels up to {}; a classifier here supports at most {} classes \
             (is \"{}\" really a class index?)",
            ds.label_name,
            k - 1,
            crate::limits::MAX_CLASSES,
            ds.label_name
        )));
    }
    if k < 2 {
        return Err(Error::data("the label has a single class; classification needs at least 2"));
    }
    let p = ds.p;
    // Seeded shuffle: the first n_test shuffled rows are the test split; train statistics standardise both.
    let n_test = ((ds.n as f64 * cfg.test_fraction).round() as usize).clamp(1, ds.n - 1);
    let mut parts = ds.shuffled_parts(&[n_test], &mut stream(cfg.seed, 0x4c52_5350))?;
    parts.swap(0, 1);
    Dataset::standardize_by_first(&mut parts)?;
    let labels = |d: &Dataset| d.y.iter().map(|&v| v as usize).collect::<Vec<usize>>();
    let (tr, te) = (&parts[0], &parts[1]);
    let (trx, try_, tex, tey) = (tr.x.clone(), labels(tr), te.x.clone(), labels(te));
    let eval_idx: Vec<usize> = (0..tr.n.min(cfg.eval_points)).collect();
    Ok(Box::new(Classifier::new(kind, p, k, cfg.batch, trx, try_, tex, tey, eval_idx)))
}
