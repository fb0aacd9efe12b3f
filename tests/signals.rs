//! Signals and processes of a real `measure` run (Open MPI on this machine): a signal to the
//! launcher's own PID reaches the job, a launcher killed by SIGKILL takes the job with it,
//! and a killed rank ends the run with exit 1 and the `--resume` hint.

use contention::io::trace_file;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One MPI job at a time: the machine has few cores.
static MPI: Mutex<()> = Mutex::new(());

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("contention-signals-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A run that keeps measuring (phases that never count as stable) until stopped.
fn start(out: &Path, cores: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_contention"))
        .args([
            "measure",
            "--numa",
            "0,0",
            "--cores",
            cores,
            "--shared-comm-core",
            "--message-size",
            "4MiB",
            "--buffer-size",
            "16MiB",
            "--max-phase",
            "60",
            "--stable-within",
            "0.01",
            "--timeout",
            "20",
            "--quiet",
            "-o",
        ])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Processes (other than the launcher) whose command line names `out`: the launcher program
/// and the ranks.
fn job_pids(out: &Path, except: u32) -> Vec<i32> {
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

fn rank_pids(out: &Path, rank: u32) -> Vec<i32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    job_pids(out, 0)
        .into_iter()
        .filter(|pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            env.split(|&b| b == 0).any(|kv| kv == want.as_bytes())
        })
        .collect()
}

fn wait_for(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_exit(child: &mut Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("measure did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, err)
}

fn kill(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) on a process this test started or found; no memory is involved.
    unsafe { libc::kill(pid, sig) };
}

/// Item 8: `kill -TERM` (or -INT, -HUP) to the launcher's PID was ignored and the run
/// completed with exit 0.
#[test]
fn a_signal_to_the_launcher_reaches_the_job() {
    let _one = MPI.lock().unwrap_or_else(|p| p.into_inner());
    for (name, sig) in [("term", libc::SIGTERM), ("hup", libc::SIGHUP)] {
        let d = dir(name);
        let out = d.join("t.json");
        let mut child = start(&out, "1");
        wait_for("rank 1", Duration::from_secs(60), || {
            !rank_pids(&out, 1).is_empty()
        });
        wait_for("the trace", Duration::from_secs(60), || out.exists());
        kill(child.id() as i32, sig);
        let (status, err) = wait_exit(&mut child, Duration::from_secs(60));
        assert_eq!(status.code(), Some(130), "{name}: {err}");
        assert!(err.contains("--resume"), "{name}: {err}");
        assert!(
            trace_file::read(&out).is_ok(),
            "{name}: the trace stays valid"
        );
        wait_for("the job to end", Duration::from_secs(30), || {
            job_pids(&out, child.id()).is_empty()
        });
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// Item 8: a launcher killed by SIGKILL left the job running and writing the trace.
#[test]
fn a_launcher_killed_by_sigkill_takes_the_job_with_it() {
    let _one = MPI.lock().unwrap_or_else(|p| p.into_inner());
    let d = dir("sigkill");
    let out = d.join("t.json");
    let mut child = start(&out, "1");
    wait_for("rank 1", Duration::from_secs(60), || {
        !rank_pids(&out, 1).is_empty()
    });
    wait_for("the trace", Duration::from_secs(60), || out.exists());
    kill(child.id() as i32, libc::SIGKILL);
    let _ = child.wait();
    wait_for("the orphaned job to end", Duration::from_secs(40), || {
        job_pids(&out, child.id()).is_empty()
    });
    // Nobody writes the trace any more.
    let before = std::fs::metadata(&out).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), before);
    assert!(trace_file::read(&out).is_ok());
    std::fs::remove_dir_all(d).unwrap();
}

/// Item 8: killing rank 1 gave exit 137 and no `--resume` hint; the README promises exit 1.
#[test]
fn a_killed_rank_gives_exit_1_and_the_resume_hint() {
    let _one = MPI.lock().unwrap_or_else(|p| p.into_inner());
    let d = dir("rank1");
    let out = d.join("t.json");
    let mut child = start(&out, "1");
    wait_for("rank 1", Duration::from_secs(60), || {
        !rank_pids(&out, 1).is_empty()
    });
    wait_for("the trace", Duration::from_secs(60), || out.exists());
    for pid in rank_pids(&out, 1) {
        kill(pid, libc::SIGKILL);
    }
    let (status, err) = wait_exit(&mut child, Duration::from_secs(90));
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("--resume"), "{err}");
    assert!(trace_file::read(&out).is_ok());
    wait_for("the job to end", Duration::from_secs(30), || {
        job_pids(&out, child.id()).is_empty()
    });
    std::fs::remove_dir_all(d).unwrap();
}
