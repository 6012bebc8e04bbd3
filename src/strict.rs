//! Strict configs: a misspelt field is an error naming its JSON path and the nearest known name
//! (`` `tuner.etta`: unknown field; did you mean `eta`? ``), and a bad value names the field it is in
//! (`` `seed`: invalid type: string "1", expected u64 ``).
//!
//! # Why this design
//! serde's `#[serde(deny_unknown_fields)]` cannot be used on the configs as they are: the experiment config
//! and many of its parts are **internally tagged** enums (`kind`, `source`, `model`), and `CompareConfig`,
//! `DataSpec`, `MetricSpec` and `HpoSpec` use **`#[serde(flatten)]`**. serde buffers a tagged or flattened
//! document into its private `Content` tree and deserializes the parts from that buffer: a flattened struct
//! must ignore the keys meant for its siblings (so `deny_unknown_fields` is unsupported with flatten), and a
//! wrapping deserializer (serde_ignored, serde_path_to_error) sees the buffering but not which keys the parts
//! then used. So strictness is checked generically, *after* parsing, by asking serde itself:
//!
//! 1. parse the input `I` into the typed config `T` (the usual parse; every error gets a path, below);
//! 2. serialize `T` back to a JSON value `V` (every default filled in, every real field present unless it is
//!    skipped when empty);
//! 3. walk `I` against `V`: a key of `I` that `V` lacks is **probed**: its value is replaced by a string that
//!    no field takes silently ([`PROBE`]) and `I` re-parsed. A key that serde ignored still parses to a value
//!    equal to `T` (configs derive `PartialEq`): it is an unknown field. A real field that `V` omits (an
//!    `Option` that is `None`, an empty list) fails the re-parse or changes `T`. Keys present in both are
//!    walked into (objects, and arrays of equal length).
//! 4. the suggestion is the nearest key of `V` at that level (`strsim`, Damerau-Levenshtein); when `V` has
//!    none close (the field is an `Option` left out of `V`), the names one edit away are probed the same way:
//!    a name whose insertion changes or fails the parse is a real field.
//!
//! Only keys that are absent from `V` are re-parsed, so a correct config costs one parse and one serialize
//! more than before. Envelope keys are not fields: a report (`{kind, status, config, ...}`) stands for its
//! `config` before this check ([`crate::experiments::ExperimentConfig::from_value`]), and `kind` is in `V`.
//!
//! # Paths of value errors
//! Errors of the parse itself are located by `serde_path_to_error`. It only sees the deserializer calls made on
//! the input; inside a tagged or flattened part serde deserializes from its own buffer, so the path it gives
//! stops at that part (e.g. `tuner` for a bad `tuner.eta`, or the root of a `compare` config, which flattens
//! the whole tune config). From there the error is **relocated** within that part's subtree by what serde's
//! message names: the key of an `unknown field` / `unknown variant`, the object that lacks a `missing field`
//! and holds a near name, or the one leaf whose value the `invalid type` / `invalid value` message quotes.
//! When that is ambiguous (two leaves with the same value) or the message names nothing (a custom message, an
//! untagged enum that matched no variant), the error keeps the deepest path serde_path_to_error knew.

use crate::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// The value a probed key is given: no config field is a string that would parse to the same config.
const PROBE: &str = "\u{1}tunelab-strict-probe\u{1}";

/// One step of a JSON path (also a lesson's `expect` path, src/lesson/expect.rs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// `tuner.eta`, `grid.batch[0]` (the root is `(root)`).
fn show(path: &[Seg]) -> String {
    let s = path_text(path);
    if s.is_empty() {
        "(root)".into()
    } else {
        s
    }
}

/// A path as written: `tuner.eta`, `grid.batch[0]`; the root is the empty string.
pub fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// `` `path`: message `` (a message about the whole document has no path).
fn at_path(path: &[Seg], msg: &str) -> String {
    if path.is_empty() {
        msg.to_string()
    } else {
        format!("`{}`: {msg}", show(path))
    }
}

fn at<'a>(v: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get(k.as_str()),
        Seg::Index(i) => v.get(*i),
    })
}

fn at_mut<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()),
        Seg::Index(i) => v.get_mut(*i),
    })
}

/// The key that names the JSON Schema an editor validates a document with (`schemas/*.schema.json`). It is not a
/// field: a top-level `"$schema"` whose value is a string is skipped ([`skip_schema_key`]); anywhere else, or
/// with another value, it is an unknown field like any other.
pub const SCHEMA_KEY: &str = "$schema";

/// Removes a top-level `"$schema": "..."` from a document before it is parsed.
pub fn skip_schema_key(value: &mut Value) {
    if let Some(obj) = value.as_object_mut() {
        if obj.get(SCHEMA_KEY).is_some_and(Value::is_string) {
            obj.remove(SCHEMA_KEY);
        }
    }
}

/// Parses any config type strictly: value errors with their path, unknown fields refused with a suggestion
/// (a top-level `"$schema"` string is skipped, [`SCHEMA_KEY`]).
pub fn from_value<T: DeserializeOwned + Serialize + PartialEq>(value: &Value) -> Result<T> {
    let mut value = value.clone();
    skip_schema_key(&mut value);
    let typed: T = parse_located(&value).map_err(Error::config)?;
    refuse_unknown(&value, &typed).map_err(Error::config)?;
    Ok(typed)
}

/// The suggestion for `key` among `candidates` (the nearest within a few edits).
pub fn nearest<'a>(key: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if key.chars().count() <= 3 { 1 } else { 2.max(key.chars().count() / 3) };
    candidates
        .into_iter()
        .filter(|c| *c != key)
        .map(|c| (strsim::damerau_levenshtein(key, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

// ------------------------------------------------------------------------------------------ unknown fields

/// Errors (one line each) for every key of `input` that parsing `T` ignored.
pub(crate) fn refuse_unknown<T: DeserializeOwned + Serialize + PartialEq>(
    input: &Value,
    typed: &T,
) -> std::result::Result<(), String> {
    let full = serde_json::to_value(typed).map_err(|e| e.to_string())?;
    let ignored = |probe: &Value| serde_json::from_value::<T>(probe.clone()).is_ok_and(|t| t == *typed);
    let mut found = Vec::new();
    walk(input, input, &full, &mut Vec::new(), &ignored, &mut found);
    if found.is_empty() {
        Ok(())
    } else {
        Err(found.join("\n"))
    }
}

fn walk(
    root: &Value,
    here: &Value,
    full: &Value,
    path: &mut Vec<Seg>,
    ignored: &dyn Fn(&Value) -> bool,
    found: &mut Vec<String>,
) {
    match (here, full) {
        (Value::Object(obj), full) => {
            let known = full.as_object();
            for (key, value) in obj {
                path.push(Seg::Key(key.clone()));
                match known.and_then(|k| k.get(key)) {
                    Some(full_value) => walk(root, value, full_value, path, ignored, found),
                    // Absent from the parsed config: a real field left out of `V`, or ignored by serde.
                    None => {
                        if probe_ignored(root, path, ignored) {
                            found.push(unknown_field(root, path, known, ignored));
                        }
                    }
                }
                path.pop();
            }
        }
        (Value::Array(items), Value::Array(full_items)) if items.len() == full_items.len() => {
            for (i, (item, full_item)) in items.iter().zip(full_items).enumerate() {
                path.push(Seg::Index(i));
                walk(root, item, full_item, path, ignored, found);
                path.pop();
            }
        }
        _ => {}
    }
}

/// True when the key at `path` of `root` is ignored: giving it the probe value parses to the same config.
fn probe_ignored(root: &Value, path: &[Seg], ignored: &dyn Fn(&Value) -> bool) -> bool {
    let mut probe = root.clone();
    match at_mut(&mut probe, path) {
        Some(slot) => *slot = Value::String(PROBE.into()),
        None => return false,
    }
    ignored(&probe)
}

/// The message for the unknown key at `path`: its path and the nearest known name.
fn unknown_field(
    root: &Value,
    path: &[Seg],
    known: Option<&Map<String, Value>>,
    ignored: &dyn Fn(&Value) -> bool,
) -> String {
    let Some(Seg::Key(key)) = path.last() else { unreachable!("a probed path ends in a key") };
    let names: Vec<&str> = known.map(|k| k.keys().map(String::as_str).collect()).unwrap_or_default();
    // At the top level `$schema` is also a valid name (a misspelt `$schem` is pointed at it).
    let top = [SCHEMA_KEY];
    let extra: &[&str] = if path.len() == 1 { &top } else { &[] };
    let close = nearest(key, names.iter().copied().chain(extra.iter().copied()));
    let one_edit = close.is_some_and(|c| strsim::damerau_levenshtein(key, c) <= 1);
    let suggestion = if one_edit {
        close.map(String::from)
    } else {
        hidden_field(root, path, key, ignored).or(close.map(String::from))
    };
    match suggestion {
        Some(s) => format!("`{}`: unknown field; did you mean `{s}`?", show(path)),
        None if names.is_empty() => format!("`{}`: unknown field", show(path)),
        None => format!(
            "`{}`: unknown field (known here: {})",
            show(path),
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// A real field one edit away from `key` that the serialized config does not show (an `Option` that is
/// `None`, a list that is empty): inserting it with the probe value fails the parse or changes the config.
fn hidden_field(root: &Value, path: &[Seg], key: &str, ignored: &dyn Fn(&Value) -> bool) -> Option<String> {
    let parent = &path[..path.len() - 1];
    let obj = at(root, parent)?.as_object()?;
    let mut probe = root.clone();
    for name in one_edit_away(key) {
        if obj.contains_key(&name) {
            continue;
        }
        let slot = at_mut(&mut probe, parent)?.as_object_mut()?;
        slot.insert(name.clone(), Value::String(PROBE.into()));
        let real = !ignored(&probe);
        at_mut(&mut probe, parent)?.as_object_mut()?.remove(&name);
        if real {
            return Some(name);
        }
    }
    None
}

/// Names one deletion, transposition, substitution or insertion away (letters, digits and `_`).
fn one_edit_away(key: &str) -> Vec<String> {
    const ALPHABET: &str = "abcdefghijklmnopqrstuvwxyz_0123456789";
    let chars: Vec<char> = key.chars().collect();
    let mut out = Vec::new();
    for i in 0..chars.len() {
        let mut c = chars.clone();
        c.remove(i);
        out.push(c.into_iter().collect());
    }
    for i in 0..chars.len().saturating_sub(1) {
        let mut c = chars.clone();
        c.swap(i, i + 1);
        out.push(c.into_iter().collect());
    }
    for i in 0..chars.len() {
        for a in ALPHABET.chars() {
            if a != chars[i] {
                let mut c = chars.clone();
                c[i] = a;
                out.push(c.into_iter().collect());
            }
        }
    }
    for i in 0..=chars.len() {
        for a in ALPHABET.chars() {
            let mut c = chars.clone();
            c.insert(i, a);
            out.push(c.into_iter().collect());
        }
    }
    out.dedup();
    out
}

// ------------------------------------------------------------------------------------------- value errors

/// Parses `T` with serde_path_to_error and words a failure as `` `path`: message ``.
pub(crate) fn parse_located<T: DeserializeOwned>(input: &Value) -> std::result::Result<T, String> {
    serde_path_to_error::deserialize(input).map_err(|e| {
        let mut path = Vec::new();
        for seg in e.path().iter() {
            use serde_path_to_error::Segment as S;
            match seg {
                S::Map { key } => path.push(Seg::Key(key.clone())),
                S::Enum { variant } => path.push(Seg::Key(variant.clone())),
                S::Seq { index } => path.push(Seg::Index(*index)),
                // serde_path_to_error could not tell (a key that is not a string): the path so far.
                S::Unknown => break,
            }
        }
        // A path into a part that does not exist in the input (an enum variant serde named) is cut back.
        while !path.is_empty() && at(input, &path).is_none() {
            path.pop();
        }
        let reparse = |v: &Value| serde_json::from_value::<T>(v.clone()).err().map(|e| e.to_string());
        plain_types(&relocate(input, path, &e.inner().to_string(), &reparse))
    })
}

/// serde's words for the expected type in the user's terms: `expected u64` is `expected a whole number (0 or
/// more)`, `expected f64` `expected a number`, `a sequence` `a list`, `struct TuneConfig` / `a map` `an object`.
pub fn plain_types(msg: &str) -> String {
    let mut out = msg.to_string();
    let unsigned = "a whole number (0 or more)";
    for (rust, plain) in [
        ("usize", unsigned),
        ("u64", unsigned),
        ("u32", unsigned),
        ("u16", unsigned),
        ("u8", unsigned),
        ("isize", "a whole number"),
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
        ("a sequence", "a list"),
        ("a map", "an object"),
    ] {
        let from = format!("expected {rust}");
        let mut rest = out.as_str();
        let mut acc = String::with_capacity(out.len());
        while let Some(i) = rest.find(&from) {
            let end = i + from.len();
            // whole words only (`expected u8` is not the start of `expected u8x`)
            let whole = !rest[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            acc.push_str(&rest[..i]);
            acc.push_str(if whole { "expected " } else { &from });
            if whole {
                acc.push_str(plain);
            }
            rest = &rest[end..];
        }
        acc.push_str(rest);
        out = acc;
    }
    // `expected struct TuneConfig` (a Rust type's name) is an object to the user
    while let Some(i) = out.find("expected struct ") {
        let start = i + "expected struct ".len();
        let end = out[start..].find(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(out.len(), |k| start + k);
        out.replace_range(i..end, "expected an object");
    }
    out
}

/// `input` with the key `from` of the object at `parent` renamed `to`.
fn renamed(input: &Value, parent: &[Seg], from: &str, to: &str) -> Option<Value> {
    let mut v = input.clone();
    let obj = at_mut(&mut v, parent)?.as_object_mut()?;
    let value = obj.remove(from)?;
    obj.insert(to.into(), value);
    Some(v)
}

/// The text between the first two backticks after `prefix` (serde quotes names as `` `name` ``).
fn quoted_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = msg.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split('`').next()
}

/// The names of serde's `expected one of `a`, `b`` (or `expected `a``) list.
fn expected_names(msg: &str) -> Vec<&str> {
    match msg.find("expected") {
        Some(i) => msg[i..].split('`').skip(1).step_by(2).collect(),
        None => Vec::new(),
    }
}

/// Every path in `v` (depth first, `v` itself first) with the value there.
fn descendants<'a>(v: &'a Value, path: &mut Vec<Seg>, out: &mut Vec<(Vec<Seg>, &'a Value)>) {
    out.push((path.clone(), v));
    match v {
        Value::Object(obj) => {
            for (k, child) in obj {
                path.push(Seg::Key(k.clone()));
                descendants(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                descendants(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// How serde's messages show a JSON leaf (`string "1000"`, `integer `5``, `floating point `0.5``).
fn unexpected(v: &Value) -> Option<String> {
    use serde::de::Unexpected as U;
    Some(match v {
        Value::Null => U::Unit.to_string(),
        Value::Bool(b) => U::Bool(*b).to_string(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => U::Unsigned(u).to_string(),
            (_, Some(i), _) => U::Signed(i).to_string(),
            (_, _, Some(f)) => U::Float(f).to_string(),
            _ => return None,
        },
        Value::String(s) => U::Str(s).to_string(),
        Value::Array(_) => U::Seq.to_string(),
        Value::Object(_) => U::Map.to_string(),
    })
}

/// Moves an error at `base` (the deepest path serde_path_to_error knew) to the place its message names, and
/// adds the nearest name to `unknown field` / `unknown variant` / `missing field` messages.
/// `reparse` parses a changed input again (its error message, `None` when it parses): a name is tried by
/// renaming a key and seeing whether the error goes away.
fn relocate(input: &Value, mut base: Vec<Seg>, msg: &str, reparse: &dyn Fn(&Value) -> Option<String>) -> String {
    let unique = |hits: Vec<Vec<Seg>>| if hits.len() == 1 { hits.into_iter().next() } else { None };

    if let Some(key) = quoted_after(msg, "unknown field ") {
        // serde_path_to_error's path already ends in the unknown key when the struct is not buffered
        if base.last() == Some(&Seg::Key(key.into())) {
            base.pop();
        }
        let Some(sub) = at(input, &base) else { return at_path(&base, msg) };
        let mut all = Vec::new();
        descendants(sub, &mut base.clone(), &mut all);
        let names = expected_names(msg);
        let hits = all.iter().filter(|(_, v)| v.get(key).is_some()).map(|(p, _)| p.clone()).collect();
        let parent = unique(hits).unwrap_or_else(|| base.clone());
        let path = [parent.clone(), vec![Seg::Key(key.into())]].concat();
        // serde's list misses the fields of the struct that flattens this one (`HpoSpec` around `HpoModel`):
        // then the names one edit away are tried in the key's place
        let repaired = || {
            one_edit_away(key).into_iter().find(|name| {
                at(input, &parent).and_then(Value::as_object).is_some_and(|o| !o.contains_key(name))
                    && renamed(input, &parent, key, name).is_some_and(|v| match reparse(&v) {
                        None => true,
                        Some(m) => m != msg && quoted_after(&m, "unknown field ") != Some(name.as_str()),
                    })
            })
        };
        // At the top level `$schema` is also a valid name (a misspelt `$schem` is pointed at it).
        let top = [SCHEMA_KEY];
        let extra: &[&str] = if path.len() == 1 { &top } else { &[] };
        let near = nearest(key, names.iter().copied().chain(extra.iter().copied()));
        let hint = match near.map(String::from).or_else(repaired) {
            Some(n) => format!("unknown field; did you mean `{n}`?"),
            None if names.is_empty() => "unknown field".to_string(),
            None => format!(
                "unknown field (known here: {})",
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ),
        };
        return format!("`{}`: {hint}", show(&path));
    }
    let Some(sub) = at(input, &base) else { return at_path(&base, msg) };
    let mut all = Vec::new();
    descendants(sub, &mut base.clone(), &mut all);
    if let Some(variant) = quoted_after(msg, "unknown variant ") {
        let hint = nearest(variant, expected_names(msg)).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
        // the variant is a string value (`"kind": "sgdl"`) or the key of an externally tagged enum
        let hits: Vec<Vec<Seg>> = all
            .iter()
            .filter_map(|(p, v)| match v {
                Value::String(s) if s == variant => Some(p.clone()),
                Value::Object(o) if o.contains_key(variant) => {
                    Some([p.clone(), vec![Seg::Key(variant.into())]].concat())
                }
                _ => None,
            })
            .collect();
        let path = unique(hits).unwrap_or(base);
        return at_path(&path, &format!("{msg}{hint}"));
    }
    if let Some(field) = quoted_after(msg, "missing field ") {
        // a required field spelt wrong: a key near it, in an object that lacks it, which renamed to it
        // makes this error go away (and does not leave its own name missing)
        let mut near: Vec<(usize, &Vec<Seg>, &str)> = all
            .iter()
            .filter_map(|(p, v)| Some((p, v.as_object().filter(|o| !o.contains_key(field))?)))
            .flat_map(|(p, o)| {
                o.keys()
                    .filter(|k| nearest(k, [field]).is_some())
                    .map(move |k| (strsim::damerau_levenshtein(k, field), p, k.as_str()))
            })
            .collect();
        near.sort_by_key(|(d, _, _)| *d);
        let fixes = |p: &[Seg], k: &str| {
            renamed(input, p, k, field).is_some_and(|v| match reparse(&v) {
                None => true,
                Some(m) => m != msg && quoted_after(&m, "missing field ") != Some(k),
            })
        };
        if let Some((_, p, k)) = near.into_iter().find(|(_, p, k)| fixes(p, k)) {
            let path = [p.clone(), vec![Seg::Key(k.into())]].concat();
            return format!("`{}`: unknown field; did you mean `{field}`? (`{field}` is required)", show(&path));
        }
        return at_path(&base, msg);
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if msg.starts_with(prefix) {
            let hits: Vec<Vec<Seg>> = all
                .iter()
                .filter(|(_, v)| !v.is_object() && !v.is_array())
                .filter(|(_, v)| {
                    unexpected(v).is_some_and(|u| msg[prefix.len()..].starts_with(&format!("{u}, expected")))
                })
                .map(|(p, _)| p.clone())
                .collect();
            // Several leaves hold the value (a `1` in a large config): the one whose key the expectation names
            // (`expected a reduction factor eta >= 2`).
            let named = |hits: &[Vec<Seg>]| -> Vec<Vec<Seg>> {
                let expected = msg.split_once(", expected ").map_or("", |p| p.1);
                let words: Vec<&str> = expected.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
                hits.iter()
                    .filter(|p| matches!(p.last(), Some(Seg::Key(k)) if words.contains(&k.as_str())))
                    .cloned()
                    .collect()
            };
            let by_name = named(&hits);
            if let Some(path) = unique(hits).or_else(|| unique(by_name)) {
                return at_path(&path, msg);
            }
        }
    }
    at_path(&base, msg)
}

#[cfg(test)]
mod plain_type_tests {
    use super::plain_types;

    #[test]
    fn rust_type_names_become_the_users_words() {
        assert_eq!(
            plain_types("invalid type: string \"1\", expected u64"),
            "invalid type: string \"1\", expected a whole number (0 or more)"
        );
        assert_eq!(
            plain_types("invalid value: integer `-2`, expected usize"),
            "invalid value: integer `-2`, expected a whole number (0 or more)"
        );
        assert_eq!(
            plain_types("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
        assert_eq!(
            plain_types("invalid type: integer `3`, expected struct TuneConfig here"),
            "invalid type: integer `3`, expected an object here"
        );
        assert_eq!(plain_types("invalid type: map, expected a sequence"), "invalid type: map, expected a list");
        // whole words only
        assert_eq!(plain_types("expected u8x"), "expected u8x");
    }
}
