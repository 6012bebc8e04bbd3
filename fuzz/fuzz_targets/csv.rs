//! Arbitrary bytes -> CSV parsing (data sets with a few option combinations, matrix files): errors are
//! fine, panics are not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tunelab::data::{self, CsvOptions};

fuzz_target!(|bytes: &[u8]| {
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
});
