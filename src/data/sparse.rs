//! Sparse data for text-like uploads: the svmlight / libsvm format parsed into a CSR matrix.
//!
//! One example per line: `label index:value index:value ... [# comment]`. Indices are 1-based (libsvm),
//! strictly increasing within a line; a `qid:N` token is accepted and ignored; blank lines and lines that are
//! only a comment are skipped. Limits ([`crate::limits`]): at most [`MAX_CSV_BYTES`] bytes, [`MAX_ROWS`]
//! rows, [`MAX_SPARSE_FEATURES`] features (the largest index) and [`MAX_CELLS`] stored values. Every error
//! names the 1-based line and, where it applies, the token.

use crate::error::{Error, Result};
use crate::limits::{thousands, MAX_CELLS, MAX_CSV_BYTES, MAX_ROWS};

/// Most features (largest index) of a sparse data file: 2^22, the hashing-trick size of common text tools.
pub const MAX_SPARSE_FEATURES: usize = 1 << 22;

/// A compressed sparse row matrix: row `i` holds `values[indptr[i]..indptr[i+1]]` at the 0-based columns
/// `indices[..]` (strictly increasing within a row).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CsrMatrix {
    pub n_rows: usize,
    pub n_cols: usize,
    pub indptr: Vec<usize>,
    pub indices: Vec<usize>,
    pub values: Vec<f64>,
}

impl CsrMatrix {
    /// `a_iᵀ w`.
    pub fn row_dot(&self, i: usize, w: &[f64]) -> f64 {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        self.indices[a..b].iter().zip(&self.values[a..b]).map(|(&j, v)| v * w[j]).sum()
    }
    /// `g += c a_i`.
    pub fn row_axpy(&self, i: usize, c: f64, g: &mut [f64]) {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        for (&j, v) in self.indices[a..b].iter().zip(&self.values[a..b]) {
            g[j] += c * v;
        }
    }
    /// The rows `rows` (in that order) as a new matrix with the same columns.
    pub fn select_rows(&self, rows: &[usize]) -> CsrMatrix {
        let mut out = CsrMatrix { n_rows: rows.len(), n_cols: self.n_cols, indptr: vec![0], ..Default::default() };
        for &i in rows {
            let (a, b) = (self.indptr[i], self.indptr[i + 1]);
            out.indices.extend_from_slice(&self.indices[a..b]);
            out.values.extend_from_slice(&self.values[a..b]);
            out.indptr.push(out.indices.len());
        }
        out
    }
    /// Stored values.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
}

/// A sparse labelled data set.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseDataset {
    pub x: CsrMatrix,
    pub y: Vec<f64>,
}

fn number(tok: &str, line: usize, what: &str) -> Result<f64> {
    let v: f64 = tok.parse().map_err(|_| Error::data(format!("line {line}: {what} '{tok}' is not a number")))?;
    if !v.is_finite() {
        return Err(Error::data(format!("line {line}: {what} '{tok}' is not finite")));
    }
    Ok(v)
}

/// Parses svmlight / libsvm text (see the module doc); `n_features` fixes the number of columns (it must be
/// at least the largest index), otherwise it is the largest index.
pub fn parse_svmlight(text: &str, n_features: Option<usize>) -> Result<SparseDataset> {
    if text.len() > MAX_CSV_BYTES {
        return Err(Error::data(format!(
            "the file has {} bytes; data files are limited to {} bytes",
            thousands(text.len()),
            thousands(MAX_CSV_BYTES)
        )));
    }
    let mut x = CsrMatrix { indptr: vec![0], ..Default::default() };
    let mut y = Vec::new();
    let mut max_col = 0usize;
    for (li, raw) in text.lines().enumerate() {
        let line = li + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        if y.len() == MAX_ROWS {
            return Err(Error::data(format!("line {line}: data files are limited to {} rows", thousands(MAX_ROWS))));
        }
        let mut toks = body.split_ascii_whitespace();
        let label = toks.next().unwrap_or("");
        y.push(number(label, line, "label")?);
        let mut last = 0usize;
        for tok in toks {
            let (k, v) =
                tok.split_once(':').ok_or_else(|| Error::data(format!("line {line}: '{tok}' is not index:value")))?;
            if k == "qid" {
                continue;
            }
            let idx: usize = k
                .parse()
                .map_err(|_| Error::data(format!("line {line}: index '{k}' in '{tok}' is not a positive integer")))?;
            if idx == 0 {
                return Err(Error::data(format!("line {line}: index 0 in '{tok}' (indices are 1-based)")));
            }
            if idx > MAX_SPARSE_FEATURES {
                return Err(Error::data(format!(
                    "line {line}: index {idx} exceeds the limit of {} features",
                    thousands(MAX_SPARSE_FEATURES)
                )));
            }
            if idx <= last {
                return Err(Error::data(format!(
                    "line {line}: index {idx} after {last} (indices must increase within a line)"
                )));
            }
            last = idx;
            let val = number(v, line, "value")?;
            if x.values.len() == MAX_CELLS {
                return Err(Error::data(format!("line {line}: more than {} stored values", thousands(MAX_CELLS))));
            }
            if val != 0.0 {
                x.indices.push(idx - 1);
                x.values.push(val);
            }
            max_col = max_col.max(idx);
        }
        x.indptr.push(x.indices.len());
    }
    if y.is_empty() {
        return Err(Error::data("the file has no examples"));
    }
    x.n_rows = y.len();
    x.n_cols = match n_features {
        Some(p) if p < max_col => {
            return Err(Error::data(format!("the file uses feature {max_col} but n_features is {p}")));
        }
        Some(p) if p > MAX_SPARSE_FEATURES => {
            return Err(Error::data(format!("n_features {p} exceeds the limit of {}", thousands(MAX_SPARSE_FEATURES))));
        }
        Some(p) => p,
        None => max_col,
    };
    if x.n_cols == 0 {
        return Err(Error::data("the file has no features"));
    }
    Ok(SparseDataset { x, y })
}

/// Simulated text-like data as svmlight text: `n` documents over `p` terms, about 6 distinct terms each
/// (values: counts 1-3), labels +1 / -1 drawn from a logistic model on the presence of the terms (weight
/// +1.5 for terms `j ≡ 0 mod 4`, -1.5 for `j ≡ 1 mod 4`, 0 otherwise). Seeded; for tests, examples and the page.
pub fn simulate_svmlight(n: usize, p: usize, seed: u64) -> String {
    use rand::RngExt;
    use std::fmt::Write as _;
    let mut rng = crate::rng::stream(seed, 7);
    let w: Vec<f64> = (0..p)
        .map(|j| {
            if j % 4 == 0 {
                1.5
            } else if j % 4 == 1 {
                -1.5
            } else {
                0.0
            }
        })
        .collect();
    let mut out = String::from("# simulated documents\n");
    for _ in 0..n {
        let mut terms: Vec<usize> = (0..6).map(|_| rng.random_range(0..p.max(1))).collect();
        terms.sort_unstable();
        terms.dedup();
        let t: f64 = terms.iter().map(|&j| w[j]).sum();
        let u: f64 = rng.random();
        let label = if u < 1.0 / (1.0 + crate::math::exp(-t)) { "+1" } else { "-1" };
        out.push_str(label);
        for j in terms {
            let _ = write!(out, " {}:{}", j + 1, 1 + rng.random_range(0..3usize));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_small_file_into_csr() {
        let d = parse_svmlight("# header comment\n1 1:0.5 3:2 # tail\n\n-1 qid:4 2:1e-1\n+1\n", None).unwrap();
        assert_eq!(d.y, vec![1.0, -1.0, 1.0]);
        assert_eq!(d.x.n_rows, 3);
        assert_eq!(d.x.n_cols, 3);
        assert_eq!(d.x.indptr, vec![0, 2, 3, 3]);
        assert_eq!(d.x.indices, vec![0, 2, 1]);
        assert_eq!(d.x.values, vec![0.5, 2.0, 0.1]);
        assert_eq!(d.x.row_dot(0, &[1.0, 10.0, 100.0]), 200.5);
        let s = d.x.select_rows(&[2, 1]);
        assert_eq!((s.indptr.clone(), s.indices.clone()), (vec![0, 0, 1], vec![1]));
        assert_eq!(parse_svmlight("0 2:1\n", Some(5)).unwrap().x.n_cols, 5);
    }

    #[test]
    fn malformed_files_give_errors_that_name_the_line() {
        for (text, needle) in [
            ("1 1:1\nx 2:1\n", "line 2: label 'x'"),
            ("1 1:1 1:2\n", "line 1: index 1 after 1"),
            ("1 3:1 2:2\n", "index 2 after 3"),
            ("1 0:1\n", "index 0"),
            ("1 -2:1\n", "index '-2'"),
            ("1 2:nan\n", "not finite"),
            ("1 2:abc\n", "value 'abc'"),
            ("1 2\n", "'2' is not index:value"),
            ("1 99999999:1\n", "exceeds the limit"),
            ("", "no examples"),
            ("# only\n\n", "no examples"),
            ("1\n0\n", "no features"),
            ("1 inf:1\n", "index 'inf'"),
        ] {
            let e = parse_svmlight(text, None).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
        let e = parse_svmlight("1 4:1\n", Some(3)).unwrap_err().to_string();
        assert!(e.contains("feature 4 but n_features is 3"), "{e}");
    }
}
