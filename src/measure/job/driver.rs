//! What `measure`, `network --run` and `survey` do alike around their MPI job: tell whether
//! this process is a rank of the job or the shell command that starts it, and plan the
//! launcher's line that starts this very command again, once per rank.
//!
//! Each command keeps its own ranks' work and its own reading of the job's exit status (a
//! measurement saves points, a survey records rounds); what they share is here, once.

use super::flavour::Choice;
use super::launch::{self, JobLine, Launcher, Shape};
use super::mpi;
use crate::error::Result;

/// Whether this process runs under a launcher, as a rank of the job, by its environment.
pub(crate) fn in_job() -> bool {
    launch::under_launcher(|k| std::env::var(k).ok())
}

/// The launcher chosen for `shape` and its line that starts this binary again with its own
/// arguments (less `dropped`, an argument the ranks must not see, such as `--dry-run` when a
/// dry run shows the line it would run).
pub(crate) fn plan_own(
    launcher: Launcher,
    shape: &Shape<'_>,
    dropped: Option<&str>,
) -> Result<(Choice, JobLine)> {
    let (exe, argv) = launch::own_command()?;
    let argv: Vec<_> = argv
        .into_iter()
        .filter(|a| dropped.is_none_or(|d| a != d))
        .collect();
    launch::plan_launch(launcher, &mpi::library(), shape, &exe, &argv)
}
