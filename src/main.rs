//! The `contention` binary: parse the command line, dispatch, report errors with their exit
//! status. Everything else is in the library.

use clap::Parser;
use contention::cli::{Cli, Command};
use contention::commands;

fn main() {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Predict(args) => commands::predict::run(args),
        Command::Plot(args) => commands::plot::run(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
