//! `contention survey` on namespace hosts (`tests/vm/hosts.sh`: one network and UTS
//! namespace per host, joined by a bridge; Open MPI's remote daemons started through an rsh
//! agent that enters the host's namespaces): 4 hosts, each measured exactly once (`--runs
//! 1`); the default `--runs auto`, whose second job measures the nodes the first runs'
//! report chose, and a survey cut in that second job resumed; 5 hosts (the odd one measured
//! in a third round); a host killed mid-survey, then `--resume` completing it with the
//! finished nodes kept; a host with less free memory whose traces differ. Plus the checks
//! that need no hosts (one node refused, the dry run's plan, old traces refused).
//!
//! Runs are tiny (two core counts, the fewest a node's model is calibrated from; small
//! buffers and messages, short phases): the hosts share this machine's cores and memory, so
//! the tests check who measured what and what the files say, never a bandwidth or a
//! duration.

use crate::common::gate;
use crate::common::hosts::{hosts_made, runnable};
use crate::common::run::{one_job, temp_dir, text, BIN};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

const SCRIPT: &str = "tests/vm/hosts.sh";
const TRACE: &str = "trace-numa0-0-nt-store-pong.json";

/// `measure`'s options for every survey here: two core counts (unless a test gives its own;
/// a survey refuses one, which gives no node a model), small messages (and short phases,
/// `--max-phase`, given by each test).
const TINY: &[&str] = &["--cores", "1..2", "--message-size", "1MiB"];

/// One run per node, for the tests of something else than `--runs auto`'s second stage (each
/// node measured exactly once, in the rounds the manifest lists).
const ONCE: &[&str] = &["--runs", "1"];

/// Short phases.
const SHORT: &[&str] = &["--max-phase", "0.2"];

/// Small buffers (two 8 MiB ones for the communications) and short phases: the quickest
/// sweep a node's model is still calibrated from.
const SMALL: &[&str] = &[
    "--buffer-size",
    "8MiB",
    "--message-buffers",
    "2",
    "--max-phase",
    "0.2",
];

/// `n` host names unique to this process and test.
fn names(tag: char, n: usize) -> Vec<String> {
    crate::common::hosts::names('s', tag, n)
}

/// The test's results directory.
fn dir(name: &str) -> PathBuf {
    temp_dir(&format!("survey-{name}"))
}

/// A namespace test's start: `None` (skipped, saying why) where hosts cannot run here; else
/// the machine held for this test, `n` host names and a fresh results directory `name`.
fn start(
    test: &str,
    tag: char,
    n: usize,
    name: &str,
) -> Option<(MutexGuard<'static, ()>, Vec<String>, PathBuf)> {
    if !runnable(test) {
        return None;
    }
    Some((one_job(), names(tag, n), dir(name)))
}

fn survey_command(hosts: &[String], results: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new("bash");
    c.arg(SCRIPT)
        .args(hosts)
        .arg("--")
        .args([BIN, "survey", "--hosts", &hosts.join(",")])
        // `--adaptive` chooses its own core counts.
        .args(
            if extra.contains(&"--cores") || extra.contains(&"--adaptive") {
                &TINY[2..]
            } else {
                TINY
            },
        )
        .args(extra)
        .env("CONTENTION_RESULTS", results)
        .stdin(Stdio::null());
    c
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Every host done, its trace in its own directory naming it and its sender (another host);
/// the latest job's rounds measure each of `in_job` exactly once, no node twice in a round.
fn check_all_done(results: &Path, hosts: &[String], in_job: &[String]) -> Value {
    let m = json(&results.join("survey.json"));
    let listed: Vec<&str> = m["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(listed, hosts, "{m:#}");
    let mut measured: Vec<String> = Vec::new();
    for round in m["rounds"].as_array().unwrap() {
        let mut busy: Vec<&str> = Vec::new();
        for p in round["pairs"].as_array().unwrap() {
            let (a, b) = (
                p["measured"].as_str().unwrap(),
                p["sender"].as_str().unwrap(),
            );
            assert!(
                !busy.contains(&a) && !busy.contains(&b),
                "a node twice in {round}"
            );
            busy.extend([a, b]);
            measured.push(a.to_string());
        }
    }
    let mut sorted = measured.clone();
    sorted.sort();
    let mut want = in_job.to_vec();
    want.sort();
    assert_eq!(sorted, want, "each host measured exactly once: {m:#}");
    for node in m["nodes"].as_array().unwrap() {
        let host = node["host"].as_str().unwrap();
        assert_eq!(node["status"], "done", "{node}");
        let trace_path = results.join(host).join(TRACE);
        let traces: Vec<&str> = node["traces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert!(traces.contains(&trace_path.to_str().unwrap()), "{node}");
        let t = json(&trace_path);
        assert_eq!(t["complete"], true, "{host}");
        assert_eq!(t["machine"]["hostname"], host);
        assert_eq!(t["mpi"]["hosts"][0], host);
        assert_eq!(t["mpi"]["hosts"][1], node["sender"], "{host}'s sender");
        assert_ne!(t["mpi"]["hosts"][1], host);
        assert_eq!(t["transport"]["kind"], "network", "{host}");
    }
    m
}

#[test]
fn four_hosts_are_each_measured_once() {
    let Some((_one, hosts, results)) = start("four_hosts_are_each_measured_once", 'f', 4, "four")
    else {
        return;
    };
    let t0 = Instant::now();
    let o = survey_command(
        &hosts,
        &results,
        &[&["--runs", "1", "--cores", "1..2"], SMALL].concat(),
    )
    .output()
    .unwrap();
    gate::say(&format!(
        "survey of 4 namespace hosts took {:.1} s",
        t0.elapsed().as_secs_f64()
    ));
    if !hosts_made("survey of 4 hosts", &o) {
        return;
    }
    measured_all(&o);
    let m = check_all_done(&results, &hosts, &hosts);
    // An even count: two rounds of two pairs on distinct machines; these four hosts are one
    // kernel, so each pair gets a round of its own, in the same order.
    let rounds = m["rounds"].as_array().unwrap();
    let pairs: Vec<(usize, usize)> = rounds
        .iter()
        .map(|r| {
            assert_eq!(r["pairs"].as_array().unwrap().len(), 1, "{m:#}");
            let at = |k: &str| hosts.iter().position(|h| r["pairs"][0][k] == h.as_str());
            (at("measured").unwrap(), at("sender").unwrap())
        })
        .collect();
    assert_eq!(pairs, [(0, 2), (1, 3), (2, 0), (3, 1)], "{m:#}");
    assert!(m.get("odd_count").is_none());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "share one machine (one kernel's boot id): their pairs are measured one \
             round at a time, 4 round(s) in all"
        ),
        "{err}"
    );
    assert!(err.contains("survey: 4 of 4 node(s) done"), "{err}");
    assert!(err.contains("survey: 4 of 4 node(s) measured, "), "{err}");
    // The fleet report follows on standard output, the figure in the results directory.
    // Whether each node calibrates depends on its samples (on this loaded 2-core machine a
    // node's curve can be refused as implausible): every node is in the report either way,
    // calibrated with its model beside its traces, or listed with the reason.
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("# fleet of 4 node(s)"), "{}", text(&o));
    assert!(results.join("fleet.svg").exists());
    // --report-only rebuilds it from the results, running nothing: every host listed.
    let r = report_only_json(&results);
    let nodes = r["nodes"].as_array().unwrap();
    let listed: Vec<&str> = nodes.iter().map(|n| n["host"].as_str().unwrap()).collect();
    assert_eq!(listed, hosts, "{r:#}");
    for n in nodes {
        let host = n["host"].as_str().unwrap();
        assert_eq!(n["status"], "done", "{n}");
        if n["calibrated"] == true {
            assert!(results.join(host).join("model.json").exists(), "{host}");
        } else {
            assert!(n["error"].as_str().is_some_and(|e| !e.is_empty()), "{n}");
            assert!(
                table.contains(&format!("  {host}: calibration failed")),
                "{table}"
            );
        }
    }
}

#[test]
fn two_runs_measure_every_node_twice_in_other_rounds_and_the_band_knows_it() {
    let Some((_one, hosts, results)) = start(
        "two_runs_measure_every_node_twice_in_other_rounds_and_the_band_knows_it",
        'r',
        2,
        "runs",
    ) else {
        return;
    };
    let o = survey_command(
        &hosts,
        &results,
        &[
            &["--runs", "2", "--cores", "1..2", "--buffer-size", "8MiB"][..],
            &["--message-buffers", "2"],
            SHORT,
        ]
        .concat(),
    )
    .output()
    .unwrap();
    if !hosts_made("survey of 2 runs", &o) {
        return;
    }
    measured_all(&o);
    let m = json(&results.join("survey.json"));
    assert_eq!(m["options"]["--runs"], "2", "{m:#}");
    // Each node twice, once per run, its two runs in different rounds.
    let rounds = m["rounds"].as_array().unwrap();
    for h in &hosts {
        let at: Vec<(u64, usize)> = rounds
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r["pairs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p["measured"] == h.as_str())
            })
            .map(|(i, r)| (r["run"].as_u64().unwrap_or(1), i))
            .collect();
        assert_eq!(at.len(), 2, "{h}: {m:#}");
        assert_eq!((at[0].0, at[1].0), (1, 2), "{h}: {m:#}");
    }
    for (node, h) in m["nodes"].as_array().unwrap().iter().zip(&hosts) {
        assert_eq!(
            (&node["status"], &node["runs_done"]),
            (&"done".into(), &2.into()),
            "{node}"
        );
        for dir in [results.join(h), results.join(h).join("run2")] {
            let trace = dir.join(TRACE);
            assert!(
                node["traces"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|t| t == trace.to_str().unwrap()),
                "{node}"
            );
            let t = json(&trace);
            assert_eq!(
                (&t["complete"], &t["machine"]["hostname"]),
                (&true.into(), &h.as_str().into())
            );
        }
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("finished (run 2 of 2: "), "{err}");
    // The report: every node whose two runs calibrated has its band know its own noise
    // between runs. On a loaded machine a run's curve can be refused by calibrate (seen in
    // CI, 2026-11-30: no second run of any node calibrated); such a node has no
    // `other_run`, and its source says what the band used instead.
    let r = report_only_json(&results);
    for n in r["nodes"].as_array().unwrap() {
        if n["calibrated"] == true && !n["other_run"].is_null() {
            assert_eq!(n["run_noise_source"], "own_runs", "{n}");
        } else if n["calibrated"] == true {
            assert_ne!(n["run_noise_source"], "own_runs", "{n}");
        }
    }
}

/// The strings of the JSON array `v` (empty when it is none).
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// What `--runs auto` chose (`second_runs`, by the names given) in the manifest `m`, checked
/// against the fleet report `r` of the same results (which names each node by the host name
/// it reported, the given one beside it): the nodes chosen are half the calibrated ones (at
/// least one; on 4 nodes the band's suspects and the sample of at least 4 fill that cap), all
/// of them calibrated, and at least one (a survey whose first runs calibrated no node chooses
/// none: then this test cannot check a second stage, and fails saying so).
fn chosen(m: &Value, r: &Value) -> Vec<String> {
    let again = strings(&m["second_runs"]);
    assert!(
        m["second_runs"].is_array(),
        "no second stage recorded: {m:#}"
    );
    let calibrated: Vec<String> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["calibrated"] == true)
        .map(|n| {
            n["given"]
                .as_str()
                .unwrap_or_else(|| n["host"].as_str().unwrap())
        })
        .map(str::to_string)
        .collect();
    let want = if calibrated.is_empty() {
        0
    } else {
        (calibrated.len() / 2).max(1)
    };
    assert_eq!(again.len(), want, "{calibrated:?} calibrated: {m:#}");
    assert!(
        !again.is_empty(),
        "no node calibrated from its first run, so none measured again: {r:#}"
    );
    for h in &again {
        assert!(calibrated.contains(h), "{h} chosen, not calibrated: {r:#}");
    }
    again
}

/// The measured node of every pair of `m`'s rounds, sorted, each round's run.
fn measured_in(m: &Value) -> (Vec<String>, Vec<u64>) {
    let rounds = m["rounds"].as_array().unwrap();
    let mut measured: Vec<String> = rounds
        .iter()
        .flat_map(|r| r["pairs"].as_array().unwrap())
        .map(|p| p["measured"].as_str().unwrap().to_string())
        .collect();
    measured.sort();
    let runs = rounds
        .iter()
        .map(|r| r["run"].as_u64().unwrap_or(1))
        .collect();
    (measured, runs)
}

/// Each node of `m` done, with its first run's trace in its directory; the nodes of `again`
/// with their second run's in its `run2/` (complete, this host's, fed by another), the
/// others with none.
fn check_second_runs(results: &Path, m: &Value, again: &[String]) {
    for node in m["nodes"].as_array().unwrap() {
        let host = node["host"].as_str().unwrap();
        assert_eq!(node["status"], "done", "{node}");
        let first = results.join(host).join(TRACE);
        let second = results.join(host).join("run2").join(TRACE);
        let traces = strings(&node["traces"]);
        assert!(
            traces.contains(&first.to_str().unwrap().to_string()),
            "{node}"
        );
        if !again.iter().any(|h| h == host) {
            assert!(!second.exists(), "{host} was not chosen: {m:#}");
            assert!(node["runs_done"].as_u64().unwrap_or(0) <= 1, "{node}");
            continue;
        }
        assert_eq!(node["runs_done"], 2, "{node}");
        assert!(
            traces.contains(&second.to_str().unwrap().to_string()),
            "{node}"
        );
        let t = json(&second);
        assert_eq!(t["complete"], true, "{host}");
        assert_eq!(t["machine"]["hostname"], host);
        assert_eq!(t["mpi"]["hosts"][0], host);
        assert_ne!(t["mpi"]["hosts"][1], host);
    }
}

/// The fleet report `r` judged with the second runs of `again`: a node with a second run's
/// model is one of them and is judged on its own two runs, the others on the pooled spread;
/// a node named an outlier was measured twice (its second run confirmed it), a value not
/// named for want of a second run is a node's that was not, and one whose second run could
/// not be calibrated (often, on this loaded machine) is one of `again` without a model.
fn check_judged_with_second_runs(r: &Value, again: &[String]) {
    let twice: Vec<&str> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| !n["other_run"].is_null())
        .map(|n| n["host"].as_str().unwrap())
        .collect();
    for h in &twice {
        assert!(again.iter().any(|a| a == h), "{h} has a second run: {r:#}");
    }
    for n in r["nodes"].as_array().unwrap() {
        if n["calibrated"] != true {
            continue;
        }
        let source = if !n["other_run"].is_null() {
            "own_runs"
        } else if twice.is_empty() {
            "within_run"
        } else {
            "fleet_pooled"
        };
        assert_eq!(n["run_noise_source"], source, "{n}");
    }
    let band_rule = r["band_rule"].as_str().unwrap();
    if !twice.is_empty() {
        assert!(
            band_rule.contains(&format!("{} node(s) measured twice", twice.len())),
            "{band_rule}"
        );
    }
    for o in r["outliers"].as_array().unwrap() {
        let host = o["host"].as_str().unwrap();
        assert!(twice.contains(&host), "{host} named on one run: {r:#}");
    }
    for o in r["within_noise"].as_array().unwrap() {
        let host = o["host"].as_str().unwrap();
        match o["not_named"]["why"].as_str() {
            Some("no_second_run") => assert!(!again.iter().any(|a| a == host), "{o}"),
            Some("second_run_failed") => {
                assert!(
                    again.iter().any(|a| a == host) && !twice.contains(&host),
                    "{o}"
                )
            }
            Some("second_run") => assert!(twice.contains(&host), "{o}"),
            _ => {}
        }
    }
}

/// The default `--runs auto` on real nodes: every node once in a first job, then the nodes
/// the first runs' report chose measured again in a second job of those nodes and their
/// senders, each second trace in the node's `run2/`; the fleet report judges with them.
#[test]
fn auto_measures_the_chosen_nodes_again_in_a_second_job_and_the_report_judges_with_them() {
    let Some((_one, hosts, results)) = start(
        "auto_measures_the_chosen_nodes_again_in_a_second_job_and_the_report_judges_with_them",
        'u',
        4,
        "auto",
    ) else {
        return;
    };
    let o = survey_command(
        &hosts,
        &results,
        &[
            &["--buffer-size", "8MiB", "--message-buffers", "2"][..],
            SHORT,
        ]
        .concat(),
    )
    .output()
    .unwrap();
    if !hosts_made("survey of runs auto", &o) {
        return;
    }
    measured_all(&o);
    let m = json(&results.join("survey.json"));
    assert_eq!(m["options"]["--runs"], "auto", "{m:#}");
    let r = report_only_json(&results);
    let again = chosen(&m, &r);
    // The manifest holds the second job: only the chosen nodes measured, in run 2.
    assert_eq!(m["job"], 2, "{m:#}");
    let (measured, runs) = measured_in(&m);
    let mut want = again.clone();
    want.sort();
    assert_eq!(measured, want, "{m:#}");
    assert!(runs.iter().all(|&r| r == 2), "{m:#}");
    // Its hosts: the chosen nodes, paired among themselves, or one alone with a sender.
    let mut job_hosts = strings(&m["job_hosts"]);
    job_hosts.sort();
    if again.len() >= 2 {
        assert_eq!(job_hosts, want, "{m:#}");
    } else {
        assert!(
            job_hosts.len() == 2 && job_hosts.contains(&again[0]),
            "{m:#}"
        );
    }
    check_second_runs(&results, &m, &again);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "survey: --runs auto: {} of 4 node(s) measured again",
            again.len()
        )),
        "{err}"
    );
    assert!(err.contains("finished (run 2 of 2: "), "{err}");
    check_judged_with_second_runs(&r, &again);
}

/// A survey cut in `--runs auto`'s second job (a rank of the node its first round measures
/// again killed): every first run is kept and the chosen nodes wait for their second run
/// (the cut one failed, naming run 2); `--resume` measures only those second runs, without
/// choosing again, and leaves the first runs' traces as they were.
#[test]
fn a_survey_cut_in_its_second_stage_resumes_only_the_second_runs() {
    let Some((_one, hosts, results)) = start(
        "a_survey_cut_in_its_second_stage_resumes_only_the_second_runs",
        'v',
        4,
        "auto-cut",
    ) else {
        return;
    };
    let manifest = results.join("survey.json");
    // Phases of a second or more: a second run is still going when its rank is killed.
    let options: &[&str] = &[
        "--buffer-size",
        "8MiB",
        "--message-buffers",
        "2",
        "--max-phase",
        "1",
        "--stable-within",
        "0.01",
    ];
    let mut child = survey_command(&hosts, &results, options)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(300);
    let mut killed = Vec::new();
    while Instant::now() < until && child.try_wait().unwrap().is_none() {
        // The second job planned: its first round's measured node, once its rank runs.
        let target = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .filter(|m| m["job"] == 2)
            .and_then(|m| Some(m["rounds"][0]["pairs"][0]["measured"].as_str()?.to_string()));
        if let Some(h) = target {
            let driver = driver_on(&h);
            let ranks: Vec<String> = ranks_on(&h)
                .into_iter()
                .filter(|p| Some(p) != driver.as_ref())
                .collect();
            if !ranks.is_empty() {
                for pid in &ranks {
                    let _ = Command::new("kill").args(["-KILL", pid]).status();
                }
                killed = ranks;
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    if !hosts_made("survey of runs auto, cut", &o) {
        return;
    }
    assert!(
        !killed.is_empty(),
        "no second job's rank killed: {}",
        text(&o)
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let m = json(&manifest);
    assert_eq!(m["job"], 2, "{m:#}");
    let again = strings(&m["second_runs"]);
    assert!(!again.is_empty(), "{m:#}");
    let mut first_runs = Vec::new();
    for node in m["nodes"].as_array().unwrap() {
        let host = node["host"].as_str().unwrap();
        first_runs.push(std::fs::read(results.join(host).join(TRACE)).unwrap());
        if again.iter().any(|h| h == host) {
            // Waiting for its second run: failed in the cut round, or pending after it.
            assert_ne!(node["status"], "done", "{node}");
            assert_eq!(node["runs_done"], 1, "{node}");
        } else {
            assert_eq!(node["status"], "done", "{node}");
        }
    }
    let failed: Vec<&Value> = m["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{m:#}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("run 2: the MPI job ended"),
        "{m:#}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--resume"), "{err}");

    let o = survey_command(&hosts, &results, &[&["--resume"][..], options].concat())
        .output()
        .unwrap();
    measured_all(&o);
    let m = json(&manifest);
    assert_eq!(m["job"], 3, "{m:#}");
    // The same choice, not made again; only the second runs measured.
    assert_eq!(strings(&m["second_runs"]), again, "{m:#}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("--runs auto: "), "chosen again: {err}");
    let (measured, runs) = measured_in(&m);
    let mut want = again.clone();
    want.sort();
    assert_eq!(measured, want, "{m:#}");
    assert!(runs.iter().all(|&r| r == 2), "{m:#}");
    check_second_runs(&results, &m, &again);
    for (node, before) in m["nodes"].as_array().unwrap().iter().zip(&first_runs) {
        let host = node["host"].as_str().unwrap();
        assert_eq!(
            &std::fs::read(results.join(host).join(TRACE)).unwrap(),
            before,
            "{host}'s first run changed"
        );
    }
    check_judged_with_second_runs(&report_only_json(&results), &again);
}

/// `contention survey --hosts LIST` on `hosts`, LIST a shell word evaluated on the first
/// host, where `$CONTENTION_HOSTS_ADDRESSES` holds the hosts' addresses (`tests/vm/hosts.sh`;
/// the hosts' names resolve there with `resolve`).
fn survey_by_address(
    hosts: &[String],
    results: &Path,
    list: &str,
    extra: &[&str],
    resolve: bool,
) -> Output {
    Command::new("bash")
        .env("CONTENTION_HOSTS_RESOLVE", if resolve { "1" } else { "0" })
        .arg(SCRIPT)
        .args(hosts)
        .args(["--", "sh", "-c"])
        .arg(format!("exec \"$0\" survey --hosts \"{list}\" \"$@\""))
        .arg(BIN)
        .args(extra)
        .env("CONTENTION_RESULTS", results)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn hosts_given_by_address_are_named_by_their_host_names() {
    let Some((_one, hosts, results)) = start(
        "hosts_given_by_address_are_named_by_their_host_names",
        'a',
        4,
        "address",
    ) else {
        return;
    };
    let extra = [
        "--cores",
        "1..2",
        "--message-size",
        "1MiB",
        "--buffer-size",
        "8MiB",
        "--message-buffers",
        "2",
        "--max-phase",
        "0.2",
    ];
    let o = survey_by_address(
        &hosts,
        &results,
        "$CONTENTION_HOSTS_ADDRESSES",
        &extra,
        false,
    );
    if !hosts_made("survey by address", &o) {
        return;
    }
    measured_all(&o);
    // The manifest keeps both names: the address given, the host name the node reported.
    let m = json(&results.join("survey.json"));
    let nodes = m["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 4, "{m:#}");
    let mut addresses = Vec::new();
    for (node, host) in nodes.iter().zip(&hosts) {
        assert_eq!(node["status"], "done", "{m:#}");
        assert_eq!(node["reported_host"], host.as_str(), "{m:#}");
        let given = node["host"].as_str().unwrap();
        assert_ne!(given, host, "{m:#}");
        assert!(given.starts_with("10."), "{m:#}");
        addresses.push(given.to_string());
        let trace = results.join(host).join(TRACE);
        assert!(trace.is_file(), "{}", trace.display());
        assert!(!results.join(given).exists(), "nothing under the address");
    }
    // Every node is found where it wrote its traces: none without them, named by its host
    // name with the name it was given beside it.
    let r = report_only_json(&results);
    let listed: Vec<(&str, &str)> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["host"].as_str().unwrap(), n["given"].as_str().unwrap()))
        .collect();
    let want: Vec<(&str, &str)> = hosts
        .iter()
        .map(String::as_str)
        .zip(addresses.iter().map(String::as_str))
        .collect();
    assert_eq!(listed, want, "{r:#}");
    for n in r["nodes"].as_array().unwrap() {
        let error = n["error"].as_str().unwrap_or("");
        assert!(!error.contains("no traces"), "{n}");
    }
    // The default `--runs auto` chose from the report, which names the nodes by host name,
    // the nodes given by address: each measured again, its second run under its host name.
    let again = chosen(&m, &r);
    for (node, host) in m["nodes"].as_array().unwrap().iter().zip(&hosts) {
        let given = node["host"].as_str().unwrap();
        let second = results.join(host).join("run2").join(TRACE);
        if again.iter().any(|a| a == given) {
            assert_eq!(
                (&node["status"], &node["runs_done"]),
                (&"done".into(), &2.into())
            );
            assert!(second.is_file(), "{}", second.display());
        } else {
            assert!(!second.exists(), "{}", second.display());
        }
        assert!(!results.join(given).exists(), "nothing under the address");
    }
    // The same node named twice (by its host name and by its address, where names resolve)
    // is refused before the job starts, naming both and the address. (Started, Open MPI's
    // launch with one node twice fails now and then before any rank reports its name.)
    let twice = dir("address-twice");
    let list = format!(
        "{},{},$(echo $CONTENTION_HOSTS_ADDRESSES | cut -d, -f2),{}",
        hosts[0], hosts[1], hosts[2]
    );
    let o = survey_by_address(&hosts, &twice, &list, &extra, true);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    // (Each run of hosts.sh has its own subnet: the address is this run's.)
    assert!(
        err.contains(&format!("`{}` and `10.231.", hosts[1]))
            && err.contains("are the same node (both resolve to the address 10.231."),
        "{err}"
    );
    assert!(!err.contains("round 1"), "no job was planned: {err}");
    assert!(
        !twice.join(&hosts[1]).join(TRACE).exists(),
        "nothing measured"
    );
    assert!(
        !twice.join("survey.json").exists(),
        "a new survey can start afresh"
    );
    // A trace already under a node's host name stops a new survey by address before round 1,
    // naming it (the driver, knowing only the addresses, cannot see it), and stays as it was.
    let old = dir("address-old");
    let planted = old.join(&hosts[2]).join(TRACE);
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::write(&planted, "{}").unwrap();
    let o = survey_by_address(&hosts, &old, "$CONTENTION_HOSTS_ADDRESSES", &extra, false);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(planted.to_str().unwrap()) && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(&planted).unwrap(), b"{}");
    assert!(
        !old.join(&hosts[0]).join(TRACE).exists(),
        "nothing measured"
    );
    assert!(!old.join("survey.json").exists());
}

#[test]
fn five_hosts_measure_the_odd_one_in_a_third_round() {
    let Some((_one, hosts, results)) = start(
        "five_hosts_measure_the_odd_one_in_a_third_round",
        'o',
        5,
        "five",
    ) else {
        return;
    };
    let o = survey_command(
        &hosts,
        &results,
        &[
            ONCE,
            &["--buffer-size", "8MiB", "--message-buffers", "2"],
            SHORT,
        ]
        .concat(),
    )
    .output()
    .unwrap();
    if !hosts_made("survey of 5 hosts", &o) {
        return;
    }
    measured_all(&o);
    let m = check_all_done(&results, &hosts, &hosts);
    // The third round of distinct machines; on one kernel every pair has a round of its own.
    let rounds = m["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5, "{m:#}");
    assert_eq!(rounds[4]["pairs"][0]["measured"], hosts[4].as_str());
    assert_eq!(rounds[4]["pairs"][0]["sender"], hosts[0].as_str());
    let note = m["odd_count"].as_str().unwrap();
    assert!(
        note.contains(&format!("the last node, {}", hosts[4])),
        "{note}"
    );
}

/// The processes of `contention` inside host `h`'s network namespace.
fn ranks_on(h: &str) -> Vec<String> {
    crate::common::hosts::processes_in(h, "contention")
}

/// Longer phases, so round 3 is still running when the test acts on it; one run per node.
const SLOW: &[&str] = &[
    "--runs",
    "1",
    "--buffer-size",
    "8MiB",
    "--message-buffers",
    "2",
    "--max-phase",
    "2",
    "--stable-within",
    "0.01",
];

/// Runs a slow survey of four `hosts` and, once nodes 0 and 1 are recorded done in the
/// manifest, calls `act` (which returns the pids it signalled); returns those and the
/// survey's output. The namespace hosts are one machine, so each pair has a round of its
/// own: (0 <- 2), (1 <- 3), (2 <- 0), (3 <- 1); `act` runs during round 3, which measures
/// node 2 while node 3 waits for round 4.
fn act_in_round_3(
    hosts: &[String],
    results: &Path,
    act: impl Fn() -> Vec<String>,
) -> (Vec<String>, Output) {
    let manifest = results.join("survey.json");
    let mut child = survey_command(hosts, results, SLOW)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(240);
    let mut acted = Vec::new();
    while Instant::now() < until && child.try_wait().unwrap().is_none() {
        let first_half_done = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|m| {
                m["nodes"][0]["status"] == "done" && m["nodes"][1]["status"] == "done"
            });
        if first_half_done {
            acted = act();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (acted, child.wait_with_output().unwrap())
}

#[test]
fn a_host_killed_mid_survey_is_failed_and_resume_completes_it() {
    let Some((_one, hosts, results)) = start(
        "a_host_killed_mid_survey_is_failed_and_resume_completes_it",
        'k',
        4,
        "killed",
    ) else {
        return;
    };
    let manifest = results.join("survey.json");
    // The rank of host 2, measured in round 3, killed.
    let (killed, o) = act_in_round_3(&hosts, &results, || {
        let pids = ranks_on(&hosts[2]);
        for pid in &pids {
            let _ = Command::new("kill").args(["-KILL", pid]).status();
        }
        pids
    });
    if !hosts_made("killed host", &o) {
        return;
    }
    assert!(
        !killed.is_empty(),
        "no rank found on {}: {}",
        hosts[2],
        text(&o)
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let m = json(&manifest);
    let status = |i: usize| m["nodes"][i]["status"].as_str().unwrap().to_string();
    assert_eq!(
        (status(0), status(1)),
        ("done".into(), "done".into()),
        "{m:#}"
    );
    // The cut round's node failed with the job's end; round 4's never started.
    assert_eq!(
        (status(2), status(3)),
        ("failed".into(), "pending".into()),
        "{m:#}"
    );
    assert!(
        m["nodes"][2]["error"]
            .as_str()
            .unwrap()
            .contains("MPI job ended"),
        "{m:#}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--resume"), "{err}");
    // The others are reported before the exit status says nodes were lost: the fleet report
    // counts every host, and lists the killed one and the one never measured among the nodes
    // without a model (a calibrated node inside the band is not named).
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("# fleet of 4 node(s)"), "{}", text(&o));
    for h in &hosts[2..] {
        assert!(
            report.contains(&format!("  {h}: ")),
            "{h} not in the report:\n{report}"
        );
    }
    // Round 1's traces are kept as they were.
    let kept = std::fs::read(results.join(&hosts[0]).join(TRACE)).unwrap();

    // --resume with other options is refused, naming the difference.
    let mut other = SLOW.to_vec();
    let buffer = other.iter().position(|a| *a == "8MiB").unwrap();
    other[buffer] = "16MiB";
    let o = survey_command(&hosts, &results, &[&["--resume"][..], &other].concat())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--buffer-size: 8MiB in the manifest, 16MiB now"),
        "{err}"
    );

    let o = survey_command(&hosts, &results, &[&["--resume"][..], SLOW].concat())
        .output()
        .unwrap();
    measured_all(&o);
    let m = check_all_done(&results, &hosts, &hosts[2..]);
    assert_eq!(m["job"], 2, "{m:#}");
    // The new job ran only the two nodes left.
    assert_eq!(
        m["job_hosts"],
        serde_json::json!([hosts[2], hosts[3]]),
        "{m:#}"
    );
    assert_eq!(
        std::fs::read(results.join(&hosts[0]).join(TRACE)).unwrap(),
        kept
    );
}

/// The survey's driver in host `h`'s namespace: the `contention` there not started by
/// mpirun (rank 0 is mpirun's child).
fn driver_on(h: &str) -> Option<String> {
    ranks_on(h).into_iter().find(|pid| {
        let parent = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit(')')
                    .next()?
                    .split_whitespace()
                    .nth(1)
                    .map(str::to_string)
            });
        parent.is_some_and(|pp| {
            std::fs::read_to_string(format!("/proc/{pp}/comm"))
                .is_ok_and(|c| !["mpirun", "orterun", "orted"].contains(&c.trim()))
        })
    })
}

#[test]
fn ctrl_c_keeps_the_finished_rounds() {
    let Some((_one, hosts, results)) =
        start("ctrl_c_keeps_the_finished_rounds", 'c', 4, "interrupted")
    else {
        return;
    };
    let manifest = results.join("survey.json");
    let (driver, o) = act_in_round_3(&hosts, &results, || {
        let pid = driver_on(&hosts[0]);
        // SIGINT, as Ctrl-C sends it to the foreground process.
        if let Some(p) = &pid {
            let _ = Command::new("kill").args(["-INT", p]).status();
        }
        pid.into_iter().collect()
    });
    if !hosts_made("interrupted survey", &o) {
        return;
    }
    assert!(!driver.is_empty(), "no driver found: {}", text(&o));
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    let m = json(&manifest);
    let status = |i: usize| m["nodes"][i]["status"].as_str().unwrap().to_string();
    assert_eq!(
        (status(0), status(1)),
        ("done".into(), "done".into()),
        "{m:#}"
    );
    // Round 3 was cut (or, if it finished first, recorded done): never left pending;
    // round 4 never started.
    assert_ne!(status(2), "pending", "{m:#}");
    assert_eq!(status(3), "pending", "{m:#}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("survey --resume"), "{err}");
    assert!(results.join(&hosts[0]).join(TRACE).exists());
}

#[test]
fn a_host_with_less_free_memory_gets_smaller_buffers_and_its_trace_says_why() {
    let Some((_one, hosts, results)) = start(
        "a_host_with_less_free_memory_gets_smaller_buffers_and_its_trace_says_why",
        'd',
        4,
        "different",
    ) else {
        return;
    };
    // No --buffer-size: each node sizes its buffer from its own free memory, and host 3 is
    // made to see 64 MiB free.
    let o = survey_command(
        &hosts,
        &results,
        &[ONCE, &["--cores", "1..2"], SHORT].concat(),
    )
    .env("CONTENTION_HOSTS_LOW_MEMORY", format!("{}:64", hosts[2]))
    .output()
    .unwrap();
    if !hosts_made("different host", &o) {
        return;
    }
    measured_all(&o);
    check_all_done(&results, &hosts, &hosts);
    let config = |h: &str| json(&results.join(h).join(TRACE))["config"].clone();
    let buffer = |h: &str| config(h)["buffer_bytes_per_core"].as_u64().unwrap();
    let small = buffer(&hosts[2]);
    assert!(small <= 64 << 20, "{small}");
    for h in [&hosts[0], &hosts[1], &hosts[3]] {
        assert!(buffer(h) > 2 * small, "{h}: {} vs {small}", buffer(h));
    }
    // Its trace says the cache rule could not be met, and why.
    let low = config(&hosts[2]);
    let warnings = low["sizing"]["warnings"].to_string();
    assert!(warnings.contains("free memory allows"), "{low:#}");
    // The fleet report lists every node. Whether the small host is an outlier is not asked:
    // the buffers dwarf the cache wherever memory allows and non-temporal stores bypass it,
    // so a smaller buffer no longer means a faster node.
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("# fleet of 4 node(s)"), "{}", text(&o));
    let r = report_only_json(&results);
    let listed: Vec<&str> = r["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["host"].as_str())
        .collect();
    for h in &hosts {
        assert!(listed.contains(&h.as_str()), "{h} not listed: {r:#}");
    }
}

#[test]
fn one_node_is_refused_and_the_dry_run_shows_the_plan() {
    let o = Command::new(BIN)
        .args(["survey", "--hosts", "n01", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("at least 2 nodes") && err.contains("contention measure"),
        "{err}"
    );

    let results = dir("dry");
    let o = Command::new(BIN)
        .args(["survey", "--hosts", "n1,n2,n3,n4,n5", "--dry-run"])
        .args(TINY)
        .args(SHORT)
        .env("CONTENTION_RESULTS", &results)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for line in [
        "round 1     measured <- sender: n1 <- n3, n2 <- n4",
        "round 2     measured <- sender: n3 <- n1, n4 <- n2",
        "round 3     measured <- sender: n5 <- n1",
        "the last node, n5, is measured alone in round 3",
        "--host n1,n2,n3,n4,n5 --map-by node",
        "3 round(s)",
        // The default `--runs auto`: its second stage's cost, before anything chose it.
        "runs        auto: every node once (the rounds above), then the nodes outside",
        "at most half: 2 of 5 node(s)), in a second job of at most 2 round(s)",
        "and for the second stage (--runs auto) at most 2 round(s) more and a second job's start",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
    assert!(!out.contains("--dry-run"), "{out}");
    // A dry run writes nothing.
    assert!(!results.join("survey.json").exists());
    // Issue 46, item 7: one core count gives no node a model: refused before anything
    // runs, naming the value and the fix.
    let o = Command::new(BIN)
        .args(["survey", "--hosts", "n1,n2,n3", "--cores", "1", "--dry-run"])
        .env("CONTENTION_RESULTS", &results)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--cores 1: a survey calibrates each node from its curve")
            && err.contains("give two or more"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "{}", text(&o));
}

#[test]
fn a_new_survey_refuses_old_traces_before_starting_anything() {
    let results = dir("old");
    // A first run's trace, and a second run's where this survey may measure one (`--runs
    // auto`, the default, or 2): an earlier survey's would be read as this one's.
    for (old, runs) in [
        (results.join("n2").join(TRACE), "1"),
        (results.join("n1").join("run2").join(TRACE), "auto"),
        (results.join("n1").join("run2").join(TRACE), "2"),
    ] {
        std::fs::create_dir_all(old.parent().unwrap()).unwrap();
        std::fs::write(&old, "{}").unwrap();
        let o = Command::new(BIN)
            .args(["survey", "--hosts", "n1,n2", "--runs", runs])
            .args(TINY)
            .args(SHORT)
            .env("CONTENTION_RESULTS", &results)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{runs}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(old.to_str().unwrap()) && err.contains("--force"),
            "{runs}: {err}"
        );
        assert!(!results.join("survey.json").exists());
        std::fs::remove_file(&old).unwrap();
    }
}

/// A survey (or its `--report-only`) that measured every node: exit 0 when every node was
/// calibrated too; else exit 1 naming the nodes with no model (on this loaded machine a
/// node's curve can be refused as implausible), never a node lost.
fn measured_all(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0) => assert!(!err.contains("could not be calibrated"), "{}", text(o)),
        Some(1) => assert!(
            err.contains("could not be calibrated") && !err.contains("node(s) failed"),
            "{}",
            text(o)
        ),
        _ => panic!("{}", text(o)),
    }
}

/// `survey --report-only --format json` over `results`: the fleet report rebuilt from the
/// saved traces and manifest, running nothing.
fn report_only_json(results: &std::path::Path) -> Value {
    let again = Command::new(BIN)
        .args(["survey", "--report-only", "--format", "json"])
        .env("CONTENTION_RESULTS", results)
        .output()
        .unwrap();
    measured_all(&again);
    serde_json::from_slice(&again.stdout).unwrap()
}

#[test]
fn an_adaptive_survey_chooses_each_nodes_points_and_records_why() {
    let Some((_one, hosts, results)) = start(
        "an_adaptive_survey_chooses_each_nodes_points_and_records_why",
        'a',
        2,
        "adaptive",
    ) else {
        return;
    };
    let o = survey_command(
        &hosts,
        &results,
        &[
            ONCE,
            &[
                "--adaptive",
                "--buffer-size",
                "8MiB",
                "--message-buffers",
                "2",
            ],
            SHORT,
        ]
        .concat(),
    )
    .output()
    .unwrap();
    if !hosts_made("adaptive survey", &o) {
        return;
    }
    measured_all(&o);
    let m = check_all_done(&results, &hosts, &hosts);
    assert!(
        m["options"]["--adaptive"]
            .as_str()
            .is_some_and(|a| a.starts_with("--precision 1")),
        "{m:#}"
    );
    // Every node's trace says its sweep was adaptive: each point in the order measured,
    // with why, and why the sweep ended.
    for h in &hosts {
        let t = json(&results.join(h).join(TRACE));
        let choices = t["adaptive"]["choices"].as_array().expect("choices");
        assert_eq!(choices.len(), t["points"].as_array().unwrap().len(), "{h}");
        assert_eq!(choices[0]["cores"], 1, "{h}");
        assert_eq!(choices[0]["why"], "the ends and a coarse grid", "{h}");
        assert!(
            t["adaptive"]["ended"]
                .as_str()
                .is_some_and(|e| e.starts_with("done: ")),
            "{h}: {t:#}"
        );
    }
}

#[test]
fn a_gpu_survey_measures_each_node_alone_and_compares_their_gpus() {
    let Some((_one, hosts, results)) = start(
        "a_gpu_survey_measures_each_node_alone_and_compares_their_gpus",
        'g',
        2,
        "gpu",
    ) else {
        return;
    };
    // Each node replays the H200 node's recorded copies (no GPU here): the survey's path
    // (rounds, each node's in-process GPU measurement, the manifest, the fleet report) is
    // the real one.
    let probe = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gpu-h200/probe-output.txt"
    );
    let o = survey_command(
        &hosts,
        &results,
        &[
            &["--engine", "gpu", "--gpu-replay", probe, "--runs", "1"],
            SMALL,
        ]
        .concat(),
    )
    .output()
    .unwrap();
    if !hosts_made("GPU survey of 2 hosts", &o) {
        return;
    }
    measured_all(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    let m = json(&results.join("survey.json"));
    assert!(
        m["options"]["--engine"]
            .as_str()
            .is_some_and(|e| e.starts_with("gpu --gpu 0 --direction d2h --gpu-replay ")),
        "{m:#}"
    );
    // Each node alone, its own "sender"; one kernel here, so one node per round.
    let rounds: Vec<Vec<(String, String)>> = m["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["pairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["measured"].to_string(), p["sender"].to_string()))
                .collect()
        })
        .collect();
    assert_eq!(rounds.len(), 2, "{m:#}");
    for (host, round) in hosts.iter().zip(&rounds) {
        let quoted = format!("\"{host}\"");
        assert_eq!(round, &[(quoted.clone(), quoted)], "{m:#}");
        // Each node done, its own "sender", in the manifest (the ranks' log lines cross
        // the launcher's forwarding from the remote hosts, and one may be cut at the job's
        // end, so the record is what is checked; a line that arrives names no sender).
        let node = m["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["host"] == host.as_str())
            .unwrap();
        assert_eq!(
            (node["status"].as_str(), node["sender"].as_str()),
            (Some("done"), Some(host.as_str())),
            "{node}"
        );
        assert!(
            !err.contains(&format!("survey: {host} measured (sender")),
            "{err}"
        );
        let t = json(
            &results
                .join(host)
                .join("trace-numa0-0-nt-store-gpu0-d2h.json"),
        );
        assert_eq!(t["transport"]["kind"], "gpu-copy", "{host}");
        assert_eq!(t["machine"]["hostname"], host.as_str());
        assert_eq!(t["complete"], true, "{host}");
    }
    assert!(
        !err.contains("runs on its measured node's own machine"),
        "{err}"
    );
    // The fleet report compares the nodes' GPUs among their facts: those of the nodes that
    // calibrated (on this loaded machine a node's curve can be refused; then it is listed
    // with the reason, and the fleet has no facts from it).
    let r = report_only_json(&results);
    let nodes = r["nodes"].as_array().unwrap();
    for n in nodes.iter().filter(|n| n["calibrated"] == true) {
        assert_eq!(
            n["facts"]["gpu"], "replayed: no GPU driven, link not read",
            "{n:#}"
        );
    }
    if nodes.iter().any(|n| n["calibrated"] == true) {
        assert_eq!(
            r["machine"]["gpu"], "replayed: no GPU driven, link not read",
            "{r:#}"
        );
    } else {
        assert!(nodes.iter().all(|n| n["error"].is_string()), "{r:#}");
    }
}
