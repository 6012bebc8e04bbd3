//! The fuzz targets' bodies (fuzz/src/lib.rs, included here as `fuzz_targets`) on stable Rust: every seed of
//! every target, every crash input kept in tests/data/fuzz/, and a fixed set of seeded mutants of the seeds.
//!
//! The mutants are what a fuzzer's first minutes try (libFuzzer's mutations: bit flips, random and "interesting"
//! bytes, inserted tokens, deleted, repeated and truncated ranges, splices of two seeds), drawn from one seeded
//! stream per target (`tunelab::rng::stream`), so the same inputs run on every machine and a failure is reproduced by running
//! this test again. It is not coverage-guided: the long, coverage-guided runs are `bash scripts/dev/fuzz.sh
//! SECONDS` (libFuzzer, nightly), which use the same bodies. `TUNELAB_FUZZ_REPLAY=SEED,SCALE` draws other
//! mutants (another stream seed, SCALE times as many) for a longer look without the nightly build.

use super::fuzz_seeds::seed_sets;
use super::fuzz_targets::{Body, TARGETS};
use rand::RngExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use tunelab::rng::{stream, Rng};

/// Mutants per target. The `report` and `config` targets parse whole reports and configs for every kind, so
/// they get fewer; together about 5 s of one core here at the test profile.
fn mutants(target: &str) -> usize {
    match target {
        "report" => 3_000,
        "config" | "lesson" => 8_000,
        _ => 30_000,
    }
}

/// Tokens that parsers of numbers, CSV, JSON, Markdown and svmlight treat specially.
const TOKENS: &[&[u8]] = &[
    b"NaN",
    b"nan",
    b"inf",
    b"-inf",
    b"1e309",
    b"-1e309",
    b"1e-320",
    b"-0",
    b"0",
    b"-1",
    b"4294967296",
    b"18446744073709551616",
    b"9007199254740993",
    b"\"",
    b",",
    b";",
    b"\t",
    b"\n",
    b"\r\n",
    b"\0",
    b"\xef\xbb\xbf",
    b"\xff",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b"\"\":",
    b"```",
    b"```json\n",
    b"---\n",
    b"## ",
    b"e",
    b"E+",
    b".",
    b"qid:",
    b"1:",
    b"4194304:",
    b"::",
    b"#",
];

fn draw(rng: &mut Rng, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        rng.random_range(0..n)
    }
}

/// One to four mutations of one seed (sometimes spliced with another).
fn mutant(rng: &mut Rng, seeds: &[&[u8]]) -> Vec<u8> {
    let mut b = seeds[draw(rng, seeds.len())].to_vec();
    for _ in 0..1 + draw(rng, 4) {
        let len = b.len();
        match draw(rng, 9) {
            0 if len > 0 => {
                let i = draw(rng, len);
                b[i] ^= 1 << draw(rng, 8);
            }
            1 if len > 0 => {
                let i = draw(rng, len);
                b[i] = rng.random();
            }
            2 => {
                let i = draw(rng, len + 1);
                b.insert(i, rng.random());
            }
            3 => {
                let i = draw(rng, len + 1);
                let t = TOKENS[draw(rng, TOKENS.len())];
                b.splice(i..i, t.iter().copied());
            }
            4 if len > 0 => {
                let i = draw(rng, len);
                let j = (i + 1 + draw(rng, 64)).min(len);
                b.drain(i..j);
            }
            5 if len > 0 => {
                let i = draw(rng, len);
                let j = (i + 1 + draw(rng, 64)).min(len);
                let chunk = b[i..j].to_vec();
                let at = draw(rng, len + 1);
                b.splice(at..at, chunk);
            }
            6 => b.truncate(draw(rng, len + 1)),
            7 => {
                let other = seeds[draw(rng, seeds.len())];
                let (i, j) = (draw(rng, len + 1), draw(rng, other.len() + 1));
                b.truncate(i);
                b.extend_from_slice(&other[j..]);
            }
            _ => {
                // A run of digits replaced by a token (a number parser's edge).
                let start = draw(rng, len);
                if let Some(i) = (0..len).map(|k| (start + k) % len).find(|&k| b[k].is_ascii_digit()) {
                    let j = (i..len).find(|&k| !b[k].is_ascii_digit()).unwrap_or(len);
                    let t = TOKENS[draw(rng, TOKENS.len())];
                    b.splice(i..j, t.iter().copied());
                }
            }
        }
    }
    b
}

/// Runs one input; a panic names the target and what the input was, and leaves the input in
/// target/fuzz-replay/ for `cargo fuzz run TARGET FILE`.
fn run(target: &str, body: Body, what: &str, input: &[u8]) {
    if let Err(e) = catch_unwind(AssertUnwindSafe(|| body(input))) {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-replay").join(target);
        let file = dir.join(what.replace(['/', ' '], "-"));
        let saved = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&file, input)).is_ok();
        panic!(
            "fuzz target {target} panicked on {what}: {msg}{}",
            if saved { format!(" (input saved as {})", file.display()) } else { String::new() }
        );
    }
}

#[test]
fn every_fuzz_target_survives_its_seeds_its_crash_inputs_and_seeded_mutants() {
    let sets = seed_sets();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (seed, scale) = std::env::var("TUNELAB_FUZZ_REPLAY")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once(',')?;
            Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<usize>().ok()?))
        })
        .unwrap_or((0x7e57_f022, 1));
    for (k, (target, body)) in TARGETS.iter().enumerate() {
        let seeds = &sets.iter().find(|(t, _)| t == target).unwrap_or_else(|| panic!("no seeds for {target}")).1;
        let seed_bytes: Vec<&[u8]> = seeds.iter().map(|(_, b)| b.as_slice()).collect();
        for (name, bytes) in seeds {
            run(target, *body, &format!("seed {name}"), bytes);
        }
        for entry in std::fs::read_dir(root.join("tests/data/fuzz").join(target)).into_iter().flatten().flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            run(target, *body, &format!("crash input {}", entry.file_name().to_string_lossy()), &bytes);
        }
        let mut rng = stream(seed, k as u64);
        for m in 0..mutants(target) * scale {
            let input = mutant(&mut rng, &seed_bytes);
            run(target, *body, &format!("mutant {m}"), &input);
        }
    }
}
