//! The tool under a real Slurm (Debian's 22.05: `tests/vm/slurm.sh` makes a cluster of
//! namespace hosts, `tests/common/slurm.rs` holds it for a test): `measure` in a two-node
//! allocation uses both nodes by itself; `sbatch --wrap 'contention survey'` surveys every
//! node of its job, measures the nodes `--runs auto` chose again in a second MPI job of the
//! same allocation, and writes the fleet report; `scancel` of a survey, then `--resume`,
//! finishes it; `scancel` of a measure ends every rank and keeps the finished points; the
//! srun options that give the tool's step whole nodes are checked against this Slurm's own
//! accounting; a one-node allocation says what to ask for; a bare srun (no MPI plugin) is
//! refused naming the plugin; MPICH's build is started by srun.
//!
//! Runs are tiny (one or two core counts, small buffers and messages, short phases): the
//! nodes share this machine's cores, so the tests check where ranks ran and what the files
//! and Slurm say, never a bandwidth or a duration.

use crate::common::run::{json, one_job, temp_dir, text, BIN, SURVEY_TINY, TINY};
use crate::common::slurm::Cluster;
use crate::common::{gate, mpich};

use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

/// Longer phases and two core counts, so a run is still going when a test acts on it.
const SLOW: &[&str] = &[
    "--numa",
    "0,0",
    "--cores",
    "1..2",
    "--message-size",
    "1MiB",
    "--buffer-size",
    "8MiB",
    "--max-phase",
    "2",
    "--stable-within",
    "0.01",
];

const TRACE: &str = "trace-numa0-0-nt-store-pong.json";

/// Waiting for a batch job: generous, the machine is shared.
const JOB_LIMIT: Duration = Duration::from_secs(300);

/// Parsed, or `None` while the file is missing or being replaced.
fn try_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// Polls `until` every 100 ms, at most `limit`; panics naming `what`.
fn wait_until(what: &str, limit: Duration, mut until: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !until() {
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn measure_in_a_two_node_allocation_uses_both_nodes_by_itself() {
    let _one = one_job();
    let Some(c) = Cluster::up(
        "measure_in_a_two_node_allocation_uses_both_nodes_by_itself",
        'm',
        2,
    ) else {
        return;
    };
    let d = temp_dir("slurm-salloc-measure");
    let out = d.join("t.json");
    // No host option: the allocation says where the ranks go.
    let o = c.run(
        &[
            &["salloc", "-N", "2", BIN, "measure"][..],
            TINY,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let (n1, n2) = (c.node(1), c.node(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "rank 0 (measured) on {n1}, rank 1 (sender) on {n2}"
        )),
        "{err}"
    );
    let t = json(&out);
    assert_eq!(t["machine"]["hostname"], n1.as_str());
    assert_eq!(t["mpi"]["hosts"], serde_json::json!([n1, n2]));
    assert_eq!(t["transport"]["kind"], "network");
    assert!(t["mpi"]["library"]
        .as_str()
        .unwrap()
        .starts_with("Open MPI "));
    let launcher = t["mpi"]["launcher"].as_str().unwrap();
    assert!(
        launcher.starts_with("Open MPI mpirun, in Slurm job "),
        "{launcher}"
    );
    gate::say(&format!(
        "slurm: measure in salloc -N 2, no option: trace excerpt: mpi.library={} \
         mpi.launcher={} mpi.hosts={} transport={}",
        t["mpi"]["library"], t["mpi"]["launcher"], t["mpi"]["hosts"], t["transport"]["kind"]
    ));
}

#[test]
fn a_batch_survey_measures_every_node_of_its_job_and_writes_the_fleet_report() {
    let _one = one_job();
    let Some(c) = Cluster::up(
        "a_batch_survey_measures_every_node_of_its_job_and_writes_the_fleet_report",
        's',
        4,
    ) else {
        return;
    };
    let results = temp_dir("slurm-sbatch-survey");
    let log = results.join("job.out");
    // The default runs (`auto`): a first job measures every node once, then a second one,
    // inside the same allocation, the nodes the first runs' report chose.
    let job = c.sbatch_tool(
        4,
        &log,
        Some(&results),
        BIN,
        &[&["survey"][..], SURVEY_TINY].concat(),
    );
    let state = c.wait_job(&job, JOB_LIMIT);
    let out = std::fs::read_to_string(&log).unwrap_or_default();
    // A node's curve can be refused as implausible on this loaded machine: a survey that
    // calibrated fewer nodes than it measured exits 1 (the job FAILED), saying so; no node
    // may be lost.
    let uncalibrated = out.contains("could not be calibrated") && !out.contains("node(s) failed");
    assert!(
        state == "COMPLETED" || state == "FAILED" && uncalibrated,
        "{state}: {out}"
    );
    let m = json(&results.join("survey.json"));
    let nodes: Vec<String> = (1..=4).map(|i| c.node(i)).collect();
    // The batch script runs on the job's first node, which is rank 0 and writes the
    // manifest.
    assert_eq!(m["hosts"], serde_json::json!(nodes), "{m:#}");
    let again: Vec<&str> = m["second_runs"]
        .as_array()
        .unwrap_or_else(|| panic!("no second stage: {m:#}"))
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    // Half the calibrated nodes (at least one) are chosen when any calibrated.
    let calibrated = calibrated_of(&out);
    assert_eq!(
        again.len(),
        if calibrated == 0 {
            0
        } else {
            (calibrated / 2).max(1)
        },
        "{calibrated} calibrated: {m:#}"
    );
    let rounds = m["rounds"].as_array().unwrap();
    if again.is_empty() {
        // Two rounds of two pairs on distinct machines; these namespace nodes are one
        // kernel, so each pair has a round of its own.
        assert_eq!((m["job"].as_u64(), rounds.len()), (Some(1), 4), "{m:#}");
    } else {
        // The second job's rounds: a chosen node in each (one kernel), run 2.
        assert_eq!(m["job"], 2, "{m:#}");
        assert_eq!(rounds.len(), again.len(), "{m:#}");
        assert!(rounds.iter().all(|r| r["run"] == 2), "{m:#}");
    }
    for node in m["nodes"].as_array().unwrap() {
        let host = node["host"].as_str().unwrap();
        assert_eq!(node["status"], "done", "{node}");
        let run2 = results.join(host).join("run2").join(TRACE);
        let traces = if again.contains(&host) {
            assert_eq!(node["runs_done"], 2, "{node}");
            vec![results.join(host).join(TRACE), run2]
        } else {
            assert!(!run2.exists(), "{host} was not chosen");
            vec![results.join(host).join(TRACE)]
        };
        for trace in traces {
            let t = json(&trace);
            assert_eq!(t["mpi"]["hosts"][0], host);
            assert_ne!(t["mpi"]["hosts"][1], host);
            assert_eq!(t["transport"]["kind"], "network");
            assert!(
                t["mpi"]["launcher"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("in Slurm job {job}")),
                "{}",
                t["mpi"]
            );
        }
    }
    assert!(out.contains("# fleet of 4 node(s)"), "{out}");
    assert!(results.join("fleet.svg").exists());
}

/// The nodes the survey's last line says it calibrated (`survey: 4 of 4 node(s) measured, C
/// calibrated, ...`), in the job's log `out`.
fn calibrated_of(out: &str) -> usize {
    out.lines()
        .find_map(|l| {
            let rest = l.strip_prefix("survey: ")?.split(" measured, ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no survey summary in: {out}"))
}

#[test]
fn scancel_of_a_running_survey_then_resume_finishes_it() {
    let _one = one_job();
    let Some(c) = Cluster::up(
        "scancel_of_a_running_survey_then_resume_finishes_it",
        'r',
        4,
    ) else {
        return;
    };
    let results = temp_dir("slurm-survey-resume");
    let manifest = results.join("survey.json");
    let first = results.join("first.out");
    let job = c.sbatch_tool(
        4,
        &first,
        Some(&results),
        BIN,
        // One run per node: what this test is about is the cut and the resume of the first.
        &[&["survey", "--runs", "1"][..], SLOW].concat(),
    );
    // Nodes 0 and 1 recorded (rounds 1 and 2: one pair a round on these one-kernel nodes):
    // round 3 runs. Cancel the job, as an administrator or the time limit would.
    wait_until("rounds 1 and 2 of the survey", JOB_LIMIT, || {
        try_json(&manifest)
            .is_some_and(|m| m["nodes"][0]["status"] == "done" && m["nodes"][1]["status"] == "done")
    });
    let o = c.run(&["scancel", &job]);
    assert!(o.status.success(), "{}", text(&o));
    let state = c.wait_job(&job, JOB_LIMIT);
    assert_eq!(state, "CANCELLED");
    let m = json(&manifest);
    let status = |m: &Value, i: usize| m["nodes"][i]["status"].as_str().unwrap().to_string();
    assert_eq!(
        (status(&m, 0), status(&m, 1)),
        ("done".into(), "done".into())
    );
    for i in [2, 3] {
        assert_ne!(
            status(&m, i),
            "done",
            "round 3 or 4 finished before scancel: {m:#}"
        );
    }
    let kept = std::fs::read(results.join(c.node(1)).join(TRACE)).unwrap();

    let second = results.join("second.out");
    let job = c.sbatch_tool(
        4,
        &second,
        Some(&results),
        BIN,
        &[&["survey", "--resume", "--runs", "1"][..], SLOW].concat(),
    );
    let state = c.wait_job(&job, JOB_LIMIT);
    let out = std::fs::read_to_string(&second).unwrap_or_default();
    // What this test is about is the resume. A node measured while the machine is loaded
    // (namespace hosts share its cores with the other tests) can give a trace calibrate
    // refuses as implausible; the survey then ends failed after measuring every node, and
    // says so. Any other failure fails the test.
    let refused = out.contains("could not be calibrated");
    assert!(
        state == "COMPLETED" || (state == "FAILED" && refused),
        "{state}: {out}"
    );
    let m = json(&manifest);
    assert_eq!(m["job"], 2, "{m:#}");
    for i in 0..4 {
        assert_eq!(status(&m, i), "done", "{m:#}");
    }
    // The resumed job measured only the nodes left; round 1's traces are as they were.
    assert!(
        !m["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["pairs"].as_array().unwrap())
            .any(|p| p["measured"] == c.node(1).as_str() || p["measured"] == c.node(2).as_str()),
        "{m:#}"
    );
    assert_eq!(
        std::fs::read(results.join(c.node(1)).join(TRACE)).unwrap(),
        kept
    );
    assert!(out.contains("# fleet of 4 node(s)"), "{out}");
}

#[test]
fn scancel_of_a_running_measure_ends_every_rank_and_keeps_the_finished_points() {
    let _one = one_job();
    let Some(c) = Cluster::up(
        "scancel_of_a_running_measure_ends_every_rank_and_keeps_the_finished_points",
        'c',
        2,
    ) else {
        return;
    };
    let d = temp_dir("slurm-scancel-measure");
    let trace = d.join("t.json");
    let log = d.join("job.out");
    let job = c.sbatch_tool(
        2,
        &log,
        None,
        BIN,
        &[&["measure"][..], SLOW, &["-o", trace.to_str().unwrap()]].concat(),
    );
    let mut first = Value::Null;
    wait_until("the first point", JOB_LIMIT, || match try_json(&trace) {
        Some(t) if !t["points"].as_array().unwrap().is_empty() => {
            first = t["points"][0].clone();
            true
        }
        _ => false,
    });
    let o = c.run(&["scancel", &job]);
    assert!(o.status.success(), "{}", text(&o));
    let state = c.wait_job(&job, JOB_LIMIT);
    let out = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(state, "CANCELLED", "{out}");
    // Every rank ended (the job's processes are gone from both nodes), after saving, as
    // Ctrl-C does.
    wait_until("the ranks to end", Duration::from_secs(30), || {
        c.processes("contention").is_empty()
    });
    assert!(
        out.contains("interrupted: finished points are saved"),
        "{out}"
    );
    let t = json(&trace);
    assert_eq!(t["points"][0], first, "the finished point changed");
    assert_eq!(t["mpi"]["hosts"], serde_json::json!([c.node(1), c.node(2)]));
}

/// Runs `cmd` on the login node and meanwhile asks `scontrol -o show KIND` every 100 ms for
/// the largest `FIELD=N` of a running job or step; its output and that number. Tried up to
/// three times while Slurm never showed it (a start-up that failed at once: Open MPI's
/// `srun --mpi=pmix` start-up crashes now and then on a loaded machine).
fn largest_while(c: &Cluster, cmd: &[&str], kind: &str, field: &str) -> (Output, u32) {
    for _ in 0..3 {
        let child = c
            .login(cmd)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut child = Some(child);
        let mut largest = 0;
        let pattern = format!(" {field}=");
        loop {
            let done = child.as_mut().unwrap().try_wait().unwrap().is_some();
            let o = c.run(&["scontrol", "-o", "show", kind]);
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                if !line.contains("RUNNING") {
                    continue;
                }
                if let Some(n) = line
                    .split(&pattern)
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
                {
                    largest = largest.max(n);
                }
            }
            if done {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let o = child.take().unwrap().wait_with_output().unwrap();
        if largest > 0 {
            return (o, largest);
        }
        gate::say(&format!(
            "slurm: Slurm never showed the {kind}; again: {}",
            text(&o)
        ));
    }
    panic!("Slurm never showed the {kind} of {cmd:?}");
}

/// The CPUs of the step `srun OPTS` starts inside `salloc -N 2 --exclusive`, as Slurm counts
/// them, with `env` in srun's environment (`scontrol` run by the step itself).
fn step_cpus(c: &Cluster, env: &[&str], opts: &[&str]) -> Output {
    let probe = "scontrol -o show step $SLURM_JOB_ID.$SLURM_STEP_ID";
    c.run(
        &[
            &["salloc", "-N", "2", "--exclusive", "env"][..],
            env,
            &["srun", "--ntasks=2", "--nodes=2", "--ntasks-per-node=1"],
            opts,
            &["sh", "-c", probe],
        ]
        .concat(),
    )
}

#[test]
fn the_tools_srun_step_gets_whole_nodes_on_this_slurm() {
    let _one = one_job();
    let Some(c) = Cluster::up("the_tools_srun_step_gets_whole_nodes_on_this_slurm", 'w', 2) else {
        return;
    };
    // What the rule is for, on this Slurm: a step made exact by the environment (a site's
    // or a user's SLURM_EXACT, SRUN_CPUS_PER_TASK) gets one CPU per task, and --whole
    // cannot undo SLURM_EXACT; without it a step gets every CPU of the job.
    let exact = step_cpus(&c, &["SLURM_EXACT=1"], &[]);
    assert!(
        String::from_utf8_lossy(&exact.stdout).contains(" CPUs=2 "),
        "{}",
        text(&exact)
    );
    let both = step_cpus(&c, &["SLURM_EXACT=1"], &["--whole"]);
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("mutually exclusive"),
        "{}",
        text(&both)
    );
    let whole = step_cpus(&c, &[], &["--whole"]);
    assert!(
        String::from_utf8_lossy(&whole.stdout).contains(" CPUs=4 "),
        "{}",
        text(&whole)
    );

    // The tool's own step, in that environment: every CPU of both nodes.
    let d = temp_dir("slurm-whole");
    let out = d.join("in.json");
    let (o, cpus) = largest_while(
        &c,
        &[
            &[
                "salloc",
                "-N",
                "2",
                "--exclusive",
                "env",
                "SLURM_EXACT=1",
                "SRUN_CPUS_PER_TASK=1",
                BIN,
                "measure",
                "--launcher",
                "srun",
            ][..],
            SLOW,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
        "step",
        "CPUs",
    );
    assert_eq!(cpus, 4, "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("env -u SLURM_EXACT -u SRUN_CPUS_PER_TASK")
            && err.contains("srun --whole ")
            && err.contains(" --mpi=pmix "),
        "{err}"
    );

    // A new job (no allocation around the tool): whole nodes with --exclusive, where the
    // same tasks alone would hold one CPU each; rank 0 stays on the first host named.
    let plain = c.run(&[
        "srun",
        "--ntasks=2",
        "--nodes=2",
        "--ntasks-per-node=1",
        "sh",
        "-c",
        "scontrol -o show job $SLURM_JOB_ID",
    ]);
    assert!(
        String::from_utf8_lossy(&plain.stdout).contains(" NumCPUs=2 "),
        "{}",
        text(&plain)
    );
    let out = d.join("new.json");
    let hosts = format!("{},{}", c.node(2), c.node(1));
    let (o, cpus) = largest_while(
        &c,
        &[
            &[BIN, "measure", "--launcher", "srun", "--hosts", &hosts][..],
            SLOW,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
        "job",
        "NumCPUs",
    );
    assert_eq!(cpus, 4, "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("srun --exclusive "),
        "{}",
        text(&o)
    );
    if o.status.success() {
        assert_eq!(json(&out)["machine"]["hostname"], c.node(2).as_str());
    }
}

#[test]
fn a_one_node_allocation_says_what_to_ask_for() {
    let _one = one_job();
    let Some(c) = Cluster::up("a_one_node_allocation_says_what_to_ask_for", 'o', 2) else {
        return;
    };
    let n1 = c.node(1);
    let o = c.run(&[&["salloc", "-N", "1", BIN, "survey"][..], SURVEY_TINY].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "has one node ({n1}), but a survey needs at least 2 nodes"
        )) && err.contains("salloc -N 4 --exclusive"),
        "{err}"
    );
    // measure runs there, both ranks on the node, and says how to cross the network.
    let d = temp_dir("slurm-one-node");
    let out = d.join("t.json");
    let o = c.run(
        &[
            &["salloc", "-N", "1", BIN, "measure"][..],
            TINY,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("this Slurm job has one node ({n1})"))
            && err.contains("salloc -N 2 --exclusive"),
        "{err}"
    );
    let t = json(&out);
    assert_eq!(t["mpi"]["hosts"], serde_json::json!([n1, n1]));
    assert_eq!(t["transport"]["kind"], "intra-node");
}

#[test]
fn srun_without_an_mpi_plugin_is_refused_naming_the_one_to_ask_for() {
    let _one = one_job();
    let Some(c) = Cluster::up(
        "srun_without_an_mpi_plugin_is_refused_naming_the_one_to_ask_for",
        'n',
        2,
    ) else {
        return;
    };
    // MpiDefault=none, as many sites leave it: a bare srun starts no MPI library's ranks
    // (Open MPI would abort in MPI_Init, "not built with SLURM's PMI support").
    let o = c.run(&[&["srun", "-N", "2", "-n", "2", BIN, "measure"][..], TINY].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("started by srun with no MPI plugin") && err.contains("`srun --mpi=pmix`"),
        "{err}"
    );
    assert_eq!(err.matches("with no MPI plugin").count(), 1, "{err}");
}

#[test]
fn mpich_in_a_two_node_allocation_is_started_by_srun() {
    if !mpich::runnable("mpich_in_a_two_node_allocation_is_started_by_srun") {
        return;
    }
    let bin = mpich::binary();
    let _one = one_job();
    let Some(c) = Cluster::up("mpich_in_a_two_node_allocation_is_started_by_srun", 'p', 2) else {
        return;
    };
    let d = temp_dir("slurm-mpich");
    let out = d.join("t.json");
    let o = c.run(
        &[
            &["salloc", "-N", "2", bin.to_str().unwrap(), "measure"][..],
            TINY,
            &["-o", out.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = json(&out);
    assert_eq!(t["mpi"]["hosts"], serde_json::json!([c.node(1), c.node(2)]));
    assert!(t["mpi"]["library"].as_str().unwrap().starts_with("MPICH "));
    let launcher = t["mpi"]["launcher"].as_str().unwrap();
    assert!(
        launcher.starts_with("srun --mpi=pmi2, in Slurm job "),
        "{launcher}"
    );
}
