//! Arbitrary bytes -> svmlight / libsvm parsing into CSR, then what the core does next (the sparse HOAG
//! problem and one hypergradient): errors are fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::data::sparse::{parse_svmlight, MAX_SPARSE_FEATURES};
use tunelab::experiments::hoag::{hypergradient, sparse_problem, Bilevel, HoagConfig, ProblemKind};

fuzz_target!(|bytes: &[u8]| {
    let text = String::from_utf8_lossy(bytes);
    let Ok(d) = parse_svmlight(&text, None) else { return };
    // CSR invariants.
    let x = &d.x;
    assert_eq!(x.n_rows, d.y.len());
    assert_eq!(x.indptr.len(), x.n_rows + 1);
    assert_eq!(x.indptr[0], 0);
    assert_eq!(*x.indptr.last().unwrap(), x.nnz());
    assert_eq!(x.indices.len(), x.values.len());
    assert!(x.n_cols >= 1 && x.n_cols <= MAX_SPARSE_FEATURES);
    for i in 0..x.n_rows {
        let row = &x.indices[x.indptr[i]..x.indptr[i + 1]];
        assert!(row.windows(2).all(|w| w[0] < w[1]) && row.iter().all(|&j| j < x.n_cols));
    }
    assert!(x.values.iter().all(|v| v.is_finite() && *v != 0.0) && d.y.iter().all(|v| v.is_finite()));
    // A wider declared width (within the limit) keeps the rows; beyond the limit or narrower than the
    // largest index it is an error.
    let w = (x.n_cols + 3).min(MAX_SPARSE_FEATURES);
    let wider = parse_svmlight(&text, Some(w)).expect("a wider n_features within the limit is accepted");
    assert_eq!((wider.x.n_cols, &wider.x.indices, &wider.y), (w, &x.indices, &d.y));
    assert!(parse_svmlight(&text, Some(MAX_SPARSE_FEATURES + 1)).is_err());
    if x.nnz() > 0 {
        let used = x.indices.iter().max().unwrap() + 1;
        assert!(parse_svmlight(&text, Some(used - 1)).is_err());
    }
    // The sparse HOAG problem and one hypergradient (small widths only, to keep each input fast).
    if x.n_cols <= 1 << 12 {
        for problem in [ProblemKind::Logreg, ProblemKind::LogregPerFeature] {
            let mut cfg = HoagConfig::new(problem);
            cfg.landscape_points = 0;
            if let Ok(pr) = sparse_problem(&cfg, &d) {
                assert_eq!(pr.train.y.len() + pr.test.y.len() + pr.validation.y.len(), d.y.len());
                let (_, g) = hypergradient(&pr, &vec![0.0; pr.n_hyper()], 1e-6, 50);
                assert_eq!(g.len(), pr.n_hyper());
            }
        }
    }
});
