//! The `tunelab` command line (native only). The experiment commands (tune, compare, bandit, hoag,
//! lr-schedule, run) map their flags onto one experiment config and go through the one runner (`runner.rs`:
//! check once, load data once, progress, Ctrl-C, report envelope, the kind's table: `Experiment::table`, in
//! the kind's `text.rs`); the data, sampling and Stein commands live in their own files. Errors go to stderr with exit code 1; a run stopped by
//! Ctrl-C exits with 130.

use clap::{Parser, Subcommand};

mod experiments;
mod fssd;
mod ksd;
mod lesson;
mod runner;
mod sample;
mod schema;
mod simulate;

use runner::RunArgs;
use tunelab::experiments::Kind;

#[derive(Parser)]
#[command(name = "tunelab", version, about = "SG-MCMC samplers, Stein discrepancies and tuners")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a data set (the paper's logistic regression, or linear regression) to CSV.
    Simulate(simulate::SimulateArgs),
    /// Run one SG-MCMC sampler on a data set and write its samples (and scores) to CSV.
    Sample(sample::SampleArgs),
    /// Kernel Stein discrepancy (IMQ kernel) of samples given their scores.
    Ksd(ksd::KsdArgs),
    /// Finite-set Stein discrepancy of samples at given test locations.
    Fssd(fssd::FssdArgs),
    /// Run a tuner (MAMBA, grid, heuristic, random) from a JSON config or a preset (`tunelab presets`).
    Tune(experiments::TuneArgs),
    /// Run the paper's comparison of tuners on one problem and print the table.
    Compare(experiments::CompareArgs),
    /// Bandit tuners (GP-UCB, D-TTTS, ...) on problems with a known optimum: regret curves (presets:
    /// `tunelab presets`).
    Bandit(experiments::BanditArgs),
    /// HOAG hyperparameter optimisation with approximate gradients, against its baselines (presets:
    /// `tunelab presets`; --svmlight FILE for sparse text-like data).
    Hoag(experiments::HoagArgs),
    /// Learning-rate schedules tuned with a GP trace model, against constant and decaying rates (presets:
    /// `tunelab presets`).
    LrSchedule(RunArgs),
    /// SG-MCMC step size chosen by GP-UCB window by window (time-varying kernel), against fixed steps (presets:
    /// `tunelab presets`).
    StepSize(experiments::StepSizeArgs),
    /// A VAE trained by the thermodynamic variational objective while GP-UCB chooses its schedule, against the
    /// paper's baselines (presets: `tunelab presets`).
    Tvo(RunArgs),
    /// Run any experiment from a config with a `kind` (or --kind KIND --preset NAME).
    Run(experiments::RunCmdArgs),
    /// List the presets of every experiment kind (from the one registry of kinds), or print one preset's full
    /// JSON config with `--show KIND/NAME`.
    Presets(experiments::PresetsArgs),
    /// Lessons as files: `lesson check FILE` runs every step and its `expect` lines before class; `lesson show
    /// FILE` prints the checked lesson as JSON.
    Lesson(lesson::LessonArgs),
    /// Write the JSON Schemas of every config kind, the report envelope and the lesson front matter
    /// (`schemas/`), and docs/config.md rendered from them; `--check` only compares.
    Schema(schema::SchemaArgs),
}

fn run() -> i32 {
    let cli = Cli::parse();
    let done = |r: tunelab::Result<()>| r.map(|()| 0);
    let res: tunelab::Result<i32> = match cli.cmd {
        Command::Simulate(a) => done(simulate::run(&a)),
        Command::Sample(a) => done(sample::run(&a)),
        Command::Ksd(a) => done(ksd::run(&a)),
        Command::Fssd(a) => done(fssd::run(&a)),
        Command::Tune(a) => experiments::tune(&a),
        Command::Compare(a) => experiments::compare(&a),
        Command::Bandit(a) => experiments::bandit(&a),
        Command::Hoag(a) => experiments::hoag(&a),
        Command::LrSchedule(a) => experiments::plain(Kind::LrSchedule, &a),
        Command::StepSize(a) => experiments::step_size(&a),
        Command::Tvo(a) => experiments::plain(Kind::Tvo, &a),
        Command::Run(a) => experiments::run(&a),
        Command::Presets(a) => experiments::presets(&a),
        Command::Lesson(a) => lesson::run(&a),
        Command::Schema(a) => schema::run(&a),
    };
    res.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        1
    })
}

fn main() {
    // A panic anywhere (a worker thread included) prints its message; the process then exits non-zero.
    std::panic::set_hook(Box::new(|info| eprintln!("error: internal panic: {info}")));
    std::process::exit(run());
}
