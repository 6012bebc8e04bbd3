//! Noisy (optionally drifting) standard test functions: Branin, Hartmann-3/6, Rosenbrock.

use rand::RngExt;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use super::{arm_point, ArmSpace, Problem};
use crate::bandit::Arm;
use crate::math::{cos, exp, sin};
use crate::rng::Rng;
use crate::{Error, Result};

/// Standard test functions (minimisation form; the problem maximises `-f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum TestFn {
    /// Branin on [-5, 10] x [0, 15]; global minimum 5/(4 pi) = 0.397887 (over all of R^2).
    Branin,
    /// Hartmann-3 on [0, 1]^3; minimum -3.86278 at (0.114614, 0.555649, 0.852547).
    Hartmann3,
    /// Hartmann-6 on [0, 1]^6; minimum -3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
    Hartmann6,
    /// Rosenbrock on [-2, 2]^d; minimum 0 at (1, ..., 1).
    Rosenbrock,
    /// A smooth 1-D function on [0, 1] for demonstrations: the reward `(1 + sin(3 pi x))/2 (1 - x/2) + x/10` has
    /// its global maximum near x = 0.17 and a local one near x = 0.83.
    Wave1d,
}

const H3_A: [[f64; 3]; 4] = [[3.0, 10.0, 30.0], [0.1, 10.0, 35.0], [3.0, 10.0, 30.0], [0.1, 10.0, 35.0]];
const H3_P: [[f64; 3]; 4] =
    [[0.3689, 0.1170, 0.2673], [0.4699, 0.4387, 0.7470], [0.1091, 0.8732, 0.5547], [0.0381, 0.5743, 0.8828]];
const H_ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];
const H6_A: [[f64; 6]; 4] = [
    [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
    [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
    [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
    [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
];
const H6_P: [[f64; 6]; 4] = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
];

impl TestFn {
    /// Default dimension.
    pub fn default_dim(self) -> usize {
        match self {
            TestFn::Branin => 2,
            TestFn::Hartmann3 => 3,
            TestFn::Hartmann6 => 6,
            TestFn::Rosenbrock => 2,
            TestFn::Wave1d => 1,
        }
    }

    /// Box of the function for dimension `d`.
    pub fn bounds(self, d: usize) -> (Vec<f64>, Vec<f64>) {
        match self {
            TestFn::Branin => (vec![-5.0, 0.0], vec![10.0, 15.0]),
            TestFn::Hartmann3 | TestFn::Hartmann6 | TestFn::Wave1d => (vec![0.0; d], vec![1.0; d]),
            TestFn::Rosenbrock => (vec![-2.0; d], vec![2.0; d]),
        }
    }

    /// The function (minimisation form).
    pub fn eval(self, x: &[f64]) -> f64 {
        match self {
            TestFn::Branin => {
                let pi = std::f64::consts::PI;
                let (b, c, r, s, t) = (5.1 / (4.0 * pi * pi), 5.0 / pi, 6.0, 10.0, 1.0 / (8.0 * pi));
                let u = x[1] - b * x[0] * x[0] + c * x[0] - r;
                u * u + s * (1.0 - t) * cos(x[0]) + s
            }
            TestFn::Hartmann3 => -(0..4)
                .map(|i| H_ALPHA[i] * exp(-(0..3).map(|j| H3_A[i][j] * (x[j] - H3_P[i][j]).powi(2)).sum::<f64>()))
                .sum::<f64>(),
            TestFn::Hartmann6 => -(0..4)
                .map(|i| H_ALPHA[i] * exp(-(0..6).map(|j| H6_A[i][j] * (x[j] - H6_P[i][j]).powi(2)).sum::<f64>()))
                .sum::<f64>(),
            TestFn::Rosenbrock => {
                (0..x.len() - 1).map(|i| 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2)).sum()
            }
            TestFn::Wave1d => -(sin(3.0 * std::f64::consts::PI * x[0]) * 0.5 + 0.5) * (1.0 - 0.5 * x[0]) - 0.1 * x[0],
        }
    }

    /// Global minimum value and one minimiser.
    pub fn minimum(self, d: usize) -> (f64, Vec<f64>) {
        match self {
            TestFn::Branin => (5.0 / (4.0 * std::f64::consts::PI), vec![std::f64::consts::PI, 2.275]),
            TestFn::Hartmann3 => (-3.862_779_787_332_77, vec![0.114_614, 0.555_649, 0.852_547]),
            TestFn::Hartmann6 => {
                (-3.322_368_011_391_339, vec![0.201_69, 0.150_011, 0.476_874, 0.275_332, 0.311_652, 0.657_3])
            }
            TestFn::Rosenbrock => (0.0, vec![1.0; d]),
            TestFn::Wave1d => wave_min(),
        }
    }

    /// Largest drift amplitude (per coordinate) that keeps a global minimiser inside the box.
    pub fn max_drift(self) -> f64 {
        match self {
            TestFn::Branin => 1.0,
            TestFn::Hartmann3 | TestFn::Hartmann6 => 0.1,
            TestFn::Rosenbrock => 0.5,
            TestFn::Wave1d => 0.1,
        }
    }
}

/// Minimum of [`TestFn::Wave1d`] by golden section on the bracket [0.05, 0.35] (it is unimodal there).
fn wave_min() -> (f64, Vec<f64>) {
    let f = |x: f64| TestFn::Wave1d.eval(&[x]);
    let (mut a, mut b) = (0.05f64, 0.35f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let x = 0.5 * (a + b);
    (f(x), vec![x])
}

/// A test function with Gaussian noise, maximising `-f`, optionally time-varying:
/// `f_t(x) = f(x + s(t))`, `s_j(t) = drift * sin(2 pi t / period + j)`.
#[derive(Debug, Clone)]
pub struct TestFunction {
    f: TestFn,
    dim: usize,
    noise_sd: f64,
    drift: f64,
    period: f64,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl TestFunction {
    /// Validates the dimension (Branin 2, Hartmann 3/6, Rosenbrock >= 2, wave 1), `noise_sd >= 0`,
    /// `0 <= drift <= f.max_drift()`, `period > 0`.
    pub fn new(f: TestFn, dim: Option<usize>, noise_sd: f64, drift: f64, period: f64) -> Result<Self> {
        let dim = dim.unwrap_or(f.default_dim());
        let ok = match f {
            TestFn::Rosenbrock => dim >= 2,
            _ => dim == f.default_dim(),
        };
        if !ok {
            return Err(Error::config(format!("{f:?}: dimension {dim} not supported")));
        }
        if !(noise_sd >= 0.0 && noise_sd.is_finite()) {
            return Err(Error::config("noise_sd must be finite and >= 0"));
        }
        if !(0.0..=f.max_drift()).contains(&drift) {
            return Err(Error::config(format!(
                "{f:?}: drift must be in [0, {}] so the optimum stays in the box",
                f.max_drift()
            )));
        }
        if !(period > 0.0 && period.is_finite()) {
            return Err(Error::config("drift period must be positive"));
        }
        let (lo, hi) = f.bounds(dim);
        Ok(TestFunction { f, dim, noise_sd, drift, period, lo, hi })
    }

    /// Drift `s(t)`.
    pub fn shift(&self, t: usize) -> Vec<f64> {
        (0..self.dim)
            .map(|j| self.drift * sin(2.0 * std::f64::consts::PI * t as f64 / self.period + j as f64))
            .collect()
    }

    /// Noise-free reward `-f(x + s(t))`.
    pub fn mean(&self, x: &[f64], t: usize) -> f64 {
        if self.drift == 0.0 {
            return -self.f.eval(x);
        }
        let s = self.shift(t);
        let z: Vec<f64> = x.iter().zip(&s).map(|(a, b)| a + b).collect();
        -self.f.eval(&z)
    }
}

impl Problem for TestFunction {
    fn name(&self) -> String {
        format!("{:?}{}", self.f, if self.drift > 0.0 { " (time-varying)" } else { "" })
    }
    fn space(&self) -> ArmSpace {
        ArmSpace::Continuous { lo: self.lo.clone(), hi: self.hi.clone(), ordered: false }
    }
    fn time_varying(&self) -> bool {
        self.drift > 0.0
    }
    fn pull(&mut self, arm: &Arm, t: usize, rng: &mut Rng) -> Result<f64> {
        let x = arm_point(arm, self.dim)?;
        let e: f64 = rng.sample(StandardNormal);
        Ok(self.mean(x, t) + self.noise_sd * e)
    }
    fn replay(&mut self, _arm: &Arm, _t: usize) -> Result<()> {
        Ok(())
    }
    fn value(&mut self, arm: &Arm, t: usize) -> f64 {
        match arm_point(arm, self.dim) {
            Ok(x) => self.mean(x, t),
            Err(_) => f64::NAN,
        }
    }
    fn optimum(&mut self, _t: usize) -> f64 {
        -self.f.minimum(self.dim).0
    }
    fn optimal_arm(&mut self, t: usize) -> Option<Arm> {
        let (_, xm) = self.f.minimum(self.dim);
        let s = self.shift(t);
        Some(Arm::Point(xm.iter().zip(&s).map(|(a, b)| a - if self.drift > 0.0 { *b } else { 0.0 }).collect()))
    }
}
