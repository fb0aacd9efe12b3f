//! Running the `contention` binary built for these tests, and the processes it starts: the
//! one command runner, the one temporary-directory helper, and the one lock that keeps jobs
//! which load the whole machine (MPI runs, network namespaces, emulated guests) apart.
//!
//! Every test module runs in one process (one test binary), so names and locks are shared:
//! [`temp_dir`] refuses a name already taken in this process, and [`one_job`] serialises
//! what separate test binaries used to serialise by running one after another.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The `contention` binary built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_contention");

/// A command for the binary, for callers that set more than arguments.
pub fn command() -> Command {
    Command::new(BIN)
}

/// Runs the binary with `args` and waits for it.
pub fn contention(args: &[&str]) -> Output {
    command().args(args).output().expect("binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `measure`'s options for a tiny run, where a test checks where ranks ran and what the
/// files say, never a bandwidth: one core count, small buffers and messages (two message
/// buffers: the default ring would dwarf a large last-level cache, gigabytes to touch),
/// short phases.
pub const TINY: &[&str] = &[
    "--numa",
    "0,0",
    "--cores",
    "1",
    "--message-size",
    "1MiB",
    "--buffer-size",
    "8MiB",
    "--max-phase",
    "0.2",
    "--message-buffers",
    "2",
];

/// [`TINY`] for a survey: two core counts (a survey refuses one, which gives no node a
/// model), no placement (a survey measures `0,0`), the same small buffers, messages and
/// phases; the second count shares the communication thread's core on a 2-core machine, as
/// `measure` plans it there by itself.
pub const SURVEY_TINY: &[&str] = &[
    "--cores",
    "1..2",
    "--message-size",
    "1MiB",
    "--buffer-size",
    "8MiB",
    "--max-phase",
    "0.2",
    "--message-buffers",
    "2",
];

/// A JSON file (a trace, a manifest), parsed; panics naming it.
pub fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Exit status, standard output and standard error, for an assertion's message.
pub fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    )
}

/// A fresh, empty directory for one test, unique to this process. Each name may be taken
/// once per process (the test modules share one): a second use panics, so two tests cannot
/// write into each other's files. Name it after the module and the test.
pub fn temp_dir(name: &str) -> PathBuf {
    static TAKEN: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let fresh = TAKEN
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(name.to_string());
    assert!(
        fresh,
        "temp_dir({name:?}) is used by two tests: give each its own name"
    );
    let d = std::env::temp_dir().join(format!("contention-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Held while a test runs a job that loads the whole machine (an MPI run, two namespace
/// hosts, an emulated guest): two at once on a small machine only slow each other into
/// their timeouts. A test that panicked while holding it does not poison it for the rest.
pub fn one_job() -> MutexGuard<'static, ()> {
    static JOB: Mutex<()> = Mutex::new(());
    JOB.lock().unwrap_or_else(|p| p.into_inner())
}

/// What `measure ARGS` (arguments after `measure`) says it will take on this machine, from
/// its plan (`--dry-run`'s `duration` line): the sweep, and touching the buffers it sized.
fn plan_seconds(args: &[&str]) -> (f64, f64) {
    let o = command()
        .arg("measure")
        .args(args)
        .arg("--dry-run")
        .output()
        .expect("binary runs");
    let plan = stdout(&o);
    let line = plan
        .lines()
        .find(|l| l.starts_with("duration"))
        .unwrap_or_else(|| panic!("no duration in the plan of {args:?}:\n{}", text(&o)));
    // "duration    at most 11 s (+4 s to touch the buffers ...); about 4-6 s when no phase
    // runs past --max-phase ..."
    let numbers: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    match numbers[..] {
        [sweep, touch, ..] => (sweep, touch),
        _ => panic!("unreadable duration line: {line}"),
    }
}

/// How long a test waits for `measure ARGS` to have started its sweep (its trace written):
/// a minute for MPI's start, plus three times the plan's own time to touch the buffers, so
/// a loaded machine with big caches (big buffers) does not fail the wait.
pub fn start_limit(args: &[&str]) -> Duration {
    Duration::from_secs_f64(60.0 + 3.0 * plan_seconds(args).1)
}

/// How long a test waits for a whole `measure ARGS`: [`start_limit`] plus three times the
/// plan's estimate of the sweep.
pub fn run_limit(args: &[&str]) -> Duration {
    let (sweep, touch) = plan_seconds(args);
    Duration::from_secs_f64(60.0 + 3.0 * (sweep + touch))
}

/// Polls `ready` every 100 ms; panics naming `what` after `limit`.
pub fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits for `child` (a `measure` run) to end; kills it and panics after `limit`.
pub fn wait_exit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("measure did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Live processes other than `except` whose command line names `out`: the launcher program
/// and the ranks of a job writing `out` (found through /proc, as a user would with `ps`).
pub fn job_pids(out: &Path, except: u32) -> Vec<i32> {
    let out = out.to_string_lossy().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid as u32 != except)
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // A zombie has done its work; only live processes count.
            String::from_utf8_lossy(&cmd).contains(&out) && !state.contains(") Z ")
        })
        .collect()
}

/// The processes of a job writing `out` whose environment says they are MPI rank `rank`.
pub fn rank_pids(out: &Path, rank: u32) -> Vec<i32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    job_pids(out, 0)
        .into_iter()
        .filter(|pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            env.split(|&b| b == 0).any(|kv| kv == want.as_bytes())
        })
        .collect()
}
