//! Arbitrary bytes -> ratings CSV parsing (user,item,rating) and the PMF target built on the result: errors are
//! fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;
use tunelab::data::ratings;
use tunelab::model::{Pmf, Target};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(ds) = ratings::parse_ratings(&text) {
        assert_eq!(ds.x.len(), 2 * ds.n);
        assert_eq!(ds.source_lines.len(), ds.n);
        let (u, i) = ratings::shape(&ds);
        assert!(u >= 1 && i >= 1 && u <= ratings::MAX_ID && i <= ratings::MAX_ID);
        let ds = Arc::new(ds);
        // What the core does next: the model over exactly the file's users and items, and one gradient.
        if let Ok(t) = Pmf::new(ds.clone(), u, i, 2, 1.0, 1.0, 3.0) {
            if t.dim() <= 1 << 16 {
                let theta = vec![0.1; t.dim()];
                let mut g = vec![0.0; t.dim()];
                t.grad_log_density(&theta, &mut g);
                let _ = t.rmse(&theta);
            }
        }
        // Too few factors for the file's ids: a typed error.
        if u > 1 {
            assert!(Pmf::new(ds, u - 1, i, 2, 1.0, 1.0, 3.0).is_err());
        }
    }
});
