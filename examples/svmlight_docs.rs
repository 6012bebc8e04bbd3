//! Writes simulated documents as svmlight text (`data::sparse::simulate_svmlight`) to stdout:
//! `cargo run --release --example svmlight_docs -- N TERMS SEED > docs.svm`.
fn main() {
    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().expect("N TERMS SEED")).collect();
    let (n, p, seed) =
        (a.first().copied().unwrap_or(300), a.get(1).copied().unwrap_or(200), a.get(2).copied().unwrap_or(1));
    print!("{}", tunelab::data::sparse::simulate_svmlight(n, p, seed as u64));
}
