//! Ratings data for probabilistic matrix factorisation (paper section 4.2, MovieLens-100K's shape): a user's
//! own `user,item,rating` CSV, or ratings simulated from the PMF model with MovieLens-like sparsity.
//!
//! A ratings set is a [`Dataset`] with two feature columns, `user` and `item` (0-based indices, stored as
//! f64), and the rating as the label. In a CSV, users and items are positive integer ids (MovieLens numbers
//! them from 1); id `k` becomes index `k - 1`.

use super::Dataset;
use crate::error::{Error, Result};
use crate::math::exp;
use crate::rng::Rng;
use rand::RngExt;
use rand_distr::{Distribution, Normal};

/// Largest user or item id a ratings file may use (guards the parameter count: (users + items) x latent).
pub const MAX_ID: usize = 100_000;
/// Most ratings a file may hold.
pub const MAX_RATINGS: usize = 2_000_000;

/// MovieLens-100K's shape: users, items, ratings.
pub const ML100K: (usize, usize, usize) = (943, 1682, 100_000);

/// Number of users and items of a ratings set (1 + the largest index of each column).
pub fn shape(ds: &Dataset) -> (usize, usize) {
    let mut u = 0usize;
    let mut i = 0usize;
    for row in ds.x.chunks_exact(2) {
        u = u.max(row[0] as usize + 1);
        i = i.max(row[1] as usize + 1);
    }
    (u, i)
}

fn parse_id(field: &str, what: &str, line: usize) -> Result<usize> {
    let t = field.trim();
    let v: u64 =
        t.parse().map_err(|_| Error::data(format!("line {line}: {what} \"{t}\" is not a positive integer id")))?;
    if v == 0 || v > MAX_ID as u64 {
        return Err(Error::data(format!("line {line}: {what} id {v} is outside 1..={MAX_ID}")));
    }
    Ok(v as usize)
}

/// Parses a `user,item,rating` CSV (an optional header line whose first field is not a number; blank lines
/// skipped; commas, tabs or `::` as separators). Errors name the line.
pub fn parse_ratings(text: &str) -> Result<Dataset> {
    crate::limits::check_csv_bytes(text.len())?;
    let mut x = Vec::new();
    let mut y = Vec::new();
    let mut lines = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let s = raw.trim().trim_start_matches('\u{feff}');
        if s.is_empty() {
            continue;
        }
        let fields: Vec<&str> = if s.contains("::") {
            s.split("::").collect()
        } else if s.contains('\t') {
            s.split('\t').collect()
        } else {
            s.split(',').collect()
        };
        if y.is_empty() && x.is_empty() && fields[0].trim().parse::<f64>().is_err() {
            // A header.
            continue;
        }
        if fields.len() < 3 {
            return Err(Error::data(format!("line {line}: expected user,item,rating, got {} field(s)", fields.len())));
        }
        let u = parse_id(fields[0], "user", line)?;
        let i = parse_id(fields[1], "item", line)?;
        let rt = fields[2].trim();
        let r: f64 = rt.parse().map_err(|_| Error::data(format!("line {line}: rating \"{rt}\" is not a number")))?;
        if !r.is_finite() || r.abs() > 1e6 {
            return Err(Error::data(format!("line {line}: rating {rt} is not a finite number of reasonable size")));
        }
        if y.len() >= MAX_RATINGS {
            return Err(Error::data(format!("line {line}: more than {MAX_RATINGS} ratings")));
        }
        x.push((u - 1) as f64);
        x.push((i - 1) as f64);
        y.push(r);
        lines.push(line);
    }
    if y.len() < 2 {
        return Err(Error::data(format!("a ratings file needs at least 2 ratings, found {}", y.len())));
    }
    let mut ds = Dataset::new(x, y, 2, Some(vec!["user".into(), "item".into()]), "rating")?;
    ds.source_lines = lines;
    Ok(ds)
}

/// Simulates `n` ratings of `users` x `items` from the PMF model with `latent` factors (see
/// [`crate::model::Pmf`]): `U_i, V_j ~ N(0, I / lambda)`, `R_ij = mean + U_i . V_j + N(0, 1 / tau)`, rounded and
/// clipped to 1..5 like MovieLens stars. Which pairs are rated follows MovieLens-like sparsity: user activity
/// and item popularity are log-normal (sd 1), a pair is drawn with probability proportional to their product,
/// without repeats; every user rates at least one item. Returns the ratings (a [`Dataset`]).
#[allow(clippy::too_many_arguments)]
pub fn simulate_ratings(
    users: usize,
    items: usize,
    n: usize,
    latent: usize,
    lambda: f64,
    tau: f64,
    mean: f64,
    rng: &mut Rng,
) -> Result<Dataset> {
    if users == 0 || items == 0 || latent == 0 || n < 2 || n > users.saturating_mul(items) / 2 || n > MAX_RATINGS {
        return Err(Error::config(format!(
            "simulated ratings need users, items, latent >= 1 and 2 <= n <= min(users x items / 2, {MAX_RATINGS}); got {users} x {items}, n = {n}")));
    }
    if !(lambda > 0.0 && tau > 0.0 && lambda.is_finite() && tau.is_finite() && mean.is_finite()) {
        return Err(Error::config("simulated ratings need positive finite precisions"));
    }
    let sd_f = Normal::new(0.0, (1.0 / lambda).sqrt()).map_err(|e| Error::config(e.to_string()))?;
    let sd_e = Normal::new(0.0, (1.0 / tau).sqrt()).map_err(|e| Error::config(e.to_string()))?;
    let lognormal = |rng: &mut Rng| exp(rng.sample::<f64, _>(rand_distr::StandardNormal));
    let wu: Vec<f64> = (0..users).map(|_| lognormal(rng)).collect();
    let wi: Vec<f64> = (0..items).map(|_| lognormal(rng)).collect();
    let cum = |w: &[f64]| {
        let mut c = Vec::with_capacity(w.len());
        let mut s = 0.0;
        for v in w {
            s += v;
            c.push(s);
        }
        c
    };
    let (cu, ci) = (cum(&wu), cum(&wi));
    let pick = |c: &[f64], rng: &mut Rng| {
        let t = rng.random::<f64>() * c[c.len() - 1];
        c.partition_point(|v| *v < t).min(c.len() - 1)
    };
    let u_f: Vec<f64> = (0..users * latent).map(|_| sd_f.sample(rng)).collect();
    let v_f: Vec<f64> = (0..items * latent).map(|_| sd_f.sample(rng)).collect();
    let mut seen = std::collections::HashSet::with_capacity(n);
    let mut pairs = Vec::with_capacity(n);
    // Every user rates at least one item.
    for u in 0..users.min(n) {
        let i = pick(&ci, rng);
        if seen.insert((u, i)) {
            pairs.push((u, i));
        }
    }
    let mut tries = 0usize;
    while pairs.len() < n {
        tries += 1;
        let (u, i) = if tries > 50 * n {
            (rng.random_range(0..users), rng.random_range(0..items))
        } else {
            (pick(&cu, rng), pick(&ci, rng))
        };
        if seen.insert((u, i)) {
            pairs.push((u, i));
        }
    }
    let mut x = Vec::with_capacity(2 * n);
    let mut y = Vec::with_capacity(n);
    for (u, i) in pairs {
        let dot: f64 = (0..latent).map(|k| u_f[u * latent + k] * v_f[i * latent + k]).sum();
        let r = (mean + dot + sd_e.sample(rng)).round().clamp(1.0, 5.0);
        x.push(u as f64);
        x.push(i as f64);
        y.push(r);
    }
    Dataset::new(x, y, 2, Some(vec!["user".into(), "item".into()]), "rating")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_header_and_separators() {
        let ds = parse_ratings("user,item,rating\n1,2,5\n\n3,1,4.5\n").unwrap();
        assert_eq!(ds.n, 2);
        assert_eq!(ds.x, vec![0.0, 1.0, 2.0, 0.0]);
        assert_eq!(ds.y, vec![5.0, 4.5]);
        assert_eq!(ds.source_lines, vec![2, 4]);
        assert_eq!(shape(&ds), (3, 2));
        // MovieLens u.data (tabs, a timestamp column) and ratings.dat (::).
        assert_eq!(parse_ratings("196\t242\t3\t881250949\n186\t302\t3\t891717742\n").unwrap().n, 2);
        assert_eq!(parse_ratings("1::1193::5::978300760\n1::661::3::978302109\n").unwrap().n, 2);
    }

    #[test]
    fn typed_errors_name_the_line() {
        let cases = [
            ("user,item,rating\n1,2,5\n1,x,4\n", "line 3", "item"),
            ("1,2,5\n0,2,4\n", "line 2", "outside"),
            ("1,2,5\n1,2\n", "line 2", "field"),
            ("1,2,5\n1,2,abc\n", "line 2", "not a number"),
            ("1,2,5\n1,2,NaN\n", "line 2", "finite"),
            ("1,2,5\n1,-3,4\n", "line 2", "item"),
            ("1,2,5\n999999999,1,4\n", "line 2", "outside"),
            ("1,2,5\n", "", "at least 2"),
            ("", "", "at least 2"),
        ];
        for (text, line, what) in cases {
            let e = parse_ratings(text).unwrap_err().to_string();
            assert!(e.contains(line) && e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn simulation_has_the_shape_and_ratings_of_movielens() {
        let mut r = crate::rng::stream(3, 0);
        let ds = simulate_ratings(100, 150, 2000, 5, 4.0, 1.0, 3.5, &mut r).unwrap();
        assert_eq!(ds.n, 2000);
        assert!(ds.y.iter().all(|v| (1.0..=5.0).contains(v) && v.fract() == 0.0));
        let (u, i) = shape(&ds);
        assert!(u == 100 && i <= 150);
        let mut pairs: Vec<(u64, u64)> = ds.x.chunks_exact(2).map(|p| (p[0] as u64, p[1] as u64)).collect();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs.len(), 2000, "no repeated pairs");
        assert!(simulate_ratings(10, 10, 60, 2, 1.0, 1.0, 3.0, &mut r).is_err());
    }
}
