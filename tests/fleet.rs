//! The fleet report on a fleet of five hosts made from the recorded trace of the CI machine
//! (`tests/data/traces/vm-local.json`): four alike within 1 %, one made different on purpose
//! (bandwidths 30 % lower, sub-NUMA clustering on, transparent huge pages off, half the
//! memory), plus a sixth that failed in the survey. The report must name the odd host, the
//! parameters that put it outside the band and the facts that differ on it, in the table and
//! in the JSON; `check` of the fleet against itself passes and against an altered copy fails
//! naming the node.

use crate::common::{contention, stderr, stdout, temp_dir};
use contention::fleet::{self, FleetOptions, NodeOutcome, NodeStatus};
use contention::plot::ImageFormat;
use contention::report::Report;
use serde_json::Value;
use std::path::{Path, PathBuf};

const TRACE: &str = "tests/data/traces/vm-local.json";

/// Multiplies every bandwidth of a trace's points (samples, summaries, intervals) by `f`.
fn scale_bandwidths(v: &mut Value, f: f64) {
    match v {
        Value::Object(map) => {
            for (key, val) in map.iter_mut() {
                match key.as_str() {
                    "median" | "mean" | "stddev" | "min" | "max" | "mb_per_s" | "mbps" => {
                        if let Some(x) = val.as_f64() {
                            *val = Value::from(x * f);
                        }
                    }
                    "ci95" => {
                        if let Value::Array(a) = val {
                            for x in a.iter_mut() {
                                if let Some(y) = x.as_f64() {
                                    *x = Value::from(y * f);
                                }
                            }
                        }
                    }
                    _ => scale_bandwidths(val, f),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scale_bandwidths(x, f)),
        _ => {}
    }
}

/// One host's directory under `root`: the recorded trace renamed to `host`, bandwidths
/// scaled by `f`, with the given sub-NUMA clustering, THP mode and memory.
fn host(root: &Path, name: &str, f: f64, snc: bool, thp: &str, memory_bytes: u64) {
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(TRACE).unwrap()).unwrap();
    t["machine"]["hostname"] = Value::from(name);
    t["machine"]["numa_nodes"][0]["memory_bytes"] = Value::from(memory_bytes);
    t["mpi"]["hosts"][0] = Value::from(name);
    t["settings"] = serde_json::json!({
        "transparent_hugepages": thp,
        "numa_balancing": false,
        "cpu_governors": {"performance": 2},
        "sub_numa_clustering": snc,
        "cpus_allowed": "0-1", "cpus_online": "0-1",
        "mems_allowed": "0", "mems_online": "0",
        "restricted_cpuset": false
    });
    scale_bandwidths(&mut t["points"], f);
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("trace-numa0-0-nt-store-pong.json"),
        serde_json::to_string(&t).unwrap(),
    )
    .unwrap();
}

const GIB: u64 = 1 << 30;

/// Five hosts: node1..node4 alike within 1 %, node5 the odd one.
fn fleet(name: &str) -> PathBuf {
    let root = temp_dir(name);
    let _ = std::fs::remove_dir_all(&root);
    for (h, f) in [
        ("node1", 1.0),
        ("node2", 1.01),
        ("node3", 0.99),
        ("node4", 1.005),
    ] {
        host(&root, h, f, false, "always", 12 * GIB);
    }
    host(&root, "node5", 0.7, true, "never", 6 * GIB);
    root
}

fn outcomes() -> Vec<NodeOutcome> {
    let mut v: Vec<NodeOutcome> = (1..=5)
        .map(|i| NodeOutcome {
            host: format!("node{i}"),
            given: None,
            status: NodeStatus::Done,
            detail: None,
        })
        .collect();
    v.push(NodeOutcome {
        host: "node6".into(),
        given: None,
        status: NodeStatus::Failed,
        detail: Some("rank 0 timed out after 60 s".into()),
    });
    v
}

#[test]
fn the_odd_host_and_its_differing_facts_are_named_in_table_and_json() {
    let root = fleet("fleet-report");
    let r = fleet::report(&root, &outcomes(), &FleetOptions::default()).unwrap();
    let table = r.table();
    println!("{table}");
    // Every done node was calibrated and got its model.json, as calibrate writes it.
    for i in 1..=5 {
        assert!(
            root.join(format!("node{i}/model.json")).is_file(),
            "node{i}"
        );
    }
    assert!(!root.join("node6/model.json").exists());
    // The outliers are node5's bandwidths, and only node5's.
    assert!(!r.outliers.is_empty());
    assert!(r.outliers.iter().all(|o| o.host == "node5"), "{table}");
    let flagged: Vec<&str> = r.outliers.iter().map(|o| o.parameter.as_str()).collect();
    for p in ["local.t_seq_max", "local.b_seq_comp", "local.b_seq_comm"] {
        assert!(flagged.contains(&p), "{p} not flagged: {flagged:?}");
    }
    // alpha is a ratio: scaling every bandwidth leaves it in the band.
    assert!(!flagged.contains(&"local.alpha"), "{flagged:?}");
    let odd = r.nodes.iter().find(|n| n.host == "node5").unwrap();
    let facts: Vec<&str> = odd.differing_facts.iter().map(|d| d.fact).collect();
    assert_eq!(
        facts,
        ["sub_numa_clustering", "transparent_hugepages", "memory"]
    );
    // The table names the node, what is off, and the facts with both values.
    let outliers = table.split("\noutliers:").nth(1).expect("outlier section");
    assert!(outliers.contains("node5:"), "{table}");
    assert!(outliers.contains("local.b_seq_comp"), "{table}");
    assert!(
        outliers.contains("sub_numa_clustering    on (fleet: off)"),
        "{table}"
    );
    assert!(
        outliers.contains("transparent_hugepages  never (fleet: always)"),
        "{table}"
    );
    assert!(
        outliers.contains("memory                 6.0 GiB (fleet: 12.0 GiB)"),
        "{table}"
    );
    assert!(!outliers.contains("node1:") && !outliers.contains("node2:"));
    assert!(
        table.contains("node6: failed: rank 0 timed out after 60 s"),
        "{table}"
    );
    // The JSON says the same for scripts, with the usual header objects.
    let json: Value = serde_json::from_str(&contention::io::output::pretty_json(&r)).unwrap();
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["tool"]["tool"], "contention");
    assert_eq!(json["machine"]["sub_numa_clustering"], "off");
    let b_seq_comp = json["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["parameter"] == "local.b_seq_comp")
        .unwrap();
    assert_eq!(b_seq_comp["outliers"], serde_json::json!(["node5"]));
    assert_eq!(b_seq_comp["nodes"], 5);
    let node5 = &json["nodes"][4];
    assert_eq!(node5["host"], "node5");
    assert_eq!(node5["differing_facts"][0]["fact"], "sub_numa_clustering");
    assert_eq!(node5["differing_facts"][0]["node"], "on");
    assert_eq!(json["nodes"][5]["status"], "failed");
    assert_eq!(json["nodes"][5]["calibrated"], false);
    // CSV: one row per calibrated node and parameter, flagged.
    let csv = r.csv().unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "host,side,parameter,value,median,mad,min,max,low,high,own_noise,outlier,simulated"
    );
    assert_eq!(rows.len(), 1 + 5 * 10);
    let row = rows
        .iter()
        .find(|l| l.starts_with("node5,local,b_seq_comp,"))
        .unwrap();
    assert!(row.ends_with(",true,"), "{row}");
    assert!(rows
        .iter()
        .filter(|l| l.starts_with("node1,"))
        .all(|l| l.ends_with(",false,")));
    // The figure, in both formats: the outlier is labelled in the strips and the curves.
    let figures = root.join("figures");
    let svg = contention::plot::fleet::write_figure(&r, &figures, ImageFormat::Svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.matches("\nnode5\n").count() >= 2, "node5 labelled");
    assert!(
        !text.contains("\nnode1\n"),
        "nodes within the band are not labelled"
    );
    let png = contention::plot::fleet::write_figure(&r, &figures, ImageFormat::Png).unwrap();
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    if let Some(keep) = std::env::var_os("CONTENTION_KEEP_FLEET_FIGURE") {
        std::fs::copy(&png, keep).unwrap();
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_simulated_trace_never_stands_for_a_node() {
    let root = fleet("fleet-simulated");
    let path = root.join("node2/trace-numa0-0-nt-store-pong.json");
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // Both marks, as `measure --simulate` writes them (one alone is a corrupt trace).
    t["machine"]["simulated"] = Value::from("paper:henri");
    t["simulation"] = serde_json::json!({
        "machine": "paper:henri",
        "seed": 1,
        "measuring_seconds": 10.0
    });
    std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
    let r = fleet::report(&root, &outcomes(), &FleetOptions::default()).unwrap();
    let node2 = r.nodes.iter().find(|n| n.host == "node2").unwrap();
    assert!(!node2.calibrated, "{node2:?}");
    let e = node2.error.as_deref().unwrap();
    assert!(
        e.contains("a simulated trace (paper:henri)") && e.contains("fleet compares real nodes"),
        "{e}"
    );
    assert_eq!(r.parameters[0].nodes, 4, "compared without it");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_node_whose_calibration_fails_is_reported_and_the_others_go_on() {
    let root = fleet("fleet-broken");
    // node3's directory holds no trace: measured, said the survey, but nothing to fit.
    std::fs::remove_file(root.join("node3/trace-numa0-0-nt-store-pong.json")).unwrap();
    let r = fleet::report(&root, &outcomes(), &FleetOptions::default()).unwrap();
    let node3 = r.nodes.iter().find(|n| n.host == "node3").unwrap();
    assert!(!node3.calibrated);
    assert!(
        node3.error.as_deref().unwrap().contains("no traces"),
        "{node3:?}"
    );
    assert_eq!(r.parameters[0].nodes, 4);
    assert!(r.table().contains("node3: calibration failed: "));
    assert!(r.outliers.iter().any(|o| o.host == "node5"));
    // A band of width 0 is refused with the fix.
    let e = fleet::report(
        &root,
        &outcomes(),
        &FleetOptions {
            k: 0.0,
            ..FleetOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("e.g. 3"), "{e}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn check_of_a_fleet_passes_against_itself_and_fails_naming_the_node_that_moved() {
    let saved = fleet("fleet-check-saved");
    let r = fleet::report(&saved, &outcomes(), &FleetOptions::default()).unwrap();
    let saved_json = saved.join("fleet.json");
    std::fs::write(&saved_json, contention::io::output::pretty_json(&r)).unwrap();
    let s = saved.to_str().unwrap();
    // Against itself, from the saved models in the directory and from the report's JSON.
    for reference in [s, saved_json.to_str().unwrap()] {
        let o = contention(&["check", "--fleet", reference, s]);
        assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
        let out = stdout(&o);
        for i in 1..=5 {
            assert!(out.contains(&format!("node{i}: PASS")), "{out}");
        }
        assert!(out.contains("result: PASS"), "{out}");
    }
    // A new survey where node2 lost 20 % (0.8 x its saved 1.01: 20.79 % off) and node4 was not
    // measured, and a new node7.
    let new = fleet("fleet-check-new");
    host(&new, "node2", 0.8, false, "always", 12 * GIB);
    std::fs::remove_dir_all(new.join("node4")).unwrap();
    host(&new, "node7", 1.0, false, "always", 12 * GIB);
    let o = contention(&["check", "--fleet", s, new.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("node1: PASS"), "{out}");
    assert!(
        out.contains("node2: FAIL: prediction drift max 20.79 %"),
        "{out}"
    );
    assert!(out.contains("local.b_seq_comp"), "{out}");
    assert!(
        out.contains("node4: FAIL, saved but not in the new results"),
        "{out}"
    );
    assert!(
        out.contains("node7: new, no saved model to compare with"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("node2: predictions moved by up to 20.79 %"),
        "{}",
        stderr(&o)
    );
    // JSON for scripts: the failing node and the verdicts.
    let o = contention(&["check", "--fleet", s, new.to_str().unwrap(), "-f", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let j: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["pass"], false);
    let verdicts: Vec<(String, String)> = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["host"].as_str().unwrap().to_string(),
                n["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        verdicts.contains(&("node2".into(), "fail".into())),
        "{verdicts:?}"
    );
    assert!(verdicts.contains(&("node4".into(), "missing_in_new".into())));
    assert!(verdicts.contains(&("node7".into(), "missing_in_saved".into())));
    // Bad input is exit 2, naming the fix.
    let o = contention(&["check", "--fleet", "/nonexistent/fleet", s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = contention(&["check", "--fleet", s, s, s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name that one directory"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&saved).unwrap();
    std::fs::remove_dir_all(&new).unwrap();
}

/// `check --fleet` applies `check -m`'s guards to every saved model: one of another machine
/// (a paper model of 2 NUMA nodes against the CI machine's trace) or of a simulated machine
/// against real measurements is refused (exit 2); both gave "FAIL: prediction drift 147.70 %",
/// exit 1. A saved report that lists one host twice is refused: the last one was kept.
#[test]
fn check_of_a_fleet_refuses_a_model_of_another_machine_or_origin_and_a_host_listed_twice() {
    let saved = fleet("fleet-guard-saved");
    let r = fleet::report(&saved, &outcomes(), &FleetOptions::default()).unwrap();
    let new = fleet("fleet-guard-new");
    let (s, n) = (saved.to_str().unwrap(), new.to_str().unwrap());
    let model = saved.join("node1/model.json");
    let calibrated = std::fs::read_to_string(&model).unwrap();
    let paper = contention::io::model_file::load("paper:henri").unwrap();
    std::fs::write(&model, contention::io::output::pretty_json(&paper)).unwrap();
    let o = contention(&["check", "--fleet", s, n]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("describes machine `henri`"),
        "{}",
        stderr(&o)
    );
    let mut simulated: Value = serde_json::from_str(&calibrated).unwrap();
    simulated["calibration"]["measured_machine"]["simulated"] = Value::from("paper:henri");
    std::fs::write(&model, simulated.to_string()).unwrap();
    let o = contention(&["check", "--fleet", s, n]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("a simulated machine is never compared with a real one"),
        "{}",
        stderr(&o)
    );
    // The same two as a saved report's nodes.
    let mut report: Value = serde_json::from_str(&contention::io::output::pretty_json(&r)).unwrap();
    report["nodes"][0]["model"] = serde_json::to_value(&paper).unwrap();
    let saved_json = saved.join("fleet.json");
    std::fs::write(&saved_json, report.to_string()).unwrap();
    let o = contention(&["check", "--fleet", saved_json.to_str().unwrap(), n]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("describes machine `henri`"),
        "{}",
        stderr(&o)
    );
    // One host listed twice.
    let mut report: Value = serde_json::from_str(&contention::io::output::pretty_json(&r)).unwrap();
    let second = report["nodes"][1].clone();
    report["nodes"].as_array_mut().unwrap().push(second);
    std::fs::write(&saved_json, report.to_string()).unwrap();
    let o = contention(&["check", "--fleet", saved_json.to_str().unwrap(), n]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("`node2` twice"), "{}", stderr(&o));
    std::fs::remove_dir_all(&saved).unwrap();
    std::fs::remove_dir_all(&new).unwrap();
}

/// Issue 46, F15: a saved report of 200,000 nodes wrote its failure as one 11 MB stderr
/// line. The error line names the first ten failures and counts the others; the report
/// still lists every one.
#[test]
fn check_of_a_fleet_names_ten_failures_on_its_error_line_and_counts_the_rest() {
    let saved = fleet("fleet-width-saved");
    let r = fleet::report(&saved, &outcomes(), &FleetOptions::default()).unwrap();
    let new = fleet("fleet-width-new");
    let mut report: Value = serde_json::from_str(&contention::io::output::pretty_json(&r)).unwrap();
    let calibrated = report["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["model"].is_object())
        .unwrap()
        .clone();
    let nodes = report["nodes"].as_array_mut().unwrap();
    const GHOSTS: usize = 3000;
    for i in 0..GHOSTS {
        let mut ghost = calibrated.clone();
        ghost["host"] = Value::from(format!("ghost{i:05}"));
        nodes.push(ghost);
    }
    let saved_json = saved.join("fleet.json");
    std::fs::write(&saved_json, report.to_string()).unwrap();
    let out = saved.join("check.json");
    let o = contention(&[
        "check",
        "--fleet",
        saved_json.to_str().unwrap(),
        new.to_str().unwrap(),
        "-f",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("check failed:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.len() < 3000,
        "{} characters: {}",
        line.len(),
        &line[..3000]
    );
    assert!(
        line.contains(&format!("and {} more", GHOSTS - 10)),
        "{line}"
    );
    assert!(line.contains("the report lists every failure"), "{line}");
    let checked: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(checked["failures"].as_array().unwrap().len(), GHOSTS);
    std::fs::remove_dir_all(&saved).unwrap();
    std::fs::remove_dir_all(&new).unwrap();
}

#[test]
fn a_node_within_the_band_whose_machine_differs_is_listed_apart() {
    let root = fleet("fleet-cpuset");
    // node0 measures like the others but ran in a cpuset restricted to one CPU.
    host(&root, "node0", 1.002, false, "always", 12 * GIB);
    let path = root.join("node0/trace-numa0-0-nt-store-pong.json");
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    t["settings"]["cpus_allowed"] = Value::from("0");
    t["settings"]["restricted_cpuset"] = Value::from(true);
    std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
    let r = fleet::report(
        &root,
        &fleet::hosts_in(&root).unwrap(),
        &FleetOptions::default(),
    )
    .unwrap();
    let table = r.table();
    assert!(r.outliers.iter().all(|o| o.host == "node5"), "{table}");
    let apart = table
        .split("nodes within the band whose machine differs from the fleet's:")
        .nth(1)
        .unwrap_or_else(|| panic!("no such section:\n{table}"));
    assert!(apart.contains("node0:"), "{table}");
    assert!(
        apart.contains("cpuset_restriction     cpus 0 of 0-1, mems 0 of 0 (fleet: none)"),
        "{table}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Gives every phase of `host`'s trace under `root` a 95 % interval of +-`rel` around its
/// median, after scaling the phase (samples, summary) by `noise`: a node measured with short
/// phases, whose medians moved by `noise`, within what its intervals say.
fn with_noise(root: &Path, host: &str, noise: f64, rel: f64) {
    let path = root.join(host).join("trace-numa0-0-nt-store-pong.json");
    let mut t: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for p in t["points"].as_array_mut().unwrap() {
        for phase in ["comp_alone", "comm_alone", "comp_parallel", "comm_parallel"] {
            scale_bandwidths(&mut p[phase], noise);
            let m = p[phase]["summary"]["median"].as_f64().unwrap();
            p[phase]["ci95"] = serde_json::json!([m * (1.0 - rel), m * (1.0 + rel)]);
        }
    }
    std::fs::write(&path, serde_json::to_string(&t).unwrap()).unwrap();
}

#[test]
fn identical_nodes_with_noise_have_no_outlier_and_one_at_0_6_is_flagged_on_what_moved() {
    // Five identical nodes measured with +-5 % intervals, their medians moved by noise
    // within them: four close together (a MAD of 0.2 %, so the band is its 1 % floor, +-3 %)
    // and one 4 % off, outside that band but within its own noise. Three draws, the odd one
    // a different node each time, low or high.
    let draws: [[f64; 5]; 3] = [
        [1.0, 1.002, 0.998, 1.001, 0.96],
        [1.04, 1.0, 0.999, 1.002, 0.998],
        [0.998, 1.001, 0.961, 1.0, 1.002],
    ];
    for (d, factors) in draws.iter().enumerate() {
        let root = temp_dir(&format!("fleet-noise-{d}"));
        let _ = std::fs::remove_dir_all(&root);
        for (i, f) in factors.iter().enumerate() {
            let h = format!("node{}", i + 1);
            host(&root, &h, 1.0, false, "always", 12 * GIB);
            with_noise(&root, &h, *f, 0.05);
        }
        let nodes = fleet::hosts_in(&root).unwrap();
        let r = fleet::report(&root, &nodes, &FleetOptions::default()).unwrap();
        let table = r.table();
        assert!(r.nodes.iter().all(|n| n.calibrated), "{table}");
        assert!(r.outliers.is_empty(), "draw {d}: {table}");
        assert!(table.contains("\noutliers: none"), "{table}");
        // The band alone would have named the odd node: the report says why it does not.
        assert!(!r.within_noise.is_empty(), "draw {d}: {table}");
        assert!(table.contains("within its own noise"), "{table}");

        // The same fleet with node2 at 0.6 x bandwidth: it alone is flagged, on the
        // bandwidths that moved; alpha, a ratio of two bandwidths, did not move.
        host(&root, "node2", 0.6, false, "always", 12 * GIB);
        with_noise(&root, "node2", factors[1], 0.05);
        let r = fleet::report(&root, &nodes, &FleetOptions::default()).unwrap();
        let table = r.table();
        assert!(r.outliers.iter().all(|o| o.host == "node2"), "{table}");
        let flagged: Vec<&str> = r.outliers.iter().map(|o| o.parameter.as_str()).collect();
        for p in [
            "local.t_par_max",
            "local.t_seq_max",
            "local.b_seq_comp",
            "local.b_seq_comm",
        ] {
            assert!(flagged.contains(&p), "draw {d}: {p} not flagged: {table}");
        }
        assert!(!flagged.contains(&"local.alpha"), "{table}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
