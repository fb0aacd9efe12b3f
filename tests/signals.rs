//! Signals and processes of a real `measure` run (Open MPI on this machine): a signal to the
//! launcher's own PID reaches the job, a launcher killed by SIGKILL takes the job with it,
//! and a killed rank ends the run with exit 1 and the `--resume` hint.

use crate::common::run::{
    self, command, job_pids, one_job, rank_pids, start_limit, temp_dir, wait_for,
};
use contention::io::trace_file;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

/// The options of a run that keeps measuring (phases that never count as stable) until
/// stopped; two message buffers (the default ring would dwarf a large last-level cache).
fn args(cores: &str) -> Vec<&str> {
    vec![
        "--numa",
        "0,0",
        "--cores",
        cores,
        "--shared-comm-core",
        "--message-size",
        "4MiB",
        "--buffer-size",
        "16MiB",
        "--message-buffers",
        "2",
        "--max-phase",
        "60",
        "--stable-within",
        "0.01",
        "--timeout",
        "20",
        "--quiet",
    ]
}

/// Starts that run on `cores`, and says how long it may take to start its sweep (from its
/// own plan).
fn start(out: &Path, cores: &str) -> (Child, Duration) {
    let child = command()
        .arg("measure")
        .args(args(cores))
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, start_limit(&args(cores)))
}

/// Waits for the run to end, and returns its exit status and standard error.
fn wait_exit(child: &mut Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let status = run::wait_exit(child, limit);
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
    let _one = one_job();
    for (name, sig) in [("term", libc::SIGTERM), ("hup", libc::SIGHUP)] {
        let d = temp_dir(&format!("signals-{name}"));
        let out = d.join("t.json");
        let (mut child, started) = start(&out, "1");
        wait_for("rank 1", started, || !rank_pids(&out, 1).is_empty());
        wait_for("the trace", started, || out.exists());
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
    let _one = one_job();
    let d = temp_dir("signals-sigkill");
    let out = d.join("t.json");
    let (mut child, started) = start(&out, "1");
    wait_for("rank 1", started, || !rank_pids(&out, 1).is_empty());
    wait_for("the trace", started, || out.exists());
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

/// Item 8: killing rank 1 gave exit 137 and no `--resume` hint; docs/guide.md promises exit 1.
#[test]
fn a_killed_rank_gives_exit_1_and_the_resume_hint() {
    let _one = one_job();
    let d = temp_dir("signals-rank1");
    let out = d.join("t.json");
    let (mut child, started) = start(&out, "1");
    wait_for("rank 1", started, || !rank_pids(&out, 1).is_empty());
    wait_for("the trace", started, || out.exists());
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
