//! Bernoulli arms: the Beta reservoir and a finite list of means.

use rand::RngExt;
use rand_distr::{Beta, Distribution};

use super::{arm_index, ArmSpace, Problem};
use crate::bandit::Arm;
use crate::rng::{stream, Rng};
use crate::{Error, Result};

/// Infinitely many Bernoulli arms with means `shift + scale * Beta(a, b)` (Shang, Kaufmann & Valko 2019, sec. 5).
#[derive(Debug, Clone)]
pub struct Reservoir {
    a: f64,
    b: f64,
    shift: f64,
    scale: f64,
    seed: u64,
    means: Vec<f64>,
}

impl Reservoir {
    /// Validates `a, b > 0`, `shift >= 0`, `scale > 0`, `shift + scale <= 1`; `seed` fixes the arm sequence.
    pub fn new(a: f64, b: f64, shift: f64, scale: f64, seed: u64) -> Result<Self> {
        if !(a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite()) {
            return Err(Error::config("reservoir: Beta parameters must be positive and finite"));
        }
        if !(shift >= 0.0 && scale > 0.0 && shift + scale <= 1.0 + 1e-12) {
            return Err(Error::config("reservoir: need shift >= 0, scale > 0 and shift + scale <= 1"));
        }
        Ok(Reservoir { a, b, shift, scale, seed, means: Vec::new() })
    }

    /// Mean of arm `k` (drawn lazily from stream `(seed, k)`).
    pub fn mean(&mut self, k: usize) -> f64 {
        while self.means.len() <= k {
            let mut r = stream(self.seed, self.means.len() as u64);
            let beta = Beta::new(self.a, self.b).expect("validated");
            let v: f64 = beta.sample(&mut r);
            self.means.push(self.shift + self.scale * v);
        }
        self.means[k]
    }
}

impl Problem for Reservoir {
    fn name(&self) -> String {
        format!("bernoulli reservoir {} + {} Beta({}, {})", self.shift, self.scale, self.a, self.b)
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: None }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, rng: &mut Rng) -> Result<f64> {
        let k = arm_index(arm, None)?;
        let m = self.mean(k);
        Ok(if rng.random::<f64>() < m { 1.0 } else { 0.0 })
    }
    fn replay(&mut self, _arm: &Arm, _t: usize) -> Result<()> {
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        match arm_index(arm, None) {
            Ok(k) => self.mean(k),
            Err(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        self.shift + self.scale
    }
}

/// A finite set of Bernoulli arms with the given means.
#[derive(Debug, Clone)]
pub struct FiniteBernoulli {
    means: Vec<f64>,
}

impl FiniteBernoulli {
    /// Validates at least two arms, every mean in [0, 1].
    pub fn new(means: Vec<f64>) -> Result<Self> {
        if means.len() < 2 {
            return Err(Error::config("bernoulli: at least two arms are needed"));
        }
        if means.iter().any(|m| !(0.0..=1.0).contains(m)) {
            return Err(Error::config("bernoulli: every mean must be in [0, 1]"));
        }
        Ok(FiniteBernoulli { means })
    }
}

impl Problem for FiniteBernoulli {
    fn name(&self) -> String {
        format!("{} Bernoulli arms", self.means.len())
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Discrete { n_arms: Some(self.means.len()) }
    }
    fn unit_rewards(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, rng: &mut Rng) -> Result<f64> {
        let k = arm_index(arm, Some(self.means.len()))?;
        Ok(if rng.random::<f64>() < self.means[k] { 1.0 } else { 0.0 })
    }
    fn replay(&mut self, _arm: &Arm, _t: usize) -> Result<()> {
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        arm_index(arm, Some(self.means.len())).map(|k| self.means[k]).unwrap_or(f64::NAN)
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        self.means.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
    }
    fn optimal_arm(&mut self, _t: usize) -> Option<Arm> {
        let mut best = 0;
        for (i, m) in self.means.iter().enumerate() {
            if *m > self.means[best] {
                best = i;
            }
        }
        Some(Arm::Index(best))
    }
}
