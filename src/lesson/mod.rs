//! Lessons as files: a guided lesson is a Markdown file an instructor writes in any editor, parsed here once for
//! every front end (the page through the wasm binding, `tunelab lesson check` natively). The format is
//! documented in docs/write-a-lesson.md:
//!
//! ```text
//! ---
//! title: MAMBA: tuning SG-MCMC with a Stein discrepancy
//! kind: tune                 (the experiment kind, which is also the page's panel)
//! preset: demo               (the core preset it starts from; a json block before the first step patches it)
//! cite: Coullon, South & Nemeth (2023) ...
//! minutes: 5
//! ---
//! ## Run the tuner           (one section per step)
//! Press Run. ...             (Markdown)
//! ```json Set η = 2          (optional: the step's config patch; the rest of the line labels its button)
//! {"tuner": {"eta": 2}}
//! ```
//! ```predict                 (optional: a prediction before the run, revealed after it)
//! ```expect                  (optional: checks of the run's report, `result.best.step < 1e-4`)
//! ```
//!
//! Strict, as the configs are ([`crate::strict`]): the first problem is one [`LessonError`] naming the file, the
//! line and, where there is one, the nearest valid name; nothing runs. A step's config is the start config with
//! the patches of every step up to it applied in order ([`merge`]), then parsed strictly and checked by the core.

pub mod expect;
pub mod panels;

use crate::experiments::{ExperimentConfig, Kind};
use serde::Serialize;
use serde_json::{Map, Value};

pub use expect::{Expect, Outcome};

/// The largest lesson file accepted (bytes). A lesson is a page of text; a larger file is refused before parsing.
pub const MAX_BYTES: usize = 1 << 20;
/// The most steps a lesson may have.
pub const MAX_STEPS: usize = 100;
/// The front-matter keys.
pub const KEYS: [&str; 7] = ["id", "title", "kind", "preset", "cite", "minutes", "teaches"];
/// The front matter of a lesson file: the `key: value` lines between the two `---` lines ([`KEYS`]), as its JSON
/// Schema describes them (`schemas/lesson-front-matter.schema.json`, [`crate::schema`]). Every value is one line
/// of text.
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code)]
pub struct FrontMatter {
    /// The lesson's id in URLs (`#lesson=ID`): letters, digits, `-` and `_` (default: the file name without its
    /// extension).
    #[schemars(regex(pattern = r"^[A-Za-z0-9_-]+$"))]
    id: Option<String>,
    /// The lesson's title.
    title: String,
    /// The experiment kind, which is also the page's panel.
    kind: crate::experiments::Kind,
    /// The core preset of `kind` the lesson starts from (`tunelab presets`); without it, a json block before the
    /// first step is the start config.
    preset: Option<String>,
    /// The paper(s) the lesson teaches from.
    cite: Option<String>,
    /// The estimated time in minutes (more than 0, at most 600).
    #[schemars(range(min = 0, max = 600))]
    minutes: Option<f64>,
    /// One sentence: what the lesson teaches.
    teaches: Option<String>,
}

/// The keys of a `predict` block.
pub const PREDICT_KEYS: [&str; 5] = ["type", "question", "option", "answer", "reveal"];
/// The directive blocks of a step (fenced code blocks with these info strings are not shown as text).
pub const BLOCKS: [&str; 3] = ["json", "predict", "expect"];

/// What went wrong, for programs (the message says it for people).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The file's structure (front matter, fences, headings).
    Syntax,
    /// The file is larger than [`MAX_BYTES`] or has more than [`MAX_STEPS`] steps.
    TooLarge,
    /// A front-matter or `predict` key that does not exist.
    UnknownKey,
    /// A required key is missing.
    MissingKey,
    /// A front-matter value that cannot be used (a kind, a preset, a number).
    BadValue,
    /// A json block that is not JSON, or not an object.
    Patch,
    /// The core refused the step's config (a field, a value).
    Config,
    /// A patch names a field the kind's panel does not have.
    PanelField,
    /// A prediction that cannot be revealed.
    Prediction,
    /// A bad `expect` line.
    Expect,
}

/// The one error of a lesson: `file:line: message`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LessonError {
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub kind: ErrorKind,
    pub message: String,
    /// The nearest valid name, when the error is a misspelt one.
    pub nearest: Option<String>,
}

impl std::fmt::Display for LessonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for LessonError {}

impl From<LessonError> for crate::Error {
    fn from(e: LessonError) -> Self {
        crate::Error::Config(e.to_string())
    }
}

/// A prediction the student makes before the step's run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// `choice` (one of `options`) or `arm` (click the arm you expect MAMBA to choose; the tune panel reveals
    /// the choice and the fate of the pick).
    #[serde(rename = "type")]
    pub kind: String,
    pub line: usize,
    pub question: String,
    pub options: Vec<String>,
    /// The right option (choice).
    pub answer: Option<String>,
    /// Markdown shown after the run.
    pub reveal: String,
}

/// One step (a `## ` section).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub title: String,
    /// The line of its heading.
    pub line: usize,
    /// Its Markdown, without the directive blocks.
    pub text: String,
    /// The config patch (a JSON object), applied on top of the previous step's config.
    pub patch: Option<Value>,
    /// The line of the patch block's opening fence (0 when none).
    pub patch_line: usize,
    /// The label of the button that applies the patch.
    pub apply: Option<String>,
    pub predict: Option<Prediction>,
    pub expect: Vec<Expect>,
    #[serde(skip)]
    patch_src: Vec<String>,
}

/// A parsed lesson (not yet checked against the core: see [`Lesson::check`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lesson {
    /// The file name used in messages.
    pub file: String,
    /// `id` from the front matter, or the file's name without its extension.
    pub id: String,
    pub title: String,
    pub kind: Kind,
    pub preset: Option<String>,
    /// The json block before the first step: the start config (or a patch of the preset).
    pub start: Option<Value>,
    pub cite: String,
    /// Estimated time in minutes.
    pub minutes: Option<f64>,
    pub teaches: String,
    /// Markdown before the first step.
    pub intro: String,
    pub steps: Vec<Step>,
    #[serde(skip)]
    preset_line: usize,
    #[serde(skip)]
    start_line: usize,
    #[serde(skip)]
    start_src: Vec<String>,
}

/// A lesson whose every step's config the core has checked: `configs[i]` is step `i`'s config with every default
/// filled in (what the page loads and `tunelab lesson check` runs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedLesson {
    #[serde(flatten)]
    pub lesson: Lesson,
    pub configs: Vec<ExperimentConfig>,
}

fn err(file: &str, line: usize, kind: ErrorKind, message: impl Into<String>) -> LessonError {
    LessonError { file: file.to_string(), line, kind, message: message.into(), nearest: None }
}

fn misspelt(file: &str, line: usize, kind: ErrorKind, what: &str, name: &str, known: &[&str]) -> LessonError {
    let near = crate::strict::nearest(name, known.iter().copied());
    let message = match near {
        Some(n) => format!("`{name}`: unknown {what}; did you mean `{n}`?"),
        None => format!("`{name}`: unknown {what} (known: {})", known.join(", ")),
    };
    LessonError { file: file.to_string(), line, kind, message, nearest: near.map(str::to_string) }
}

/// An opening or closing fence: its character, its length and the info string.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &line[indent..];
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then(|| (c, n, t[n..].trim()))
}

/// JSON merge of a patch into a config: objects merge key by key, `null` deletes a key, anything else replaces.
/// An object whose tag (`kind`, `source` or `type`) differs from the one it patches replaces it whole, so
/// `{"problem": {"kind": "hpo", ...}}` does not keep the fields of the previous problem kind.
pub fn merge(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            let retagged = ["kind", "source", "type"].iter().any(|t| p.get(*t).is_some_and(|v| b.get(*t) != Some(v)));
            if retagged {
                *b = p.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
                return;
            }
            for (k, v) in p {
                if v.is_null() {
                    b.remove(k);
                } else {
                    merge(b.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (b, p) => *b = p.clone(),
    }
}

/// The dotted paths of a patch's leaves (arrays and empty objects are leaves).
fn leaves(v: &Value, prefix: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                leaves(x, &if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

/// The line of a block that names `key` (`"key"`), or the block's first line.
fn key_line(src: &[String], first: usize, key: &str) -> usize {
    let quoted = format!("\"{key}\"");
    src.iter().position(|l| l.contains(&quoted)).map_or(first, |i| first + 1 + i)
}

/// The first line of a block holding a key (`"eta"`) that the message names as a word ("eta >= 2"), or the block's
/// first line: a check's message that names its field without a path.
fn named_line(src: &[String], first: usize, msg: &str) -> usize {
    let words: Vec<&str> =
        msg.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    for (i, l) in src.iter().enumerate() {
        let mut rest = l.as_str();
        while let Some(a) = rest.find('"') {
            let Some(b) = rest[a + 1..].find('"') else { break };
            let key = &rest[a + 1..a + 1 + b];
            if rest[a + 2 + b..].trim_start().starts_with(':') && words.contains(&key) {
                return first + 1 + i;
            }
            rest = &rest[a + 2 + b..];
        }
    }
    first
}

/// The last name of the first `` `path` `` in a core message (`config: `tuner.etta`: unknown field`).
fn message_key(msg: &str) -> Option<String> {
    let start = msg.find('`')? + 1;
    let end = start + msg[start..].find('`')?;
    let path = &msg[start..end];
    let last = path.rsplit('.').next()?;
    Some(last.split('[').next().unwrap_or(last).to_string())
}

fn nearest_in(msg: &str) -> Option<String> {
    let i = msg.find("did you mean `")? + "did you mean `".len();
    Some(msg[i..].split('`').next()?.to_string())
}

struct Builder {
    title: String,
    line: usize,
    text: Vec<String>,
    patch: Option<(Value, usize, Option<String>, Vec<String>)>,
    predict: Option<Prediction>,
    expect: Vec<Expect>,
}

/// Parses a lesson file. `file` names it in messages (a path, a URL or `pasted text`).
pub fn parse(file: &str, text: &str) -> Result<Lesson, LessonError> {
    if text.len() > MAX_BYTES {
        return Err(err(
            file,
            1,
            ErrorKind::TooLarge,
            format!(
                "the file is {:.1} MB; a lesson may be at most {} MB (it is a page of text, not data)",
                text.len() as f64 / 1e6,
                MAX_BYTES >> 20
            ),
        ));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(err(file, 1, ErrorKind::Syntax, "a lesson starts with its front matter: a line `---`, `key: value` lines (title, kind, preset, cite, minutes), then `---`"));
    }
    let end = lines.iter().skip(1).position(|l| l.trim_end() == "---").map(|i| i + 1).ok_or_else(|| {
        err(file, 1, ErrorKind::Syntax, "the front matter is not closed: add a line `---` after its `key: value` lines")
    })?;

    let mut fm: Map<String, Value> = Map::new();
    let mut fm_line: std::collections::HashMap<String, usize> = Default::default();
    for (i, raw) in lines[1..end].iter().enumerate() {
        let n = i + 2;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (k, v) =
            l.split_once(':').ok_or_else(|| err(file, n, ErrorKind::Syntax, format!("`{l}`: write `key: value`")))?;
        let (k, v) = (k.trim(), v.trim());
        if !KEYS.contains(&k) {
            return Err(misspelt(file, n, ErrorKind::UnknownKey, "front-matter key", k, &KEYS));
        }
        if let Some(first) = fm_line.get(k) {
            return Err(err(file, n, ErrorKind::Syntax, format!("`{k}` is given twice (first at line {first})")));
        }
        if v.is_empty() {
            return Err(err(file, n, ErrorKind::BadValue, format!("`{k}` has no value")));
        }
        fm.insert(k.into(), Value::String(v.into()));
        fm_line.insert(k.into(), n);
    }
    let get = |k: &str| fm.get(k).and_then(Value::as_str).map(str::to_string);
    let line_of = |k: &str| fm_line.get(k).copied().unwrap_or(1);
    let title =
        get("title").ok_or_else(|| err(file, end + 1, ErrorKind::MissingKey, "the front matter has no `title`"))?;
    let kind_name = get("kind").ok_or_else(|| {
        err(
            file,
            end + 1,
            ErrorKind::MissingKey,
            format!("the front matter has no `kind` (the panel: {})", Kind::ALL.map(Kind::name).join(", ")),
        )
    })?;
    let kind = Kind::parse(&kind_name).map_err(|_| {
        misspelt(file, line_of("kind"), ErrorKind::BadValue, "kind", &kind_name, &Kind::ALL.map(Kind::name))
    })?;
    let minutes = match get("minutes") {
        None => None,
        Some(m) => match m.parse::<f64>() {
            Ok(x) if x.is_finite() && x > 0.0 && x <= 600.0 => Some(x),
            _ => {
                return Err(err(
                    file,
                    line_of("minutes"),
                    ErrorKind::BadValue,
                    format!("`minutes: {m}`: give the estimated time in minutes (a number from 0 to 600)"),
                ))
            }
        },
    };
    let id = get("id").unwrap_or_else(|| {
        let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
        base.split('.').next().unwrap_or(base).to_string()
    });
    if let Some(bad) = id.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        if fm.contains_key("id") {
            return Err(err(
                file,
                line_of("id"),
                ErrorKind::BadValue,
                format!("`id: {id}`: letters, digits, `-` and `_` only (not `{bad}`)"),
            ));
        }
    }

    // The body: the intro, then one section per `## ` heading.
    let mut intro: Vec<String> = Vec::new();
    let mut start: Option<(Value, usize, Vec<String>)> = None;
    let mut steps: Vec<Builder> = Vec::new();
    let mut i = end + 1;
    while i < lines.len() {
        let n = i + 1;
        let raw = lines[i];
        if let Some((c, len, info)) = fence(raw) {
            // Find the closing fence.
            let close = lines[i + 1..]
                .iter()
                .position(|l| fence(l).is_some_and(|(c2, l2, rest)| c2 == c && l2 >= len && rest.is_empty()))
                .map(|j| i + 1 + j)
                .ok_or_else(|| {
                    err(file, n, ErrorKind::Syntax, format!("this {} block is not closed", "`".repeat(3)))
                })?;
            let word = info.split_whitespace().next().unwrap_or("");
            let content: Vec<String> = lines[i + 1..close].iter().map(|s| s.to_string()).collect();
            if BLOCKS.contains(&word) {
                let label = info[word.len()..].trim();
                match steps.last_mut() {
                    None if word == "json" => {
                        if start.is_some() {
                            return Err(err(
                                file,
                                n,
                                ErrorKind::Syntax,
                                "a second json block before the first step: the start config is one block",
                            ));
                        }
                        let v = json_block(file, n, &content)?;
                        start = Some((v, n, content));
                    }
                    None => {
                        return Err(err(
                            file,
                            n,
                            ErrorKind::Syntax,
                            format!("a `{word}` block belongs to a step: put it after a `## ` heading"),
                        ))
                    }
                    Some(step) => match word {
                        "json" => {
                            if let Some((_, first, _, _)) = &step.patch {
                                return Err(err(
                                    file,
                                    n,
                                    ErrorKind::Syntax,
                                    format!("a step has one json patch block (this step's is at line {first})"),
                                ));
                            }
                            let v = json_block(file, n, &content)?;
                            if v.get("kind").is_some() {
                                return Err(err(
                                    file,
                                    key_line(&content, n, "kind"),
                                    ErrorKind::Patch,
                                    "a patch cannot change the lesson's `kind` (the front matter sets it)",
                                ));
                            }
                            let mut paths = Vec::new();
                            leaves(&v, "", &mut paths);
                            if let Some(p) = paths.iter().find(|p| !panels::has(kind, p)) {
                                let last = p.rsplit('.').next().unwrap_or(p);
                                let near = panels::nearest(kind, p);
                                return Err(LessonError {
                                    file: file.into(),
                                    line: key_line(&content, n, last),
                                    kind: ErrorKind::PanelField,
                                    message: match near {
                                        Some(x) => format!("`{p}`: the {} panel has no such field; did you mean `{x}`?", kind.name()),
                                        None => format!("`{p}`: the {} panel has no such field (the fields of each panel: docs/write-a-lesson.md)", kind.name()),
                                    },
                                    nearest: near.map(str::to_string),
                                });
                            }
                            step.patch = Some((v, n, (!label.is_empty()).then(|| label.to_string()), content));
                        }
                        "predict" => {
                            if step.predict.is_some() {
                                return Err(err(file, n, ErrorKind::Syntax, "a step has at most one prediction"));
                            }
                            step.predict = Some(prediction(file, n, kind, &content)?);
                        }
                        _ => {
                            for (j, l) in content.iter().enumerate() {
                                let t = l.trim();
                                if t.is_empty() || t.starts_with('#') {
                                    continue;
                                }
                                let e = expect::parse(t, n + 1 + j)
                                    .map_err(|m| err(file, n + 1 + j, ErrorKind::Expect, m))?;
                                step.expect.push(e);
                            }
                        }
                    },
                }
            } else {
                let target = match steps.last_mut() {
                    Some(s) => &mut s.text,
                    None => &mut intro,
                };
                target.extend(lines[i..=close].iter().map(|s| s.to_string()));
            }
            i = close + 1;
            continue;
        }
        if raw == "##" || raw.starts_with("## ") {
            let t = raw[2..].trim().trim_end_matches('#').trim();
            if t.is_empty() {
                return Err(err(file, n, ErrorKind::Syntax, "a step's heading needs a title (`## Run the tuner`)"));
            }
            if steps.len() == MAX_STEPS {
                return Err(err(file, n, ErrorKind::TooLarge, format!("a lesson has at most {MAX_STEPS} steps")));
            }
            steps.push(Builder {
                title: t.to_string(),
                line: n,
                text: Vec::new(),
                patch: None,
                predict: None,
                expect: Vec::new(),
            });
        } else {
            match steps.last_mut() {
                Some(s) => s.text.push(raw.to_string()),
                None => intro.push(raw.to_string()),
            }
        }
        i += 1;
    }
    if steps.is_empty() {
        return Err(err(
            file,
            lines.len().max(1),
            ErrorKind::Syntax,
            "the lesson has no step: start each step with a `## ` heading",
        ));
    }
    let preset = get("preset");
    if preset.is_none() && start.is_none() {
        return Err(err(file, end + 1, ErrorKind::MissingKey, format!(
            "the lesson has no start: give `preset:` in the front matter (a {} preset: {}) or a json config block before the first step",
            kind.name(), kind.preset_names().join(", ")
        )));
    }
    if let Some(p) = &preset {
        if !kind.preset_names().contains(&p.as_str()) {
            return Err(misspelt(
                file,
                line_of("preset"),
                ErrorKind::BadValue,
                &format!("{} preset", kind.name()),
                p,
                kind.preset_names(),
            ));
        }
    }
    // Blank lines around a text go; the first line keeps its leading spaces (" ##" is text, "##" a heading), so
    // that `to_markdown` writes back what parses to the same lesson.
    let join = |v: &[String]| match (
        v.iter().position(|l| !l.trim().is_empty()),
        v.iter().rposition(|l| !l.trim().is_empty()),
    ) {
        (Some(a), Some(b)) => v[a..=b].join("\n").trim_end().to_string(),
        _ => String::new(),
    };
    let (start, start_line, start_src) = match start {
        Some((v, l, src)) => (Some(v), l, src),
        None => (None, 0, Vec::new()),
    };
    Ok(Lesson {
        file: file.to_string(),
        id,
        title,
        kind,
        preset,
        start,
        cite: get("cite").unwrap_or_default(),
        minutes,
        teaches: get("teaches").unwrap_or_default(),
        intro: join(&intro),
        steps: steps
            .into_iter()
            .map(|b| {
                let (patch, patch_line, apply, patch_src) = match b.patch {
                    Some((v, l, a, src)) => (Some(v), l, a, src),
                    None => (None, 0, None, Vec::new()),
                };
                Step {
                    title: b.title,
                    line: b.line,
                    text: join(&b.text),
                    patch,
                    patch_line,
                    apply,
                    predict: b.predict,
                    expect: b.expect,
                    patch_src,
                }
            })
            .collect(),
        preset_line: line_of("preset"),
        start_line,
        start_src,
    })
}

fn json_block(file: &str, first: usize, content: &[String]) -> Result<Value, LessonError> {
    let v: Value = serde_json::from_str(&content.join("\n")).map_err(|e| {
        let msg = e.to_string();
        let line = first + e.line().max(1);
        if msg.contains("recursion limit") {
            err(
                file,
                line,
                ErrorKind::Patch,
                "the json block is nested too deeply (a config is a few levels deep; more than 128 is refused)",
            )
        } else {
            err(file, line, ErrorKind::Patch, format!("the json block is not valid JSON: {msg}"))
        }
    })?;
    if !v.is_object() {
        return Err(err(
            file,
            first,
            ErrorKind::Patch,
            "a json block holds one JSON object (`{\"tuner\": {\"eta\": 2}}`)",
        ));
    }
    Ok(v)
}

fn prediction(file: &str, first: usize, kind: Kind, content: &[String]) -> Result<Prediction, LessonError> {
    let mut p = Prediction {
        kind: String::new(),
        line: first,
        question: String::new(),
        options: Vec::new(),
        answer: None,
        reveal: String::new(),
    };
    let mut answer_line = first;
    for (j, raw) in content.iter().enumerate() {
        let n = first + 1 + j;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let (k, v) = l.split_once(':').ok_or_else(|| {
            err(file, n, ErrorKind::Syntax, format!("`{l}`: write `key: value` (keys: {})", PREDICT_KEYS.join(", ")))
        })?;
        let (k, v) = (k.trim(), v.trim().to_string());
        match k {
            "type" => {
                if v != "choice" && v != "arm" {
                    return Err(misspelt(file, n, ErrorKind::Prediction, "prediction type", &v, &["choice", "arm"]));
                }
                p.kind = v;
            }
            "question" => p.question = v,
            "option" => {
                if p.options.contains(&v) {
                    return Err(err(file, n, ErrorKind::Prediction, format!("the option `{v}` is given twice")));
                }
                p.options.push(v)
            }
            "answer" => {
                p.answer = Some(v);
                answer_line = n;
            }
            "reveal" => p.reveal = if p.reveal.is_empty() { v } else { format!("{}\n{v}", p.reveal) },
            _ => return Err(misspelt(file, n, ErrorKind::UnknownKey, "prediction key", k, &PREDICT_KEYS)),
        }
    }
    match p.kind.as_str() {
        "" => Err(err(file, first, ErrorKind::Prediction, "a prediction needs `type: choice` (one of its options) or `type: arm` (click the arm MAMBA will choose)")),
        "arm" if kind != Kind::Tune => Err(err(file, first, ErrorKind::Prediction, format!(
            "`type: arm` cannot be revealed in the {} panel: only the MAMBA tuning panel (kind: tune) has arms to pick; use `type: choice`", kind.name()
        ))),
        "arm" if !p.options.is_empty() || p.answer.is_some() => Err(err(file, first, ErrorKind::Prediction, "an arm prediction has no options or answer: the run reveals MAMBA's choice")),
        "arm" => Ok(p),
        _ => {
            if p.question.is_empty() {
                return Err(err(file, first, ErrorKind::Prediction, "a choice needs a `question:`"));
            }
            if p.options.len() < 2 {
                return Err(err(file, first, ErrorKind::Prediction, "a choice needs at least two `option:` lines"));
            }
            let Some(a) = &p.answer else {
                return Err(err(file, first, ErrorKind::Prediction, "a choice cannot be revealed without its `answer:` (one of the options)"));
            };
            if !p.options.contains(a) {
                let opts: Vec<&str> = p.options.iter().map(String::as_str).collect();
                return Err(misspelt(file, answer_line, ErrorKind::Prediction, "answer (it must be one of the options)", a, &opts));
            }
            if p.reveal.is_empty() {
                return Err(err(file, first, ErrorKind::Prediction, "a choice needs a `reveal:` text, shown after the run"));
            }
            Ok(p)
        }
    }
}

impl Lesson {
    fn located(&self, line: usize, src: &[String], e: crate::Error) -> LessonError {
        let msg = match e {
            crate::Error::Config(m) => m,
            e => e.to_string(),
        };
        let at = match message_key(&msg) {
            Some(k) => key_line(src, line, &k),
            None => named_line(src, line, &msg),
        };
        LessonError {
            file: self.file.clone(),
            line: at.max(1),
            kind: ErrorKind::Config,
            nearest: nearest_in(&msg),
            message: msg,
        }
    }

    /// The start config as JSON: the preset (every field written out) with the start block merged in, or the
    /// start block with the lesson's kind.
    fn start_value(&self) -> Result<Value, LessonError> {
        let mut v = match &self.preset {
            Some(p) => {
                let cfg = ExperimentConfig::preset(self.kind, p).map_err(|e| self.located(self.preset_line, &[], e))?;
                serde_json::to_value(&cfg)
                    .map_err(|e| err(&self.file, self.preset_line, ErrorKind::Config, e.to_string()))?
            }
            None => Value::Object(Map::new()),
        };
        if let Some(s) = &self.start {
            if let Some(k) = s.get("kind") {
                if k.as_str() != Some(self.kind.name()) {
                    return Err(err(
                        &self.file,
                        key_line(&self.start_src, self.start_line, "kind"),
                        ErrorKind::Patch,
                        format!("the start config's `kind` is {k}, the front matter's `{}`", self.kind.name()),
                    ));
                }
            }
            merge(&mut v, s);
        }
        v["kind"] = Value::String(self.kind.name().into());
        Ok(v)
    }

    /// Each step's config (the start config and the patches up to it), parsed strictly but not yet checked.
    pub fn configs(&self) -> Result<Vec<ExperimentConfig>, LessonError> {
        let mut v = self.start_value()?;
        let (l0, src0) =
            if self.start.is_some() { (self.start_line, &self.start_src) } else { (self.preset_line, &self.start_src) };
        let mut cur = ExperimentConfig::from_value(&mut v.clone(), None).map_err(|e| self.located(l0, src0, e))?;
        let mut out = Vec::with_capacity(self.steps.len());
        for s in &self.steps {
            if let Some(p) = &s.patch {
                merge(&mut v, p);
                cur = ExperimentConfig::from_value(&mut v.clone(), None)
                    .map_err(|e| self.located(s.patch_line, &s.patch_src, e))?;
            }
            out.push(cur.clone());
        }
        Ok(out)
    }

    /// Checks every step's config with the core's check (as a run would): the lesson the page and the CLI run.
    pub fn check(self) -> Result<CheckedLesson, LessonError> {
        let configs = self.configs()?;
        let mut checked: Vec<ExperimentConfig> = Vec::with_capacity(configs.len());
        for (i, c) in configs.into_iter().enumerate() {
            // A step without a patch runs its predecessor's config: check it once.
            if i > 0 && self.steps[i].patch.is_none() {
                let prev = checked[i - 1].clone();
                checked.push(prev);
                continue;
            }
            let (line, src) = match self.steps[..=i].iter().rev().find(|s| s.patch.is_some()) {
                Some(s) => (s.patch_line, &s.patch_src),
                None if self.start.is_some() => (self.start_line, &self.start_src),
                None => (self.preset_line, &self.start_src),
            };
            let ok = c.check().map_err(|e| self.located(line, src, e))?;
            checked.push(ok.config());
        }
        Ok(CheckedLesson { lesson: self, configs: checked })
    }
}

/// Parses and checks a lesson in one call.
pub fn load(file: &str, text: &str) -> Result<CheckedLesson, LessonError> {
    parse(file, text)?.check()
}

impl Lesson {
    /// The lesson written back in the file format (front matter, intro, start block, steps with their blocks).
    /// Parsing the result gives the same lesson up to line numbers.
    pub fn to_markdown(&self) -> String {
        let mut s = String::from("---\n");
        s += &format!("id: {}\ntitle: {}\nkind: {}\n", self.id, self.title, self.kind.name());
        if let Some(p) = &self.preset {
            s += &format!("preset: {p}\n");
        }
        if !self.cite.is_empty() {
            s += &format!("cite: {}\n", self.cite);
        }
        if let Some(m) = self.minutes {
            s += &format!("minutes: {m}\n");
        }
        if !self.teaches.is_empty() {
            s += &format!("teaches: {}\n", self.teaches);
        }
        s += "---\n\n";
        if !self.intro.is_empty() {
            s += &format!("{}\n\n", self.intro);
        }
        if let Some(v) = &self.start {
            s += &format!("```json\n{v}\n```\n\n");
        }
        for st in &self.steps {
            s += &format!("## {}\n\n", st.title);
            if !st.text.is_empty() {
                s += &format!("{}\n\n", st.text);
            }
            if let Some(p) = &st.patch {
                s +=
                    &format!("```json{}\n{p}\n```\n\n", st.apply.as_ref().map(|a| format!(" {a}")).unwrap_or_default());
            }
            if let Some(p) = &st.predict {
                s += &format!("```predict\ntype: {}\n", p.kind);
                if !p.question.is_empty() {
                    s += &format!("question: {}\n", p.question);
                }
                for o in &p.options {
                    s += &format!("option: {o}\n");
                }
                if let Some(a) = &p.answer {
                    s += &format!("answer: {a}\n");
                }
                for r in p.reveal.lines() {
                    s += &format!("reveal: {r}\n");
                }
                s += "```\n\n";
            }
            if !st.expect.is_empty() {
                s += "```expect\n";
                for e in &st.expect {
                    s += &format!("{}\n", e.text);
                }
                s += "```\n\n";
            }
        }
        s
    }
}

#[cfg(test)]
mod tests;
