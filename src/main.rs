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
    let matches = Cli::command()
        .version(version)
        .try_get_matches()
        .unwrap_or_else(|e| usage_error(e));
    let cli = Cli::from_matches(&matches).unwrap_or_else(|e| usage_error(e));
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
        Command::Show(args) => commands::show::run(args),
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

/// Exits on clap's error (or `--help`, `--version`) as `Error::exit` does, except that clap
/// quotes a refused value as typed: when the command line holds a control character (ESC,
/// or the C1 CSI U+009B that some terminals obey alone) the message goes out as plain text,
/// escaped, so that an argument cannot drive the user's terminal.
fn usage_error(e: clap::Error) -> ! {
    let hostile = std::env::args_os().any(|a| {
        let a = a.to_string_lossy();
        contention::error::escape(&a) != a
    });
    if !e.use_stderr() || !hostile {
        e.exit()
    }
    eprint!("{}", contention::error::escape(&e.render().to_string()));
    std::process::exit(e.exit_code())
}
