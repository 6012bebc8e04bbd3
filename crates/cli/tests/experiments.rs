//! The experiment commands end to end through the one runner: Ctrl-C (exit 130 and a partial report), configs
//! with and without `kind`, presets, and complete runs writing the report envelope. No timing bounds: a stopped
//! run is recognised by its exit code and its report's status; `HANG` only keeps a broken stop from hanging CI.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmpdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tunelab-experiments-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tunelab(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tunelab")).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A long run of `tunelab args --threads 1 --out DIR/report.json` (in DIR, holding `files`), after it started.
fn start_long(name: &str, args: &[&str], files: &[(&str, &str)]) -> (std::process::Child, PathBuf) {
    let dir = tmpdir(name);
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let out = dir.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tunelab"))
        .args(args)
        .args(["--threads", "1", "--out"])
        .arg(&out)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "{name}: the run ended before Ctrl-C");
    (child, out)
}

fn sigint(child: &std::process::Child) {
    // SAFETY: kill(2) on the pid of our own child.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
}

/// A hang guard, not a measurement: the runs below would go on for minutes without their Ctrl-C.
const HANG: Duration = Duration::from_secs(120);

/// Waits for the child to exit (killed after `limit`, a hang guard); its exit code and stderr.
fn exit_within(name: &str, mut child: std::process::Child, limit: Duration) -> (Option<i32>, String) {
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > limit {
            child.kill().unwrap();
            panic!("{name}: still running {limit:?} after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), std::io::read_to_string(child.stderr.take().unwrap()).unwrap())
}

/// Starts a run that would not finish by itself, sends SIGINT after it started, and checks that it exits
/// with 130, says so on stderr and leaves a stopped report of `kind` in `--out` whose `result` is what it
/// reached (`partial`: for tune every arm with its scores so far and the rounds not reached; for compare the
/// tuners started; for the other kinds the last progress and the work not done).
fn interrupted(name: &str, kind: &str, args: &[&str], files: &[(&str, &str)]) -> Value {
    interrupted_by(name, kind, args, files, &[Duration::ZERO])
}

/// [`interrupted`] with one SIGINT after each of `gaps` (the first at once).
fn interrupted_by(name: &str, kind: &str, args: &[&str], files: &[(&str, &str)], gaps: &[Duration]) -> Value {
    let (child, out) = start_long(name, args, files);
    for gap in gaps {
        std::thread::sleep(*gap);
        sigint(&child);
    }
    let (code, stderr) = exit_within(name, child, HANG);
    assert_eq!(code, Some(130), "{name}: {stderr}");
    assert!(stderr.contains("stopped by Ctrl-C after"), "{name}: {stderr}");
    assert!(stderr.contains("partial report written to"), "{name}: {stderr}");
    let report = read_json(&out);
    assert_eq!(report["status"], "stopped", "{name}");
    assert_eq!(report["kind"], kind, "{name}");
    assert_eq!(report["config"]["kind"], kind, "{name}");
    assert_eq!(report["result"]["partial"], true, "{name}: {}", report["result"]);
    report
}

#[test]
fn ctrl_c_stops_tune() {
    // A seconds budget (30 s per arm, minutes in all): a 1e10 grad-evals budget on the demo is now refused by
    // `check` (its kept samples would need gigabytes; src/limits.rs).
    let report = interrupted("tune", "tune", &["tune", "--preset", "demo", "--seconds", "30"], &[]);
    let result = &report["result"];
    let arms = result["arms"].as_array().unwrap();
    assert!(!arms.is_empty() && arms.iter().all(|a| a["step"].is_f64() && a["scores"].is_array()), "{result}");
    // nothing finished in 1.5 s of 30 s per arm: every planned round is still to come
    assert_eq!(result["not_reached"]["rounds"][0], 0, "{result}");
}

#[test]
fn ctrl_c_stops_compare() {
    let report = interrupted("compare", "compare", &["compare", "--preset", "demo", "--seconds", "30"], &[]);
    assert!(report["result"]["entries"].is_array(), "{}", report["result"]);
}

#[test]
fn ctrl_c_stops_bandit() {
    interrupted(
        "bandit",
        "bandit",
        &["bandit", "--preset", "beta-reservoir", "--rounds", "1000000", "--repeats", "2"],
        &[],
    );
}

#[test]
fn ctrl_c_stops_step_size() {
    interrupted("step", "step-size", &["step-size", "--preset", "sgld-step", "--windows", "2000"], &[]);
}

#[test]
fn ctrl_c_stops_hoag() {
    let cfg = r#"{"problem": "logreg", "budget": {"cost": 1000000000, "max_iter": 100000000}}"#;
    interrupted("hoag", "hoag", &["hoag", "--config", "long.json"], &[("long.json", cfg)]);
}

#[test]
fn ctrl_c_stops_lr_schedule() {
    let cfg = r#"{"problem": {"kind": "mlp", "hidden": 32}, "intervals": 200, "steps_per_interval": 100000}"#;
    interrupted("lr", "lr-schedule", &["lr-schedule", "--config", "long.json"], &[("long.json", cfg)]);
}

#[test]
fn two_sigints_5_ms_apart_still_write_the_stopped_report() {
    // `timeout -s INT` signals the process and its group: two SIGINTs milliseconds apart are one request
    let report = interrupted_by(
        "twice",
        "tune",
        &["tune", "--preset", "demo", "--seconds", "30"],
        &[],
        &[Duration::ZERO, Duration::from_millis(5)],
    );
    assert!(!report["result"]["arms"].as_array().unwrap().is_empty(), "{}", report["result"]);
}

#[test]
fn a_complete_run_writes_the_envelope_and_its_config_runs_again() {
    let dir = tmpdir("complete");
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let (code, stdout, stderr) = tunelab(&[
        "bandit",
        "--preset",
        "beta-reservoir",
        "--rounds",
        "30",
        "--repeats",
        "2",
        "--seed",
        "7",
        "--out",
        &path("first.json"),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("final simple regret") && stdout.contains("d-ttts"), "{stdout}");
    assert!(stderr.contains("report written to"), "{stderr}");
    let first = read_json(&dir.join("first.json"));
    assert_eq!(first["kind"], "bandit");
    assert_eq!(first["status"], "complete");
    assert_eq!(first["compute"]["unit"], "rounds");
    assert_eq!(first["compute"]["done"], 30.0);
    assert!(first["reached"].is_null(), "a complete run has no `reached`");
    assert_eq!(first["config"]["rounds"], 30);
    assert_eq!(first["config"]["repeats"], 2);
    assert_eq!(first["config"]["seed"], 7);
    assert!(first["result"]["algorithms"].as_array().is_some_and(|a| !a.is_empty()), "{}", first["result"]);

    // The config of the report, with its `kind`, runs through `tunelab run` to the same result.
    let config = first["config"].clone();
    std::fs::write(dir.join("with-kind.json"), config.to_string()).unwrap();
    let (code, _, stderr) = tunelab(&["run", "--config", &path("with-kind.json"), "--out", &path("again.json")]);
    assert_eq!(code, Some(0), "{stderr}");
    let again = read_json(&dir.join("again.json"));
    assert_eq!(again["config"], first["config"]);
    assert_eq!(
        again["result"]["algorithms"][0]["final_simple_regret"],
        first["result"]["algorithms"][0]["final_simple_regret"]
    );

    // Without `kind`, through the kind's own command.
    let mut per_kind = config.clone();
    per_kind.as_object_mut().unwrap().remove("kind");
    std::fs::write(dir.join("per-kind.json"), per_kind.to_string()).unwrap();
    let (code, stdout, stderr) = tunelab(&["bandit", "--config", &path("per-kind.json")]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("(30 rounds, 2 repeats, seed 7)"), "{stdout}");

    // ... but not through `tunelab run`, which needs a kind.
    let (code, _, stderr) = tunelab(&["run", "--config", &path("per-kind.json")]);
    assert_eq!(code, Some(1));
    assert!(stderr.starts_with("error: ") && stderr.contains("no `kind`"), "{stderr}");

    // A document of another kind is refused by a per-kind command.
    let (code, stdout, stderr) = tunelab(&["hoag", "--config", &path("with-kind.json")]);
    assert_eq!(code, Some(1));
    assert!(stdout.is_empty());
    assert!(
        stderr.starts_with("error: ") && stderr.contains("runs 'hoag' experiments, the config says 'bandit'"),
        "{stderr}"
    );
}

#[test]
fn run_with_kind_and_preset() {
    let dir = tmpdir("run-preset");
    let out = dir.join("hoag.json");
    let (code, stdout, stderr) =
        tunelab(&["run", "--kind", "hoag", "--preset", "logreg", "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("HOAG") || stdout.contains("hoag"), "{stdout}");
    // the problem as the config spells it, counts with their plurals (not the Rust type `Logreg`)
    assert!(stdout.starts_with("logreg: train/test/validation = "), "{stdout}");
    assert!(
        stdout.lines().next().is_some_and(|l| l.contains(" features; ") || l.contains(", 1 feature; ")),
        "{stdout}"
    );
    let report = read_json(&out);
    assert_eq!((report["kind"].as_str(), report["status"].as_str()), (Some("hoag"), Some("complete")));
    assert_eq!(report["compute"]["unit"], "methods");
    assert!(report["result"]["methods"].as_array().is_some_and(|m| !m.is_empty()));

    let (code, _, stderr) = tunelab(&["run", "--preset", "logreg"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("--preset needs --kind"), "{stderr}");
    let (code, _, stderr) = tunelab(&["run", "--kind", "nope", "--preset", "logreg"]);
    assert_eq!(code, Some(2), "clap refuses an unknown kind: {stderr}");
    let (code, _, stderr) = tunelab(&["hoag", "--preset", "nope"]);
    assert_eq!(code, Some(1));
    assert!(stderr.starts_with("error: ") && stderr.contains("nope"), "{stderr}");
}

#[test]
fn a_misspelt_field_is_refused_with_its_path_and_the_right_name() {
    // `"tuner": {"etta": 5}` ran with eta = 3 and exit 0
    let dir = tmpdir("strict");
    let cfg = dir.join("typo.json");
    let text = r#"{"kind": "tune", "data": {"source": "simulate", "n": 200, "d": 3}, "model": {"kind": "logistic"}, "arms": {"steps": [0.001]},
        "tuner": {"kind": "mamba", "etta": 5}, "budget": {"iterations": 100}}"#;
    std::fs::write(&cfg, text).unwrap();
    for args in [vec!["run", "--config"], vec!["tune", "--config"]] {
        let (code, _, stderr) = tunelab(&[args, vec![cfg.to_str().unwrap()]].concat());
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains("typo.json") && stderr.contains("`tuner.etta`: unknown field; did you mean `eta`?"),
            "{stderr}"
        );
    }
    // a value error names its field and the file
    std::fs::write(&cfg, text.replace(r#""etta": 5"#, r#""eta": "5""#)).unwrap();
    let (code, _, stderr) = tunelab(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("typo.json") && stderr.contains("`tuner.eta`: invalid type: string \"5\""), "{stderr}");
    // a value the check refuses names its field and the file too
    std::fs::write(
        &cfg,
        text.replace(r#""etta": 5"#, r#""eta": 3"#).replace(r#""iterations": 100"#, r#""grad_evals": -5"#),
    )
    .unwrap();
    let (code, _, stderr) = tunelab(&["run", "--config", cfg.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("typo.json: `budget.grad_evals`: the budget must be a positive number, got -5"),
        "{stderr}"
    );
}

#[test]
fn presets_lists_every_kind() {
    let (code, stdout, _) = tunelab(&["presets"]);
    assert_eq!(code, Some(0));
    for (kind, preset) in [
        ("tune", "paper-logreg"),
        ("compare", "paper-logreg"),
        ("bandit", "beta-reservoir"),
        ("hoag", "kernel-ridge"),
        ("lr-schedule", "digits"),
        ("step-size", "sgld-step"),
        ("tvo", "digits"),
    ] {
        let line =
            stdout.lines().find(|l| l.split_whitespace().next() == Some(kind)).unwrap_or_else(|| panic!("{stdout}"));
        assert!(line.contains(preset), "{line}");
    }
}

#[test]
fn step_size_has_its_own_command() {
    let dir = tmpdir("step");
    let out = dir.join("step.json");
    std::fs::write(dir.join("step.json.in"), r#"{"window_iters": 200}"#).unwrap();
    let cfg = dir.join("step.json.in");
    let (code, stdout, stderr) =
        tunelab(&["step-size", "--config", cfg.to_str().unwrap(), "--windows", "4", "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("4 windows of 200 iterations"), "{stdout}");
    let report = read_json(&out);
    assert_eq!(report["kind"], "step-size");
    assert_eq!(report["status"], "complete");
    assert_eq!(report["config"]["windows"], 4);
    // the bandit command runs bandit configs only, and says where a step-size preset runs
    let (code, _, stderr) = tunelab(&["bandit", "--preset", "sgld-step"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("`sgld-step` is a step-size preset: run `tunelab step-size --preset sgld-step`"),
        "{stderr}"
    );
}

#[test]
fn compare_saves_a_reference_then_reuses_it_for_another_sampler() {
    let dir = tmpdir("reference");
    let cfg = dir.join("small.json");
    std::fs::write(
        &cfg,
        r#"{"kind":"compare","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},
        "model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
        "batch":[0.1]},"budget":{"grad_evals":20000},"metric":{"kind":"ksd","max_samples":100},"thin":2,"seed":9,
        "reference_samples":300}"#,
    )
    .unwrap();
    let (cfg, reference) = (cfg.to_str().unwrap(), dir.join("ref.json"));
    let reference = reference.to_str().unwrap();
    let run = |sampler: &str, out: &str| {
        tunelab(&[
            "compare",
            "--config",
            cfg,
            "--sampler",
            sampler,
            "--reference",
            reference,
            "--threads",
            "1",
            "--out",
            out,
        ])
    };
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    let (code, _, err) = run("sgld", a.to_str().unwrap());
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("reference saved"), "{err}");
    let saved = read_json(Path::new(reference));
    assert_eq!(saved["key"]["samples"], 300);
    // another sampler reads it back: the same reference, seconds included (it was not recomputed)
    let (code, _, err) = run("sgld-cv", b.to_str().unwrap());
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("reference saved"), "{err}");
    assert_eq!(read_json(&b)["result"]["reference"], saved["reference"]);
    assert_eq!(read_json(&a)["result"]["reference"], saved["reference"]);
    // another seed is refused with the file's name, and so is a malformed file
    let (code, _, err) =
        tunelab(&["compare", "--config", cfg, "--seed", "3", "--reference", reference, "--threads", "1"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("ref.json") && err.contains("seed"), "{err}");
    std::fs::write(reference, "{").unwrap();
    let (code, _, err) = run("sgld", a.to_str().unwrap());
    assert_eq!(code, Some(1));
    assert!(err.contains("ref.json") && err.contains("saved reference"), "{err}");
}

/// `presets --show KIND/NAME` prints a preset's full config naming its JSON Schema (`"$schema"` first, the schema
/// file `tunelab schema` writes, under `--schema-base`); it runs as printed (a config file that `run` takes,
/// strictly parsed), and a malformed or unknown name is refused.
#[test]
fn presets_show_prints_a_runnable_config() {
    let (code, stdout, stderr) = tunelab(&["presets", "--show", "hoag/logreg"]);
    assert_eq!(code, Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(v["kind"], "hoag");
    assert!(stdout.trim_start().starts_with("{\n  \"$schema\": \"schemas/hoag.schema.json\","), "{stdout}");
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(v["$schema"].as_str().unwrap());
    assert!(schema.is_file(), "{}", schema.display());
    let (code, other, _) = tunelab(&["presets", "--show", "tune/demo", "--schema-base", "https://example.org/s/"]);
    assert_eq!(code, Some(0));
    assert!(other.contains("\"$schema\": \"https://example.org/s/tune.schema.json\""), "{other}");
    let parsed = tunelab::experiments::ExperimentConfig::from_json(&stdout, None).expect("strictly parseable");
    assert_eq!(
        parsed,
        tunelab::experiments::ExperimentConfig::preset(tunelab::experiments::Kind::Hoag, "logreg").unwrap()
    );
    let (code, _, stderr) = tunelab(&["presets", "--show", "hoag"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("KIND/NAME"), "{stderr}");
    let (code, _, stderr) = tunelab(&["presets", "--show", "hoag/nope"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("nope"), "{stderr}");
}

/// `--progress` with stderr piped (not a terminal): plain lines, one each time the run passes another tenth of
/// its total (every round here: 10 rounds), each with done / total, percent, elapsed time and ETA, then a closing
/// line. Before, the bar drew nothing without a terminal.
#[test]
fn progress_without_a_terminal_prints_plain_lines() {
    let (code, _, stderr) = tunelab(&[
        "bandit",
        "--preset",
        "beta-reservoir",
        "--rounds",
        "10",
        "--repeats",
        "1",
        "--threads",
        "1",
        "--progress",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("tunelab bandit: ")).collect();
    let steps: Vec<&str> = lines.iter().copied().filter(|l| l.contains("ETA")).collect();
    let done: Vec<u32> = steps
        .iter()
        .map(|l| {
            let counts = l["tunelab bandit: ".len()..].split(' ').next().unwrap();
            assert!(counts.ends_with("/10"), "{l}");
            counts.trim_end_matches("/10").parse().unwrap()
        })
        .collect();
    // each tenth of the 10 rounds gives a line (a 5 s pause could add one, never remove one)
    for k in 1..=10 {
        assert!(done.contains(&k), "no line at {k}/10:\n{stderr}");
    }
    assert!(done.windows(2).all(|w| w[0] <= w[1]), "{stderr}");
    assert!(steps.iter().all(|l| l.contains(" rounds (") && l.contains("%), ") && l.contains(" s, ETA ")), "{stderr}");
    assert!(steps.last().unwrap().contains("10/10 rounds (100%)"), "{stderr}");
    assert!(
        lines.last().unwrap().contains("run returned after") && lines.last().unwrap().ends_with("at 10/10 rounds"),
        "{stderr}"
    );
    // no terminal escape codes (a bar) in a log
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
}

/// A comparison's fresh evaluation chains are phases with their own progress lines (before, a BNN comparison
/// printed nothing for minutes while a chain ran): in gradient evaluations, from 0 to the plan's 10 R, each
/// naming whose choice it evaluates.
#[test]
fn compare_shows_each_evaluation_chain() {
    let dir = tmpdir("eval-progress");
    let cfg = dir.join("small.json");
    std::fs::write(
        &cfg,
        r#"{"kind":"compare","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},
        "model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
        "batch":[0.1]},"budget":{"grad_evals":20000},"metric":{"kind":"ksd","max_samples":100},"thin":2,"seed":9,
        "reference_samples":0,"tuners":["MAMBA-KSD","heuristic"]}"#,
    )
    .unwrap();
    let (code, _, stderr) = tunelab(&["run", "--config", cfg.to_str().unwrap(), "--threads", "1", "--progress"]);
    assert_eq!(code, Some(0), "{stderr}");
    for tuner in ["MAMBA-KSD", "heuristic"] {
        let lines: Vec<&str> =
            stderr.lines().filter(|l| l.ends_with(&format!("  {tuner}: evaluation chain from the MAP"))).collect();
        assert!(
            lines.first().is_some_and(|l| l.starts_with("tunelab compare: 0/200000 gradient evaluations (0%)")),
            "{tuner}:\n{stderr}"
        );
        assert!(
            lines.last().is_some_and(|l| l.starts_with("tunelab compare: 200000/200000 gradient evaluations (100%)")),
            "{tuner}:\n{stderr}"
        );
    }
}

/// A comparison's exact reference is a phase with its own progress. Without a terminal,
/// `--progress` prints its plain lines in MALA iterations (done/total, ETA) while the tuners' count stays at
/// 0; a Ctrl-C inside it writes a stopped report whose `reached` ends with the reference's progress, and the
/// message says what was reached.
#[test]
fn compare_shows_its_reference_phase_and_a_ctrl_c_inside_it_says_what_was_reached() {
    // the small comparison of tests/common/small_configs.rs with a reference run that takes minutes
    let cfg = r#"{"kind":"compare","data":{"source":"simulate","n":300,"d":2,"seed":1,"test_fraction":0.2},
        "model":{"kind":"logistic"},"sampler":{"kind":"sgld"},"arms":{"log10_step":{"from":-4,"to":-2,"by":1},
        "batch":[0.1]},"budget":{"grad_evals":20000},"metric":{"kind":"ksd","max_samples":100},"thin":2,"seed":9,
        "reference_samples":5000000}"#;
    let total = 5_000_000u64 / 2 + 5_000_000 * 5; // warm-up n/2, then n draws kept every 5th
    let (child, out) = start_long("reference", &["run", "--config", "long.json", "--progress"], &[("long.json", cfg)]);
    sigint(&child);
    let (code, stderr) = exit_within("reference", child, HANG);
    assert_eq!(code, Some(130), "{stderr}");
    let lines: Vec<&str> =
        stderr.lines().filter(|l| l.starts_with("tunelab compare: ") && !l.contains("returned")).collect();
    assert!(!lines.is_empty(), "{stderr}");
    for l in &lines {
        assert!(l.contains(&format!("/{total} MALA iterations (")) && l.ends_with("reference sampler"), "{l}");
    }
    assert!(lines[0].starts_with(&format!("tunelab compare: 0/{total} MALA iterations (0%)")), "{stderr}");
    let report = read_json(&out);
    assert_eq!(report["status"], "stopped");
    assert_eq!(report["compute"]["done"], 0.0);
    assert_eq!(report["compute"]["unit"], "tuners");
    let reached = report["reached"].as_array().unwrap();
    let last = reached.last().unwrap();
    assert_eq!(last["type"], "reference", "{last}");
    assert_eq!(last["total"], total);
    assert_eq!(last["unit"], "MALA iterations");
    let done = last["done"].as_u64().unwrap();
    assert!(done < total, "{last}");
    assert!(reached.iter().all(|d| d["type"] == "reference" && d.get("tuner").is_none()), "{reached:?}");
    let msg =
        format!("(0/5 tuners; reached: reference sampler {done}/{total} MALA iterations); partial report written to");
    assert!(stderr.contains(&msg), "{msg}\n{stderr}");
}

#[test]
fn a_misspelt_preset_gets_the_nearest_name() {
    let (code, _, stderr) = tunelab(&["tune", "--preset", "paper-logrge"]);
    assert_ne!(code, Some(0));
    assert!(stderr.contains("unknown tune preset 'paper-logrge'; did you mean 'paper-logreg'?"), "{stderr}");
}

#[test]
fn unscaled_features_and_a_choice_on_the_grid_edge_are_warned_about() {
    let dir = tmpdir("warn");
    // features of size ~500 (standardize off): the run warns and says the fix
    let mut csv = String::from("a,b,y\n");
    for i in 0..120 {
        let (u, v) = (((i * 37) % 101) as f64 / 50.0 - 1.0, ((i * 53) % 97) as f64 / 48.0 - 1.0);
        csv += &format!("{},{},{}\n", 500.0 + 80.0 * u, v, if u + 0.5 * v > 0.0 { 1 } else { 0 });
    }
    std::fs::write(dir.join("raw.csv"), csv).unwrap();
    let cfg = r#"{"kind": "tune", "data": {"source": "simulate", "n": 200, "d": 2, "seed": 1, "test_fraction": 0.2},
        "model": {"kind": "logistic"}, "sampler": {"kind": "sgld"},
        "arms": {"log10_step": {"from": -4, "to": -2, "by": 1}, "batch": [0.3]},
        "tuner": {"kind": "mamba", "eta": 3}, "budget": {"grad_evals": 6000},
        "metric": {"kind": "ksd", "max_samples": 60}, "thin": 2, "seed": 3}"#;
    std::fs::write(dir.join("small.json"), cfg).unwrap();
    let p = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let (code, _, stderr) = tunelab(&["tune", "--config", &p("small.json"), "--data", &p("raw.csv"), "--threads", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning: the features look unscaled (feature 'a' has mean "), "{stderr}");
    assert!(stderr.contains("--standardize"), "{stderr}");
    let (code, _, stderr) =
        tunelab(&["tune", "--config", &p("small.json"), "--data", &p("raw.csv"), "--standardize", "--threads", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("unscaled"), "{stderr}");
    // the chosen arm's step, when it is the grid's smallest or largest, is named as an edge
    let (code, _, stderr) = tunelab(&["tune", "--config", &p("small.json"), "--threads", "1", "--out", &p("r.json")]);
    assert_eq!(code, Some(0), "{stderr}");
    let r = read_json(&dir.join("r.json"));
    let best = r["result"]["best"]["step"].as_f64().unwrap();
    let steps: Vec<f64> = r["result"]["arms"].as_array().unwrap().iter().map(|a| a["step"].as_f64().unwrap()).collect();
    let edge = steps.iter().all(|s| *s >= best) || steps.iter().all(|s| *s <= best);
    assert_eq!(stderr.contains("warning: the chosen arm's step size"), edge, "{stderr}");
}

#[test]
fn keep_writes_the_report_so_far_after_every_round_and_survives_sigkill() {
    let dir = tmpdir("keep");
    let cfg = r#"{"kind": "tune", "data": {"source": "none", "test_fraction": 0}, "model": {"kind": "gaussian", "d": 2},
        "sampler": {"kind": "sgld"}, "arms": {"log10_step": {"from": -3, "to": -1, "by": 0.25}, "batch": [1]},
        "tuner": {"kind": "mamba", "eta": 3}, "budget": {"seconds": 1}, "metric": {"kind": "ksd", "max_samples": 100},
        "thin": 2, "start": "zero", "seed": 5}"#;
    std::fs::write(dir.join("long.json"), cfg).unwrap();
    let keep = dir.join("kept.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tunelab"))
        .args(["tune", "--config", "long.json", "--threads", "1", "--keep", "kept.json"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // the first round's end writes the file (a hang guard, not a measurement)
    let start = Instant::now();
    while !keep.exists() {
        assert!(start.elapsed() < HANG, "no --keep file after {HANG:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    let kept = read_json(&keep);
    assert_eq!(kept["status"], "running");
    let result = &kept["result"];
    assert_eq!(result["partial"], true);
    assert_eq!(result["rounds"][0]["finished"], true, "{result}");
    let arms = result["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 9);
    assert!(arms.iter().all(|a| a["scores"].as_array().is_some_and(|s| !s.is_empty())), "{result}");
    assert!(result["best"]["arm"].is_u64() && result["best"]["round"].is_u64(), "{result}");
}

/// A report without its timing fields (`seconds`, `*_seconds`): what two runs of one config share bit for bit.
fn untimed(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| k != "seconds" && !k.ends_with("_seconds"));
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Runs `run` to its end, then again with `--checkpoint`, killed (SIGKILL) as soon as its first checkpoint is
/// on disk, then resumes the checkpoint: the resumed report must equal the whole run's (timings aside). Returns
/// the test's folder and the rounds the checkpoint had done (asserted below `most`).
fn killed_and_resumed(name: &str, run: &[&str], most: u64) -> std::path::PathBuf {
    let dir = tmpdir(name);
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let (code, _, stderr) = tunelab(&[run, &["--out", &path("whole.json")]].concat());
    assert_eq!(code, Some(0), "{stderr}");

    let checkpoint = dir.join("run.checkpoint");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tunelab"))
        .args(run)
        .args(["--checkpoint", &path("run.checkpoint"), "--out", &path("killed.json")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !checkpoint.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before its first checkpoint");
        assert!(start.elapsed() < HANG, "no checkpoint written");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: nothing runs after it
    child.wait().unwrap();
    assert!(!dir.join("killed.json").exists(), "the run was killed before it wrote its report");
    let saved = read_json(&checkpoint);
    let rounds = saved["rounds"].as_u64().unwrap();
    assert!((1..most).contains(&rounds), "checkpoint after {rounds} rounds");

    let (code, _, stderr) =
        tunelab(&["run", "--resume", &path("run.checkpoint"), "--threads", "1", "--out", &path("resumed.json")]);
    assert_eq!(code, Some(0), "{stderr}");
    let whole = untimed(read_json(&dir.join("whole.json")));
    let resumed = untimed(read_json(&dir.join("resumed.json")));
    assert_eq!(resumed, whole, "resumed after {rounds} rounds");
    dir
}

#[test]
fn a_run_killed_after_a_checkpoint_resumes_to_the_uninterrupted_report() {
    // MAMBA, 56 arms, 3 rounds (56, 18, 6 arms): the first checkpoint comes about a third into the run.
    let run = ["tune", "--preset", "paper-logreg-page", "--grad-evals", "6e6", "--threads", "1"];
    let dir = killed_and_resumed("checkpoint", &run, 3);
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();

    // A checkpoint is no config file, and a kind without rounds refuses --checkpoint.
    let (code, _, stderr) = tunelab(&["run", "--resume", &path("whole.json")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not a tunelab checkpoint"), "{stderr}");
    let (code, _, stderr) = tunelab(&["hoag", "--preset", "logreg", "--checkpoint", &path("hoag.checkpoint")]);
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("cannot be checkpointed"), "{stderr}");
}

#[test]
fn a_bandit_run_killed_after_a_checkpoint_resumes_to_the_uninterrupted_report() {
    // GP-UCB (two variants) and random search on Branin, 60 rounds x 8 repeats in 20 chunks of 3 rounds; GP-UCB's
    // work grows with the rounds, so the first checkpoint comes early in the run.
    let run = ["bandit", "--preset", "branin", "--threads", "1"];
    killed_and_resumed("checkpoint-bandit", &run, 20);
}
