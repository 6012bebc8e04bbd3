//! Chart data: the outer (and validation) loss of a HOAG problem on a grid over the hyperparameter box.

use super::methods::{evaluate, linspace, measure_iters};
use super::problems::Bilevel;
use super::{HoagConfig, Landscape};
use crate::{Error, Result};
use rayon::prelude::*;

/// The outer loss on a grid over the box; rows run in parallel (each row warm-starts along itself, so the
/// values do not depend on the number of threads).
pub(super) fn landscape(pr: &dyn Bilevel, cfg: &HoagConfig) -> Result<Landscape> {
    let k = cfg.landscape_points;
    let axis = linspace(cfg.bounds[0], cfg.bounds[1], k);
    let s = pr.n_hyper();
    let n = pr.n_inner();
    let max_iter = measure_iters(n);
    // One hyperparameter: the axis; more than two: along the diagonal (every hyperparameter equal).
    let rows: Vec<Vec<(f64, f64)>> = if s != 2 {
        let mut x = vec![0.0; n];
        vec![axis
            .iter()
            .map(|&l| {
                let (f, v, _, _) = evaluate(pr, &vec![l; s], &mut x, cfg.blackbox_tol, max_iter);
                (f, v)
            })
            .collect()]
    } else {
        axis.par_iter()
            .map(|&a| {
                let mut x = vec![0.0; n];
                axis.iter()
                    .map(|&b| {
                        let (f, v, _, _) = evaluate(pr, &[a, b], &mut x, cfg.blackbox_tol, max_iter);
                        (f, v)
                    })
                    .collect()
            })
            .collect()
    };
    let values: Vec<f64> = rows.iter().flatten().map(|p| p.0).collect();
    let validation: Vec<f64> = rows.iter().flatten().map(|p| p.1).collect();
    let (mut best, mut bi) = (f64::INFINITY, 0);
    for (i, v) in values.iter().enumerate() {
        if *v < best {
            best = *v;
            bi = i;
        }
    }
    if !best.is_finite() {
        return Err(Error::numerical("the outer loss is not finite anywhere on the landscape grid"));
    }
    let (argmin, axes) = match s {
        2 => (vec![axis[bi / k], axis[bi % k]], vec![axis.clone(), axis]),
        _ => (vec![axis[bi]; s], vec![axis]),
    };
    Ok(Landscape { axes, values, validation, argmin, min: best })
}
