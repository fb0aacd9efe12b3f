//! Two MPI hosts on one machine (`tests/vm/two-hosts.sh`: network and UTS namespaces joined
//! by a veth pair, Open MPI's remote daemon started through an rsh agent that enters the
//! other namespaces): `measure --hosts A,B` puts rank 0 on A and rank 1 on B and records
//! both; `network --run --hosts` puts each graph node's ranks on its host; the namespaces
//! are gone afterwards, also after a failure or an interrupt.
//!
//! Runs are tiny: the messages cross a veth pair in this machine's memory, so the test
//! checks where ranks ran and what the trace says, never a bandwidth.

use crate::common::gate;
use crate::common::hosts::{self, hosts_made, runnable};
use crate::common::run::{command, one_job, temp_dir, text, BIN, TINY};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = "tests/vm/two-hosts.sh";

/// The two hosts' names for a test (namespace names are global to the machine).
fn names(tag: char) -> (String, String) {
    let n = hosts::names('c', tag, 2);
    (n[0].clone(), n[1].clone())
}

fn on_hosts(a: &str, b: &str, cmd: &[&str]) -> Output {
    Command::new("bash")
        .arg(SCRIPT)
        .args([a, b, "--"])
        .args(cmd)
        .stdin(Stdio::null())
        .output()
        .expect("bash runs")
}

/// The namespaces and veth ends named `a` or `b` that exist now (while the hosts are up, the
/// veth ends live inside the namespaces: only the two namespaces show here).
fn leftovers(a: &str, b: &str) -> Vec<String> {
    let ns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&ns.stdout),
        String::from_utf8_lossy(&links.stdout)
    );
    text.split_whitespace()
        .map(|w| {
            w.trim_end_matches(':')
                .split('@')
                .next()
                .unwrap()
                .to_string()
        })
        .filter(|w| [a, b, &format!("v{a}"), &format!("v{b}")].contains(&w.as_str()))
        .collect()
}

#[test]
fn measure_puts_rank_0_on_the_first_host_and_rank_1_on_the_second() {
    if !runnable("measure_puts_rank_0_on_the_first_host_and_rank_1_on_the_second") {
        return;
    }
    let _one = one_job();
    let (a, b) = names('m');
    let d = temp_dir("2hosts-measure");
    let out = d.join("t.json");
    let t0 = Instant::now();
    let o = on_hosts(
        &a,
        &b,
        &[
            &[BIN, "measure"][..],
            TINY,
            &["--hosts", &format!("{a},{b}"), "-o", out.to_str().unwrap()],
        ]
        .concat(),
    );
    gate::say(&format!(
        "two hosts: measure --hosts took {:.1} s",
        t0.elapsed().as_secs_f64()
    ));
    if !hosts_made("measure --hosts", &o) {
        return;
    }
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        leftovers(&a, &b).is_empty(),
        "left behind: {:?}",
        leftovers(&a, &b)
    );
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    // Rank 0 (the measured node) ran on A: its machine is A's; both ranks' hosts recorded.
    assert_eq!(trace["machine"]["hostname"], a.as_str());
    assert_eq!(trace["mpi"]["hosts"], serde_json::json!([a, b]));
    // On a loaded CI machine (2026-11-30) a launch spent itself measuring again a refused
    // point of an earlier run, and the command exited 0 with 2 of 3 runs (fixed: it launches
    // again while runs are missing): say all there is to know if it comes back.
    assert_eq!(
        trace["complete"],
        true,
        "config.runs {}, runs saved {}: {}",
        trace["config"]["runs"],
        trace["runs"].as_array().map_or(0, Vec::len),
        text(&o)
    );
    let points = trace["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "{points:?}");
    gate::say(&format!(
        "two hosts: trace excerpt: machine.hostname={} mpi={}",
        trace["machine"]["hostname"], trace["mpi"]
    ));
}

fn write_graph(d: &Path) -> PathBuf {
    let g = d.join("graph.json");
    // Two 1 MiB communications crossing between the two graph nodes, both at time 0.
    std::fs::write(
        &g,
        r#"{"alpha": 1e-9, "communications": [
            {"id": "ab", "src": "n1", "dst": "n2", "bytes": 1048576},
            {"id": "ba", "src": "n2", "dst": "n1", "bytes": 1048576}]}"#,
    )
    .unwrap();
    g
}

#[test]
fn network_run_puts_each_graph_node_on_its_host() {
    if !runnable("network_run_puts_each_graph_node_on_its_host") {
        return;
    }
    let _one = one_job();
    let (a, b) = names('n');
    let d = temp_dir("2hosts-network");
    let g = write_graph(&d);
    let t0 = Instant::now();
    let o = on_hosts(
        &a,
        &b,
        &[
            BIN,
            "network",
            g.to_str().unwrap(),
            "--run",
            "--repeat",
            "2",
            "--hosts",
            &format!("n1={a},n2={b}"),
            "--format",
            "json",
        ],
    );
    gate::say(&format!(
        "two hosts: network --run --hosts took {:.1} s",
        t0.elapsed().as_secs_f64()
    ));
    if !hosts_made("network --run --hosts", &o) {
        return;
    }
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        leftovers(&a, &b).is_empty(),
        "left behind: {:?}",
        leftovers(&a, &b)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("--mca rmaps seq --host {a},{b},{b},{a}")),
        "{err}"
    );
    // Every end ran where --hosts asked: no warning of a misplaced end.
    assert!(!err.contains("warning: the"), "{err}");
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let measured = report["measured"].as_array().expect("measured[]");
    let ends: Vec<(String, String, String)> = measured
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["src_host"].as_str().unwrap().to_string(),
                m["dst_host"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        ends,
        [
            ("ab".to_string(), a.clone(), b.clone()),
            ("ba".to_string(), b.clone(), a.clone())
        ]
    );
    for m in measured {
        assert_eq!(m["times"].as_array().unwrap().len(), 2, "{m}");
    }
}

#[test]
fn network_hosts_must_name_every_graph_node() {
    // No namespaces needed: refused before any launch.
    let d = temp_dir("2hosts-unmapped");
    let g = write_graph(&d);
    let o = command()
        .args(["network", g.to_str().unwrap(), "--run", "--hosts", "n1=x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("n2") && err.contains("n1=HOST,n2=HOST"),
        "{err}"
    );
}

#[test]
fn hosts_are_removed_when_the_command_fails() {
    if !runnable("hosts_are_removed_when_the_command_fails") {
        return;
    }
    let _one = one_job();
    let (a, b) = names('f');
    let o = on_hosts(&a, &b, &["sh", "-c", "hostname; exit 7"]);
    if !hosts_made("failing command", &o) {
        return;
    }
    assert_eq!(o.status.code(), Some(7), "{}", text(&o));
    // The command ran inside A's own UTS namespace.
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), a);
    assert!(
        leftovers(&a, &b).is_empty(),
        "left behind: {:?}",
        leftovers(&a, &b)
    );
}

#[test]
fn hosts_are_removed_when_interrupted() {
    if !runnable("hosts_are_removed_when_interrupted") {
        return;
    }
    let _one = one_job();
    let (a, b) = names('i');
    let d = temp_dir("2hosts-interrupted");
    let pidfile = d.join("pid");
    let inner = format!("echo $$ > {}; exec sleep 600", pidfile.display());
    // SIGINT at its default for the script, as in a terminal: a test runner started in the
    // background of a non-interactive shell inherits it ignored, and bash cannot trap a
    // signal ignored when it starts (POSIX, "trap").
    let child = Command::new("env")
        .args(["--default-signal=INT", "bash", SCRIPT])
        .args([&a, &b, "--", "sh", "-c", &inner])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut guard = Interrupt(Some(child));
    let child = guard.0.as_mut().unwrap();
    // Wait (bounded) until both namespaces exist and the command runs, then interrupt. Not
    // before: a SIGINT sent to bash alone while a foreground `ip` of the set-up runs is
    // dropped once `ip` exits normally (bash's wait-and-cooperative-exit rule), so the set-up
    // would go on. Ctrl-C in a terminal reaches `ip` too, which then dies of it and the trap
    // runs; the test signals the script alone, so it waits for the command to start.
    let until = Instant::now() + Duration::from_secs(180);
    while (leftovers(&a, &b).len() < 2 || !pidfile.exists()) && Instant::now() < until {
        if let Some(status) = child.try_wait().unwrap() {
            let o = guard.0.take().unwrap().wait_with_output().unwrap();
            let o = Output { status, ..o };
            if !hosts_made("interrupted command", &o) {
                return;
            }
            panic!("two-hosts.sh ended before the interrupt: {}", text(&o));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(leftovers(&a, &b).len(), 2, "{:?}", leftovers(&a, &b));
    assert!(pidfile.exists(), "the command did not start within 180 s");
    // SIGINT, as Ctrl-C sends it to the script.
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let o = guard.0.take().unwrap().wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    assert!(
        leftovers(&a, &b).is_empty(),
        "left behind: {:?}",
        leftovers(&a, &b)
    );
    // The command inside was ended too, not left running in a namespace that is gone.
    let inner_pid = std::fs::read_to_string(&pidfile).unwrap();
    let alive = Command::new("kill")
        .args(["-0", inner_pid.trim()])
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(
        !alive,
        "the command (pid {}) outlived the script",
        inner_pid.trim()
    );
}

/// Interrupts the script if the test fails while it runs, so its trap removes the hosts.
struct Interrupt(Option<std::process::Child>);

impl Drop for Interrupt {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let _ = c.wait();
        }
    }
}
