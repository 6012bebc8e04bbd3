//! Reading a report file back: the envelope a run wrote (`tunelab run --out`, `tunelab.to_json`, `tunelab.ray`, the
//! page's "Report (JSON)" export), parsed strictly so that a front end can show it as if it had run it.
//!
//! A report file is untrusted data. [`open_report`] never runs anything and never panics; every refusal is a
//! [`ReportError`] whose [`ReportError::code`] tells the kind of problem (damaged JSON, not a report, an unknown
//! kind, a newer format, too large, fields that do not fit the kind's report).
//!
//! What is checked: the JSON text (serde_json's recursion limit bounds nesting); the envelope's keys (unknown keys
//! are refused with the nearest known name); `format` (absent: 1; newer than [`REPORT_FORMAT`]: refused); the
//! `kind`; the `status`; the `config`, strictly, as a config file is ([`ExperimentConfig::from_value`]); the
//! `result` (a complete run) by deserializing it into the kind's own report type ([`Output::from_value`]) with
//! `null` read as a non-finite number where a number is expected (serde_json writes NaN and ±inf as `null`).
//!
//! Size: a text longer than [`OpenOptions::full_bytes`] is read without its samples (the chosen arm's
//! `best.samples`, each arm's drill-down `draws`): they are skipped while parsing, never held, and
//! [`OpenedReport::dropped`] says what was left out. Above [`MAX_REPORT_BYTES`] nothing is read.

use crate::experiments::{ExperimentConfig, Kind, Output, Status};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// The report envelope's format version that this build writes and reads (the envelope's `format`).
pub const REPORT_FORMAT: u32 = 1;
/// The largest report text read at all (bytes of UTF-8).
pub const MAX_REPORT_BYTES: usize = 256 << 20;
/// The default size above which a report is read without its samples (bytes of UTF-8): the page's limit.
pub const FULL_REPORT_BYTES: usize = 64 << 20;

/// The keys of a report envelope (`ray`: the node and repeat ranges `tunelab.ray` adds; `$schema`: the JSON
/// Schema an editor validates it with).
const ENVELOPE_KEYS: [&str; 9] =
    ["format", "kind", "status", "config", "compute", "result", "reached", "ray", "$schema"];

/// How to open a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenOptions {
    /// Texts longer than this many bytes are read without their samples.
    pub full_bytes: usize,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self { full_bytes: FULL_REPORT_BYTES }
    }
}

/// Why a report file could not be opened.
#[derive(Debug, Clone, PartialEq)]
pub enum ReportError {
    /// The text is longer than [`MAX_REPORT_BYTES`].
    TooLarge { bytes: usize, max: usize },
    /// Not JSON, or cut short (a damaged or truncated file); the message has serde_json's line and column.
    Damaged(String),
    /// JSON, but not a report envelope (a config file, some other document).
    NotAReport(String),
    /// A report of a kind this build does not know.
    UnknownKind { kind: String, known: Vec<&'static str> },
    /// A report written in a newer format than this build reads.
    NewerFormat { found: u64, supported: u32 },
    /// An envelope whose fields do not fit (an unknown key, a config the core refuses, a result that is not the
    /// kind's report); the message names the path.
    Invalid(String),
}

impl ReportError {
    /// A short machine-readable name of the problem: `too-large`, `damaged`, `not-a-report`, `unknown-kind`,
    /// `newer-format` or `invalid`.
    pub fn code(&self) -> &'static str {
        match self {
            ReportError::TooLarge { .. } => "too-large",
            ReportError::Damaged(_) => "damaged",
            ReportError::NotAReport(_) => "not-a-report",
            ReportError::UnknownKind { .. } => "unknown-kind",
            ReportError::NewerFormat { .. } => "newer-format",
            ReportError::Invalid(_) => "invalid",
        }
    }
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1u64 << 20) as f64)
}

impl fmt::Display for ReportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReportError::TooLarge { bytes, max } => {
                write!(f, "this report is {}, over the {} a report may have: it was not opened", mb(*bytes), mb(*max))
            }
            ReportError::Damaged(m) => write!(f, "this file is not valid JSON (damaged or cut short?): {m}"),
            ReportError::NotAReport(m) => write!(f, "this file is not a tunelab report: {m}"),
            ReportError::UnknownKind { kind, known } => {
                write!(f, "this report is of kind '{kind}', which this version does not know (known: {})", known.join(", "))
            }
            ReportError::NewerFormat { found, supported } => write!(
                f,
                "this report has format {found}, newer than this version reads (format {supported}): open it with a newer tunelab"
            ),
            ReportError::Invalid(m) => write!(f, "this report does not fit its kind: {m}"),
        }
    }
}

impl std::error::Error for ReportError {}

/// Part of a report left out because the text was over the size limit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Dropped {
    /// Where, with `[]` for every index (`result.best.samples`, `result.arms[].draws`).
    pub path: String,
    /// How many of them were left out (arrays or objects at that path).
    pub parts: usize,
    /// How many numbers they held.
    pub values: usize,
}

/// A report read back.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenedReport {
    pub kind: Kind,
    pub status: Status,
    /// The envelope as written (samples replaced by empty arrays when dropped), `format` filled in.
    pub envelope: Value,
    /// What was left out (empty: the whole report).
    pub dropped: Vec<Dropped>,
    /// The text's length in bytes.
    pub bytes: usize,
}

/// Parses and checks a report file's text (see the module docs).
pub fn open_report(text: &str, opts: OpenOptions) -> Result<OpenedReport, ReportError> {
    let bytes = text.len();
    if bytes > MAX_REPORT_BYTES {
        return Err(ReportError::TooLarge { bytes, max: MAX_REPORT_BYTES });
    }
    let skip = bytes > opts.full_bytes;
    let dropped = RefCell::new(Vec::<Dropped>::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let mut value = ValueSeed { path: String::new(), skip, dropped: &dropped }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| ReportError::Damaged(e.to_string()))?;
    let envelope = check_envelope(&mut value)?;
    Ok(OpenedReport { kind: envelope.0, status: envelope.1, envelope: value, dropped: dropped.into_inner(), bytes })
}

fn check_envelope(value: &mut Value) -> Result<(Kind, Status), ReportError> {
    let obj = value.as_object_mut().ok_or_else(|| ReportError::NotAReport("the file holds no JSON object".into()))?;
    if !obj.contains_key("status") || !obj.contains_key("config") {
        let what = if obj.contains_key("kind") {
            "it looks like a config (no `status` and `config`): open it with Preset / Run instead"
        } else {
            "it has no `kind`, `status` and `config`"
        };
        return Err(ReportError::NotAReport(what.into()));
    }
    for key in obj.keys() {
        if !ENVELOPE_KEYS.contains(&key.as_str()) {
            let near = crate::strict::nearest(key, ENVELOPE_KEYS)
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(ReportError::Invalid(format!("`{key}`: unknown field of the report envelope{near}")));
        }
    }
    let format = match obj.get("format") {
        None => REPORT_FORMAT as u64,
        Some(v) => v
            .as_u64()
            .filter(|f| *f >= 1)
            .ok_or_else(|| ReportError::Invalid("`format`: must be a whole number from 1".into()))?,
    };
    if format > REPORT_FORMAT as u64 {
        return Err(ReportError::NewerFormat { found: format, supported: REPORT_FORMAT });
    }
    obj.insert("format".into(), Value::from(format));
    let kind_name = obj
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| ReportError::Invalid("`kind`: must be a string".into()))?;
    let kind = Kind::ALL.into_iter().find(|k| k.name() == kind_name).ok_or_else(|| ReportError::UnknownKind {
        kind: kind_name.chars().take(60).collect(),
        known: Kind::ALL.map(Kind::name).to_vec(),
    })?;
    let status: Status = serde_json::from_value(obj["status"].clone())
        .map_err(|_| ReportError::Invalid("`status`: must be \"complete\" or \"stopped\"".into()))?;
    if status == Status::Failed {
        return Err(ReportError::Invalid("`status`: a failed run writes no report".into()));
    }
    // The config, as strictly as a config file (its own `kind` must be the envelope's).
    let mut config = obj["config"].clone();
    let parsed = ExperimentConfig::from_value(&mut config, Some(kind))
        .map_err(|e| ReportError::Invalid(format!("`config`: {e}")))?;
    if parsed.kind() != kind {
        return Err(ReportError::Invalid(format!(
            "`config`: a {} config in a {} report",
            parsed.kind().name(),
            kind.name()
        )));
    }
    if let Some(compute) = obj.get("compute") {
        check_compute(compute)?;
    }
    match (status, obj.get("result")) {
        (Status::Complete, Some(result)) if !result.is_null() => {
            Output::from_value(kind, result).map_err(|e| ReportError::Invalid(format!("`result`: {e}")))?;
        }
        (Status::Complete, _) => {
            return Err(ReportError::Invalid("`result`: a complete run's report has a result".into()))
        }
        // A stopped run's result as the CLI and Python write it (crate::experiments::partial: rebuilt from
        // `reached`, marked `"partial": true`); the page draws a stopped report from `reached`.
        (_, Some(result)) if !result.is_null() && result.get("partial") != Some(&Value::Bool(true)) => {
            return Err(ReportError::Invalid(
                "`result`: a stopped run's result is null or its partial result (marked `\"partial\": true`)".into(),
            ))
        }
        _ => {}
    }
    match obj.get("reached") {
        None => {}
        Some(Value::Array(items)) if items.iter().all(Value::is_object) => {}
        Some(_) => return Err(ReportError::Invalid("`reached`: must be a list of progress details".into())),
    }
    Ok((kind, status))
}

fn check_compute(compute: &Value) -> Result<(), ReportError> {
    let obj = compute.as_object().ok_or_else(|| ReportError::Invalid("`compute`: must be an object".into()))?;
    const KEYS: [&str; 5] = ["wall_seconds", "threads", "done", "total", "unit"];
    for (key, v) in obj {
        let ok = match key.as_str() {
            "unit" => v.is_string(),
            "threads" => v.is_u64(),
            k if KEYS.contains(&k) => v.is_number() || v.is_null(),
            _ => {
                let near =
                    crate::strict::nearest(key, KEYS).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
                return Err(ReportError::Invalid(format!("`compute.{key}`: unknown field{near}")));
            }
        };
        if !ok {
            return Err(ReportError::Invalid(format!("`compute.{key}`: wrong type")));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------------------------ parse, skipping samples

/// Builds a [`Value`] from the text; with `skip`, an array under a key `samples` and an object under a key
/// `draws` are read past without being held (recorded in `dropped`; `samples` becomes `[]`, `draws` goes).
struct ValueSeed<'a> {
    path: String,
    skip: bool,
    dropped: &'a RefCell<Vec<Dropped>>,
}

/// What a skippable key's value turned into.
enum Slot {
    Kept(Value),
    Skipped { values: usize },
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor(self))
    }
}

struct ValueVisitor<'a>(ValueSeed<'a>);

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let seed = &self.0;
        let path = format!("{}[]", seed.path);
        let mut out = Vec::new();
        while let Some(v) =
            seq.next_element_seed(ValueSeed { path: path.clone(), skip: seed.skip, dropped: seed.dropped })?
        {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let seed = &self.0;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if seed.path.is_empty() { key.clone() } else { format!("{}.{key}", seed.path) };
            let skippable = seed.skip && (key == "samples" || key == "draws");
            if !skippable {
                let v = map.next_value_seed(ValueSeed { path, skip: seed.skip, dropped: seed.dropped })?;
                out.insert(key, v);
                continue;
            }
            let want_array = key == "samples";
            match map.next_value_seed(SkipSeed { want_array, path: path.clone(), dropped: seed.dropped })? {
                Slot::Kept(v) => {
                    out.insert(key, v);
                }
                Slot::Skipped { values } => {
                    let mut d = seed.dropped.borrow_mut();
                    match d.iter_mut().find(|x| x.path == path) {
                        Some(x) => {
                            x.parts += 1;
                            x.values += values;
                        }
                        None => d.push(Dropped { path, parts: 1, values }),
                    }
                    if want_array {
                        out.insert(key, Value::Array(Vec::new()));
                    }
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// A `samples` array (`want_array`) or a `draws` object is counted and dropped; any other value is kept.
struct SkipSeed<'a> {
    want_array: bool,
    path: String,
    dropped: &'a RefCell<Vec<Dropped>>,
}

impl<'de> DeserializeSeed<'de> for SkipSeed<'_> {
    type Value = Slot;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Slot, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SkipSeed<'_> {
    type Value = Slot;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Slot, E> {
        Ok(Slot::Kept(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::String(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Slot, E> {
        Ok(Slot::Kept(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Slot, A::Error> {
        if !self.want_array {
            let v = ValueVisitor(ValueSeed { path: self.path, skip: true, dropped: self.dropped }).visit_seq(seq)?;
            return Ok(Slot::Kept(v));
        }
        let mut values = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            values += 1;
        }
        Ok(Slot::Skipped { values })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot, A::Error> {
        if self.want_array {
            let v = ValueVisitor(ValueSeed { path: self.path, skip: true, dropped: self.dropped }).visit_map(map)?;
            return Ok(Slot::Kept(v));
        }
        // A drill-down's draws: the numbers of its arrays are what is left out.
        let mut values = 0;
        while map.next_key::<IgnoredAny>()?.is_some() {
            values += map.next_value::<CountNumbers>()?.0;
        }
        Ok(Slot::Skipped { values })
    }
}

/// Reads past any value, counting the numbers in it.
struct CountNumbers(usize);

impl<'de> de::Deserialize<'de> for CountNumbers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CountNumbers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<CountNumbers, E> {
                Ok(CountNumbers(0))
            }
            fn visit_i64<E>(self, _: i64) -> Result<CountNumbers, E> {
                Ok(CountNumbers(1))
            }
            fn visit_u64<E>(self, _: u64) -> Result<CountNumbers, E> {
                Ok(CountNumbers(1))
            }
            fn visit_f64<E>(self, _: f64) -> Result<CountNumbers, E> {
                Ok(CountNumbers(1))
            }
            fn visit_str<E>(self, _: &str) -> Result<CountNumbers, E> {
                Ok(CountNumbers(0))
            }
            fn visit_unit<E>(self) -> Result<CountNumbers, E> {
                Ok(CountNumbers(0))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CountNumbers, A::Error> {
                let mut n = 0;
                while let Some(c) = seq.next_element::<CountNumbers>()? {
                    n += c.0;
                }
                Ok(CountNumbers(n))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CountNumbers, A::Error> {
                let mut n = 0;
                while map.next_key::<IgnoredAny>()?.is_some() {
                    n += map.next_value::<CountNumbers>()?.0;
                }
                Ok(CountNumbers(n))
            }
        }
        d.deserialize_any(V)
    }
}

// ------------------------------------------------------------------------------------ typed result, null as NaN

/// A deserializer over a [`Value`] that reads `null` as NaN where a number is asked for (serde_json writes
/// non-finite numbers as `null`); everything else as serde_json's own `Value` deserializer does.
pub(crate) struct Lenient<'a>(pub &'a Value);

impl<'de, 'a> Deserializer<'de> for Lenient<'a> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    v.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    v.visit_i64(i)
                } else {
                    v.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => v.visit_str(s),
            Value::Array(a) => v.visit_seq(LenientSeq(a.iter())),
            Value::Object(o) => v.visit_map(LenientMap { iter: o.iter(), value: None }),
        }
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => v.visit_f64(f64::NAN),
            _ => self.deserialize_any(v),
        }
    }
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_f64(v)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, Self::Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::String(s) => v.visit_enum(de::value::StrDeserializer::<serde_json::Error>::new(s)),
            Value::Object(o) if o.len() == 1 => {
                let (k, val) = o.iter().next().expect("one entry");
                v.visit_enum(LenientEnum { variant: k, value: val })
            }
            _ => Err(de::Error::invalid_type(unexpected(self.0), &"a string or an object with one key")),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

struct LenientSeq<'a>(std::slice::Iter<'a, Value>);

impl<'de, 'a> SeqAccess<'de> for LenientSeq<'a> {
    type Error = serde_json::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        self.0.next().map(|v| seed.deserialize(Lenient(v))).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct LenientMap<'a> {
    iter: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de, 'a> MapAccess<'de> for LenientMap<'a> {
    type Error = serde_json::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(de::value::StrDeserializer::<serde_json::Error>::new(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let v = self.value.take().ok_or_else(|| de::Error::custom("a value without its key"))?;
        seed.deserialize(Lenient(v))
    }
}

struct LenientEnum<'a> {
    variant: &'a str,
    value: &'a Value,
}

impl<'de, 'a> de::EnumAccess<'de> for LenientEnum<'a> {
    type Error = serde_json::Error;
    type Variant = Lenient<'a>;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Lenient<'a>), Self::Error> {
        let v = seed.deserialize(de::value::StrDeserializer::<serde_json::Error>::new(self.variant))?;
        Ok((v, Lenient(self.value)))
    }
}

impl<'de, 'a> de::VariantAccess<'de> for Lenient<'a> {
    type Error = serde_json::Error;
    fn unit_variant(self) -> Result<(), Self::Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(unexpected(other), &"a unit variant")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Self::Error> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_any(v)
    }
    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], v: V) -> Result<V::Value, Self::Error> {
        self.deserialize_any(v)
    }
}

/// Deserializes `value` into `T` as a report's result: `null` where a number is expected reads as NaN. (Without
/// serde_path_to_error: its wrapper doubled the code this adds to the wasm module.)
pub(crate) fn result_from_value<T: de::DeserializeOwned>(value: &Value) -> Result<T, String> {
    T::deserialize(Lenient(value)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_reads_null_numbers_as_nan() {
        #[derive(serde::Deserialize)]
        struct T {
            a: f64,
            b: Option<f64>,
            c: Vec<f64>,
        }
        let t: T = result_from_value(&serde_json::json!({"a": null, "b": null, "c": [1.0, null]})).unwrap();
        assert!(t.a.is_nan() && t.b.is_none() && t.c[0] == 1.0 && t.c[1].is_nan());
        let e = result_from_value::<T>(&serde_json::json!({"a": "x", "b": null, "c": []})).err().unwrap();
        assert!(e.contains("invalid type: string \"x\", expected f64"), "{e}");
    }
}
