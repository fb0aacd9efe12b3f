//! `contention network` end to end: the paper's Figure 3 through the table and the JSON,
//! penalty models, the memory-model cap, and bad files refused naming file and field.

use crate::common::run::one_job;
use crate::common::{contention, stderr, stdout, temp_dir};

const FIGURE3: &str = "tests/data/network/figure3.json";
const FIGURE3_PENALTIES: &str = "tests/data/network/figure3-penalties.json";

fn json(args: &[&str]) -> serde_json::Value {
    let o = contention(args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn within(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-3 * want
}

#[test]
fn figure_3_json_reproduces_the_paper() {
    let v = json(&[
        "network",
        FIGURE3,
        "--penalties",
        FIGURE3_PENALTIES,
        "--format",
        "json",
    ]);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    for (step, want) in steps.iter().zip([0.0160590, 0.0297984, 0.0363749]) {
        let end = step["end"].as_f64().unwrap();
        assert!(within(end, want), "{end} vs {want}");
    }
    let remaining = |k: usize, id: &str| {
        steps[k]["active"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["id"] == id)
            .unwrap()["remaining_bytes"]
            .as_f64()
            .unwrap()
    };
    assert!(within(remaining(0, "a"), 11_983_700.0));
    assert!(within(remaining(0, "e"), 11_534_300.0));
    assert!(within(remaining(1, "c"), 4_294_170.0));
    assert_eq!(remaining(1, "d"), 0.0);
    let ends: Vec<f64> = v["communications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["end"].as_f64().unwrap())
        .collect();
    assert!(within(ends[0], 0.0363749) && within(ends[3], 0.0297984));
    assert!(within(ends[5], 0.0160590));
    assert_eq!(v["penalties"], FIGURE3_PENALTIES);
    assert!(v["memory_cap"].is_null());
    assert!(v["tool"]["version"].is_string());
}

#[test]
fn figure_3_table_prints_every_step() {
    let o = contention(&["network", FIGURE3, "--penalties", FIGURE3_PENALTIES]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let row = |step: &str, id: &str| {
        out.lines()
            .find(|l| {
                let w: Vec<_> = l.split_whitespace().collect();
                w.len() == 5 && w[0] == step && w[1] == id
            })
            .unwrap_or_else(|| panic!("no row {step} {id} in\n{out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(row("1", "f")[2], "1.500");
    assert_eq!(row("1", "a")[3], "11983726");
    assert_eq!(row("2", "d")[4], "0.0297983");
    // Finished earlier: `-` and its own end time, as in the paper.
    assert_eq!(row("2", "f")[2..], ["-", "0", "0.0160589"]);
    assert_eq!(row("3", "c")[4], "0.0363748");
    assert!(out.contains("alpha 5.1050e-10 s/B"), "{out}");
}

#[test]
fn penalty_models_differ_where_they_should() {
    let dir = temp_dir("network-models");
    // One node sending to two, and a single sender into one of them.
    let g = dir.join("g.json");
    std::fs::write(
        &g,
        r#"{"bandwidth": 1000, "communications": [
            {"id": "x", "src": "a", "dst": "b", "bytes": 1e6},
            {"id": "y", "src": "a", "dst": "c", "bytes": 1e6},
            {"id": "z", "src": "d", "dst": "b", "bytes": 1e6}]}"#,
    )
    .unwrap();
    let g = g.to_str().unwrap();
    let first = |v: &serde_json::Value| -> Vec<f64> {
        v["steps"][0]["active"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["penalty"].as_f64().unwrap())
            .collect()
    };
    // InfiniBand: a's edges 2 + 1/1 = 3 (item c), z 1 + 1/(3-1) = 1.5 (item b).
    let ib = first(&json(&["network", g, "--format", "json"]));
    assert_eq!(ib, vec![3.0, 3.0, 1.5]);
    // Max-min: a's card halves, b's receive leaves 1/2 for z.
    let fair = first(&json(&["network", g, "--penalties", "fair", "-f", "json"]));
    assert_eq!(fair, vec![2.0, 2.0, 2.0]);
}

#[test]
fn memory_model_caps_the_receivers() {
    let dir = temp_dir("network-cap");
    // A link much faster than what henri's memory lets a node receive while 18 cores compute.
    let g = dir.join("fast.json");
    std::fs::write(
        &g,
        r#"{"bandwidth": 100000, "communications": [
            {"id": "x", "src": "a", "dst": "b", "bytes": 1e9}]}"#,
    )
    .unwrap();
    let g = g.to_str().unwrap();
    let alone = json(&["network", g, "-f", "json"]);
    let capped = json(&[
        "network",
        g,
        "-f",
        "json",
        "--memory-model",
        "paper:henri",
        "--cores",
        "18",
        "--placement",
        "0,0",
    ]);
    let cap = &capped["memory_cap"];
    let comm_parallel = cap["comm_parallel"].as_f64().unwrap();
    assert!(comm_parallel < 100_000.0);
    let end = |v: &serde_json::Value| v["communications"][0]["end"].as_f64().unwrap();
    assert!((end(&alone) - 0.01).abs() < 1e-12);
    // 1e9 bytes at comm_parallel MB/s.
    assert!((end(&capped) - 1e3 / comm_parallel).abs() < 1e-9 * end(&capped));
    // The three options go together.
    let o = contention(&["network", g, "--memory-model", "paper:henri"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn bad_files_are_refused_naming_file_and_field() {
    let dir = temp_dir("network-bad");
    let cases = [
        (
            r#"{"alpha": 1e-9, "communications": [{"id": "a", "src": "n0", "dst": "n0", "bytes": 5}]}"#,
            "communications[0].dst",
        ),
        (
            r#"{"alpha": 1e-9, "communications": [{"id": "a", "src": "n0", "dst": "n1", "bytes": -5}]}"#,
            "communications[0].bytes",
        ),
        (
            r#"{"alpha": 1e-9, "communications": [{"id": "a", "src": "n0", "dst": "n1"}]}"#,
            "bytes",
        ),
        (r#"{"communications": []}"#, "alpha"),
    ];
    for (i, (text, field)) in cases.iter().enumerate() {
        let f = dir.join(format!("bad{i}.json"));
        std::fs::write(&f, text).unwrap();
        let o = contention(&["network", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text}");
        let err = stderr(&o);
        assert!(err.contains(&format!("bad{i}.json")), "{err}");
        assert!(err.contains(field), "{field} not in {err}");
    }
    // A penalty file that does not fit the graph names the step and the communication.
    let pen = dir.join("pen.json");
    std::fs::write(&pen, r#"{"steps": [{"a": 3.5}]}"#).unwrap();
    let o = contention(&["network", FIGURE3, "--penalties", pen.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("pen.json") && err.contains("steps[0].b"),
        "{err}"
    );
    // A missing graph file.
    let o = contention(&["network", "no-such-graph.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-graph.json"));
}

/// The shape of `figure3.json` (docs/guide.md): the InfiniBand model gives the figure's penalties
/// except 1.43 instead of 1.5 for `f` in the first step.
#[test]
fn infiniband_on_the_figure_3_shape() {
    let v = json(&["network", FIGURE3, "--format", "json"]);
    let penalties = |k: usize| -> Vec<String> {
        v["steps"][k]["active"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| format!("{:.2}", e["penalty"].as_f64().unwrap()))
            .collect()
    };
    assert_eq!(
        penalties(0),
        ["3.50", "3.50", "3.50", "3.33", "3.33", "1.43"]
    );
    assert_eq!(penalties(1), ["3.50", "3.50", "3.50", "2.33", "2.33"]);
    assert_eq!(penalties(2), ["3.00", "3.00", "3.00"]);
}

/// A real local run: one MPI rank per communication end on this host. Checks the instrument
/// (every communication measured, in every repetition, beside its prediction), not the speed.
#[test]
fn run_measures_every_communication_with_mpi() {
    let _one = one_job();
    let dir = temp_dir("network-run");
    let g = dir.join("two.json");
    std::fs::write(
        &g,
        r#"{"bandwidth": 5000, "communications": [
            {"id": "a", "src": "n0", "dst": "n1", "bytes": 4194304},
            {"id": "b", "src": "n0", "dst": "n2", "bytes": 4194304, "start": 0.001}]}"#,
    )
    .unwrap();
    let v = json(&[
        "network",
        g.to_str().unwrap(),
        "--run",
        "--repeat",
        "2",
        "--format",
        "json",
    ]);
    let measured = v["measured"].as_array().unwrap();
    assert_eq!(measured.len(), 2);
    for (m, c) in measured.iter().zip(v["communications"].as_array().unwrap()) {
        assert_eq!(m["id"], c["id"]);
        assert_eq!(m["predicted"], c["time"]);
        let times = m["times"].as_array().unwrap();
        assert_eq!(times.len(), 2);
        for t in times {
            let t = t.as_f64().unwrap();
            assert!(t.is_finite() && t > 0.0, "{m}");
        }
        assert!(!m["src_host"].as_str().unwrap().is_empty());
        assert!(m["ratio"].as_f64().unwrap() > 0.0);
    }
    // Without --run there is no `measured`.
    let v = json(&["network", g.to_str().unwrap(), "--format", "json"]);
    assert!(v.get("measured").is_none());
}

#[test]
fn run_refuses_messages_mpi_cannot_send_in_one() {
    let dir = temp_dir("network-run-big");
    let g = dir.join("big.json");
    std::fs::write(
        &g,
        r#"{"alpha": 1e-10, "communications": [
            {"id": "huge", "src": "n0", "dst": "n1", "bytes": 3e9}]}"#,
    )
    .unwrap();
    let o = contention(&["network", g.to_str().unwrap(), "--run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("`huge`"), "{}", stderr(&o));
    // --repeat only goes with --run.
    let o = contention(&["network", g.to_str().unwrap(), "--repeat", "3"]);
    assert_eq!(o.status.code(), Some(2));
    // Issue 46, N8: a report under a missing directory was found after the MPI job.
    std::fs::write(
        &g,
        r#"{"bandwidth": 5000, "communications": [{"id": "a", "src": "n0", "dst": "n1", "bytes": 1000}]}"#,
    )
    .unwrap();
    let report = dir.join("nodir/r.json");
    let o = contention(&[
        "network",
        g.to_str().unwrap(),
        "--run",
        "-o",
        report.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("-o: `") && e.contains("nodir` does not exist"),
        "{e}"
    );
}

#[test]
fn measure_graph_runs_the_same_job() {
    let _one = one_job();
    let dir = temp_dir("measure-graph");
    let g = dir.join("one.json");
    std::fs::write(
        &g,
        r#"{"bandwidth": 5000, "communications": [
            {"id": "a", "src": "n0", "dst": "n1", "bytes": 4194304}]}"#,
    )
    .unwrap();
    let o = contention(&["measure", "--graph", g.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("measured with MPI (median of 5 runs)"),
        "{out}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
