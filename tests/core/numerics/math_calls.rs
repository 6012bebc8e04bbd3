//! The core computes transcendental functions through `tunelab::math` (libm in every build), so native, wasm
//! and threaded wasm reports agree bit for bit (issue 17). This test refuses a std call such as `x.exp()` or
//! `x.powf(y)` anywhere in `src/` outside `src/math.rs`; comments are ignored.

use std::path::Path;

const METHODS: [&str; 10] = ["exp", "ln", "ln_1p", "exp_m1", "powf", "log10", "log2", "sin", "cos", "tanh"];

fn offending(line: &str) -> Option<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    METHODS.iter().copied().find(|m| code.contains(&format!(".{m}(")) || code.contains(&format!("f64::{m}")))
}

fn walk(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("src/math.rs") {
            let text = std::fs::read_to_string(&path).expect("source is UTF-8");
            for (i, line) in text.lines().enumerate() {
                if let Some(m) = offending(line) {
                    found.push(format!("{}:{}: .{m}( -> tunelab::math::{m}: {}", path.display(), i + 1, line.trim()));
                }
            }
        }
    }
}

#[test]
fn core_uses_libm_wrappers_only() {
    let mut found = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found);
    assert!(found.is_empty(), "std transcendental calls in the core (use tunelab::math):\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_std_call() {
    assert_eq!(offending("    let y = (a + b).exp() * 2.0;"), Some("exp"));
    assert_eq!(offending("    v.iter().map(|x| x.powf(beta))"), Some("powf"));
    assert_eq!(offending("    .map(f64::ln)"), Some("ln"));
    assert_eq!(offending("    let y = exp(a); // not x.exp()"), None);
    assert_eq!(offending("    let s = x.len();"), None);
}
