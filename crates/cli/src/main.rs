//! The `tunelab` command line (native only). Each sub-command lives in its own file and only converts
//! arguments into library calls, and results into files / stdout. Errors go to stderr, exit code 1.

use clap::{Parser, Subcommand};

mod bandit;
mod fssd;
mod hoag;
mod ksd;
mod lr_schedule;
mod sample;
mod simulate;
mod tune;

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
    /// Run a tuner (MAMBA, grid, heuristic, random) from a JSON config or a preset.
    Tune(tune::ConfigArgs),
    /// Run the paper's comparison of tuners on one problem and print the table.
    Compare(tune::CompareArgs),
    /// Bandit tuners (GP-UCB, D-TTTS, ...) on problems with a known optimum: regret curves.
    Bandit(bandit::BanditArgs),
    /// HOAG hyperparameter optimisation with approximate gradients, against its baselines (presets: logreg,
    /// kernel-ridge).
    Hoag(hoag::HoagArgs),
    /// Learning-rate schedules tuned with a GP trace model, against constant and decaying rates (presets: digits,
    /// digits-logreg, noisy-quadratic).
    LrSchedule(lr_schedule::LrScheduleArgs),
}

fn run() -> i32 {
    let cli = Cli::parse();
    let res: tunelab::Result<()> = match cli.cmd {
        Command::Simulate(a) => simulate::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::Ksd(a) => ksd::run(&a),
        Command::Fssd(a) => fssd::run(&a),
        Command::Tune(a) => tune::tune(a),
        Command::Compare(a) => tune::compare_cmd(a),
        Command::Bandit(a) => bandit::run(a),
        Command::Hoag(a) => hoag::run(&a),
        Command::LrSchedule(a) => lr_schedule::run(&a),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn main() {
    std::process::exit(run());
}
