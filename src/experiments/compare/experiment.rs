//! The `compare` kind as an [`Experiment`]: the paper's comparison of tuners on one problem.

use super::Comparison;
use crate::experiments::compare;
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::executor::Rounds;
use crate::experiments::sgmcmc::plan::{run_cost, run_summary, ChunkCounter};
use crate::experiments::sgmcmc::problem::{build_problem, data_request, problem_size};
use crate::experiments::sgmcmc::{Event as TuneEvent, TuneConfig};
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;

crate::serde_defaults! {
    default_reference_samples: usize = 20_000;
}

/// The paper's comparison of tuners (MAMBA-KSD, MAMBA-FSSD, grid by log-loss, grid by KSD, the heuristic) on
/// the problem of a base tune config, evaluated against a long run of an exact sampler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CompareConfig {
    #[serde(flatten)]
    pub base: TuneConfig,
    /// Samples of the exact reference sampler (MALA) for the posterior-std error; 0 skips it.
    #[serde(default = "default_reference_samples")]
    pub reference_samples: usize,
    /// Run only these tuners of the comparison (by name, e.g. `["MAMBA-KSD", "grid (log-loss)",
    /// "heuristic"]`, the paper's Table 3); empty runs all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tuners: Vec<String>,
    /// The grid (log-loss) baseline's start noise and per-point budget; default the paper's (App. B) by model.
    #[serde(default, skip_serializing_if = "is_default_grid")]
    pub grid_baseline: compare::GridBaseline,
    /// How each tuner's choice is evaluated: `{"kind": "fresh-from-map"}` (default: a fresh chain from the MAP
    /// for the paper's multiple of R, burn-in removed; `budget`, `burn_in` override) or `{"kind":
    /// "tuning-chain"}` (the chosen arm's tuning chain, no extra run; not the paper's protocol).
    #[serde(default, skip_serializing_if = "is_default_evaluation")]
    pub evaluation: compare::EvaluationSpec,
}

fn is_default_evaluation(e: &compare::EvaluationSpec) -> bool {
    *e == compare::EvaluationSpec::default()
}

fn is_default_grid(g: &compare::GridBaseline) -> bool {
    *g == compare::GridBaseline::default()
}

impl CompareConfig {
    pub fn from_base(base: TuneConfig) -> Self {
        Self {
            base,
            reference_samples: default_reference_samples(),
            tuners: Vec::new(),
            grid_baseline: Default::default(),
            evaluation: Default::default(),
        }
    }

    /// What this comparison's exact reference depends on (a saved reference must carry the same key).
    pub fn reference_key(&self) -> compare::ReferenceKey {
        compare::ReferenceKey {
            data: self.base.data.clone(),
            model: self.base.model.clone(),
            seed: self.base.seed,
            samples: self.reference_samples,
        }
    }

    /// The comparison preset `name`: its tune preset as the base; `mnist-bnn` is the paper's Table 3 (MAMBA-KSD,
    /// grid by log-loss, the heuristic; no exact reference at d = 79,510).
    pub fn preset(name: &str) -> crate::Result<Self> {
        let mut c = Self::from_base(crate::experiments::sgmcmc::presets::preset(name)?);
        if name == "pmf" {
            // Table 2: no exact reference at d = 52,500 here (the paper ran NUTS, "10K samples with 1K samples as
            // burn-in", about six hours, sec. 4.2).
            c.reference_samples = 0;
        }
        if name == "mnist-bnn" || name == "mnist-bnn-page" || name == "pmf-page" {
            // The page's pmf comparison runs Table 3's three tuners too (time in a browser).
            c.reference_samples = 0;
            c.tuners = ["MAMBA-KSD", "grid (log-loss)", "heuristic"].map(String::from).to_vec();
        }
        if name.ends_with("-page") {
            // Browser scale: the grid (log-loss) baseline keeps the comparison's per-arm budget R per grid point,
            // not App. B's 5,000 / 2,000 / 1,000 iterations (up to 4x the time with SGHMC's leapfrog steps); its
            // start noise is the paper's.
            c.grid_baseline.budget = Some(c.base.budget);
            // Browser scale too: the fresh evaluation chain from the MAP runs for R (burn-in as the paper's
            // model), not the paper's 10 R / 2 R / 30 R (`EvaluationSpec::paper_defaults`), which would make a
            // page comparison up to 30 times longer. The page labels it (state `gridr`, www/panels/tune/state.js).
            c.evaluation = compare::EvaluationSpec::FreshFromMap { budget: Some(c.base.budget), burn_in: None };
        }
        if name == "paper-logreg-page" {
            // Table 1 at browser scale: a shorter exact reference (4,000 MALA draws) for xi.
            c.reference_samples = 4_000;
        }
        Ok(c)
    }
}

/// A progress detail of a comparison: the exact reference sampler's progress (the first phase, before any
/// tuner runs, when the comparison computes its reference), or a tuner's event. A stopped comparison's
/// `reached` ends with the last of these, so a stop during the reference says how far the reference got.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CompareDetail {
    /// `{"type": "reference", "done", "total", "unit"}`.
    Reference(ReferenceProgress),
    /// `{"tuner", "index", "type", ...}`.
    Tuner(TunerDetail),
    /// `{"type": "evaluation", "tuner", "index", "done", "total", "unit"}`: the fresh evaluation chain of a
    /// tuner's choice, after its tuning run (at d = 79,510 one chain ran for minutes with no other event).
    Evaluation(EvaluationProgress),
}

/// The progress of a tuner's fresh evaluation chain ([`compare::fresh_chain_observed`]): done of total in the
/// evaluation budget's unit, burn-in included; reported at its start and at every further percent. The
/// comparison's progress (in tuners) stays at the tuner's index + 1 meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "evaluation")]
pub struct EvaluationProgress {
    pub tuner: String,
    pub index: usize,
    pub done: f64,
    pub total: f64,
    /// `"gradient evaluations"`, `"iterations"` or `"seconds"`.
    pub unit: &'static str,
}

/// The reference phase's own progress: MALA iterations done of the reference run's total (warm-up and
/// sampling, [`crate::sampler::reference_sample_observed`]). The comparison's progress (in tuners) stays at 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "reference")]
pub struct ReferenceProgress {
    pub done: u64,
    pub total: u64,
    /// Always `"MALA iterations"`.
    pub unit: &'static str,
}

/// A tuner's event in a comparison: which tuner, and its event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TunerDetail {
    pub tuner: String,
    /// Index of the tuner in the comparison.
    pub index: usize,
    #[serde(flatten)]
    pub event: TuneEvent,
}

pub struct CompareExperiment {
    cfg: CompareConfig,
    tuners: Vec<(String, TuneConfig)>,
}

impl Experiment for CompareExperiment {
    type Config = CompareConfig;
    type Detail = CompareDetail;
    type Output = Comparison;
    const NAME: &'static str = "compare";
    const UNIT: &'static str = "tuners";
    const PRESETS: &'static [&'static str] = crate::experiments::sgmcmc::presets::PRESETS;
    const LABEL: &'static str = "MAMBA / KSD tuning (comparison)";
    const PANEL: &'static str = "tune";
    const PANEL_FIELDS: &'static [&'static str] = crate::experiments::sgmcmc::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<CompareConfig> {
        CompareConfig::preset(name)
    }
    fn needs_mnist(cfg: &CompareConfig) -> bool {
        crate::experiments::sgmcmc::problem::reads_mnist(&cfg.base.data)
    }
    fn shipped(cfg: &CompareConfig) -> Vec<crate::data::Shipped> {
        crate::experiments::sgmcmc::problem::reads_shipped(&cfg.base.data)
    }
    fn use_csv(cfg: &mut CompareConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        crate::experiments::sgmcmc::problem::use_csv_data(&mut cfg.base.data, path, label, standardize);
        Ok(())
    }
    fn set_seed(cfg: &mut CompareConfig, seed: u64) {
        cfg.base.seed = seed;
    }

    fn check(cfg: CompareConfig) -> Result<Self> {
        cfg.base.validate()?;
        cfg.evaluation.validate()?;
        let mut tuners = compare::paper_tuners_with(&cfg.base, &cfg.grid_baseline);
        if let Some(unknown) = cfg.tuners.iter().find(|n| !tuners.iter().any(|t| &t.0 == *n)) {
            let names: Vec<&str> = tuners.iter().map(|t| t.0.as_str()).collect();
            return Err(crate::Error::config(format!(
                "compare: unknown tuner \"{unknown}\"; tuners: {}",
                names.join(", ")
            )));
        }
        if !cfg.tuners.is_empty() {
            tuners.retain(|t| cfg.tuners.contains(&t.0));
        }
        for (name, t) in &tuners {
            t.validate().map_err(|e| crate::Error::config(format!("{name}: {e}")))?;
        }
        Ok(Self { cfg, tuners })
    }
    fn config(&self) -> &CompareConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<&str> = self.tuners.iter().map(|t| t.0.as_str()).collect();
        // The comparison's cost model, known before it runs: each tuner's budget unit, arms and rounds (the
        // schedule its `started` event carries) and the evaluation chain's budget, from which the page
        // estimates the time of the whole comparison.
        let plans: Vec<serde_json::Value> = self
            .tuners
            .iter()
            .map(|(name, t)| {
                let unit = t.budget.unit_amount().ok().map(|(u, _)| u);
                serde_json::json!({ "name": name, "unit": unit, "plan": run_summary(t) })
            })
            .collect();
        let evaluation = self
            .cfg
            .evaluation
            .resolve(&self.cfg.base)
            .map(|p| serde_json::json!({ "budget": p.budget, "burn_in": p.burn_in }));
        serde_json::json!({ "tuners": names, "base": run_summary(&self.cfg.base), "plans": plans, "evaluation": evaluation, "reference_samples": self.cfg.reference_samples })
    }
    /// The comparison's cost model: the MAP once, the exact reference (MALA: warm-up n/2 and n draws thinned by
    /// 5, one full-data gradient each, `compare::reference`), each tuner's run without its own MAP
    /// ([`tune_cost`]), and each tuner's evaluation: its fresh chain (the plan's budget; with an iterations
    /// budget counted at the largest gradient evaluations per iteration of its arms, a bound) and the scores of
    /// at most `EVAL_ROWS` samples with their KSD pairs (a bound). A saved reference skips the reference phase.
    fn cost(&self) -> Cost {
        let Some(size) = problem_size(&self.cfg.base) else {
            return Cost::unknown("the data's size is known once the file is read");
        };
        let (n, per) = (size.n_train as f64, size.per_point);
        let mut cost = Cost::default();
        let base = run_cost(&self.cfg.base);
        if let Some(map) = base.phases.iter().find(|p| p.name == "MAP") {
            cost.add(map.clone());
        }
        let mala = self.cfg.reference_samples as f64 * 5.5;
        cost.add(Phase::new("reference", mala * n, "gradient evaluations", per, Basis::Exact));
        let plan = self.cfg.evaluation.resolve(&self.cfg.base);
        // The evaluation chain's samples: at most EVAL_ROWS, and no more than its buffer keeps (fewer than twice
        // `chain_cap`: 315 for the 13,268 weights of mnist-bnn-page) or its thinned iterations after the burn-in
        // give. The chosen arm is not known before the run: its gradient evaluations per iteration are taken as the
        // median arm's (a typical count; the largest arm's for an iterations budget's bound on the chain itself).
        let cap = crate::experiments::sgmcmc::samples::chain_cap(
            size.dim as usize,
            0,
            crate::experiments::sgmcmc::tuning::REPORT_SAMPLES,
            1,
        );
        for (name, t) in &self.tuners {
            let mut c = run_cost(t);
            if c.unknown.is_some() {
                return c;
            }
            c.phases.retain(|p| p.name != "MAP");
            let g = grads_per_iter(t, size.n_train);
            let median = g.get(g.len() / 2).copied().unwrap_or(1.0).max(1.0);
            let (eval_chain, iters) = match &plan {
                None => (0.0, 0.0),
                Some(p) => match p.budget.unit_amount() {
                    Ok((crate::experiments::sgmcmc::BudgetUnit::GradEvals, g)) => (g, g * (1.0 - p.burn_in) / median),
                    Ok((crate::experiments::sgmcmc::BudgetUnit::Iterations, k)) => {
                        (k * max_grad_per_iter(t, size.n_train), k * (1.0 - p.burn_in))
                    }
                    Ok((crate::experiments::sgmcmc::BudgetUnit::Seconds, s)) => {
                        c.seconds += s;
                        (0.0, f64::INFINITY)
                    }
                    Err(_) => (0.0, 0.0),
                },
            };
            // The tuning chain's samples (`evaluation: tuning-chain`): the report's, at most EVAL_ROWS.
            let rows = if plan.is_none() {
                compare::EVAL_ROWS.min(crate::experiments::sgmcmc::tuning::REPORT_SAMPLES.max(t.metric.max_samples))
                    as f64
            } else if iters.is_finite() {
                eval_rows(iters, t.thin, cap)
            } else {
                compare::EVAL_ROWS.min(2 * cap - 1) as f64
            };
            c.add(Phase::new("evaluation", eval_chain, "gradient evaluations", per, Basis::Bound));
            c.add(Phase::new("evaluation scores", rows * n, "gradient evaluations", per, Basis::Typical));
            c.add(Phase::new("evaluation KSD pairs", rows * rows, "sample pairs", 4.0 * size.dim, Basis::Typical));
            cost.extend_prefixed(name, c);
        }
        cost
    }
    fn data_request(&self) -> Option<DataRequest> {
        data_request(&self.cfg.base.data, self.cfg.base.model.kind() == "pmf")
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, CompareDetail),
        stop: &AtomicBool,
    ) -> Result<Comparison> {
        self.run_rounds(inputs, progress, stop, Rounds::default())
    }
    fn run_rounds(
        &self,
        mut inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, CompareDetail),
        stop: &AtomicBool,
        rounds: Rounds,
    ) -> Result<Comparison> {
        let saved = inputs.reference.take();
        if let Some(s) = &saved {
            // the key before the problem is built (the MAP takes time), the dimension after
            s.check_key(&self.cfg.reference_key())?;
        }
        let problem = build_problem(&self.cfg.base, inputs)?;
        let given = match saved {
            Some(s) => Some(s.fits(problem.dim)?.clone()),
            None => None,
        };
        let total = self.tuners.len() as f64;
        let mut index = 0usize;
        let n_test = problem.test.as_ref().map_or(0, |t| t.n_data());
        let mut count = ChunkCounter::default();
        let plan = self.cfg.evaluation.resolve(&self.cfg.base);
        // One progress callback for both phases (the reference, then the tuners), called from one thread.
        let progress = std::cell::RefCell::new(progress);
        compare::compare(
            &self.tuners,
            &problem,
            self.cfg.reference_samples,
            given,
            plan,
            &mut |name, e| {
                if matches!(e, TuneEvent::Started { .. }) {
                    index = self.tuners.iter().position(|t| t.0 == name).unwrap_or(index);
                    // Each tuner's scores are counted under its own metric.
                    count = ChunkCounter::for_run(&self.tuners[index].1, problem.n_data, n_test, problem.dim);
                }
                count.see(e);
                let frac = if count.total > 0.0 { count.done / count.total } else { 0.0 };
                let detail = CompareDetail::Tuner(TunerDetail { tuner: name.to_string(), index, event: e.clone() });
                (*progress.borrow_mut())(index as f64 + frac, total, detail)
            },
            &mut |done, all| {
                let detail = CompareDetail::Reference(ReferenceProgress { done, total: all, unit: "MALA iterations" });
                (*progress.borrow_mut())(0.0, total, detail)
            },
            &mut |name, done, all, unit| {
                let i = self.tuners.iter().position(|t| t.0 == name).unwrap_or(0);
                let detail = CompareDetail::Evaluation(EvaluationProgress {
                    tuner: name.to_string(),
                    index: i,
                    done,
                    total: all,
                    unit,
                });
                (*progress.borrow_mut())(i as f64 + 1.0, total, detail)
            },
            stop,
            rounds,
        )
    }

    fn message(detail: &CompareDetail) -> Option<String> {
        super::text::message(detail)
    }
    fn stage(detail: &CompareDetail) -> Option<crate::experiments::Stage> {
        super::text::stage(detail)
    }
    fn ends_round(detail: &CompareDetail) -> bool {
        matches!(detail, CompareDetail::Tuner(t) if crate::experiments::sgmcmc::text::ends_round(&t.event))
    }
    fn table(_: &CompareConfig, output: &Comparison) -> String {
        super::text::table(output)
    }
}

/// The most gradient evaluations per iteration over a tuner's arms (its evaluation chain runs one of them).
/// Gradient evaluations per iteration of each of a tuner's arms (its arms that fit the data), sorted.
fn grads_per_iter(t: &TuneConfig, n_train: usize) -> Vec<f64> {
    let arms = crate::experiments::sgmcmc::arms::tuner_arms(
        &t.tuner,
        &t.arms,
        t.sampler.kind,
        n_train,
        &mut crate::rng::stream(t.seed, crate::experiments::sgmcmc::tuning::STREAM_TUNER),
    )
    .unwrap_or_default();
    let mut g: Vec<f64> = arms
        .iter()
        .filter_map(|a| {
            crate::sampler::SamplerParams {
                kind: t.sampler.kind,
                step: a.step,
                batch: a.batch,
                leapfrog: a.leapfrog,
                friction: t.sampler.friction,
                thermostat_a: t.sampler.thermostat_a,
                with_replacement: t.sampler.with_replacement,
            }
            .validate(n_train.max(1))
            .ok()
            .map(|p| p.grad_evals_per_iter() as f64)
        })
        .collect();
    g.sort_by(f64::total_cmp);
    g
}

fn max_grad_per_iter(t: &TuneConfig, n_train: usize) -> f64 {
    grads_per_iter(t, n_train).last().copied().unwrap_or(0.0)
}

/// The samples a fresh evaluation chain of `iters` iterations after its burn-in hands to the scores
/// (`compare::fresh_chain_observed`): every `thin`-th iteration's sample into a stride buffer of `cap` (it keeps
/// fewer than `2 cap` rows, halving them as it fills), then at most `EVAL_ROWS` of those.
fn eval_rows(iters: f64, thin: usize, cap: usize) -> f64 {
    let n = (iters / thin.max(1) as f64).floor().max(0.0);
    let cap = cap.max(1) as f64;
    let mut stride = 1.0;
    while (n / stride).ceil() >= 2.0 * cap {
        stride *= 2.0;
    }
    (n / stride).ceil().min(compare::EVAL_ROWS as f64)
}

#[cfg(test)]
mod tests {
    use super::eval_rows;
    use crate::experiments::compare::EVAL_ROWS;
    use crate::experiments::sgmcmc::samples::StrideBuffer;

    /// The evaluation's row count is the stride buffer's after the thinned samples, at most EVAL_ROWS.
    #[test]
    fn eval_rows_is_what_the_stride_buffer_keeps() {
        for cap in [1usize, 2, 7, 158, 419, 500] {
            for iters in [0usize, 1, 9, 10, 11, 99, 316, 317, 1000, 4321, 100_000] {
                for thin in [1usize, 5] {
                    let mut buf = StrideBuffer::new(1, cap);
                    for _ in 0..iters / thin {
                        buf.push(&[0.0]);
                    }
                    let want = buf.len().min(EVAL_ROWS) as f64;
                    assert_eq!(eval_rows(iters as f64, thin, cap), want, "cap {cap}, iters {iters}, thin {thin}");
                }
            }
        }
    }
}
