//! The `tvo` kind as an [`Experiment`]: a VAE trained by the TVO while GP-UCB chooses its schedule.

use super::{TvoConfig, TvoEvent, TvoReport};
use crate::experiments::cost::{Basis, Cost, Phase};
use crate::experiments::{Experiment, Inputs};
use crate::Result;
use std::sync::atomic::AtomicBool;

/// A VAE trained by the TVO while GP-UCB and the paper's baselines choose its schedule (`crate::experiments::tvo`).
pub struct TvoExperiment {
    cfg: TvoConfig,
}

impl Experiment for TvoExperiment {
    type Config = TvoConfig;
    type Detail = TvoEvent;
    type Output = TvoReport;
    const NAME: &'static str = "tvo";
    const UNIT: &'static str = "windows";
    const PRESETS: &'static [&'static str] = &["digits", "mnist", "mnist-page", "mnist-paper"];
    const LABEL: &'static str = "TVO schedules (GP-UCB, a VAE trained live)";
    const PANEL_FIELDS: &'static [&'static str] = super::panel::PANEL_FIELDS;

    fn preset(name: &str) -> Result<TvoConfig> {
        TvoConfig::preset(name)
    }
    fn needs_mnist(cfg: &TvoConfig) -> bool {
        matches!(cfg.data, super::TvoData::Mnist { .. })
    }
    fn shipped(cfg: &TvoConfig) -> Vec<crate::data::Shipped> {
        match cfg.data {
            super::TvoData::Digits => vec![crate::data::Shipped::Digits],
            super::TvoData::Mnist { .. } => Vec::new(),
        }
    }
    fn use_csv(_cfg: &mut TvoConfig, _path: &str, _label: &str, _standardize: bool) -> Result<()> {
        Err(crate::Error::config("the tvo experiment trains on the built-in digits or MNIST"))
    }
    fn set_seed(cfg: &mut TvoConfig, seed: u64) {
        cfg.seed = seed;
    }

    fn check(cfg: TvoConfig) -> Result<Self> {
        cfg.validate()?;
        Ok(Self { cfg })
    }
    fn config(&self) -> &TvoConfig {
        &self.cfg
    }
    fn summary(&self) -> serde_json::Value {
        let names: Vec<&str> = self.cfg.methods.iter().map(|m| m.name()).collect();
        serde_json::json!({ "methods": names, "windows": self.cfg.windows(), "repeats": self.cfg.repeats, "d": self.cfg.d })
    }
    fn cost(&self) -> Cost {
        tvo_cost(&self.cfg)
    }
    fn run(
        &self,
        inputs: Inputs,
        progress: &mut dyn FnMut(f64, f64, TvoEvent),
        stop: &AtomicBool,
    ) -> Result<TvoReport> {
        // One unit per window, one for the final IWAE evaluation; under the growing window rule (each run on its
        // own clock, early updates) one unit per epoch instead.
        let fixed = match self.cfg.window {
            super::WindowRule::Fixed(w) => Some(w),
            _ => None,
        };
        let total = match fixed {
            Some(_) => self.cfg.windows() as f64 + 1.0,
            None => self.cfg.epochs as f64 + 1.0,
        };
        crate::experiments::tvo::run_checked(
            &self.cfg,
            inputs.data.as_ref(),
            &mut |e| {
                let done = match (e, fixed) {
                    (TvoEvent::Started { .. }, _) => 0.0,
                    (TvoEvent::Epoch { window, epoch }, Some(w)) => {
                        *window as f64 + (epoch - window * w) as f64 / w as f64
                    }
                    (TvoEvent::Window { window, .. }, Some(_)) => *window as f64 + 1.0,
                    (TvoEvent::Epoch { epoch, .. } | TvoEvent::Window { epoch, .. }, None) => *epoch as f64,
                    (TvoEvent::Done { .. }, _) => total,
                };
                progress(done, total, e.clone())
            },
            stop,
        )
    }

    fn message(detail: &TvoEvent) -> Option<String> {
        super::text::message(detail)
    }
    fn table(_: &TvoConfig, output: &TvoReport) -> String {
        super::text::table(output)
    }
}

/// The cost model of a TVO comparison: every run (methods x repeats) trains its VAE for the trained epochs over
/// the training images (counted in image-epochs, as `TvoEvent::Epoch` counts epochs of `n_train` images; one
/// image: the encoder once and the decoder for each of the `particles` importance samples, forward and backward,
/// about 3 multiply-adds per weight), and evaluates: the reward's bound on `eval_size` images with
/// `eval_particles` samples at every window's end (every epoch under the early-update rule: a bound), the test
/// curve (`curve_k`) per window and the final IWAE (`iwae_k`) on the test images.
pub(crate) fn tvo_cost(cfg: &TvoConfig) -> Cost {
    let (images, pixels) = match cfg.data {
        super::TvoData::Digits => (1797usize, 64usize),
        super::TvoData::Mnist { pool, per_class } => {
            let side = 28 / pool.max(1);
            (per_class.map_or(10_000, |c| (10 * c).min(10_000)), side * side)
        }
    };
    let n_train = images.saturating_sub(cfg.test_size) as f64;
    let n_test = cfg.test_size as f64;
    // Encoder p -> hidden... -> 2 x latent (mean, log-variance); decoder latent -> hidden reversed -> p.
    let mut widths = vec![pixels];
    widths.extend(&cfg.hidden);
    let enc: f64 = widths.windows(2).map(|w| (w[0] * w[1]) as f64).sum::<f64>()
        + (*widths.last().unwrap_or(&pixels) * 2 * cfg.latent) as f64;
    let mut back = vec![cfg.latent];
    back.extend(cfg.hidden.iter().rev());
    back.push(pixels);
    let dec: f64 = back.windows(2).map(|w| (w[0] * w[1]) as f64).sum();
    let runs = (cfg.methods.len() * cfg.repeats) as f64;
    let mut cost = Cost::default();
    let train_per = 3.0 * (enc + cfg.particles as f64 * dec);
    cost.add(Phase::new(
        "training",
        runs * cfg.trained_epochs() as f64 * n_train,
        "image-epochs",
        train_per,
        Basis::Exact,
    ));
    let windows = cfg.windows() as f64;
    let (evals, basis) = if cfg.window.evaluates_every_epoch() {
        (cfg.trained_epochs() as f64, Basis::Bound)
    } else {
        (windows, Basis::Exact)
    };
    let eval_images = (cfg.eval_size as f64).min(n_train);
    cost.add(Phase::new(
        "reward bound",
        runs * (evals + 1.0) * eval_images,
        "images",
        enc + cfg.eval_particles as f64 * dec,
        basis,
    ));
    cost.add(Phase::new("test curve", runs * windows * n_test, "images", enc + cfg.curve_k as f64 * dec, Basis::Exact));
    cost.add(Phase::new("final IWAE", runs * n_test, "images", enc + cfg.iwae_k as f64 * dec, Basis::Exact));
    cost
}
