//! The `hoag` kind as an [`Experiment`]: HOAG against its baselines.

use super::{HoagConfig, HoagData, HoagEvent, HoagReport};
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

    fn preset(name: &str) -> Result<HoagConfig> {
        HoagConfig::preset(name)
    }
    fn needs_mnist(cfg: &HoagConfig) -> bool {
        matches!(cfg.data, HoagData::Mnist { .. })
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
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.data {
            HoagData::Csv { path, label } => Some(DataRequest::labelled(Some(path), label)),
            HoagData::Upload { label } => Some(DataRequest::labelled(None, label)),
            HoagData::Svmlight { path } => Some(DataRequest { path: path.clone(), label: String::new(), format: DataFormat::Svmlight }),
            _ => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, HoagEvent), stop: &AtomicBool) -> Result<HoagReport> {
        let total = self.cfg.methods.len() as f64;
        let budget = self.cfg.budget.cost.max(1) as f64;
        if let Some(ds) = inputs.data.as_ref().filter(|_| matches!(self.cfg.problem, crate::experiments::hoag::ProblemKind::KernelRidge)) {
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
                HoagEvent::Progress { method, point, .. } => done = *method as f64 + (point.cost as f64 / budget).min(1.0),
                HoagEvent::MethodDone { method, .. } => done = *method as f64 + 1.0,
                HoagEvent::Done {} => done = total,
                _ => {}
            }
            progress(done, total, e.clone())
        };
        if let HoagData::Svmlight { .. } = self.cfg.data {
            let sparse = inputs.sparse.as_ref().ok_or_else(|| crate::Error::config("data source svmlight: no svmlight file was given"))?;
            return crate::experiments::hoag::run_sparse(&self.cfg, sparse, &mut observe, stop);
        }
        crate::experiments::hoag::run_checked(&self.cfg, inputs.data.as_ref(), &mut observe, stop)
    }
}
