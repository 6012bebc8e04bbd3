//! The one runner of every experiment kind (`tunelab tune | compare | bandit | hoag | lr-schedule | run`): load
//! the config (`--config FILE` or `--preset NAME`), apply the overrides, check it once, load the data it asks
//! for once, run it in a rayon pool with a progress bar driven by the shared [`Event`]s, print the kind's table
//! and write the report envelope.
//!
//! Ctrl-C sets the stop flag: the run returns `status: "stopped"`, the partial report is written and the
//! process exits with code 130. The stopped report's `result` keeps what the run reached
//! ([`tunelab::experiments::partial`]: every arm scored so far, the best so far, the rounds not reached). If the
//! run has not returned 0.8 s after the flag was set (a kind that checks it rarely), a watchdog writes the
//! partial report from the events seen so far and exits 130 itself. A second Ctrl-C within a second of the
//! first is ignored (`timeout -s INT` signals the process and its group: two SIGINTs milliseconds apart); a
//! later one exits 130 at once.

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tunelab::experiments::executor::Checkpoint;
use tunelab::experiments::text::count;
use tunelab::experiments::{self, Compute, Detail, Event, ExperimentConfig, Inputs, Kind, Report, Stage, Status};
use tunelab::{Error, Result};

/// Exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_STOPPED: i32 = 130;

/// How long a stopped run may take to return before the watchdog writes the partial report and exits.
const GRACE: Duration = Duration::from_millis(800);

/// A second Ctrl-C this soon after the first is the same request (a signal to the process and its group).
const SAME_CTRL_C: Duration = Duration::from_secs(1);

/// The options every experiment command shares.
#[derive(Args, Debug, Clone, Default)]
pub struct RunArgs {
    /// JSON config (the same document the page uses; the command's own kind may omit `kind`).
    #[arg(long, conflicts_with = "preset")]
    pub config: Option<String>,
    /// A built-in preset (`tunelab presets` lists them).
    #[arg(long)]
    pub preset: Option<String>,
    /// Run on this CSV file instead of the configured data.
    #[arg(long)]
    pub data: Option<String>,
    /// Label column of --data (default y).
    #[arg(long)]
    pub label: Option<String>,
    /// Standardise the features of --data.
    #[arg(long, requires = "data")]
    pub standardize: bool,
    /// Override the seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Threads in the pool (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the JSON report (the envelope: kind, status, config, compute, result) here.
    #[arg(long)]
    pub out: Option<String>,
    /// Show progress on stderr: a bar on a terminal; otherwise (a log file, a pipe) plain lines with done /
    /// total, percent, elapsed time and ETA, one each time the run passes another tenth and after 5 s without
    /// one, and one at the end.
    #[arg(long)]
    pub progress: bool,
    /// After every round of a tune or compare run, write the report so far here (`"status": "running"`, the
    /// `result` it reached: every arm scored so far, the best so far, the rounds not reached), replaced
    /// atomically: a run killed by SIGKILL, the out-of-memory killer or a closed laptop keeps its rounds.
    #[arg(long, value_name = "FILE")]
    pub keep: Option<String>,
    /// After every round of a tune, compare, bandit or step-size run, write the run's state here (the config, the rounds
    /// done, every chain, store, RNG position and score so far), replaced atomically (a temporary file renamed
    /// over it): `--resume FILE` continues the run from there.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<String>,
    /// Continue the run a `--checkpoint` file saved, with the config saved in it: the report is the one the run
    /// would have written without the interruption, bit for bit (timings aside). Give `--checkpoint` again to
    /// keep saving.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "preset", "data", "seed"])]
    pub resume: Option<String>,
}

/// Loads the config of a run: `--config FILE` (a document of `kind`, which may then omit `kind`) or
/// `--preset NAME` of `kind`.
pub(crate) fn load(kind: Option<Kind>, args: &RunArgs) -> Result<ExperimentConfig> {
    if let Some(path) = &args.resume {
        let cfg = read_checkpoint(path)?.experiment_config().map_err(|e| in_file(path, e))?;
        if let Some(k) = kind.filter(|k| *k != cfg.kind()) {
            return Err(Error::config(format!(
                "{path}: this command runs '{}' experiments, the checkpoint is of a '{}' run",
                k.name(),
                cfg.kind().name()
            )));
        }
        return Ok(cfg);
    }
    match (&args.config, &args.preset, kind) {
        (Some(path), _, _) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("cannot read {path}: {e}")))?;
            ExperimentConfig::from_json(&text, kind).map_err(|e| in_file(path, e))
        }
        (None, Some(name), Some(kind)) => ExperimentConfig::preset(kind, name),
        (None, Some(_), None) => Err(Error::config("--preset needs --kind (tunelab presets lists them)")),
        (None, None, Some(kind)) => Err(Error::config(format!(
            "give --config FILE.json or --preset NAME ({} presets: {})",
            kind.name(),
            ExperimentConfig::preset_names(kind).join(", ")
        ))),
        (None, None, None) => Err(Error::config("give --config FILE.json (or --kind KIND --preset NAME)")),
    }
}

/// A config error of the file `path`, with the file's name in front.
fn in_file(path: &str, e: Error) -> Error {
    match e {
        Error::Config(m) => Error::Config(format!("{path}: {m}")),
        e => e,
    }
}

/// Runs one experiment from the shared options; `overrides` maps the command's own flags onto the config
/// before it is checked. Returns the exit code (0, or [`EXIT_STOPPED`]).
pub fn execute(
    kind: Option<Kind>,
    args: &RunArgs,
    overrides: impl FnOnce(&mut ExperimentConfig) -> Result<()>,
) -> Result<i32> {
    execute_with(kind, args, overrides, |_, _| Ok(()), |_, _| Ok(()))
}

/// [`execute`] with two hooks of a command: `add_inputs` adds run inputs besides the data file (a saved
/// reference) once the config is checked; `complete` sees a complete report after it was written.
pub fn execute_with(
    kind: Option<Kind>,
    args: &RunArgs,
    overrides: impl FnOnce(&mut ExperimentConfig) -> Result<()>,
    add_inputs: impl FnOnce(&experiments::Checked, &mut Inputs) -> Result<()>,
    complete: impl FnOnce(&experiments::Checked, &Report) -> Result<()>,
) -> Result<i32> {
    let mut cfg = load(kind, args)?;
    if let Some(path) = &args.data {
        cfg.use_csv(path, args.label.as_deref().unwrap_or("y"), args.standardize)?;
    }
    if let Some(seed) = args.seed {
        cfg.set_seed(seed);
    }
    overrides(&mut cfg)?;
    // A value error names its field; a config file's name goes in front, as for the parse errors.
    let checked = cfg.check().map_err(|e| match &args.config {
        Some(path) => in_file(path, e),
        None => e,
    })?;
    let pool = pool(args.threads)?;
    let watch = Watch::install(Context {
        config: checked.config(),
        kind: checked.kind(),
        unit: checked.progress_unit(),
        threads: pool.current_num_threads(),
        out: args.out.clone(),
        keep: args.keep.clone(),
        start: Instant::now(),
        bar: (args.progress && std::io::stderr().is_terminal()).then(|| new_bar(checked.kind())),
        plain: args.progress && !std::io::stderr().is_terminal(),
    });
    let mut inputs = load_data(&checked)?;
    add_inputs(&checked, &mut inputs)?;
    if let Some(w) = experiments::advice::data_warning(&checked.config(), &inputs) {
        eprintln!("warning: {w}");
    }
    let resume = args.resume.as_deref().map(read_checkpoint).transpose()?;
    let mut save = args.checkpoint.as_deref().map(|path| move |c: &Checkpoint| write_checkpoint(path, c));
    let mut observer = |e: &Event| watch.see(e);
    let result = pool.install(|| {
        checked.run_resumable(
            inputs,
            &mut observer,
            &watch.stop,
            resume.as_ref(),
            save.as_mut().map(|f| f as &mut dyn FnMut(&Checkpoint) -> Result<()>),
        )
    });
    watch.finish();
    let report = match result {
        Ok(r) => r,
        // A failure after Ctrl-C (a kind that reports the stop as an error) is a stop.
        Err(_) if watch.stop.load(Ordering::SeqCst) => watch.partial(),
        Err(e) => return Err(e),
    };
    if let Some(out) = &args.out {
        write_report(out, &report)?;
    }
    if report.status == Status::Stopped {
        eprintln!("{}", stopped_message(&report, args.out.as_deref()));
        if let Some(path) = args.checkpoint.as_deref().filter(|p| std::path::Path::new(p).exists()) {
            eprintln!("continue it with: tunelab run --resume {path} --checkpoint {path}");
        }
        return Ok(EXIT_STOPPED);
    }
    if let Some(result) = &report.result {
        print!("{}", result.table(&report.config));
    }
    for w in experiments::advice::result_warnings(&report) {
        eprintln!("warning: {w}");
    }
    if let Some(out) = &args.out {
        eprintln!("report written to {out}");
    }
    complete(&checked, &report)?;
    Ok(0)
}

/// Reads the data file the checked config asks for, once.
fn load_data(checked: &experiments::Checked) -> Result<Inputs> {
    match checked.data_request() {
        Some(req) if req.path.is_none() => {
            Err(Error::config("the config asks for an uploaded data set: give --data FILE.csv --label COL"))
        }
        Some(req) => experiments::read_requested_inputs(&req),
        None => Ok(Inputs::default()),
    }
}

pub(crate) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(Error::config("--threads must be at least 1"));
        }
        b = b.num_threads(t);
    }
    b.build().map_err(|e| Error::config(format!("thread pool: {e}")))
}

/// Writes a report envelope; a stopped one with the `result` it reached
/// ([`tunelab::experiments::partial::report_value`]).
pub fn write_report(path: &str, report: &Report) -> Result<()> {
    if report.status == Status::Stopped {
        let v =
            experiments::partial::report_value(report).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))?;
        return write_json(path, &v);
    }
    write_json(path, report)
}

/// Reads a checkpoint file (`--resume`).
fn read_checkpoint(path: &str) -> Result<Checkpoint> {
    Checkpoint::read(path)
}

/// Writes a checkpoint atomically (`--checkpoint`; see [`Checkpoint::write`]).
fn write_checkpoint(path: &str, c: &Checkpoint) -> Result<()> {
    c.write(path)
}

pub fn write_json<T: serde::Serialize>(path: &str, value: &T) -> Result<()> {
    // Streamed to the file (the same bytes as `to_string_pretty`): a pmf comparison's report holds the chosen
    // samples of five tuners at d = 52,500, several hundred MB as one string.
    use std::io::Write;
    let io = |e: std::io::Error| Error::Io(format!("cannot write {path}: {e}"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    serde_json::to_writer_pretty(&mut w, value).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))?;
    w.flush().map_err(io)
}

/// `stopped by Ctrl-C after 3.1 s (0/5 tuners; reached: reference sampler 12800/60000 MALA iterations)`: the
/// run's progress and the last progress detail it reached, where that says more.
fn stopped_message(report: &Report, out: Option<&str>) -> String {
    let c = &report.compute;
    let written = match out {
        Some(path) => format!("; partial report written to {path}"),
        None => String::new(),
    };
    let reached = match report.reached.last().and_then(Detail::message) {
        Some(m) => format!("; reached: {m}"),
        None => String::new(),
    };
    let best = experiments::partial::stopped_result(report)
        .and_then(|r| {
            let b = if r["best"].is_object() {
                r["best"].clone()
            } else {
                r["entries"].as_array()?.last()?["best"].clone()
            };
            let arm = b["arm"].as_u64()?;
            Some(format!(
                "; best so far: arm {arm} (h = {}, batch {}) with score {} in round {}",
                b["step"].as_f64().map_or("?".into(), |h| format!("{h:.3e}")),
                b["batch"],
                b["score"].as_f64().map_or("?".into(), |s| format!("{s:.4}")),
                b["round"]
            ))
        })
        .unwrap_or_default();
    format!(
        "stopped by Ctrl-C after {:.1} s ({}/{} {}{reached}{best}){written}",
        c.wall_seconds,
        count(c.done),
        count(c.total),
        c.unit
    )
}

fn new_bar(kind: Kind) -> ProgressBar {
    let b = ProgressBar::new(1);
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {msg} ({elapsed})").expect("static template");
    b.set_style(style.progress_chars("=> "));
    b.set_prefix(kind.name());
    b
}

/// What the watchdog needs to write a partial report by itself.
struct Context {
    config: ExperimentConfig,
    kind: Kind,
    unit: &'static str,
    threads: usize,
    out: Option<String>,
    /// `--keep FILE`: the report so far after every round.
    keep: Option<String>,
    start: Instant,
    bar: Option<ProgressBar>,
    /// `--progress` without a terminal: plain lines ([`Watch::plain_line`]).
    plain: bool,
}

#[derive(PartialEq)]
enum Phase {
    Running,
    /// The run returned: the main thread writes the report.
    Returned,
    /// The watchdog took over and is exiting.
    Exiting,
}

/// The progress seen so far (for the bar and for a partial report).
struct Seen {
    phase: Phase,
    done: f64,
    total: f64,
    reached: Vec<Detail>,
    message: String,
    /// Plain progress lines: the tenth of the total the last line showed, and when it was printed.
    line_tenth: i64,
    line_at: Option<Instant>,
    /// The phase with a progress of its own that the last event belongs to ([`Detail::stage`]).
    stage: Option<Stage>,
    /// When that phase began (its elapsed time and ETA in plain lines).
    stage_start: Option<Instant>,
}

/// Plain lines are printed each time the run passes another tenth of its total, and after this long without one.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The observer, the stop flag and the Ctrl-C watchdog of one run.
struct Watch {
    ctx: Context,
    stop: AtomicBool,
    seen: Mutex<Seen>,
    /// When the first Ctrl-C arrived.
    first_ctrl_c: std::sync::OnceLock<Instant>,
}

impl Watch {
    /// Installs the Ctrl-C handler: the first sets the stop flag and starts the watchdog, a second exits.
    fn install(ctx: Context) -> Arc<Watch> {
        let seen = Seen {
            phase: Phase::Running,
            done: 0.0,
            total: 0.0,
            reached: Vec::new(),
            message: String::new(),
            line_tenth: -1,
            line_at: None,
            stage: None,
            stage_start: None,
        };
        let watch = Arc::new(Watch {
            ctx,
            stop: AtomicBool::new(false),
            seen: Mutex::new(seen),
            first_ctrl_c: std::sync::OnceLock::new(),
        });
        let w = watch.clone();
        let installed = ctrlc::set_handler(move || {
            let first = *w.first_ctrl_c.get_or_init(Instant::now);
            if w.stop.swap(true, Ordering::SeqCst) {
                if first.elapsed() < SAME_CTRL_C {
                    // the same request again (a signal to the process and its group): the report is on its way
                    return;
                }
                eprintln!("second Ctrl-C: exiting without waiting for the report");
                std::process::exit(EXIT_STOPPED);
            }
            let w = w.clone();
            std::thread::spawn(move || {
                std::thread::sleep(GRACE);
                w.give_up();
            });
        });
        if let Err(e) = installed {
            eprintln!("warning: cannot handle Ctrl-C ({e}); it will end the run without a report");
        }
        watch
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn see(&self, e: &Event) {
        let mut s = self.lock();
        if let Event::Progress { done, total, detail } = e {
            (s.done, s.total) = (*done, *total);
            let stage = detail.stage();
            if stage.as_ref().map(|t| t.what) != s.stage.as_ref().map(|t| t.what) {
                // a new phase: its own tenths and time, from its start
                s.line_tenth = -1;
                s.stage_start = Some(Instant::now());
            }
            match &stage {
                Some(t) => s.message = t.label.clone(),
                None => {
                    if let Some(m) = detail.message() {
                        s.message = m;
                    }
                }
            }
            s.stage = stage;
            s.reached.push(detail.clone());
            if let Some(path) = &self.ctx.keep {
                if detail.ends_round() {
                    if let Err(e) = self.write_kept(path, &s) {
                        eprintln!("warning: --keep: {e}");
                    }
                }
            }
        }
        // The numbers shown: the phase's own while it runs, else the run's.
        let (done, total, unit) = match &s.stage {
            Some(t) => (t.done, t.total, t.unit),
            None => (s.done, s.total, self.ctx.unit),
        };
        if let Some(b) = &self.ctx.bar {
            b.set_length((total * 100.0).round().max(1.0) as u64);
            b.set_position((done * 100.0).round() as u64);
            let sep = if s.message.is_empty() { "" } else { "  " };
            b.set_message(format!("{}/{} {}{sep}{}", count(done), count(total), unit, s.message));
        }
        if self.ctx.plain && matches!(e, Event::Progress { .. }) {
            let tenth = if total > 0.0 { (10.0 * done / total).floor() as i64 } else { 0 };
            let due = s.line_at.is_none_or(|t| t.elapsed() >= PLAIN_EVERY);
            if tenth > s.line_tenth || due {
                s.line_tenth = tenth;
                s.line_at = Some(Instant::now());
                eprintln!("{}", self.plain_line(&s));
            }
        }
    }

    /// `tunelab tune: 4/12 evaluations (33%), 2 s, ETA 4 s  round 2: 3 arms` (no percent or ETA while the
    /// total is unknown).
    /// In a phase with its own progress (a comparison's reference), its numbers, its elapsed time and ETA:
    /// `tunelab compare: 12800/60000 MALA iterations (21%), 9 s, ETA 33 s  reference sampler`.
    fn plain_line(&self, s: &Seen) -> String {
        let mut elapsed = self.ctx.start.elapsed().as_secs_f64();
        let (done, total, unit) = match &s.stage {
            Some(t) => (t.done, t.total, t.unit),
            None => (s.done, s.total, self.ctx.unit),
        };
        if let (Some(_), Some(since)) = (&s.stage, s.stage_start) {
            elapsed = since.elapsed().as_secs_f64();
        }
        let mut line = format!("tunelab {}: {}/{} {unit}", self.ctx.kind.name(), count(done), count(total));
        if total > 0.0 {
            line += &format!(" ({:.0}%), {elapsed:.0} s", 100.0 * done / total);
            if done > 0.0 {
                line += &format!(", ETA {:.0} s", elapsed * (total - done) / done);
            }
        } else {
            line += &format!(", {elapsed:.0} s");
        }
        if !s.message.is_empty() {
            line += "  ";
            line += &s.message;
        }
        line
    }

    /// The run returned: from now on the main thread owns the report (waits if the watchdog took over).
    fn finish(&self) {
        let mut s = self.lock();
        if s.phase == Phase::Exiting {
            drop(s);
            loop {
                std::thread::park();
            }
        }
        s.phase = Phase::Returned;
        if let Some(b) = &self.ctx.bar {
            b.finish_and_clear();
        }
        if self.ctx.plain {
            let c = &self.ctx;
            let (done, total) = (count(s.done), count(s.total));
            eprintln!(
                "tunelab {}: run returned after {:.1} s at {done}/{total} {}",
                c.kind.name(),
                c.start.elapsed().as_secs_f64(),
                c.unit
            );
        }
    }

    /// A stopped report from the events seen so far.
    fn partial_of(&self, s: &Seen) -> Report {
        let c = &self.ctx;
        Report {
            format: tunelab::report_file::REPORT_FORMAT,
            kind: c.kind,
            status: Status::Stopped,
            config: c.config.clone(),
            compute: Compute {
                wall_seconds: c.start.elapsed().as_secs_f64(),
                threads: c.threads,
                done: s.done,
                total: s.total,
                unit: c.unit,
            },
            result: None,
            reached: s.reached.clone(),
        }
    }

    /// `--keep`: the report so far, `"status": "running"`, written to a temporary file and renamed over `path`.
    fn write_kept(&self, path: &str, s: &Seen) -> Result<()> {
        let mut v = experiments::partial::report_value(&self.partial_of(s))
            .map_err(|e| Error::Io(format!("cannot write {path}: {e}")))?;
        v["status"] = serde_json::json!("running");
        let tmp = format!("{path}.tmp");
        write_json(&tmp, &v)?;
        std::fs::rename(&tmp, path).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))
    }

    fn partial(&self) -> Report {
        self.partial_of(&self.lock())
    }

    /// The watchdog: the run did not return in time after Ctrl-C; write what it reached and exit.
    fn give_up(&self) {
        let mut s = self.lock();
        if s.phase != Phase::Running {
            return;
        }
        s.phase = Phase::Exiting;
        if let Some(b) = &self.ctx.bar {
            b.abandon();
        }
        eprintln!(
            "the run did not stop within {:.1} s of Ctrl-C: reporting the progress it reached",
            GRACE.as_secs_f64()
        );
        let report = self.partial_of(&s);
        let mut out = self.ctx.out.as_deref();
        if let Some(path) = out {
            if let Err(e) = write_report(path, &report) {
                eprintln!("error: {e}");
                out = None;
            }
        }
        eprintln!("{}", stopped_message(&report, out));
        std::process::exit(EXIT_STOPPED);
    }
}
