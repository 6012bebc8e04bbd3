//! Bit-for-bit pins of the four one-hidden-layer networks (src/nn.rs users): the BNN posterior's
//! log-likelihood and gradient, the TVO VAE's particles and gradient, the lr-schedule classifier's stochastic
//! gradients and losses, and the HPO network's validation accuracies. Recorded on the code before the dense
//! layers were shared (issue 24); every value is compared as f64 bits (an FNV-1a hash over the bits), so any
//! change in the order of floating-point operations shows here. The BNN's dense layers are matrix products
//! (matrixmultiply picks its micro-kernel, FMA or not, from the CPU at run time): its pin is of an x86-64
//! machine with AVX2 and FMA, like the one it was recorded on.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rand::RngExt;
use tunelab::data::Dataset;
use tunelab::experiments::bandit::hpo::{DigitData, Hpo, HpoModel, HpoShared, HpoSpec};
use tunelab::experiments::lr_schedule::{Classifier, ClassifierKind, TrainProblem};
use tunelab::experiments::tvo::vae::{Particles, Scratch};
use tunelab::experiments::tvo::{Likelihood, Vae};
use tunelab::model::{Bnn, Target};
use tunelab::rng::stream;

/// FNV-1a over the f64 bits, in order.
fn hash(vals: &[f64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for v in vals {
        for b in v.to_bits().to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn check(name: &str, vals: &[f64], want: u64) {
    let got = hash(vals);
    eprintln!("{name}: {got:#018x} (first {:?})", &vals[..vals.len().min(3)]);
    assert_eq!(got, want, "{name}: the bits changed");
}

fn toy_data(n: usize, p: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
    let mut rng = stream(seed, 0);
    let x: Vec<f64> = (0..n * p).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
    let y: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % k).collect();
    (x, y)
}

#[test]
fn bnn_bits_are_pinned() {
    let (n, p, k) = (150, 5, 3);
    let (x, y) = toy_data(n, p, k, 11);
    let ds = Arc::new(Dataset::new(x, y.iter().map(|&v| v as f64).collect(), p, None, "y").unwrap());
    let t = Bnn::new(ds, 7, k, 2.0).unwrap();
    let mut rng = stream(12, 0);
    let theta: Vec<f64> = t.random_init(&mut rng).iter().map(|v| v + 0.1 * (rng.random::<f64>() - 0.5)).collect();
    let mut vals = vec![t.log_lik_full(&theta), t.log_lik_point(&theta, 3)];
    let mut g = vec![0.0; t.dim()];
    t.add_grad_log_lik_full(&theta, &mut g);
    vals.extend_from_slice(&g);
    let mut g = vec![0.0; t.dim()];
    t.add_grad_log_lik(&theta, &[5, 1, 77, 149, 5, 0, 64, 65], &mut g);
    vals.extend_from_slice(&g);
    let mut probs = vec![0.0; n * k];
    t.class_probs_all(&theta, &mut probs);
    vals.extend_from_slice(&probs);
    check("bnn", &vals, 0xb91cddd5e360caff);
}

#[test]
fn vae_bits_are_pinned() {
    let (x_dim, latent) = (6, 2);
    let mut rng = stream(21, 0);
    let mut vals = Vec::new();
    for hidden in [&[5usize][..], &[], &[4, 3]] {
        let v = Vae::new(x_dim, latent, hidden, Likelihood::Bernoulli, &mut rng).unwrap();
        let mut sc = Scratch::default();
        for r in 0..3 {
            let x: Vec<f64> = (0..x_dim).map(|i| f64::from(u8::from((i + r) % 3 == 0))).collect();
            let parts: Particles = v.sample_particles(&x, 4, &mut rng, &mut sc);
            vals.extend(parts.log_weights());
            let a: Vec<f64> = (0..4).map(|s| 0.3 * s as f64 - 0.2).collect();
            let b: Vec<f64> = (0..4).map(|s| if s == 2 { 0.0 } else { 0.1 * s as f64 + 0.05 }).collect();
            let mut g = vec![0.0; v.params.len()];
            v.accumulate_grad(&x, &parts, &a, &b, &mut g, &mut sc);
            vals.extend_from_slice(&g);
        }
        let vg = Vae::new(x_dim, latent, hidden, Likelihood::Gaussian { sd: 0.7 }, &mut rng).unwrap();
        let x: Vec<f64> = (0..x_dim).map(|i| 0.3 * i as f64 - 0.5).collect();
        let parts = vg.sample_particles(&x, 3, &mut rng, &mut sc);
        let mut g = vec![0.0; vg.params.len()];
        vg.accumulate_grad(&x, &parts, &[1.0, 0.5, -0.25], &[0.2, -0.1, 0.3], &mut g, &mut sc);
        vals.extend(parts.log_weights());
        vals.extend_from_slice(&g);
    }
    check("vae", &vals, 0xbdff48072ee1669c);
}

#[test]
fn lr_classifier_bits_are_pinned() {
    let (p, k) = (4, 3);
    let (x, y) = toy_data(40, p, k, 31);
    let (tx, ty) = toy_data(15, p, k, 32);
    let mut vals = Vec::new();
    for kind in [ClassifierKind::Mlp(6), ClassifierKind::Softmax, ClassifierKind::Mlp(1)] {
        let c =
            Classifier::new(kind, p, k, 5, x.clone(), y.clone(), tx.clone(), ty.clone(), (0..40).step_by(3).collect());
        let mut rng = stream(33, 1);
        let mut w = c.init(&mut rng);
        let mut g = vec![0.0; c.dim()];
        let mut s = Vec::new();
        for _ in 0..25 {
            c.stoch_grad(&w, &mut rng, &mut g, &mut s);
            vals.extend_from_slice(&g);
            for (wi, gi) in w.iter_mut().zip(&g) {
                *wi -= 0.5 * gi;
            }
        }
        vals.push(c.trace_loss(&w, &mut s));
        vals.push(c.test_loss(&w, &mut s));
        vals.extend_from_slice(&w);
    }
    check("lr classifier", &vals, 0x125027b987c5f9b0);
}

#[test]
fn hpo_network_bits_are_pinned() {
    let mut spec = HpoSpec::mlp(DigitData::Digits);
    if let HpoModel::Mlp { train, epochs, .. } = &mut spec.model {
        *train = Some(80);
        *epochs = 3;
    }
    spec.valid = 60;
    spec.truth_folds = 1;
    spec.reference_arms = 2;
    let sh = Arc::new(HpoShared::build(&spec, 5, &mut |_, _| {}, &AtomicBool::new(false)).unwrap());
    let mut vals = vec![sh.optimum()];
    let mut h = Hpo::new(sh, 9);
    for arm in 0..8 {
        for pull in 0..2 {
            vals.push(h.reward(arm, pull));
        }
    }
    check("hpo", &vals, 0x2984cdb715a5584a);
}
