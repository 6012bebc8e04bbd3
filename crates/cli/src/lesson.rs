//! `tunelab lesson check FILE`: parses a lesson file (src/lesson), checks every step's config with the core, runs
//! each step natively (a step without a patch reuses the run of the step before it: same config, same report),
//! prints each step's time and each `expect` result, and exits 1 on any failure. `tunelab lesson show FILE`
//! prints the checked lesson as JSON (each step's config with every default filled in).

use clap::{Args, Subcommand};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tunelab::experiments::{read_requested_inputs, Report};
use tunelab::{Error, Result};

#[derive(Args, Debug)]
pub struct LessonArgs {
    #[command(subcommand)]
    cmd: LessonCmd,
}

#[derive(Subcommand, Debug)]
enum LessonCmd {
    /// Check a lesson before class: parse it, check every step's config, run every step natively, print each
    /// step's time and each `expect` result; exits non-zero on any failure.
    Check {
        /// The lesson file (Markdown, docs/write-a-lesson.md).
        file: String,
        /// Threads in the pool (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the checked lesson as JSON (each step's config with every default filled in); runs nothing.
    Show { file: String },
}

fn read(file: &str) -> Result<String> {
    let len = std::fs::metadata(file).map_err(|e| Error::Io(format!("cannot read {file}: {e}")))?.len();
    if len > tunelab::lesson::MAX_BYTES as u64 {
        return Err(Error::config(format!(
            "{file}:1: the file is {:.1} MB; a lesson may be at most {} MB",
            len as f64 / 1e6,
            tunelab::lesson::MAX_BYTES >> 20
        )));
    }
    std::fs::read_to_string(file).map_err(|e| Error::Io(format!("cannot read {file}: {e}")))
}

pub fn run(args: &LessonArgs) -> Result<i32> {
    match &args.cmd {
        LessonCmd::Show { file } => {
            let lesson = match tunelab::lesson::load(file, &read(file)?) {
                Ok(l) => l,
                Err(e) => return Ok(refused(&e)),
            };
            println!("{}", serde_json::to_string_pretty(&lesson).map_err(|e| Error::config(e.to_string()))?);
            Ok(0)
        }
        LessonCmd::Check { file, threads } => check(file, *threads),
    }
}

/// A lesson the parser refused: its one `file:line: message` on stderr, exit code 1.
fn refused(e: &tunelab::lesson::LessonError) -> i32 {
    eprintln!("error: {e}");
    1
}

fn check(file: &str, threads: Option<usize>) -> Result<i32> {
    let lesson = match tunelab::lesson::load(file, &read(file)?) {
        Ok(l) => l,
        Err(e) => return Ok(refused(&e)),
    };
    let pool = crate::runner::pool(threads)?;
    let n = lesson.lesson.steps.len();
    println!("{file}: \"{}\" ({}, {n} steps) parsed and checked", lesson.lesson.title, lesson.lesson.kind.name());
    let stop = AtomicBool::new(false);
    let (mut failed, mut passed, mut total) = (0usize, 0usize, 0.0f64);
    let mut last: Option<(usize, serde_json::Value)> = None;
    for (i, step) in lesson.lesson.steps.iter().enumerate() {
        let config = &lesson.configs[i];
        let label = format!("step {} \"{}\" (line {})", i + 1, step.title, step.line);
        let report = match &last {
            Some((from, r)) if i > 0 && lesson.configs[i - 1] == *config => {
                println!("{label}: the config of step {} (its run is reused)", from + 1);
                r.clone()
            }
            _ => {
                let t0 = Instant::now();
                let result: Result<Report> = (|| {
                    let checked = config.clone().check()?;
                    let inputs = match checked.data_request() {
                        Some(req) => read_requested_inputs(&req)?,
                        None => Default::default(),
                    };
                    pool.install(|| checked.run(inputs, &mut |_| {}, &stop))
                })();
                let secs = t0.elapsed().as_secs_f64();
                total += secs;
                match result {
                    Ok(r) => {
                        println!("{label}: ran in {secs:.2} s");
                        let v = serde_json::to_value(&r).map_err(|e| Error::config(e.to_string()))?;
                        last = Some((i, v.clone()));
                        v
                    }
                    Err(e) => {
                        println!("{label}: FAILED after {secs:.2} s: {file}:{}: {e}", step.patch_line.max(step.line));
                        failed += 1;
                        last = None;
                        continue;
                    }
                }
            }
        };
        for e in &step.expect {
            let o = e.eval(&report);
            if o.pass {
                passed += 1;
                println!("  expect {} (line {}): pass (value {})", o.text, o.line, o.actual);
            } else {
                failed += 1;
                println!("  expect {} (line {}): FAIL: {}", o.text, o.line, o.message);
            }
        }
    }
    println!(
        "{}: {n} steps, {:.2} s of runs, {passed} expect lines passed, {failed} failures",
        if failed == 0 { "ok" } else { "FAILED" },
        total
    );
    Ok(if failed == 0 { 0 } else { 1 })
}
