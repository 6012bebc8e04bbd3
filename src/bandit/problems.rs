//! Bandit problems with a known optimum, so that regret is exact.
//!
//! - [`Reservoir`]: infinitely many Bernoulli arms whose means are i.i.d. `shift + scale * Beta(a, b)`
//!   (Beta(alpha, 1), Beta(1, beta) and shifted Beta as in Shang, Kaufmann & Valko 2019). Arm `k`'s mean is drawn
//!   from its own stream `(problem seed, k)`, so every algorithm of a repeat sees the same arms (common random
//!   numbers) whatever order it visits them in. The optimum is the top of the support, `shift + scale`.
//! - [`FiniteBernoulli`]: a fixed list of Bernoulli means.
//! - [`TestFunction`]: Branin, Hartmann-3/6, Rosenbrock (negated: every problem is a maximisation) with
//!   Gaussian noise, optionally time-varying: `f_t(x) = f(x + s(t))` with a drift `s(t)` small enough that a global
//!   minimiser of `f` over R^d stays in the box, so the optimum value is the same known constant at every t while
//!   its location moves.
//! - [`TvoSchedule`]: the thermodynamic-variational-objective-like schedule problem (see its docs).

use rand::RngExt;
use rand_distr::{Beta, Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::Arm;
use crate::rng::{stream, Rng};
use crate::{Error, Result};

/// The arm space of a problem.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ArmSpace {
    /// Arms are indices `0, 1, 2, ...`; `n_arms = None` means an infinite reservoir (index `k` is the `k`-th arm
    /// drawn from it).
    Discrete { n_arms: Option<usize> },
    /// Arms are points of the box `[lo, hi]`; `ordered` = the arm is a sorted vector (a schedule).
    Continuous { lo: Vec<f64>, hi: Vec<f64>, ordered: bool },
}

impl ArmSpace {
    /// Dimension of a continuous space (0 for discrete).
    pub fn dim(&self) -> usize {
        match self {
            ArmSpace::Continuous { lo, .. } => lo.len(),
            ArmSpace::Discrete { .. } => 0,
        }
    }
}

/// A stochastic reward environment with exactly known arm values.
pub trait Problem: Send {
    /// Short name.
    fn name(&self) -> String;
    /// The arm space.
    fn space(&self) -> ArmSpace;
    /// Whether arm values change with the round (or with the state the algorithm drives).
    fn time_varying(&self) -> bool {
        false
    }
    /// Rewards are in [0, 1] (TTTS binarises them).
    fn unit_rewards(&self) -> bool {
        false
    }
    /// One noisy reward of `arm` at round `t` (0-based); may advance an internal state.
    fn pull(&mut self, arm: &Arm, t: usize, rng: &mut Rng) -> Result<f64>;
    /// Expected reward of `arm` at round `t` in the current state.
    fn value(&mut self, arm: &Arm, t: usize) -> f64;
    /// Largest expected reward at round `t` in the current state.
    fn optimum(&mut self, t: usize) -> f64;
    /// A maximiser at round `t`, when cheaply available (charts).
    fn optimal_arm(&mut self, _t: usize) -> Option<Arm> {
        None
    }
    /// Compute units (gradient evaluations, pulls) one pull of `arm` costs.
    fn cost(&self, _arm: &Arm) -> f64 {
        1.0
    }
    /// Name of the compute unit of [`Problem::cost`].
    fn cost_unit(&self) -> &'static str {
        "pulls"
    }
    /// A readable description of a discrete arm (the configuration behind an index), for reports and charts.
    fn describe(&self, _arm: &Arm) -> Option<String> {
        None
    }
}

fn arm_index(arm: &Arm, n: Option<usize>) -> Result<usize> {
    match arm {
        Arm::Index(i) => match n {
            Some(n) if *i >= n => Err(Error::config(format!("arm {i} out of range (problem has {n} arms)"))),
            _ => Ok(*i),
        },
        Arm::Point(_) => Err(Error::config("this problem has discrete arms; got a point")),
    }
}

fn arm_point(arm: &Arm, dim: usize) -> Result<&[f64]> {
    match arm {
        Arm::Point(p) if p.len() == dim => Ok(p),
        Arm::Point(p) => Err(Error::config(format!("arm has {} coordinates, problem needs {dim}", p.len()))),
        Arm::Index(_) => Err(Error::config("this problem has continuous arms; got an index")),
    }
}

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

/// Standard test functions (minimisation form; the problem maximises `-f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
const H3_P: [[f64; 3]; 4] = [
    [0.3689, 0.1170, 0.2673],
    [0.4699, 0.4387, 0.7470],
    [0.1091, 0.8732, 0.5547],
    [0.0381, 0.5743, 0.8828],
];
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
                u * u + s * (1.0 - t) * x[0].cos() + s
            }
            TestFn::Hartmann3 => {
                -(0..4)
                    .map(|i| H_ALPHA[i] * (-(0..3).map(|j| H3_A[i][j] * (x[j] - H3_P[i][j]).powi(2)).sum::<f64>()).exp())
                    .sum::<f64>()
            }
            TestFn::Hartmann6 => {
                -(0..4)
                    .map(|i| H_ALPHA[i] * (-(0..6).map(|j| H6_A[i][j] * (x[j] - H6_P[i][j]).powi(2)).sum::<f64>()).exp())
                    .sum::<f64>()
            }
            TestFn::Rosenbrock => {
                (0..x.len() - 1).map(|i| 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2)).sum()
            }
            TestFn::Wave1d => -((3.0 * std::f64::consts::PI * x[0]).sin() * 0.5 + 0.5) * (1.0 - 0.5 * x[0]) - 0.1 * x[0],
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
            .map(|j| self.drift * (2.0 * std::f64::consts::PI * t as f64 / self.period + j as f64).sin())
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

/// The TVO-like schedule problem (mirrors Nguyen et al. 2020, sec. 3 and eq. 7).
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
        if !(rate > 0.0 && rate.is_finite() && sharpness > 0.0 && sharpness.is_finite())
            || !(noise_sd >= 0.0 && noise_sd.is_finite())
        {
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
        self.lambda0 + (self.lambda1 - self.lambda0) * (1.0 - (-self.u / 2.0).exp())
    }

    /// Left-Riemann sum of `f(b) = -exp(-lambda b)` for sorted interior points `b`.
    pub fn riemann(lambda: f64, b: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut prev = 0.0;
        for &x in b.iter().chain(std::iter::once(&1.0)) {
            s += (x - prev) * -(-lambda * prev).exp();
            prev = x;
        }
        s
    }

    /// Normalised gap of schedule `b` (sorted internally; clamped to [0, 1]).
    pub fn gap(lambda: f64, b: &[f64]) -> f64 {
        let mut s: Vec<f64> = b.iter().map(|v| v.clamp(0.0, 1.0)).collect();
        s.sort_by(|a, b| a.total_cmp(b));
        let integral = -(1.0 - (-lambda).exp()) / lambda;
        let rise = 1.0 - (-lambda).exp();
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
                x = (lambda * x).exp_m1() / lambda;
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
        self.rate * (-Self::gap(self.lambda(), b) / self.sharpness).exp()
    }

    fn expected_reward(&self, b: &[f64]) -> f64 {
        (-self.u).exp() * -(-self.delta(b)).exp_m1()
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
