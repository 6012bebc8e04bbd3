//! `expect` lines: a check of a run's report, `PATH OP VALUE` (`result.best.step < 1e-4`). PATH is a dotted path
//! into the report envelope (`kind`, `status`, `config`, `compute`, `result`) with `[i]` for array elements;
//! OP is one of `== != < <= > >=` (the order operators compare numbers); VALUE is a JSON number, string,
//! `true`, `false` or `null`, or a bare word (a string: `status == complete`).

use serde::Serialize;
use serde_json::Value;

/// The operators, as written.
pub const OPERATORS: [&str; 6] = ["==", "!=", "<=", ">=", "<", ">"];
/// The top-level keys of a report envelope (`crate::experiments::Report`).
pub const ROOTS: [&str; 6] = ["kind", "status", "config", "compute", "result", "reached"];

/// One step of a path.
pub use crate::strict::Seg;

/// A parsed `expect` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expect {
    /// The line as written (trimmed).
    pub text: String,
    /// Its line in the lesson file (1-based).
    pub line: usize,
    pub path: Vec<Seg>,
    pub op: String,
    pub value: Value,
}

/// The outcome of one `expect` line against a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub text: String,
    pub line: usize,
    pub pass: bool,
    /// The value found at the path (`null` when there is none).
    pub actual: Value,
    /// Why it failed (or `""`).
    pub message: String,
}

/// Parses the text of an expect line; the error says what is wrong (the caller adds the file and line).
pub fn parse(text: &str, line: usize) -> std::result::Result<Expect, String> {
    let t = text.trim();
    let (at, op) = OPERATORS
        .iter()
        .filter_map(|op| t.find(op).map(|i| (i, *op)))
        .min_by_key(|(i, op)| (*i, std::cmp::Reverse(op.len())))
        .ok_or_else(|| format!("`{t}`: no operator; write PATH OP VALUE with OP one of {}", OPERATORS.join(" ")))?;
    let (lhs, rhs) = (t[..at].trim(), t[at + op.len()..].trim());
    if rhs.starts_with('=') || rhs.starts_with('<') || rhs.starts_with('>') {
        return Err(format!("`{t}`: unknown operator; use one of {}", OPERATORS.join(" ")));
    }
    let path = parse_path(lhs)?;
    let value = parse_value(rhs)?;
    if matches!(op, "<" | "<=" | ">" | ">=") && !value.is_number() {
        return Err(format!("`{t}`: `{op}` compares numbers, and `{rhs}` is not one"));
    }
    Ok(Expect { text: t.to_string(), line, path, op: op.to_string(), value })
}

fn parse_path(s: &str) -> std::result::Result<Vec<Seg>, String> {
    if s.is_empty() {
        return Err("an expect line needs a path before its operator (e.g. `result.best.step < 1e-4`)".into());
    }
    let mut out = Vec::new();
    for part in s.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() && out.is_empty() || (key.is_empty() && rest.is_empty()) {
            return Err(format!("`{s}`: an empty name in the path"));
        }
        if !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(format!("`{s}`: `{key}` is not a field name (letters, digits, `_` and `-`)"));
        }
        if !key.is_empty() {
            out.push(Seg::Key(key.to_string()));
        }
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| format!("`{s}`: `[` without `]`"))?;
            let idx = rest[1..close]
                .parse::<usize>()
                .map_err(|_| format!("`{s}`: `{}` is not an array index", &rest[..=close]))?;
            out.push(Seg::Index(idx));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(format!("`{s}`: write `.` between a `]` and a name"));
            }
        }
    }
    match out.first() {
        Some(Seg::Key(k)) if ROOTS.contains(&k.as_str()) => Ok(out),
        Some(Seg::Key(k)) => Err(match crate::strict::nearest(k, ROOTS) {
            Some(n) => format!("`{s}`: a report has no `{k}`; did you mean `{n}`?"),
            None => format!("`{s}`: a report has no `{k}` (its parts: {})", ROOTS.join(", ")),
        }),
        _ => Err(format!("`{s}`: a path starts with a name")),
    }
}

fn parse_value(s: &str) -> std::result::Result<Value, String> {
    if s.is_empty() {
        return Err("an expect line needs a value after its operator".into());
    }
    if let Ok(v) = serde_json::from_str::<Value>(s) {
        if v.is_object() || v.is_array() {
            return Err(format!("`{s}`: compare with a number, a string, true, false or null"));
        }
        return Ok(v);
    }
    if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        && !s.starts_with(|c: char| c.is_ascii_digit())
    {
        return Ok(Value::String(s.to_string()));
    }
    Err(format!("`{s}`: not a number, a JSON string, true, false or null"))
}

/// Shows a path as written.
pub use crate::strict::path_text as show;

impl Expect {
    /// Evaluates the line against a report envelope (as JSON).
    pub fn eval(&self, report: &Value) -> Outcome {
        let fail = |actual: Value, message: String| Outcome {
            text: self.text.clone(),
            line: self.line,
            pass: false,
            actual,
            message,
        };
        let mut here = report;
        for (i, seg) in self.path.iter().enumerate() {
            let next = match seg {
                Seg::Key(k) => here.get(k.as_str()),
                Seg::Index(j) => here.get(*j),
            };
            here = match next {
                Some(v) => v,
                None => {
                    let at = show(&self.path[..i]);
                    let what = match (seg, here) {
                        (Seg::Key(k), Value::Object(m)) => {
                            match crate::strict::nearest(k, m.keys().map(String::as_str)) {
                                Some(n) => format!(
                                    "the report has no `{}`; did you mean `{}`?",
                                    show(&self.path[..=i]),
                                    if at.is_empty() { n.to_string() } else { format!("{at}.{n}") }
                                ),
                                None => format!("the report has no `{}`", show(&self.path[..=i])),
                            }
                        }
                        (Seg::Index(j), Value::Array(a)) => format!("`{at}` has {} elements, so no [{j}]", a.len()),
                        _ => format!(
                            "`{}` is not {}",
                            if at.is_empty() { "the report" } else { &at },
                            if matches!(seg, Seg::Index(_)) { "a list" } else { "an object" }
                        ),
                    };
                    return fail(Value::Null, what);
                }
            };
        }
        let pass = match self.op.as_str() {
            "==" => equal(here, &self.value),
            "!=" => !equal(here, &self.value),
            op => match (here.as_f64(), self.value.as_f64()) {
                (Some(a), Some(b)) => match op {
                    "<" => a < b,
                    "<=" => a <= b,
                    ">" => a > b,
                    _ => a >= b,
                },
                _ => return fail(here.clone(), format!("`{}` is {}, not a number", show(&self.path), here)),
            },
        };
        Outcome {
            text: self.text.clone(),
            line: self.line,
            pass,
            actual: here.clone(),
            message: if pass { String::new() } else { format!("`{}` is {}", show(&self.path), here) },
        }
    }
}

/// JSON equality, numbers compared as f64 (`2 == 2.0`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}
