//! The `lr-schedule` kind as an [`Experiment`]: learning-rate schedules by a GP trace model.

use super::{LrConfig, LrData, LrEvent, LrReport};
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct LrExperiment {
    cfg: LrConfig,
}

impl Experiment for LrExperiment {
    type Config = LrConfig;
    type Detail = LrEvent;
    type Output = LrReport;
    const NAME: &'static str = "lr-schedule";
    const UNIT: &'static str = "methods";
    const PRESETS: &'static [&'static str] = &["digits", "digits-logreg", "noisy-quadratic"];
    const LABEL: &'static str = "learning-rate schedule";
    const PANEL_FIELDS: &'static [&'static str] = super::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<LrConfig> {
        LrConfig::preset(name)
    }
    fn needs_mnist(cfg: &LrConfig) -> bool {
        // The multi-task warm start (Picheny et al. Sec. 4) reads binary MNIST tasks whatever `data` says.
        matches!(cfg.data, LrData::Mnist { .. }) || cfg.multitask.is_some()
    }
    fn shipped(cfg: &LrConfig) -> Vec<crate::data::Shipped> {
        // The noisy quadratic reads no data; the multi-task warm start builds its own MNIST tasks.
        let reads = !matches!(cfg.problem, super::LrProblem::NoisyQuadratic { .. }) && cfg.multitask.is_none();
        match cfg.data {
            LrData::Digits if reads => vec![crate::data::Shipped::Digits],
            LrData::Digits | LrData::Mnist { .. } | LrData::Csv { .. } | LrData::Upload { .. } => Vec::new(),
        }
    }
    fn use_csv(cfg: &mut LrConfig, path: &str, label: &str, _standardize: bool) -> Result<()> {
        cfg.data = LrData::Csv { path: path.into(), label: Some(label.into()) };
        Ok(())
    }
    fn set_seed(cfg: &mut LrConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: LrConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &LrConfig {
        &self.cfg
    }
    fn cost(&self) -> Cost {
        lr_cost(&self.cfg)
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            LrData::Csv { path, label } => Some(DataRequest::labelled(Some(path), label)),
            LrData::Upload { label } => Some(DataRequest::labelled(None, label)),
            LrData::Digits | LrData::Mnist { .. } => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, LrEvent), stop: &AtomicBool) -> Result<LrReport> {
        let (mut done, mut total) = (0.0, 1.0);
        let intervals = self.cfg.intervals.max(1) as f64;
        let mut finished_methods = 0.0;
        crate::experiments::lr_schedule::run_checked(
            &self.cfg,
            inputs.data.as_ref(),
            &mut |e| {
                match e {
                    LrEvent::Started { methods, .. } => total = methods.len().max(1) as f64,
                    LrEvent::MethodDone { .. } => {
                        finished_methods += 1.0;
                        done = finished_methods;
                    }
                    // The dynamic tuner is the last method: its intervals fill its share.
                    LrEvent::IntervalDone { interval, .. } => {
                        done = finished_methods + (*interval as f64 + 1.0) / intervals
                    }
                    LrEvent::Done {} => done = total,
                }
                progress(done.min(total), total, e.clone())
            },
            stop,
        )
    }

    fn message(detail: &LrEvent) -> Option<String> {
        super::text::message(detail)
    }
    fn table(_: &LrConfig, output: &LrReport) -> String {
        super::text::table(output)
    }
}

/// The cost model of a learning-rate comparison: every baseline schedule (`constant` + `decay_starts` x
/// `decay_factors`, each run `repeats()` times) and the dynamic tuner's Q runs train for `intervals` x
/// `steps_per_interval` minibatch steps (counted in examples: steps x batch; about 3 multiply-adds per weight
/// forward and backward) and record their loss on `eval_points` train rows `records_per_interval` times an
/// interval; the dynamic tuner fits its trace model at every boundary but the last, on every recorded point of
/// the intervals so far (Q runs): the sparse variational GP's `fit_iters` Adam steps cost about points x m^2
/// (m = `inducing`, at most the points; typical: a failed fit falls back to the exact model).
pub(crate) fn lr_cost(cfg: &LrConfig) -> Cost {
    use super::LrProblem;
    let shape = match (&cfg.problem, &cfg.data) {
        // Sec. 4: binary tasks of `per_class` digits per class, pooled (multitask/mod.rs `build_task`).
        (_, _) if cfg.multitask.is_some() => {
            cfg.multitask.as_ref().map(|m| (2 * m.per_class, (28 / m.pool.max(1)).pow(2), 2))
        }
        (LrProblem::NoisyQuadratic { dim, .. }, _) => Some((1usize, *dim, 1usize)),
        (_, LrData::Digits) => Some((1797, 64, 10)),
        (_, LrData::Mnist { per_class, pool }) => {
            let side = 28 / (*pool).max(1);
            Some(((10 * per_class).min(10_000), side * side, 10))
        }
        _ => None,
    };
    let Some((n, p, classes)) = shape else {
        return Cost::unknown("the data's size is known once the file is read");
    };
    let weights = match &cfg.problem {
        LrProblem::Logreg => ((p + 1) * classes) as f64,
        LrProblem::Mlp { hidden } => ((p + 1) * hidden + (hidden + 1) * classes) as f64,
        LrProblem::NoisyQuadratic { dim, .. } => *dim as f64,
    };
    let no_data = matches!(cfg.problem, LrProblem::NoisyQuadratic { .. });
    let schedules = cfg.constant + cfg.decay_starts * cfg.decay_factors.len();
    // The multi-task experiment runs no dynamic tuner (multitask/mod.rs `run`).
    let q = if cfg.dynamic.enabled && cfg.multitask.is_none() { cfg.dynamic.runs } else { 0 };
    let runs = match &cfg.multitask {
        // Every training run of the multi-task experiment (multitask/mod.rs `run`): the baselines and all
        // candidates on the new task, Algorithm 2's runs on the previous tasks, its recommendation and all
        // candidates on each previous task, and the four tuners' runs on the new task. The GP fits of eqs. 7-8
        // and the location fits are not counted (the calibration's factor absorbs them; docs/benchmarks.md).
        Some(m) => {
            let prev = m.tasks.len().saturating_sub(1);
            let cands = m.candidate_count(cfg);
            (schedules + cands + m.source_runs * prev + prev + prev * cands + 4 * m.target_runs) as f64
        }
        None => (schedules * cfg.repeats() + q) as f64,
    };
    let d = cfg.intervals as f64;
    let batch = if no_data { 1.0 } else { cfg.batch as f64 };
    let mut cost = Cost::default();
    cost.add(Phase::new(
        "training",
        runs * d * cfg.steps_per_interval as f64 * batch,
        "examples",
        3.0 * weights,
        Basis::Exact,
    ));
    let eval = if no_data { 1.0 } else { (cfg.eval_points as f64).min(n as f64) };
    cost.add(Phase::new(
        "trace records",
        runs * d * cfg.records_per_interval as f64 * eval,
        "examples",
        weights,
        Basis::Bound,
    ));
    if q > 0 {
        let per_interval = (q * (cfg.records_per_interval + 1)) as f64;
        let fits: f64 = (0..cfg.intervals.saturating_sub(1))
            .map(|k| {
                let points = (k + 1) as f64 * per_interval;
                let m = (cfg.dynamic.inducing as f64).min(points);
                match cfg.dynamic.model {
                    super::TraceModelKind::Svgp => cfg.dynamic.fit_iters as f64 * points * m * m,
                    super::TraceModelKind::ExactIncrements => ((k + 1) * q).pow(3) as f64,
                }
            })
            .sum();
        // Two latent GPs (the chained model's mean and noise), 4 multiply-adds each per product: a product costs
        // about 4x a training multiply-add (measured natively on one thread: the noisy-quadratic lesson step, all
        // fits, 2.09 s CPU for 3.2e8 products-x-2; the tab default's fits 1.07 s for 2.2e8 and its training 4.05 s
        // for 3.05e9: 5-6.5 against 1.3 ns per unit).
        cost.add(Phase::new("trace model fits", fits, "point x inducing^2 products", 8.0, Basis::Typical));
    }
    cost
}
