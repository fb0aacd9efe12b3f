//! What `measure`, `network --run` and `survey` do alike around their MPI job: tell whether
//! this process is a rank of the job or the shell command that starts it, plan the
//! launcher's line that starts this very command again, once per rank, start that line with
//! the ranks' progress mode in their environment and the stop signals forwarded, and wait
//! for the job's exit status.
//!
//! Each command keeps its own ranks' work and its own reading of the job's exit status (a
//! measurement saves points, a survey records rounds); what they share is here, once.

use crate::error::{Error, Result};
use crate::mpi::flavour::Choice;
use crate::mpi::launch::{self, JobLine, Launcher, Running, Shape};
use crate::mpi::progress;
use crate::mpi::signals;
#[cfg(feature = "mpi")]
use crate::mpi::world;
use std::ffi::OsString;

/// Whether this process runs under a launcher, as a rank of the job, by its environment.
pub fn in_job() -> bool {
    launch::under_launcher(|k| std::env::var(k).ok())
}

#[cfg(feature = "mpi")]
/// The launcher chosen for `shape` and its line that starts this binary again with its own
/// arguments (with `dry_run`, less the dry run's own options: the line it shows is the one a
/// real run would start).
pub(crate) fn plan_own(
    launcher: Launcher,
    shape: &Shape<'_>,
    dry_run: bool,
) -> Result<(Choice, JobLine)> {
    let (exe, argv) = launch::own_command()?;
    let argv = if dry_run { without_dry_run(argv) } else { argv };
    launch::plan_launch(launcher, &world::library(), shape, &exe, &argv)
}

#[cfg(feature = "mpi")]
/// The job of a later run of `measure --runs` (the second and after): this command with
/// `--resume` and without `--force`, so that rank 0 continues the trace the first launch
/// started with the next run ([`crate::runs::current`]) instead of overwriting it.
pub(crate) fn plan_next_run(launcher: Launcher, shape: &Shape<'_>) -> Result<(Choice, JobLine)> {
    let (exe, argv) = launch::own_command()?;
    launch::plan_launch(launcher, &world::library(), shape, &exe, &as_resume(argv))
}

/// `argv` resuming its trace: `--force` dropped, `--resume` added unless there.
fn as_resume(argv: Vec<OsString>) -> Vec<OsString> {
    let mut out: Vec<OsString> = argv.into_iter().filter(|a| a != "--force").collect();
    if !out.iter().any(|a| a == "--resume") {
        out.push("--resume".into());
    }
    out
}

/// `argv` without the options of a dry run: `--dry-run`, and `--topology FILE` (or
/// `--topology=FILE`), which plans for another machine and which the command line accepts
/// only with `--dry-run`. What is left is the job the dry run plans, and runs as printed.
pub(crate) fn without_dry_run(argv: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(argv.len());
    let mut args = argv.into_iter();
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--dry-run") => {}
            Some("--topology") => {
                args.next();
            }
            Some(s) if s.starts_with("--topology=") => {}
            _ => out.push(a),
        }
    }
    out
}

/// What a stop signal (Ctrl-C, SIGTERM, SIGHUP) to the launching process does to its job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signals {
    /// Forwarded to the job (its own process group, see [`signals`]); this process waits
    /// for the job to save and exit.
    Forward,
    /// Left at its default: it ends this process, and the job with it (the launcher dies
    /// with its parent).
    Default,
}

/// How a job ended: its exit status as the launcher gave it (128 + signal when killed),
/// and whether a stop signal reached this process meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    pub code: i32,
    pub(crate) interrupted: bool,
}

/// Starts `line` without waiting, its ranks told to show their progress as `progress` says.
///
/// The job gets its own process group, dies with this process (`PR_SET_PDEATHSIG`) and has
/// its standard input closed (see [`launch::spawn`]); with [`Signals::Forward`] the handler
/// that forwards stop signals to it is installed first.
pub(crate) fn start(line: &JobLine, progress: progress::Mode, on_stop: Signals) -> Result<Running> {
    if on_stop == Signals::Forward {
        let _ = signals::install();
    }
    launch::spawn(line, progress.name())
}

/// Starts `line`, its ranks told to show their progress as `progress` says, and waits for
/// the job to end. The job runs in its own process group and dies with this process; with
/// [`Signals::Forward`] stop signals reach it and this process waits for it to save and exit.
pub fn run(line: &JobLine, progress: progress::Mode, on_stop: Signals) -> Result<Ended> {
    let mut job = start(line, progress, on_stop)?;
    let status = job.child.wait().map_err(cannot_wait)?;
    Ok(ended(status))
}

/// Whether `job` has ended, without waiting: `contention survey` watches its rounds
/// meanwhile.
pub(crate) fn try_wait(job: &mut Running) -> Result<Option<Ended>> {
    Ok(job.child.try_wait().map_err(cannot_wait)?.map(ended))
}

fn ended(status: std::process::ExitStatus) -> Ended {
    Ended {
        code: launch::exit_code(status),
        interrupted: signals::interrupted(),
    }
}

fn cannot_wait(e: std::io::Error) -> Error {
    Error::Failed(format!("cannot wait for the MPI job: {e}"))
}

#[cfg(test)]
mod tests {
    use crate::mpi::driver::*;

    #[test]
    fn a_later_run_resumes_the_trace_the_first_one_started() {
        let argv = |words: &[&str]| -> Vec<OsString> { words.iter().map(OsString::from).collect() };
        assert_eq!(
            as_resume(argv(&["measure", "--runs", "3", "--force", "-o", "t.json"])),
            argv(&["measure", "--runs", "3", "-o", "t.json", "--resume"])
        );
        assert_eq!(
            as_resume(argv(&["measure", "--resume", "--runs", "2"])),
            argv(&["measure", "--resume", "--runs", "2"])
        );
    }
}
