//! Adam (Kingma & Ba 2015, Algorithm 1) with beta1 = 0.9, beta2 = 0.999, eps = 1e-8: the one implementation
//! serving the TVO's VAE, the learning-rate tasks' training, the lr-schedule trace model, the multi-task GP's
//! task locations and FSSD-opt's test locations.

/// Adam's moment estimates for `n` parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
    /// `beta1`, `1 - beta1`, `beta2`, `1 - beta2` as the update multiplies by them.
    b1: f64,
    c_b1: f64,
    b2: f64,
    c_b2: f64,
}

const B1: f64 = 0.9;
const B2: f64 = 0.999;
const EPS: f64 = 1e-8;

impl Adam {
    pub fn new(n: usize) -> Self {
        Self::with_coefficients(n, B1, 1.0 - B1, B2, 1.0 - B2)
    }

    /// Adam with the moment updates `m = b1 m + c_b1 g`, `v = b2 v + c_b2 g^2`. `c_b1`, `c_b2` are `1 - b1`,
    /// `1 - b2` as written by the caller: the multi-task GP's location ascent writes 0.1 and 0.001, which are
    /// not the doubles `1.0 - 0.9` and `1.0 - 0.999`, and its fits keep their bits.
    pub fn with_coefficients(n: usize, b1: f64, c_b1: f64, b2: f64, c_b2: f64) -> Self {
        Adam { m: vec![0.0; n], v: vec![0.0; n], t: 0, b1, c_b1, b2, c_b2 }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> i32 {
        self.t
    }

    /// One step of Algorithm 1 on the gradient `g` (bias-corrected): calls `apply(i, lr(i) * m_hat_i /
    /// (sqrt(v_hat_i) + eps))` for each parameter in order, the step along `+g` with parameter `i`'s learning
    /// rate. The caller adds it (ascent), subtracts it, or scales and clamps it.
    pub fn step(&mut self, g: &[f64], lr: impl Fn(usize) -> f64, mut apply: impl FnMut(usize, f64)) {
        self.t += 1;
        let c1 = 1.0 - self.b1.powi(self.t);
        let c2 = 1.0 - self.b2.powi(self.t);
        for (i, &gi) in g.iter().enumerate() {
            self.m[i] = self.b1 * self.m[i] + self.c_b1 * gi;
            self.v[i] = self.b2 * self.v[i] + self.c_b2 * gi * gi;
            apply(i, lr(i) * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + EPS));
        }
    }

    /// One step along `+g` (ascent): `x += lr * m_hat / (sqrt(v_hat) + eps)` (Algorithm 1, bias-corrected).
    pub fn ascend(&mut self, x: &mut [f64], g: &[f64], lr: f64) {
        self.step(&g[..x.len()], |_| lr, |i, u| x[i] += u);
    }

    /// One step along `-g` (descent). Bit for bit `x -= lr * m_hat / (sqrt(v_hat) + eps)`: IEEE negation is
    /// exact, so `x + (-lr) * a / b` equals `x - lr * a / b`.
    pub fn descend(&mut self, x: &mut [f64], g: &[f64], lr: f64) {
        self.ascend(x, g, -lr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimises (x - 3)^2 from 0; and the first step has length lr whatever the gradient's scale
    /// (m_hat / sqrt(v_hat) = sign(g) at t = 1).
    #[test]
    fn first_step_is_lr_and_it_converges() {
        let mut a = Adam::new(1);
        let mut x = [0.0];
        a.descend(&mut x, &[-6.0e3], 0.1);
        assert!((x[0] - 0.1).abs() < 1e-9, "{}", x[0]);
        // a fresh state: the first gradient's large second moment would slow the first optimiser for thousands
        // of steps (beta2 = 0.999)
        let mut a = Adam::new(1);
        for _ in 0..2000 {
            let g = [2.0 * (x[0] - 3.0)];
            a.descend(&mut x, &g, 0.05);
        }
        assert!((x[0] - 3.0).abs() < 1e-3, "{}", x[0]);
    }

    #[test]
    fn descent_is_negated_ascent_bit_for_bit() {
        let g = [0.3, -1.7, 2.5e-4];
        let (mut a, mut b) = (Adam::new(3), Adam::new(3));
        let (mut x, mut y) = ([1.0, -2.0, 0.5], [1.0, -2.0, 0.5]);
        for _ in 0..5 {
            a.descend(&mut x, &g, 0.01);
            b.ascend(&mut y, &g.map(|v| v), -0.01);
        }
        assert_eq!(x, y);
        // and equals the written-out subtraction
        let (mut m, mut v, mut z) = ([0.0f64; 3], [0.0f64; 3], [1.0, -2.0, 0.5]);
        for t in 1..=5 {
            let (c1, c2) = (1.0 - B1.powi(t), 1.0 - B2.powi(t));
            for j in 0..3 {
                m[j] = B1 * m[j] + (1.0 - B1) * g[j];
                v[j] = B2 * v[j] + (1.0 - B2) * g[j] * g[j];
                z[j] -= 0.01 * (m[j] / c1) / ((v[j] / c2).sqrt() + EPS);
            }
        }
        assert_eq!(x, z);
    }
}
