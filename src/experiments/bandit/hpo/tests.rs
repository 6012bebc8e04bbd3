//! Unit tests of the HPO problems (the module's private training code).
use super::*;

/// The trained weights of the network, bit for bit (FNV-1a over the f64 bits): a reference value that pins
/// the dense layers of `crate::nn` and the training loop.
#[test]
fn mlp_training_bits_are_pinned() {
    let all = data::digits().unwrap();
    let mut train = all.subset(&(0..120).collect::<Vec<_>>());
    train.standardize();
    train.x.iter_mut().for_each(|v| {
        if !v.is_finite() {
            *v = 0.0
        }
    });
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (width, batch) in [(9, 16), (3, 7)] {
        let o = MlpOpts { lr: 0.05, width, penalty: Penalty::L2(1e-3), batch, epochs: 3, solver: Solver::Sgd };
        let net = mlp_train(&train, 10, &o, &mut substream(3, 4, width as u64)).expect("finite");
        for v in net.w1.iter().chain(&net.b1).chain(&net.w2).chain(&net.b2) {
            for b in v.to_bits().to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    eprintln!("hpo weights: {h:#018x}");
    assert_eq!(h, 0xb28d_8334_d868_15c8);
}

/// scikit-learn's `alpha` ([`Penalty::Alpha`], the `mlp-mnist-poster` preset): alpha = 0 trains exactly as no
/// penalty (every step is the unpenalised gradient's, bit for bit, over several minibatches and epochs), and
/// alpha > 0 adds `lr alpha / b W` to a step on `b` rows (scikit-learn's `_backprop`: `coef_grads = (X^T
/// delta + alpha W) / n_samples`), weights only, not biases.
#[test]
fn alpha_zero_is_no_penalty_and_alpha_is_scikit_learns_weight_decay() {
    let all = data::digits().unwrap();
    let mut train = all.subset(&(0..120).collect::<Vec<_>>());
    train.standardize();
    train.x.iter_mut().for_each(|v| {
        if !v.is_finite() {
            *v = 0.0
        }
    });
    let bits =
        |n: &MlpWeights| n.w1.iter().chain(&n.b1).chain(&n.w2).chain(&n.b2).map(|v| v.to_bits()).collect::<Vec<u64>>();
    let run = |penalty: Penalty, batch: usize, epochs: usize| {
        let o = MlpOpts { lr: 0.05, width: 7, penalty, batch, epochs, solver: Solver::Sgd };
        mlp_train(&train, 10, &o, &mut substream(5, 6, 7)).expect("finite")
    };
    // minibatches of 50, 50 and 20 rows, 3 epochs
    let unpenalised = bits(&run(Penalty::L2(0.0), 50, 3));
    assert_eq!(bits(&run(Penalty::Alpha(0.0), 50, 3)), unpenalised);
    assert_ne!(bits(&run(Penalty::Alpha(0.1), 50, 3)), unpenalised);
    // one full-batch step from the same initial weights (epochs 0 = the initial weights)
    let init = run(Penalty::Alpha(0.0), 120, 0);
    let (plain, pen) = (run(Penalty::Alpha(0.0), 120, 1), run(Penalty::Alpha(0.5), 120, 1));
    let decay = 0.05 * 0.5 / 120.0;
    let w = |n: &MlpWeights| n.w1.iter().chain(&n.w2).copied().collect::<Vec<f64>>();
    let (w0, wp, wa) = (w(&init), w(&plain), w(&pen));
    assert!(w0.iter().any(|v| v.abs() > 0.1));
    for i in 0..w0.len() {
        let want = -decay * w0[i];
        assert!((wa[i] - wp[i] - want).abs() <= 1e-14 * (1.0 + w0[i].abs()), "weight {i}: {} vs {want}", wa[i] - wp[i]);
    }
    assert_eq!((&pen.b1, &pen.b2), (&plain.b1, &plain.b2), "biases are not penalised");
}

/// scikit-learn's stopping rule (`_update_no_improvement_count`, then `_no_improvement_count > n_iter_no_change`):
/// a loss above `best - tol` counts, a lower one resets; the best is kept across small gains.
#[test]
fn no_improvement_rule_is_scikit_learns() {
    let mut r = NoImprovement::new(0.1, 2);
    // 5.0 sets best; 4.95 (not 0.1 below) counts 1 but becomes the best; 4.9 (0.05 below 4.95) counts 2; 4.0 resets
    assert!(!r.stop_after(5.0));
    assert!(!r.stop_after(4.95));
    assert!(!r.stop_after(4.9));
    assert!(!r.stop_after(4.0));
    // three epochs in a row without a gain of 0.1: the third one exceeds the patience of 2
    assert!(!r.stop_after(3.95));
    assert!(!r.stop_after(4.5));
    assert!(r.stop_after(3.91));
}

fn digits_fold(rows: std::ops::Range<usize>) -> Dataset {
    let all = data::digits().unwrap();
    let mut d = all.subset(&rows.collect::<Vec<_>>());
    d.standardize();
    d.x.iter_mut().for_each(|v| {
        if !v.is_finite() {
            *v = 0.0
        }
    });
    d
}

/// `solver: adam` (scikit-learn's MLPClassifier defaults): the first step moves every parameter by the learning
/// rate against the sign of its gradient (Adam's first step, `lr g / (|g| + eps)`), the
/// gradient being the minibatch's mean cross-entropy gradient plus `alpha W / b` on the weights only; biases are
/// initialised as scikit-learn's (not zero).
#[test]
fn adam_first_step_is_scikit_learns_gradient_sign() {
    let train = digits_fold(0..120);
    let (lr, alpha) = (1e-3, 30.0);
    let o = |epochs| MlpOpts { lr, width: 7, penalty: Penalty::Alpha(alpha), batch: 120, epochs, solver: Solver::Adam };
    let init = mlp_train(&train, 10, &o(0), &mut substream(5, 6, 7)).unwrap();
    let one = mlp_train(&train, 10, &o(1), &mut substream(5, 6, 7)).unwrap();
    assert!(init.b1.iter().any(|b| *b != 0.0), "Glorot-uniform biases");
    let bound = (6.0f64 / (64 + 7) as f64).sqrt();
    assert!(init.w1.iter().chain(&init.b1).all(|w| w.abs() < bound));
    let mut g = Grads::new(64, 7, 10);
    let all: Vec<usize> = (0..120).collect();
    g.minibatch(&init, &train, &all, false);
    let b = 120.0;
    let mut flipped = 0;
    let pairs = [
        (&init.w1, &one.w1, &g.g1, true),
        (&init.b1, &one.b1, &g.gb1, false),
        (&init.w2, &one.w2, &g.g2, true),
        (&init.b2, &one.b2, &g.gb2, false),
    ];
    for (w0, w1, gs, penalised) in pairs {
        for i in 0..w0.len() {
            let grad = gs[i] / b + if penalised { alpha / b * w0[i] } else { 0.0 };
            // Adam's first step: m_hat = g, sqrt(v_hat) = |g|, so the step is lr g / (|g| + eps)
            let want = w0[i] - lr * grad / (grad.abs() + 1e-8);
            assert!((w1[i] - want).abs() < 1e-15, "step {} vs {}", w1[i] - w0[i], want - w0[i]);
            flipped += usize::from(penalised && gs[i].signum() != grad.signum());
        }
    }
    assert!(flipped > 0, "the penalty changed no step's direction: alpha too small for the test");
}

/// scikit-learn's Adam training learns the 8x8 digits (its default width 100 is narrowed to 32 here) and stops by
/// its rule: with a learning rate too small to lower the loss by 1e-4 an epoch it stops after 1 + 11 epochs.
#[test]
fn adam_learns_digits_and_stops_by_scikit_learns_rule() {
    let (train, valid) = (digits_fold(0..600), digits_fold(600..900));
    let o =
        |lr, epochs| MlpOpts { lr, width: 32, penalty: Penalty::Alpha(1e-4), batch: 200, epochs, solver: Solver::Adam };
    let acc = mlp_accuracy(&train, &valid, 10, &o(1e-2, 200), &mut substream(1, 2, 3));
    assert!(acc > 0.85, "validation accuracy {acc}");
    let net = mlp_train(&train, 10, &o(1e-8, 200), &mut substream(1, 2, 3)).unwrap();
    assert_eq!(net.epochs_run, 12);
    let sgd = MlpOpts { solver: Solver::Sgd, ..o(1e-8, 20) };
    assert_eq!(
        mlp_train(&train, 10, &sgd, &mut substream(1, 2, 3)).unwrap().epochs_run,
        20,
        "SGD has no stopping rule"
    );
}
