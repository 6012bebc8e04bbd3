//! Command-line interface (native only). Each sub-command lives in its own file and only converts
//! arguments into library calls, and results into files / stdout. Errors go to stderr, exit code 1.

use clap::{Parser, Subcommand};

mod simulate;
mod hoag;
mod lr_schedule;

#[derive(Parser)]
#[command(name = "tunelab", version, about = "SG-MCMC samplers, Stein discrepancies and tuners")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a data set (the paper's logistic regression, or linear regression) to a CSV file.
    Simulate(simulate::SimulateArgs),
    /// HOAG (Pedregosa 2016) against grid/random search, GP-BO and iterative differentiation.
    Hoag(hoag::HoagArgs),
    /// Learning-rate schedules: constant, exponential decays and the dynamic GP trace-model tuner.
    LrSchedule(lr_schedule::LrScheduleArgs),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    let res: tunelab::Result<()> = match cli.cmd {
        Command::Simulate(a) => simulate::run(&a),
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
