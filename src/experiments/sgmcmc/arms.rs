//! Arms: one hyperparameter setting of a sampler (step size h, batch size n, leapfrog steps L).

use super::config::{ArmGrid, TunerSpec};
use crate::error::{Error, Result};
use crate::math::{log10, powf};
use crate::rng::Rng;
use crate::sampler::{BatchSize, SamplerKind};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// One arm of the bandit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    pub id: usize,
    pub step: f64,
    pub batch: BatchSize,
    pub leapfrog: usize,
}

/// SGHMC (with or without control variates) is the only sampler with leapfrog steps.
pub fn uses_leapfrog(kind: SamplerKind) -> bool {
    matches!(kind, SamplerKind::Sghmc | SamplerKind::SghmcCv)
}

fn check_batch(b: &BatchSize) -> Result<()> {
    match *b {
        BatchSize::Fraction(f) if !(f > 0.0 && f <= 1.0) => {
            Err(Error::config(format!("batch fraction must be in (0, 1], got {f}")))
        }
        BatchSize::Count(0) => Err(Error::config("batch size must be at least 1")),
        _ => Ok(()),
    }
}

/// The validated lists the grid is built from: (steps, batches, leapfrogs).
pub fn grid_values(grid: &ArmGrid, kind: SamplerKind) -> Result<(Vec<f64>, Vec<BatchSize>, Vec<usize>)> {
    let mut steps: Vec<f64> = match &grid.log10_step {
        Some(r) => r.values()?.into_iter().map(|l| powf(10f64, l)).collect(),
        None => vec![],
    };
    steps.extend(grid.steps.iter().copied());
    if steps.is_empty() {
        return Err(Error::config("no arms: give step sizes (`arms.log10_step` or `arms.steps`)"));
    }
    if let Some(h) = steps.iter().find(|h| !(h.is_finite() && **h > 0.0)) {
        return Err(Error::config(format!("step sizes must be positive and finite, got {h}")));
    }
    if grid.batch.is_empty() {
        return Err(Error::config("no arms: give at least one batch size (`arms.batch`)"));
    }
    for b in &grid.batch {
        check_batch(b)?;
    }
    let leapfrog = if uses_leapfrog(kind) {
        if grid.leapfrog.is_empty() {
            return Err(Error::config("no arms: SGHMC needs at least one leapfrog value (`arms.leapfrog`)"));
        }
        if grid.leapfrog.contains(&0) {
            return Err(Error::config("leapfrog steps must be at least 1"));
        }
        grid.leapfrog.clone()
    } else {
        vec![1]
    };
    Ok((steps, grid.batch.clone(), leapfrog))
}

/// The arms of a grid, ids 0.. in the order step-major, then batch, then leapfrog.
pub fn grid_arms(grid: &ArmGrid, kind: SamplerKind) -> Result<Vec<Arm>> {
    let (steps, batches, leaps) = grid_values(grid, kind)?;
    let mut arms = Vec::with_capacity(steps.len() * batches.len() * leaps.len());
    for &step in &steps {
        for &batch in &batches {
            for &leapfrog in &leaps {
                arms.push(Arm { id: arms.len(), step, batch, leapfrog });
            }
        }
    }
    Ok(arms)
}

/// The sampler settings of `arm` under the run config's sampler (kind, friction, thermostat, replacement), not
/// yet validated against the data.
pub fn arm_sampler(cfg: &super::config::TuneConfig, arm: &Arm) -> crate::sampler::SamplerParams {
    crate::sampler::SamplerParams {
        kind: cfg.sampler.kind,
        step: arm.step,
        batch: arm.batch,
        leapfrog: arm.leapfrog,
        friction: cfg.sampler.friction,
        thermostat_a: cfg.sampler.thermostat_a,
        with_replacement: cfg.sampler.with_replacement,
    }
}

/// The arms a tuner runs. `n_data` is needed by the heuristic (h = 1/N).
pub fn tuner_arms(
    tuner: &TunerSpec,
    grid: &ArmGrid,
    kind: SamplerKind,
    n_data: usize,
    rng: &mut Rng,
) -> Result<Vec<Arm>> {
    match tuner {
        TunerSpec::Mamba { .. } | TunerSpec::Grid => grid_arms(grid, kind),
        // Paper section 3.4: "a step size of 1/N and a batch size of 10% of the data".
        TunerSpec::Heuristic => {
            let leapfrog = if uses_leapfrog(kind) { grid.leapfrog.first().copied().unwrap_or(10).max(1) } else { 1 };
            Ok(vec![Arm { id: 0, step: 1.0 / n_data.max(1) as f64, batch: BatchSize::Fraction(0.1), leapfrog }])
        }
        TunerSpec::Random { arms } => {
            let (steps, batches, leaps) = grid_values(grid, kind)?;
            let lo = log10(steps.iter().cloned().fold(f64::INFINITY, f64::min));
            let hi = log10(steps.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
            Ok((0..*arms)
                .map(|id| {
                    let l = if hi > lo { rng.random_range(lo..=hi) } else { lo };
                    let batch = batches[rng.random_range(0..batches.len())];
                    let leapfrog = leaps[rng.random_range(0..leaps.len())];
                    Arm { id, step: powf(10f64, l), batch, leapfrog }
                })
                .collect())
        }
    }
}

/// How many arms a config would run (shown before a run).
pub fn arm_count(tuner: &TunerSpec, grid: &ArmGrid, kind: SamplerKind) -> Result<usize> {
    match tuner {
        TunerSpec::Heuristic => Ok(1),
        TunerSpec::Random { arms } => Ok(*arms),
        _ => {
            let (s, b, l) = grid_values(grid, kind)?;
            Ok(s.len() * b.len() * l.len())
        }
    }
}
