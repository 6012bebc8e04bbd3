//! Command-line interface (native only). Each sub-command lives in its own file and only converts
//! arguments into library calls, and results into files / stdout. Errors go to stderr, exit code 1.

use clap::{Parser, Subcommand};

mod bandit;
mod sample;
mod fssd;
mod ksd;
mod simulate;

#[derive(Parser)]
#[command(name = "tunelab", version, about = "SG-MCMC samplers, Stein discrepancies and tuners")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bandit tuners (GP-UCB, D-TTTS, Hyperband, ...) on problems with exact regret.
    Bandit(bandit::BanditArgs),
    /// Simulate a data set (the paper's logistic regression, or linear regression) to a CSV file.
    Simulate(simulate::SimulateArgs),
    /// Run one SG-MCMC chain on a model and write its kept samples (and optionally full-data scores).
    Sample(sample::SampleArgs),
    /// Kernel Stein discrepancy (IMQ kernel) of a sample file and its scores.
    Ksd(ksd::KsdArgs),
    /// Squared finite-set Stein discrepancy at given test locations.
    Fssd(fssd::FssdArgs),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    let res: tunelab::Result<()> = match cli.cmd {
        Command::Bandit(a) => bandit::run(a),
        Command::Simulate(a) => simulate::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::Ksd(a) => ksd::run(&a),
        Command::Fssd(a) => fssd::run(&a),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
