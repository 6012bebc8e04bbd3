//! The lesson parser: every error kind with its line and nearest name, the expect operators, the merge rule, and
//! the built-in lessons (they parse, check and survive a round trip through `to_markdown`).

use super::*;
use serde_json::json;

const HEAD: &str = "---\ntitle: T\nkind: tune\npreset: demo\n---\n";

fn fail(text: &str) -> LessonError {
    load("x.md", text).expect_err("the lesson must be refused")
}

fn builtin_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    v.sort();
    v
}

#[test]
fn builtin_lessons_parse_check_and_round_trip() {
    let files = builtin_files();
    let ids: Vec<String> = files.iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(ids, ["d-ttts", "gp-ucb", "hoag", "lr-schedule", "mamba"]);
    for p in files {
        let name = p.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&p).unwrap();
        let lesson = load(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lesson.configs.len(), lesson.lesson.steps.len());
        assert!(lesson.lesson.minutes.is_some() && !lesson.lesson.cite.is_empty(), "{name}");
        // Round trip: written back and parsed again, the same lesson and the same configs (line numbers aside).
        let again = load(&name, &lesson.lesson.to_markdown()).unwrap_or_else(|e| panic!("{name} round trip: {e}"));
        assert_eq!(again.configs, lesson.configs, "{name}");
        let strip = |l: &Lesson| {
            let mut v = serde_json::to_value(l).unwrap();
            for s in v["steps"].as_array_mut().unwrap() {
                s["line"] = json!(0);
                s["patch_line"] = json!(0);
                if s["predict"].is_object() {
                    s["predict"]["line"] = json!(0);
                }
                for e in s["expect"].as_array_mut().unwrap() {
                    e["line"] = json!(0);
                }
            }
            v
        };
        assert_eq!(strip(&again.lesson), strip(&lesson.lesson), "{name}");
    }
}

#[test]
fn mamba_steps_apply_patches_in_order() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/lessons/mamba.md")).unwrap();
    let l = load("mamba.md", &text).unwrap();
    let v: Vec<serde_json::Value> = l.configs.iter().map(|c| serde_json::to_value(c).unwrap()).collect();
    assert_eq!(v[0], v[2], "steps without a patch keep the config");
    assert_eq!(v[3]["tuner"]["eta"], json!(2));
    assert_eq!(v[4]["tuner"]["eta"], json!(3));
    assert_eq!(v[4]["metric"]["kind"], json!("fssd"));
    assert_eq!(v[5]["metric"]["kind"], json!("ksd"));
    assert_eq!((v[5]["seed"].clone(), v[5]["data"]["seed"].clone()), (json!(1), json!(1)));
    // Step 6 differs from step 1 only in the two seeds.
    let mut a = v[0].clone();
    a["seed"] = json!(1);
    a["data"]["seed"] = json!(1);
    assert_eq!(a, v[5]);
    assert_eq!(l.lesson.steps[5].predict.as_ref().unwrap().kind, "arm");
}

#[test]
fn front_matter_errors_name_line_and_nearest() {
    let e = fail("---\ntitel: T\nkind: tune\n---\n## A\n");
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (2, ErrorKind::UnknownKey, Some("title")));
    assert_eq!(e.to_string(), "x.md:2: `titel`: unknown front-matter key; did you mean `title`?");
    let e = fail("---\ntitle: T\nkind: tunee\npreset: demo\n---\n## A\n");
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (3, ErrorKind::BadValue, Some("tune")));
    let e = fail("---\ntitle: T\nkind: tune\npreset: dmeo\n---\n## A\n");
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (4, ErrorKind::BadValue, Some("demo")));
    // No preset and no start block: at the front matter's closing line.
    let e = fail("---\ntitle: T\nkind: tune\n---\n## A\n");
    assert_eq!((e.line, e.kind), (4, ErrorKind::MissingKey));
    let e = fail("---\nkind: tune\npreset: demo\n---\n## A\n");
    assert_eq!(e.kind, ErrorKind::MissingKey);
    assert!(e.message.contains("title"));
    let e = fail("---\ntitle: T\nkind: tune\npreset: demo\nminutes: soon\n---\n## A\n");
    assert_eq!((e.line, e.kind), (5, ErrorKind::BadValue));
    let e = fail("# no front matter\n");
    assert_eq!((e.line, e.kind), (1, ErrorKind::Syntax));
    let e = fail("---\ntitle: T\n");
    assert_eq!((e.line, e.kind), (1, ErrorKind::Syntax));
    let e = fail(&format!("{HEAD}no step here\n"));
    assert_eq!(e.kind, ErrorKind::Syntax);
}

#[test]
fn structure_errors() {
    let e = fail(&format!("{HEAD}## A\n\n```json\n{{\"seed\": 1}}\n"));
    assert_eq!((e.line, e.kind), (8, ErrorKind::Syntax), "{e}");
    let e = fail(&format!("{HEAD}## A\n```json\n{{\"seed\": 1}}\n```\n```json\n{{\"seed\": 2}}\n```\n"));
    assert_eq!((e.line, e.kind), (10, ErrorKind::Syntax));
    let e = fail(&format!("{HEAD}```expect\nstatus == complete\n```\n## A\n"));
    assert_eq!((e.line, e.kind), (6, ErrorKind::Syntax));
    // A fenced block of another language is text: a `## ` inside it is not a step.
    let l = load("x.md", &format!("{HEAD}## A\n```python\n## not a step\n```\n")).unwrap();
    assert_eq!(l.lesson.steps.len(), 1);
    assert!(l.lesson.steps[0].text.contains("## not a step"));
}

#[test]
fn patch_errors_name_the_line_of_the_field() {
    // JSON syntax: the line inside the block.
    let e = fail(&format!("{HEAD}## A\n```json\n{{\n  \"seed\": ,\n}}\n```\n"));
    assert_eq!((e.line, e.kind), (9, ErrorKind::Patch), "{e}");
    // A field the panel does not have (misspelt): the nearest field.
    let e = fail(&format!("{HEAD}## A\n```json\n{{\"tuner\": {{\n  \"etta\": 2}}}}\n```\n"));
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (9, ErrorKind::PanelField, Some("tuner.eta")), "{e}");
    // A real config field the tune panel has no control for.
    let e = fail(&format!(
        "{HEAD}## A\n```json\n{{\"metric\": {{\"kind\": \"ksd\", \"stochastic_gradients\": true}}}}\n```\n"
    ));
    assert_eq!((e.line, e.kind), (8, ErrorKind::PanelField), "{e}");
    assert!(e.message.contains("metric.stochastic_gradients"));
    // A value the core's check refuses, at its line.
    let e = fail(&format!("{HEAD}## A\n```json\n{{\n\"tuner\": {{\"kind\": \"mamba\",\n\"eta\": 1}}}}\n```\n"));
    assert_eq!((e.line, e.kind), (10, ErrorKind::Config), "{e}");
    // A patch may not change the kind.
    let e = fail(&format!("{HEAD}## A\n```json\n{{\"kind\": \"bandit\"}}\n```\n"));
    assert_eq!((e.line, e.kind), (8, ErrorKind::Patch));
    // An unknown field of the start config: the core's strict parse names the nearest field.
    let e = fail("---\ntitle: T\nkind: tune\npreset: demo\n---\n```json\n{\n\"seeed\": 3}\n```\n## A\n");
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (8, ErrorKind::Config, Some("seed")), "{e}");
    // Nested too deeply: one clear message.
    let deep = format!("{}1{}", "{\"a\":".repeat(200), "}".repeat(200));
    let e = fail(&format!("{HEAD}## A\n```json\n{deep}\n```\n"));
    assert_eq!((e.line, e.kind), (8, ErrorKind::Patch));
    assert!(e.message.contains("nested too deeply"), "{e}");
}

#[test]
fn prediction_errors() {
    let e = fail("---\ntitle: T\nkind: bandit\npreset: beta-reservoir\n---\n## A\n```predict\ntype: arm\n```\n");
    assert_eq!((e.line, e.kind), (7, ErrorKind::Prediction), "{e}");
    assert!(e.message.contains("cannot be revealed"), "{e}");
    let e = fail("---\ntitle: T\nkind: hoag\npreset: logreg\n---\n## A\n```predict\ntype: arm\n```\n");
    assert_eq!((e.line, e.kind), (7, ErrorKind::Prediction));
    let e = fail(&format!("{HEAD}## A\n```predict\ntype: choice\nquestion: Q?\noption: left\noption: right\nanswer: rihgt\nreveal: R\n```\n"));
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (12, ErrorKind::Prediction, Some("right")), "{e}");
    let e = fail(&format!("{HEAD}## A\n```predict\ntype: choice\nquestion: Q?\noption: left\noption: right\n```\n"));
    assert_eq!((e.line, e.kind), (7, ErrorKind::Prediction));
    let e = fail(&format!("{HEAD}## A\n```predict\ntype: choice\nqestion: Q?\n```\n"));
    assert_eq!((e.line, e.kind, e.nearest.as_deref()), (9, ErrorKind::UnknownKey, Some("question")));
    let ok = load("x.md", &format!("{HEAD}## A\n```predict\ntype: choice\nquestion: Q?\noption: left\noption: right\nanswer: right\nreveal: R\n```\n")).unwrap();
    assert_eq!(ok.lesson.steps[0].predict.as_ref().unwrap().answer.as_deref(), Some("right"));
}

#[test]
fn expect_lines() {
    let e = fail(&format!("{HEAD}## A\n```expect\nresult.best.step =< 1e-4\n```\n"));
    assert_eq!((e.line, e.kind), (8, ErrorKind::Expect), "{e}");
    let e = fail(&format!("{HEAD}## A\n```expect\nreslt.best.step < 1e-4\n```\n"));
    assert_eq!((e.line, e.kind), (8, ErrorKind::Expect));
    assert!(e.message.contains("did you mean `result`"), "{e}");
    let e = fail(&format!("{HEAD}## A\n```expect\nresult.best.step < small\n```\n"));
    assert_eq!(e.kind, ErrorKind::Expect);
    let l = load("x.md", &format!("{HEAD}## A\n```expect\nresult.best.step < 1e-4\nstatus == complete\nresult.arms[1].id >= 1\nresult.bset.step > 0\n```\n")).unwrap();
    let report = json!({"status": "complete", "result": {"best": {"step": 3e-5}, "arms": [{"id": 0}, {"id": 1}]}});
    let out: Vec<Outcome> = l.lesson.steps[0].expect.iter().map(|e| e.eval(&report)).collect();
    assert_eq!(out.iter().map(|o| o.pass).collect::<Vec<_>>(), [true, true, true, false]);
    assert_eq!(out[0].actual, json!(3e-5));
    assert_eq!(out[3].line, 11);
    assert!(out[3].message.contains("did you mean `result.best`"), "{}", out[3].message);
    let fails = json!({"status": "stopped", "result": {"best": {"step": 1e-3}, "arms": []}});
    let out: Vec<bool> = l.lesson.steps[0].expect.iter().map(|e| e.eval(&fails).pass).collect();
    assert_eq!(out, [false, false, false, false]);
}

#[test]
fn merge_replaces_a_retagged_object_and_deletes_nulls() {
    let mut v = json!({"problem": {"kind": "reservoir", "a": 1, "b": 1}, "rounds": 5, "x": 1});
    merge(&mut v, &json!({"problem": {"kind": "reservoir", "b": 3}}));
    assert_eq!(v["problem"], json!({"kind": "reservoir", "a": 1, "b": 3}));
    merge(&mut v, &json!({"problem": {"kind": "hpo", "data": "wine"}, "x": null}));
    assert_eq!(v, json!({"problem": {"kind": "hpo", "data": "wine"}, "rounds": 5}));
}

#[test]
fn size_limit_and_garbage_give_one_error() {
    let big = format!("{HEAD}## A\n{}", "x".repeat(MAX_BYTES));
    let e = fail(&big);
    assert_eq!((e.line, e.kind), (1, ErrorKind::TooLarge));
    for junk in
        ["", "---", "---\n---", "\u{feff}---\n:\n---", "---\ntitle: a\nkind: tune\npreset: demo\n---\n##", "```"]
    {
        assert!(load("x.md", junk).is_err(), "{junk:?}");
    }
}

#[test]
fn the_docs_list_every_panel_field() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/write-a-lesson.md")).unwrap();
    for kind in crate::experiments::Kind::ALL {
        for f in panels::fields(kind) {
            assert!(
                docs.contains(&format!("`{f}`")),
                "docs/write-a-lesson.md does not list {}'s field {f}",
                kind.name()
            );
        }
    }
}
