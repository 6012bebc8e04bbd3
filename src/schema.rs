//! JSON Schemas of tunelab's documents, generated from the Rust types with `schemars` (only with the `schema`
//! feature: the CLI's `tunelab schema` writes them; the wasm bundle and the Python module do not carry the
//! generator, only its output):
//!
//! - `schemas/<kind>.schema.json`: one per experiment kind, the config document (`{"kind": ..., fields}`);
//! - `schemas/config.schema.json`: any config (one of the seven, chosen by `kind`);
//! - `schemas/report.schema.json`: the report envelope (`format`, `kind`, `status`, `config`, `compute`, `result`);
//! - `schemas/lesson-front-matter.schema.json`: the `key: value` lines at the top of a lesson file;
//! - `docs/config.md`: the config reference, rendered from the kinds' schemas (`crate::schema_doc`).
//!
//! The schemas describe the strict parser ([`crate::strict`]): every object refuses keys it does not declare
//! (`additionalProperties: false`, or `unevaluatedProperties: false` where a part of it is flattened in), and a
//! config's top level also takes `"$schema"` (the schema an editor validates the file with). Defaults and
//! descriptions come from the types' `Default` values and doc comments, so a field is written once.

use crate::experiments::Kind;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};

/// The folder of the schema files, relative to the repository (and to the site's root; the Python package ships
/// them as `tunelab/schemas/`).
pub const DIR: &str = "schemas";
/// The copy the Python package ships (`tunelab/schemas/`, inside the wheel).
pub const PYTHON_DIR: &str = "crates/python/python/tunelab/schemas";
/// The generated config reference, relative to the repository.
pub const CONFIG_DOC: &str = "docs/config.md";

/// The JSON Schema dialect of every file.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn generator() -> SchemaGenerator {
    // Deserialize contract: what the parser accepts (fields with a default are optional).
    SchemaSettings::draft2020_12().for_deserialize().into_generator()
}

/// The file name of a kind's config schema (`hoag.schema.json`).
pub fn config_file(kind: Kind) -> String {
    format!("{}.schema.json", kind.name())
}

/// The schema of a config of `kind`: the kind's fields plus `kind` and `$schema`.
pub fn config_schema(kind: Kind) -> Value {
    let mut s = kind.config_schema(&mut generator()).to_value();
    add_envelope_keys(&mut s, kind);
    s["title"] = json!(format!("tunelab {} config", kind.name()));
    finish(s, &config_file(kind))
}

/// `kind` (optional: the per-kind commands such as `tunelab hoag --config FILE` assume it) and `$schema`.
fn add_envelope_keys(s: &mut Value, kind: Kind) {
    let props = s.as_object_mut().expect("a config schema is an object").entry("properties").or_insert(json!({}));
    let props = props.as_object_mut().expect("properties is an object");
    let mut with_keys = Map::new();
    with_keys.insert(
        "$schema".into(),
        json!({"type": "string", "description": "The JSON Schema an editor validates this file with (not a field: the parser skips it)."}),
    );
    with_keys.insert(
        "kind".into(),
        json!({"const": kind.name(), "description": "The experiment kind (may be left out for the kind's own command, e.g. `tunelab hoag --config FILE`)."}),
    );
    with_keys.extend(std::mem::take(props));
    *props = with_keys;
}

/// The schema of any config: one of the kinds' schemas, chosen by `kind`.
pub fn any_config_schema() -> Value {
    let one_of: Vec<Value> = Kind::ALL
        .into_iter()
        .map(|k| {
            json!({
                "if": {"properties": {"kind": {"const": k.name()}}, "required": ["kind"]},
                "then": {"$ref": config_file(k)}
            })
        })
        .collect();
    let kinds: Vec<&str> = Kind::ALL.map(Kind::name).to_vec();
    let s = json!({
        "title": "tunelab config (any kind)",
        "description": "One experiment config: `kind` names the experiment, the rest are that kind's fields.",
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": kinds}},
        "allOf": one_of
    });
    finish(s, "config.schema.json")
}

/// What the report envelope's schema is generated from: the fields of [`crate::experiments::Report`] (the
/// kind's `result` and `reached` details are described, not spelt out), plus the keys a reader also accepts
/// (`ray`, `$schema`; see [`crate::report_file`]).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code)]
struct ReportEnvelope {
    /// The JSON Schema an editor validates this file with.
    #[serde(rename = "$schema")]
    schema: Option<String>,
    /// The envelope's format version: a reader refuses a newer one (absent: 1).
    #[schemars(range(min = 1))]
    format: Option<u32>,
    /// The experiment kind (equal to `config.kind`).
    kind: Kind,
    status: crate::experiments::Status,
    /// The config that ran, every default filled in (`tunelab run --config report.json` reruns it).
    #[schemars(with = "ConfigRef")]
    config: Value,
    compute: ComputeSchema,
    /// The kind's report: an object for a complete run, `null` (or a partial result with `"partial": true`) for
    /// a stopped one. Numbers that are not finite are written as `null`.
    result: Option<Map<String, Value>>,
    /// Stopped runs: every progress detail up to the stop.
    #[serde(default)]
    reached: Vec<Map<String, Value>>,
    /// `tunelab.ray` only: the node and repeat ranges of the run.
    ray: Option<Value>,
}

/// A reference to the any-kind config schema (the file next to the report's).
struct ConfigRef;

impl JsonSchema for ConfigRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ConfigRef".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"$ref": "config.schema.json"})
    }
}

/// [`crate::experiments::Compute`] as written.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(dead_code)]
struct ComputeSchema {
    /// Wall-clock seconds of the whole run (not reproducible across machines).
    wall_seconds: f64,
    /// Threads of the pool the run used.
    threads: usize,
    /// Work done, in `unit`.
    done: f64,
    /// Work planned, in `unit`.
    total: f64,
    /// The unit of `done` and `total` (gradient evaluations, iterations, ...).
    unit: String,
}

/// The report envelope's schema.
pub fn report_schema() -> Value {
    let mut s = generator().into_root_schema_for::<ReportEnvelope>().to_value();
    s["title"] = json!("tunelab report");
    s["description"] = json!("The report envelope a run writes (`tunelab run --out`, `tunelab.run`, `tunelab.ray`, the page's export); the page opens it (Open a report).");
    finish(s, "report.schema.json")
}

/// The lesson front matter's schema (the `key: value` lines between the two `---` lines; every value is written
/// as text, `minutes` as a number).
pub fn lesson_schema() -> Value {
    let mut s = generator().into_root_schema_for::<crate::lesson::FrontMatter>().to_value();
    s["title"] = json!("tunelab lesson front matter");
    finish(s, "lesson-front-matter.schema.json")
}

/// Every schema file: (file name, schema).
pub fn schemas() -> Vec<(String, Value)> {
    let mut all: Vec<(String, Value)> = Kind::ALL.into_iter().map(|k| (config_file(k), config_schema(k))).collect();
    all.push(("config.schema.json".into(), any_config_schema()));
    all.push(("report.schema.json".into(), report_schema()));
    all.push(("lesson-front-matter.schema.json".into(), lesson_schema()));
    all
}

/// Every generated file: (path relative to the repository, text). `tunelab schema` writes them and its `--check`
/// (run by the test command) fails when one on disk differs.
pub fn files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, s) in schemas() {
        let text = pretty(&s);
        out.push((format!("{PYTHON_DIR}/{name}"), text.clone()));
        out.push((format!("{DIR}/{name}"), text));
    }
    out.push((CONFIG_DOC.into(), crate::schema_doc::config_markdown()));
    out
}

/// Pretty JSON with a final newline.
pub fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("a schema serializes");
    s.push('\n');
    s
}

/// The dialect, `$id` and strictness of a root schema, keys in a stable order.
fn finish(mut s: Value, file: &str) -> Value {
    // The any-kind schema only dispatches to the kinds' schemas, which refuse unknown keys themselves.
    if file != "config.schema.json" {
        strict(&mut s);
    }
    let obj = s.as_object_mut().expect("a schema is an object");
    obj.remove("$schema");
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DIALECT));
    out.insert("$id".into(), json!(file));
    for key in ["title", "description"] {
        if let Some(v) = obj.remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(std::mem::take(obj));
    Value::Object(out)
}

/// Inlines a definition that is only a part of an object: a `$ref` next to `properties` (an internally tagged
/// enum's newtype variant: the tag plus the inner struct's fields, one object). The definition's properties,
/// `required` and subschemas join the node's, so that the node alone knows every key of its object.
fn inline_parts(root: &mut Value) {
    let defs = root.get("$defs").cloned().unwrap_or(json!({}));
    inline_at(root, &defs);
    // Definitions no longer referenced (only inlined) are dropped.
    loop {
        let text = serde_json::to_string(&root).expect("a schema serializes");
        let Some(Value::Object(defs)) = root.get_mut("$defs") else { return };
        let unused: Vec<String> =
            defs.keys().filter(|k| !text.contains(&format!("\"#/$defs/{k}\""))).cloned().collect();
        if unused.is_empty() {
            return;
        }
        for k in unused {
            defs.remove(&k);
        }
    }
}

fn inline_at(v: &mut Value, defs: &Value) {
    match v {
        Value::Object(obj) => {
            while obj.contains_key("properties") {
                let Some(name) = obj.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"))
                else {
                    break;
                };
                let Some(Value::Object(def)) = defs.get(name).cloned() else { break };
                obj.remove("$ref");
                for (key, value) in def {
                    match (key.as_str(), obj.get_mut(&key)) {
                        ("properties", Some(Value::Object(props))) => {
                            for (k, p) in value.as_object().into_iter().flatten() {
                                props.entry(k.clone()).or_insert_with(|| p.clone());
                            }
                        }
                        ("required", Some(Value::Array(req))) => {
                            for r in value.as_array().into_iter().flatten() {
                                if !req.contains(r) {
                                    req.push(r.clone());
                                }
                            }
                        }
                        ("description" | "title" | "default" | "examples", _) => {}
                        (_, None) => {
                            obj.insert(key, value);
                        }
                        (_, Some(_)) => {}
                    }
                }
            }
            for (key, child) in obj.iter_mut() {
                if !matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    inline_at(child, defs);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| inline_at(i, defs)),
        _ => {}
    }
}

const COMPOSITIONS: [&str; 3] = ["allOf", "oneOf", "anyOf"];

/// Refuses undeclared keys, as the strict parser does. An object schema with `properties` and no subschemas
/// gets `additionalProperties: false`. One whose keys are spread over subschemas (a flattened part: its own
/// properties plus the variants of a flattened enum) gets `unevaluatedProperties: false` at its top and its
/// subschemas, which each see only part of the object, none. Alternatives that are each a whole object (a
/// tagged enum's variants) are strict each.
fn strict(v: &mut Value) {
    inline_parts(v);
    strict_at(v, false);
}

fn strict_at(v: &mut Value, part: bool) {
    match v {
        Value::Object(obj) => {
            let has_props = obj.contains_key("properties");
            let composed = COMPOSITIONS.iter().any(|k| obj.contains_key(*k));
            if !part && has_props && !obj.contains_key("additionalProperties") {
                let key = if composed { "unevaluatedProperties" } else { "additionalProperties" };
                obj.insert(key.into(), json!(false));
            }
            for (key, child) in obj.iter_mut() {
                match key.as_str() {
                    "allOf" | "oneOf" | "anyOf" => {
                        let items_part = part || has_props;
                        for item in child.as_array_mut().into_iter().flatten() {
                            strict_at(item, items_part);
                        }
                    }
                    "properties" | "$defs" | "patternProperties" => {
                        for (_, sub) in child.as_object_mut().into_iter().flatten() {
                            strict_at(sub, false);
                        }
                    }
                    "const" | "enum" | "default" | "examples" => {}
                    _ => strict_at(child, false),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| strict_at(i, false)),
        _ => {}
    }
}
