//! Unit tests of the HPO problems (the module's private training code).
use super::*;

/// The trained weights of the network, bit for bit (FNV-1a over the f64 bits; recorded before the dense
/// layers moved to `crate::nn`, issue 24).
#[test]
fn mlp_training_bits_are_pinned() {
    let all = data::digits().unwrap();
    let mut train = all.subset(&(0..120).collect::<Vec<_>>());
    train.standardize();
    train.x.iter_mut().for_each(|v| if !v.is_finite() { *v = 0.0 });
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (width, batch) in [(9, 16), (3, 7)] {
        let o = MlpOpts { lr: 0.05, width, penalty: Penalty::L2(1e-3), batch, epochs: 3 };
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
    train.x.iter_mut().for_each(|v| if !v.is_finite() { *v = 0.0 });
    let bits = |n: &MlpWeights| n.w1.iter().chain(&n.b1).chain(&n.w2).chain(&n.b2).map(|v| v.to_bits()).collect::<Vec<u64>>();
    let run = |penalty: Penalty, batch: usize, epochs: usize| {
        let o = MlpOpts { lr: 0.05, width: 7, penalty, batch, epochs };
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
