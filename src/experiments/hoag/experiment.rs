//! The `hoag` kind as an [`Experiment`]: HOAG against its baselines.

use super::{HoagConfig, HoagData, HoagEvent, HoagReport};
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::{DataFormat, DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct HoagExperiment {
    cfg: HoagConfig,
}

impl Experiment for HoagExperiment {
    type Config = HoagConfig;
    type Detail = HoagEvent;
    type Output = HoagReport;
    const NAME: &'static str = "hoag";
    const UNIT: &'static str = "methods";
    const PRESETS: &'static [&'static str] = &["logreg", "kernel-ridge"];
    const LABEL: &'static str = "HOAG (hyperparameter gradients)";
    const PANEL_FIELDS: &'static [&'static str] = super::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<HoagConfig> {
        HoagConfig::preset(name)
    }
    fn needs_mnist(cfg: &HoagConfig) -> bool {
        matches!(cfg.data, HoagData::Mnist { .. })
    }
    fn shipped(cfg: &HoagConfig) -> Vec<crate::data::Shipped> {
        use crate::data::Shipped;
        match cfg.data {
            HoagData::Digits => vec![Shipped::Digits],
            HoagData::Diabetes => vec![Shipped::Diabetes],
            HoagData::Simulate { .. }
            | HoagData::Mnist { .. }
            | HoagData::Csv { .. }
            | HoagData::Upload { .. }
            | HoagData::Svmlight { .. } => Vec::new(),
        }
    }
    fn use_csv(cfg: &mut HoagConfig, path: &str, label: &str, _standardize: bool) -> Result<()> {
        cfg.data = HoagData::Csv { path: path.into(), label: Some(label.into()) };
        Ok(())
    }
    fn set_seed(cfg: &mut HoagConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: HoagConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &HoagConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<String> = self.cfg.methods.iter().map(|m| m.name()).collect();
        serde_json::json!({ "methods": names, "hyperparameters": self.cfg.n_hyper() })
    }
    fn cost(&self) -> Cost {
        hoag_cost(&self.cfg)
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            HoagData::Csv { path, label } => Some(DataRequest::labelled(Some(path), label)),
            HoagData::Upload { label } => Some(DataRequest::labelled(None, label)),
            HoagData::Svmlight { path } => {
                Some(DataRequest { path: path.clone(), label: String::new(), format: DataFormat::Svmlight })
            }
            _ => None,
        }
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, HoagEvent),
        stop: &AtomicBool,
    ) -> Result<HoagReport> {
        let total = self.cfg.methods.len() as f64;
        let budget = self.cfg.budget.cost.max(1) as f64;
        if let Some(ds) = inputs
            .data
            .as_ref()
            .filter(|_| matches!(self.cfg.problem, crate::experiments::hoag::ProblemKind::KernelRidge))
        {
            // Kernel ridge holds kernel matrices over the training third (n/3 x n/3; about three of them):
            // refused before building when the file is too large for the memory limit.
            let m = ds.n.div_ceil(3) as f64;
            let mut est = crate::limits::MemoryEstimate::default();
            est.add("data n x p x 8", ds.n as f64 * ds.p as f64 * 8.0);
            est.add("kernel ridge n/3 x n/3 kernel matrices", 3.0 * m * m * 8.0);
            est.check()?;
        }
        let mut done = 0.0;
        let mut observe = |e: &HoagEvent| {
            match e {
                HoagEvent::Progress { method, point, .. } => {
                    done = *method as f64 + (point.cost as f64 / budget).min(1.0)
                }
                HoagEvent::MethodDone { method, .. } => done = *method as f64 + 1.0,
                HoagEvent::Done {} => done = total,
                _ => {}
            }
            progress(done, total, e.clone())
        };
        if let HoagData::Svmlight { .. } = self.cfg.data {
            let sparse = inputs
                .sparse
                .as_ref()
                .ok_or_else(|| crate::Error::config("data source svmlight: no svmlight file was given"))?;
            return crate::experiments::hoag::run_sparse(&self.cfg, sparse, &mut observe, stop);
        }
        crate::experiments::hoag::run_checked(&self.cfg, inputs.data.as_ref(), &mut observe, stop)
    }

    fn message(detail: &HoagEvent) -> Option<String> {
        super::text::message(detail)
    }
    fn table(_: &HoagConfig, output: &HoagReport) -> String {
        super::text::table(output)
    }
}

/// `(n, p)` of HOAG's built-in data (before the split in thirds); `None` for files.
fn hoag_shape(cfg: &HoagConfig) -> Option<(usize, usize)> {
    match &cfg.data {
        HoagData::Simulate { n, d, .. } => Some((*n, *d)),
        HoagData::Digits => Some((1797, 64)),
        HoagData::Diabetes => Some((442, 10)),
        HoagData::Mnist { per_class, pool, .. } => {
            let side = 28 / (*pool).max(1);
            Some((2 * per_class, side * side))
        }
        _ => None,
    }
}

/// Passes over the train third an accurate inner solve (the landscape's, the curves' and the final ones, to
/// `blackbox_tol`, warm-started) typically takes.
const TYPICAL_SOLVE_PASSES: f64 = 20.0;

/// The cost model of a HOAG comparison, in passes over the train third as the methods count them
/// (`HoagMethodReport::cost`: each method stops at `budget.cost`, a bound; one pass is `n/3 x p` multiply-adds
/// for logistic regression, `(n/3)^2` for kernel ridge's kernel matrix), plus the accurate solves that are not
/// on the methods' clock (typical length [`TYPICAL_SOLVE_PASSES`]): one per trace point (at most `max_iter`)
/// and the final one per method, and the landscape's grid (`landscape_points` per hyperparameter axis, squared
/// for two hyperparameters).
pub(crate) fn hoag_cost(cfg: &HoagConfig) -> Cost {
    use crate::experiments::hoag::ProblemKind;
    let Some((n, p)) = hoag_shape(cfg) else {
        return Cost::unknown("the data's size is known once the file is read");
    };
    let n_train = n.div_ceil(3) as f64;
    let per_pass = match cfg.problem {
        ProblemKind::KernelRidge => n_train * n_train,
        _ => n_train * p as f64,
    };
    let mut cost = Cost::default();
    let methods = cfg.methods.len() as f64;
    cost.add(Phase::new("methods", methods * cfg.budget.cost as f64, "passes", per_pass, Basis::Bound));
    if cfg.reference_runs > 0 {
        // the HOAG runs that define the reference optimum, each on a method's budget plus its final solve
        let runs = cfg.reference_runs as f64;
        cost.add(Phase::new(
            "reference runs",
            runs * (cfg.budget.cost as f64 + TYPICAL_SOLVE_PASSES),
            "passes",
            per_pass,
            Basis::Bound,
        ));
    }
    let solves = methods * (cfg.budget.max_iter as f64 + 1.0);
    cost.add(Phase::new("accurate solves", solves * TYPICAL_SOLVE_PASSES, "passes", per_pass, Basis::Typical));
    if cfg.landscape_points >= 2 {
        let k = cfg.landscape_points as f64;
        let points = if cfg.n_hyper() == Some(2) { k * k } else { k };
        cost.add(Phase::new("landscape", points * TYPICAL_SOLVE_PASSES, "passes", per_pass, Basis::Typical));
    }
    // `budget.seconds` (off by default) only shortens a method: the passes stay a bound.
    cost
}
