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

pub use super::choices::Launcher;

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
                // Slurm sorts --nodelist: only the arbitrary distribution, fed by the host
                // file of [`srun_hostfile`] in SLURM_HOSTFILE, keeps rank 0 on the first host.
                push("--distribution=arbitrary");
            }
        }
    }
    cmd.push(exe.as_os_str().to_owned());
    cmd.extend(args.iter().cloned());
    cmd
}

/// The `SLURM_HOSTFILE` of an srun over `hosts`: one line per rank, in rank order.
pub fn srun_hostfile(hosts: &[String]) -> String {
    hosts.iter().map(|h| format!("{h}\n")).collect()
}

/// What `measure` knows of Slurm around it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slurm {
    /// Inside a job allocation (`SLURM_JOB_ID` set): srun then starts a step of that job.
    pub in_allocation: bool,
    /// `srun --version`, as (major, minor): `slurm 23.02.7` is (23, 2).
    pub version: Option<(u32, u32)>,
}

impl Slurm {
    /// From the environment and `srun --version` (through `version`, for tests).
    pub fn detect(
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
    /// whole nodes (`--exclusive`). Inside an allocation, since Slurm 20.11 a step only gets
    /// the CPUs its tasks ask for (one each) unless it asks for `--whole`; before 20.11 a
    /// step got every allocated CPU of its nodes, and `--exclusive` would have restricted
    /// it, so nothing is added. An unknown version is taken as a recent one.
    pub fn whole_node_option(&self) -> Option<&'static str> {
        match (self.in_allocation, self.version) {
            (false, _) => Some("--exclusive"),
            (true, Some(v)) if v < (20, 11) => None,
            (true, _) => Some("--whole"),
        }
    }
}

/// `cmd`, an srun line from [`command_line_ranks`], with [`Slurm::whole_node_option`] added
/// after `srun`; other launchers' lines are returned unchanged.
pub fn with_whole_node(mut cmd: Vec<OsString>, slurm: &Slurm) -> Vec<OsString> {
    if cmd.first().is_some_and(|c| c == "srun") {
        if let Some(opt) = slurm.whole_node_option() {
            cmd.insert(1, opt.into());
        }
    }
    cmd
}

/// Two hosts for the job inside a Slurm allocation of two or more nodes: this node (rank 0,
/// measured) and the first other node of the allocation (rank 1), so that, as in the paper,
/// messages cross the network without `--hosts`. `None` outside such an allocation.
/// `expand` turns Slurm's compressed node list (`node[01-04]`) into names (`scontrol show
/// hostnames`).
pub fn slurm_hosts(
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

/// Expands a Slurm node list with `scontrol show hostnames`; a plain comma-separated list
/// needs no scontrol.
pub fn expand_nodelist(list: &str) -> Option<Vec<String>> {
    let names: Vec<String> = if list.contains('[') {
        let out = Command::new("scontrol")
            .args(["show", "hostnames", list])
            .output()
            .ok()?;
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

/// `srun --version`, if srun is there.
pub fn srun_version() -> Option<String> {
    let out = Command::new("srun").arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The `mpirun` command line that runs `exe args` as one rank per entry of `rank_hosts`, rank
/// `i` on `rank_hosts[i]` (hosts may repeat, in any order): Open MPI's sequential mapper
/// (`--mca rmaps seq`) places ranks in the order of the `--host` list, where `--map-by node`
/// would deal them round-robin over the distinct hosts. For `contention network --run
/// --hosts`, whose ranks follow the graph's communications.
pub fn mpirun_rank_per_host(
    rank_hosts: &[String],
    as_root: bool,
    exe: &Path,
    args: &[OsString],
) -> Vec<OsString> {
    let mut cmd: Vec<OsString> = vec!["mpirun".into(), "-np".into()];
    cmd.push(rank_hosts.len().to_string().into());
    cmd.extend(["--bind-to", "none"].map(OsString::from));
    if as_root {
        cmd.push("--allow-run-as-root".into());
    }
    cmd.extend(["--mca", "rmaps", "seq", "--host"].map(OsString::from));
    cmd.push(rank_hosts.join(",").into());
    cmd.push(exe.as_os_str().to_owned());
    cmd.extend(args.iter().cloned());
    cmd
}

/// Whether the process runs as root (Open MPI then needs `--allow-run-as-root`); here beside
/// the command lines that depend on it.
pub use crate::sys::is_root;

/// This binary and the arguments it was started with: what the launcher starts again, once
/// per rank, so that each rank runs the same command under the launcher.
pub fn own_command() -> Result<(std::path::PathBuf, Vec<OsString>)> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find own binary: {e}")))?;
    Ok((exe, std::env::args_os().skip(1).collect()))
}

/// A command line as the log shows it (`measure: starting ...`), arguments joined by spaces.
pub fn shown(cmd: &[OsString]) -> String {
    cmd.iter()
        .map(|s| s.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The launcher (`mpirun`, `srun`) could not be started: not installed, or not on `PATH`.
/// Bad input (exit 2): install it or pick another with `--launcher`.
#[derive(Debug)]
pub struct LaunchError {
    pub program: String,
    pub err: std::io::Error,
}

// `?` turns it into the crate's error: input the user can fix (exit 2).
crate::error::wrap!(Input: LaunchError);
impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot start `{}`: {}; install Open MPI (`bash .ci/setup`) or pick another \
             launcher with --launcher",
            self.program, self.err
        )
    }
}

impl std::error::Error for LaunchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.err)
    }
}

/// Runs the launcher and returns the job's exit status (128 + signal when killed).
///
/// The job gets its own process group, to which [`super::signals`] forwards SIGINT, SIGTERM
/// and SIGHUP, and dies with this process (`PR_SET_PDEATHSIG`). Its standard input is
/// closed: the job reads none, and a launcher outside the terminal's foreground group that
/// read it would be stopped.
pub fn run(cmd: &[OsString], progress: &str) -> Result<i32> {
    run_with_env(cmd, progress, &[])
}

/// [`run`] with more environment variables for the launcher (`SLURM_HOSTFILE`).
pub fn run_with_env(cmd: &[OsString], progress: &str, env: &[(&str, &Path)]) -> Result<i32> {
    let mut child = spawn(cmd, progress, env)?;
    let status = child
        .wait()
        .map_err(|e| Error::Failed(format!("cannot wait for the MPI job: {e}")))?;
    Ok(exit_code(status))
}

/// Starts the launcher as [`run`] does, without waiting: `contention survey` watches the
/// job's rounds meanwhile and stops it ([`stop`]) when one overruns its time.
pub fn spawn(
    cmd: &[OsString],
    progress: &str,
    env: &[(&str, &Path)],
) -> Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    let program = &cmd[0];
    let parent = std::process::id() as libc::pid_t;
    let mut command = Command::new(program);
    command
        .args(&cmd[1..])
        .env(PROGRESS_ENV, progress)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .process_group(0);
    // SAFETY: the closure runs between fork and exec and only makes async-signal-safe
    // system calls (prctl, getppid, _exit).
    unsafe {
        command.pre_exec(move || super::signals::die_with_parent(parent));
    }
    let child = command.spawn().map_err(|err| LaunchError {
        program: program.to_string_lossy().into_owned(),
        err,
    })?;
    super::signals::forward_to(child.id() as i32);
    Ok(child)
}

/// The job's exit status as a shell reports it (128 + signal when killed).
pub fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Ends a job started by [`spawn`]: SIGTERM to its process group (the launcher passes it
/// on to the ranks, which save what they finished), SIGKILL after `grace`.
pub fn stop(child: &mut std::process::Child, grace: std::time::Duration) -> Result<i32> {
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
    fn ranks_follow_their_hosts_in_order() {
        let hosts = ["x", "y", "y", "x"].map(String::from);
        let c = strings(&mpirun_rank_per_host(&hosts, true, Path::new("c"), &[]));
        assert_eq!(
            c,
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
                "x,y,y,x",
                "c"
            ]
        );
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

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
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
        assert_eq!(slurm_hosts(vars(&[]), |_| unreachable!()), None);
        assert_eq!(expand_nodelist("a, b,"), Some(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn the_srun_line_gives_the_step_whole_nodes_and_keeps_rank_0_first() {
        let hosts = ["n08".to_string(), "n07".to_string()];
        let line = |slurm: &Slurm| {
            strings(&with_whole_node(
                command_line(Launcher::Srun, Some(&hosts), false, Path::new("c"), &[]),
                slurm,
            ))
        };
        let detect = |job: bool, v: &str| {
            let v = v.to_string();
            Slurm::detect(
                vars(if job { &[("SLURM_JOB_ID", "42")] } else { &[] }),
                move || Some(v),
            )
        };
        let modern = detect(true, "slurm 23.02.7");
        assert_eq!(modern.version, Some((23, 2)));
        assert_eq!(
            line(&modern),
            [
                "srun",
                "--whole",
                "--ntasks=2",
                "--cpu-bind=none",
                "--nodes=2",
                "--ntasks-per-node=1",
                "--nodelist=n08,n07",
                "--distribution=arbitrary",
                "c"
            ]
        );
        let old = line(&detect(true, "slurm 20.02.1"));
        assert!(
            !old.iter().any(|a| a == "--whole" || a == "--exclusive"),
            "{old:?}"
        );
        let new_job = line(&detect(false, "slurm 23.02.7"));
        assert_eq!(new_job[1], "--exclusive");
        assert_eq!(srun_hostfile(&hosts), "n08\nn07\n");
        // Other launchers are left alone.
        let m = command_line(Launcher::Mpirun, None, false, Path::new("c"), &[]);
        assert_eq!(with_whole_node(m.clone(), &modern), m);
    }
}
