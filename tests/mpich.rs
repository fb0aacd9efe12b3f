//! The tool built against MPICH (`tests/common/mpich.rs` builds it as docs/guide.md says) and run
//! where Open MPI is installed too, as on Debian with both: started from a shell it finds
//! MPICH's own launcher (Hydra's `mpiexec`), not the default `mpirun`, which is Open MPI's;
//! one host, two namespace hosts (`tests/vm/two-hosts.sh`, Hydra's proxies started through
//! the same rsh agent as Open MPI's daemons) and a survey of three (`tests/vm/hosts.sh`). A
//! build started under the other library's launcher is refused, naming both, instead of
//! running as lone ranks. Runs are tiny: the tests check who ran where and what the traces
//! record, never a bandwidth.

use crate::common::gate;
use crate::common::hosts::{self, hosts_made};
use crate::common::mpich;
use crate::common::run::{json, one_job, temp_dir, text, BIN, SURVEY_TINY, TINY};

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The trace's `mpi` says MPICH, in short (not its configure line), started by Hydra.
fn check_mpich(trace: &Value) {
    let mpi = &trace["mpi"];
    assert!(
        mpi["library"].as_str().unwrap().starts_with("MPICH "),
        "{mpi}"
    );
    let version = mpi["library_version"].as_str().unwrap();
    assert!(
        version.starts_with("MPICH Version:") && !version.contains("configure"),
        "{version}"
    );
    assert!(
        mpi["launcher"]
            .as_str()
            .unwrap()
            .starts_with("Hydra mpiexec"),
        "{mpi}"
    );
}

/// Runs `cmd` (a command line) and kills it after `limit`: a refused launch must end, not
/// hang waiting for a peer.
fn bounded(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}: {}", text(&o));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn measure_on_one_host_starts_mpichs_own_launcher() {
    if !mpich::runnable("measure_on_one_host_starts_mpichs_own_launcher") {
        return;
    }
    let bin = mpich::binary();
    let _one = one_job();
    let d = temp_dir("mpich-one-host");
    let out = d.join("t.json");
    let o = Command::new(&bin)
        .arg("measure")
        .args(TINY)
        .args(["--shared-comm-core", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    // Hydra, under one of its names: never the `mpirun` on PATH, which is Open MPI's.
    let started = err
        .lines()
        .find_map(|l| l.strip_prefix("measure: starting "))
        .unwrap_or_else(|| panic!("no launch line: {err}"));
    assert!(started.starts_with("mpiexec"), "{started}");
    assert!(started.contains(" -bind-to none "), "{started}");
    let t = json(&out);
    check_mpich(&t);
    assert_eq!(t["complete"], true);
    gate::say(&format!(
        "mpich: one host: trace excerpt: mpi.library={} mpi.launcher={} mpi.hosts={}",
        t["mpi"]["library"], t["mpi"]["launcher"], t["mpi"]["hosts"]
    ));
}

#[test]
fn measure_across_two_hosts_with_mpich() {
    if !mpich::runnable("measure_across_two_hosts_with_mpich")
        || !hosts::runnable("measure_across_two_hosts_with_mpich")
    {
        return;
    }
    let bin = mpich::binary();
    let _one = one_job();
    let names = hosts::names('p', 'm', 2);
    let (a, b) = (&names[0], &names[1]);
    let d = temp_dir("mpich-two-hosts");
    let out = d.join("t.json");
    let o = Command::new("bash")
        .args(["tests/vm/two-hosts.sh", a, b, "--"])
        .arg(&bin)
        .arg("measure")
        .args(TINY)
        .args(["--hosts", &format!("{a},{b}"), "-o", out.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if !hosts_made("MPICH measure --hosts", &o) {
        return;
    }
    assert!(o.status.success(), "{}", text(&o));
    let t = json(&out);
    check_mpich(&t);
    assert_eq!(t["machine"]["hostname"], a.as_str());
    assert_eq!(t["mpi"]["hosts"], serde_json::json!([a, b]));
    assert_eq!(t["transport"]["kind"], "network");
    gate::say(&format!(
        "mpich: two hosts: trace excerpt: mpi.library={} mpi.launcher={} mpi.hosts={} \
         transport={}",
        t["mpi"]["library"], t["mpi"]["launcher"], t["mpi"]["hosts"], t["transport"]["kind"]
    ));
}

#[test]
fn a_survey_of_three_hosts_with_mpich() {
    if !mpich::runnable("a_survey_of_three_hosts_with_mpich")
        || !hosts::runnable("a_survey_of_three_hosts_with_mpich")
    {
        return;
    }
    let bin = mpich::binary();
    let _one = one_job();
    let names = hosts::names('p', 's', 3);
    let results = temp_dir("mpich-survey");
    let o = Command::new("bash")
        .arg("tests/vm/hosts.sh")
        .args(&names)
        .arg("--")
        .arg(&bin)
        .args(["survey", "--hosts", &names.join(",")])
        .args(SURVEY_TINY)
        // One run per node: what these check is the library's job, not the second stage.
        .args(["--runs", "1"])
        .env("CONTENTION_RESULTS", &results)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if !hosts_made("MPICH survey", &o) {
        return;
    }
    assert!(hosts::survey_ended(&o), "{}", text(&o));
    let m = json(&results.join("survey.json"));
    // One Hydra job, one rank per host in the manifest's order.
    let command: Vec<&str> = m["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(command[0].starts_with("mpiexec"), "{command:?}");
    assert!(
        command
            .windows(2)
            .any(|w| w == ["-hosts", &names.join(",")]),
        "{command:?}"
    );
    for (node, host) in m["nodes"].as_array().unwrap().iter().zip(&names) {
        assert_eq!(node["host"], host.as_str());
        assert_eq!(node["status"], "done", "{node}");
        let t = json(&results.join(host).join("trace-numa0-0-nt-store-pong.json"));
        check_mpich(&t);
        assert_eq!(t["mpi"]["hosts"][0], host.as_str());
        assert_eq!(t["mpi"]["hosts"][1], node["sender"]);
        assert_eq!(t["transport"]["kind"], "network", "{host}");
    }
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("# fleet of 3 node(s)"), "{}", text(&o));
}

#[test]
fn each_build_refuses_the_other_librarys_launcher() {
    if !mpich::runnable("each_build_refuses_the_other_librarys_launcher") {
        return;
    }
    let bin = mpich::binary();
    let _one = one_job();
    let d = temp_dir("mpich-foreign");
    let out = d.join("t.json");
    let args = |c: &mut Command, exe: &Path| {
        c.arg(exe).arg("measure").args(TINY).args([
            "--shared-comm-core",
            "-o",
            out.to_str().unwrap(),
        ]);
    };
    // The MPICH build under Open MPI's mpirun (the machine's default `mpirun`).
    let mut c = Command::new("mpirun");
    c.args(["-np", "2", "--oversubscribe", "--allow-run-as-root"]);
    args(&mut c, &bin);
    let o = bounded(&mut c, Duration::from_secs(120));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("built against MPICH")
            && err.contains("started by Open MPI's mpirun")
            && err.contains("mpiexec -n 2"),
        "{err}"
    );
    // Said once, by rank 0, not by every rank.
    assert_eq!(err.matches("built against").count(), 1, "{err}");
    // The Open MPI build under MPICH's Hydra.
    let mut c = Command::new("mpiexec.mpich");
    c.args(["-n", "2"]);
    args(&mut c, Path::new(BIN));
    let o = bounded(&mut c, Duration::from_secs(120));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("built against Open MPI")
            && err.contains("started by MPICH's mpiexec (Hydra)")
            && err.contains("mpirun -np 2"),
        "{err}"
    );
    assert!(!out.exists(), "a refused run wrote a trace");
    // One rank under its own launcher is a wrong count, and the advice is that launcher's.
    let o = bounded(
        Command::new("mpiexec.mpich")
            .args(["-n", "1"])
            .arg(&bin)
            .arg("measure")
            .args(TINY),
        Duration::from_secs(120),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("needs exactly 2 MPI ranks, got 1") && err.contains("`mpiexec -n 2`"),
        "{err}"
    );
}
