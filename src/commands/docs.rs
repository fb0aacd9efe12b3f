//! `contention completions SHELL` and `contention man DIR`: the shell completions and man pages,
//! generated at run time from the same clap definition as `--help` (as ripgrep's `--generate`
//! does), so they never drift from it and the build writes nothing outside its `OUT_DIR`.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::error::{Error, IoAction, Result};
use crate::io::atomic;
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// The name the completions complete and the man pages are titled with.
const BIN: &str = "contention";

/// Writes the completion script for `args.shell` to standard output.
pub fn completions(args: &CompletionsArgs) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), BIN, &mut script);
    atomic::write(Path::new(atomic::STDOUT), &script)
}

/// Writes `contention.1` and one `contention-COMMAND.1` per subcommand into `args.dir`,
/// creating it. Every page is rendered and every target checked before the first is written,
/// and each is written atomically: a target that is not a regular file (a FIFO, a directory)
/// is refused before any page changes, and a failure leaves each page old or new, never half
/// of one.
pub fn man(args: &ManArgs) -> Result<()> {
    let dir = &args.dir;
    check_dir(dir)?;
    let pages = pages().map_err(|e| Error::io(IoAction::Write("the man pages for"), dir, e))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(IoAction::Create("the directory"), dir, e))?;
    for (name, _) in &pages {
        atomic::check_target(&dir.join(name))?;
    }
    for (name, page) in &pages {
        atomic::write(&dir.join(name), page)?;
    }
    Ok(())
}

/// Refuses a `DIR` that exists and is not a directory (a regular file, a device...): the pages
/// would otherwise fail one by one with a less clear error.
fn check_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(Error::Input(format!(
            "contention man: `{}` is {}, not a directory; name a directory to write the man \
             pages into (it is created if absent)",
            crate::error::shown_path(dir),
            atomic::describe(&meta.file_type())
        ))),
        _ => Ok(()),
    }
}

/// A subcommand's SYNOPSIS as typed (`full`: `contention measure`), each option with its
/// value's placeholder: clap_mangen's own read `contention-measure [--numa] [--cores]...`,
/// the page's name for the command and no values. Optional items in brackets, a repeated
/// positional with `...`.
fn synopsis(cmd: &clap::Command, full: &str) -> String {
    let mut out = full.to_string();
    let value = |a: &clap::Arg| match a.get_value_names() {
        Some(names) => names
            .iter()
            .map(|n| format!("<{n}>"))
            .collect::<Vec<_>>()
            .join(" "),
        None => format!("<{}>", a.get_id().as_str().to_uppercase()),
    };
    for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let repeated = matches!(a.get_action(), clap::ArgAction::Append)
            || a.get_num_args().is_some_and(|n| n.max_values() > 1);
        let item = if a.is_positional() {
            format!("{}{}", value(a), if repeated { "..." } else { "" })
        } else {
            let flag = match (a.get_long(), a.get_short()) {
                (Some(long), _) => format!("--{long}"),
                (None, Some(short)) => format!("-{short}"),
                (None, None) => continue,
            };
            if a.get_action().takes_values() {
                format!("{flag} {}", value(a))
            } else {
                flag
            }
        };
        if a.is_required_set() {
            out += &format!(" {item}");
        } else {
            out += &format!(" [{item}]");
        }
    }
    out
}

/// Every page as (file name, roff text).
fn pages() -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let cmd = Cli::command();
    let mut pages = Vec::new();
    let mut page = Vec::new();
    // No `contention-help(1)`: the pages are installed one per subcommand, and clap's `help`
    // subcommand has none.
    clap_mangen::Man::new(cmd.clone().disable_help_subcommand(true)).render(&mut page)?;
    pages.push((PathBuf::from(format!("{BIN}.1")), page));
    for sub in cmd.get_subcommands() {
        let name = format!("{BIN}-{}", sub.get_name());
        let mut page = Vec::new();
        // clap names a command with a `&'static str`; the dozen short names leaked here live
        // as long as this one-shot command anyway.
        let title: &'static str = name.clone().leak();
        let usage = synopsis(sub, &format!("{BIN} {}", sub.get_name()));
        clap_mangen::Man::new(sub.clone().name(title).override_usage(usage)).render(&mut page)?;
        pages.push((PathBuf::from(format!("{name}.1")), page));
    }
    Ok(pages)
}
