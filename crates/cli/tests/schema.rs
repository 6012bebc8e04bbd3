//! The generated files are current: `schemas/*.schema.json` (and docs/config.md rendered from them) equal what
//! `tunelab schema` writes from the Rust types today, so a field changed in `src/` without regenerating fails
//! here. Regenerate with `cargo run -p tunelab-cli -- schema` and commit.

use std::path::Path;

fn tunelab(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tunelab")).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn repo() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").to_string_lossy().into_owned()
}

#[test]
fn schemas_on_disk_are_the_generated_ones() {
    let (ok, out, err) = tunelab(&["schema", "--check", "--out", &repo()]);
    assert!(ok, "{out}{err}");
}

#[test]
fn the_check_fails_on_a_stale_or_missing_file() {
    let dir = std::env::temp_dir().join(format!("tunelab-schema-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().into_owned();
    let (ok, _, err) = tunelab(&["schema", "--check", "--out", &d]);
    assert!(!ok && err.contains("schemas/tune.schema.json"), "{err}");
    let (ok, out, err) = tunelab(&["schema", "--out", &d]);
    assert!(ok, "{out}{err}");
    let (ok, out, err) = tunelab(&["schema", "--check", "--out", &d]);
    assert!(ok, "{out}{err}");
    // One description edited by hand: stale.
    let file = dir.join("schemas/hoag.schema.json");
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"description\"", "\"description \"", 1);
    std::fs::write(&file, text).unwrap();
    let (ok, _, err) = tunelab(&["schema", "--check", "--out", &d]);
    assert!(!ok && err.contains("schemas/hoag.schema.json") && !err.contains("tune.schema.json"), "{err}");
    // The config reference is generated too: a field's line edited by hand is stale.
    let doc = dir.join("docs/config.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(text.contains("| `arm_draws` | integer ≥ 0 | `100` |"), "the reference lists tune's fields");
    std::fs::write(&doc, text.replacen("| `100` |", "| `200` |", 1)).unwrap();
    let (ok, _, err) = tunelab(&["schema", "--check", "--out", &d]);
    assert!(!ok && err.contains("docs/config.md"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
