//! Starting the MPI job. `contention measure` (or `survey`, `network --run`) run from a shell
//! starts itself again under a launcher with the same arguments; run under a launcher, it
//! measures.
//!
//! [`crate::mpi::flavour`] picks the launcher that speaks the library's start-up protocol (Open
//! MPI's `mpirun`, Hydra's `mpiexec`, or `srun` with its MPI plugin); `job_line` says the
//! same plan in its dialect: one rank per entry of the host list in that order (or every
//! rank on this host), no binding by the launcher (the tool pins its own threads, and Open
//! MPI binds ranks to cores by default), the root and oversubscription permissions Open MPI
//! asks for, and the variables the ranks need from this environment (Open MPI's mpirun
//! passes only those named with `-x`; Hydra and srun pass the whole environment).

use crate::error::{Error, IoAction, Result};
use crate::mpi::flavour::{Choice, Dialect, Library, Probe, Starter};
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// Environment variable through which the outer process tells rank 0 how to show progress
/// (rank 0's stderr is a pipe under the launcher even when the user's is a terminal).
pub(crate) const PROGRESS_ENV: &str = "CONTENTION_PROGRESS";

pub use crate::mpi::flavour::Launcher;

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

/// The variables srun must not see: each makes a step "exact", one CPU per task, which
/// `--whole` cannot undo (Slurm 22.05 refuses `--whole` with `SLURM_EXACT` as "mutually
/// exclusive", and ignores it under `SRUN_CPUS_PER_TASK`, which it reads in place of
/// `--cpus-per-task`, itself implying `--exact`; srun before 22.05 read
/// `SLURM_CPUS_PER_TASK` the same way). A user's `salloc -c 4` or a site profile sets them;
/// the tool's step needs every CPU of its nodes.
pub(crate) const EXACT_VARS: [&str; 3] =
    ["SLURM_EXACT", "SRUN_CPUS_PER_TASK", "SLURM_CPUS_PER_TASK"];

/// A job's shape, whatever the launcher.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub ranks: usize,
    /// The host of every rank, in rank order (a host may repeat: `network --run --hosts`);
    /// `None`: every rank on this host (or, in a one-node allocation, on its node).
    pub rank_hosts: Option<&'a [String]>,
    /// Running as root: Open MPI refuses to start without `--allow-run-as-root`.
    pub as_root: bool,
    /// Variables of this environment the ranks need; Open MPI's mpirun gets `-x` for each
    /// that is set.
    pub forward: &'a [&'a str],
}

/// The launcher's command line, and what its environment needs beside this process's.
#[derive(Debug, Clone, PartialEq)]
pub struct JobLine {
    pub(crate) argv: Vec<OsString>,
    /// For srun over named hosts: the `SLURM_HOSTFILE` (one line per rank, in rank order)
    /// that keeps rank `i` on host `i`: srun sorts `--nodelist`, and only its arbitrary
    /// distribution follows the file.
    pub(crate) srun_hostfile: Option<String>,
    /// Variables removed from the launcher's environment (`EXACT_VARS` for srun).
    pub(crate) unset: Vec<&'static str>,
}

impl JobLine {
    /// The line as the log and the plan show it.
    pub(crate) fn shown(&self) -> String {
        let mut s = String::new();
        for v in &self.unset {
            s += &format!("-u {v} ");
        }
        if !self.unset.is_empty() {
            s = format!("env {s}");
        }
        if self.srun_hostfile.is_some() {
            s += "SLURM_HOSTFILE=(one line per rank) ";
        }
        s + &shown(&self.argv)
    }
}

/// `hosts` as runs of the same host: `x,y,y,x` is `[(x, 1), (y, 2), (x, 1)]`.
fn runs(hosts: &[String]) -> Vec<(&str, usize)> {
    let mut out: Vec<(&str, usize)> = Vec::new();
    for h in hosts {
        match out.last_mut() {
            Some((last, n)) if *last == h.as_str() => *n += 1,
            _ => out.push((h, 1)),
        }
    }
    out
}

fn distinct(hosts: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for h in hosts {
        if !out.contains(&h.as_str()) {
            out.push(h);
        }
    }
    out
}

/// The command line that runs `exe args` as the job `shape` with `starter`; `slurm` is what
/// srun needs to know of Slurm around it (the whole-node option).
pub(crate) fn job_line(
    starter: &Starter,
    slurm: &Slurm,
    shape: &Shape,
    var: impl Fn(&str) -> Option<String>,
    exe: &Path,
    args: &[OsString],
) -> JobLine {
    let mut line = match starter {
        Starter::Own {
            program,
            dialect: Dialect::OpenMpi,
        } => open_mpi_line(program, shape, var),
        Starter::Own {
            program,
            dialect: Dialect::Hydra,
        } => hydra_line(program, shape),
        Starter::Srun { mpi } => srun_line(mpi.as_deref(), slurm, shape, var),
    };
    line.argv.push(exe.as_os_str().to_owned());
    line.argv.extend(args.iter().cloned());
    line
}

/// A launcher's words alone, before the program it starts.
fn words_only(argv: Vec<OsString>) -> JobLine {
    JobLine {
        argv,
        srun_hostfile: None,
        unset: Vec::new(),
    }
}

/// Open MPI's mpirun: no binding of its own, the ranks dealt over the hosts in order, and
/// `-x` for each variable of `shape.forward` that is set.
fn open_mpi_line(program: &str, shape: &Shape, var: impl Fn(&str) -> Option<String>) -> JobLine {
    let np = shape.ranks.to_string();
    let mut argv: Vec<OsString> = Vec::new();
    let mut push = |s: &str| argv.push(s.into());
    push(program);
    push("-np");
    push(&np);
    push("--bind-to");
    push("none");
    if shape.as_root {
        push("--allow-run-as-root");
    }
    match shape.rank_hosts {
        // Distinct hosts: one rank each, dealt in order.
        Some(h) if distinct(h).len() == h.len() => {
            push("--host");
            push(&h.join(","));
            push("--map-by");
            push("node");
        }
        // Repeated hosts: the sequential mapper places rank i on the i-th entry,
        // where --map-by node would deal ranks round-robin over distinct hosts.
        Some(h) => {
            for w in ["--mca", "rmaps", "seq", "--host"] {
                push(w);
            }
            push(&h.join(","));
        }
        None => push("--oversubscribe"),
    }
    for v in shape.forward.iter().filter(|v| var(v).is_some()) {
        push("-x");
        push(v);
    }
    words_only(argv)
}

/// MPICH's Hydra: no binding of its own, the hosts as runs of slots in rank order.
fn hydra_line(program: &str, shape: &Shape) -> JobLine {
    let np = shape.ranks.to_string();
    let mut argv: Vec<OsString> = Vec::new();
    let mut push = |s: &str| argv.push(s.into());
    push(program);
    push("-n");
    push(&np);
    push("-bind-to");
    push("none");
    if let Some(h) = shape.rank_hosts {
        // Hydra fills each entry's slots in order: `x,y:2,x` places ranks 0..3 on
        // x, y, y, x.
        let list: Vec<String> = runs(h)
            .into_iter()
            .map(|(h, n)| {
                if n == 1 {
                    h.to_string()
                } else {
                    format!("{h}:{n}")
                }
            })
            .collect();
        push("-hosts");
        push(&list.join(","));
    }
    words_only(argv)
}

/// Slurm's srun with the MPI plugin `mpi`: no binding, rank `i` on host `i` through the
/// arbitrary distribution, and the variables that would make the step exact unset.
fn srun_line(
    mpi: Option<&str>,
    slurm: &Slurm,
    shape: &Shape,
    var: impl Fn(&str) -> Option<String>,
) -> JobLine {
    let np = shape.ranks.to_string();
    let mut argv: Vec<OsString> = Vec::new();
    let mut push = |s: &str| argv.push(s.into());
    let mut srun_hostfile = None;
    push("srun");
    if let Some(opt) = slurm.whole_node_option() {
        push(opt);
    }
    push(&format!("--ntasks={np}"));
    push("--cpu-bind=none");
    if let Some(m) = mpi {
        push(&format!("--mpi={m}"));
    }
    match shape.rank_hosts {
        Some(h) => {
            let nodes = distinct(h);
            push(&format!("--nodes={}", nodes.len()));
            if nodes.len() == h.len() {
                push("--ntasks-per-node=1");
            }
            push(&format!("--nodelist={}", nodes.join(",")));
            push("--distribution=arbitrary");
            srun_hostfile = Some(h.iter().map(|h| format!("{h}\n")).collect());
        }
        // Every rank on one node, more ranks than the CPUs a step may otherwise get.
        None => {
            push("--nodes=1");
            push("--overcommit");
        }
    }
    JobLine {
        argv,
        srun_hostfile,
        unset: EXACT_VARS
            .iter()
            .copied()
            .filter(|v| var(v).is_some())
            .collect(),
    }
}

/// The launcher chosen for this library, and its line for `shape`: what `measure`, `survey`
/// and `network --run` all do from a shell, so they start their jobs the same way.
pub fn plan_launch(
    requested: Launcher,
    library: &Library,
    shape: &Shape,
    exe: &Path,
    args: &[OsString],
) -> Result<(Choice, JobLine)> {
    let var = |k: &str| std::env::var(k).ok();
    let choice = crate::mpi::flavour::choose(
        requested,
        library,
        &Probe {
            var: &var,
            version_of: &program_version,
            srun_mpi_list: &srun_mpi_list,
        },
    )?;
    let slurm = match choice.starter {
        Starter::Srun { .. } => Slurm::detect(var, srun_version),
        Starter::Own { .. } => Slurm::default(),
    };
    let line = job_line(&choice.starter, &slurm, shape, var, exe, args);
    Ok((choice, line))
}

/// `PROGRAM --version`, its standard output and error, if it runs (within a few seconds: a
/// launcher that hangs is no launcher).
fn program_version(program: &str) -> Option<String> {
    let out = output_within(Command::new(program).arg("--version"), 10)?;
    Some(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// `srun --mpi=list`, if srun runs and answers.
fn srun_mpi_list() -> Option<String> {
    let out = output_within(Command::new("srun").arg("--mpi=list"), 10)?;
    out.status.success().then(|| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Runs `cmd` with no input and waits at most `seconds` for it; `None` if it cannot start or
/// runs longer (then it is killed).
fn output_within(cmd: &mut Command, seconds: u64) -> Option<std::process::Output> {
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().ok(),
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// What `measure` knows of Slurm around it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Slurm {
    /// Inside a job allocation (`SLURM_JOB_ID` set): srun then starts a step of that job.
    pub(crate) in_allocation: bool,
    /// `srun --version`, as (major, minor): `slurm 23.02.7` is (23, 2).
    pub(crate) version: Option<(u32, u32)>,
}

impl Slurm {
    /// From the environment and `srun --version` (through `version`, for tests).
    pub(crate) fn detect(
        var: impl Fn(&str) -> Option<String>,
        version: impl FnOnce() -> Option<String>,
    ) -> Self {
        let version = version().and_then(|v| {
            let mut parts = v.split_whitespace().last()?.split('.');
            Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
        });
        Slurm {
            in_allocation: var("SLURM_JOB_ID").is_some(),
            version,
        }
    }

    /// The srun option that gives the step every core of its nodes. A new job asks for
    /// whole nodes (`--exclusive`). Inside an allocation, Slurm 20.11 brought `--whole` with
    /// steps that take only the CPUs their tasks ask for (one each); on 22.05 (checked
    /// against a real one by `tests/slurm.rs`) a step gets every CPU of the job on its nodes
    /// unless it is "exact" (`--exact`, `SLURM_EXACT`, `--cpus-per-task`, `SRUN_CPUS_PER_TASK`),
    /// which `--whole` cannot undo: so `--whole` asks for them, and srun runs without the
    /// variables that would make the step exact ([`EXACT_VARS`]). Before 20.11 a step got
    /// every allocated CPU of its nodes, `--whole` did not exist and `--exclusive` would have
    /// restricted the step, so nothing is added. An unknown version is taken as a recent one.
    pub(crate) fn whole_node_option(&self) -> Option<&'static str> {
        match (self.in_allocation, self.version) {
            (false, _) => Some("--exclusive"),
            (true, Some(v)) if v < (20, 11) => None,
            (true, _) => Some("--whole"),
        }
    }
}

/// Two hosts for the job inside a Slurm allocation of two or more nodes: this node (rank 0,
/// measured) and the first other node of the allocation (rank 1), so that, as in the paper,
/// messages cross the network without `--hosts`. `None` outside such an allocation.
/// `expand` turns Slurm's compressed node list (`node[01-04]`) into names (`scontrol show
/// hostnames`).
pub(crate) fn slurm_hosts(
    var: impl Fn(&str) -> Option<String>,
    expand: impl FnOnce(&str) -> Option<Vec<String>>,
) -> Option<Vec<String>> {
    let nodes: u32 = var("SLURM_JOB_NUM_NODES")
        .or_else(|| var("SLURM_NNODES"))?
        .trim()
        .parse()
        .ok()?;
    if nodes < 2 {
        return None;
    }
    let list = expand(&var("SLURM_JOB_NODELIST").or_else(|| var("SLURM_NODELIST"))?)?;
    let here = var("SLURMD_NODENAME").or_else(|| list.first().cloned())?;
    let other = list.iter().find(|h| **h != here)?.clone();
    Some(vec![here, other])
}

/// The node of the one-node Slurm allocation around this process; `None` outside an
/// allocation or in one of several nodes.
pub(crate) fn slurm_single_node(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    var("SLURM_JOB_ID")?;
    let nodes: u32 = var("SLURM_JOB_NUM_NODES")
        .or_else(|| var("SLURM_NNODES"))?
        .trim()
        .parse()
        .ok()?;
    if nodes != 1 {
        return None;
    }
    var("SLURM_JOB_NODELIST").or_else(|| var("SLURM_NODELIST"))
}

/// Expands a Slurm node list with `scontrol show hostnames`; a plain comma-separated list
/// needs no scontrol.
pub(crate) fn expand_nodelist(list: &str) -> Option<Vec<String>> {
    let names: Vec<String> = if list.contains('[') {
        let out = output_within(
            Command::new("scontrol").args(["show", "hostnames", list]),
            30,
        )?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    } else {
        list.split(',').map(str::to_string).collect()
    };
    let names: Vec<String> = names
        .into_iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// `srun --version`, if srun is there (it needs Slurm's configuration even for that).
pub(crate) fn srun_version() -> Option<String> {
    let out = output_within(Command::new("srun").arg("--version"), 10)?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Whether the process runs as root (Open MPI then needs `--allow-run-as-root`); here beside
/// the command lines that depend on it.
pub use crate::sys::is_root;

/// This binary and the arguments it was started with: what the launcher starts again, once
/// per rank, so that each rank runs the same command under the launcher.
pub(crate) fn own_command() -> Result<(std::path::PathBuf, Vec<OsString>)> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find own binary: {e}")))?;
    Ok((exe, std::env::args_os().skip(1).collect()))
}

/// A command line as the log shows it (`measure: starting ...`) and a dry run prints it to
/// be copied: each argument as a POSIX shell reads it back ([`shell_word`]), joined by
/// spaces.
pub(crate) fn shown(cmd: &[OsString]) -> String {
    cmd.iter()
        .map(|a| shell_word(a.as_os_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `arg` as a shell word that reads back as `arg`: as it is when it holds only characters no
/// shell treats specially, in single quotes when it holds others, and in bash's `$'...'`
/// with `\xNN` escapes when it holds a control character or bytes that are not UTF-8, which
/// must neither reach the terminal raw nor be lost.
fn shell_word(arg: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = arg.as_bytes();
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"%+,-./:=@_".contains(b);
    if !bytes.is_empty() && bytes.iter().all(plain) {
        return arg.to_string_lossy().into_owned();
    }
    match arg.to_str() {
        Some(s) if !s.chars().any(char::is_control) => format!("'{}'", s.replace('\'', r"'\''")),
        _ => {
            let mut out = String::from("$'");
            for &b in bytes {
                match b {
                    b'\\' | b'\'' => {
                        out.push('\\');
                        out.push(char::from(b));
                    }
                    0x20..=0x7e => out.push(char::from(b)),
                    _ => out += &format!("\\x{b:02x}"),
                }
            }
            out.push('\'');
            out
        }
    }
}

/// The launcher (`mpirun`, `mpiexec`, `srun`) could not be started: not on `PATH` any more.
/// Bad input (exit 2): install it or pick another with `--launcher`.
#[derive(Debug)]
pub(crate) struct LaunchError {
    pub(crate) program: String,
    pub(crate) err: std::io::Error,
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
contention_analysis::wrap!(Input: LaunchError);
impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot start `{}`: {}; install the MPI library's launcher (`bash .ci/setup` \
             installs Open MPI's) or pick another with --launcher",
            self.program, self.err
        )
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.err)
    }
}

/// A started job: the launcher's process, and srun's host file, removed when this is
/// dropped (the file must live as long as the job that reads it).
pub(crate) struct Running {
    pub(crate) child: std::process::Child,
    /// Held, never read: the file lives as long as this path.
    _hostfile: Option<tempfile::TempPath>,
}

/// Starts the launcher without waiting (`crate::mpi::driver` starts every job through it, and
/// `contention survey` stops one with [`stop`] when a round overruns its time).
///
/// The job gets its own process group, to which [`crate::mpi::signals`] forwards SIGINT, SIGTERM
/// and SIGHUP, and dies with this process (`PR_SET_PDEATHSIG`). Its standard input is
/// closed: the job reads none, and a launcher outside the terminal's foreground group that
/// read it would be stopped.
pub(crate) fn spawn(line: &JobLine, progress: &str) -> Result<Running> {
    use std::os::unix::process::CommandExt;
    let hostfile = match &line.srun_hostfile {
        Some(text) => Some(host_file(text)?),
        None => None,
    };
    let program = &line.argv[0];
    let parent = std::process::id() as libc::pid_t;
    let mut command = Command::new(program);
    command
        .args(&line.argv[1..])
        .env(PROGRESS_ENV, progress)
        .stdin(std::process::Stdio::null())
        .process_group(0);
    if let Some(p) = &hostfile {
        command.env("SLURM_HOSTFILE", p.as_os_str());
    }
    for v in &line.unset {
        command.env_remove(v);
    }
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || crate::mpi::signals::die_with_parent(parent));
    }
    let child = match command.spawn() {
        Ok(c) => c,
        Err(err) => {
            // The host file goes with `hostfile`, dropped here.
            return Err(LaunchError {
                program: program.to_string_lossy().into_owned(),
                err,
            }
            .into());
        }
    };
    crate::mpi::signals::forward_to(child.id() as i32);
    Ok(Running {
        child,
        _hostfile: hostfile,
    })
}

/// srun's host file, `text` in a new file of the temporary directory, created as
/// [`crate::io::atomic`] creates its temporaries: exclusively (`O_EXCL`) under an
/// unpredictable name, so a link planted in the shared directory is never followed (a
/// predictable name let any local user make root overwrite the file the link points to).
/// Removed when the returned path is dropped.
fn host_file(text: &str) -> Result<tempfile::TempPath> {
    use std::io::Write;
    let mut f = tempfile::Builder::new()
        .prefix("contention-hosts-")
        .tempfile()
        .map_err(|e| {
            Error::io(
                IoAction::Create("srun host file in"),
                std::env::temp_dir(),
                e,
            )
        })?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.flush())
        .map_err(|e| Error::io(IoAction::Write("srun host file"), f.path(), e))?;
    Ok(f.into_temp_path())
}

/// The job's exit status as a shell reports it (128 + signal when killed).
pub(crate) fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Ends a job started by [`spawn`]: SIGTERM to its process group (the launcher passes it
/// on to the ranks, which save what they finished), SIGKILL after `grace`.
pub(crate) fn stop(job: &mut Running, grace: std::time::Duration) -> Result<i32> {
    let child = &mut job.child;
    let group = child.id() as libc::pid_t;
    // SAFETY: kill has no memory preconditions; the group is the job's own (process_group(0)
    // in `spawn`), so nothing else is signalled.
    unsafe { libc::kill(-group, libc::SIGTERM) };
    let until = std::time::Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(exit_code(status)),
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            Ok(None) => {
                // SAFETY: as above.
                unsafe { libc::kill(-group, libc::SIGKILL) };
                let status = child
                    .wait()
                    .map_err(|e| Error::Failed(format!("cannot wait for the MPI job: {e}")))?;
                return Ok(exit_code(status));
            }
            Err(e) => return Err(Error::Failed(format!("cannot wait for the MPI job: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::mpi::flavour::vars;
    use crate::mpi::launch::*;

    /// Issue 35, item 12: a dry run's command line printed file names raw, escape codes
    /// included, and unquoted; each word now reads back as itself in a shell.
    #[test]
    fn a_shown_command_line_quotes_what_a_shell_would_read_otherwise() {
        let argv: Vec<OsString> = ["mpirun", "-o", "a b", "it's", "x\x1b[31m\u{9b}.json", ""]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            shown(&argv),
            r"mpirun -o 'a b' 'it'\''s' $'x\x1b[31m\xc2\x9b.json' ''"
        );
    }

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
    fn the_log_shows_the_command_line_and_the_binary_is_this_one() {
        let cmd = [
            OsString::from("mpirun"),
            OsString::from("-np"),
            OsString::from("2"),
        ];
        assert_eq!(shown(&cmd), "mpirun -np 2");
        let (exe, _) = own_command().unwrap();
        assert_eq!(exe, std::env::current_exe().unwrap());
    }

    fn open_mpi() -> Starter {
        Starter::Own {
            program: "mpirun".into(),
            dialect: Dialect::OpenMpi,
        }
    }

    fn hydra() -> Starter {
        Starter::Own {
            program: "mpiexec.mpich".into(),
            dialect: Dialect::Hydra,
        }
    }

    fn line(starter: &Starter, slurm: &Slurm, shape: &Shape, env: &[(&str, &str)]) -> JobLine {
        let args = [OsString::from("measure"), OsString::from("--numa=0,0")];
        job_line(starter, slurm, shape, vars(env), Path::new("/bin/c"), &args)
    }

    fn one_host(ranks: usize, as_root: bool) -> Shape<'static> {
        Shape {
            ranks,
            rank_hosts: None,
            as_root,
            forward: &["CONTENTION_RESULTS"],
        }
    }

    #[test]
    fn each_dialect_runs_two_ranks_on_one_host() {
        let slurm = Slurm::default();
        let o = line(&open_mpi(), &slurm, &one_host(2, true), &[]);
        assert_eq!(
            strings(&o.argv),
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
        assert_eq!((o.srun_hostfile.as_deref(), o.unset.len()), (None, 0));
        // Hydra neither binds by default nor refuses root or more ranks than cores.
        let h = line(&hydra(), &slurm, &one_host(2, true), &[]);
        assert_eq!(
            strings(&h.argv)[..5],
            ["mpiexec.mpich", "-n", "2", "-bind-to", "none"]
        );
        assert_eq!(strings(&h.argv)[5], "/bin/c");
        let job = Slurm {
            in_allocation: true,
            version: Some((22, 5)),
        };
        let s = line(
            &Starter::Srun {
                mpi: Some("pmi2".into()),
            },
            &job,
            &one_host(3, true),
            &[],
        );
        assert_eq!(
            strings(&s.argv)[..7],
            [
                "srun",
                "--whole",
                "--ntasks=3",
                "--cpu-bind=none",
                "--mpi=pmi2",
                "--nodes=1",
                "--overcommit"
            ]
        );
    }

    #[test]
    fn open_mpi_forwards_the_variables_the_ranks_need() {
        let o = line(
            &open_mpi(),
            &Slurm::default(),
            &one_host(2, false),
            &[("CONTENTION_RESULTS", "/r")],
        );
        let argv = strings(&o.argv);
        assert!(
            argv.windows(2).any(|w| w == ["-x", "CONTENTION_RESULTS"]),
            "{argv:?}"
        );
        assert!(!argv.contains(&"--allow-run-as-root".to_string()));
        // Not set here: nothing to forward.
        let o = line(&open_mpi(), &Slurm::default(), &one_host(2, false), &[]);
        assert!(!strings(&o.argv).contains(&"-x".to_string()));
        // Hydra and srun pass the whole environment.
        let h = line(
            &hydra(),
            &Slurm::default(),
            &one_host(2, false),
            &[("CONTENTION_RESULTS", "/r")],
        );
        assert!(!strings(&h.argv).iter().any(|a| a.starts_with("-genv")));
    }

    #[test]
    fn ranks_follow_their_hosts_in_order() {
        let hosts = ["x", "y", "y", "x"].map(String::from);
        let shape = Shape {
            ranks: 4,
            rank_hosts: Some(&hosts),
            as_root: true,
            forward: &[],
        };
        let o = line(&open_mpi(), &Slurm::default(), &shape, &[]);
        assert_eq!(
            strings(&o.argv)[..11],
            [
                "mpirun",
                "-np",
                "4",
                "--bind-to",
                "none",
                "--allow-run-as-root",
                "--mca",
                "rmaps",
                "seq",
                "--host",
                "x,y,y,x"
            ]
        );
        let h = line(&hydra(), &Slurm::default(), &shape, &[]);
        assert!(
            strings(&h.argv)
                .windows(2)
                .any(|w| w == ["-hosts", "x,y:2,x"]),
            "{h:?}"
        );
        let s = line(&Starter::Srun { mpi: None }, &Slurm::default(), &shape, &[]);
        let argv = strings(&s.argv);
        assert!(
            argv.contains(&"--nodes=2".into())
                && argv.contains(&"--nodelist=x,y".into())
                && !argv.contains(&"--ntasks-per-node=1".into()),
            "{argv:?}"
        );
        assert_eq!(s.srun_hostfile.as_deref(), Some("x\ny\ny\nx\n"));
    }

    #[test]
    fn two_hosts_put_one_rank_on_each() {
        let hosts = ["a".to_string(), "b".to_string()];
        let shape = Shape {
            ranks: 2,
            rank_hosts: Some(&hosts),
            as_root: false,
            forward: &[],
        };
        let o = strings(&line(&open_mpi(), &Slurm::default(), &shape, &[]).argv);
        assert!(
            o.windows(4)
                .any(|w| w == ["--host", "a,b", "--map-by", "node"]),
            "{o:?}"
        );
        let h = strings(&line(&hydra(), &Slurm::default(), &shape, &[]).argv);
        assert!(h.windows(2).any(|w| w == ["-hosts", "a,b"]), "{h:?}");
    }

    #[test]
    fn two_nodes_of_a_slurm_allocation_are_the_default_hosts() {
        let expand = |l: &str| {
            assert_eq!(l, "n[07-09]");
            Some(vec!["n07".to_string(), "n08".into(), "n09".into()])
        };
        let env = [
            ("SLURM_JOB_NUM_NODES", "3"),
            ("SLURM_JOB_NODELIST", "n[07-09]"),
            ("SLURMD_NODENAME", "n08"),
        ];
        // Rank 0 on this node, rank 1 on the first other one.
        assert_eq!(
            slurm_hosts(vars(&env), expand),
            Some(vec!["n08".to_string(), "n07".into()])
        );
        let one = [("SLURM_JOB_NUM_NODES", "1"), ("SLURM_JOB_NODELIST", "n07")];
        assert_eq!(slurm_hosts(vars(&one), |_| unreachable!()), None);
        assert_eq!(
            slurm_single_node(vars(&one)),
            None,
            "no SLURM_JOB_ID: no job"
        );
        let one = [("SLURM_JOB_ID", "5"), one[0], one[1]];
        assert_eq!(slurm_single_node(vars(&one)), Some("n07".into()));
        assert_eq!(slurm_single_node(vars(&env)), None);
        assert_eq!(slurm_hosts(vars(&[]), |_| unreachable!()), None);
        assert_eq!(expand_nodelist("a, b,"), Some(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn the_srun_line_gives_the_step_whole_nodes_and_keeps_rank_0_first() {
        let hosts = ["n08".to_string(), "n07".to_string()];
        let shape = Shape {
            ranks: 2,
            rank_hosts: Some(&hosts),
            as_root: false,
            forward: &[],
        };
        let pmix = Starter::Srun {
            mpi: Some("pmix".into()),
        };
        let detect = |job: bool, v: &str| {
            let v = v.to_string();
            Slurm::detect(
                vars(if job { &[("SLURM_JOB_ID", "42")] } else { &[] }),
                move || Some(v),
            )
        };
        let modern = detect(true, "slurm-wlm 22.05.8");
        assert_eq!(modern.version, Some((22, 5)));
        // A user's `salloc -c 1` left SRUN_CPUS_PER_TASK: srun runs without it.
        let l = line(&pmix, &modern, &shape, &[("SRUN_CPUS_PER_TASK", "1")]);
        assert_eq!(
            strings(&l.argv),
            [
                "srun",
                "--whole",
                "--ntasks=2",
                "--cpu-bind=none",
                "--mpi=pmix",
                "--nodes=2",
                "--ntasks-per-node=1",
                "--nodelist=n08,n07",
                "--distribution=arbitrary",
                "/bin/c",
                "measure",
                "--numa=0,0"
            ]
        );
        assert_eq!(l.unset, ["SRUN_CPUS_PER_TASK"]);
        assert_eq!(l.srun_hostfile.as_deref(), Some("n08\nn07\n"));
        assert!(
            l.shown().starts_with(
                "env -u SRUN_CPUS_PER_TASK SLURM_HOSTFILE=(one line per rank) srun --whole"
            ),
            "{}",
            l.shown()
        );
        let old = strings(&line(&pmix, &detect(true, "slurm 20.02.1"), &shape, &[]).argv);
        assert!(
            !old.iter().any(|a| a == "--whole" || a == "--exclusive"),
            "{old:?}"
        );
        let new_job = strings(&line(&pmix, &detect(false, "slurm 23.02.7"), &shape, &[]).argv);
        assert_eq!(new_job[1], "--exclusive");
    }

    #[test]
    fn the_srun_host_file_never_follows_a_planted_link() {
        // Another local user plants links at the names a predictable host file would take:
        // the job's host file must be a new file of its own, the victim untouched.
        let victim = std::env::temp_dir().join(format!("contention-victim-{}", std::process::id()));
        std::fs::write(&victim, "precious").unwrap();
        let planted = std::env::temp_dir().join(format!("contention-hosts-{}", std::process::id()));
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let line = JobLine {
            // The job sees its host file, one line per rank.
            argv: ["sh", "-c", "grep -qx nodeB \"$SLURM_HOSTFILE\""]
                .iter()
                .map(OsString::from)
                .collect(),
            srun_hostfile: Some("nodeA\nnodeB\n".into()),
            unset: Vec::new(),
        };
        let mut job = spawn(&line, "").unwrap();
        let status = job.child.wait().unwrap();
        let file = job._hostfile.as_ref().map(|p| p.to_path_buf()).unwrap();
        assert!(status.success(), "the job did not read its host file");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        drop(job);
        assert!(!file.exists(), "the host file outlives the job");
        std::fs::remove_file(&planted).unwrap();
        std::fs::remove_file(&victim).unwrap();
    }
}
