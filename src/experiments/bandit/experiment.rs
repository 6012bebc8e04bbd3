//! The `bandit` kind as an [`Experiment`]: bandit algorithms with exact regret, and their memory estimate.

use super::{AlgoSpec, BanditConfig, BanditEvent, BanditReport, ProblemSpec};
use crate::experiments::tune::experiment::tune_data_request;
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

pub struct BanditExperiment {
    cfg: BanditConfig,
    /// The algorithms with the floor added (what `validate` returned).
    algos: Vec<AlgoSpec>,
}

impl Experiment for BanditExperiment {
    type Config = BanditConfig;
    type Detail = BanditEvent;
    type Output = BanditReport;
    const NAME: &'static str = "bandit";
    const UNIT: &'static str = "rounds";
    const PRESETS: &'static [&'static str] = &super::config::PRESETS;

    fn preset(name: &str) -> Result<BanditConfig> {
        BanditConfig::preset(name)
    }
    fn needs_mnist(cfg: &BanditConfig) -> bool {
        use super::hpo::{DigitData, HpoModel};
        use ProblemSpec as P;
        match &cfg.problem {
            P::SgmcmcKsd(s) => crate::experiments::tune::experiment::reads_mnist(&s.data),
            P::Hpo(h) => match &h.model {
                HpoModel::Mlp { data, .. } => matches!(data, DigitData::Mnist { .. }),
                HpoModel::KernelRidge { .. } | HpoModel::Svm { .. } => false,
            },
            P::Bernoulli { .. } | P::Reservoir { .. } | P::Function { .. } | P::TvoSchedule { .. } | P::LogregSgd(_) => false,
        }
    }
    fn use_csv(cfg: &mut BanditConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        match &mut cfg.problem {
            ProblemSpec::SgmcmcKsd(spec) => {
                crate::experiments::tune::experiment::use_csv_data(&mut spec.data, path, label, standardize);
                Ok(())
            }
            _ => Err(crate::Error::config("--data applies to the bandit problem sgmcmc-ksd only")),
        }
    }
    fn set_seed(cfg: &mut BanditConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(mut cfg: BanditConfig) -> Result<Self> {
        let algos = cfg.validate()?;
        bandit_memory(&cfg, &algos).check()?;
        cfg.algorithms = algos.clone();
        Ok(Self { cfg, algos })
    }
    fn config(&self) -> &BanditConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<String> = self.algos.iter().map(AlgoSpec::name).collect();
        serde_json::json!({ "algorithms": names, "rounds": self.cfg.rounds, "repeats": self.cfg.repeats })
    }
    fn data_request(&self) -> Option<DataRequest> {
        match &self.cfg.problem {
            ProblemSpec::SgmcmcKsd(spec) => tune_data_request(&spec.data, false),
            _ => None,
        }
    }
    fn run(&self, inputs: Inputs, progress: &mut dyn FnMut(f64, f64, BanditEvent), stop: &AtomicBool) -> Result<BanditReport> {
        let total = self.cfg.rounds as f64;
        crate::experiments::bandit::run_checked(&self.cfg, &self.algos, inputs.data, &mut |e| {
            let done = match e {
                BanditEvent::Progress { round, .. } => *round as f64,
                BanditEvent::Done { .. } => total,
                _ => 0.0,
            };
            progress(done, total, e.clone())
        }, stop)
    }
}

/// Floats of one f64, in bytes.
const F64: f64 = 8.0;

/// What a bandit comparison holds at its peak (README, "Limits"): every repeat of every algorithm runs at once
/// in the worst case of the pool, a GP-UCB repeat holds about three `rounds x rounds` matrices (kernel,
/// Cholesky factor, a copy while refitting), and every algorithm and repeat keeps its pull history (about four
/// numbers a round).
fn bandit_memory(cfg: &BanditConfig, algos: &[AlgoSpec]) -> crate::limits::MemoryEstimate {
    let mut est = crate::limits::MemoryEstimate::default();
    let rounds = cfg.rounds as f64;
    let repeats = cfg.repeats as f64;
    let gp_algos = algos.iter().filter(|a| a.name().starts_with("gp-ucb")).count() as f64;
    if gp_algos > 0.0 {
        let at_once = repeats.min(rayon::current_num_threads() as f64);
        est.add("GP-UCB: three rounds x rounds matrices per running repeat", gp_algos * at_once * 3.0 * rounds * rounds * F64);
    }
    est.add("pull histories: algorithms x repeats x rounds x 4", algos.len() as f64 * repeats * rounds * 4.0 * F64);
    est
}

