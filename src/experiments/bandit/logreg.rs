//! A real tuning problem for the discrete-arm tuners (D-TTTS as a hyperparameter tuner, Shang, Kaufmann & Valko
//! 2019, sec. 6): choose the SGD step size and the L2 penalty of a logistic regression.
//!
//! - Data: the 8x8 digits (class 1 = the digits in `positive`, default odd digits) or simulated logistic data
//!   ([`crate::data::simulate_logistic`]); split into training and validation parts by the problem seed; features
//!   standardised with the training statistics.
//! - Arms: a pool of `pool` configurations drawn log-uniformly, `log10 step ~ U(log10_step)`,
//!   `log10 l2 ~ U(log10_l2)`; arm `k` is drawn from its own stream, so the pool is the same for every algorithm of
//!   a repeat. D-TTTS lets one new configuration of the pool enter per round.
//! - Training (once per arm, deterministic): plain minibatch SGD on the mean log-loss plus `l2/2 |w|^2` (bias not
//!   penalised), from zero, `epochs` passes over a seeded shuffle, batch `batch`, constant step. Diverged weights
//!   (non-finite) predict nothing: accuracy 0.
//! - Value of an arm: its validation accuracy `1 - validation error`. A pull scores it on `eval_batch` validation
//!   rows drawn with replacement, so the reward is in [0, 1] with mean exactly the value (TTTS binarises it).
//! - Optimum: the best validation accuracy in the pool (all arms are trained on the first call), so regret is exact
//!   relative to the pool.
//! - Compute: data points touched: `n_train x epochs` when an arm is first trained, plus `eval_batch` per pull.

use rand::RngExt;
use serde::{Deserialize, Serialize};

use super::problems::{ArmSpace, Problem};
use crate::bandit::Arm;
use crate::data::{self, Dataset};
use crate::math::{exp, powf};
use crate::rng::{stream, substream, Rng};
use crate::{Error, Result};

/// Data for [`LogregSgd`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "source", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LogregData {
    /// The 8x8 digits, binary task: label 1 for the digits in `positive`.
    Digits {
        /// The digits labelled 1.
        #[serde(default = "odd_digits")]
        positive: Vec<usize>,
    },
    /// Simulated logistic-regression data (`n` rows, `d` features).
    Simulate {
        /// Rows.
        n: usize,
        /// Features.
        d: usize,
    },
}

fn odd_digits() -> Vec<usize> {
    vec![1, 3, 5, 7, 9]
}

/// Configuration of the logistic-regression SGD tuning problem (JSON fields as here, all with defaults).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields)]
pub struct LogregSgdSpec {
    /// The data, by `source`.
    pub data: LogregData,
    /// Fraction of rows used for validation.
    pub validation_fraction: f64,
    /// Number of configurations in the pool.
    pub pool: usize,
    /// Range of log10 of the SGD step size.
    pub log10_step: (f64, f64),
    /// Range of log10 of the L2 penalty.
    pub log10_l2: (f64, f64),
    /// SGD passes over the training data.
    pub epochs: usize,
    /// SGD minibatch size.
    pub batch: usize,
    /// Validation rows scored per pull.
    pub eval_batch: usize,
}

impl Default for LogregSgdSpec {
    fn default() -> Self {
        LogregSgdSpec {
            data: LogregData::Digits { positive: odd_digits() },
            validation_fraction: 0.3,
            pool: 200,
            log10_step: (-4.0, 1.0),
            log10_l2: (-5.0, 0.0),
            epochs: 3,
            batch: 16,
            eval_batch: 20,
        }
    }
}

impl LogregSgdSpec {
    fn validate(&self) -> Result<()> {
        if !(self.validation_fraction > 0.0 && self.validation_fraction < 1.0) {
            return Err(Error::config("logreg-sgd: validation_fraction must be in (0, 1)"));
        }
        if self.pool < 2 || self.pool > 100_000 {
            return Err(Error::config("logreg-sgd: pool must be in 2..=100000"));
        }
        let range_ok = |(a, b): (f64, f64)| a.is_finite() && b.is_finite() && a <= b;
        if !range_ok(self.log10_step) || !range_ok(self.log10_l2) || self.log10_step.1 > 3.0 {
            return Err(Error::config("logreg-sgd: ranges must be finite with lo <= hi (log10 step <= 3)"));
        }
        if self.epochs == 0 || self.epochs > 1000 || self.batch == 0 || self.eval_batch == 0 {
            return Err(Error::config("logreg-sgd: epochs (1..=1000), batch and eval_batch must be >= 1"));
        }
        if let LogregData::Digits { positive } = &self.data {
            if positive.is_empty() || positive.len() >= 10 || positive.iter().any(|&k| k > 9) {
                return Err(Error::config("logreg-sgd: positive digits must be a non-empty proper subset of 0..=9"));
            }
        }
        Ok(())
    }
}

/// One configuration and, once trained, its weights and validation accuracy.
#[derive(Debug, Clone)]
struct Config {
    step: f64,
    l2: f64,
    trained: Option<(Vec<f64>, f64)>,
    /// Its training cost was charged to the algorithm (first pull).
    charged: bool,
}

/// The logistic-regression SGD tuning problem (see the module docs).
#[derive(Debug, Clone)]
pub struct LogregSgd {
    spec: LogregSgdSpec,
    train: Dataset,
    valid: Dataset,
    seed: u64,
    pool: Vec<Config>,
    best: Option<f64>,
    /// Cost of the last pull (set by `pull`), for [`Problem::cost`].
    last_cost: f64,
}

impl LogregSgd {
    /// Builds the data split and the pool for `seed`.
    pub fn new(spec: &LogregSgdSpec, seed: u64) -> Result<Self> {
        spec.validate()?;
        let mut rng = stream(seed, 0x10_6e);
        let full = match &spec.data {
            LogregData::Digits { positive } => {
                let mut d = data::digits()?;
                for y in d.y.iter_mut() {
                    *y = if positive.contains(&(*y as usize)) { 1.0 } else { 0.0 };
                }
                d
            }
            LogregData::Simulate { n, d } => {
                if *n < 10 || *d == 0 {
                    return Err(Error::config("logreg-sgd: simulate needs n >= 10 and d >= 1"));
                }
                data::simulate_logistic(*n, *d, &mut rng)?.0
            }
        };
        let (mut train, mut valid) = full.split(spec.validation_fraction, &mut rng)?;
        let st = train.standardize();
        st.apply(&mut valid)?;
        let pool = (0..spec.pool)
            .map(|k| {
                let mut r = substream(seed, 0x10_6f, k as u64);
                let (a, b) = spec.log10_step;
                let (c, d) = spec.log10_l2;
                Config {
                    step: powf(10f64, a + (b - a) * r.random::<f64>()),
                    l2: powf(10f64, c + (d - c) * r.random::<f64>()),
                    trained: None,
                    charged: false,
                }
            })
            .collect();
        Ok(LogregSgd { spec: spec.clone(), train, valid, seed, pool, best: None, last_cost: 0.0 })
    }

    /// `(step, l2)` of arm `k`.
    pub fn config(&self, k: usize) -> Option<(f64, f64)> {
        self.pool.get(k).map(|c| (c.step, c.l2))
    }

    /// Trains `(step, l2)` by SGD and returns the weights (last = bias).
    pub fn train(&self, step: f64, l2: f64, rng: &mut Rng) -> Vec<f64> {
        sgd_logistic(&self.train, step, l2, self.spec.epochs, self.spec.batch, rng)
    }

    /// Trains arm `k` on first use (its own stream); returns its validation accuracy.
    fn ensure_trained(&mut self, k: usize) -> f64 {
        if let Some((_, a)) = &self.pool[k].trained {
            return *a;
        }
        let (step, l2) = (self.pool[k].step, self.pool[k].l2);
        let w = self.train(step, l2, &mut substream(self.seed, 0x10_70, k as u64));
        let acc = accuracy(&self.valid, &w, None);
        self.pool[k].trained = Some((w, acc));
        acc
    }
}

/// Minibatch SGD for L2-regularised logistic regression (mean log-loss + l2/2 |w|^2, bias unpenalised), from zero.
/// Returns `p + 1` weights (bias last). Stops early (returning the non-finite weights) if they diverge.
pub fn sgd_logistic(ds: &Dataset, step: f64, l2: f64, epochs: usize, batch: usize, rng: &mut Rng) -> Vec<f64> {
    let p = ds.p;
    let mut w = vec![0.0; p + 1];
    let mut g = vec![0.0; p + 1];
    let mut idx: Vec<usize> = (0..ds.n).collect();
    for _ in 0..epochs {
        // Fisher-Yates shuffle
        for i in (1..idx.len()).rev() {
            let j = rng.random_range(0..=i);
            idx.swap(i, j);
        }
        for chunk in idx.chunks(batch) {
            g.iter_mut().for_each(|v| *v = 0.0);
            for &i in chunk {
                let x = ds.row(i);
                let z = w[p] + x.iter().zip(&w[..p]).map(|(a, b)| a * b).sum::<f64>();
                let r = 1.0 / (1.0 + exp(-z)) - ds.y[i];
                for (gj, xj) in g[..p].iter_mut().zip(x) {
                    *gj += r * xj;
                }
                g[p] += r;
            }
            let inv = 1.0 / chunk.len() as f64;
            for j in 0..p {
                w[j] -= step * (g[j] * inv + l2 * w[j]);
            }
            w[p] -= step * g[p] * inv;
        }
        if w.iter().any(|v| !v.is_finite()) {
            return w;
        }
    }
    w
}

/// Accuracy of weights `w` on `ds` (rows `rows`, or all); non-finite scores count as wrong.
pub fn accuracy(ds: &Dataset, w: &[f64], rows: Option<&[usize]>) -> f64 {
    let p = ds.p;
    let correct = |i: usize| -> bool {
        let x = ds.row(i);
        let z = w[p] + x.iter().zip(&w[..p]).map(|(a, b)| a * b).sum::<f64>();
        z.is_finite() && ((z > 0.0) == (ds.y[i] > 0.5))
    };
    match rows {
        Some(r) => r.iter().filter(|&&i| correct(i)).count() as f64 / r.len().max(1) as f64,
        None => (0..ds.n).filter(|&i| correct(i)).count() as f64 / ds.n.max(1) as f64,
    }
}

fn index(arm: &Arm, n: usize) -> Result<usize> {
    match arm {
        Arm::Index(k) if *k < n => Ok(*k),
        Arm::Index(k) => Err(Error::config(format!("arm {k} out of range (pool of {n})"))),
        Arm::Point(_) => Err(Error::config("logreg-sgd has discrete arms; got a point")),
    }
}

impl Problem for LogregSgd {
    fn name(&self) -> String {
        let data = match &self.spec.data {
            LogregData::Digits { .. } => "digits".to_string(),
            LogregData::Simulate { n, d } => format!("simulated n={n} d={d}"),
        };
        format!("logistic regression by SGD on {data}: step size and L2 from a pool of {}", self.pool.len())
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: Some(self.pool.len()) }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, rng: &mut Rng) -> Result<f64> {
        let k = index(arm, self.pool.len())?;
        self.ensure_trained(k);
        self.last_cost = self.spec.eval_batch as f64;
        if !self.pool[k].charged {
            self.pool[k].charged = true;
            self.last_cost += (self.train.n * self.spec.epochs) as f64;
        }
        // score the trained model on a validation minibatch (with replacement: unbiased for the accuracy)
        let rows: Vec<usize> = (0..self.spec.eval_batch).map(|_| rng.random_range(0..self.valid.n)).collect();
        let w = self.pool[k].trained.as_ref().map(|t| &t.0).ok_or_else(|| Error::numerical("untrained arm"))?;
        Ok(accuracy(&self.valid, w, Some(&rows)))
    }
    fn replay(&mut self, arm: &Arm, _t: usize) -> Result<()> {
        // an arm's training is charged on its first pull only
        let k = index(arm, self.pool.len())?;
        self.pool[k].charged = true;
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        match index(arm, self.pool.len()) {
            Ok(k) => self.ensure_trained(k),
            Err(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        if let Some(b) = self.best {
            return b;
        }
        let best = (0..self.pool.len()).map(|k| self.ensure_trained(k)).fold(0.0, f64::max);
        self.best = Some(best);
        best
    }
    fn cost(&self, _arm: &Arm) -> f64 {
        self.last_cost
    }
    fn cost_unit(&self) -> &'static str {
        "data points touched"
    }
}
