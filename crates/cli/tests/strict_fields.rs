//! Strict configs through the binary: every field of every kind's config, misspelt by one letter, is
//! refused by `tunelab run --config FILE` (exit 1, nothing run) with the file, the field's JSON path and the
//! right name ("`tuner.etta`: unknown field; did you mean `eta`?"). The fields are not listed by hand: they are
//! every key, at every depth, of every preset the binary itself prints (`tunelab presets`, `presets --show`).
//! The core's own test of the same parse is tests/core/experiments/strict_config.rs.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn tunelab(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tunelab")).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// (kind, preset) for every line of `tunelab presets` ("tune         demo, paper-logreg, ...").
fn presets() -> Vec<(String, String)> {
    let (code, out, err) = tunelab(&["presets"]);
    assert_eq!(code, Some(0), "{err}");
    let mut all = Vec::new();
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let (kind, names) = line.split_once(char::is_whitespace).unwrap();
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            all.push((kind.to_string(), name.to_string()));
        }
    }
    all
}

/// One step of a JSON path.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`, as the errors show paths.
fn dotted(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// The path of every object key, at every depth.
fn keys(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                path.push(Seg::Key(k.clone()));
                out.push(path.clone());
                keys(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                keys(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

/// `key` misspelt by one letter: its middle letter dropped (three letters or more), else doubled; `None` when
/// that is another key of the same object.
fn misspelt(key: &str, siblings: &serde_json::Map<String, Value>) -> Option<String> {
    let mut c: Vec<char> = key.chars().collect();
    let mid = c.len() / 2;
    if c.len() >= 3 {
        c.remove(mid);
    } else {
        c.insert(mid, c[mid]);
    }
    let typo: String = c.into_iter().collect();
    (!siblings.contains_key(&typo)).then_some(typo)
}

#[test]
fn every_field_of_every_kind_misspelt_is_refused_by_the_cli_with_its_file_path_and_name() {
    let dir = std::env::temp_dir().join(format!("tunelab-strict-fields-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join("misspelt.json");
    let file_s = file.to_str().unwrap();
    let all = presets();
    let kinds: BTreeSet<&str> = all.iter().map(|(k, _)| k.as_str()).collect();
    assert!(kinds.len() >= 7, "kinds listed by `tunelab presets`: {kinds:?}");
    // One probe per (kind, path): presets of one kind share most of their fields.
    let mut seen = BTreeSet::new();
    let (mut checked, mut failures) = (0usize, Vec::new());
    for (kind, name) in &all {
        let (code, text, err) = tunelab(&["presets", "--show", &format!("{kind}/{name}")]);
        assert_eq!(code, Some(0), "{kind}/{name}: {err}");
        let cfg: Value = serde_json::from_str(&text).unwrap();
        let mut paths = Vec::new();
        keys(&cfg, &mut Vec::new(), &mut paths);
        for path in paths {
            if !seen.insert((kind.clone(), path.clone())) {
                continue;
            }
            let Some(Seg::Key(key)) = path.last() else { unreachable!() };
            let parent = &path[..path.len() - 1];
            let mut bad = cfg.clone();
            let obj = get_mut(&mut bad, parent).as_object_mut().unwrap();
            let Some(typo) = misspelt(key, obj) else { continue };
            let value = obj.remove(key).unwrap();
            obj.insert(typo.clone(), value);
            std::fs::write(&file, serde_json::to_string_pretty(&bad).unwrap()).unwrap();
            let shown = dotted(&[parent.to_vec(), vec![Seg::Key(typo.clone())]].concat());
            checked += 1;
            let (code, _, stderr) = tunelab(&["run", "--config", file_s]);
            let ok = code == Some(1)
                && stderr.contains("misspelt.json")
                && stderr.contains(&format!("`{shown}`"))
                && stderr.contains(&format!("did you mean `{key}`?"));
            if !ok {
                failures.push(format!("{kind}/{name}: `{shown}` (for `{key}`): exit {code:?}: {}", stderr.trim()));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!("{checked} misspelt fields over {} kinds refused by the CLI with file, path and name", kinds.len());
    assert!(checked > 100, "{checked} misspellings");
    assert!(failures.is_empty(), "{} of {checked}:\n{}", failures.len(), failures.join("\n"));
}
