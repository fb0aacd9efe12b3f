//! The `contention` binary: parse the command line, dispatch, report errors with their exit
//! status. Everything else is in the library.

use clap::CommandFactory;
use contention::cli::{Cli, Command};
use contention::commands;
use contention::provenance::Provenance;

fn main() {
    // `--version` says which build this is (the commit above all), as every output does.
    let p = Provenance::current();
    let version: &'static str = format!(
        "{} (commit {}, {}, {}, {})",
        p.version, p.git_commit, p.rustc, p.target, p.profile
    )
    .leak();
    let matches = Cli::command().version(version).get_matches();
    let cli = Cli::from_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match &cli.command {
        Command::Check(args) => commands::check::run(args),
        // `measure --graph` is `network --run` under another name.
        Command::Measure(args) => match args.as_network_run() {
            Some(network) => commands::network::run(&network),
            None => commands::measure::run(args),
        },
        Command::Survey(args) => commands::survey::run(args),
        Command::Predict(args) => commands::predict::run(args),
        Command::Calibrate(args) => commands::calibrate::run(args),
        Command::Evaluate(args) => commands::evaluate::run(args),
        Command::Plot(args) => commands::plot::run(args),
        Command::Network(args) => commands::network::run(args),
        Command::Overlap(args) => commands::overlap::run(args),
        Command::Advise(args) => commands::advise::run(args),
        Command::Sensitivity(args) => commands::sensitivity::run(args),
        Command::Completions(args) => commands::docs::completions(args),
        Command::Man(args) => commands::docs::man(args),
    };
    if let Err(e) = result {
        // The launched job printed its own error already.
        if !matches!(e, contention::Error::Reported(_)) {
            eprintln!("error: {}", contention::error::escape(&e.to_string()));
        }
        std::process::exit(e.exit_code());
    }
}
