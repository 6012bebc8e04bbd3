//! A closed-form surrogate of the TVO schedule problem (fast; not the TVO: no model is trained). The real
//! thermodynamic variational objective with GP-UCB choosing its schedule is the `tvo` experiment (`crate::experiments::tvo`).

use rand::RngExt;
use rand_distr::StandardNormal;

use super::{arm_point, ArmSpace, Problem};
use crate::bandit::Arm;
use crate::math::{exp, exp_m1};
use crate::rng::Rng;
use crate::{Error, Result};

/// The closed-form TVO schedule surrogate (mirrors Nguyen et al. 2020, sec. 3 and eq. 7; not the TVO, see `crate::experiments::tvo`).
///
/// An arm is a sorted vector `0 < b_1 <= ... <= b_d < 1`; with `b_0 = 0`, `b_{d+1} = 1` the thermodynamic
/// bound is the left-Riemann sum `L_u(b) = sum_{k=0}^{d} (b_{k+1} - b_k) f_u(b_k)` of the increasing integrand
/// `f_u(b) = -exp(-lambda(u) b)` (steep near 0, like `E_{pi_b}[log w]`), which lies below the integral `I_u`.
/// The integrand's curvature `lambda(u) = lambda_0 + (lambda_1 - lambda_0)(1 - exp(-u / 2))` changes with the
/// training progress `u`. Training for one window with schedule `b` advances `u` by
/// `Delta = rate * exp(-gap_u(b) / sharpness)`, `gap_u(b) = (I_u - L_u(b)) / (f_u(1) - f_u(0))` the normalised
/// gap (a tighter bound gives a better training signal; the optimal gap is about 0.06-0.13 and a random schedule's
/// about 0.2 for d = 3); the
/// reward is the improvement of the log evidence `ell(u) = -exp(-u)` over the window (their eq. 7),
/// `ell(u + Delta) - ell(u)`, times `(1 + noise_sd * eps)`.
///
/// The best schedule for the current state maximises `L_u`; its stationarity conditions give
/// `exp(lambda delta_k) = 1 + lambda delta_{k+1}` for the gaps `delta_k = b_k - b_{k-1}`, so it is found to machine
/// precision by bisection on `delta_1` (sum of gaps = 1). Regret at a round is the expected-reward gap to that
/// schedule from the state the algorithm has reached (the state depends on its past choices, as in TVO training).
#[derive(Debug, Clone)]
pub struct TvoSchedule {
    d: usize,
    lambda0: f64,
    lambda1: f64,
    rate: f64,
    sharpness: f64,
    noise_sd: f64,
    u: f64,
}

impl TvoSchedule {
    /// Validates `1 <= d <= 20`, `lambda0, lambda1` in (0, 200), `rate > 0`, `sharpness > 0`, `noise_sd >= 0`.
    pub fn new(d: usize, lambda0: f64, lambda1: f64, rate: f64, sharpness: f64, noise_sd: f64) -> Result<Self> {
        if d == 0 || d > 20 {
            return Err(Error::config("tvo-schedule: d must be in 1..=20"));
        }
        if !(lambda0 > 0.0 && lambda1 > 0.0 && lambda0 < 200.0 && lambda1 < 200.0) {
            return Err(Error::config("tvo-schedule: lambdas must be in (0, 200)"));
        }
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !(positive(rate) && positive(sharpness) && noise_sd >= 0.0 && noise_sd.is_finite()) {
            return Err(Error::config("tvo-schedule: rate and sharpness must be > 0, noise_sd >= 0"));
        }
        Ok(TvoSchedule { d, lambda0, lambda1, rate, sharpness, noise_sd, u: 0.0 })
    }

    /// Training progress `u`.
    pub fn progress(&self) -> f64 {
        self.u
    }

    /// Current curvature `lambda(u)`.
    pub fn lambda(&self) -> f64 {
        self.lambda0 + (self.lambda1 - self.lambda0) * (1.0 - exp(-self.u / 2.0))
    }

    /// Left-Riemann sum of `f(b) = -exp(-lambda b)` for sorted interior points `b`.
    pub fn riemann(lambda: f64, b: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut prev = 0.0;
        for &x in b.iter().chain(std::iter::once(&1.0)) {
            s += (x - prev) * -exp(-lambda * prev);
            prev = x;
        }
        s
    }

    /// Normalised gap of schedule `b` (sorted internally; clamped to [0, 1]).
    pub fn gap(lambda: f64, b: &[f64]) -> f64 {
        let mut s: Vec<f64> = b.iter().map(|v| v.clamp(0.0, 1.0)).collect();
        s.sort_by(|a, b| a.total_cmp(b));
        let integral = -(1.0 - exp(-lambda)) / lambda;
        let rise = 1.0 - exp(-lambda);
        ((integral - Self::riemann(lambda, &s)) / rise).max(0.0)
    }

    /// The schedule maximising the left-Riemann sum for curvature `lambda` (bisection on the first gap).
    pub fn optimal_schedule(lambda: f64, d: usize) -> Vec<f64> {
        let gaps = |d1: f64| -> (f64, Vec<f64>) {
            let mut g = Vec::with_capacity(d + 1);
            let mut x = d1;
            let mut sum = 0.0;
            for _ in 0..=d {
                g.push(x);
                sum += x;
                if sum > 2.0 {
                    return (sum, g);
                }
                x = exp_m1(lambda * x) / lambda;
            }
            (sum, g)
        };
        let (mut a, mut b) = (0.0f64, 1.0 / (d as f64 + 1.0));
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if gaps(m).0 < 1.0 {
                a = m;
            } else {
                b = m;
            }
        }
        let (_, g) = gaps(0.5 * (a + b));
        let mut out = Vec::with_capacity(d);
        let mut c = 0.0;
        for gi in g.iter().take(d) {
            c += gi;
            out.push(c.min(1.0));
        }
        out
    }

    fn delta(&self, b: &[f64]) -> f64 {
        self.rate * exp(-Self::gap(self.lambda(), b) / self.sharpness)
    }

    fn expected_reward(&self, b: &[f64]) -> f64 {
        exp(-self.u) * -exp_m1(-self.delta(b))
    }
}

impl Problem for TvoSchedule {
    fn name(&self) -> String {
        format!("TVO-like schedule, d = {}", self.d)
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Continuous { lo: vec![0.0; self.d], hi: vec![1.0; self.d], ordered: true }
    }
    fn time_varying(&self) -> bool {
        true
    }
    fn pull(&mut self, arm: &Arm, _t: usize, rng: &mut Rng) -> Result<f64> {
        let b = arm_point(arm, self.d)?;
        let mean = self.expected_reward(b);
        self.u += self.delta(b);
        let e: f64 = rng.sample(StandardNormal);
        Ok(mean * (1.0 + self.noise_sd * e))
    }
    fn replay(&mut self, arm: &Arm, _t: usize) -> Result<()> {
        // the training progress the schedule drives
        let b = arm_point(arm, self.d)?;
        self.u += self.delta(b);
        Ok(())
    }
    fn value(&mut self, arm: &Arm, _t: usize) -> f64 {
        match arm_point(arm, self.d) {
            Ok(b) => self.expected_reward(b),
            Err(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        let b = Self::optimal_schedule(self.lambda(), self.d);
        self.expected_reward(&b)
    }
    fn optimal_arm(&mut self, _t: usize) -> Option<Arm> {
        Some(Arm::Point(Self::optimal_schedule(self.lambda(), self.d)))
    }
}
