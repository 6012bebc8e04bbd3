//! Command-line interface (native only). Each sub-command lives in its own file and only converts
//! arguments into library calls, and results into files / stdout. Errors go to stderr, exit code 1.

use clap::{Parser, Subcommand};

mod tune;

#[derive(Parser)]
#[command(name = "tunelab", version, about = "SG-MCMC samplers, Stein discrepancies and tuners")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a tuner (MAMBA, grid, heuristic, random) from a JSON config or a preset.
    Tune(tune::ConfigArgs),
    /// Run the paper's comparison of tuners on one problem and print the table.
    Compare(tune::CompareArgs),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    let res: tunelab::Result<()> = match cli.cmd {
        Command::Tune(a) => tune::tune(a),
        Command::Compare(a) => tune::compare_cmd(a),
    };
    match res {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
