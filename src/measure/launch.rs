//! Starting the two-rank MPI job. `contention measure` run from a shell starts itself under
//! `mpirun -np 2` (or `srun -n 2`) with the same arguments; run under a launcher, it measures.
//!
//! Open MPI binds ranks to cores by default, which would fight the tool's own pinning, so
//! binding is turned off at the launcher (`--bind-to none`, `--cpu-bind=none`); as root Open
//! MPI refuses to start without `--allow-run-as-root`; on one host the two ranks and their
//! threads outnumber the slots Open MPI counts, hence `--oversubscribe`.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// Environment variable through which the outer process tells rank 0 how to show progress
/// (rank 0's stderr is a pipe under the launcher even when the user's is a terminal).
pub const PROGRESS_ENV: &str = "CONTENTION_PROGRESS";

pub use crate::cli::Launcher;

/// Whether this process was started by an MPI launcher, from the variables they set:
/// Open MPI (`OMPI_COMM_WORLD_SIZE`), PMIx (`PMIX_RANK`), MPICH/Hydra and Intel MPI
/// (`PMI_SIZE`), and an `srun` step of several tasks (`SLURM_STEP_NUM_TASKS`; a batch script
/// alone is not a launcher).
pub fn under_launcher(var: impl Fn(&str) -> Option<String>) -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"]
        .iter()
        .any(|v| var(v).is_some())
        || var("SLURM_STEP_NUM_TASKS")
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n >= 2)
}

/// The launcher's command line that runs `exe args` as two ranks: on `hosts` (rank 0 on the
/// first) or both on this host.
pub fn command_line(
    launcher: Launcher,
    hosts: Option<&[String]>,
    as_root: bool,
    exe: &Path,
    args: &[OsString],
) -> Vec<OsString> {
    command_line_ranks(2, launcher, hosts, as_root, exe, args)
}

/// [`command_line`] for a job of `ranks` ranks (`contention network --run`: one per
/// communication end, or a ring of `measure`). `hosts`, when given, holds one host per rank.
pub fn command_line_ranks(
    ranks: usize,
    launcher: Launcher,
    hosts: Option<&[String]>,
    as_root: bool,
    exe: &Path,
    args: &[OsString],
) -> Vec<OsString> {
    let np = ranks.to_string();
    let mut cmd: Vec<OsString> = Vec::new();
    let mut push = |s: &str| cmd.push(s.into());
    match launcher {
        Launcher::Mpirun => {
            push("mpirun");
            push("-np");
            push(&np);
            push("--bind-to");
            push("none");
            if as_root {
                push("--allow-run-as-root");
            }
            match hosts {
                Some(h) => {
                    push("--host");
                    push(&h.join(","));
                    push("--map-by");
                    push("node");
                }
                None => push("--oversubscribe"),
            }
        }
        Launcher::Srun => {
            push("srun");
            push(&format!("--ntasks={np}"));
            push("--cpu-bind=none");
            if let Some(h) = hosts {
                push(&format!("--nodes={}", h.len()));
                push("--ntasks-per-node=1");
                push(&format!("--nodelist={}", h.join(",")));
            }
        }
    }
    cmd.push(exe.as_os_str().to_owned());
    cmd.extend(args.iter().cloned());
    cmd
}

/// Whether the process runs as root (Open MPI then needs `--allow-run-as-root`).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Runs the launcher and returns the job's exit status (128 + signal when killed).
///
/// The job gets its own process group, to which [`super::signals`] forwards SIGINT, SIGTERM
/// and SIGHUP, and dies with this process (`PR_SET_PDEATHSIG`). Its standard input is
/// closed: the job reads none, and a launcher outside the terminal's foreground group that
/// read it would be stopped.
pub fn run(cmd: &[OsString], progress: &str) -> Result<i32> {
    use std::os::unix::process::CommandExt;
    let program = &cmd[0];
    let parent = std::process::id() as libc::pid_t;
    let mut command = Command::new(program);
    command
        .args(&cmd[1..])
        .env(PROGRESS_ENV, progress)
        .stdin(std::process::Stdio::null())
        .process_group(0);
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || super::signals::die_with_parent(parent));
    }
    let mut child = command.spawn().map_err(|e| {
        Error::Input(format!(
            "cannot start `{}`: {e}; install Open MPI (`bash .ci/setup`) or pick another \
                 launcher with --launcher",
            program.to_string_lossy()
        ))
    })?;
    super::signals::forward_to(child.id() as i32);
    let status = child
        .wait()
        .map_err(|e| Error::Failed(format!("cannot wait for the MPI job: {e}")))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[OsString]) -> Vec<String> {
        v.iter().map(|s| s.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn detects_launchers_from_their_variables() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(!under_launcher(env(&[])));
        assert!(under_launcher(env(&[("OMPI_COMM_WORLD_SIZE", "2")])));
        assert!(under_launcher(env(&[("PMI_SIZE", "2")])));
        assert!(under_launcher(env(&[("SLURM_STEP_NUM_TASKS", "2")])));
        assert!(!under_launcher(env(&[
            ("SLURM_STEP_NUM_TASKS", "1"),
            ("SLURM_JOB_ID", "7")
        ])));
    }

    #[test]
    fn mpirun_on_one_host_as_root() {
        let args = [OsString::from("measure"), OsString::from("--numa=0,0")];
        let c = strings(&command_line(
            Launcher::Mpirun,
            None,
            true,
            Path::new("/bin/c"),
            &args,
        ));
        assert_eq!(
            c,
            [
                "mpirun",
                "-np",
                "2",
                "--bind-to",
                "none",
                "--allow-run-as-root",
                "--oversubscribe",
                "/bin/c",
                "measure",
                "--numa=0,0"
            ]
        );
    }

    #[test]
    fn any_number_of_ranks() {
        let c = strings(&command_line_ranks(
            6,
            Launcher::Mpirun,
            None,
            false,
            Path::new("c"),
            &[],
        ));
        assert!(c.windows(2).any(|w| w == ["-np", "6"]), "{c:?}");
        let c = strings(&command_line_ranks(
            6,
            Launcher::Srun,
            None,
            false,
            Path::new("c"),
            &[],
        ));
        assert!(c.contains(&"--ntasks=6".to_string()), "{c:?}");
    }

    #[test]
    fn two_hosts_put_one_rank_on_each() {
        let hosts = ["a".to_string(), "b".to_string()];
        let c = strings(&command_line(
            Launcher::Mpirun,
            Some(&hosts),
            false,
            Path::new("c"),
            &[],
        ));
        assert!(c.windows(2).any(|w| w == ["--host", "a,b"]));
        assert!(!c.contains(&"--allow-run-as-root".to_string()));
        let c = strings(&command_line(
            Launcher::Srun,
            Some(&hosts),
            false,
            Path::new("c"),
            &[],
        ));
        assert!(
            c.contains(&"--nodelist=a,b".to_string()) && c.contains(&"--cpu-bind=none".to_string())
        );
    }
}
