//! The `tune` kind as an [`Experiment`]: MAMBA or a baseline tuning an SG-MCMC sampler.

use crate::experiments::cost::Cost;
use crate::experiments::executor::Rounds;
use crate::experiments::sgmcmc::plan::{run_cost, run_summary, ChunkCounter};
use crate::experiments::sgmcmc::problem::{build_problem, data_request, reads_mnist, reads_shipped, use_csv_data};
use crate::experiments::sgmcmc::{
    presets, run_tuning, Event as TuneEvent, Report as TuneReport, TuneConfig, TuningState,
};
use crate::experiments::{DataRequest, Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

/// MAMBA or a baseline tuning an SG-MCMC sampler.
pub struct TuneExperiment {
    cfg: TuneConfig,
}

impl Experiment for TuneExperiment {
    type Config = TuneConfig;
    type Detail = TuneEvent;
    type Output = TuneReport;
    const NAME: &'static str = "tune";
    const UNIT: &'static str = "gradient evaluations";
    const PRESETS: &'static [&'static str] = presets::PRESETS;
    const LABEL: &'static str = "MAMBA / KSD tuning";
    const PANEL_FIELDS: &'static [&'static str] = crate::experiments::sgmcmc::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<TuneConfig> {
        presets::preset(name)
    }
    fn needs_mnist(cfg: &TuneConfig) -> bool {
        reads_mnist(&cfg.data)
    }
    fn shipped(cfg: &TuneConfig) -> Vec<crate::data::Shipped> {
        reads_shipped(&cfg.data)
    }
    fn use_csv(cfg: &mut TuneConfig, path: &str, label: &str, standardize: bool) -> Result<()> {
        use_csv_data(&mut cfg.data, path, label, standardize);
        Ok(())
    }
    fn set_seed(cfg: &mut TuneConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: TuneConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &TuneConfig {
        &self.cfg
    }
    fn unit(&self) -> &'static str {
        crate::experiments::sgmcmc::plan::budget_unit_name(&self.cfg)
    }
    fn summary(&self) -> serde_json::Value {
        run_summary(&self.cfg)
    }
    fn cost(&self) -> Cost {
        run_cost(&self.cfg)
    }
    fn data_request(&self) -> Option<DataRequest> {
        data_request(&self.cfg.data, self.cfg.model.kind() == "pmf")
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, TuneEvent),
        stop: &AtomicBool,
    ) -> Result<TuneReport> {
        self.run_rounds(inputs, progress, stop, Rounds::default())
    }
    fn run_rounds(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, TuneEvent),
        stop: &AtomicBool,
        mut rounds: Rounds,
    ) -> Result<TuneReport> {
        let problem = build_problem(&self.cfg, inputs)?;
        let resume: Option<TuningState> = rounds.take_resume()?;
        let n_test = problem.test.as_ref().map_or(0, |t| t.n_data());
        let mut count = ChunkCounter::for_run(&self.cfg, problem.n_data, n_test, problem.dim);
        count.resume_after(resume.as_ref().map_or(&[][..], |s| &s.rounds));
        run_tuning(
            &self.cfg,
            &problem,
            &mut |e| {
                count.see(e);
                progress(count.done, count.total, e.clone())
            },
            stop,
            resume,
            rounds.checkpoint,
        )
    }

    fn message(detail: &TuneEvent) -> Option<String> {
        crate::experiments::sgmcmc::text::round_message(detail)
    }
    fn ends_round(detail: &TuneEvent) -> bool {
        crate::experiments::sgmcmc::text::ends_round(detail)
    }
    fn table(_: &TuneConfig, output: &TuneReport) -> String {
        super::text::table(output)
    }
}
