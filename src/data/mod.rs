//! Data sets: CSV parsing with errors that name the line and column, standardisation (train statistics
//! applied to the other parts), seeded train/test splits and shuffled cuts (HOAG's thirds, the LR-schedule
//! split), label recoding, the paper's simulators, the shipped 8x8 digits set, and matrix CSV files
//! (samples, scores, test locations).
//!
//! Line numbers in messages are 1-based lines of the file, the header being line 1.

use crate::error::{Error, Result};
use crate::rng::Rng;
use rand::RngExt;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

pub mod mnist;
pub mod shipped;
pub use shipped::Shipped;
pub mod ratings;
pub mod sparse;

/// A regression / classification data set: features `x` (`n x p`, row-major) and labels `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Features, `n x p`, row-major.
    pub x: Vec<f64>,
    /// Labels, length `n`.
    pub y: Vec<f64>,
    /// Number of rows (data points).
    pub n: usize,
    /// Number of features.
    pub p: usize,
    /// Names of the feature columns (length `p`).
    pub feature_names: Vec<String>,
    /// Name of the label column.
    pub label_name: String,
    /// For data read from a file: the file line of each row (header = line 1), so that later checks
    /// (labels) can name the line even after a split. Empty for generated data.
    pub source_lines: Vec<usize>,
}

/// How to read a CSV data file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CsvOptions {
    /// Name of the label column (default `"y"`); every other column is a feature.
    pub label: String,
    /// Standardise the features to mean 0, standard deviation 1 after reading.
    pub standardize: bool,
}

impl Default for CsvOptions {
    fn default() -> Self {
        Self { label: "y".into(), standardize: false }
    }
}

/// Per-feature mean and standard deviation used by [`Dataset::standardize`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standardization {
    pub mean: Vec<f64>,
    /// Population standard deviation (divisor n); 1 for a constant column.
    pub sd: Vec<f64>,
}

impl Standardization {
    /// Apply these statistics to another data set with the same features (e.g. a test set).
    pub fn apply(&self, ds: &mut Dataset) -> Result<()> {
        if ds.p != self.mean.len() {
            return Err(Error::data(format!(
                "cannot standardise: data set has {} features, the statistics have {}",
                ds.p,
                self.mean.len()
            )));
        }
        for row in ds.x.chunks_exact_mut(ds.p) {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.sd) {
                *v = (*v - m) / s;
            }
        }
        Ok(())
    }
}

impl Dataset {
    /// Build a data set from parts, checking shapes and finiteness. Feature names default to `x1..xp`.
    pub fn new(
        x: Vec<f64>,
        y: Vec<f64>,
        p: usize,
        feature_names: Option<Vec<String>>,
        label_name: &str,
    ) -> Result<Self> {
        let n = y.len();
        if p == 0 {
            return Err(Error::data("a data set needs at least one feature column"));
        }
        if x.len() != n * p {
            return Err(Error::data(format!(
                "features have {} values, expected n x p = {} x {} = {}",
                x.len(),
                n,
                p,
                n * p
            )));
        }
        let feature_names = feature_names.unwrap_or_else(|| (1..=p).map(|j| format!("x{j}")).collect());
        if feature_names.len() != p {
            return Err(Error::data(format!("{} feature names given for {} features", feature_names.len(), p)));
        }
        let ds = Dataset { x, y, n, p, feature_names, label_name: label_name.to_string(), source_lines: Vec::new() };
        for i in 0..n {
            if !ds.y[i].is_finite() {
                return Err(Error::data(format!(
                    "{}, column \"{}\": label is not a finite number",
                    ds.row_name(i),
                    ds.label_name
                )));
            }
            if let Some(j) = ds.row(i).iter().position(|v| !v.is_finite()) {
                return Err(Error::data(format!(
                    "{}, column \"{}\": value is not a finite number",
                    ds.row_name(i),
                    ds.feature_names[j]
                )));
            }
        }
        Ok(ds)
    }

    /// Row `i` of the features.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.p..(i + 1) * self.p]
    }

    /// How to name row `i` in a message: its file line if known, else its 1-based data row.
    pub fn row_name(&self, i: usize) -> String {
        match self.source_lines.get(i) {
            Some(l) => format!("line {l}"),
            None => format!("data row {}", i + 1),
        }
    }

    /// Check that every label is 0 or 1 (logistic regression).
    pub fn check_binary_labels(&self) -> Result<()> {
        for (i, &v) in self.y.iter().enumerate() {
            if v != 0.0 && v != 1.0 {
                return Err(Error::data(format!(
                    "{}, column \"{}\": label {} is not 0 or 1; logistic regression needs 0/1 labels \
                     (recode the classes, or choose another label column)",
                    self.row_name(i),
                    self.label_name,
                    v
                )));
            }
        }
        Ok(())
    }

    /// Check that every label is an integer class index in `0..k`.
    pub fn check_class_labels(&self, k: usize) -> Result<()> {
        for (i, &v) in self.y.iter().enumerate() {
            if v.fract() != 0.0 || v < 0.0 {
                return Err(Error::data(format!(
                    "{}, column \"{}\": label {} is not a class index (classes must be 0, 1, 2, ...)",
                    self.row_name(i),
                    self.label_name,
                    v
                )));
            }
            if v >= k as f64 {
                return Err(Error::data(format!(
                    "{}, column \"{}\": label {} is not a class index 0..{}",
                    self.row_name(i),
                    self.label_name,
                    v,
                    k.saturating_sub(1)
                )));
            }
        }
        Ok(())
    }

    /// Number of classes of an integer-labelled data set: `max label + 1` (0 when empty).
    pub fn n_classes(&self) -> usize {
        // Saturating: a label of 1e300 (a regression column used as labels) must not overflow; the callers
        // then refuse more than `limits::MAX_CLASSES` classes.
        (self.y.iter().fold(0.0f64, |m, &v| m.max(v)) as usize).saturating_add(usize::from(self.n > 0))
    }

    /// Standardise every feature in place to mean 0 and (population) standard deviation 1.
    /// A constant column is centred and left with sd 1 (no NaN). Returns the statistics used.
    pub fn standardize(&mut self) -> Standardization {
        let (n, p) = (self.n, self.p);
        let mut mean = vec![0.0; p];
        let mut sd = vec![0.0; p];
        if n > 0 {
            for row in self.x.chunks_exact(p) {
                for (m, v) in mean.iter_mut().zip(row) {
                    *m += v;
                }
            }
            mean.iter_mut().for_each(|m| *m /= n as f64);
            for row in self.x.chunks_exact(p) {
                for ((s, v), m) in sd.iter_mut().zip(row).zip(&mean) {
                    *s += (v - m) * (v - m);
                }
            }
        }
        for (s, m) in sd.iter_mut().zip(&mean) {
            let v = (*s / n.max(1) as f64).sqrt();
            // Relative threshold: a column constant up to rounding is treated as constant.
            *s = if v > 1e-12 * (1.0 + m.abs()) { v } else { 1.0 };
        }
        let st = Standardization { mean, sd };
        // Shapes match by construction.
        let _ = st.apply(self);
        st
    }

    /// Rows `idx` as a new data set.
    pub fn subset(&self, idx: &[usize]) -> Dataset {
        let mut x = Vec::with_capacity(idx.len() * self.p);
        for &i in idx {
            x.extend_from_slice(self.row(i));
        }
        Dataset {
            x,
            y: idx.iter().map(|&i| self.y[i]).collect(),
            n: idx.len(),
            p: self.p,
            feature_names: self.feature_names.clone(),
            label_name: self.label_name.clone(),
            source_lines: if self.source_lines.is_empty() {
                Vec::new()
            } else {
                idx.iter().map(|&i| self.source_lines[i]).collect()
            },
        }
    }

    /// Seeded random split into (train, test); `test_fraction` in (0, 1), both parts non-empty.
    /// The rows of each part keep their original order.
    pub fn split(&self, test_fraction: f64, rng: &mut Rng) -> Result<(Dataset, Dataset)> {
        if !(test_fraction > 0.0 && test_fraction < 1.0) {
            return Err(Error::config(format!("test fraction must be strictly between 0 and 1, got {test_fraction}")));
        }
        if self.n < 2 {
            return Err(Error::data(format!("cannot split {} rows into a training and a test set", self.n)));
        }
        let n_test = ((test_fraction * self.n as f64).round() as usize).clamp(1, self.n - 1);
        // Partial Fisher-Yates: the first n_test positions become the test rows.
        let mut perm: Vec<usize> = (0..self.n).collect();
        for i in 0..n_test {
            let j = rng.random_range(i..self.n);
            perm.swap(i, j);
        }
        let mut test_idx = perm[..n_test].to_vec();
        let mut train_idx = perm[n_test..].to_vec();
        test_idx.sort_unstable();
        train_idx.sort_unstable();
        Ok((self.subset(&train_idx), self.subset(&test_idx)))
    }

    /// Seeded shuffle cut into consecutive parts: the rows are permuted (Fisher-Yates from the last row,
    /// `j` uniform in `0..=i`) and part `k` takes the shuffled rows `cuts[k-1]..cuts[k]` (with `cuts[-1] = 0`
    /// and a last part up to `n`), in shuffled order. E.g. `cuts = [n/3, 2n/3]` gives thirds.
    pub fn shuffled_parts(&self, cuts: &[usize], rng: &mut Rng) -> Result<Vec<Dataset>> {
        if cuts.windows(2).any(|w| w[0] > w[1]) || cuts.last().is_some_and(|&c| c > self.n) {
            return Err(Error::config(format!("split points {cuts:?} are not increasing within 0..={}", self.n)));
        }
        let mut idx: Vec<usize> = (0..self.n).collect();
        for i in (1..self.n).rev() {
            let j = rng.random_range(0..=i);
            idx.swap(i, j);
        }
        let bounds: Vec<usize> =
            std::iter::once(0).chain(cuts.iter().copied()).chain(std::iter::once(self.n)).collect();
        Ok(bounds.windows(2).map(|w| self.subset(&idx[w[0]..w[1]])).collect())
    }

    /// Recode a label with exactly two distinct values: the smaller becomes `lo`, the larger `hi`
    /// (e.g. `-1` / `+1` for a margin loss). Errors when the label has not exactly two values.
    pub fn recode_two_labels(&mut self, lo: f64, hi: f64) -> Result<()> {
        let mut vals = self.y.clone();
        vals.sort_by(|a, b| a.total_cmp(b));
        vals.dedup();
        if vals.len() != 2 {
            return Err(Error::data(format!(
                "logistic regression needs a label with exactly two values, found {}",
                vals.len()
            )));
        }
        self.y.iter_mut().for_each(|v| *v = if *v == vals[0] { lo } else { hi });
        Ok(())
    }

    /// Standardise `parts[0]` (the training part) in place and apply its statistics to the other parts.
    pub fn standardize_by_first(parts: &mut [Dataset]) -> Result<Standardization> {
        let (first, rest) = parts.split_first_mut().ok_or_else(|| Error::data("no data set to standardise"))?;
        let st = first.standardize();
        for d in rest {
            st.apply(d)?;
        }
        Ok(st)
    }

    /// Write as CSV with a header (`feature names..., label`); numbers round-trip exactly.
    pub fn write_csv<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        let mut line = String::new();
        for name in &self.feature_names {
            line.push_str(&csv_field(name));
            line.push(',');
        }
        line.push_str(&csv_field(&self.label_name));
        line.push('\n');
        w.write_all(line.as_bytes())?;
        for i in 0..self.n {
            line.clear();
            for v in self.row(i) {
                let _ = write!(line, "{v},");
            }
            let _ = writeln!(line, "{}", self.y[i]);
            w.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// [`Dataset::write_csv`] into a `String`.
    pub fn to_csv_string(&self) -> String {
        let mut buf = Vec::new();
        let _ = self.write_csv(&mut buf);
        String::from_utf8(buf).unwrap_or_default()
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Split one CSV line into fields (RFC 4180 quoting within a line; cells trimmed).
fn split_fields<'a>(line: &'a str, lineno: usize, out: &mut Vec<std::borrow::Cow<'a, str>>) -> Result<()> {
    out.clear();
    if !line.contains('"') {
        out.extend(line.split(',').map(|c| std::borrow::Cow::Borrowed(c.trim())));
        return Ok(());
    }
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut in_quotes = false;
    while let Some(c) = chars.next() {
        match (c, in_quotes) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            ('"', true) => in_quotes = false,
            ('"', false) if cell.trim().is_empty() => {
                cell.clear();
                in_quotes = true;
            }
            (',', false) => {
                out.push(std::borrow::Cow::Owned(cell.trim().to_string()));
                cell.clear();
            }
            (c, _) => cell.push(c),
        }
    }
    if in_quotes {
        return Err(Error::data(format!(
            "line {lineno}: a quoted cell is not closed (quoted cells cannot span lines)"
        )));
    }
    out.push(std::borrow::Cow::Owned(cell.trim().to_string()));
    Ok(())
}

/// Non-empty lines of a text with their 1-based line numbers. Trailing empty lines are dropped;
/// an empty line before the last non-empty one is reported as an error.
fn numbered_lines(text: &str) -> Result<Vec<(usize, &str)>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<(usize, &str)> =
        text.split('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l))).collect();
    while lines.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        lines.pop();
    }
    if let Some((no, _)) = lines.iter().find(|(_, l)| l.trim().is_empty()) {
        return Err(Error::data(format!("line {no} is empty; remove empty lines between rows")));
    }
    Ok(lines)
}

fn parse_cell(cell: &str, lineno: usize, col: &str) -> Result<f64> {
    if cell.is_empty() {
        return Err(Error::data(format!(
            "line {lineno}, column \"{col}\": the cell is empty (missing values are not supported)"
        )));
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(Error::data(format!(
            "line {lineno}, column \"{col}\": value \"{cell}\" is not finite (NaN/Inf are not allowed)"
        ))),
        Err(_) => Err(Error::data(format!("line {lineno}, column \"{col}\": \"{cell}\" is not a number"))),
    }
}

fn ragged_error(lineno: usize, found: usize, expected: usize, names: &[String]) -> Error {
    let detail = if found < expected {
        format!("column \"{}\" and later are missing", names[found])
    } else {
        format!("there are {} extra cells after column \"{}\"", found - expected, names[expected - 1])
    };
    Error::data(format!("line {lineno}: expected {expected} cells (as in the header) but found {found}; {detail}"))
}

/// Parse a CSV data file with a header row. The column named `opts.label` holds the labels; every
/// other column is a numeric feature.
pub fn parse_csv(text: &str, opts: &CsvOptions) -> Result<Dataset> {
    crate::limits::check_csv_bytes(text.len())?;
    let lines = numbered_lines(text)?;
    let Some(&(hline, header)) = lines.first() else {
        return Err(Error::data("the file is empty; expected a header row and at least 2 data rows"));
    };
    let mut cells = Vec::new();
    split_fields(header, hline, &mut cells)?;
    let names: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
    if let Some(j) = names.iter().position(|n| n.is_empty()) {
        return Err(Error::data(format!("line {hline}: header cell {} is empty; every column needs a name", j + 1)));
    }
    for (j, a) in names.iter().enumerate() {
        if names[..j].contains(a) {
            return Err(Error::data(format!("line {hline}: column name \"{a}\" appears twice in the header")));
        }
    }
    let label_col = names.iter().position(|n| *n == opts.label).ok_or_else(|| {
        Error::data(format!(
            "no label column \"{}\" in the header; the columns found are: {}",
            opts.label,
            names.join(", ")
        ))
    })?;
    if names.len() < 2 {
        return Err(Error::data(format!(
            "line {hline}: the only column is the label \"{}\"; at least one feature column is needed",
            opts.label
        )));
    }
    let ncol = names.len();
    let p = ncol - 1;
    let n_rows = lines.len() - 1;
    crate::limits::check_csv_shape(n_rows, ncol)?;
    if n_rows < 2 {
        return Err(Error::data(format!("the file has {n_rows} data row(s) after the header; at least 2 are needed")));
    }
    let mut x = Vec::with_capacity(n_rows * p);
    let mut y = Vec::with_capacity(n_rows);
    let mut source_lines = Vec::with_capacity(n_rows);
    for &(no, line) in &lines[1..] {
        split_fields(line, no, &mut cells)?;
        if cells.len() != ncol {
            return Err(ragged_error(no, cells.len(), ncol, &names));
        }
        for (j, c) in cells.iter().enumerate() {
            let v = parse_cell(c, no, &names[j])?;
            if j == label_col {
                y.push(v)
            } else {
                x.push(v)
            }
        }
        source_lines.push(no);
    }
    let feature_names = names.iter().enumerate().filter(|&(j, _)| j != label_col).map(|(_, n)| n.clone()).collect();
    let mut ds = Dataset { x, y, n: n_rows, p, feature_names, label_name: opts.label.clone(), source_lines };
    if opts.standardize {
        ds.standardize();
    }
    Ok(ds)
}

/// Read and parse a CSV data file (see [`parse_csv`]).
pub fn read_csv(path: impl AsRef<std::path::Path>, opts: &CsvOptions) -> Result<Dataset> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {}: {e}", path.display())))?;
    parse_csv(&text, opts).map_err(|e| match e {
        Error::Data(m) => Error::Data(format!("{}: {m}", path.display())),
        e => e,
    })
}

/// Parse a numeric matrix file (samples, scores, test locations): one point per row, the same number of
/// columns in every row, an optional header row (detected when a cell of the first row is not a
/// number). Returns `(values row-major, n rows, d columns)`.
pub fn read_matrix_csv(text: &str) -> Result<(Vec<f64>, usize, usize)> {
    crate::limits::check_csv_bytes(text.len())?;
    let lines = numbered_lines(text)?;
    if lines.is_empty() {
        return Err(Error::data("the file is empty; expected one point per row"));
    }
    let mut cells = Vec::new();
    split_fields(lines[0].1, lines[0].0, &mut cells)?;
    let has_header = cells.iter().any(|c| c.parse::<f64>().is_err());
    let d = cells.len();
    let names: Vec<String> = if has_header {
        cells.iter().enumerate().map(|(j, c)| if c.is_empty() { format!("{}", j + 1) } else { c.to_string() }).collect()
    } else {
        (1..=d).map(|j| j.to_string()).collect()
    };
    let body = if has_header { &lines[1..] } else { &lines[..] };
    if body.is_empty() {
        return Err(Error::data("the file has a header but no data rows"));
    }
    crate::limits::check_csv_shape(body.len(), d)?;
    let mut vals = Vec::with_capacity(body.len() * d);
    for &(no, line) in body {
        split_fields(line, no, &mut cells)?;
        if cells.len() != d {
            return Err(ragged_error(no, cells.len(), d, &names));
        }
        for (j, c) in cells.iter().enumerate() {
            vals.push(parse_cell(c, no, &names[j])?);
        }
    }
    Ok((vals, body.len(), d))
}

/// Write a row-major `n x d` matrix as CSV, with an optional header; numbers round-trip exactly.
pub fn write_matrix_csv<W: std::io::Write>(
    w: &mut W,
    values: &[f64],
    d: usize,
    header: Option<&[String]>,
) -> std::io::Result<()> {
    let mut line = String::new();
    if let Some(h) = header {
        line.push_str(&h.iter().map(|s| csv_field(s)).collect::<Vec<_>>().join(","));
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    if d == 0 {
        return Ok(());
    }
    for row in values.chunks_exact(d) {
        line.clear();
        for (j, v) in row.iter().enumerate() {
            if j > 0 {
                line.push(',');
            }
            let _ = write!(line, "{v}");
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// [`write_matrix_csv`] into a `String`.
pub fn matrix_csv_string(values: &[f64], d: usize, header: Option<&[String]>) -> String {
    let mut buf = Vec::new();
    let _ = write_matrix_csv(&mut buf, values, d, header);
    String::from_utf8(buf).unwrap_or_default()
}

fn check_sim_size(n: usize, d: usize) -> Result<()> {
    if n < 2 {
        return Err(Error::config(format!("simulated data needs n >= 2 rows, got {n}")));
    }
    if d == 0 {
        return Err(Error::config("simulated data needs d >= 1 features"));
    }
    if n.checked_mul(d).is_none_or(|m| m > 1 << 31) {
        return Err(Error::config(format!("n x d = {n} x {d} is too large (at most 2^31 values)")));
    }
    Ok(())
}

/// Generalised-linear data: `theta_true ~ N(0, I_d)`, then row by row `x_i ~ N(0, I_d)` and the label
/// `label(x_i . theta_true, rng)` (drawn after the row's features). Returns the data and theta_true.
fn simulate_glm(
    n: usize,
    d: usize,
    rng: &mut Rng,
    mut label: impl FnMut(f64, &mut Rng) -> f64,
) -> Result<(Dataset, Vec<f64>)> {
    check_sim_size(n, d)?;
    let theta: Vec<f64> = (0..d).map(|_| rng.sample::<f64, _>(StandardNormal)).collect();
    let mut x = vec![0.0; n * d];
    let mut y = vec![0.0; n];
    for (row, yi) in x.chunks_exact_mut(d).zip(y.iter_mut()) {
        let mut z = 0.0;
        for (v, t) in row.iter_mut().zip(&theta) {
            *v = rng.sample(StandardNormal);
            z += *v * t;
        }
        *yi = label(z, rng);
    }
    let ds = Dataset {
        x,
        y,
        n,
        p: d,
        feature_names: (1..=d).map(|j| format!("x{j}")).collect(),
        label_name: "y".into(),
        source_lines: Vec::new(),
    };
    Ok((ds, theta))
}

/// The paper's logistic-regression data (Coullon, South & Nemeth 2023, Sec. 4.1 / App. B.1):
/// `theta_true ~ N(0, I_d)`, then for each row `x_i ~ N(0, I_d)`, `y_i ~ Bernoulli(sigmoid(x_i . theta_true))`.
/// Draw order: theta_true, then row by row (x_i, then one uniform for y_i). Returns the data and theta_true.
pub fn simulate_logistic(n: usize, d: usize, rng: &mut Rng) -> Result<(Dataset, Vec<f64>)> {
    simulate_glm(n, d, rng, |z, rng| {
        let u: f64 = rng.random();
        if u < crate::math::sigmoid(z) {
            1.0
        } else {
            0.0
        }
    })
}

/// Linear-regression data: `theta_true ~ N(0, I_d)`, `x_i ~ N(0, I_d)`, `y_i = x_i . theta_true + noise_sd * e_i`.
/// Returns the data and theta_true.
pub fn simulate_linear(n: usize, d: usize, noise_sd: f64, rng: &mut Rng) -> Result<(Dataset, Vec<f64>)> {
    check_sim_size(n, d)?;
    if !(noise_sd >= 0.0 && noise_sd.is_finite()) {
        return Err(Error::config(format!("noise standard deviation must be >= 0 and finite, got {noise_sd}")));
    }
    simulate_glm(n, d, rng, |z, rng| z + noise_sd * rng.sample::<f64, _>(StandardNormal))
}

/// The 8x8 handwritten digits (1,797 images, 64 pixel features `p0..p63` with values 0..16, label `y` in
/// 0..9), as distributed with scikit-learn (UCI optdigits test set). Not standardised. See [`shipped`].
pub fn digits() -> Result<Dataset> {
    Shipped::Digits.dataset()
}

/// scikit-learn's breast-cancer data (UCI Breast Cancer Wisconsin (Diagnostic); 569 rows, 30 features,
/// label `y` 0 = malignant, 1 = benign). Not standardised. See `data/README.md`.
pub fn breast_cancer() -> Result<Dataset> {
    Shipped::BreastCancer.dataset()
}

/// scikit-learn's wine data (UCI Wine; 178 rows, 13 features, label `y` = cultivar 0..2). Not standardised.
pub fn wine() -> Result<Dataset> {
    Shipped::Wine.dataset()
}

/// scikit-learn's diabetes data, unscaled (Efron et al. 2004; 442 rows, 10 features, label `y` = disease
/// progression after one year, 25..346). Not standardised.
pub fn diabetes() -> Result<Dataset> {
    Shipped::Diabetes.dataset()
}
